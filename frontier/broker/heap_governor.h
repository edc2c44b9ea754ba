// HeapGovernor: holds the frontier's heap at --memory-mb when the parts of
// the budget (memory_budget.h) add up to less than what the allocator has
// handed out. Each part is counted the way it counts itself, and RocksDB's
// block cache charges a block less than its allocation costs: at 1200 MB,
// jemalloc's bytes handed out ran ~240 MB past the sum of the parts from
// 4 x 10^7 URLs on, and RSS past the budget from 6 x 10^7 (jeprof: the
// blocks read into the cache and the memtables' arenas, bench/RESULTS.md
// run AE). The governor watches the allocator's own figure of the RAM it
// keeps (common/heap_stats.h: stats.resident, which RSS is plus code and
// stacks; the bytes handed out left RSS up to 83 MB past the budget at
// 1200 MB, runs AM and AP) and withholds what is past the budget from the
// part that gives RAM back at once and cheaply: the store's block cache
// (MemoryBalancer applies it; the known-URL cache is not asked, as
// below its working set every known link costs a disk lookup).
//
// A controller, not a formula: what is withheld rises by what the heap is
// over, and is given back, half of it a step, once the heap is more than a
// slack below the budget, so it settles without swinging.
//
// Not thread-safe (the broker thread calls it once a second).
#pragma once

#include <cstdint>

namespace zcrawl::frontier {

class HeapGovernor {
 public:
  // `budget_bytes`: what the heap may hold; `max_withheld_bytes`: the most
  // the elastic parts can give up.
  HeapGovernor(uint64_t budget_bytes, uint64_t max_withheld_bytes);

  // The allocator's resident bytes now; returns the bytes to withhold
  // from the elastic parts (a total, not a step).
  uint64_t Update(uint64_t resident_bytes);

  uint64_t withheld() const { return withheld_; }
  // Below the budget by more than this, withheld bytes are given back.
  uint64_t slack() const { return budget_ / 32; }

 private:
  const uint64_t budget_;
  const uint64_t max_withheld_;
  uint64_t withheld_ = 0;
};

}  // namespace zcrawl::frontier
