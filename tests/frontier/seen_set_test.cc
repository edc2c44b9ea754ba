// SeenSet against an exact in-memory set: millions of random fingerprints,
// many repeated, across writes, memtable flushes and compactions (a small
// store cache forces them) and reopenings (where the filter is rebuilt in
// the background while checks go on). A false positive of the filter, a
// lost staged entry or a stale rebuild would admit a URL twice or drop one.
#include "frontier/seen/seen_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
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

struct LookedUp {
  std::vector<uint64_t> batch;
  std::vector<bool> stored;
  uint64_t as_of = 0;
};

// As CheckAgainstExact, but the way the frontier runs: each batch is first
// looked up in the store on another thread (a link thread), and that
// lookup runs while the previous batch is claimed and written here (the
// broker), so a URL can be admitted, staged, written and settled between a
// lookup that did not find it and the claim that decides on it.
Round CheckThroughLookUps(SeenSet& seen, UrlStore& store, std::unordered_set<uint64_t>& exact,
                          std::mt19937_64& random, uint64_t pool, int batches) {
  Round round;
  std::uniform_int_distribution<uint64_t> draw(1, pool);
  auto look_up = [&seen](std::vector<uint64_t> batch) {
    LookedUp looked;
    looked.batch = std::move(batch);
    seen.LookUpStored(Keys(looked.batch), &looked.stored, &looked.as_of);
    return looked;
  };
  auto next_batch = [&] {
    std::vector<uint64_t> batch(500);
    for (auto& f : batch) f = draw(random) * 0x9E3779B97F4A7C15ULL | 1;
    return batch;
  };
  std::future<LookedUp> ahead = std::async(std::launch::async, look_up, next_batch());
  for (int b = 0; b < batches; ++b) {
    const LookedUp looked = ahead.get();
    ahead = std::async(std::launch::async, look_up, next_batch());
    std::vector<uint64_t> candidates;
    for (size_t i = 0; i < looked.batch.size(); ++i) {
      if (looked.stored[i]) {
        EXPECT_TRUE(exact.count(looked.batch[i])) << "found stored, never admitted: " << looked.batch[i];
      } else {
        candidates.push_back(looked.batch[i]);
      }
    }
    std::vector<bool> is_new;
    seen.ClaimNew(Keys(candidates), &is_new, looked.as_of);
    std::unordered_set<uint64_t> in_batch;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const bool expected_new = !exact.count(candidates[i]) && in_batch.insert(candidates[i]).second;
      if (expected_new) exact.insert(candidates[i]);
      EXPECT_EQ(is_new[i], expected_new) << "batch " << b << " fingerprint " << candidates[i];
      if (is_new[i] != expected_new) {
        ahead.wait();
        return round;
      }
      round.admitted += is_new[i];
    }
    round.checked += looked.batch.size();
    // One batch settled per Write; now and then two or three (a Flush
    // after it), so answers are current, one batch behind, or older.
    if (b % 2 == 0) {
      EXPECT_TRUE(store.Write(b % 20 == 0).ok());
    }
    if (b % 14 == 0) {
      EXPECT_TRUE(store.Flush().ok());
    }
  }
  ahead.wait();
  EXPECT_TRUE(store.Write(true).ok());
  return round;
}

TEST(SeenSetTest, LinkThreadLookupsRacingTheClaimsAgreeWithAnExactSet) {
  const std::string dir = MakeTempDir("seen_set_lookups");
  std::unordered_set<uint64_t> exact;
  std::mt19937_64 random(20261203);
  SeenSetCounters total;
  for (int run = 0; run < 2; ++run) {
    UrlStoreOptions options;
    options.dir = dir;
    options.cache_bytes = 8 << 20;
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    if (run == 0) (*store)->SetMeta("created_at_ms", "1");
    KnownUrlCache cache(256 << 10);
    // Reopened, the filter is rebuilt meanwhile: the lookups ask the store
    // for everything until it is adopted, then only for its "maybe".
    SeenSet seen(**store, cache, /*max_filter_bytes=*/4 << 20, (*store)->resumed(), exact.size());
    const Round round = CheckThroughLookUps(seen, **store, exact, random, 400'000, 600);
    EXPECT_GT(round.admitted, 0u);
    const SeenSetCounters counters = seen.counters();
    total.link_found_stored += counters.link_found_stored;
    total.link_answers_used += counters.link_answers_used;
    total.link_answers_behind += counters.link_answers_behind;
    total.link_answers_stale += counters.link_answers_stale;
    if (::testing::Test::HasFailure()) return;
  }
  // Each way a lookup's answer is taken happened, or the test proves less
  // than it says: stored (dropped before the claim), "not stored" still
  // current, one settled batch behind, and overtaken by more batches.
  EXPECT_GT(total.link_found_stored, 10'000u);
  EXPECT_GT(total.link_answers_used, 10'000u);
  EXPECT_GT(total.link_answers_behind, 1'000u);
  EXPECT_GT(total.link_answers_stale, 1'000u);
}

// The step the race above hits only by chance, taken on purpose: a link
// thread finds a URL not stored; the broker admits it from another report
// and its batch settles; the first answer, one batch old, must not admit it
// again. Two batches old, the broker asks the store itself.
TEST(SeenSetTest, ANotStoredAnswerOvertakenBySettledBatchesAdmitsNothingTwice) {
  UrlStoreOptions options;
  options.dir = MakeTempDir("seen_set_behind");
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  (*store)->SetMeta("created_at_ms", "1");
  KnownUrlCache cache(1 << 20);
  SeenSet seen(**store, cache, /*max_filter_bytes=*/1 << 20, false, 0);
  const std::vector<UrlKey> first = Keys({0x1111111111111111ULL});
  const std::vector<UrlKey> second = Keys({0x2222222222222223ULL});
  const std::vector<UrlKey> other = Keys({0x3333333333333335ULL});

  std::vector<bool> stored;
  uint64_t first_as_of = 0;
  seen.LookUpStored(first, &stored, &first_as_of);
  EXPECT_FALSE(stored[0]);
  std::vector<bool> is_new;
  seen.ClaimNew(first, &is_new);  // admitted from another report
  ASSERT_TRUE(is_new[0]);
  ASSERT_TRUE((*store)->Flush().ok());
  ASSERT_EQ((*store)->settled_batches(), first_as_of + 1);  // the fault: one batch settled since
  seen.ClaimNew(first, &is_new, first_as_of);
  EXPECT_FALSE(is_new[0]) << "admitted twice on an answer one settled batch old";
  EXPECT_EQ(seen.counters().link_answers_behind, 1u);

  uint64_t second_as_of = 0;
  seen.LookUpStored(second, &stored, &second_as_of);
  EXPECT_FALSE(stored[0]);
  seen.ClaimNew(second, &is_new);
  ASSERT_TRUE(is_new[0]);
  ASSERT_TRUE((*store)->Flush().ok());
  seen.ClaimNew(other, &is_new);
  ASSERT_TRUE((*store)->Flush().ok());
  ASSERT_EQ((*store)->settled_batches(), second_as_of + 2);  // two batches since
  seen.ClaimNew(second, &is_new, second_as_of);
  EXPECT_FALSE(is_new[0]) << "admitted twice on an answer two settled batches old";
  EXPECT_EQ(seen.counters().link_answers_stale, 1u);
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

// Fingerprints 1..n spread over the 64-bit space, as real ones are.
std::vector<uint64_t> Spread(size_t n) {
  std::vector<uint64_t> fingerprints(n);
  for (size_t i = 0; i < n; ++i) fingerprints[i] = (i + 1) * 0x9E3779B97F4A7C15ULL;
  return fingerprints;
}

// The state an earlier run leaves in `dir`: `fingerprints` admitted and
// written, so a store opened there again is resumed.
void WriteEarlierRun(const std::string& dir, const std::vector<uint64_t>& fingerprints) {
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok());
  (*store)->SetMeta("created_at_ms", "1");
  KnownUrlCache cache(1 << 20);
  SeenSet seen(**store, cache, 1 << 20, false);
  std::vector<bool> is_new;
  seen.ClaimNew(Keys(fingerprints), &is_new);
  ASSERT_TRUE((*store)->Write(true).ok());
}

TEST(SeenSetTest, TheRebuiltFilterCoversEveryStoredAndEveryNewFingerprint) {
  const std::string dir = MakeTempDir("seen_set_rebuild");
  const std::vector<uint64_t> first = Spread(200000);
  ASSERT_NO_FATAL_FAILURE(WriteEarlierRun(dir, first));
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
  EXPECT_EQ(cache.max_bytes(), 1u << 20) << "the filter will grow: its share is not lent yet";
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
  // ...into one four times larger, which is final, so the cache takes the
  // share's last megabyte...
  EXPECT_GT(seen.filter_bytes(), (4u << 20) - 64);
  EXPECT_LE(seen.filter_bytes(), (4u << 20) + 64);
  // (The filter's size is rounded to its blocks: a few bytes either way.)
  EXPECT_NEAR(static_cast<double>(cache.max_bytes()), 2u << 20, 4096);
  for (int i = 0; i < 6000; ++i) claim(500);
  // ...and no further: a successor would have to fit beside it in 5 MB.
  // A growth starts in the claim that crosses the threshold, so one would
  // be running still, or adopted by a later claim and counted.
  EXPECT_FALSE(seen.rebuilding());
  EXPECT_EQ(seen.counters().filter_rebuilds, 1u);
  EXPECT_GT(seen.size(), seen.filter_capacity() / 2) << "the claims never reached the growth threshold";
  EXPECT_LE(seen.filter_bytes(), (4u << 20) + 64);
  EXPECT_EQ(seen.size(), next - 1);
}

TEST(SeenSetTest, TheFilterGrowsFourfoldWhileBothFitAndNeverByLessThanTwofold) {
  constexpr uint64_t kMb = 1 << 20;
  EXPECT_EQ(SeenSet::NextFilterBytes(1 * kMb, 512 * kMb), 4 * kMb);
  // The default budget's share (230 MB): 64 MB and a 166 MB successor.
  EXPECT_EQ(SeenSet::NextFilterBytes(64 * kMb, 230 * kMb), 166 * kMb);
  EXPECT_EQ(SeenSet::NextFilterBytes(166 * kMb, 230 * kMb), 0u);
  // --memory-mb 1200 (540 MB): 256 MB stays; 284 MB would be a whole
  // store's scan for 11% more room.
  EXPECT_EQ(SeenSet::NextFilterBytes(256 * kMb, 540 * kMb), 0u);
  EXPECT_EQ(SeenSet::NextFilterBytes(4 * kMb, 5 * kMb), 0u);
  EXPECT_EQ(SeenSet::NextFilterBytes(kMb, kMb), 0u);
}

TEST(SeenSetTest, AResumedCrawlAtItsBudgetGetsTheFinalFilterAndLendsTheRestToTheCache) {
  const std::string dir = MakeTempDir("seen_set_resume_lend");
  ASSERT_NO_FATAL_FAILURE(WriteEarlierRun(dir, Spread(50000)));
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE((*store)->resumed());
  KnownUrlCache cache(1 << 20);
  // A 7 MB share: the steps are 1 and 4 MB (the next, 16, would not fit
  // beside 4). The hint says far more URLs than 4 MB holds four times, so
  // the rebuild is the final 4 MB filter, and the cache gets the other 3.
  SeenSet seen(**store, cache, 7 << 20, /*resumed=*/true, /*stored_hint=*/50'000'000);
  EXPECT_EQ(cache.max_bytes(), 1u << 20) << "nothing lent before the rebuilt filter is adopted";
  std::vector<bool> is_new;
  for (int i = 0; i < 500 && !seen.filter_complete(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    seen.ClaimNew({}, &is_new);
  }
  ASSERT_TRUE(seen.filter_complete());
  EXPECT_GT(seen.filter_bytes(), (4u << 20) - 64);
  EXPECT_LE(seen.filter_bytes(), (4u << 20) + 64);
  EXPECT_NEAR(static_cast<double>(cache.max_bytes()), 4u << 20, 4096);
  EXPECT_EQ(seen.size(), 50000u) << "the rebuild counted the store, not the hint";
}

}  // namespace
}  // namespace zcrawl::frontier
