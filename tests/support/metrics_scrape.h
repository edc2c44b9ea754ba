// Reading a process's Prometheus page (--metrics-port) from a test: one
// scrape, or scrapes until a count reached a value, so a test can wait for
// an event the process counts instead of for a line of its log. Plain
// blocking sockets on 127.0.0.1 of the calling thread's network namespace;
// safe from any thread.
#pragma once

#include <cstdint>
#include <string>

namespace zcrawl::testing {

// GET /metrics from 127.0.0.1:port; "" if nothing answers. Reads time out
// after a second: whatever holds the port must not hang the test (under
// load another test's process may have taken it first, e.g. a ZeroMQ
// socket that accepts and then waits forever for its own greeting).
std::string ScrapeMetrics(uint16_t port);

// Scrapes until the text holds `needle`, for at most 20 s; the last text.
std::string ScrapeMetricsUntil(uint16_t port, const std::string& needle);

// The value of `name` in Prometheus text; -1 if absent.
double MetricValue(const std::string& text, const std::string& name);

// Scrapes until metric `name` is at least `at_least`, for at most
// `timeout_ms`; its last value (-1: never read).
double WaitForMetric(uint16_t port, const std::string& name, double at_least, int timeout_ms);

}  // namespace zcrawl::testing
