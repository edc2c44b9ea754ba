// MemoryBalancer: keeps the frontier's RAM within --memory-mb where the
// parts' own bounds (memory_budget.h) do not add up. Once a second it
// withholds from the known-URL cache what the per-origin state takes past
// its share, and from the store's block cache what the allocator's heap
// keeps past the whole budget (HeapGovernor); it says once, at warn, if
// even that cannot hold it (the user must raise --memory-mb).
//
// Owns the HeapGovernor, the last heap reading (published as metrics) and
// the said-once flags; the KnownUrlCache and the store's cache are the
// Broker's, reached through the constructor's references and hooks. Not
// thread-safe: the broker thread calls it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "common/clock.h"
#include "common/heap_stats.h"
#include "frontier/broker/heap_governor.h"
#include "frontier/seen/known_url_cache.h"
#include "frontier/broker/memory_budget.h"

namespace zcrawl::frontier {

class MemoryBalancer {
 public:
  // Where the heap's figures come from (ReadHeapStats; nullopt when the
  // allocator has none).
  using HeapReader = std::function<std::optional<HeapStats>()>;
  // Sets the store's block cache capacity; returns what was set (the store
  // keeps a floor of its own, UrlStore::SetCacheCapacity).
  using CacheSizer = std::function<uint64_t(uint64_t bytes)>;

  // `memory_mb` is --memory-mb as given, for the warnings.
  MemoryBalancer(const MemoryBudget& budget, uint64_t memory_mb, KnownUrlCache& known, CacheSizer store_cache,
                 const Clock& clock);
  MemoryBalancer(const MemoryBalancer&) = delete;
  MemoryBalancer& operator=(const MemoryBalancer&) = delete;

  // Once a second at most (sooner calls do nothing). `origin_state_bytes`:
  // what the per-origin state holds now; `active_origins`: how many
  // origins that is (for the warning).
  void Balance(uint64_t origin_state_bytes, uint64_t active_origins);

  void set_heap_reader(HeapReader reader) { heap_reader_ = std::move(reader); }
  // The last reading of the heap (none before the first Balance, or
  // without jemalloc).
  const std::optional<HeapStats>& last_heap() const { return last_heap_; }
  uint64_t heap_withheld() const { return heap_governor_.withheld(); }
  // Whether the warnings were given (each at most once).
  bool said_origins_over_budget() const { return said_origins_over_budget_; }
  bool said_heap_over_budget() const { return said_heap_over_budget_; }

 private:
  const MemoryBudget& budget_;
  const uint64_t memory_mb_;
  KnownUrlCache& known_;
  const CacheSizer store_cache_;
  const Clock& clock_;
  HeapGovernor heap_governor_;
  HeapReader heap_reader_ = ReadHeapStats;
  std::optional<HeapStats> last_heap_;
  int64_t last_balance_ms_ = 0;
  bool said_origins_over_budget_ = false;
  bool said_heap_over_budget_ = false;
};

}  // namespace zcrawl::frontier
