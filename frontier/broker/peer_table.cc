#include "frontier/broker/peer_table.h"

namespace zcrawl::frontier {

Peer& PeerTable::Heard(const std::string& identity, const std::string& sender_id, int64_t now_ms,
                       bool* is_new) {
  auto [it, inserted] = peers_.try_emplace(identity);
  Peer& peer = it->second;
  if (inserted) {
    peer.identity = identity;
    peer.sender_id = sender_id;
  }
  *is_new = inserted;
  peer.liveness.Heard(now_ms);
  return peer;
}

Peer* PeerTable::Find(const std::string& identity) {
  auto it = peers_.find(identity);
  return it == peers_.end() ? nullptr : &it->second;
}

PeerTable::LivenessCheck PeerTable::CheckLiveness(int64_t now_ms) {
  LivenessCheck check;
  // Silence counts only while the broker's loop runs (at least once a
  // heartbeat): after the frontier itself stood still (SIGSTOP, a VM pause,
  // swapping), what its peers sent meanwhile is still arriving, so the gap
  // is not held against them.
  const int64_t stalled_ms = last_check_ms_ == 0 ? 0 : now_ms - last_check_ms_;
  last_check_ms_ = now_ms;
  if (stalled_ms > 2 * timing_.heartbeat_ms) {
    check.stalled_ms = stalled_ms;
    for (auto& [identity, peer] : peers_) peer.liveness.Excuse(stalled_ms, now_ms);
  }
  for (auto it = peers_.begin(); it != peers_.end();) {
    Peer& peer = it->second;
    if (peer.liveness.Dead(now_ms, timing_)) {
      check.lost.push_back(std::move(peer));
      it = peers_.erase(it);
      continue;
    }
    if (peer.liveness.HeartbeatDue(now_ms, timing_)) check.heartbeat_due.push_back(&peer);
    ++it;
  }
  return check;
}

bool PeerTable::AnyWorker() const {
  for (const auto& [id, peer] : peers_) {
    if (peer.role == v1::PEER_ROLE_FETCHER || peer.role == v1::PEER_ROLE_WRITER) return true;
  }
  return false;
}

uint64_t PeerTable::fetchers() const {
  uint64_t n = 0;
  for (const auto& [id, peer] : peers_) n += peer.role == v1::PEER_ROLE_FETCHER;
  return n;
}

}  // namespace zcrawl::frontier
