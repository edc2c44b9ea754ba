#include "frontier/known_url_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace zcrawl::frontier {
namespace {

// Fingerprints are MD5 bits, spread over 64 bits; the table's home slot
// relies on that.
uint64_t Spread(uint64_t i) { return i * 0x9E3779B97F4A7C15ULL | 1; }

TEST(KnownUrlCacheTest, RemembersWhatWasInserted) {
  KnownUrlCache cache(1 << 20);
  EXPECT_FALSE(cache.Contains(42));
  cache.Insert({42, 43});
  EXPECT_TRUE(cache.Contains(42));
  EXPECT_TRUE(cache.Contains(43));
  EXPECT_FALSE(cache.Contains(44));
  EXPECT_EQ(cache.size(), 2u);
}

TEST(KnownUrlCacheTest, StaysWithinItsBudgetByDroppingTheOlderGeneration) {
  constexpr uint64_t kBudget = 1 << 20;  // ~27,000 entries per generation
  KnownUrlCache cache(kBudget);
  for (uint64_t i = 1; i <= 500000; ++i) {
    cache.Insert({Spread(i)});
    ASSERT_LE(cache.memory_bytes(), kBudget) << "after " << i;
  }
  EXPECT_GE(cache.rotations(), 5u);
  EXPECT_TRUE(cache.Contains(Spread(500000)));  // the latest stay
  EXPECT_FALSE(cache.Contains(Spread(1)));      // the oldest went
}

TEST(KnownUrlCacheTest, ReadersAndAWriterAgreeWithoutLosingInserts) {
  KnownUrlCache cache(64 << 20);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> lookups{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t n = 0;
      while (!stop) n += cache.Contains(Spread(n % 100000 + 1));
      lookups += n;
    });
  }
  for (uint64_t i = 1; i <= 100000; i += 100) {
    std::vector<uint64_t> batch;
    for (uint64_t j = i; j < i + 100; ++j) batch.push_back(Spread(j));
    cache.Insert(batch);
  }
  stop = true;
  for (auto& t : readers) t.join();
  for (uint64_t i = 1; i <= 100000; ++i) ASSERT_TRUE(cache.Contains(Spread(i))) << i;
  EXPECT_GT(lookups.load(), 0u);
}

}  // namespace
}  // namespace zcrawl::frontier
