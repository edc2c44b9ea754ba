// CrawlBeacon: how a running crawl is found (issue 50). A frontier with a
// state folder keeps STATE/frontier.beacon saying where it listens, which
// process on which machine it is, since when it runs and until when it was
// last alive; `./run status [OUT]` reads OUT/.zcrawl/frontier.beacon and
// asks the frontier there, whether it runs as separate processes or
// `--single-process`, on whatever port the launcher chose.
//
// A beacon is never trusted blindly: the frontier refreshes `alive_ms`
// every kBeaconRefreshMs, writes `stopped_ms` when it stops, and a reader
// takes a beacon not refreshed for kBeaconStaleMs, or whose process is
// gone from this machine, for a crawl that is no longer running
// (CrawlBeaconState).
//
// The file is lines of "key value" (ASCII, one "endpoint" line per ZeroMQ
// endpoint a tool may connect to), written to a temporary file and renamed
// over the old, so a reader sees one whole version. Thread-safety: plain
// functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl {

// The frontier refreshes its beacon this often (the frontier's progress
// tick), and a beacon older than kBeaconStaleMs is a crawl that died: three
// refreshes missed, a margin for a frontier busy in a long commit.
inline constexpr int64_t kBeaconRefreshMs = 5000;
inline constexpr int64_t kBeaconStaleMs = 30000;

struct CrawlBeacon {
  std::vector<std::string> endpoints;  // where a tool connects ("tcp://127.0.0.1:5570")
  std::string metrics;                 // "http://127.0.0.1:9100/metrics", or empty
  std::string console;                 // "http://127.0.0.1:PORT/" (never its token), or empty
  int64_t pid = 0;
  std::string host;         // the machine's name (gethostname)
  int64_t started_ms = 0;   // wall ms since the epoch
  int64_t alive_ms = 0;     // the latest refresh
  int64_t stopped_ms = 0;   // 0 while running
};

std::string BeaconPath(const std::string& state_dir);

// The endpoints of a --bind list a tool on this machine can connect to:
// tcp ones, with a wildcard address ("*", 0.0.0.0) as loopback; inproc and
// ipc are left out.
std::vector<std::string> ReachableEndpoints(const std::string& bind_list);

Status WriteCrawlBeacon(const std::string& state_dir, const CrawlBeacon& beacon);
// An error when the file is missing or malformed (a line it cannot read,
// no endpoint, no pid).
Result<CrawlBeacon> ReadCrawlBeacon(const std::string& state_dir);

enum class BeaconState {
  kRunning,  // fresh, and its process exists (when on this machine)
  kStopped,  // it said it stopped
  kSilent,   // not refreshed for kBeaconStaleMs, or its process is gone
};
BeaconState CrawlBeaconState(const CrawlBeacon& beacon, int64_t now_wall_ms);

// "2026-12-07 13:05:09 UTC".
std::string FormatUtc(int64_t wall_ms);

}  // namespace zcrawl
