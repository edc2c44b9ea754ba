// PrivateAddressGuard: whether this fetcher may connect to an address,
// asked by libcurl's socket callback (curl_transfer.cc) for every
// connection it opens, after DNS and for every redirect hop, so neither a
// link, nor a redirect, nor a DNS name (rebinding included) can point the
// crawler at the network it runs in. Public addresses always pass; a
// special-purpose one (common/ip_network.h: loopback, private, link-local
// with the cloud metadata service, ...) passes only as the frontier's
// NetworkPolicy allows: every one (--allow-private-addresses), the open
// networks (those of seeds given as IP addresses, and --allow-network), or
// any address of an open host (a seed given by name). Until the first
// policy arrives no non-public address passes.
//
// Thread-safe: the node sets the policy on its network thread, transfers
// ask from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/ip_network.h"
#include "common/mutex.h"
#include "zcrawl.pb.h"

namespace zcrawl::fetcher {

class PrivateAddressGuard {
 public:
  // Takes the frontier's policy; entries that do not parse are logged and
  // left out (closed), never opened.
  void Set(const v1::NetworkPolicy& policy);
  // nullopt when `address` may be connected to for a URL of `host` (its
  // serialised hostname); else why not ("10.0.0.5 is in 10.0.0.0/8, a
  // private network ...").
  std::optional<std::string> Refusal(const IpAddress& address, std::string_view host) const;

 private:
  struct Policy {
    bool allow_all = false;
    std::vector<IpNetwork> open_networks;
    std::unordered_set<std::string> open_hosts;
  };
  mutable Mutex mutex_;
  std::shared_ptr<const Policy> policy_ GUARDED_BY(mutex_) = std::make_shared<Policy>();
};

}  // namespace zcrawl::fetcher
