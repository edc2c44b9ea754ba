// PeerTable: the processes connected to the frontier's ROUTER socket (the
// fetchers, the writer, one-shot control tools) by routing id, and the
// server side of the heartbeat protocol over them (PeerLink is the client
// side; both keep a PeerLiveness per peer): which peers were silent past
// liveness x heartbeat and are lost, which are owed a heartbeat, and when
// the frontier itself stood still, whose gap is not held against them.
//
// It decides and forgets; the Broker acts on what it says (returns a lost
// fetcher's leases, sends the heartbeats) and keeps the counts. Owned and
// used by the broker thread.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "frontier/broker/peer.h"
#include "net/liveness_options.h"

namespace zcrawl::frontier {

class PeerTable {
 public:
  explicit PeerTable(const LivenessOptions& timing) : timing_(timing) {}
  PeerTable(const PeerTable&) = delete;
  PeerTable& operator=(const PeerTable&) = delete;

  // Any inbound message: the sender's record, made (role unspecified) for a
  // routing id not known yet (*is_new), and heard from now.
  Peer& Heard(const std::string& identity, const std::string& sender_id, int64_t now_ms, bool* is_new);
  // A peer that left (Goodbye) or was a one-shot control tool.
  void Remove(const std::string& identity) { peers_.erase(identity); }
  Peer* Find(const std::string& identity);

  struct LivenessCheck {
    // > 0: the frontier's own loop stood still this long (more than two
    // heartbeats since the last check); its peers were excused for it.
    int64_t stalled_ms = 0;
    std::vector<Peer> lost;           // silent too long, removed from the table
    std::vector<Peer*> heartbeat_due;  // sent nothing for a heartbeat interval
  };
  // Once per loop turn (at least once a heartbeat).
  LivenessCheck CheckLiveness(int64_t now_ms);

  // Fetchers or the writer still connected (the crawl's end waits for them).
  bool AnyWorker() const;
  uint64_t fetchers() const;

  // By routing id, in order (dispatch's round-robin relies on it).
  std::map<std::string, Peer>::iterator begin() { return peers_.begin(); }
  std::map<std::string, Peer>::iterator end() { return peers_.end(); }
  std::map<std::string, Peer>::const_iterator begin() const { return peers_.begin(); }
  std::map<std::string, Peer>::const_iterator end() const { return peers_.end(); }
  size_t size() const { return peers_.size(); }

 private:
  const LivenessOptions& timing_;
  std::map<std::string, Peer> peers_;
  int64_t last_check_ms_ = 0;  // 0: never checked
};

}  // namespace zcrawl::frontier
