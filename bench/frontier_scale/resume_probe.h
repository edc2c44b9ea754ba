// ResumeProbe: the --kill-resume phase of frontier_scale_bench. It kills
// the frontier with SIGKILL (no shutdown: a crash, as far as its state
// folder knows), starts it again on the same --state without --fresh and
// with its log at info level in a file, and times how it comes back while
// the same fake fetchers go on driving it: its first metrics, the first
// WorkBatch any fetcher gets from it, the "seen filter rebuilt" line of
// its log (docs/ARCHITECTURE.md, "Durable state and resume": the filter is
// rebuilt from the store in the background), its RSS at the first lease and
// `drive_s` later, and its leases and new URLs per second in between. Then
// it checks that the known-URL count goes on from where the killed frontier
// left it: `zcrawl_frontier_seen_urls` is an estimate (the store's meta)
// until the filter is rebuilt, so the check waits for the rebuild, at most
// `rebuild_wait_s`, and is made once the fetchers have left
// (CountAfterResume), when no links are on their way through the frontier.
//
// Not thread-safe: the bench's main thread runs it; the fetchers' threads
// go on meanwhile (their counters are atomics).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench/frontier_scale/fake_fetcher.h"
#include "bench/frontier_scale/frontier_process.h"

namespace zcrawl::bench {

struct ResumeOptions {
  std::string frontier_bin;
  std::vector<std::string> args;  // the resumed frontier's: no --fresh, --log-level info
  std::string log_path;           // its stderr (its log)
  std::string state_dir;          // to measure the disk as the kill left it
  uint16_t metrics_port = 0;      // the same for both runs, as the endpoint
  double drive_s = 10;            // the rates' window, from the first lease
  double rebuild_wait_s = 300;    // driven on until the filter is rebuilt, at most this long
  double first_lease_timeout_s = 120;
};

// Times are seconds from the restart (the resumed frontier's spawn); -1
// where it did not happen.
struct ResumeFigures {
  std::chrono::steady_clock::time_point restarted_at;
  std::string killed;            // how the killed frontier ended ("signal 9")
  std::string failure;           // empty when the resumed frontier leased and kept running
  double known_before_kill = 0;  // seen_urls, a fresh snapshot just before the kill
  uint64_t disk_after_kill = 0;  // the state folder as the kill left it
  double to_metrics_s = -1;      // its first published metrics
  double to_first_lease_s = -1;  // the first WorkBatch any fake fetcher got from it
  double to_rebuilt_s = -1;      // "seen filter rebuilt" in its log
  uint64_t rebuilt_urls = 0;     // the URLs that line reports
  double known_at_first_metrics = 0;
  double rss_first_lease_mb = 0;
  double rss_after_mb = 0;  // drive_s after the first lease
  double hwm_after_mb = 0;
  double window_s = 0;      // first lease to the snapshot drive_s later
  double leases_per_s = 0;  // work items the fetchers received
  double new_urls_per_s = 0;
  // New URLs from the links counts (reported - invalid - out of scope -
  // duplicate: the seen set's growth); false: growth of seen_urls itself,
  // which includes the correction of the estimate if the rebuild ended in
  // the window.
  bool new_urls_from_links = false;
  double cpu_cores = 0;  // the resumed frontier's, in the window
  // CountAfterResume: when its snapshot was read (seconds from the
  // restart), seen_urls then, and the URLs new since the restart by the
  // links counts (-1: no duplicate metric).
  double end_s = 0;
  double known_end = 0;
  double admitted_since_restart = -1;
};

// Kills `frontier`, replaces it with the resumed one (which the caller
// stops) and measures. On a failure (no restart, no lease in time, the
// resumed one died, Ctrl-C) the figures so far and `failure` say so.
ResumeFigures KillAndResume(const ResumeOptions& options, std::unique_ptr<FrontierProcess>& frontier,
                            const std::vector<std::unique_ptr<FakeFetcher>>& fetchers);

// The known-URL check, once the fetchers said Goodbye and before the
// resumed frontier is stopped.
void CountAfterResume(const ResumeOptions& options, ResumeFigures& figures);

void PrintResumeFigures(const ResumeFigures& figures);
// A header and one row.
void WriteResumeCsv(FILE* csv, const ResumeFigures& figures);

}  // namespace zcrawl::bench
