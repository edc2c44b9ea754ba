// CrawlEnd: what the launcher concludes once every process of a crawl has
// exited, from the frontier's summary (its --summary-file, JSON), the
// result so far and how often the frontier was restarted: whether the
// crawl had finished before this launch, and the exit code
// (docs/OPERATING.md, "Exit codes").
//
// A frontier whose state says the crawl finished writes a summary with
// already_finished and exits. When the launcher's first frontier does so,
// the crawl had finished before this launch ("--fresh starts it over").
// When a frontier the launcher restarted does so (its predecessor recorded
// the end, then crashed before it exited), the crawl finished in this
// launch: it has ended once, and the summary says how.
//
// A pure function; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace zcrawl::launcher {

// The exit code of a crawl that finished without fetching a single page.
constexpr int kNothingFetched = 3;
// The exit code of a crawl stopped before its end (Ctrl-C, or an
// operator's `./run control stop`: the frontier then exits 0 with a
// summary that says it did not finish); it resumes where it stopped.
constexpr int kStopped = 130;

struct CrawlEnd {
  // The crawl had finished before this launch: nothing was crawled now.
  bool finished_earlier = false;
  // `result` (0 finished, 1 a process failed, 2 configuration, 130 stopped),
  // or kNothingFetched for a crawl that finished now with nothing done.
  int exit_code = 0;
};

// `summary_json` may be empty or malformed (a frontier that never wrote
// one): then nothing is known of it, and `result` stands.
CrawlEnd JudgeCrawlEnd(std::string_view summary_json, int result, uint32_t frontier_restarts);

}  // namespace zcrawl::launcher
