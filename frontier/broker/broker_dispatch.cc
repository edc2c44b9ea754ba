// The broker's dispatch: leased URLs to the fetchers that asked for work
// (their credit), in batches.
#include <algorithm>
#include <unordered_map>
#include <vector>

#include "frontier/broker/broker.h"

namespace zcrawl::frontier {

// How long a fetcher whose WorkBatch could not be sent gets no work.
constexpr int64_t kUnsentRetryMs = 100;

void Broker::Dispatch() {
  if (finished_ || space_wait_.waiting() || controls_.paused()) return;
  const int64_t now = clock_.NowMs();
  // Fetchers with credit, the least loaded first (ties: round-robin, after
  // the last served). With several, URLs are leased in small steps, the
  // least loaded taking the next step, then sent as one batch each: N
  // fetchers share what is ready, so one with spare credit does not take
  // every per-host slot of a small crawl while the others sit idle.
  std::vector<Peer*> order;
  for (auto& [id, peer] : peers_) {
    if (peer.role == v1::PEER_ROLE_FETCHER && peer.credit > 0 && peer.dispatch_after_ms <= now) {
      order.push_back(&peer);
    }
  }
  if (order.empty()) return;
  std::stable_partition(order.begin(), order.end(),
                        [&](Peer* p) { return p->identity > last_dispatched_; });
  const uint32_t fetchers = static_cast<uint32_t>(order.size());
  const uint32_t step = fetchers == 1 ? options_.max_batch : std::max<uint32_t>(1, options_.max_batch / (4 * fetchers));
  std::unordered_map<Peer*, v1::Envelope> batches;
  for (bool progress = true; progress;) {
    progress = false;
    if (fetchers > 1) {
      std::stable_sort(order.begin(), order.end(), [&](Peer* a, Peer* b) {
        return scheduler_->leases_of(a->identity) < scheduler_->leases_of(b->identity);
      });
    }
    for (Peer* peer : order) {
      v1::WorkBatch* batch = batches[peer].mutable_work_batch();
      const uint32_t room = std::min(peer->credit, options_.max_batch) - static_cast<uint32_t>(batch->items_size());
      if (room == 0) continue;
      auto items = scheduler_->Lease(peer->identity, std::min(room, step));
      if (items.empty()) {  // nothing ready for anyone
        progress = false;
        break;
      }
      for (auto& item : items) *batch->add_items() = std::move(item);
      progress = true;
    }
  }
  for (Peer* peer : order) {
    v1::Envelope& envelope = batches[peer];
    const auto& batch = envelope.work_batch();
    if (batch.items_size() == 0) continue;
    last_dispatched_ = peer->identity;
    if (!Send(*peer, envelope)) {
      // Never delivered: its leases go back now, not at their expiry, and
      // the credit stays, so the next turn tries again (a peer that is
      // gone for good is dropped by the liveness check).
      std::vector<uint64_t> ids;
      for (const auto& item : batch.items()) ids.push_back(item.lease_id());
      scheduler_->ReturnUnsent(ids);
      counters_.leases_unsent += ids.size();
      peer->dispatch_after_ms = now + kUnsentRetryMs;
      continue;
    }
    peer->credit -= static_cast<uint32_t>(batch.items_size());
  }
}

}  // namespace zcrawl::frontier
