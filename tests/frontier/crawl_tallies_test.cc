// CrawlTallies' stored form: what Encode writes, Restore reads back, and a
// damaged entry loses only its bad lines.
#include "frontier/scheduler/crawl_tallies.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

TEST(CrawlTalliesTest, WhatIsEncodedIsRestoredAndAddedToWhatIsCounted) {
  CrawlTallies counted;
  EXPECT_FALSE(counted.dirty());
  counted.CountFailure("robots_unavailable: http_500");
  counted.CountFailure("http_404");
  counted.CountFailure("http_404");
  counted.CountRetry("timeout");
  counted.CountStatusClass("2xx");
  EXPECT_TRUE(counted.dirty());
  const std::string stored = counted.Encode();
  EXPECT_FALSE(counted.dirty()) << "staged: nothing new to stage";

  CrawlTallies restored;
  restored.CountFailure("http_404");  // counted before the restore: both kept
  EXPECT_EQ(restored.Restore(stored), 0u);
  EXPECT_EQ(restored.failures(), (CrawlTallies::Counts{{"http_404", 3}, {"robots_unavailable: http_500", 1}}));
  EXPECT_EQ(restored.retries(), (CrawlTallies::Counts{{"timeout", 1}}));
  EXPECT_EQ(restored.status_classes(), (CrawlTallies::Counts{{"2xx", 1}}));
}

TEST(CrawlTalliesTest, LinesThatDoNotParseAreSkippedAndCounted) {
  CrawlTallies restored;
  const size_t skipped = restored.Restore(
      "f 2 blocked\n"
      "x 1 unknown_kind\n"
      "f many http_500\n"
      "f 3\n"
      "f 3 \n"
      "r 99999999999999999999999 overflow\n"
      "\n"
      "s 4 3xx");
  EXPECT_EQ(skipped, 5u);
  EXPECT_EQ(restored.failures(), (CrawlTallies::Counts{{"blocked", 2}}));
  EXPECT_TRUE(restored.retries().empty());
  EXPECT_EQ(restored.status_classes(), (CrawlTallies::Counts{{"3xx", 4}}));
}

TEST(CrawlTalliesTest, ANewlineInACauseDoesNotSplitTheEntry) {
  CrawlTallies counted;
  counted.CountFailure("two\nlines");
  CrawlTallies restored;
  EXPECT_EQ(restored.Restore(counted.Encode()), 0u);
  EXPECT_EQ(restored.failures(), (CrawlTallies::Counts{{"two lines", 1}}));
}

}  // namespace
}  // namespace zcrawl::frontier
