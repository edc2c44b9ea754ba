// Peer: what the frontier knows about one connected process (a fetcher, the
// writer or a control tool), keyed by its ZeroMQ routing id. Owned by the
// Broker's thread.
#pragma once

#include <cstdint>
#include <string>

#include "zcrawl.pb.h"

namespace zcrawl::frontier {

struct Peer {
  std::string identity;        // routing id (fetchers set it to their sender id)
  std::string sender_id;
  v1::PeerRole role = v1::PEER_ROLE_UNSPECIFIED;
  std::string hostname;
  uint32_t pid = 0;
  int64_t last_seen_ms = 0;    // any inbound message
  int64_t last_sent_ms = 0;    // any outbound message
  uint32_t credit = 0;         // URLs it asked for and has not received
  // After a WorkBatch could not be sent (its send queue full, or it is
  // gone): no work before this time, so the broker does not spin on it.
  int64_t dispatch_after_ms = 0;
  v1::FetcherLoad load;
  bool told_shutdown = false;
};

}  // namespace zcrawl::frontier
