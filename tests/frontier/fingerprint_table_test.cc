// FingerprintTable against an exact std::set over random fingerprints,
// across its growth; Clear empties it and keeps its capacity; ForEach visits
// exactly what is in it.
#include "frontier/store/fingerprint_table.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace zcrawl::frontier {
namespace {

TEST(FingerprintTableTest, AgreesWithAnExactSetAcrossGrowthAndClears) {
  std::mt19937_64 random(7);
  FingerprintTable table(16);
  for (int round = 0; round < 3; ++round) {
    std::set<uint64_t> exact;
    for (int i = 0; i < 20000; ++i) {
      // Small values too, so that repeats happen; never 0 (the empty mark).
      const uint64_t fingerprint = i % 3 == 0 ? 1 + random() % 5000 : (random() | 1);
      EXPECT_EQ(table.Insert(fingerprint), exact.insert(fingerprint).second);
    }
    EXPECT_EQ(table.size(), exact.size());
    for (int i = 0; i < 20000; ++i) {
      const uint64_t probe = 1 + random() % 6000;
      ASSERT_EQ(table.Contains(probe), exact.count(probe) == 1) << probe;
    }
    std::set<uint64_t> visited;
    table.ForEach([&](uint64_t fingerprint) { EXPECT_TRUE(visited.insert(fingerprint).second); });
    EXPECT_EQ(visited, exact);
    const uint64_t capacity = table.capacity();
    table.Clear();
    EXPECT_EQ(table.size(), 0u);
    EXPECT_EQ(table.capacity(), capacity);
    for (uint64_t fingerprint : exact) ASSERT_FALSE(table.Contains(fingerprint));
  }
}

}  // namespace
}  // namespace zcrawl::frontier
