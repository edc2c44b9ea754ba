// EarlierCaptures: what a recrawl reads of an earlier crawl's output, from
// each format's index (files index.jsonl, pages.jsonl, WARC sidecars), bad
// lines counted and skipped, an "unchanged" line naming the capture that
// stands.
#include "writer/earlier_captures.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "tests/support/test_process.h"
#include "warc/cdxj.h"

namespace zcrawl::writer {
namespace {

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

std::map<std::string, EarlierCapture> ReadAll(const std::string& dir, EarlierCaptureCounts* counts) {
  std::map<std::string, EarlierCapture> by_url;
  auto read = ForEachEarlierCapture(dir, [&](const EarlierCapture& c) { by_url[c.url] = c; });
  EXPECT_TRUE(read.ok()) << read.status().message();
  if (read.ok()) *counts = *read;
  return by_url;
}

TEST(EarlierCapturesTest, ReadsEveryFormatsIndexWithItsValidators) {
  const std::string dir = zcrawl::testing::MakeTempDir("earlier_captures");
  Write(dir + "/index.jsonl",
        "{\"url\":\"http://a.test/\",\"status\":200,\"depth\":0,\"fetched_at_ms\":1000,\"file\":\"a\","
        "\"etag\":\"\\\"e1\\\"\"}\n"
        "not json\n"
        "{\"url\":\"http://a.test/same\",\"status\":304,\"depth\":2,\"fetched_at_ms\":9000,\"file\":\"\","
        "\"last_modified\":\"Wed, 02 Dec 2026 10:00:00 GMT\",\"unchanged\":true,\"previous_fetched_at_ms\":5000}\n"
        "{\"status\":200}\n");
  Write(dir + "/pages.jsonl",
        "{\"url\":\"http://b.test/p\",\"depth\":1,\"fetched_at\":\"2026-12-03T12:26:15.123Z\","
        "\"headers\":{\"ETag\":\"W/\\\"x\\\"\",\"Last-Modified\":\"Tue, 01 Dec 2026 00:00:00 GMT\"}}\n");
  // A WARC sidecar's line must point inside an existing WARC file.
  Write(dir + "/zcrawl-1.warc.gz", std::string(100, 'x'));
  Write(dir + "/zcrawl-index.jsonl",
        "{\"url\":\"http://c.test/w\",\"file\":\"zcrawl-1.warc.gz\",\"offset\":0,\"length\":50,"
        "\"cdxj\":\"test,c)/w 20261203122615 {\\\"url\\\":\\\"http://c.test/w\\\",\\\"digest\\\":\\\"ABC\\\"}\","
        "\"depth\":3,\"title\":\"\",\"etag\":\"\\\"w1\\\"\"}\n"
        "{\"url\":\"http://c.test/old\",\"file\":\"zcrawl-1.warc.gz\",\"offset\":50,\"length\":50,"
        "\"cdxj\":\"test,c)/old 20261203122615 {}\",\"depth\":0,\"title\":\"\",\"fetched_at_ms\":1796300775987}\n");
  EarlierCaptureCounts counts;
  auto by_url = ReadAll(dir, &counts);
  EXPECT_EQ(counts.indexes, 3u);
  EXPECT_EQ(counts.captures, 5u);
  EXPECT_EQ(counts.bad_lines, 2u) << "the line that is not JSON and the one without a url";
  ASSERT_EQ(by_url.size(), 5u);

  EXPECT_EQ(by_url["http://a.test/"].validators.etag(), "\"e1\"");
  EXPECT_EQ(by_url["http://a.test/"].validators.fetched_at_ms(), 1000);
  const EarlierCapture& same = by_url["http://a.test/same"];
  EXPECT_EQ(same.depth, 2u);
  EXPECT_EQ(same.validators.last_modified(), "Wed, 02 Dec 2026 10:00:00 GMT");
  EXPECT_EQ(same.validators.fetched_at_ms(), 5000) << "the capture that stands, not the 304's time";

  const EarlierCapture& page = by_url["http://b.test/p"];
  EXPECT_EQ(page.depth, 1u);
  EXPECT_EQ(page.validators.etag(), "W/\"x\"");
  EXPECT_EQ(page.validators.last_modified(), "Tue, 01 Dec 2026 00:00:00 GMT");
  EXPECT_EQ(page.validators.fetched_at_ms(), 1796300775123);

  const EarlierCapture& warc = by_url["http://c.test/w"];
  EXPECT_EQ(warc.depth, 3u);
  EXPECT_EQ(warc.validators.etag(), "\"w1\"");
  EXPECT_EQ(warc.validators.payload_digest(), "sha1:ABC");
  EXPECT_EQ(warc.validators.fetched_at_ms(), 1796300775000) << "from the CDXJ timestamp: seconds";
  EXPECT_EQ(by_url["http://c.test/old"].validators.fetched_at_ms(), 1796300775987) << "the sidecar's own ms";
}

TEST(EarlierCapturesTest, AFolderWithoutIndexesHasNoCapturesAndAMissingOneIsAnError) {
  const std::string dir = zcrawl::testing::MakeTempDir("earlier_captures_none");
  EarlierCaptureCounts counts;
  EXPECT_TRUE(ReadAll(dir, &counts).empty());
  EXPECT_EQ(counts.indexes, 0u);
  auto missing = ForEachEarlierCapture(dir + "/nope", [](const EarlierCapture&) {});
  EXPECT_FALSE(missing.ok());
}

// (MsOfCdxjTimestamp is warc/cdxj.h's: the recrawl reads capture times with it.)
TEST(EarlierCapturesTest, CdxjTimestampsAreUtcSeconds) {
  EXPECT_EQ(MsOfCdxjTimestamp("19700101000001"), 1000);
  EXPECT_EQ(MsOfCdxjTimestamp("20261203122615"), 1796300775000);
  EXPECT_FALSE(MsOfCdxjTimestamp("2026120312261").has_value());
  EXPECT_FALSE(MsOfCdxjTimestamp("2026120312261x").has_value());
}

}  // namespace
}  // namespace zcrawl::writer
