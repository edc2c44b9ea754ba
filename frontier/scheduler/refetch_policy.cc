#include "frontier/scheduler/refetch_policy.h"

#include <algorithm>
#include <cmath>

namespace zcrawl::frontier {

bool RefetchPolicy::Changed(const v1::Validators* previous, const v1::FetchReport& report) {
  if (report.http_status() == 304) return false;
  if (previous == nullptr || previous->body_hash() == 0 || !report.has_captured()) return true;
  return report.captured().body_hash() != previous->body_hash();
}

int64_t RefetchPolicy::NextIntervalMs(const v1::Validators* previous, bool changed) const {
  if (previous == nullptr || previous->refetch_interval_ms() <= 0) return min_ms;
  const double factor = changed ? kShrinkWhenChanged : kGrowWhenUnchanged;
  const double next = std::round(static_cast<double>(previous->refetch_interval_ms()) * factor);
  return std::clamp(static_cast<int64_t>(std::min(next, 9.0e18)), min_ms, max_ms);
}

}  // namespace zcrawl::frontier
