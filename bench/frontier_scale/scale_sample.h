// ScaleSample: what frontier_scale_bench observes of the frontier at one
// moment (its metrics, memory, CPU, state folder size), the rates between
// two such samples (SampleRates), and their CSV row and printed line. The
// column list is in bench/README.md ("Frontier scale").
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "bench/frontier_scale/frontier_process.h"
#include "bench/frontier_scale/metrics_scrape.h"

namespace zcrawl::bench {

// The frontier's metrics the bench reads (frontier/broker/broker.cc
// PublishMetrics). A frontier that lacks one reads as 0; where a rate
// needs a missing one, a stand-in is used (see SampleRates).
inline constexpr std::string_view kSeenUrls = "zcrawl_frontier_seen_urls";
inline constexpr std::string_view kSeenChecks = "zcrawl_frontier_seen_checks_total";
inline constexpr std::string_view kUrlsDone = "zcrawl_frontier_urls_done_total";
inline constexpr std::string_view kUrlsFailed = "zcrawl_frontier_urls_failed_total";
inline constexpr std::string_view kLinksReported = "zcrawl_frontier_links_reported_total";
inline constexpr std::string_view kLinksInvalid = "zcrawl_frontier_links_invalid_total";
inline constexpr std::string_view kLinksOutOfScope = "zcrawl_frontier_links_out_of_scope_total";
inline constexpr std::string_view kLinksDuplicate = "zcrawl_frontier_links_duplicate_total";
inline constexpr std::string_view kSeenDiskLookups = "zcrawl_frontier_seen_disk_lookups_total";
inline constexpr std::string_view kSeenCacheHits = "zcrawl_frontier_seen_cache_hits_total";

struct ScaleSample {
  double elapsed_s = 0;  // since the frontier was started
  Metrics metrics;
  ProcessMemory memory;
  double cpu_s = 0;         // the frontier's utime + stime
  uint64_t disk_bytes = 0;  // its state folder, allocated blocks
  double bench_cpu_s = 0;   // this process's own, fetchers included

  double Get(std::string_view name) const {
    auto it = metrics.find(name);
    return it == metrics.end() ? 0 : it->second;
  }
  bool Has(std::string_view name) const { return metrics.find(name) != metrics.end(); }
};

struct SampleRates {
  double elapsed_s = 0;
  double interval_s = 0;  // since the sample before
  double known_urls = 0;
  // zcrawl_frontier_seen_checks_total per second (every in-scope link;
  // frontiers before 2026-12-06 counted only the checks past the link
  // threads' cache); links reported per second from a frontier without it.
  double seen_checks_per_s = 0;
  double seen_cache_hits_per_s = 0;  // of the checks, the known-URL cache's answers
  double new_urls_per_s = 0;
  double leases_per_s = 0;  // URLs done + failed per second
  double links_per_s = 0;
  // Of the links reported in the interval: the frontier's duplicate count
  // if it publishes one, else the scoped, valid links that did not become
  // new URLs.
  double duplicate_share = 0;
  double cpu_cores = 0;  // frontier CPU seconds per second
  double disk_lookups_per_s = 0;
};

SampleRates RatesBetween(const ScaleSample& before, const ScaleSample& now);

// Bytes the folder takes on disk (allocated blocks, as du counts them);
// files deleted during the walk are skipped.
uint64_t FolderDiskBytes(const std::string& dir);

void WriteCsvHeader(FILE* csv);
void WriteCsvRow(FILE* csv, const SampleRates& rates, const ScaleSample& sample);
void PrintSampleLine(const SampleRates& rates, const ScaleSample& sample);

// 1234567 -> "1,234,567"; 45600 -> "45.6k/s".
std::string Grouped(double value);
std::string Rate(double per_s);

}  // namespace zcrawl::bench
