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
//   - its concurrency drops to 1;
//   - the pace that was too fast is remembered: the gap will not fall
//     below twice it (the floor; at least kBackoffFloorMs).
// Answers to requests sent before the latest push back say nothing of the
// server since: they neither push it back further (the requests a crawl
// has in flight when a rate limit starts all come back 429) nor bring it
// back. Each healthy answer (any other response, a 4xx included) takes a
// quarter off the gap, down to the floor, so the pace comes back
// gradually: from 1 s to 50 ms in ~11 answers. The back-off ends, and the
// origin is back to its --delay-ms and --per-host, once it has not pushed
// back for kBackoffForgetMs: a rate limit is a policy, not a mood, and a
// crawler that returns to full speed at once meets it again.
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
// The least floor: 20 requests a second, one at a time, the pace of a rate
// limit's usual "20 r/s" (nginx's documentation example, and the issue's
// struggling site).
inline constexpr int64_t kBackoffFloorMs = 50;
// A back-off ends this long after the origin's latest push back: five
// times the minute most rate limits are counted over.
inline constexpr int64_t kBackoffForgetMs = 5 * 60 * 1000;
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
