// WriterNode, driven without processes: its ROUTER and its link to the
// frontier over inproc://, the frontier and a fetcher played by sockets in
// the test, and a FakeClock, so liveness is checked to the millisecond and
// a lost acknowledgement is a message the test drops.
#include "writer/writer_node.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <optional>
#include <zmq.hpp>

#include "common/clock.h"
#include "net/envelope_codec.h"
#include "tests/support/inproc_peers.h"
#include "tests/support/test_process.h"
#include "writer/jsonl_sink.h"

namespace zcrawl::writer {
namespace {

class WriterNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.bind = zcrawl::testing::UniqueInprocEndpoint("writer-node-test-writer");
    options_.frontier = zcrawl::testing::UniqueInprocEndpoint("writer-node-test-frontier");
    options_.link.heartbeat_ms = 1000;
    options_.link.liveness = 5;
    options_.link.reconnect_min_ms = 250;
    options_.sink.out_dir = zcrawl::testing::MakeTempDir("writer_node_test");
    frontier_.set(zmq::sockopt::router_handover, 1);  // as the frontier: a reconnecting peer keeps its id
    frontier_.bind(options_.frontier);
    std::vector<std::unique_ptr<Sink>> sinks;
    sinks.push_back(std::make_unique<JsonlSink>(options_.sink));
    writer_.emplace(options_, context_, clock_, std::move(sinks));
    ASSERT_TRUE(writer_->Start().ok());
  }

  void Step(int turns = 1) {
    for (int i = 0; i < turns; ++i) {
      bool done = false;
      ASSERT_TRUE(writer_->Step(5, &done).ok());
      ASSERT_FALSE(done);
    }
  }

  // The next envelope `socket` received (a ROUTER's identity frame is
  // stored in *identity), stepping the writer meanwhile.
  std::optional<v1::Envelope> Next(zmq::socket_t& socket, bool router, std::string* identity = nullptr,
                                   v1::Envelope::PayloadCase wanted = v1::Envelope::PAYLOAD_NOT_SET) {
    for (int turn = 0; turn < 200; ++turn) {
      Step();
      while (auto envelope = zcrawl::testing::TryReceiveEnvelope(socket, router, identity)) {
        if (wanted == v1::Envelope::PAYLOAD_NOT_SET || envelope->payload_case() == wanted) return envelope;
      }
    }
    return std::nullopt;
  }

  void FrontierSays(const std::string& writer_identity, v1::Envelope envelope) {
    zcrawl::testing::SendEnvelope(frontier_, frontier_codec_, std::move(envelope), writer_identity);
  }

  WriterOptions options_;
  zmq::context_t context_{1};
  zmq::socket_t frontier_{context_, zmq::socket_type::router};
  EnvelopeCodec frontier_codec_{"frontier-test"};
  FakeClock clock_;
  std::optional<WriterNode> writer_;
};

TEST_F(WriterNodeTest, TheWriterDeclaresASilentFrontierLostAndReconnects) {
  std::string identity;
  auto ready = Next(frontier_, true, &identity, v1::Envelope::kReady);
  ASSERT_TRUE(ready.has_value());
  EXPECT_EQ(ready->ready().role(), v1::PEER_ROLE_WRITER);
  v1::Envelope heartbeat;
  heartbeat.mutable_heartbeat();
  FrontierSays(identity, heartbeat);
  Step(3);
  // Exactly liveness x heartbeat of silence: still alive.
  clock_.Advance(options_.link.heartbeat_ms * options_.link.liveness);
  Step();
  EXPECT_EQ(writer_->counters().frontier_lost, 0u);
  // One millisecond more: lost, and the writer connects again and says
  // READY again (the first reconnect is due: the backoff has passed).
  clock_.Advance(1);
  auto again = Next(frontier_, true, &identity, v1::Envelope::kReady);
  EXPECT_EQ(writer_->counters().frontier_lost, 1u);
  ASSERT_TRUE(again.has_value()) << "no READY after the reconnection";
  // Heard again: a later silence is a new loss, counted again.
  FrontierSays(identity, heartbeat);
  Step(3);
  clock_.Advance(options_.link.heartbeat_ms * options_.link.liveness + 1);
  Step();
  EXPECT_EQ(writer_->counters().frontier_lost, 2u);
}

TEST_F(WriterNodeTest, APageResentAfterALostAckIsStoredOnceAndAcknowledgedAsADuplicate) {
  zmq::socket_t fetcher(context_, zmq::socket_type::dealer);
  fetcher.set(zmq::sockopt::routing_id, "fetcher-test");
  fetcher.connect(options_.bind);
  EnvelopeCodec codec("fetcher-test");
  v1::Envelope page;
  page.mutable_page()->set_page_id("fetcher-test/1");
  page.mutable_page()->set_url("http://a.test/");
  page.mutable_page()->set_http_status(200);
  page.mutable_page()->set_body("<p>hello</p>");
  auto ack_of = [](const v1::Envelope& envelope) {
    return envelope.has_page_ack() ? envelope.page_ack() : envelope.page_acks().acks(0);
  };
  fetcher.send(zmq::buffer(codec.Encode(page)), zmq::send_flags::none);
  std::optional<v1::Envelope> first;
  for (int i = 0; i < 10 && !(first && (first->has_page_ack() || first->has_page_acks())); ++i) {
    first = Next(fetcher, false);
  }
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(ack_of(*first).stored());
  EXPECT_FALSE(ack_of(*first).duplicate());
  // That acknowledgement is lost on its way: the fetcher sends the page
  // again, as it does for every page not acknowledged.
  fetcher.send(zmq::buffer(codec.Encode(page)), zmq::send_flags::none);
  std::optional<v1::Envelope> second;
  for (int i = 0; i < 10 && !(second && (second->has_page_ack() || second->has_page_acks())); ++i) {
    second = Next(fetcher, false);
  }
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(ack_of(*second).stored());
  EXPECT_TRUE(ack_of(*second).duplicate());
  EXPECT_EQ(writer_->counters().pages_stored, 1u);
  EXPECT_EQ(writer_->counters().duplicates, 1u);
  std::ifstream lines(options_.sink.out_dir + "/" + std::string(kJsonlFileName));
  int count = 0;
  for (std::string line; std::getline(lines, line);) count += !line.empty();
  EXPECT_EQ(count, 1) << "stored twice";
}

// The writer's counts as its three reports export them: the summary's keys
// in their order, each metric once, and a count (a malformed message sent
// by a test socket) with the same value in the metrics and the status reply.
TEST_F(WriterNodeTest, TheSummaryMetricsAndStatusReplyHoldEachCountOnce) {
  zmq::socket_t fetcher(context_, zmq::socket_type::dealer);
  fetcher.set(zmq::sockopt::linger, 0);
  fetcher.connect(options_.bind);
  fetcher.send(zmq::str_buffer("not an envelope"), zmq::send_flags::none);
  for (int turn = 0; turn < 200 && writer_->counters().malformed_messages == 0; ++turn) Step();
  const CounterRegistry& registry = writer_->counter_registry();

  const auto summary = nlohmann::ordered_json::parse(registry.SummaryJson());
  std::vector<std::string> keys;
  for (const auto& [key, value] : summary.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"stored", "duplicates", "bytes", "revisits", "revisit_bytes_saved",
                                            "flushes", "fetcher_warc_blocks", "bodies_omitted", "bodies_restored",
                                            "malformed_messages", "space_waits", "pages_deferred", "frontier_lost",
                                            "curve_clients_rejected"}));
  EXPECT_EQ(summary["malformed_messages"], 1);

  std::map<std::string, std::string> samples;  // name -> value
  int lines = 0;
  std::istringstream metrics(registry.MetricsText());
  for (std::string line; std::getline(metrics, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++lines;
    samples[line.substr(0, line.find(' '))] = line.substr(line.find(' ') + 1);
  }
  EXPECT_EQ(lines, 14);
  EXPECT_EQ(samples.size(), 14u) << "each metric once";
  EXPECT_EQ(samples["zcrawl_writer_malformed_messages_total"], "1");
  EXPECT_EQ(samples["zcrawl_writer_pages_stored_total"], "0");

  v1::StatusReply reply;
  registry.FillStatus(reply);
  EXPECT_EQ(reply.malformed_messages(), 1u);
  EXPECT_EQ(reply.pages_stored(), 0u);
}

}  // namespace
}  // namespace zcrawl::writer
