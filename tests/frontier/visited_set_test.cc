#include "frontier/visited_set.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "frontier/bloom_filter.h"
#include "frontier/fingerprint_table.h"
#include "frontier/url_fingerprint.h"

namespace zcrawl::frontier {
namespace {

TEST(VisitedSetTest, SecondInsertReportsSeen) {
  VisitedSet set(1000);
  EXPECT_FALSE(set.Contains("http://a/"));
  EXPECT_TRUE(set.InsertIfNew("http://a/"));
  EXPECT_FALSE(set.InsertIfNew("http://a/"));
  EXPECT_TRUE(set.Contains("http://a/"));
  EXPECT_EQ(set.size(), 1u);
}

TEST(VisitedSetTest, GrowsFarPastItsExpectedSizeWithoutLosingAnything) {
  VisitedSet set(100);  // deliberately undersized: more Bloom false positives
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(set.InsertIfNew("http://h/" + std::to_string(i)));
  for (int i = 0; i < 50000; ++i) ASSERT_TRUE(set.Contains("http://h/" + std::to_string(i)));
  // Bloom false positives happened, yet no new URL was refused.
  EXPECT_GT(set.bloom_false_positives(), 0u);
  EXPECT_EQ(set.size(), 50000u);
  EXPECT_FALSE(set.Contains("http://h/50000"));
}

TEST(VisitedSetTest, ConcurrentInsertersAdmitEachUrlExactlyOnce) {
  VisitedSet set(10000);
  std::atomic<int> admitted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        if (set.InsertIfNew("http://h/" + std::to_string(i))) ++admitted;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(admitted.load(), 20000);
  EXPECT_EQ(set.size(), 20000u);
}

TEST(VisitedSetTest, MemoryPerUrlStaysUnderTwentyFourBytesAtScale) {
  VisitedSet set(200000);
  for (int i = 0; i < 200000; ++i) ASSERT_TRUE(set.InsertIfNew(static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ULL + 1));
  const double per_url = static_cast<double>(set.memory_bytes()) / 200000.0;
  EXPECT_LT(per_url, 24.0);
}

TEST(BloomFilterTest, NeverForgetsAndRarelyLies) {
  BloomFilter bloom(10000);
  for (uint64_t i = 1; i <= 10000; ++i) bloom.Add(UrlFingerprint(std::to_string(i)));
  for (uint64_t i = 1; i <= 10000; ++i) ASSERT_TRUE(bloom.MayContain(UrlFingerprint(std::to_string(i))));
  int false_positives = 0;
  for (uint64_t i = 10001; i <= 110000; ++i) false_positives += bloom.MayContain(UrlFingerprint(std::to_string(i)));
  EXPECT_LT(false_positives, 3000);  // ~1% expected at the design load; allow slack
}

TEST(FingerprintTableTest, InsertContainsAndGrow) {
  FingerprintTable table(16);
  for (uint64_t i = 1; i <= 1000; ++i) EXPECT_TRUE(table.Insert(i * 7919));
  for (uint64_t i = 1; i <= 1000; ++i) EXPECT_FALSE(table.Insert(i * 7919));
  EXPECT_TRUE(table.Contains(7919));
  EXPECT_FALSE(table.Contains(7918));
  EXPECT_EQ(table.size(), 1000u);
}

TEST(UrlFingerprintTest, StableAndNeverZero) {
  EXPECT_EQ(UrlFingerprint("http://a/"), UrlFingerprint("http://a/"));
  EXPECT_NE(UrlFingerprint("http://a/"), UrlFingerprint("http://a/b"));
  EXPECT_NE(UrlFingerprint(""), 0u);
}

}  // namespace
}  // namespace zcrawl::frontier
