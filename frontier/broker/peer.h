// Peer: what the frontier knows about one connected process (a fetcher, the
// writer or a control tool), keyed by its ZeroMQ routing id. Owned by the
// Broker's thread, in its PeerTable.
#pragma once

#include <cstdint>
#include <string>

#include "net/peer_liveness.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

struct Peer {
  std::string identity;        // routing id (fetchers set it to their sender id)
  std::string sender_id;
  v1::PeerRole role = v1::PEER_ROLE_UNSPECIFIED;
  std::string hostname;
  uint32_t pid = 0;
  PeerLiveness liveness;       // heard from, sent to (PeerTable keeps it)
  uint32_t credit = 0;         // URLs it asked for and has not received
  // After a WorkBatch could not be sent (its send queue full, or it is
  // gone): no work before this time, so the broker does not spin on it.
  int64_t dispatch_after_ms = 0;
  v1::FetcherLoad load;
  uint64_t completed = 0;      // reports of its leases received (the console's pages/s)
  bool told_shutdown = false;
};

}  // namespace zcrawl::frontier
