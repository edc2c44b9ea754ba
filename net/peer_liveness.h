// PeerLiveness: the heartbeat protocol's bookkeeping of one peer, the same
// at either end of a connection: when the peer was last heard from and
// when it was last sent anything. Silent past LivenessOptions::dead_after_ms
// it is dead; idle for heartbeat_ms on our side, it is owed a heartbeat
// (any message counts both ways). PeerLink keeps one for the peer it
// connects to; the frontier's PeerTable one for each peer connected to it.
//
// A plain value: owned with its peer's record, by that record's thread.
#pragma once

#include <algorithm>
#include <cstdint>

#include "net/liveness_options.h"

namespace zcrawl {

struct PeerLiveness {
  int64_t last_seen_ms = 0;  // any inbound message (or the connection's start)
  int64_t last_sent_ms = 0;  // any outbound message

  void Heard(int64_t now_ms) { last_seen_ms = now_ms; }
  void Sent(int64_t now_ms) { last_sent_ms = now_ms; }
  int64_t silent_ms(int64_t now_ms) const { return now_ms - last_seen_ms; }
  bool Dead(int64_t now_ms, const LivenessOptions& timing) const {
    return silent_ms(now_ms) > timing.dead_after_ms();
  }
  bool HeartbeatDue(int64_t now_ms, const LivenessOptions& timing) const {
    return now_ms - last_sent_ms >= timing.heartbeat_ms;
  }
  // We ourselves stood still for `stalled_ms` (SIGSTOP, a VM pause): what
  // the peer sent meanwhile is still arriving, so that silence is not its.
  void Excuse(int64_t stalled_ms, int64_t now_ms) { last_seen_ms = std::min(now_ms, last_seen_ms + stalled_ms); }
};

}  // namespace zcrawl
