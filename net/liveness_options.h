// LivenessOptions: the heartbeat protocol's timing, shared by every process
// (PROTOCOL.md, "Heartbeats"): one definition of the defaults, ranges and
// help of --heartbeat-ms, --liveness and the reconnect backoff. A peer
// silent for liveness x heartbeat_ms is dead: the frontier returns a lost
// fetcher's leases, a fetcher or the writer reconnects to a lost frontier
// or writer (backing off from reconnect_min_ms, doubling up to
// reconnect_max_ms).
#pragma once

#include <cstdint>

#include "common/settings_declarer.h"

namespace zcrawl {

struct LivenessOptions {
  int64_t heartbeat_ms = 1000;
  uint32_t liveness = 5;  // missed heartbeats before a peer is dead
  int64_t reconnect_min_ms = 250;
  int64_t reconnect_max_ms = 8000;

  // How long a peer may stay silent before it is dead: the one place the
  // window is computed.
  int64_t dead_after_ms() const { return heartbeat_ms * static_cast<int64_t>(liveness); }
};

// --heartbeat-ms and --liveness, and with `reconnects` (a process that
// connects to others) the reconnect backoff.
inline void AddLivenessFlags(SettingsDeclarer& d, LivenessOptions& o, bool reconnects) {
  d.Option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat interval")->capture_default_str()
      ->check(CLI::Range(int64_t{10}, int64_t{600000}));
  d.Option("--liveness", o.liveness, "Missed heartbeats before a peer is dead")
      ->capture_default_str()->check(CLI::Range(1u, 1000u));
  if (!reconnects) return;
  d.Option("--reconnect-min-ms", o.reconnect_min_ms, "First reconnect delay after a peer is lost")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{600000}));
  d.Option("--reconnect-max-ms", o.reconnect_max_ms, "Reconnect delay doubles up to this")
      ->capture_default_str()->check(CLI::Range(int64_t{1}, int64_t{3600000}));
}

}  // namespace zcrawl
