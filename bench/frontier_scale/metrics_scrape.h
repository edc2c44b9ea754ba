// MetricsScrape: one GET of a Prometheus text endpoint on 127.0.0.1 (the
// frontier's --metrics-port), parsed into name -> value. A sample with
// labels keeps them in its key (`name{a="b"}`); comments are skipped.
//
// Thread-safety: pure functions (each call opens its own connection).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::bench {

using Metrics = std::map<std::string, double, std::less<>>;

// Unavailable when nothing answers, or before the first snapshot (an empty
// page); the frontier publishes about once a second.
Result<Metrics> ScrapeMetrics(uint16_t port, int timeout_ms);

// A snapshot published after the call: scrapes until the page changes (the
// frontier published again; up to a second later), so its values are at
// most a poll (25 ms) old. After max_wait_ms (an idle frontier publishes
// the same page) the last one read; an error if none could be read.
Result<Metrics> ScrapeFreshMetrics(uint16_t port, int max_wait_ms);

Metrics ParsePrometheusText(std::string_view text);

}  // namespace zcrawl::bench
