// Crash-proof crawls: kill -9 of the frontier, the writer, a fetcher, the
// one process of --single-process, or everything, mid-crawl; the crawl
// still stores every page exactly once.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>

#include "tests/support/crawl_output.h"
#include "tests/support/served_site_test.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 300;

class CrashResumeTest : public ServedSiteTest {
 protected:
  CrashResumeTest() : ServedSiteTest(kPages, "crash") {}

  std::vector<std::string> CrawlArgs(bool single_process) {
    // A politeness delay stretches the crawl (~300 x 10 ms / 2 per host)
    // so that kills land mid-crawl.
    std::vector<std::string> args = {SourceDir() + "/run", "crawl", server_->origin() + "/", "--out",
                                     dir_ + "/out", "--fetchers", "2", "--threads", "4", "--delay-ms", "10",
                                     "--per-host", "2"};
    if (single_process) args.push_back("--single-process");
    return args;
  }

  void StartCrawl(TestProcess& crawl, const std::string& log, bool single_process = false) {
    crawl.Start(CrawlArgs(single_process), dir_ + "/" + log,
                {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  }

  void KillChild(TestProcess& crawl, const std::string& comm) {
    auto pids = ChildPids(crawl.pid(), comm);
    ASSERT_FALSE(pids.empty()) << "no " << comm << " under the launcher";
    kill(pids[0], SIGKILL);
  }

  void ExpectEveryPageStoredOnce() { ServedSiteTest::ExpectEveryPageStoredOnce(dir_ + "/out"); }

  // What the last frontier of the crawl wrote as it exited.
  nlohmann::json Summary() const {
    auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
    return summary.is_discarded() ? nlohmann::json::object() : summary;
  }
};

TEST_F(CrashResumeTest, FrontierKilledMidCrawlIsRestartedAndResumes) {
  TestProcess crawl;
  StartCrawl(crawl, "crawl.log");
  ASSERT_TRUE(WaitForRequests(80));
  KillChild(crawl, "zcrawl-frontier");
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/crawl.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/crawl.log");
  const std::string log = ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(log.find("restarting frontier"), std::string::npos) << log;
  EXPECT_EQ(Summary().value("resumed", false), true) << Summary().dump(2);
  ExpectEveryPageStoredOnce();
}

TEST_F(CrashResumeTest, WriterKilledMidCrawlLosesAndDuplicatesNothing) {
  TestProcess crawl;
  StartCrawl(crawl, "crawl.log");
  ASSERT_TRUE(WaitForRequests(80));
  KillChild(crawl, "zcrawl-writer");
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/crawl.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(ReadFile(dir_ + "/crawl.log").find("restarting writer"), std::string::npos);
  ExpectEveryPageStoredOnce();
}

// --single-process: frontier, writer and fetchers are threads of one
// process (zcrawl-local), which a kill -9 takes down together; the launcher
// restarts it and the crawl resumes from the saved state.
TEST_F(CrashResumeTest, TheSingleProcessKilledMidCrawlIsRestartedAndResumes) {
  TestProcess crawl;
  StartCrawl(crawl, "crawl.log", /*single_process=*/true);
  ASSERT_TRUE(WaitForRequests(80));
  EXPECT_TRUE(ChildPids(crawl.pid(), "zcrawl-frontier").empty()) << "a frontier process of its own";
  EXPECT_TRUE(ChildPids(crawl.pid(), "zcrawl-fetcher").empty()) << "a fetcher process of its own";
  KillChild(crawl, "zcrawl-local");
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/crawl.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/crawl.log");
  const std::string log = ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(log.find("in one process"), std::string::npos) << log;
  EXPECT_NE(log.find("restarting local"), std::string::npos) << log;
  EXPECT_EQ(Summary().value("resumed", false), true) << Summary().dump(2);
  ExpectEveryPageStoredOnce();
}

TEST_F(CrashResumeTest, EverythingKilledThenTheSameCommandFinishesTheCrawl) {
  {
    TestProcess crawl;
    StartCrawl(crawl, "first.log");
    ASSERT_TRUE(WaitForRequests(100));
    for (const char* comm : {"zcrawl-frontier", "zcrawl-writer", "zcrawl-fetcher"}) {
      for (pid_t pid : ChildPids(crawl.pid(), comm)) kill(pid, SIGKILL);
    }
    crawl.Signal(SIGKILL);
    ASSERT_TRUE(crawl.Wait(10000).has_value());
  }
  ASSERT_LT(ReadIndex(dir_ + "/out").size(), static_cast<size_t>(kPages)) << "crawl ended before the kill";
  TestProcess again;
  StartCrawl(again, "second.log");
  auto code = again.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(dir_ + "/second.log");
  EXPECT_EQ(*code, 0) << ReadFile(dir_ + "/second.log");
  EXPECT_EQ(Summary().value("resumed", false), true) << Summary().dump(2);
  ExpectEveryPageStoredOnce();

  // A third run finds the crawl finished and says so.
  TestProcess third;
  StartCrawl(third, "third.log");
  EXPECT_EQ(third.Wait(30000).value_or(-1), 0);
  EXPECT_NE(ReadFile(dir_ + "/third.log").find("crawl: the crawl in " + dir_ + "/out had already finished"),
            std::string::npos) << ReadFile(dir_ + "/third.log");
  EXPECT_EQ(Summary().value("already_finished", false), true) << Summary().dump(2);
}

}  // namespace
}  // namespace zcrawl::testing
