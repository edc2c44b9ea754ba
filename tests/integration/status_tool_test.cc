// End-to-end: zcrawl-status against a real zcrawl-frontier. The seed sits on
// a local HTTP server that no fetcher ever contacts, so the frontier's
// numbers are fixed: one URL waiting, nothing leased or done.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "net/envelope_codec.h"
#include "net/zmq_io.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {


struct ToolRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
  int64_t elapsed_ms = 0;
};

ToolRun RunStatus(const std::string& dir, const std::vector<std::string>& args) {
  static int run = 0;
  const std::string log = dir + "/status-" + std::to_string(++run) + ".log";
  std::vector<std::string> argv = {BinDir() + "/zcrawl-status"};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto start = std::chrono::steady_clock::now();
  TestProcess tool;
  tool.Start(argv, log);
  ToolRun result;
  result.exit_code = tool.Wait(20000).value_or(-1);
  result.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start).count();
  result.output = ReadFile(log);
  return result;
}

class StatusToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest&) {
      return TestResponse{};
    });
    server_->Start();
    dir_ = MakeTempDir("status-tool");
    endpoint_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
    frontier_.Start({BinDir() + "/zcrawl-frontier", "--bind", endpoint_, "--stay",
                     "--heartbeat-ms", "200", "--liveness", "50", server_->origin() + "/"},
                    dir_ + "/frontier.log");
  }

  void TearDown() override {
    frontier_.Signal(SIGTERM);
    if (!frontier_.Wait(10000)) frontier_.Signal(SIGKILL);
    EXPECT_EQ(server_->total_requests(), 0u) << "nothing should have fetched the seed";
  }

  // The frontier binds shortly after it starts; ZeroMQ queues the request
  // until then, but give a slow start a second chance.
  ToolRun StatusWhenUp(const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--frontier", endpoint_};
    args.insert(args.end(), extra.begin(), extra.end());
    ToolRun run = RunStatus(dir_, args);
    if (run.exit_code != 0 && frontier_.running()) run = RunStatus(dir_, args);
    return run;
  }

  std::unique_ptr<TestHttpServer> server_;
  std::string dir_;
  std::string endpoint_;
  TestProcess frontier_;
};

TEST_F(StatusToolTest, TextReportShowsTheWaitingSeedAndItsHost) {
  ToolRun run = StatusWhenUp({});
  ASSERT_EQ(run.exit_code, 0) << run.output << ReadFile(dir_ + "/frontier.log");
  EXPECT_NE(run.output.find("frontier " + endpoint_ + ": running"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("waiting=1 leased=0 done=0 failed=0 seen=1"), std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("rate: 0.0 pages/s"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(server_->origin()), std::string::npos) << "host row missing:\n" << run.output;
  EXPECT_NE(run.output.find("hosts: 1 known"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("fetchers: none connected"), std::string::npos) << run.output;
}

TEST_F(StatusToolTest, JsonReportCarriesTheSameNumbers) {
  ToolRun run = StatusWhenUp({"--json"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const auto json = nlohmann::json::parse(run.output);
  EXPECT_EQ(json["frontier"], endpoint_);
  EXPECT_EQ(json["finished"], false);
  EXPECT_EQ(json["counts"]["waiting"], 1);
  EXPECT_EQ(json["counts"]["leased"], 0);
  EXPECT_EQ(json["counts"]["done"], 0);
  EXPECT_EQ(json["counts"]["seen"], 1);
  EXPECT_EQ(json["pages_per_second"], 0.0);
  ASSERT_EQ(json["top_hosts"].size(), 1u);
  EXPECT_EQ(json["top_hosts"][0]["origin"], server_->origin());
  EXPECT_EQ(json["top_hosts"][0]["waiting"], 1);
  EXPECT_EQ(json["top_hosts"][0]["done"], 0);
  EXPECT_EQ(json["hosts"], 1);
  EXPECT_EQ(json["max_pages"], 0);
  EXPECT_TRUE(json["fetchers"].empty());
}

TEST_F(StatusToolTest, ConnectedFetcherGetsARowWithItsLoad) {
  // A stand-in fetcher: says Ready and reports its load, never asks for work.
  zmq::context_t context(1);
  SocketSettings settings;
  settings.linger_ms = 0;
  settings.identity = "fake-fetcher-route";
  auto socket = MakeSocket(context, zmq::socket_type::dealer, settings);
  ASSERT_TRUE(socket.ok());
  ASSERT_TRUE(Connect(*socket, endpoint_).ok());
  EnvelopeCodec codec("fetcher-under-test");
  v1::Envelope ready;
  ready.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
  ready.mutable_ready()->set_threads(3);
  ready.mutable_ready()->set_hostname("fetch-box-1");
  ready.mutable_ready()->set_pid(4242);
  ASSERT_TRUE(SendFrame(*socket, codec.Encode(ready)).ok());
  // And a writer, whose heartbeat carries its row (WriterState).
  settings.identity = "fake-writer-route";
  auto writer_socket = MakeSocket(context, zmq::socket_type::dealer, settings);
  ASSERT_TRUE(writer_socket.ok());
  ASSERT_TRUE(Connect(*writer_socket, endpoint_).ok());
  EnvelopeCodec writer_codec("writer-under-test");
  v1::Envelope writer_ready;
  writer_ready.mutable_ready()->set_role(v1::PEER_ROLE_WRITER);
  ASSERT_TRUE(SendFrame(*writer_socket, writer_codec.Encode(writer_ready)).ok());
  v1::Envelope writer_beat;
  auto* writer_state = writer_beat.mutable_heartbeat()->mutable_writer_state();
  writer_state->set_pages_stored(12);
  writer_state->set_bytes_stored(34567);
  writer_state->set_free_disk_bytes(5'000'000'000);
  ASSERT_TRUE(SendFrame(*writer_socket, writer_codec.Encode(writer_beat)).ok());
  v1::Envelope heartbeat;
  auto* load = heartbeat.mutable_heartbeat()->mutable_load();
  load->set_live_workers(3);
  load->set_idle_workers(2);
  load->set_queued(7);
  load->set_transfers(5);
  ASSERT_TRUE(SendFrame(*socket, codec.Encode(heartbeat)).ok());

  // The Ready and the heartbeat may reach the frontier after the status
  // request of a second connection: ask until the row shows up.
  nlohmann::json fetcher;
  for (int attempt = 0; attempt < 20 && fetcher.is_null(); ++attempt) {
    ToolRun run = StatusWhenUp({"--json"});
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto json = nlohmann::json::parse(run.output);
    if (!json["fetchers"].empty() && json["fetchers"][0]["live_workers"] == 3 && json.contains("writer")) {
      fetcher = json["fetchers"][0];
      EXPECT_EQ(json["writer"]["pages_stored"], 12);
      EXPECT_EQ(json["writer"]["bytes_stored"], 34567);
      EXPECT_EQ(json["writer"]["free_disk_bytes"], 5'000'000'000);
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ASSERT_FALSE(fetcher.is_null()) << "fetcher row never appeared";
  EXPECT_EQ(fetcher["id"], "fetcher-under-test");
  EXPECT_EQ(fetcher["leased"], 0);
  EXPECT_EQ(fetcher["idle_workers"], 2);
  EXPECT_EQ(fetcher["queued"], 7);
  EXPECT_EQ(fetcher["transfers"], 5);
  EXPECT_EQ(fetcher["hostname"], "fetch-box-1");
  EXPECT_EQ(fetcher["pid"], 4242);
  EXPECT_EQ(fetcher["completed"], 0);
  EXPECT_LT(fetcher["last_seen_ms_ago"].get<int64_t>(), 10000);

  ToolRun text = StatusWhenUp({});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("LAST_SEEN_MS"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("FETCHING"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("fetcher-under-test"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("fetch-box-1:4242"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("writer: stored 12 pages, 34567 bytes"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("5.0 GB free"), std::string::npos) << text.output;
}

// An origin nobody listens on: a real fetcher finds its robots.txt refused,
// and ./run status names the origin with the cause and curl's detail.
TEST(StatusToolFailingHostTest, NamesTheOriginThatFailsAndWhy) {
  const std::string dir = MakeTempDir("status-failing");
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string dead = "http://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess frontier, writer, fetcher;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--stay", "--retries", "0",
                  "--heartbeat-ms", "200", dead + "/"},
                 dir + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--frontier", frontier_ep, "--out",
                dir + "/out", "--heartbeat-ms", "200"},
               dir + "/writer.log");
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep,
                 "--heartbeat-ms", "200", "--stay"},
                dir + "/fetcher.log");
  nlohmann::json failing;
  for (int i = 0; i < 100 && failing.empty(); ++i) {
    const ToolRun run = RunStatus(dir, {"--frontier", frontier_ep, "--json"});
    const auto json = nlohmann::json::parse(run.output, nullptr, false);
    if (json.is_object() && json.contains("failing_hosts")) failing = json["failing_hosts"];
    if (failing.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(failing.size(), 1u) << ReadFile(dir + "/frontier.log");
  EXPECT_EQ(failing[0]["origin"], dead);
  EXPECT_EQ(failing[0]["done"], 0);
  const std::string last = failing[0]["last_failure"];
  EXPECT_EQ(last.rfind("robots.txt: connection_refused (", 0), 0u) << last;
  const ToolRun text = RunStatus(dir, {"--frontier", frontier_ep});
  EXPECT_NE(text.output.find("hosts with failures"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find(dead), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("robots.txt: connection_refused"), std::string::npos) << text.output;
  for (TestProcess* p : {&fetcher, &writer, &frontier}) {
    p->Signal(SIGTERM);
    if (!p->Wait(10000)) p->Signal(SIGKILL);
  }
}

// Pointed at a writer (waiting for a frontier that is not there yet):
// what it stored, under the writer's name, not a frontier's counts of zero.
TEST(StatusToolWriterTest, AWritersReplyIsShownAsTheWriters) {
  const std::string dir = MakeTempDir("status-writer");
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess writer;
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep, "--frontier",
                "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort()), "--out", dir + "/out"},
               dir + "/writer.log");
  ToolRun at_writer;
  for (int i = 0; i < 5 && at_writer.exit_code != 0; ++i) at_writer = RunStatus(dir, {"--frontier", writer_ep});
  EXPECT_EQ(at_writer.exit_code, 0) << at_writer.output << ReadFile(dir + "/writer.log");
  EXPECT_EQ(at_writer.output.rfind("writer " + writer_ep + ":", 0), 0u) << at_writer.output;
  EXPECT_NE(at_writer.output.find("stored: pages=0 bytes=0"), std::string::npos) << at_writer.output;
  EXPECT_EQ(at_writer.output.find("urls:"), std::string::npos) << "no frontier counts: " << at_writer.output;
  writer.Signal(SIGTERM);
  if (!writer.Wait(10000)) writer.Signal(SIGKILL);
}

TEST(StatusToolNoFrontierTest, GivesUpAfterThreeSecondsWithAClearError) {
  const std::string dir = MakeTempDir("status-tool-none");
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  ToolRun run = RunStatus(dir, {"--frontier", endpoint});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.output.find("no reply from the frontier at " + endpoint + " within 3000 ms"),
            std::string::npos)
      << run.output;
  EXPECT_GE(run.elapsed_ms, 2900);
  EXPECT_LT(run.elapsed_ms, 8000);
}

}  // namespace
}  // namespace zcrawl::testing

namespace zcrawl::testing {
namespace {

// Not the fixture: a real fetcher would fetch the fixture's seed.
// --set-threads changes how many URLs a fetcher works on at once: its
// worker pool with blocking I/O, its transfers in flight with the event loop.
class StatusToolControlTest : public ::testing::TestWithParam<std::string> {};

TEST_P(StatusToolControlTest, SetThreadsResizesARealFetcherWhileItRuns) {
  const std::string dir_ = MakeTempDir("status-resize-" + GetParam());
  const std::string endpoint_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess frontier;
  // Port 9 on loopback refuses connections: the fetcher has nothing to do.
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", endpoint_, "--stay", "--heartbeat-ms",
                  "200", "--retries", "1000", "--retry-base-ms", "60000", "http://127.0.0.1:9/"},
                 dir_ + "/frontier.log");
  auto StatusWhenUp = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--frontier", endpoint_};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunStatus(dir_, args);
  };
  TestProcess fetcher;
  fetcher.Start({BinDir() + "/zcrawl-fetcher", "--frontier", endpoint_, "--writer",
                 "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort()), "--threads", "2",
                 "--io", GetParam(), "--heartbeat-ms", "100"},
                dir_ + "/fetcher.log");
  auto target_workers = [&]() -> int {
    ToolRun run = StatusWhenUp({"--json"});
    if (run.exit_code != 0) return -1;
    const auto json = nlohmann::json::parse(run.output, nullptr, false);
    if (json.is_discarded() || json["fetchers"].empty()) return -1;
    return json["fetchers"][0].value("target_workers", -1);
  };
  int before = -1;
  for (int i = 0; i < 50 && before != 2; ++i) {
    before = target_workers();
    if (before != 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(before, 2) << ReadFile(dir_ + "/fetcher.log");
  ToolRun resize = StatusWhenUp({"--set-threads", "7"});
  ASSERT_EQ(resize.exit_code, 0) << resize.output;
  int after = -1;
  for (int i = 0; i < 50 && after != 7; ++i) {
    after = target_workers();
    if (after != 7) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(after, 7) << ReadFile(dir_ + "/fetcher.log");
  fetcher.Signal(SIGTERM);
  EXPECT_EQ(fetcher.Wait(10000).value_or(-1), 0);
  frontier.Signal(SIGTERM);
  EXPECT_EQ(frontier.Wait(10000).value_or(-1), 0);
}

INSTANTIATE_TEST_SUITE_P(Io, StatusToolControlTest, ::testing::Values("blocking", "multi"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace zcrawl::testing
