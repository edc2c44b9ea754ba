// OriginPace: how often, and how many at once, the crawl asks one origin.
//
// The gap between its request starts is the largest of
//   - its delay: --delay-ms, or robots.txt's Crawl-delay when longer;
//   - the response-time rule: --delay-factor x its latest response time,
//     divided by its concurrency, at most --max-delay-ms (frontier_options.h
//     says why); a server that slows down is asked less often;
//   - a back-off's gap (origin_backoff.h).
// It has --per-host requests in flight at most, 1 while backing off.
//
// On a fast site the rule adds nothing: an answer in 1 ms with 32 per host
// asks for a 0 ms gap. Pure rules over HostSlot; used by the broker thread.
#pragma once

#include <algorithm>
#include <cstdint>

#include "frontier/frontier_options.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_backoff.h"

namespace zcrawl::frontier {

class OriginPace {
 public:
  explicit OriginPace(const PolitenessOptions& options) : options_(options) {}

  // A response came after `fetch_ms` (FetchReport::fetch_ms: from handing
  // the request to libcurl to the answer).
  static void ObserveResponse(HostSlot& slot, uint32_t fetch_ms) {
    slot.response_ms = static_cast<uint16_t>(std::min<uint32_t>(fetch_ms, UINT16_MAX));
  }
  // Requests the origin may have in flight.
  uint32_t Concurrency(const HostSlot& slot) const {
    return OriginBackoff::BackingOff(slot) ? 1 : options_.per_host;
  }
  // The gap to keep between the origin's request starts.
  int64_t GapMs(const HostSlot& slot) const {
    return std::max({slot.delay_ms, ResponseGapMs(slot), OriginBackoff::GapMs(slot)});
  }
  // The response-time rule's part of the gap.
  int64_t ResponseGapMs(const HostSlot& slot) const {
    if (slot.response_ms == 0 || options_.delay_factor <= 0) return 0;
    const double gap = options_.delay_factor * slot.response_ms / Concurrency(slot);
    return std::min(static_cast<int64_t>(gap), options_.max_delay_ms);
  }

 private:
  const PolitenessOptions& options_;
};

}  // namespace zcrawl::frontier
