#include "frontier/broker/memory_balancer.h"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

MemoryBalancer::MemoryBalancer(const MemoryBudget& budget, uint64_t memory_mb, KnownUrlCache& known,
                               CacheSizer store_cache, const Clock& clock)
    : budget_(budget),
      memory_mb_(memory_mb),
      known_(known),
      store_cache_(std::move(store_cache)),
      clock_(clock),
      // At most the store's share (its cache stops at its own floor).
      heap_governor_(budget.total_bytes, budget.store_bytes) {}

void MemoryBalancer::Balance(uint64_t origin_state_bytes, uint64_t active_origins) {
  const int64_t now = clock_.NowMs();
  if (now - last_balance_ms_ < 1000) return;
  last_balance_ms_ = now;
  const uint64_t used = origin_state_bytes;
  const uint64_t over = used > budget_.origin_bytes ? used - budget_.origin_bytes : 0;
  known_.Withhold(over);
  last_heap_ = heap_reader_();
  const auto& heap = last_heap_;
  bool store_at_floor = false;
  if (heap) {
    // Only the store's block cache gives: a block it drops is one read
    // from the page cache or disk. The known-URL cache does not: below
    // its working set every known link becomes a disk lookup, and at
    // --memory-mb 400 taking from it halved the new URLs a second
    // (bench/RESULTS.md run AE).
    // What the allocator keeps in RAM, not what it has handed out: RSS is
    // that plus code and stacks. Governed on the bytes handed out, the heap
    // sat at the budget and RSS up to 83 MB past it at --memory-mb 1200
    // (size-class waste, metadata, a second of freed pages); on these, peak
    // RSS was 1,120 MB (bench/RESULTS.md runs AM, AP).
    const uint64_t withheld = heap_governor_.Update(heap->resident_bytes);
    const uint64_t want = budget_.store_bytes - std::min(withheld, budget_.store_bytes);
    store_at_floor = store_cache_(want) > want;
  }
  // The origins in RAM are bounded to fit the origin and known-cache
  // shares (MemoryBudget::active_origins, ~400 B each); past both, their
  // rules or names are larger than that allows for.
  const bool at_floor = known_.max_bytes() == KnownUrlCache::kMinBytes;
  if (used > budget_.origin_bytes + budget_.known_cache_bytes && at_floor && !said_origins_over_budget_) {
    said_origins_over_budget_ = true;
    spdlog::warn("the state of the {} origins in RAM takes {} MB, past what --memory-mb {} gives it "
                 "(large robots.txt rules?): the frontier's RAM grows past its budget; raise "
                 "--memory-mb", active_origins, used >> 20, memory_mb_);
  }
  if (heap && heap->resident_bytes > budget_.total_bytes + heap_governor_.slack() && store_at_floor &&
      !said_heap_over_budget_) {
    said_heap_over_budget_ = true;
    spdlog::warn("the frontier's heap holds {} MB with the store's cache at its floor, past "
                 "--memory-mb {}: raise --memory-mb", heap->resident_bytes >> 20, memory_mb_);
  }
}

}  // namespace zcrawl::frontier
