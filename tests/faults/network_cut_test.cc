// Network cuts (issue 21, point 2): a crawl across hosts of a private LAN of
// network namespaces (tests/support/netns.h), each component on its own
// host, whose links are set down for four times the liveness timeout and
// then up again: a fetcher's (cut from the frontier and the writer at
// once), and the frontier's (cut from everyone). The crawl must complete
// with every page stored exactly once, promptly (no lease left to expire),
// and the others must have noticed the cut (so it really happened).
//
// Needs root and iproute2; skipped with the reason elsewhere.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/crawl_output.h"
#include "tests/support/netns.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "tests/support/tree_site.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 400;
constexpr int kFanOut = 20;
constexpr char kSubnet[] = "10.214.0";
constexpr int kHeartbeatMs = 100;
constexpr int kLiveness = 5;
constexpr int kCutMs = 4 * kHeartbeatMs * kLiveness;
constexpr int kLeaseMs = 60000;

class NetworkCutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NetnsLan::RemoveStale();
    dir_ = MakeTempDir("network-cut");
    auto lan = NetnsLan::Create(kSubnet, dir_ + "/ip");
    if (!lan.ok() && lan.status().code() == StatusCode::kUnavailable) {
      GTEST_SKIP() << "network namespaces are not available here: " << lan.status().message();
    }
    ASSERT_TRUE(lan.ok()) << lan.status().ToString();
    lan_ = std::move(*lan);
    for (const auto& [name, octet] : std::vector<std::pair<std::string, int>>{
             {"web", 2}, {"frontier", 10}, {"writer", 11}, {"fetcher-1", 21}, {"fetcher-2", 22}}) {
      auto address = lan_->AddHost(name, octet);
      if (!address.ok() && address.status().code() == StatusCode::kUnavailable) {
        GTEST_SKIP() << "virtual network links are not available here: " << address.status().message();
      }
      ASSERT_TRUE(address.ok()) << address.status().ToString();
      address_[name] = *address;
    }
    auto inside = lan_->Enter("web");
    ASSERT_TRUE(inside.ok()) << inside.status().ToString();
    server_ = std::make_unique<TestHttpServer>(address_["web"], [](const TestRequest& r) { return TreeSite{kPages, kFanOut, 30}.Serve(r); });
    server_->Start();
  }
  void TearDown() override {
    if (server_) server_->Stop();
    lan_.reset();
  }

  std::string Frontier() const { return "tcp://" + address_.at("frontier") + ":5570"; }
  std::string Writer() const { return "tcp://" + address_.at("writer") + ":5571"; }
  std::string Log(const std::string& name) const { return dir_ + "/" + name + ".log"; }
  std::string Summary(const std::string& name) const { return dir_ + "/" + name + "-summary.json"; }
  // The count `key` in the summary `name` wrote as it exited (0 if none).
  uint64_t Counted(const std::string& name, const std::string& key) const {
    const auto summary = nlohmann::json::parse(ReadFile(Summary(name)), nullptr, false);
    EXPECT_FALSE(summary.is_discarded()) << "no summary from the " << name;
    return summary.is_discarded() ? 0 : summary.value(key, uint64_t{0});
  }
  std::string Logs() const {
    std::string all;
    for (const char* name : {"frontier", "writer", "fetcher-1", "fetcher-2"}) {
      all += "--- " + std::string(name) + "\n" + ReadFile(Log(name));
    }
    return all;
  }

  void SetLink(const std::string& host, const char* state) {
    TestProcess ip;
    ip.Start(lan_->Exec(host, {"ip", "link", "set", "eth0", state}), dir_ + "/ip-link.log");
    ASSERT_EQ(ip.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/ip-link.log");
  }

  // Crawls the site, cutting `host`'s link once a quarter of the pages
  // were requested.
  void CrawlCutting(const std::string& host) {
    const std::vector<std::string> link = {"--heartbeat-ms", std::to_string(kHeartbeatMs), "--liveness",
                                           std::to_string(kLiveness), "--log-level", "info"};
    // The servers bind a LAN address: plain TCP needs --insecure there (the
    // LAN exists only inside this test's namespaces).
    auto with = [&](std::vector<std::string> argv, bool server = false) {
      argv.insert(argv.end(), link.begin(), link.end());
      if (server) argv.push_back("--insecure");
      return argv;
    };
    TestProcess frontier, writer, fetcher1, fetcher2;
    frontier.Start(lan_->Exec("frontier", with({BinDir() + "/zcrawl-frontier", "--bind", Frontier(),
                                                "--delay-ms", "0", "--per-host", "8", "--lease-ms",
                                                std::to_string(kLeaseMs), "--summary-file", Summary("frontier"),
                                                server_->origin() + "/"}, true)),
                   Log("frontier"));
    writer.Start(lan_->Exec("writer", with({BinDir() + "/zcrawl-writer", "--bind", Writer(), "--out",
                                            dir_ + "/out", "--frontier", Frontier(), "--summary-file",
                                            Summary("writer")}, true)),
                 Log("writer"));
    for (auto [name, process] : {std::pair{"fetcher-1", &fetcher1}, std::pair{"fetcher-2", &fetcher2}}) {
      process->Start(lan_->Exec(name, with({BinDir() + "/zcrawl-fetcher", "--frontier", Frontier(),
                                            "--writer", Writer(), "--threads", "4"})),
                     Log(name));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (server_->total_requests() < kPages / 4 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    requests_at_cut_ = server_->total_requests();
    SetLink(host, "down");
    std::this_thread::sleep_for(std::chrono::milliseconds(kCutMs));
    SetLink(host, "up");
    const auto restored = std::chrono::steady_clock::now();
    EXPECT_EQ(frontier.Wait(3 * kLeaseMs).value_or(-1), 0) << Logs();
    after_restore_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::steady_clock::now() - restored).count();
    for (TestProcess* p : {&writer, &fetcher1, &fetcher2}) EXPECT_EQ(p->Wait(20000).value_or(-1), 0) << Logs();
  }

  void ExpectEveryPageOncePromptly() {
    EXPECT_LT(requests_at_cut_, static_cast<uint64_t>(kPages)) << "the crawl ended before the cut";
    auto index = ReadIndex(dir_ + "/out");
    EXPECT_EQ(index.size(), static_cast<size_t>(kPages)) << Logs();
    size_t twice = 0;
    for (const auto& [url, entries] : index) twice += entries.size() > 1;
    EXPECT_EQ(twice, 0u) << "pages stored more than once";
    EXPECT_LT(after_restore_ms_, kLeaseMs / 3) << "a lease waited for its expiry\n" << Logs();
  }

  std::string dir_;
  std::unique_ptr<NetnsLan> lan_;
  std::map<std::string, std::string> address_;
  std::unique_ptr<TestHttpServer> server_;
  uint64_t requests_at_cut_ = 0;
  int64_t after_restore_ms_ = 0;
};

TEST_F(NetworkCutTest, AFetcherCutOffRejoinsAndTheCrawlCompletesOnce) {
  CrawlCutting("fetcher-1");
  if (HasFatalFailure() || IsSkipped()) return;
  EXPECT_NE(ReadFile(Log("fetcher-1")).find("frontier silent for"), std::string::npos) << Logs();
  EXPECT_GE(Counted("frontier", "peers_lost"), 1u) << Logs();
  ExpectEveryPageOncePromptly();
}

TEST_F(NetworkCutTest, AFrontierCutOffFromEveryoneLosesNoLease) {
  CrawlCutting("frontier");
  if (HasFatalFailure() || IsSkipped()) return;
  EXPECT_GE(Counted("writer", "frontier_lost"), 1u) << Logs();
  EXPECT_NE(ReadFile(Log("fetcher-2")).find("frontier silent for"), std::string::npos) << Logs();
  ExpectEveryPageOncePromptly();
}

}  // namespace
}  // namespace zcrawl::testing
