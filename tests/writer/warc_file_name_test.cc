#include "writer/warc_file_name.h"

#include <gtest/gtest.h>

namespace zcrawl::writer {
namespace {

TEST(WarcFileNameTest, TheSerialIsPaddedToFiveDigitsAndReadsBack) {
  EXPECT_EQ(WarcFileName("crawl", "20260101120000", 7), "crawl-20260101120000-00007.warc.gz");
  EXPECT_EQ(WarcFileName("crawl", "20260101120000", 1234567), "crawl-20260101120000-1234567.warc.gz");
  uint64_t serial = 0;
  ASSERT_TRUE(ParseWarcFileSerial(WarcFileName("a-b", "20260101120000", 42), "a-b", serial));
  EXPECT_EQ(serial, 42u);
}

TEST(WarcFileNameTest, OnlyTheCrawlsOwnNamesHaveASerial) {
  uint64_t serial = 0;
  EXPECT_FALSE(ParseWarcFileSerial("crawl-20260101120000-00007.warc.gz.unacknowledged", "crawl", serial));
  EXPECT_TRUE(ParseWarcOrAsideSerial("crawl-20260101120000-00007.warc.gz.unacknowledged", "crawl", serial));
  EXPECT_EQ(serial, 7u);
  EXPECT_FALSE(ParseWarcFileSerial("other-20260101120000-00007.warc.gz", "crawl", serial));
  EXPECT_FALSE(ParseWarcFileSerial("crawl-2026010112000-00007.warc.gz", "crawl", serial));
}

}  // namespace
}  // namespace zcrawl::writer
