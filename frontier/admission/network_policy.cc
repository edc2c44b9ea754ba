#include "frontier/admission/network_policy.h"

#include <set>

#include <spdlog/spdlog.h>

#include "common/ip_network.h"

namespace zcrawl::frontier {
namespace {

// RFC 6761: localhost and its subdomains always resolve to loopback.
bool IsLocalhostName(std::string_view host) {
  constexpr std::string_view kLocalhost = "localhost";
  if (host == kLocalhost) return true;
  return host.size() > kLocalhost.size() + 1 && host.substr(host.size() - kLocalhost.size()) == kLocalhost &&
         host[host.size() - kLocalhost.size() - 1] == '.';
}

}  // namespace

Result<v1::NetworkPolicy> MakeNetworkPolicy(const std::vector<Url>& seeds, bool allow_private_addresses,
                                            const std::vector<std::string>& allow_networks) {
  v1::NetworkPolicy policy;
  policy.set_allow_private_addresses(allow_private_addresses);
  std::set<std::string> networks;  // ordered, without repeats
  for (const std::string& text : allow_networks) {
    auto network = IpNetwork::Parse(text);
    if (!network.ok()) return InvalidArgumentError("--allow-network: " + network.status().message());
    networks.insert(network->ToString());
  }
  std::set<std::string> hosts;
  size_t hosts_left_out = 0;
  for (const Url& seed : seeds) {
    const std::string_view host = seed.hostname();
    if (auto address = IpAddress::Parse(host)) {
      if (auto block = NonPublicBlockOf(*address)) networks.insert(block->ToString());
    } else if (IsLocalhostName(host)) {
      networks.insert("127.0.0.0/8");
      networks.insert("::1/128");
    } else if (hosts.size() < kMaxOpenHosts) {
      hosts.emplace(host);
    } else if (!hosts.count(std::string(host))) {
      ++hosts_left_out;
    }
  }
  if (hosts_left_out > 0) {
    spdlog::warn("network policy: {} seed hosts past the first {} are not opened by name; if any is "
                 "at a private address, open it with --allow-network",
                 hosts_left_out, kMaxOpenHosts);
  }
  for (const std::string& network : networks) policy.add_open_networks(network);
  for (const std::string& host : hosts) policy.add_open_hosts(host);
  return policy;
}

std::string DescribeNetworkPolicy(const v1::NetworkPolicy& policy) {
  if (policy.allow_private_addresses()) return "every address (--allow-private-addresses)";
  std::string out = "public addresses";
  for (const std::string& network : policy.open_networks()) out += ", " + network;
  if (policy.open_hosts_size() > 0) {
    out += " and the seed hosts (" + std::to_string(policy.open_hosts_size()) + ") by name";
  }
  return out;
}

}  // namespace zcrawl::frontier
