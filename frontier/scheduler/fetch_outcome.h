// FetchOutcome: what a fetcher's report means to the scheduler, decided in
// one place: the failure reason it is counted under, the origin's
// last-failure text, the HTTP status class, whether another attempt may
// succeed, and how long a retry waits. Pure functions of the report.
#pragma once

#include <cstdint>
#include <string>

#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// Retries wait retry_base_ms, doubling per attempt up to this.
inline constexpr int64_t kMaxRetryBackoffMs = 5 * 60 * 1000;
// A server's Retry-After is obeyed up to this (a longer one is a
// misconfiguration more often than a plan).
inline constexpr int64_t kMaxRetryAfterMs = 60 * 60 * 1000;

// "2xx" .. "5xx", or "other" outside 100..599.
std::string StatusClass(uint32_t http_status);

// A transport failure that another attempt may not repeat (network,
// timeout, a worker or the writer failing).
bool IsRetryableStatus(v1::FetchStatus status);

// The failure reason of a report: the transfer's cause where the fetcher
// named one (connection_refused, tls_certificate_untrusted, ...), else the
// status ("timeout"). Older fetchers send no cause.
std::string FetchStatusReason(const v1::FetchReport& report);

// What failed in a report, for an origin's last_failure: the reason and
// the fetcher's detail, e.g. "connection_refused (Couldn't connect to
// server ...)", or "http_503".
std::string DescribeFailure(const v1::FetchReport& report);

// The wait before attempt `attempts` + 1: base, doubled per earlier
// attempt, at most kMaxRetryBackoffMs.
int64_t RetryBackoffMs(int64_t base_ms, uint32_t attempts);

}  // namespace zcrawl::frontier
