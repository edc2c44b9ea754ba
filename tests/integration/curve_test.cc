// CURVE security: only fetchers whose public keys are allowed get work or
// reach the writer; binding beyond loopback without CURVE is refused.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/crawl_output.h"
#include "tests/support/generated_site.h"
#include "tests/support/metrics_scrape.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

class CurveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("curve");
    for (const char* name : {"frontier", "writer", "good", "bad"}) {
      TestProcess keys;
      keys.Start({BinDir() + "/zcrawl-keys", name, "--dir", dir_ + "/keys"}, dir_ + "/keys.log");
      ASSERT_EQ(keys.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/keys.log");
    }
    // The frontier admits the good fetcher and the writer; the writer
    // admits the good fetcher. "bad" has a valid key nobody allowed.
    std::filesystem::create_directories(dir_ + "/allow-frontier");
    std::filesystem::create_directories(dir_ + "/allow-writer");
    std::filesystem::copy(dir_ + "/keys/good.pub", dir_ + "/allow-frontier/good.pub");
    std::filesystem::copy(dir_ + "/keys/writer.pub", dir_ + "/allow-frontier/writer.pub");
    std::filesystem::copy(dir_ + "/keys/good.pub", dir_ + "/allow-writer/good.pub");
  }

  std::vector<std::string> Fetcher(const std::string& key) {
    return {BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep_, "--writer", writer_ep_,
            "--threads", "4", "--heartbeat-ms", "200", "--curve-key", dir_ + "/keys/" + key + ".key",
            "--frontier-key", dir_ + "/keys/frontier.pub", "--writer-key", dir_ + "/keys/writer.pub"};
  }

  std::string dir_;
  std::string frontier_ep_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  std::string writer_ep_ = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
};

TEST_F(CurveTest, OnlyAllowedFetchersTakePartInTheCrawl) {
  std::unique_ptr<GeneratedSite> site;
  TestHttpServer foreign("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
  foreign.Start();
  TestHttpServer server("127.0.0.1", [&](const TestRequest& r) { return site->Serve(r); });
  server.Start();
  site = std::make_unique<GeneratedSite>(60, server.origin(), foreign.origin());

  TestProcess frontier, writer, bad, good;
  const uint16_t metrics_port = FreeLoopbackPort();
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep_, "--delay-ms", "0",
                  "--heartbeat-ms", "200", "--curve-key", dir_ + "/keys/frontier.key",
                  "--curve-allow", dir_ + "/allow-frontier", "--metrics-port", std::to_string(metrics_port),
                  server.origin() + "/"},
                 dir_ + "/frontier.log");
  writer.Start({BinDir() + "/zcrawl-writer", "--bind", writer_ep_, "--out", dir_ + "/out",
                "--frontier", frontier_ep_, "--heartbeat-ms", "200", "--curve-key",
                dir_ + "/keys/writer.key", "--curve-allow", dir_ + "/allow-writer", "--frontier-key",
                dir_ + "/keys/frontier.pub"},
               dir_ + "/writer.log");
  bad.Start(Fetcher("bad"), dir_ + "/bad.log");
  // The rejected fetcher gets nothing: the site sees no request from it.
  EXPECT_GE(WaitForMetric(metrics_port, "zcrawl_frontier_curve_clients_rejected_total", 1, 10000), 1)
      << ReadFile(dir_ + "/frontier.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(server.total_requests(), 0u) << "a fetcher with an unknown key got work";

  good.Start(Fetcher("good"), dir_ + "/good.log");
  EXPECT_EQ(frontier.Wait(60000).value_or(-1), 0) << ReadFile(dir_ + "/frontier.log");
  EXPECT_EQ(good.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/good.log");
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0) << ReadFile(dir_ + "/writer.log");
  auto index = ReadIndex(dir_ + "/out");
  for (const auto& url : site->ExpectedOk()) EXPECT_EQ(index[url].size(), 1u) << url;
  bad.Signal(SIGTERM);
  bad.Wait(5000);
}

TEST_F(CurveTest, BindingBeyondLoopbackWithoutCurveIsRefused) {
  TestProcess frontier;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", "tcp://0.0.0.0:" + std::to_string(FreeLoopbackPort()),
                  "http://127.0.0.1:9/"},
                 dir_ + "/refused.log");
  EXPECT_EQ(frontier.Wait(10000).value_or(-1), 2);
  EXPECT_NE(ReadFile(dir_ + "/refused.log").find("refusing to bind"), std::string::npos)
      << ReadFile(dir_ + "/refused.log");
}

}  // namespace
}  // namespace zcrawl::testing
