// End-to-end, protocol level: the batched forms of acks and reports
// (PageAckBatch, FetchReportBatch) against a real zcrawl-writer and a real
// zcrawl-frontier, with this test playing the fetcher over a raw DEALER.
// Seeds sit on a local HTTP server that nobody contacts: the test reports
// the fetches itself.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "net/envelope_codec.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "warc/compressed_warc_blocks.h"
#include "zcrawl.pb.h"

namespace zcrawl::testing {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A fetcher's DEALER speaking envelopes.
class FakeFetcher {
 public:
  FakeFetcher(zmq::context_t& context, const std::string& endpoint)
      : socket_(context, zmq::socket_type::dealer), codec_("fetcher-batch-test") {
    socket_.set(zmq::sockopt::routing_id, codec_.sender_id());
    socket_.set(zmq::sockopt::linger, 0);
    socket_.connect(endpoint);
  }

  void Send(v1::Envelope envelope) {
    socket_.send(zmq::buffer(codec_.Encode(envelope)), zmq::send_flags::none);
  }

  // Next envelope within the deadline, heartbeats skipped unless asked for.
  std::optional<v1::Envelope> Next(int64_t deadline_ms, bool skip_heartbeats = true) {
    while (NowMs() < deadline_ms) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(50));
      zmq::message_t message;
      if (!(item.revents & ZMQ_POLLIN) || !socket_.recv(message, zmq::recv_flags::dontwait)) continue;
      auto envelope = EnvelopeCodec::Decode(
          std::string_view(static_cast<const char*>(message.data()), message.size()));
      if (envelope.ok() && !(skip_heartbeats && envelope->has_heartbeat())) return *envelope;
    }
    return std::nullopt;
  }

 private:
  zmq::socket_t socket_;
  EnvelopeCodec codec_;
};

v1::Envelope ReadyAsFetcher(uint32_t threads) {
  v1::Envelope envelope;
  envelope.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
  envelope.mutable_ready()->set_threads(threads);
  return envelope;
}

class BatchedMessagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest&) {
      return TestResponse{};
    });
    server_->Start();
    dir_ = MakeTempDir("batched-messages");
  }
  void TearDown() override {
    EXPECT_EQ(server_->total_requests(), 0u) << "only the test fetches, and it fetches nothing";
  }

  zmq::context_t context_;
  std::unique_ptr<TestHttpServer> server_;
  std::string dir_;
};

TEST_F(BatchedMessagesTest, FrontierCompletesEveryUrlOfOneReportBatch) {
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string summary = dir_ + "/summary.json";
  TestProcess frontier;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", endpoint, "--no-robots", "--delay-ms",
                  "0", "--per-host", "3", "--heartbeat-ms", "200", "--liveness", "50",
                  "--summary-file", summary, server_->origin() + "/a", server_->origin() + "/b",
                  server_->origin() + "/c"},
                 dir_ + "/frontier.log");
  FakeFetcher fetcher(context_, endpoint);
  fetcher.Send(ReadyAsFetcher(3));
  v1::Envelope request;
  request.mutable_work_request()->set_credit(3);
  fetcher.Send(request);

  std::vector<v1::WorkItem> items;
  const int64_t deadline = NowMs() + 10000;
  while (items.size() < 3) {
    auto envelope = fetcher.Next(deadline);
    ASSERT_TRUE(envelope.has_value()) << "got " << items.size() << " of 3 leases\n"
                                      << ReadFile(dir_ + "/frontier.log");
    for (const auto& item : envelope->work_batch().items()) items.push_back(item);
  }

  v1::Envelope reports;
  for (const auto& item : items) {
    v1::FetchReport* report = reports.mutable_fetch_reports()->add_reports();
    report->set_lease_id(item.lease_id());
    report->set_url(item.url());
    report->set_status(v1::FETCH_STATUS_OK);
    report->set_http_status(200);
  }
  fetcher.Send(reports);

  // Nothing is left waiting or leased only if all three reports counted.
  std::optional<v1::Envelope> last;
  while ((last = fetcher.Next(NowMs() + 10000)) && !last->has_shutdown()) {
  }
  ASSERT_TRUE(last.has_value()) << "no shutdown: a report of the batch was lost\n"
                                << ReadFile(dir_ + "/frontier.log");
  ASSERT_EQ(frontier.Wait(10000), std::optional<int>(0)) << ReadFile(dir_ + "/frontier.log");
  const auto json = nlohmann::json::parse(ReadFile(summary));
  EXPECT_EQ(json["done"], 3) << json.dump();
  EXPECT_EQ(json["failed"], 0) << json.dump();
}

// Files flush at once; WARC pipelines its commits (the next batch is
// written while the previous one syncs): every page is acknowledged once
// either way, and only after its batch is on disk.
class WriterAckTest : public BatchedMessagesTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(WriterAckTest, WriterAcknowledgesEveryPageOnceAndGroupsACommitPerFetcher) {
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string format = GetParam();
  TestProcess writer;
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", endpoint, "--out", dir_ + "/out",
                "--format", format, "--heartbeat-ms", "200"},
               dir_ + "/writer.log");
  FakeFetcher fetcher(context_, endpoint);
  fetcher.Send(ReadyAsFetcher(1));
  constexpr int kPages = 40;
  auto page_envelope = [&](int i) {
    v1::Envelope envelope;
    v1::Page* page = envelope.mutable_page();
    page->set_page_id("fetcher-batch-test/" + std::to_string(i));
    page->set_url(server_->origin() + "/p" + std::to_string(i));
    page->set_dedup_key(page->url());
    page->set_final_url(page->url());
    page->set_http_status(200);
    page->set_content_type("text/html");
    page->set_body("<p>page " + std::to_string(i));
    return envelope;
  };
  for (int i = 1; i <= kPages; ++i) fetcher.Send(page_envelope(i));

  std::map<std::string, int> acks;  // page id -> times acknowledged
  int messages = 0;
  const int64_t deadline = NowMs() + 15000;
  int acked = 0;
  while (acked < kPages) {
    auto envelope = fetcher.Next(deadline);
    ASSERT_TRUE(envelope.has_value()) << acked << " of " << kPages << " acknowledged\n"
                                      << ReadFile(dir_ + "/writer.log");
    std::vector<v1::PageAck> batch;
    if (envelope->has_page_ack()) batch.push_back(envelope->page_ack());
    for (const auto& ack : envelope->page_acks().acks()) batch.push_back(ack);
    if (batch.empty()) continue;
    ++messages;
    for (const auto& ack : batch) {
      EXPECT_TRUE(ack.stored()) << ack.page_id() << ": " << ack.error();
      EXPECT_FALSE(ack.duplicate()) << ack.page_id();
      ++acks[ack.page_id()];
      ++acked;
    }
  }
  ASSERT_EQ(acks.size(), static_cast<size_t>(kPages));
  for (const auto& [id, count] : acks) EXPECT_EQ(count, 1) << id;
  // Forty pages sent back to back cannot each have had a commit of their
  // own: the writer reads everything waiting before it commits.
  EXPECT_LT(messages, kPages) << "every page was acknowledged in a message of its own";
  // Acknowledged means durable, and listed in the sink's own index.
  const std::string index = ReadFile(dir_ + "/out/" + (format == "warc" ? "zcrawl-index.jsonl" : "index.jsonl"));
  EXPECT_EQ(std::count(index.begin(), index.end(), '\n'), kPages) << index;

  // A redelivery is acknowledged as a duplicate, not written again.
  fetcher.Send(page_envelope(7));
  std::optional<v1::PageAck> again;
  while (!again) {
    auto envelope = fetcher.Next(NowMs() + 10000);
    ASSERT_TRUE(envelope.has_value()) << ReadFile(dir_ + "/writer.log");
    if (envelope->has_page_ack()) again = envelope->page_ack();
    if (envelope->page_acks().acks_size() > 0) again = envelope->page_acks().acks(0);
  }
  EXPECT_EQ(again->page_id(), "fetcher-batch-test/7");
  EXPECT_TRUE(again->stored());
  EXPECT_TRUE(again->duplicate());
  writer.Signal(SIGTERM);
  EXPECT_TRUE(writer.Wait(10000).has_value());
}

INSTANTIATE_TEST_SUITE_P(Formats, WriterAckTest, ::testing::Values("files", "warc"));

TEST_F(BatchedMessagesTest, WriterTellsEachFetcherWhatToAddToItsPages) {
  // The writer's answer to Ready carries WriterWants: WARC response blocks
  // at its gzip level, unless it stores records uncompressed, was told not
  // to ask, or writes no WARC at all; and bodies left out when no sink
  // reads them (beyond a WARC sink's blocks).
  struct Case {
    std::vector<std::string> flags;
    uint32_t level;
    bool omit_body;
  };
  const std::vector<Case> cases = {
      {{"--format", "warc"}, 1, true},
      {{"--format", "jsonl,warc", "--warc-gzip-level", "6"}, 6, true},
      {{"--format", "warc,jsonl", "--jsonl-body"}, 1, false},
      {{"--format", "warc,files"}, 1, false},
      {{"--format", "warc", "--warc-gzip-level", "0"}, 0, false},
      {{"--format", "warc", "--no-fetcher-compression"}, 0, false},
      {{"--format", "files"}, 0, false},
      {{"--format", "jsonl"}, 0, true},  // text and links only: no bodies at all
      {{"--format", "jsonl", "--jsonl-body"}, 0, false},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    const std::string out = dir_ + "/out" + std::to_string(i);
    std::vector<std::string> argv = {BinDir() + "/zcrawl-writer", "--bind", endpoint, "--out", out};
    argv.insert(argv.end(), cases[i].flags.begin(), cases[i].flags.end());
    TestProcess writer;
    writer.Start(argv, out + ".log");
    FakeFetcher fetcher(context_, endpoint);
    fetcher.Send(ReadyAsFetcher(1));
    auto answer = fetcher.Next(NowMs() + 10000, /*skip_heartbeats=*/false);
    ASSERT_TRUE(answer.has_value()) << ReadFile(out + ".log");
    ASSERT_TRUE(answer->has_heartbeat()) << answer->DebugString();
    EXPECT_EQ(answer->heartbeat().writer_wants().warc_block_level(), cases[i].level) << i;
    EXPECT_EQ(answer->heartbeat().writer_wants().omit_body(), cases[i].omit_body) << i;
    writer.Signal(SIGTERM);
    EXPECT_TRUE(writer.Wait(10000).has_value());
  }
}

TEST_F(BatchedMessagesTest, WriterRestoresAnOmittedBodyForASinkThatReadsBodies) {
  // A page sent without its body (for a writer that said it could do
  // without) reaches a writer whose files sink needs it: the body is
  // inflated from the page's WARC block and stored. Without a block to
  // restore it from, the page is refused, so the frontier fetches it again.
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess writer;
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", endpoint, "--out", dir_ + "/out", "--format", "files",
                "--summary-file", dir_ + "/writer-summary.json"},
               dir_ + "/writer.log");
  FakeFetcher fetcher(context_, endpoint);
  fetcher.Send(ReadyAsFetcher(1));
  std::string body;
  for (int i = 0; body.size() < 20000; ++i) body += "<p>paragraph " + std::to_string(i) + "</p>\n";
  auto omitted = [&](int i, bool with_block) {
    v1::Envelope envelope;
    v1::Page* page = envelope.mutable_page();
    page->set_page_id("fetcher-batch-test/" + std::to_string(i));
    page->set_url(server_->origin() + "/omitted" + std::to_string(i));
    page->set_dedup_key(page->url());
    page->set_http_status(200);
    page->set_content_type("text/html");
    page->set_body(body);
    GzipMemberCompressor compressor(1);
    if (with_block) {
      EXPECT_TRUE(AddWarcBlocks(*page, compressor).ok());
    }
    page->set_body_length(body.size());
    page->clear_body();
    return envelope;
  };
  fetcher.Send(omitted(1, true));
  fetcher.Send(omitted(2, false));
  std::map<std::string, v1::PageAck> acks;
  while (acks.size() < 2) {
    auto envelope = fetcher.Next(NowMs() + 10000);
    ASSERT_TRUE(envelope.has_value()) << ReadFile(dir_ + "/writer.log");
    if (envelope->has_page_ack()) acks[envelope->page_ack().page_id()] = envelope->page_ack();
    for (const auto& ack : envelope->page_acks().acks()) acks[ack.page_id()] = ack;
  }
  const v1::PageAck& restored = acks["fetcher-batch-test/1"];
  EXPECT_TRUE(restored.stored()) << restored.error();
  const v1::PageAck& refused = acks["fetcher-batch-test/2"];
  EXPECT_FALSE(refused.stored());
  EXPECT_NE(refused.error().find("without its body"), std::string::npos) << refused.error();

  const std::string index = ReadFile(dir_ + "/out/index.jsonl");
  ASSERT_EQ(std::count(index.begin(), index.end(), '\n'), 1) << index;
  const auto entry = nlohmann::json::parse(index.substr(0, index.find('\n')));
  EXPECT_EQ(ReadFile(dir_ + "/out/" + entry["file"].get<std::string>()), body);
  EXPECT_EQ(entry["bytes"], body.size());
  writer.Signal(SIGTERM);
  EXPECT_TRUE(writer.Wait(10000).has_value());
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/writer-summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << ReadFile(dir_ + "/writer.log");
  EXPECT_EQ(summary.value("bodies_restored", 0u), 1u) << summary.dump(2);
}

// A ROUTER standing in for the frontier or the writer: receives envelopes
// with the sender's routing id and answers one.
class FakePeer {
 public:
  FakePeer(zmq::context_t& context, const std::string& endpoint, const std::string& sender_id)
      : socket_(context, zmq::socket_type::router), codec_(sender_id) {
    socket_.set(zmq::sockopt::linger, 0);
    socket_.set(zmq::sockopt::router_handover, 1);  // a reconnecting peer keeps its id
    socket_.bind(endpoint);
  }

  // Next envelope within `ms`, with the routing id it came from.
  std::optional<std::pair<std::string, v1::Envelope>> Next(int ms) {
    const int64_t deadline = NowMs() + ms;
    while (NowMs() < deadline) {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(20));
      zmq::message_t identity, payload;
      if (!(item.revents & ZMQ_POLLIN) || !socket_.recv(identity, zmq::recv_flags::dontwait)) continue;
      if (!socket_.recv(payload, zmq::recv_flags::none)) continue;
      auto envelope = EnvelopeCodec::Decode(std::string_view(static_cast<const char*>(payload.data()), payload.size()));
      if (envelope.ok()) return std::make_pair(identity.to_string(), *envelope);
    }
    return std::nullopt;
  }

  void Send(const std::string& identity, v1::Envelope envelope) {
    socket_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(codec_.Encode(envelope)), zmq::send_flags::none);
  }

 private:
  zmq::socket_t socket_;
  EnvelopeCodec codec_;
};

TEST_F(BatchedMessagesTest, FetcherAsksForWorkOnlyOnceTheWriterAnswered) {
  // Until the writer first answers, a fetcher could hand over nothing it
  // fetched and would not know what the writer wants with each page: it
  // must not take work. The frontier here answers everything at once; the
  // writer stays silent for a second, then answers.
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  FakePeer frontier(context_, frontier_ep, "frontier-test");
  FakePeer writer(context_, writer_ep, "writer-test");
  TestProcess fetcher;
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep,
                 "--heartbeat-ms", "200", "--threads", "2"},
                dir_ + "/fetcher.log");
  v1::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  auto drain_frontier = [&](int ms) {
    int work_requests = 0;
    const int64_t until = NowMs() + ms;
    while (NowMs() < until) {
      auto got = frontier.Next(static_cast<int>(std::max<int64_t>(1, until - NowMs())));
      if (!got) break;
      if (got->second.has_ready() || got->second.has_heartbeat()) frontier.Send(got->first, heartbeat);
      if (got->second.has_work_request()) ++work_requests;
    }
    return work_requests;
  };
  EXPECT_EQ(drain_frontier(1000), 0) << ReadFile(dir_ + "/fetcher.log");

  // The writer answers now (every Ready and Heartbeat, as it must).
  int work_requests = 0;
  for (const int64_t until = NowMs() + 5000; work_requests == 0 && NowMs() < until;) {
    while (auto hello = writer.Next(20)) writer.Send(hello->first, heartbeat);
    work_requests += drain_frontier(50);
  }
  EXPECT_GT(work_requests, 0) << ReadFile(dir_ + "/fetcher.log");
  fetcher.Signal(SIGTERM);
  EXPECT_TRUE(fetcher.Wait(10000).has_value());
}

}  // namespace
}  // namespace zcrawl::testing
