// `./run status OUT` finds the crawl writing to OUT (issue 50 point 1),
// whatever port the launcher chose for its frontier, in separate processes
// and in one; and a crawl that no longer runs is told apart: stopped
// cleanly, or killed (its beacon is not trusted blindly).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

class FindCrawlTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    foreign_ = std::make_unique<TestHttpServer>("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
    foreign_->Start();
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) { return site_->Serve(r); });
    server_->Start();
    server_->Publish([&] { site_ = std::make_unique<GeneratedSite>(60, server_->origin(), foreign_->origin()); });
    dir_ = MakeTempDir("find_crawl");
  }

  // `./run status ARGS...`: its exit code, its output in `out`.
  int Status(const std::vector<std::string>& args, std::string* out) {
    std::vector<std::string> argv = {SourceDir() + "/run", "status"};
    argv.insert(argv.end(), args.begin(), args.end());
    TestProcess status;
    const std::string log = dir_ + "/status-" + std::to_string(++asked_) + ".log";
    status.Start(argv, log, Env());
    const int code = status.Wait(30000).value_or(-1);
    *out = ReadFile(log);
    return code;
  }
  std::vector<std::string> Env() const { return {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()}; }

  std::unique_ptr<TestHttpServer> foreign_, server_;
  std::unique_ptr<GeneratedSite> site_;
  std::string dir_;
  int asked_ = 0;
};

TEST_P(FindCrawlTest, StatusFindsTheRunningCrawlByItsOutputFolderAndKnowsWhenItStopped) {
  const std::string out = dir_ + "/out";
  std::vector<std::string> argv = {SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", out,
                                   "--delay-ms", "300", "--per-host", "1"};
  if (GetParam()) argv.push_back("--single-process");
  TestProcess crawl;
  crawl.Start(argv, dir_ + "/crawl.log", Env());
  // Asked until the frontier has done some pages: it found the crawl.
  std::string text;
  bool found = false;
  for (int i = 0; i < 100 && !found && crawl.running(); ++i) {
    found = Status({out}, &text) == 0 && text.find("running") != std::string::npos &&
            text.find("done=0 ") == std::string::npos;
    if (!found) usleep(200 * 1000);
  }
  ASSERT_TRUE(found) << text << ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(text.find(server_->origin()), std::string::npos) << "its host's row: " << text;
  EXPECT_EQ(text.find("tcp://127.0.0.1:5570"), std::string::npos) << "the launcher's own port, not the default";

  crawl.Signal(SIGINT);
  crawl.Wait(60000);
  EXPECT_EQ(Status({out}, &text), 1);
  EXPECT_NE(text.find("no crawl running in " + out + "; it last ran until"), std::string::npos) << text;
  EXPECT_NE(text.find("(stopped)"), std::string::npos) << text;
}

TEST_F(FindCrawlTest, AKilledCrawlIsNotTakenForARunningOne) {
  const std::string out = dir_ + "/out";
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", out, "--delay-ms", "300",
               "--per-host", "1", "--single-process"},
              dir_ + "/crawl.log", Env());
  std::string text;
  bool found = false;
  for (int i = 0; i < 100 && !found && crawl.running(); ++i) {
    found = Status({out}, &text) == 0;
    if (!found) usleep(200 * 1000);
  }
  ASSERT_TRUE(found) << text << ReadFile(dir_ + "/crawl.log");
  // kill -9 of everything: the launcher and the one process it started,
  // which then leaves its beacon saying it runs.
  const std::string beacon = ReadFile(out + "/.zcrawl/frontier.beacon");
  const size_t at = beacon.find("pid ");
  ASSERT_NE(at, std::string::npos) << beacon;
  const pid_t frontier = static_cast<pid_t>(std::stol(beacon.substr(at + 4)));
  crawl.Signal(SIGKILL);
  ASSERT_EQ(kill(frontier, SIGKILL), 0) << "the crawl's own process, named by its beacon";
  crawl.Wait(30000);
  for (int i = 0; i < 50 && kill(frontier, 0) == 0; ++i) usleep(100 * 1000);
  EXPECT_NE(ReadFile(out + "/.zcrawl/frontier.beacon").find("stopped_ms 0"), std::string::npos)
      << "the killed frontier could not say it stopped";
  EXPECT_EQ(Status({out}, &text), 1);
  EXPECT_NE(text.find("no crawl running in " + out), std::string::npos) << text;
  EXPECT_NE(text.find("did not stop cleanly"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(Processes, FindCrawlTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "single_process" : "separate"; });

}  // namespace
}  // namespace zcrawl::testing
