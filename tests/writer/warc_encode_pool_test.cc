// WarcEncodePool tests: results come back whole and in submission order,
// whatever the thread count and however uneven the pages, also when pages
// the pool wraps at once (blocks compressed by fetchers) come between pages
// its workers encode.
#include "writer/warc_encode_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/gzip_members.h"

namespace zcrawl::writer {
namespace {

WarcPageParts PartsFor(int i) {
  WarcPageParts parts;
  parts.target_uri = "http://example.com/p" + std::to_string(i);
  parts.date = "2026-11-30T02:17:57.123Z";
  parts.response_head = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
  // Every 5th page is large: it finishes after the small ones behind it.
  parts.body.assign(i % 5 == 0 ? 400000 : 100, static_cast<char>('a' + i % 26));
  parts.request_block = "GET /p" + std::to_string(i) + " HTTP/1.1\r\nHost: example.com\r\n\r\n";
  return parts;
}

// PartsFor(i) as they come when the fetcher compressed every block: the
// pool wraps them on the caller's thread, between pages its workers encode.
WarcPageParts CompressedPartsFor(int i) {
  WarcPageParts parts = PartsFor(i);
  GzipMemberCompressor fetcher_side(1);
  auto compress = [&](std::string_view first, std::string_view second, FetcherWarcBlock& to) {
    Result<uint32_t> crc = fetcher_side.AppendRawDeflate({first, second, kWarcRecordEnd}, to.deflate);
    EXPECT_TRUE(crc.ok());
    to.crc = crc.ok() ? *crc : 0;
    to.length = first.size() + second.size();
    to.digest = "sha1:FROMTHEFETCHER";
  };
  compress(parts.response_head, parts.body, parts.response_compressed);
  compress(parts.request_block, {}, parts.request_compressed);
  parts.response_head.clear();
  parts.body.clear();
  parts.request_block.clear();
  EXPECT_TRUE(parts.compressed_by_fetcher());
  return parts;
}

// Decompresses a whole multi-member gzip buffer.
std::string Gunzip(const std::string& data) {
  std::string out;
  for (const std::string& member : ::zcrawl::testing::InflateGzipMembers(data)) out += member;
  return out;
}

class WarcEncodePoolTest : public ::testing::TestWithParam<int> {};

TEST_P(WarcEncodePoolTest, ResultsComeBackInSubmissionOrder) {
  WarcEncodePool pool(GetParam(), /*gzip_level=*/1);
  EXPECT_EQ(pool.threads(), GetParam());
  constexpr int kPages = 60;
  std::vector<EncodedWarcPage> results;
  for (int i = 0; i < kPages; ++i) {
    pool.Submit(i % 3 == 1 ? CompressedPartsFor(i) : PartsFor(i), "key" + std::to_string(i));
    if (i % 3 == 0) {
      while (auto page = pool.TakeNext(/*wait=*/false)) results.push_back(std::move(*page));
    }
  }
  while (auto page = pool.TakeNext(/*wait=*/true)) results.push_back(std::move(*page));
  EXPECT_EQ(pool.pending_pages(), 0u);
  EXPECT_EQ(pool.pending_bytes(), 0u);
  ASSERT_EQ(results.size(), static_cast<size_t>(kPages));
  for (int i = 0; i < kPages; ++i) {
    ASSERT_TRUE(results[i].status.ok()) << i;
    EXPECT_EQ(results[i].key, "key" + std::to_string(i));
    const std::string records = Gunzip(results[i].bytes);
    EXPECT_NE(records.find("WARC-Target-URI: http://example.com/p" + std::to_string(i) + "\r\n"),
              std::string::npos)
        << i;
    const WarcPageParts parts = PartsFor(i);
    const size_t block_size = parts.response_head.size() + parts.body.size();
    EXPECT_NE(records.find("Content-Length: " + std::to_string(block_size) + "\r\n"),
              std::string::npos)
        << i;
    EXPECT_NE(records.find(parts.response_head + parts.body + "\r\n\r\n"), std::string::npos) << i;
    EXPECT_EQ(records.find("sha1:FROMTHEFETCHER") != std::string::npos, i % 3 == 1) << i;
  }
}

TEST_P(WarcEncodePoolTest, PendingCountsPagesAndBodyBytesUntilTaken) {
  WarcEncodePool pool(GetParam(), 1);
  pool.Submit(PartsFor(1), "a");
  pool.Submit(PartsFor(2), "b");
  EXPECT_EQ(pool.pending_pages(), 2u);
  EXPECT_EQ(pool.pending_bytes(), 200u);
  ASSERT_TRUE(pool.TakeNext(true).has_value());
  EXPECT_EQ(pool.pending_pages(), 1u);
  EXPECT_EQ(pool.pending_bytes(), 100u);
  ASSERT_TRUE(pool.TakeNext(true).has_value());
  EXPECT_FALSE(pool.TakeNext(true).has_value());  // nothing pending: no wait
}

INSTANTIATE_TEST_SUITE_P(Threads, WarcEncodePoolTest, ::testing::Values(0, 1, 3));

TEST(WarcEncodePoolShutdownTest, DestroyingWithPagesInFlightJoinsCleanly) {
  auto pool = std::make_unique<WarcEncodePool>(2, 6);
  for (int i = 0; i < 20; ++i) pool->Submit(PartsFor(i * 5), "k");
  pool.reset();  // must not hang or crash
  SUCCEED();
}

}  // namespace
}  // namespace zcrawl::writer
