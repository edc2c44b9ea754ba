// FetcherNode, driven without processes: its two links over inproc://, the
// frontier and the writer played by ROUTER sockets in the test, a real HTTP
// server on 127.0.0.1, and a FakeClock for heartbeats, liveness and the
// writer's acknowledgement timeout. Fetches and parses run on the node's
// real workers (both I/O modes), so those waits are in real time.
#include "fetcher/fetcher_node.h"

#include <dirent.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "tests/support/inproc_peers.h"
#include "tests/support/test_http_server.h"

namespace zcrawl::fetcher {
namespace {

using zcrawl::testing::SendEnvelope;
using zcrawl::testing::TestHttpServer;
using zcrawl::testing::TestRequest;
using zcrawl::testing::TestResponse;
using zcrawl::testing::TryReceiveEnvelope;
using zcrawl::testing::UniqueInprocEndpoint;

// Threads of this process whose name starts with `prefix` (the pool names
// its workers "zc-fetch" or "zc-parse").
int ThreadsNamed(const std::string& prefix) {
  int count = 0;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return -1;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + entry->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    if (name.rfind(prefix, 0) == 0) ++count;
  }
  closedir(dir);
  return count;
}

// A gate a request handler waits at until the test opens it.
class Gate {
 public:
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait_for(lock, std::chrono::seconds(20), [&] { return open_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

class FetcherNodeTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    server_.Start();
    options_.io = GetParam() == "multi" ? FetchIo::kMulti : FetchIo::kBlocking;
    options_.frontier = UniqueInprocEndpoint("fetcher-node-test-frontier");
    options_.writer = UniqueInprocEndpoint("fetcher-node-test-writer");
    options_.threads = 2;
    options_.prefetch = 1;
    options_.parse_threads = 1;
    options_.link.heartbeat_ms = 1000;
    options_.link.liveness = 5;
    options_.link.reconnect_min_ms = 250;
    options_.http.connect_timeout_ms = 5000;
    for (zmq::socket_t* socket : {&frontier_, &writer_}) socket->set(zmq::sockopt::router_handover, 1);
    frontier_.bind(options_.frontier);
    writer_.bind(options_.writer);
  }

  void TearDown() override {
    gate_.Open();
    fetcher_.reset();
  }

  void StartFetcher() {
    fetcher_.emplace(options_, context_, clock_);
    ASSERT_TRUE(fetcher_->Start().ok());
  }

  void Step(int turns = 1) {
    for (int i = 0; i < turns; ++i) {
      bool done = false;
      ASSERT_TRUE(fetcher_->Step(5, &done).ok());
      ASSERT_FALSE(done);
    }
  }

  // The next envelope of kind `wanted` on `socket` (a ROUTER), stepping the
  // fetcher meanwhile (up to ~10 s of real time for fetches); the others
  // that arrive first are dropped.
  std::optional<v1::Envelope> Next(zmq::socket_t& socket, v1::Envelope::PayloadCase wanted,
                                   std::string* identity = nullptr, int turns = 2000) {
    for (int turn = 0; turn < turns; ++turn) {
      Step();
      while (auto envelope = TryReceiveEnvelope(socket, /*router=*/true, identity)) {
        if (envelope->payload_case() == wanted) return envelope;
      }
    }
    return std::nullopt;
  }

  void FrontierSays(v1::Envelope envelope) { SendEnvelope(frontier_, frontier_codec_, std::move(envelope), fetcher_id_); }

  // Leases `lease_id`, lets its page reach the writer (not acknowledged),
  // then the frontier says shutdown: the page the node still holds.
  std::optional<v1::Envelope> HoldAPageAtShutdown(uint64_t lease_id) {
    Lease(lease_id, "/");
    auto page = Next(writer_, v1::Envelope::kPage);
    v1::Envelope shutdown;
    shutdown.mutable_shutdown()->set_reason("crawl finished");
    FrontierSays(shutdown);
    return page;
  }

  // Steps until the node says it is done (at most 200 turns).
  bool StepUntilDone() {
    bool done = false;
    for (int turn = 0; turn < 200 && !done; ++turn) {
      if (!fetcher_->Step(5, &done).ok()) return false;
    }
    return done;
  }

  struct Leaving {
    int reports = 0;
    bool goodbye = false;
  };
  // What the frontier got: reports, and whether a Goodbye came.
  Leaving FrontierHeardWhenLeaving() {
    Leaving heard;
    while (auto envelope = TryReceiveEnvelope(frontier_, /*router=*/true)) {
      heard.reports += envelope->has_fetch_report();
      heard.goodbye |= envelope->has_goodbye();
    }
    return heard;
  }
  void WriterSays(v1::Envelope envelope, EnvelopeCodec* codec = nullptr) {
    SendEnvelope(writer_, codec ? *codec : writer_codec_, std::move(envelope), fetcher_id_);
  }
  static v1::Envelope Heartbeat() {
    v1::Envelope envelope;
    envelope.mutable_heartbeat();
    return envelope;
  }

  // The frontier's answer to a Ready: its network policy, here opening the
  // test server's loopback (a seed on 127.0.0.1 does that in a crawl).
  static v1::Envelope ReadyAnswer(bool open_loopback = true) {
    v1::Envelope envelope = Heartbeat();
    auto* policy = envelope.mutable_heartbeat()->mutable_network_policy();
    if (open_loopback) policy->add_open_networks("127.0.0.0/8");
    return envelope;
  }

  // READY on both links, the frontier's answer (`open_loopback`: its policy
  // lets the fetcher reach the test server), then the writer's first
  // answer; returns the first WorkRequest the frontier got.
  std::optional<v1::Envelope> Handshake(bool open_loopback = true) {
    StartFetcher();
    auto ready = Next(frontier_, v1::Envelope::kReady, &fetcher_id_);
    if (!ready || ready->ready().role() != v1::PEER_ROLE_FETCHER) return std::nullopt;
    FrontierSays(ReadyAnswer(open_loopback));
    if (!Next(writer_, v1::Envelope::kReady)) return std::nullopt;
    WriterSays(Heartbeat());
    return Next(frontier_, v1::Envelope::kWorkRequest);
  }

  void Lease(uint64_t lease_id, const std::string& path) {
    v1::Envelope envelope;
    v1::WorkItem* item = envelope.mutable_work_batch()->add_items();
    item->set_url(server_.origin() + path);
    item->set_lease_id(lease_id);
    item->set_attempt(1);
    FrontierSays(std::move(envelope));
  }

  void Ack(const std::string& page_id, bool stored, const std::string& error = "",
           EnvelopeCodec* codec = nullptr) {
    v1::Envelope envelope;
    v1::PageAck* ack = envelope.mutable_page_ack();
    ack->set_page_id(page_id);
    ack->set_stored(stored);
    ack->set_error(error);
    WriterSays(std::move(envelope), codec);
  }

  // Some turns of the fetcher; true if the frontier got a FetchReport in them.
  bool ReportWithin(int turns) {
    return Next(frontier_, v1::Envelope::kFetchReport, nullptr, turns).has_value();
  }

  Gate gate_;
  TestHttpServer server_{"127.0.0.1", [this](const TestRequest& request) {
                           TestResponse response;
                           if (request.target == "/hang") gate_.Wait();
                           if (request.target.rfind("/slow/", 0) == 0) response.delay_ms = 25;
                           response.headers = {{"Content-Type", "text/html"}};
                           response.body = "<html><title>t</title><a href=/a>a</a> <a href='b'>b</a></html>";
                           return response;
                         }};
  FetcherOptions options_;
  zmq::context_t context_{1};
  zmq::socket_t frontier_{context_, zmq::socket_type::router};
  zmq::socket_t writer_{context_, zmq::socket_type::router};
  EnvelopeCodec frontier_codec_{"frontier-test"};
  EnvelopeCodec writer_codec_{"writer-test"};
  FakeClock clock_;
  std::string fetcher_id_;
  std::optional<FetcherNode> fetcher_;
};

TEST_P(FetcherNodeTest, AsksForWorkOnlyOnceTheWriterAnswered) {
  StartFetcher();
  ASSERT_TRUE(Next(frontier_, v1::Envelope::kReady, &fetcher_id_));
  ASSERT_TRUE(Next(writer_, v1::Envelope::kReady));
  // Nothing fetched could be handed over yet: no request for work.
  EXPECT_FALSE(Next(frontier_, v1::Envelope::kWorkRequest, nullptr, 50));
  WriterSays(Heartbeat());
  auto request = Next(frontier_, v1::Envelope::kWorkRequest);
  ASSERT_TRUE(request);
  EXPECT_EQ(request->work_request().credit(), options_.threads + options_.prefetch);
}

// The frontier's policy decides what the fetcher may reach: closed, the
// loopback server is never connected to and the URL fails for that reason.
TEST_P(FetcherNodeTest, ReachesNoPrivateAddressTheFrontiersPolicyCloses) {
  ASSERT_TRUE(Handshake(/*open_loopback=*/false));
  Lease(9, "/");
  auto report = Next(frontier_, v1::Envelope::kFetchReport);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->fetch_report().status(), v1::FETCH_STATUS_PRIVATE_ADDRESS);
  EXPECT_EQ(report->fetch_report().cause(), "private_address");
  EXPECT_EQ(server_.total_requests(), 0u);
  // Opened by a later answer (a new frontier), the same URL is fetched.
  FrontierSays(ReadyAnswer(/*open_loopback=*/true));
  Lease(10, "/");
  auto page = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(page);
  EXPECT_EQ(server_.total_requests(), 1u);
}

TEST_P(FetcherNodeTest, ReportsAPageOnlyOnceTheWriterMadeItDurable) {
  ASSERT_TRUE(Handshake());
  Lease(7, "/");
  auto page = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(page);
  EXPECT_EQ(page->page().page_id(), fetcher_->sender_id() + "/7");
  EXPECT_EQ(page->page().http_status(), 200u);
  ASSERT_EQ(page->page().links_size(), 2);
  EXPECT_EQ(page->page().links(0).url(), server_.origin() + "/a");
  EXPECT_EQ(page->page().links(1).url(), server_.origin() + "/b");
  // Not durable yet: the frontier hears nothing of lease 7.
  EXPECT_FALSE(ReportWithin(50));
  Ack(page->page().page_id(), true);
  auto report = Next(frontier_, v1::Envelope::kFetchReport);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->fetch_report().lease_id(), 7u);
  EXPECT_EQ(report->fetch_report().status(), v1::FETCH_STATUS_OK);
  EXPECT_EQ(report->fetch_report().links_size(), 2);
  EXPECT_EQ(fetcher_->counters().pages_stored, 1u);
}

TEST_P(FetcherNodeTest, ResendsAnUnacknowledgedPageAfterItsTimeoutAndToANewWriterAtOnce) {
  ASSERT_TRUE(Handshake());
  Lease(8, "/");
  auto page = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(page);
  // The timeout is twice liveness x heartbeat; both peers keep talking so
  // that no link is declared lost meanwhile.
  const int64_t timeout_ms = 2 * options_.link.heartbeat_ms * options_.link.liveness;
  for (int64_t waited = 0; waited < timeout_ms; waited += options_.link.heartbeat_ms) {
    clock_.Advance(options_.link.heartbeat_ms);
    FrontierSays(Heartbeat());
    WriterSays(Heartbeat());
    Step(3);
  }
  EXPECT_FALSE(Next(writer_, v1::Envelope::kPage, nullptr, 20)) << "resent before its timeout";
  clock_.Advance(1);
  auto resent = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(resent) << "not resent after its timeout";
  EXPECT_EQ(resent->page().page_id(), page->page().page_id());
  // A writer that restarted (another sender id) gets it at once: what the
  // old one had may not be durable.
  EnvelopeCodec new_writer("writer-test-restarted");
  WriterSays(Heartbeat(), &new_writer);
  auto again = Next(writer_, v1::Envelope::kPage, nullptr, 20);
  ASSERT_TRUE(again) << "not resent to the new writer";
  Ack(page->page().page_id(), true, "", &new_writer);
  auto report = Next(frontier_, v1::Envelope::kFetchReport);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->fetch_report().status(), v1::FETCH_STATUS_OK);
  // The old writer's late acknowledgement of the same page changes nothing.
  Ack(page->page().page_id(), true);
  EXPECT_FALSE(ReportWithin(20));
  EXPECT_EQ(fetcher_->counters().pages_stored, 1u);
}

TEST_P(FetcherNodeTest, APageTheWriterCouldNotStoreIsReportedAsAWriterFailureWithoutItsLinks) {
  ASSERT_TRUE(Handshake());
  Lease(9, "/");
  auto page = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(page);
  Ack(page->page().page_id(), false, "no space left on device");
  auto report = Next(frontier_, v1::Envelope::kFetchReport);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->fetch_report().status(), v1::FETCH_STATUS_WRITER_FAILED);
  EXPECT_EQ(report->fetch_report().error(), "no space left on device");
  EXPECT_EQ(report->fetch_report().links_size(), 0) << "links of a page not stored were admitted";
  EXPECT_EQ(fetcher_->counters().writer_failures, 1u);
}

TEST_P(FetcherNodeTest, ALeaseDeliveredTwiceIsFetchedOnce) {
  ASSERT_TRUE(Handshake());
  Lease(10, "/");
  Lease(10, "/");
  auto page = Next(writer_, v1::Envelope::kPage);
  ASSERT_TRUE(page);
  EXPECT_FALSE(Next(writer_, v1::Envelope::kPage, nullptr, 50));
  EXPECT_EQ(server_.requests_for("/"), 1u);
}

TEST_P(FetcherNodeTest, EndsOnTheFrontiersShutdownOnceNothingIsHeld) {
  ASSERT_TRUE(Handshake());
  auto page = HoldAPageAtShutdown(11);
  ASSERT_TRUE(page);
  // A page is still held (not acknowledged): the node stays.
  Step(20);
  Ack(page->page().page_id(), true);
  EXPECT_TRUE(StepUntilDone());
  const auto [reports, goodbye] = FrontierHeardWhenLeaving();
  EXPECT_EQ(reports, 1) << "the held page's report was not sent before leaving";
  EXPECT_TRUE(goodbye);
}

// After the frontier's shutdown nobody takes a report: a page the writer
// never acknowledges (it left first) is given up after one liveness window
// instead of keeping the fetcher up for ever.
TEST_P(FetcherNodeTest, GivesUpWorkHeldALivenessWindowAfterTheShutdown) {
  ASSERT_TRUE(Handshake());
  ASSERT_TRUE(HoldAPageAtShutdown(12));
  Step(20);
  clock_.Advance(options_.link.heartbeat_ms * options_.link.liveness);
  Step(5);  // exactly one window: still waiting for the acknowledgement
  clock_.Advance(1);
  EXPECT_TRUE(StepUntilDone());
  const auto [reports, goodbye] = FrontierHeardWhenLeaving();
  EXPECT_EQ(reports, 0) << "reported a page the writer never acknowledged";
  EXPECT_TRUE(goodbye);
}

INSTANTIATE_TEST_SUITE_P(IoModes, FetcherNodeTest, ::testing::Values("blocking", "multi"));

// The watchdog gives up on a fetch stuck in a server that never answers; the
// URL is reported failed, and the abandoned task, which finishes only after
// the node is gone, finds everything it touches alive (it holds the node's
// shared worker state, never the node). Under ZCRAWL_SANITIZE a use after
// free here is an error; in any build the thread must finish.
class AbandonedFetchTest : public FetcherNodeTest {};

TEST_P(AbandonedFetchTest, AHungFetchIsReportedFailedAndItsTaskOutlivesTheNode) {
  options_.watchdog_ms = 300;
  ASSERT_TRUE(Handshake());
  Lease(12, "/hang");
  auto report = Next(frontier_, v1::Envelope::kFetchReport);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->fetch_report().lease_id(), 12u);
  EXPECT_EQ(report->fetch_report().status(), v1::FETCH_STATUS_WORKER_FAILED);
  EXPECT_EQ(fetcher_->counters().worker_failures, 1u);
  const int before = ThreadsNamed("zc-fetch");
  fetcher_.reset();
  // The fault happened: a worker still runs the hung task after the node.
  EXPECT_EQ(ThreadsNamed("zc-fetch"), 1) << "threads named zc-fetch before the reset: " << before;
  gate_.Open();
  int left = 1;
  for (int i = 0; i < 1000 && left > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    left = ThreadsNamed("zc-fetch");
  }
  EXPECT_EQ(left, 0) << "the abandoned task did not finish";
  EXPECT_EQ(server_.requests_for("/hang"), 1u);
}

INSTANTIATE_TEST_SUITE_P(BlockingIo, AbandonedFetchTest, ::testing::Values("blocking"));

// Turn pacing (turn_pacer.h), on the event loop: while URLs wait for a busy
// slot, what finishes within a gap is reported together; every URL is still
// fetched once, and as fast.
class TurnPacingTest : public FetcherNodeTest {
 protected:
  struct Crawled {
    int report_messages = 0;
    int reports = 0;
    std::chrono::milliseconds took{0};
  };
  // Leases 40 /slow/ URLs (25 ms each) to a node with one slot, so they
  // finish 25 ms apart, and `gap_ms`; runs it (Run, as the process does),
  // acks every page, and ends it.
  Crawled CrawlForty(int64_t gap_ms) {
    options_.threads = 1;
    options_.prefetch = 39;
    options_.turn_gap_ms = gap_ms;
    Crawled crawled;
    if (!Handshake()) return crawled;
    const auto started = std::chrono::steady_clock::now();
    v1::Envelope batch;
    for (uint64_t i = 0; i < 40; ++i) {
      v1::WorkItem* item = batch.mutable_work_batch()->add_items();
      item->set_url(server_.origin() + "/slow/" + std::to_string(i) + "?gap=" + std::to_string(gap_ms));
      item->set_lease_id(1000 * static_cast<uint64_t>(gap_ms) + i + 1);
      item->set_attempt(1);
    }
    FrontierSays(std::move(batch));
    Status ran;
    std::thread runner([&] { ran = fetcher_->Run(); });
    while (crawled.reports < 40 && std::chrono::steady_clock::now() - started < std::chrono::seconds(30)) {
      while (auto envelope = TryReceiveEnvelope(writer_, /*router=*/true)) {
        if (envelope->has_page()) Ack(envelope->page().page_id(), true);
      }
      while (auto envelope = TryReceiveEnvelope(frontier_, /*router=*/true)) {
        if (envelope->has_fetch_report()) ++crawled.reports, ++crawled.report_messages;
        if (envelope->has_fetch_reports()) {
          crawled.reports += envelope->fetch_reports().reports_size();
          ++crawled.report_messages;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    crawled.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    v1::Envelope shutdown;
    shutdown.mutable_shutdown()->set_reason("crawl finished");
    FrontierSays(shutdown);
    runner.join();
    EXPECT_TRUE(ran.ok()) << ran.message();
    return crawled;
  }
};

TEST_P(TurnPacingTest, WhatFinishesWithinAGapIsReportedTogetherAndNothingSlowsDown) {
  const Crawled each = CrawlForty(0);
  const Crawled paced = CrawlForty(100);
  EXPECT_EQ(each.reports, 40);
  EXPECT_EQ(paced.reports, 40);
  for (int i = 0; i < 40; ++i) {
    const std::string slow = "/slow/" + std::to_string(i);
    EXPECT_EQ(server_.requests_for(slow + "?gap=0"), 1u) << slow;
    EXPECT_EQ(server_.requests_for(slow + "?gap=100"), 1u) << slow;
  }
  // Without a gap the answers, 25 ms apart, went one a message.
  EXPECT_GE(each.report_messages, 25) << "the fault (a message per page) did not show";
  EXPECT_LE(paced.report_messages * 2, each.report_messages)
      << "paced " << paced.report_messages << ", a turn per event " << each.report_messages;
  // The queue behind the slot kept it busy: as fast, within noise.
  EXPECT_LT(paced.took.count(), each.took.count() * 3 / 2 + 100)
      << "paced " << paced.took.count() << " ms, a turn per event " << each.took.count() << " ms";
  EXPECT_EQ(server_.peak_in_progress(), 1);
}

INSTANTIATE_TEST_SUITE_P(EventLoop, TurnPacingTest, ::testing::Values("multi"));

}  // namespace
}  // namespace zcrawl::fetcher
