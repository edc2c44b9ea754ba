#include "frontier/seen/known_url_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(KnownUrlCacheTest, ALookupOfManyAnswersEachAsContainsDoes) {
  KnownUrlCache cache(1 << 20);  // ~55,000 entries per generation
  const uint64_t older = Spread(1);
  cache.Insert({older});
  uint64_t next = 2;
  const uint64_t rotations = cache.rotations();
  while (cache.rotations() == rotations) cache.Insert({Spread(next++)});
  const uint64_t current = Spread(next - 1);
  const uint64_t unknown = Spread(next + 1000);
  std::vector<KnownUrlCache::Found> found;
  cache.Lookup({unknown, older, current, older}, &found);
  EXPECT_EQ(found, (std::vector<KnownUrlCache::Found>{KnownUrlCache::kUnknown, KnownUrlCache::kKnownInOlder,
                                                      KnownUrlCache::kKnown, KnownUrlCache::kKnownInOlder}));
  for (uint64_t fingerprint : {unknown, older, current}) {
    bool in_older = false;
    const bool known = cache.Contains(fingerprint, &in_older);
    cache.Lookup({fingerprint}, &found);
    EXPECT_EQ(found[0], !known ? KnownUrlCache::kUnknown
                               : in_older ? KnownUrlCache::kKnownInOlder : KnownUrlCache::kKnown);
  }
  cache.Lookup({}, &found);
  EXPECT_TRUE(found.empty());
}

TEST(KnownUrlCacheTest, StaysWithinItsBudgetByDroppingTheOlderGeneration) {
  constexpr uint64_t kBudget = 1 << 20;  // ~55,000 entries per generation
  KnownUrlCache cache(kBudget);
  for (uint64_t i = 1; i <= 500000; ++i) {
    cache.Insert({Spread(i)});
    ASSERT_LE(cache.memory_bytes(), kBudget) << "after " << i;
  }
  EXPECT_GE(cache.rotations(), 5u);
  EXPECT_TRUE(cache.Contains(Spread(500000)));  // the latest stay
  EXPECT_FALSE(cache.Contains(Spread(1)));      // the oldest went
}

TEST(KnownUrlCacheTest, EnlargedItKeepsMoreWithinItsNewBound) {
  constexpr uint64_t kBase = 1 << 20;  // ~55,000 entries per generation
  KnownUrlCache cache(kBase);
  EXPECT_EQ(cache.max_bytes(), kBase);
  uint64_t next = 1;
  while (cache.rotations() == 0) cache.Insert({Spread(next++)});
  const uint64_t first_generation = next - 2;  // the insert that rotated began the second
  // A generation is made at the size it will hold: ~9.4 bytes an entry,
  // two generations in the bound.
  EXPECT_GT(first_generation, kBase / 2 / 10);
  cache.Enlarge(3 * kBase);  // four times the room
  EXPECT_EQ(cache.max_bytes(), 4 * kBase);
  // The generation being filled was made for the old bound and rotates
  // at its size; the next one is made for the new bound.
  uint64_t rotations = cache.rotations();
  while (cache.rotations() == rotations) {
    cache.Insert({Spread(next++)});
    ASSERT_LE(cache.memory_bytes(), 4 * kBase) << "after " << next;
  }
  const uint64_t made_after = next - 1;
  rotations = cache.rotations();
  while (cache.rotations() == rotations) {
    cache.Insert({Spread(next++)});
    ASSERT_LE(cache.memory_bytes(), 4 * kBase) << "after " << next;
  }
  // The generation made after the enlargement held about four times as
  // many as the first (the bound is per generation, so not exactly).
  const uint64_t second_generation = next - 1 - made_after;
  EXPECT_GT(second_generation, 3 * first_generation);
  EXPECT_LT(second_generation, 5 * first_generation);
  // Not cumulative: the latest call sets the bound.
  cache.Enlarge(0);
  EXPECT_EQ(cache.max_bytes(), kBase);
}

TEST(KnownUrlCacheTest, WithheldItShrinksWithinTwoRotationsAndKeepsAFloor) {
  constexpr uint64_t kBase = 4 << 20;
  KnownUrlCache cache(kBase);
  cache.Enlarge(4 << 20);
  uint64_t next = 1, full = 0;
  while (cache.rotations() < 3) {
    cache.Insert({Spread(next++)});
    full = std::max(full, cache.memory_bytes());
  }
  EXPECT_GT(full, 4u << 20) << "both generations held the enlarged bound's worth";
  // The per-origin state takes 6 MB of its 8: the bound is what is left,
  // and within two rotations the memory follows.
  cache.Withhold(6 << 20);
  EXPECT_EQ(cache.max_bytes(), 2u << 20);
  const uint64_t rotations = cache.rotations();
  while (cache.rotations() < rotations + 2) cache.Insert({Spread(next++)});
  for (int i = 0; i < 1000; ++i) cache.Insert({Spread(next++)});
  EXPECT_LE(cache.memory_bytes(), 2u << 20);
  EXPECT_TRUE(cache.Contains(Spread(next - 1)));
  // Withholding more than it has leaves the floor, not nothing; and the
  // latest call holds.
  cache.Withhold(100 << 20);
  EXPECT_EQ(cache.max_bytes(), KnownUrlCache::kMinBytes);
  cache.Withhold(0);
  EXPECT_EQ(cache.max_bytes(), 8u << 20);
}

TEST(KnownUrlCacheTest, AnOlderHitInsertedAgainOutlivesRotations) {
  KnownUrlCache cache(1 << 20);  // ~55,000 entries per generation
  const uint64_t popular = Spread(1);
  const uint64_t forgotten = Spread(2);
  cache.Insert({popular, forgotten});
  uint64_t next = 3;
  const uint64_t rotations_before = cache.rotations();
  for (int round = 0; round < 4; ++round) {
    const uint64_t rotations = cache.rotations();
    while (cache.rotations() == rotations) cache.Insert({Spread(next++)});
    // The caller's part (a link thread reports it, the broker inserts):
    bool in_older = false;
    ASSERT_TRUE(cache.Contains(popular, &in_older)) << "round " << round;
    EXPECT_TRUE(in_older) << "just rotated: only the older generation has it";
    cache.Insert({popular});
    ASSERT_TRUE(cache.Contains(popular, &in_older));
    EXPECT_FALSE(in_older) << "inserted again: in the current generation";
  }
  EXPECT_EQ(cache.rotations() - rotations_before, 4u);
  EXPECT_FALSE(cache.Contains(forgotten)) << "not refreshed: gone after two rotations";
}

TEST(KnownUrlCacheTest, ReadersAndAWriterAgreeWithoutLosingInserts) {
  KnownUrlCache cache(64 << 20);
  std::atomic<bool> stop{false};
  std::atomic<int> started{0};
  std::atomic<uint64_t> lookups{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t n = 0;
      uint64_t hits = 0;
      do {
        hits += cache.Contains(Spread(hits % 100000 + 1));
        if (++n == 1) ++started;  // one lookup done before the writer starts
      } while (!stop);
      lookups += n;
    });
  }
  // The writer starts once every reader is reading (on a loaded machine a
  // reader could otherwise start after the last insert and look up nothing).
  while (started.load() < 3) std::this_thread::yield();
  for (uint64_t i = 1; i <= 100000; i += 100) {
    std::vector<uint64_t> batch;
    for (uint64_t j = i; j < i + 100; ++j) batch.push_back(Spread(j));
    cache.Insert(batch);
  }
  stop = true;
  for (auto& t : readers) t.join();
  for (uint64_t i = 1; i <= 100000; ++i) ASSERT_TRUE(cache.Contains(Spread(i))) << i;
  EXPECT_GE(lookups.load(), 3u);
}

}  // namespace
}  // namespace zcrawl::frontier
