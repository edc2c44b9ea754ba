// OriginStatusBoard: the per-origin rows of `./run status` and the summary
// (the busiest, the most queued, the failing), ranked over the origins in
// RAM and the rows kept of parked ones (ParkedOriginRows). A crawl may hold
// millions of origins: rows are built for the best `limit` only.
// Used by the broker thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/clock.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_pace.h"
#include "frontier/scheduler/parked_origin_rows.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

using OriginSlots = std::unordered_map<uint32_t, HostSlot>;

class OriginStatusBoard {
 public:
  OriginStatusBoard();

  // Rows show each origin's pace (gap, concurrency, back-off) once told
  // how to read it; the scheduler tells at its construction.
  void ShowPace(const OriginPace* pace, const Clock* clock) {
    pace_ = pace;
    clock_ = clock;
  }
  // The row of an origin in RAM.
  v1::HostQueue RowOf(const HostSlot& slot) const;
  // An origin parks with this row: kept if it ranks among the failing or
  // the busiest.
  void Parked(v1::HostQueue row);
  // An origin came back to RAM: its parked row leaves (its slot ranks now).
  void Loaded(std::string_view origin);

  // The `limit` origins with the most URLs waiting or in flight (or, with
  // `by_done`, the most completed).
  std::vector<v1::HostQueue> Top(const OriginSlots& slots, size_t limit, bool by_done) const;
  // Origins with failed URLs, those that fetched nothing first, then by
  // failures.
  std::vector<v1::HostQueue> Failing(const OriginSlots& slots, size_t limit) const;
  // Origins that pushed back (made the crawl slow down), the most push
  // backs first.
  std::vector<v1::HostQueue> Slowed(const OriginSlots& slots, size_t limit) const;

 private:
  // The status shows 10 and the summary 5; a few more stand in for rows
  // that leave when their origin is loaded again.
  static constexpr size_t kParkedRows = 32;
  static bool FailingBefore(const OriginCounts& a, const OriginCounts& b);
  static bool BusiestBefore(const OriginCounts& a, const OriginCounts& b);
  static bool MostQueuedBefore(const OriginCounts& a, const OriginCounts& b);
  static bool MorePushbacksBefore(const OriginCounts& a, const OriginCounts& b);
  // The best `limit` by `before` of `slots` (those `only` accepts) and
  // the `parked` rows.
  std::vector<v1::HostQueue> Best(const OriginSlots& slots, size_t limit, OriginOrder before,
                                  bool (*only)(const HostSlot&), const std::vector<v1::HostQueue>& parked) const;

  ParkedOriginRows parked_failing_;
  ParkedOriginRows parked_busiest_;
  ParkedOriginRows parked_slowed_;
  const OriginPace* pace_ = nullptr;
  const Clock* clock_ = nullptr;
};

}  // namespace zcrawl::frontier
