// MemoryBalancer with a fake clock, a fake heap and a fake store cache:
// what it withholds from which part, how often it looks, and when it gives
// up and says so.
#include "frontier/broker/memory_balancer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace zcrawl::frontier {
namespace {

class MemoryBalancerTest : public ::testing::Test {
 protected:
  // 64 MB: origins 3.2 MB, known-URL cache 3.2 MB, store 19.2 MB.
  MemoryBalancerTest()
      : budget_(MemoryBudget::ForMb(64)),
        known_(budget_.known_cache_bytes),
        balancer_(budget_, 64, known_, [this](uint64_t bytes) {
          asked_.push_back(bytes);
          return std::max(bytes, store_floor_);
        }, clock_) {
    balancer_.set_heap_reader([this] { return heap_; });
  }

  // One second on, then a turn.
  void Second(uint64_t origin_bytes) {
    clock_.Advance(1000);
    balancer_.Balance(origin_bytes, 100);
  }

  HeapStats Heap(uint64_t resident_bytes) { return HeapStats{resident_bytes, resident_bytes}; }

  FakeClock clock_;
  const MemoryBudget budget_;
  KnownUrlCache known_;
  std::optional<HeapStats> heap_;
  uint64_t store_floor_ = 0;
  std::vector<uint64_t> asked_;  // capacities the store's cache was given
  MemoryBalancer balancer_;
};

TEST_F(MemoryBalancerTest, OriginStatePastItsShareIsTakenFromTheKnownUrlCacheOnly) {
  Second(budget_.origin_bytes + (1 << 20));
  EXPECT_EQ(known_.max_bytes(), budget_.known_cache_bytes - (1 << 20));
  EXPECT_TRUE(asked_.empty()) << "no heap figures: the store's cache is left alone";
  Second(budget_.origin_bytes / 2);
  EXPECT_EQ(known_.max_bytes(), budget_.known_cache_bytes) << "back within its share: all of it back";
  EXPECT_FALSE(balancer_.said_origins_over_budget());
}

TEST_F(MemoryBalancerTest, AHeapPastTheBudgetIsTakenFromTheStoresCache) {
  heap_ = Heap(budget_.total_bytes - (8 << 20));
  Second(0);
  ASSERT_EQ(asked_.size(), 1u);
  EXPECT_EQ(asked_.back(), budget_.store_bytes) << "within the budget: the whole share";
  heap_ = Heap(budget_.total_bytes + (3 << 20));
  Second(0);
  EXPECT_EQ(asked_.back(), budget_.store_bytes - (3 << 20));
  EXPECT_EQ(balancer_.heap_withheld(), uint64_t{3} << 20);
  EXPECT_EQ(known_.max_bytes(), budget_.known_cache_bytes) << "the known-URL cache is not asked";
  ASSERT_TRUE(balancer_.last_heap());
  EXPECT_EQ(balancer_.last_heap()->resident_bytes, budget_.total_bytes + (3 << 20));
}

TEST_F(MemoryBalancerTest, LooksAtMostOnceASecond) {
  heap_ = Heap(budget_.total_bytes);
  Second(0);
  clock_.Advance(999);
  balancer_.Balance(budget_.origin_bytes * 2, 100);
  EXPECT_EQ(asked_.size(), 1u);
  EXPECT_EQ(known_.max_bytes(), budget_.known_cache_bytes);
  clock_.Advance(1);
  balancer_.Balance(budget_.origin_bytes * 2, 100);
  EXPECT_EQ(asked_.size(), 2u);
  EXPECT_LT(known_.max_bytes(), budget_.known_cache_bytes);
}

TEST_F(MemoryBalancerTest, SaysOnceWhenEvenTheFloorsCannotHoldIt) {
  // Origins past both their share and the whole known-URL cache's.
  Second(budget_.origin_bytes + budget_.known_cache_bytes - (64 << 10));
  EXPECT_FALSE(balancer_.said_origins_over_budget()) << "at its floor, but not past both shares";
  Second(budget_.origin_bytes + budget_.known_cache_bytes + (1 << 20));
  EXPECT_EQ(known_.max_bytes(), KnownUrlCache::kMinBytes);
  EXPECT_TRUE(balancer_.said_origins_over_budget());

  // The heap far past the budget, and the store's cache at its floor.
  store_floor_ = 8 << 20;
  heap_ = Heap(budget_.total_bytes * 2);
  Second(0);
  EXPECT_TRUE(balancer_.said_heap_over_budget());
}

TEST_F(MemoryBalancerTest, AHeapPastTheBudgetWithRoomLeftInTheStoresCacheIsNotWarnedAbout) {
  heap_ = Heap(budget_.total_bytes + (2 << 20));
  Second(0);
  EXPECT_FALSE(balancer_.said_heap_over_budget()) << "the store's cache could still give";
}

}  // namespace
}  // namespace zcrawl::frontier
