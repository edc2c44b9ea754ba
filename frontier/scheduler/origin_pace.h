// OriginPace: how often, and how many at once, the crawl asks one origin.
//
// The gap between its request starts is the largest of
//   - its delay: --delay-ms, or robots.txt's Crawl-delay when longer, or
//     an operator's override (frontier/control/pace_overrides.h) instead;
//   - the response-time rule: --delay-factor x its latest response time,
//     divided by its concurrency, at most --max-delay-ms (frontier_options.h
//     says why); a server that slows down is asked less often;
//   - a back-off's gap (origin_backoff.h).
// It has --per-host (or the override's) requests in flight at most; while backing off, 1
// at first and then one more per healthy answer (origin_backoff.h).
//
// On a fast site the rule adds nothing: an answer in 1 ms with 32 per host
// asks for a 0 ms gap. Pure rules over HostSlot; used by the broker thread.
#pragma once

#include <algorithm>
#include <cstdint>

#include "frontier/control/pace_overrides.h"
#include "frontier/frontier_options.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_backoff.h"

namespace zcrawl::frontier {

class OriginPace {
 public:
  explicit OriginPace(const PolitenessOptions& options) : options_(options) {}
  // The operator's overrides to apply (null: none); they must outlive this.
  void UseOverrides(const PaceOverrides* overrides) { overrides_ = overrides; }

  // A response came after `fetch_ms` (FetchReport::fetch_ms: from handing
  // the request to libcurl to the answer).
  static void ObserveResponse(HostSlot& slot, uint32_t fetch_ms) {
    slot.response_ms = static_cast<uint16_t>(std::min<uint32_t>(fetch_ms, UINT16_MAX));
  }
  // Requests the origin may have in flight.
  uint32_t Concurrency(const HostSlot& slot) const {
    const v1::PolitenessRule* o = OverrideOf(slot);
    return std::min(o != nullptr && o->has_per_host() ? o->per_host() : options_.per_host,
                    OriginBackoff::Concurrency(slot));
  }
  // The gap to keep between the origin's request starts.
  int64_t GapMs(const HostSlot& slot) const {
    const v1::PolitenessRule* o = OverrideOf(slot);
    const int64_t delay = o != nullptr && o->has_delay_ms() ? int64_t{o->delay_ms()} : slot.delay_ms;
    return std::max({delay, ResponseGapMs(slot), OriginBackoff::GapMs(slot)});
  }
  const v1::PolitenessRule* OverrideOf(const HostSlot& slot) const {
    return overrides_ == nullptr || overrides_->empty() ? nullptr : overrides_->For(slot.origin);
  }
  // The response-time rule's part of the gap.
  int64_t ResponseGapMs(const HostSlot& slot) const {
    if (slot.response_ms == 0 || options_.delay_factor <= 0) return 0;
    const double gap = options_.delay_factor * slot.response_ms / Concurrency(slot);
    return std::min(static_cast<int64_t>(gap), options_.max_delay_ms);
  }

 private:
  const PolitenessOptions& options_;
  const PaceOverrides* overrides_ = nullptr;
};

}  // namespace zcrawl::frontier
