// OriginBackoff: how the crawl yields to an origin that pushes back.
//
// A 429 or 503, a run of other 5xx, and connections refused, reset or
// timed out say the server (not the URL) is struggling, so the whole origin
// slows down, not just the URL (issue 49; Scrapy, Browsertrix and
// StormCrawler users ask for this more than for anything else):
//   - a Retry-After holds every request to the origin until then (up to
//     kMaxRetryAfterMs);
//   - the gap between its request starts grows: max(--delay-ms,
//     kBackoffStartMs) at the first push back, doubled at each further one
//     up to --backoff-max-ms;
//   - its concurrency drops to 1.
// Each healthy answer (any other response, a 4xx included) to a request
// sent after the latest push back shortens the gap by a quarter (answers to
// requests already in flight then say nothing of the server since); once
// it is below max(--delay-ms, kBackoffEndMs) the origin is back to what the
// user configured (its --delay-ms and --per-host). So the pace comes back
// gradually: from a 1 s gap in ~11 healthy answers, from the 10-minute cap
// in ~33, never at once. Each push back starts again from at least 1 s.
// The URL that was answered 429 or 503 is retried like any retryable
// failure (--retries, after max(its back-off, Retry-After)).
//
// The state is in the origin's OriginTrouble (host_slot.h), which a
// healthy origin does not have; this class holds the rules only. Used by
// the broker thread.
#pragma once

#include <cstdint>

#include "frontier/frontier_options.h"
#include "frontier/scheduler/host_slot.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// The first gap of a back-off when --delay-ms is shorter: a struggling
// server is given at least a second between requests (Scrapy's
// AutoThrottle starts at 1 s too; our default --delay-ms is 250 ms).
inline constexpr int64_t kBackoffStartMs = 1000;
// A back-off ends when its gap is below this (and --delay-ms): 20 requests
// a second, one at a time, is a pace a recovered server takes again.
inline constexpr int64_t kBackoffEndMs = 50;
// Other 5xx answers in a row that count as a push back: one 500 is a broken
// page more often than a struggling server; three in a row are not.
inline constexpr uint32_t kServerErrorRun = 3;

// What one answer says of the server.
enum class ServerSignal : uint8_t {
  kHealthy,      // a response that is neither 429 nor 5xx
  kPushBack,     // 429, 503, or a refused, reset or timed-out connection
  kServerError,  // another 5xx: a push back when kServerErrorRun come in a row
  kNeutral,      // says nothing of the server (DNS, TLS, too large, ...)
};
ServerSignal SignalOf(const v1::FetchReport& report);

class OriginBackoff {
 public:
  explicit OriginBackoff(const PolitenessOptions& options) : options_(options) {}

  // Applies one answer of the origin at `now_ms`, to a request leased at
  // `leased_ms`. Returns true when it pushed the origin back (further).
  bool Observe(HostSlot& slot, const v1::FetchReport& report, int64_t now_ms, int64_t leased_ms) const;
  // The gap to keep between this origin's request starts.
  static int64_t GapMs(const HostSlot& slot) {
    return BackingOff(slot) && slot.trouble->backoff_gap_ms > slot.delay_ms ? int64_t{slot.trouble->backoff_gap_ms}
                                                                             : slot.delay_ms;
  }
  // Requests the origin may have in flight.
  uint32_t Concurrency(const HostSlot& slot) const {
    return BackingOff(slot) ? 1 : options_.per_host;
  }
  static bool BackingOff(const HostSlot& slot) { return slot.trouble && slot.trouble->backoff_since_ms != 0; }

 private:
  const PolitenessOptions& options_;
};

}  // namespace zcrawl::frontier
