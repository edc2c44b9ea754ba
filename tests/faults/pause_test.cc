// Hung processes (issue 21, point 2): each component of a real crawl
// (./run crawl) is stopped with SIGSTOP for four times the liveness
// timeout, then continued. Whatever was stopped, the crawl completes with
// every page stored exactly once, and promptly: no lease is left to wait
// for its expiry (60 s here, so a stranded lease fails the time bound).
// Each test also shows the pause was real: the others noticed it.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "tests/support/tree_site.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 400;
constexpr int kFanOut = 20;
constexpr int kHeartbeatMs = 100;
constexpr int kLiveness = 5;  // a peer silent for 500 ms is dead
constexpr int kPauseMs = 4 * kHeartbeatMs * kLiveness;
constexpr int kLeaseMs = 60000;

class PauseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest& r) { return TreeSite{kPages, kFanOut, 40}.Serve(r); });
    server_->Start();
    dir_ = MakeTempDir("pause");
  }
  void TearDown() override { server_->Stop(); }

  // Crawls the site, stopping the first `component` process once a quarter
  // of the pages were requested; returns the crawl's log.
  std::string CrawlStopping(const std::string& component, std::string format = "files") {
    index_file_ = format == "warc" ? "zcrawl-index.jsonl" : "index.jsonl";
    TestProcess crawl;
    crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out",
                 "--format", format, "--fetchers", "2", "--threads", "4", "--per-host", "8",
                 "--delay-ms", "0", "--heartbeat-ms", std::to_string(kHeartbeatMs), "--liveness",
                 std::to_string(kLiveness), "--lease-ms", std::to_string(kLeaseMs), "--log-level",
                 "info"},
                dir_ + "/crawl.log", {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (server_->total_requests() < kPages / 4 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    auto pids = ChildPids(crawl.pid(), "zcrawl-" + component);
    EXPECT_FALSE(pids.empty()) << ReadFile(dir_ + "/crawl.log");
    if (pids.empty()) return "";
    kill(pids[0], SIGSTOP);
    requests_at_stop_ = server_->total_requests();
    std::this_thread::sleep_for(std::chrono::milliseconds(kPauseMs));
    kill(pids[0], SIGCONT);
    const auto continued = std::chrono::steady_clock::now();
    auto code = crawl.Wait(3 * kLeaseMs);
    after_continue_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - continued).count();
    const std::string log = ReadFile(dir_ + "/crawl.log");
    EXPECT_TRUE(code.has_value()) << log;
    EXPECT_EQ(code.value_or(-1), 0) << log;
    return log;
  }

  void ExpectEveryPageOnceAndPromptly(const std::string& log) {
    EXPECT_LT(requests_at_stop_, static_cast<uint64_t>(kPages)) << "the crawl ended before the pause";
    auto index = ReadIndex(dir_ + "/out", index_file_);
    EXPECT_EQ(index.size(), static_cast<size_t>(kPages)) << log;
    size_t twice = 0;
    for (const auto& [url, entries] : index) twice += entries.size() > 1;
    EXPECT_EQ(twice, 0u) << "pages stored more than once";
    // A lease left stranded would hold the end of the crawl for kLeaseMs.
    EXPECT_LT(after_continue_ms_, kLeaseMs / 3) << log;
  }

  std::unique_ptr<TestHttpServer> server_;
  std::string dir_;
  std::string index_file_;
  uint64_t requests_at_stop_ = 0;
  int64_t after_continue_ms_ = 0;
};

TEST_F(PauseTest, AStoppedFrontierStrandsNoLeaseWhenItContinues) {
  const std::string log = CrawlStopping("frontier");
  // The fetchers saw it silent and reconnected; their Ready said which
  // leases they still held.
  EXPECT_NE(log.find("frontier silent for"), std::string::npos) << log;
  ExpectEveryPageOnceAndPromptly(log);
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << log;
  EXPECT_GE(summary.value("peers_rejoined", 0u), 1u) << summary.dump(2);
}

TEST_F(PauseTest, AStoppedFetcherLosesItsLeasesToTheOthers) {
  const std::string log = CrawlStopping("fetcher");
  // Declared lost: its leases went back; its late reports are refused by
  // lease id, so what it fetched meanwhile is not counted twice.
  ExpectEveryPageOnceAndPromptly(log);
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_GE(summary["peers_lost"].get<uint64_t>(), 1u) << summary.dump(2);
  EXPECT_EQ(summary["done"].get<uint64_t>(), static_cast<uint64_t>(kPages)) << summary.dump(2);
}

TEST_F(PauseTest, AStoppedWriterCostsTimeOnly) {
  const std::string log = CrawlStopping("writer", "warc");
  EXPECT_NE(log.find("writer silent for"), std::string::npos) << log;
  ExpectEveryPageOnceAndPromptly(log);
}

}  // namespace
}  // namespace zcrawl::testing
