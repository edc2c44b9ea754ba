// Crash-proof crawls: kill -9 of the frontier, the writer, a fetcher, or
// everything, mid-crawl; the crawl still stores every page exactly once.
#include <gtest/gtest.h>
#include <signal.h>


#include "tests/support/crawl_output.h"
#include "tests/support/served_site_test.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 300;

class CrashResumeTest : public ServedSiteTest {
 protected:
  CrashResumeTest() : ServedSiteTest(kPages, "crash") {}

  std::vector<std::string> CrawlArgs() {
    // A politeness delay stretches the crawl (~300 x 10 ms / 2 per host)
    // so that kills land mid-crawl.
    return {SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out",
            "--fetchers", "2", "--threads", "4", "--delay-ms", "10", "--per-host", "2"};
  }

  void StartCrawl(TestProcess& crawl, const std::string& log) {
    crawl.Start(CrawlArgs(), dir_ + "/" + log, {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  }

  void KillChild(TestProcess& crawl, const std::string& comm) {
    auto pids = ChildPids(crawl.pid(), comm);
    ASSERT_FALSE(pids.empty()) << "no " << comm << " under the launcher";
    kill(pids[0], SIGKILL);
  }

  void ExpectEveryPageStoredOnce() { ServedSiteTest::ExpectEveryPageStoredOnce(dir_ + "/out"); }
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
  EXPECT_NE(log.find("resuming crawl"), std::string::npos) << log;
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
  EXPECT_NE(ReadFile(dir_ + "/second.log").find("resuming"), std::string::npos);
  ExpectEveryPageStoredOnce();

  // A third run finds the crawl finished and says so.
  TestProcess third;
  StartCrawl(third, "third.log");
  EXPECT_EQ(third.Wait(30000).value_or(-1), 0);
  EXPECT_NE(ReadFile(dir_ + "/third.log").find("already finished"), std::string::npos);
}

}  // namespace
}  // namespace zcrawl::testing
