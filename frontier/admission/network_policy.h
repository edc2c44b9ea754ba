// The crawl's NetworkPolicy (proto/zcrawl.proto): which non-public
// addresses its fetchers may connect to, decided once at start from the
// seeds and the settings (FrontierOptions::allow_private_addresses says
// the rule) and sent to every fetcher that says Ready. The fetchers apply
// it to the address they actually connect to (fetcher/
// private_address_guard.h). Pure function; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "common/url.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// Seed host names sent as open hosts, at most; further named seeds on
// private addresses need --allow-network or --allow-private-addresses (a
// seed list of a broad crawl is public hosts, and the policy travels in
// one message to each fetcher).
inline constexpr size_t kMaxOpenHosts = 10000;

// InvalidArgument for an entry of `allow_networks` that is not a CIDR block.
Result<v1::NetworkPolicy> MakeNetworkPolicy(const std::vector<Url>& seeds, bool allow_private_addresses,
                                            const std::vector<std::string>& allow_networks);

// For the log: "public addresses, 127.0.0.0/8, ::1/128 and the seed hosts
// (2) by name".
std::string DescribeNetworkPolicy(const v1::NetworkPolicy& policy);

}  // namespace zcrawl::frontier
