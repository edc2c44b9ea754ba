// What the launcher concludes at a crawl's end: a crawl that had finished
// before this launch is told apart from one that finished in it, even when
// the frontier that wrote the summary was a restart, and a crawl that
// fetched nothing exits with kNothingFetched.
#include "launcher/crawl_end.h"

#include <gtest/gtest.h>

namespace zcrawl::launcher {
namespace {

constexpr const char* kFinishedEarlier = R"({"finished":true,"done":1810,"failed":80,"already_finished":true})";
constexpr const char* kFinishedNow = R"({"finished":true,"done":1810,"failed":80,"already_finished":false})";

TEST(CrawlEndTest, TheFirstFrontierFindingTheCrawlFinishedMeansItHadFinishedBefore) {
  const CrawlEnd end = JudgeCrawlEnd(kFinishedEarlier, 0, /*frontier_restarts=*/0);
  EXPECT_TRUE(end.finished_earlier);
  EXPECT_EQ(end.exit_code, 0);
}

// The frontier recorded the end, crashed before it exited, and the
// launcher restarted it: the restart finds the state finished, but the
// crawl finished in this launch, once.
TEST(CrawlEndTest, ARestartedFrontierFindingTheCrawlFinishedMeansItFinishedNow) {
  for (uint32_t restarts : {1u, 3u}) {
    const CrawlEnd end = JudgeCrawlEnd(kFinishedEarlier, 0, restarts);
    EXPECT_FALSE(end.finished_earlier) << restarts;
    EXPECT_EQ(end.exit_code, 0) << restarts;
  }
  EXPECT_FALSE(JudgeCrawlEnd(kFinishedNow, 0, 0).finished_earlier);
  EXPECT_FALSE(JudgeCrawlEnd(kFinishedNow, 0, 2).finished_earlier);
}

TEST(CrawlEndTest, NothingFetchedIsItsOwnExitCodeUnlessTheCrawlHadFinishedBefore) {
  const char* nothing_now = R"({"finished":true,"done":0,"failed":5,"already_finished":false})";
  const char* nothing_earlier = R"({"finished":true,"done":0,"failed":5,"already_finished":true})";
  EXPECT_EQ(JudgeCrawlEnd(nothing_now, 0, 0).exit_code, kNothingFetched);
  EXPECT_EQ(JudgeCrawlEnd(nothing_earlier, 0, 0).exit_code, 0) << "nothing was asked of this launch";
  // Finished in this launch by a frontier that was then restarted.
  EXPECT_EQ(JudgeCrawlEnd(nothing_earlier, 0, 1).exit_code, kNothingFetched);
  // A failure or a stop keeps its own code.
  EXPECT_EQ(JudgeCrawlEnd(nothing_now, 1, 0).exit_code, 1);
  EXPECT_EQ(JudgeCrawlEnd(nothing_now, 130, 0).exit_code, 130);
}

TEST(CrawlEndTest, AFrontierThatExitedCleanlyBeforeTheEndWasStopped) {
  const char* stopped = R"({"finished":false,"done":12,"failed":0,"already_finished":false})";
  EXPECT_EQ(JudgeCrawlEnd(stopped, 0, 0).exit_code, kStopped) << "an operator's stop";
  EXPECT_EQ(JudgeCrawlEnd(stopped, 130, 0).exit_code, kStopped) << "Ctrl-C";
  EXPECT_EQ(JudgeCrawlEnd(stopped, 1, 0).exit_code, 1);
  EXPECT_EQ(JudgeCrawlEnd(kFinishedNow, 0, 0).exit_code, 0);
}

TEST(CrawlEndTest, NoSummaryLeavesTheResultAsItIs) {
  for (const char* summary : {"", "{not json", "[]"}) {
    const CrawlEnd end = JudgeCrawlEnd(summary, 1, 0);
    EXPECT_FALSE(end.finished_earlier) << summary;
    EXPECT_EQ(end.exit_code, 1) << summary;
    EXPECT_EQ(JudgeCrawlEnd(summary, 0, 0).exit_code, 0) << summary;
  }
}

}  // namespace
}  // namespace zcrawl::launcher
