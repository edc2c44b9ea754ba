// A crawl across machines: the frontier, the writer, the web server and
// each fetcher run in a network namespace of their own, with their own
// address on a private bridged LAN (tests/support/netns.h), talking over
// CURVE as a real multi-machine deployment would (docs/DEPLOY.md). Two
// allowed fetchers crawl the site; a third with a key nobody allowed is
// refused by both servers and takes no part.
//
// Needs root and iproute2; skipped with the reason where namespaces
// cannot be created.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/crawl_output.h"
#include "tests/support/generated_site.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/netns.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 60;
constexpr char kSubnet[] = "10.213.0";
// Addresses exist only inside the test's namespaces.
constexpr int kWebOctet = 2;
constexpr int kForeignOctet = 3;  // a second address of the web host
constexpr int kFrontierOctet = 10;
constexpr int kWriterOctet = 11;
constexpr int kIntruderOctet = 23;
const std::vector<std::pair<std::string, int>> kGoodFetchers = {{"fetcher-1", 21}, {"fetcher-2", 22}};

class NetnsCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    NetnsLan::RemoveStale();
    dir_ = MakeTempDir("netns");
    auto lan = NetnsLan::Create(kSubnet, dir_ + "/ip");
    if (!lan.ok() && lan.status().code() == StatusCode::kUnavailable) {
      GTEST_SKIP() << "network namespaces are not available here, so the multi-host crawl "
                      "cannot run: " << lan.status().message();
    }
    ASSERT_TRUE(lan.ok()) << lan.status().ToString();
    lan_ = std::move(*lan);

    std::vector<std::pair<std::string, int>> hosts = {
        {"web", kWebOctet}, {"frontier", kFrontierOctet}, {"writer", kWriterOctet},
        {"intruder", kIntruderOctet}};
    hosts.insert(hosts.end(), kGoodFetchers.begin(), kGoodFetchers.end());
    for (const auto& [name, octet] : hosts) {
      auto address = lan_->AddHost(name, octet);
      if (!address.ok() && address.status().code() == StatusCode::kUnavailable) {
        GTEST_SKIP() << "virtual network links are not available here: " << address.status().message();
      }
      ASSERT_TRUE(address.ok()) << address.status().ToString();
      address_[name] = *address;
    }
    auto foreign = lan_->AddAddress("web", kForeignOctet);
    ASSERT_TRUE(foreign.ok()) << foreign.status().ToString();
    address_["foreign"] = *foreign;

    // One key pair per process, as on separate machines. The frontier
    // allows the fetchers and the writer; the writer allows the fetchers.
    // "intruder" has a valid key that nobody allowed; "ops" is the
    // operator's, for status and control (DEPLOY.md section 2).
    std::vector<std::string> names = {"frontier", "writer", "intruder", "ops"};
    for (const auto& [name, octet] : kGoodFetchers) names.push_back(name);
    for (const auto& name : names) {
      TestProcess keys;
      keys.Start({BinDir() + "/zcrawl-keys", name, "--dir", dir_ + "/keys"}, dir_ + "/keys.log");
      ASSERT_EQ(keys.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/keys.log");
    }
    std::filesystem::create_directories(dir_ + "/allow-frontier");
    std::filesystem::create_directories(dir_ + "/allow-writer");
    std::filesystem::copy(Key("writer.pub"), dir_ + "/allow-frontier/writer.pub");
    std::filesystem::copy(Key("ops.pub"), dir_ + "/allow-frontier/ops.pub");
    std::filesystem::copy(Key("ops.pub"), dir_ + "/allow-writer/ops.pub");
    for (const auto& [name, octet] : kGoodFetchers) {
      std::filesystem::copy(Key(name + ".pub"), dir_ + "/allow-frontier/" + name + ".pub");
      std::filesystem::copy(Key(name + ".pub"), dir_ + "/allow-writer/" + name + ".pub");
    }
  }

  void TearDown() override {
    // The test's processes and servers are gone by now (they live in the
    // test body), so deleting the namespaces frees them completely.
    lan_.reset();
  }

  std::string Key(const std::string& file) const { return dir_ + "/keys/" + file; }
  std::string FrontierEndpoint() const { return "tcp://" + address_.at("frontier") + ":5570"; }
  std::string WriterEndpoint() const { return "tcp://" + address_.at("writer") + ":5571"; }

  std::vector<std::string> Fetcher(const std::string& name, const std::string& log_level) const {
    return lan_->Exec(name, {BinDir() + "/zcrawl-fetcher", "--frontier", FrontierEndpoint(), "--writer",
                             WriterEndpoint(), "--threads", "4", "--heartbeat-ms", "200", "--log-level",
                             log_level, "--curve-key", Key(name + ".key"), "--frontier-key",
                             Key("frontier.pub"), "--writer-key", Key("writer.pub")});
  }

  // Waits up to 10 s for a count of the frontier's metrics page to reach
  // `at_least`, read from inside the frontier's host; its last value.
  double FrontierMetricReaches(const std::string& metric, double at_least) const {
    auto inside = lan_->Enter("frontier");
    if (!inside.ok()) return -1;
    return WaitForMetric(kFrontierMetricsPort, metric, at_least, 10000);
  }

  // On the frontier host's own loopback: no other process uses it.
  static constexpr uint16_t kFrontierMetricsPort = 9100;

  std::string dir_;
  std::unique_ptr<NetnsLan> lan_;
  std::map<std::string, std::string> address_;
};

TEST_F(NetnsCrawlTest, FetchersOnOtherHostsCrawlTheSiteAndAnUnknownKeyIsShutOut) {
  // The web server runs in this process but listens inside the "web" host:
  // a socket stays in the namespace it was made in.
  std::unique_ptr<GeneratedSite> site;
  std::unique_ptr<TestHttpServer> server;
  std::unique_ptr<TestHttpServer> foreign;
  {
    auto inside = lan_->Enter("web");
    ASSERT_TRUE(inside.ok()) << inside.status().ToString();
    foreign = std::make_unique<TestHttpServer>(address_["foreign"], [](const TestRequest&) {
      return TestResponse{};
    });
    foreign->Start();
    server = std::make_unique<TestHttpServer>(address_["web"], [&](const TestRequest& r) {
      return site->Serve(r);
    });
    server->Start();
  }
  site = std::make_unique<GeneratedSite>(kPages, server->origin(), foreign->origin());

  const std::string frontier_log = dir_ + "/frontier.log";
  const std::string writer_log = dir_ + "/writer.log";
  const std::string intruder_log = dir_ + "/intruder.log";
  TestProcess frontier, writer, intruder;
  frontier.Start(lan_->Exec("frontier", {BinDir() + "/zcrawl-frontier", "--bind", FrontierEndpoint(),
                                         "--delay-ms", "40", "--heartbeat-ms", "200", "--curve-key",
                                         Key("frontier.key"), "--curve-allow", dir_ + "/allow-frontier",
                                         "--metrics-port", std::to_string(kFrontierMetricsPort),
                                         server->origin() + "/"}),
                 frontier_log);
  writer.Start(lan_->Exec("writer", {BinDir() + "/zcrawl-writer", "--bind", WriterEndpoint(), "--out",
                                     dir_ + "/out", "--frontier", FrontierEndpoint(), "--heartbeat-ms",
                                     "200", "--curve-key", Key("writer.key"), "--curve-allow",
                                     dir_ + "/allow-writer", "--frontier-key", Key("frontier.pub"),
                                     "--summary-file", dir_ + "/writer-summary.json"}),
               writer_log);
  ASSERT_GE(FrontierMetricReaches("zcrawl_frontier_peers_joined_total", 1), 1)
      << "the writer never reached the frontier across hosts\n" << ReadFile(frontier_log)
      << ReadFile(writer_log);

  // The intruder connects from its own host and is refused by both servers
  // during the handshake.
  intruder.Start(Fetcher("intruder", "debug"), intruder_log);
  EXPECT_GE(FrontierMetricReaches("zcrawl_frontier_curve_clients_rejected_total", 1), 1) << ReadFile(frontier_log);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(server->total_requests(), 0u) << "a fetcher with an unknown key got work";

  // The operator's tools with the ops key, from another host, as DEPLOY.md
  // section 7 shows: the frontier's status and controls, the writer's status.
  auto tool = [&](const std::string& name, std::vector<std::string> args) {
    TestProcess process;
    const std::string log = dir_ + "/" + name + ".log";
    args.insert(args.end(), {"--curve-key", Key("ops.key")});
    process.Start(lan_->Exec("intruder", args), log);
    const int code = process.Wait(15000).value_or(-1);
    return std::make_pair(code, ReadFile(log));
  };
  auto [status_code, status] = tool("ops-status", {BinDir() + "/zcrawl-status", "--frontier", FrontierEndpoint(),
                                                    "--frontier-key", Key("frontier.pub")});
  EXPECT_EQ(status_code, 0) << status;
  EXPECT_NE(status.find("urls: waiting=1"), std::string::npos) << status;
  auto [blocks_code, blocks] = tool("ops-control", {BinDir() + "/zcrawl-control", "blocks", "--frontier",
                                                     FrontierEndpoint(), "--frontier-key", Key("frontier.pub")});
  EXPECT_EQ(blocks_code, 0) << blocks;
  EXPECT_NE(blocks.find("no blocks"), std::string::npos) << blocks;
  auto [writer_code, writer_status] = tool("ops-writer", {BinDir() + "/zcrawl-status", "--frontier", WriterEndpoint(),
                                                          "--frontier-key", Key("writer.pub")});
  EXPECT_EQ(writer_code, 0) << writer_status;
  EXPECT_NE(writer_status.find("writer " + WriterEndpoint()), std::string::npos) << writer_status;

  std::vector<std::unique_ptr<TestProcess>> fetchers;
  for (const auto& [name, octet] : kGoodFetchers) {
    fetchers.push_back(std::make_unique<TestProcess>());
    fetchers.back()->Start(Fetcher(name, "info"), dir_ + "/" + name + ".log");
  }

  EXPECT_EQ(frontier.Wait(40000).value_or(-1), 0) << ReadFile(frontier_log);
  for (size_t i = 0; i < fetchers.size(); ++i) {
    const std::string log = dir_ + "/" + kGoodFetchers[i].first + ".log";
    EXPECT_EQ(fetchers[i]->Wait(10000).value_or(-1), 0) << ReadFile(log);
    // Both allowed fetchers took part, each from its own host, as the
    // site saw it.
    EXPECT_GT(server->requests_from(address_[kGoodFetchers[i].first]), 0u) << ReadFile(log);
  }
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0) << ReadFile(writer_log);
  // The writer refused the intruder's handshakes too.
  const auto writer_summary = nlohmann::json::parse(ReadFile(dir_ + "/writer-summary.json"), nullptr, false);
  ASSERT_FALSE(writer_summary.is_discarded()) << ReadFile(writer_log);
  EXPECT_GE(writer_summary.value("curve_clients_rejected", 0u), 1u) << writer_summary.dump(2);

  // Every page stored exactly once with its status, and nothing else.
  auto index = ReadIndex(dir_ + "/out");
  for (const auto& url : site->ExpectedOk()) {
    ASSERT_EQ(index[url].size(), 1u) << url;
    EXPECT_EQ(index[url][0].status, 200) << url;
  }
  for (const auto& url : site->ExpectedNotFound()) {
    ASSERT_EQ(index[url].size(), 1u) << url;
    EXPECT_EQ(index[url][0].status, 404) << url;
  }
  EXPECT_EQ(index.size(), site->ExpectedOk().size() + site->ExpectedNotFound().size());
  for (const auto& [target, count] : server->request_counts()) {
    EXPECT_FALSE(site->IsForbiddenPath(target)) << "requested " << target;
  }
  EXPECT_EQ(foreign->total_requests(), 0u) << "a link to another host was followed";

  // The intruder never fetched a URL and was never told the crawl ended
  // (every peer that joined was): it is still knocking.
  EXPECT_EQ(server->requests_from(address_["intruder"]), 0u) << ReadFile(intruder_log);
  EXPECT_TRUE(intruder.running()) << ReadFile(intruder_log);
  intruder.Signal(SIGTERM);
  EXPECT_TRUE(intruder.Wait(5000).has_value());
  // And it says why, not only that the frontier is silent.
  EXPECT_NE(ReadFile(intruder_log).find("refused our CURVE key"), std::string::npos) << ReadFile(intruder_log);
}

}  // namespace
}  // namespace zcrawl::testing
