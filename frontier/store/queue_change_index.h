// Where one origin's queue changes are in a batch of staged changes.
//
// A queue refill (UrlStore::LoadQueue) must see the changes not yet in the
// database: the batch being staged and the one in flight. Scanning them
// whole per refill cost O(batch) key compares each time; at 1.9 x 10^8
// known URLs, with the queue heads full and a refill every 4 leases, that
// scan was ~40% of the refills and ~18% of the broker thread
// (bench/RESULTS.md run AI; gone from run AJ's profile). This index links
// each origin's queue changes in staging order, so a refill visits only
// its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "frontier/store/store_writer.h"

namespace zcrawl::frontier {

class QueueChangeIndex {
 public:
  // Indexes the queue-family changes of `changes` not indexed yet: the
  // batch may have grown since (appends only; after anything else, Clear).
  void CatchUp(const std::vector<StagedChange>& changes);
  // Calls visit(position) for each of `origin_id`'s queue changes, in
  // staging order.
  template <typename Visit>
  void ForEach(uint32_t origin_id, Visit&& visit) const {
    auto it = chains_.find(origin_id);
    if (it == chains_.end()) return;
    for (uint32_t at = it->second.first; at != kEnd; at = next_[at]) visit(static_cast<size_t>(at));
  }
  // Forgets everything (a new or reordered batch).
  void Clear();

 private:
  static constexpr uint32_t kEnd = UINT32_MAX;
  struct Chain {
    uint32_t first = kEnd;
    uint32_t last = kEnd;
  };
  std::unordered_map<uint32_t, Chain> chains_;  // origin id -> its changes
  std::vector<uint32_t> next_;                  // per position: the origin's next change
  size_t indexed_ = 0;                          // positions indexed so far
};

}  // namespace zcrawl::frontier
