// RefetchPolicy: when a continuous crawl (frontier --continuous) fetches a
// URL again. The interval adapts to how often the URL changes, as Nutch's
// AdaptiveFetchSchedule does: x1.4 after a fetch that found it unchanged,
// x0.8 after one that found it changed, always within [min, max]. A URL's
// first capture starts at min: a second look soon learns which kind of page
// it is, and a page that does not change backs off geometrically (from 1 h
// to 30 days in 20 fetches). Defaults and their reasons: frontier_options.h.
//
// "Changed": a 304 to the conditional request is unchanged; otherwise the
// body is compared by hash (v1::Validators.body_hash), so a server with no
// validators, or one whose ETag changes with every response, is still read
// right. Pure functions of their inputs; thread-safe.
#pragma once

#include <cstdint>

#include "zcrawl.pb.h"

namespace zcrawl::frontier {

struct RefetchPolicy {
  static constexpr double kGrowWhenUnchanged = 1.4;
  static constexpr double kShrinkWhenChanged = 0.8;

  int64_t min_ms = 0;
  int64_t max_ms = 0;

  // Whether the fetch that `report` answers found the URL changed since
  // `previous` (null: no earlier capture, which counts as changed).
  static bool Changed(const v1::Validators* previous, const v1::FetchReport& report);

  // The interval to wait before the next fetch, given the interval used
  // last (`previous` null or without one: this was the first capture).
  int64_t NextIntervalMs(const v1::Validators* previous, bool changed) const;
};

}  // namespace zcrawl::frontier
