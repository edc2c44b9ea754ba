#include "frontier/scheduler/origin_backoff.h"

#include <algorithm>
#include <climits>
#include <string_view>

#include "frontier/scheduler/fetch_outcome.h"

namespace zcrawl::frontier {

ServerSignal SignalOf(const v1::FetchReport& report) {
  if (report.status() == v1::FETCH_STATUS_OK) {
    const uint32_t http = report.http_status();
    if (http == 429 || http == 503) return ServerSignal::kPushBack;
    if (http >= 500 && http <= 599) return ServerSignal::kServerError;
    return ServerSignal::kHealthy;
  }
  if (report.status() == v1::FETCH_STATUS_TIMEOUT) return ServerSignal::kPushBack;
  if (report.status() == v1::FETCH_STATUS_NETWORK_ERROR) {
    const std::string_view cause = report.cause();
    if (cause == "connection_refused" || cause == "connection_reset" || cause == "connect_timeout" ||
        cause == "timeout" || cause == "empty_reply") {
      return ServerSignal::kPushBack;
    }
  }
  return ServerSignal::kNeutral;
}

bool IsServerStatePushBack(const v1::FetchReport& report) {
  return report.status() == v1::FETCH_STATUS_OK && (report.http_status() == 429 || report.http_status() == 503);
}

bool OriginBackoff::Observe(HostSlot& slot, const v1::FetchReport& report, int64_t now_ms, int64_t leased_ms,
                            int64_t pace_ms) const {
  if (options_.backoff_max_ms == 0) return false;  // off: the user's own servers
  ServerSignal signal = SignalOf(report);
  if (signal == ServerSignal::kNeutral || (signal == ServerSignal::kHealthy && !slot.trouble)) return false;
  OriginTrouble& trouble = slot.Trouble();
  if (signal == ServerSignal::kServerError) {
    if (trouble.server_errors_in_row < kServerErrorRun) ++trouble.server_errors_in_row;
    if (trouble.server_errors_in_row < kServerErrorRun) return false;
    signal = ServerSignal::kPushBack;
  } else {
    trouble.server_errors_in_row = 0;
  }
  // Sent before the latest push back: says nothing of the server since.
  // Its own millisecond included: nothing is leased after a push back
  // within it (the origin is held), and on loopback a rate limit's first
  // 429 can come back in the millisecond its requests were leased.
  const bool stale = BackingOff(slot) && leased_ms <= trouble.last_pushback_ms;
  if (signal == ServerSignal::kHealthy) {
    if (!BackingOff(slot) || stale) return false;
    trouble.limited_since_ms = 0;  // it lets us in again
    if (now_ms - trouble.last_pushback_ms >= kBackoffForgetMs) {
      trouble.backoff_since_ms = 0;
      trouble.backoff_gap_ms = 0;
      trouble.backoff_floor_ms = 0;
      trouble.backoff_concurrency = 1;
      return false;
    }
    if (trouble.backoff_gap_ms <= trouble.backoff_floor_ms) {
      // At its floor: the pace holds, the concurrency comes back a step.
      if (trouble.backoff_concurrency < options_.per_host && trouble.backoff_concurrency < UINT16_MAX) {
        ++trouble.backoff_concurrency;
      }
      return false;
    }
    trouble.backoff_gap_ms =
        std::max(trouble.backoff_floor_ms, static_cast<int32_t>(int64_t{trouble.backoff_gap_ms} * 3 / 4));
    return false;
  }
  // Retry-After: nothing goes to the origin before then, whoever answered.
  const int64_t retry_after = std::min<int64_t>(report.retry_after_ms(), kMaxRetryAfterMs);
  slot.next_fetch_ms = std::max(slot.next_fetch_ms, now_ms + retry_after);
  if (trouble.limited_since_ms == 0 && IsServerStatePushBack(report)) trouble.limited_since_ms = now_ms;
  if (stale) return false;
  const int64_t cap = std::max(options_.backoff_max_ms, kBackoffStartMs);
  // The floor: twice the pace that was too fast. That is the pace of the
  // origin's first push back, or the floor itself when the origin pushed
  // back again at it; a push back above the floor (a server still
  // struggling) says nothing new of its limit.
  if (!BackingOff(slot) || trouble.backoff_gap_ms <= trouble.backoff_floor_ms) {
    const int64_t too_fast = BackingOff(slot) ? int64_t{trouble.backoff_floor_ms} : pace_ms;
    trouble.backoff_floor_ms = static_cast<int32_t>(std::clamp<int64_t>(2 * too_fast, kBackoffFloorMs, cap));
  }
  const int64_t start = std::max(slot.delay_ms, kBackoffStartMs);
  const int64_t grown = BackingOff(slot) ? std::min<int64_t>(2 * int64_t{trouble.backoff_gap_ms}, cap) : start;
  trouble.backoff_gap_ms = static_cast<int32_t>(std::min<int64_t>(std::max(grown, start), INT32_MAX));
  trouble.backoff_concurrency = 1;
  if (trouble.backoff_since_ms == 0) trouble.backoff_since_ms = now_ms;
  trouble.last_pushback_ms = now_ms;
  ++trouble.pushbacks;
  // The gap holds from now, so answers already in flight cannot shorten it.
  slot.next_fetch_ms = std::max(slot.next_fetch_ms, now_ms + int64_t{trouble.backoff_gap_ms});
  return true;
}

}  // namespace zcrawl::frontier
