// SeenSet against an exact in-memory set: millions of random fingerprints,
// many repeated, across writes, memtable flushes and compactions (a small
// store cache forces them) and reopenings (where the filter is rebuilt in
// the background while checks go on). A false positive of the filter, a
// lost staged entry or a stale rebuild would admit a URL twice or drop one.
#include "frontier/seen_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <unordered_set>

#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

using zcrawl::testing::MakeTempDir;

// Store keys for test fingerprints: a site derived from the fingerprint
// (the same one every time, as UrlSite of a URL is), over a few sites.
std::vector<UrlKey> Keys(const std::vector<uint64_t>& fingerprints) {
  std::vector<UrlKey> keys;
  for (uint64_t f : fingerprints) keys.push_back(UrlKey{f, static_cast<uint32_t>(f % 13)});
  return keys;
}

struct Round {
  uint64_t checked = 0;
  uint64_t admitted = 0;
};

// Checks `batches` batches of random fingerprints drawn from a pool of
// `pool` (so most repeat), comparing every answer with `exact`.
Round CheckAgainstExact(SeenSet& seen, UrlStore& store, std::unordered_set<uint64_t>& exact,
                        std::mt19937_64& random, uint64_t pool, int batches) {
  Round round;
  std::uniform_int_distribution<uint64_t> draw(1, pool);
  for (int b = 0; b < batches; ++b) {
    std::vector<uint64_t> batch(500);
    // Spread over the 64-bit space as real fingerprints are.
    for (auto& f : batch) f = draw(random) * 0x9E3779B97F4A7C15ULL | 1;
    std::vector<bool> is_new;
    seen.ClaimNew(Keys(batch), &is_new);
    std::unordered_set<uint64_t> in_batch;
    for (size_t i = 0; i < batch.size(); ++i) {
      const bool expected_new = !exact.count(batch[i]) && in_batch.insert(batch[i]).second;
      if (expected_new) exact.insert(batch[i]);
      EXPECT_EQ(is_new[i], expected_new) << "batch " << b << " fingerprint " << batch[i];
      if (is_new[i] != expected_new) return round;
      round.admitted += is_new[i];
    }
    round.checked += batch.size();
    // Write at varying cadences, as the broker does once per turn.
    if (b % 3 == 0) {
      EXPECT_TRUE(store.Write(b % 30 == 0).ok());
    }
  }
  EXPECT_TRUE(store.Write(true).ok());
  return round;
}

TEST(SeenSetTest, AgreesWithAnExactSetAcrossFlushesCompactionsAndReopenings) {
  const std::string dir = MakeTempDir("seen_set_property");
  std::unordered_set<uint64_t> exact;
  std::mt19937_64 random(20261201);
  uint64_t checked = 0;
  uint64_t rebuilds = 0;
  for (int run = 0; run < 3; ++run) {
    UrlStoreOptions options;
    options.dir = dir;
    options.cache_bytes = 8 << 20;  // small memtables: many flushes and compactions
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    if (run == 0) (*store)->SetMeta("created_at_ms", "1");
    EXPECT_EQ((*store)->resumed(), run > 0);
    KnownUrlCache cache(256 << 10);  // small: most repeats miss it
    // The filter starts at 1 MB (~840,000 URLs) and may grow to 4 MB: it
    // grows by a background rebuild while checks go on, and saturates past
    // its design size before that, so many "maybe" answers go to the store.
    SeenSet seen(**store, cache, /*max_filter_bytes=*/4 << 20, (*store)->resumed(), exact.size());
    const Round round = CheckAgainstExact(seen, **store, exact, random, 800'000, 800);
    checked += round.checked;
    EXPECT_GT(round.admitted, 0u);
    if (run > 0) {
      EXPECT_GT(seen.counters().disk_lookups, 0u);
    }
    rebuilds += seen.counters().filter_rebuilds;
    if (::testing::Test::HasFailure()) return;
  }
  EXPECT_GE(checked, 1'200'000u);
  EXPECT_GE(rebuilds, 1u) << "the filter was never rebuilt: growth and resume untried";
  EXPECT_GT(exact.size(), 600'000u);
}

TEST(SeenSetTest, TheRebuiltFilterCoversEveryStoredAndEveryNewFingerprint) {
  const std::string dir = MakeTempDir("seen_set_rebuild");
  std::vector<uint64_t> first(200000);
  for (size_t i = 0; i < first.size(); ++i) first[i] = (i + 1) * 0x9E3779B97F4A7C15ULL;
  {
    UrlStoreOptions options;
    options.dir = dir;
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok());
    (*store)->SetMeta("created_at_ms", "1");
    KnownUrlCache cache(1 << 20);
    SeenSet seen(**store, cache, 1 << 20, false);
    std::vector<bool> is_new;
    seen.ClaimNew(Keys(first), &is_new);
    ASSERT_TRUE((*store)->Write(true).ok());
  }
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok());
  KnownUrlCache cache(64 << 10);
  SeenSet seen(**store, cache, 1 << 20, /*resumed=*/true);
  EXPECT_FALSE(seen.filter_complete());
  // Until the rebuild is adopted every check asks the store: still exact.
  std::vector<bool> is_new;
  std::vector<uint64_t> mixed = {first[0], 17, first[199999], 19};
  seen.ClaimNew(Keys(mixed), &is_new);
  EXPECT_EQ(is_new, (std::vector<bool>{false, true, false, true}));
  for (int i = 0; i < 500 && !seen.filter_complete(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen.ClaimNew({}, &is_new);
  }
  ASSERT_TRUE(seen.filter_complete());
  EXPECT_EQ(seen.size(), 200000u + 2);
  // Adopted: the filter knows the stored ones and those claimed during the
  // rebuild, so none of them is admitted again...
  seen.ClaimNew(Keys({first[12345], 17, 19}), &is_new);
  EXPECT_EQ(is_new, (std::vector<bool>{false, false, false}));
  // ...and new ones mostly skip the store.
  const uint64_t lookups = seen.counters().disk_lookups;
  std::vector<uint64_t> fresh;
  for (uint64_t i = 1; i <= 10000; ++i) fresh.push_back(i * 0xD1B54A32D192ED03ULL + 5);
  seen.ClaimNew(Keys(fresh), &is_new);
  EXPECT_EQ(std::count(is_new.begin(), is_new.end(), true), 10000);
  EXPECT_LT(seen.counters().disk_lookups - lookups, 1000u);
}

TEST(SeenSetTest, TheFilterStartsSmallAndGrowsWithinItsBudget) {
  UrlStoreOptions options;
  options.dir = MakeTempDir("seen_set_growth");
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok());
  KnownUrlCache cache(1 << 20);
  // 5 MB: the 1 MB filter and its 4 MB successor fit together, no more.
  SeenSet seen(**store, cache, /*max_filter_bytes=*/5 << 20, false);
  EXPECT_LE(seen.filter_bytes(), SeenSet::kInitialFilterBytes + 64);
  std::vector<bool> is_new;
  uint64_t next = 1;
  auto claim = [&](int n) {
    std::vector<uint64_t> batch;
    for (int i = 0; i < n; ++i) batch.push_back(next++ * 0x9E3779B97F4A7C15ULL);
    seen.ClaimNew(Keys(batch), &is_new);
    ASSERT_EQ(std::count(is_new.begin(), is_new.end(), true), n);
    ASSERT_TRUE((*store)->Write(false).ok());
  };
  // Past half of the 1 MB filter's ~840,000 URLs a rebuild starts...
  for (int i = 0; i < 1800; ++i) claim(500);
  for (int i = 0; i < 1000 && seen.counters().filter_rebuilds == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    claim(10);
  }
  ASSERT_EQ(seen.counters().filter_rebuilds, 1u);
  // ...into one four times larger...
  EXPECT_GT(seen.filter_bytes(), (4u << 20) - 64);
  EXPECT_LE(seen.filter_bytes(), (4u << 20) + 64);
  for (int i = 0; i < 6000; ++i) claim(500);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  claim(1);
  // ...and no further: a successor would have to fit beside it in 5 MB.
  EXPECT_FALSE(seen.rebuilding());
  EXPECT_EQ(seen.counters().filter_rebuilds, 1u);
  EXPECT_LE(seen.filter_bytes(), (4u << 20) + 64);
  EXPECT_EQ(seen.size(), next - 1);
}

}  // namespace
}  // namespace zcrawl::frontier
