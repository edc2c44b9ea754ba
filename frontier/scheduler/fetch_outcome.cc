#include "frontier/scheduler/fetch_outcome.h"

#include <algorithm>

namespace zcrawl::frontier {

std::string StatusClass(uint32_t http_status) {
  if (http_status < 100 || http_status > 599) return "other";
  return std::to_string(http_status / 100) + "xx";
}

bool IsRetryableStatus(v1::FetchStatus status) {
  return status == v1::FETCH_STATUS_NETWORK_ERROR || status == v1::FETCH_STATUS_TIMEOUT ||
         status == v1::FETCH_STATUS_WORKER_FAILED || status == v1::FETCH_STATUS_WRITER_FAILED;
}

std::string FetchStatusReason(const v1::FetchReport& report) {
  if (!report.cause().empty() && (report.status() == v1::FETCH_STATUS_NETWORK_ERROR ||
                                  report.status() == v1::FETCH_STATUS_TIMEOUT ||
                                  report.status() == v1::FETCH_STATUS_TOO_LARGE)) {
    return report.cause();
  }
  switch (report.status()) {
    case v1::FETCH_STATUS_NETWORK_ERROR: return "network_error";
    case v1::FETCH_STATUS_TIMEOUT: return "timeout";
    case v1::FETCH_STATUS_TOO_LARGE: return "too_large";
    case v1::FETCH_STATUS_ROBOTS_DISALLOWED: return "robots_disallowed";
    case v1::FETCH_STATUS_REDIRECT_LIMIT: return "redirect_limit";
    case v1::FETCH_STATUS_WORKER_FAILED: return "worker_failed";
    case v1::FETCH_STATUS_WRITER_FAILED: return "writer_failed";
    case v1::FETCH_STATUS_INVALID_URL: return "invalid_url";
    case v1::FETCH_STATUS_SKIPPED_CONTENT: return "skipped_content";
    case v1::FETCH_STATUS_PRIVATE_ADDRESS: return "private_address";
    default: return "unknown_status";
  }
}

std::string DescribeFailure(const v1::FetchReport& report) {
  std::string reason = report.status() == v1::FETCH_STATUS_OK
                           ? "http_" + std::to_string(report.http_status())
                           : FetchStatusReason(report);
  if (!report.error().empty()) reason += " (" + report.error() + ")";
  return reason;
}

int64_t RetryBackoffMs(int64_t base_ms, uint32_t attempts) {
  int64_t backoff = base_ms;
  for (uint32_t i = 1; i < attempts && backoff < kMaxRetryBackoffMs; ++i) backoff *= 2;
  return std::min(backoff, kMaxRetryBackoffMs);
}

}  // namespace zcrawl::frontier
