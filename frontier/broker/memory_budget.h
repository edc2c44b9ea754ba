// MemoryBudget: how the frontier's --memory-mb is shared between the parts
// whose size it bounds. One definition, so the split is documented once:
//
//   seen filter (Bloom, 1.25 B per URL at ~1% false positives)   45%
//   store (RocksDB block cache; memtables are charged to it)     30%
//   queue heads in RAM (packed records, UrlHead::bytes, ~25-90 B  15%
//   a URL; enqueues and refills both, CrawlScheduler's
//   max_head_bytes)
//   known-URL cache (exact, two generations)                       5%
//   per-origin state (CrawlScheduler::origin_bytes: the HostSlot,   5%
//   name and rules of each origin with something due; the per-domain
//   counters of AdmissionLimits)
//
// The filter gets the most because it is what keeps a seen check of a new
// URL off the disk. Its share holds the filter and, during a growth
// rebuild, its successor (seen_set.cc), so the largest filter is the share
// less its predecessor: at the default 512 MB, 230 MB of share and a 166 MB
// filter (after 1, 4, 16, 64 MB), 1.4 x 10^8 URLs at ~1% false positives;
// past that its rate rises gracefully (a false positive costs one batched
// disk lookup, never a URL). A step of less than 2x is not taken, and once
// the filter is at its final size the rest of its share is lent to the
// known-URL cache (SeenSet::MaybeLendUnusedShare): 64 MB more at 512 MB;
// at 1200 MB the filter stays at 256 MB (2.1 x 10^8 URLs at ~1%) and the
// cache gets 284 MB more.
//
// The per-origin state grows with the origins that have something due
// (~330 B each without robots rules; an origin with nothing due is parked
// in the store and costs nothing: origin_table.h): past its share it is
// withheld from the known-URL cache (MemoryBalancer), the one part
// that can give RAM back without losing anything (a known URL it drops
// costs a disk lookup). The origins with URLs queued that RAM holds at once
// are bounded (`active_origins`: the origin and known-cache shares over
// kActiveOriginBytes, ~310,000 at 1200 MB, ~130,000 at the default 512);
// the others wait their turn parked, 4 bytes each in RAM
// (origin_table.h). The leases in flight are outside it (bounded by the
// fetchers' credit).
//
// The shares bound what each part counts; what the allocator hands out is
// more (RocksDB charges a cached block less than it costs). HeapGovernor
// (heap_governor.h) holds the heap itself at the total, taking the
// difference from the store's block cache, down to its floor.
#pragma once

#include <algorithm>
#include <cstdint>

namespace zcrawl::frontier {

struct MemoryBudget {
  static constexpr uint64_t kMinMb = 16;

  uint64_t total_bytes = 0;  // --memory-mb, at least kMinMb
  uint64_t filter_bytes = 0;
  uint64_t store_bytes = 0;
  uint64_t known_cache_bytes = 0;
  uint64_t head_bytes = 0;
  uint64_t origin_bytes = 0;
  uint64_t active_origins = 0;

  // What an origin in RAM is taken to cost: its slot in the map (264), its
  // name and name index entry (~80), a share of robots rules.
  static constexpr uint64_t kActiveOriginBytes = 400;

  static MemoryBudget ForMb(uint64_t memory_mb) {
    const uint64_t total = std::max(memory_mb, kMinMb) << 20;
    MemoryBudget b;
    b.total_bytes = total;
    b.filter_bytes = total / 100 * 45;
    b.store_bytes = total / 100 * 30;
    b.head_bytes = total / 100 * 15;
    b.known_cache_bytes = total / 100 * 5;
    b.origin_bytes = total / 100 * 5;
    b.active_origins = std::max<uint64_t>((b.origin_bytes + b.known_cache_bytes) / kActiveOriginBytes, 1024);
    return b;
  }
};

}  // namespace zcrawl::frontier
