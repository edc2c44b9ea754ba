// MemoryBudget: how the frontier's --memory-mb is shared between the parts
// whose size it bounds. One definition, so the split is documented once:
//
//   seen filter (Bloom, 1.25 B per URL at ~1% false positives)   45%
//   store (RocksDB block cache; memtables are charged to it)     30%
//   known-URL cache (exact, two generations)                      10%
//   queue heads in RAM (packed records, UrlHead::bytes, ~25-90 B  15%
//   a URL; enqueues and refills both, CrawlScheduler's
//   max_head_bytes)
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
// cache gets 284 MB more. Not bounded by it: one HostSlot per known
// origin (272 B, ~380 B with its name in it and in the name index, plus its
// robots rules) and the leases in flight, small next to the URLs in a
// crawl of few hosts, not in a broad one (issue 17 notes it).
#pragma once

#include <algorithm>
#include <cstdint>

namespace zcrawl::frontier {

struct MemoryBudget {
  static constexpr uint64_t kMinMb = 16;

  uint64_t filter_bytes = 0;
  uint64_t store_bytes = 0;
  uint64_t known_cache_bytes = 0;
  uint64_t head_bytes = 0;

  static MemoryBudget ForMb(uint64_t memory_mb) {
    const uint64_t total = std::max(memory_mb, kMinMb) << 20;
    MemoryBudget b;
    b.filter_bytes = total / 100 * 45;
    b.store_bytes = total / 100 * 30;
    b.known_cache_bytes = total / 100 * 10;
    b.head_bytes = total / 100 * 15;
    return b;
  }
};

}  // namespace zcrawl::frontier
