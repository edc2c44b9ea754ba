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
// gradually: from 1 s to 50 ms in ~11 answers; once the gap is at its
// floor, each healthy answer allows one more request in flight, up to
// --per-host (a push back drops it to 1 again). The back-off ends, and the
// origin is back to its --delay-ms, once it has not pushed back for
// kBackoffForgetMs: a rate limit is a policy, not a mood, and a crawler
// that returns to full speed at once meets it again.
//
// The state is in the origin's OriginTrouble (host_slot.h), which a
// healthy origin does not have; this class holds the rules only. Used by
// the broker thread.
#pragma once

#include <algorithm>
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

// Whether an answer is a status a server gives for itself, not for a
// URL: 429 or 503.
bool IsServerStatePushBack(const v1::FetchReport& report);

class OriginBackoff {
 public:
  explicit OriginBackoff(const PolitenessOptions& options) : options_(options) {}

  // Applies one answer of the origin at `now_ms`, to a request leased at
  // `leased_ms`, while the origin's pace was `pace_ms` (OriginPace).
  // Returns true when it pushed the origin back (further).
  bool Observe(HostSlot& slot, const v1::FetchReport& report, int64_t now_ms, int64_t leased_ms,
               int64_t pace_ms) const;
  // The back-off's gap between request starts; 0 when not backing off.
  static int64_t GapMs(const HostSlot& slot) { return BackingOff(slot) ? slot.trouble->backoff_gap_ms : 0; }
  static bool BackingOff(const HostSlot& slot) { return slot.trouble && slot.trouble->backoff_since_ms != 0; }
  // The requests in flight a back-off allows (UINT32_MAX when none).
  static uint32_t Concurrency(const HostSlot& slot) {
    return BackingOff(slot) ? std::max<uint32_t>(slot.trouble->backoff_concurrency, 1) : UINT32_MAX;
  }

  // A 429 or 503 to a request sent while the origin already answered so
  // (OriginTrouble::limited_since_ms): the server's state, not the URL's,
  // so the URL keeps its retries. The first such answer, to a request sent
  // while the origin was healthy, uses one: a URL that alone gets 429/503
  // from an origin that answers the others is the URL's failure, and ends
  // after --retries like any.
  static bool HeldByServer(const HostSlot& slot, int64_t leased_ms) {
    return slot.trouble && slot.trouble->limited_since_ms != 0 && slot.trouble->limited_since_ms < leased_ms;
  }
  // The origin has answered only 429/503 for --rate-limited-max-ms: its
  // URLs fail `rate_limited`.
  bool LimitedTooLong(const HostSlot& slot, int64_t now_ms) const {
    return options_.rate_limited_max_ms > 0 && slot.trouble && slot.trouble->limited_since_ms != 0 &&
           now_ms - slot.trouble->limited_since_ms >= options_.rate_limited_max_ms;
  }

 private:
  const PolitenessOptions& options_;
};

}  // namespace zcrawl::frontier
