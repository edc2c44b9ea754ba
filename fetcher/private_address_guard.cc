#include "fetcher/private_address_guard.h"

#include <spdlog/spdlog.h>

#include "common/ascii.h"

namespace zcrawl::fetcher {

void PrivateAddressGuard::Set(const v1::NetworkPolicy& policy) {
  auto next = std::make_shared<Policy>();
  next->allow_all = policy.allow_private_addresses();
  for (const std::string& text : policy.open_networks()) {
    auto network = IpNetwork::Parse(text);
    if (!network.ok()) {
      spdlog::warn("network policy: {} (left closed)", network.status().message());
      continue;
    }
    next->open_networks.push_back(*network);
  }
  for (const std::string& host : policy.open_hosts()) next->open_hosts.insert(AsciiLower(host));
  spdlog::info("network policy: private addresses {}, {} open networks, {} open hosts",
               next->allow_all ? "allowed" : "refused", next->open_networks.size(),
               next->open_hosts.size());
  MutexLock lock(mutex_);
  policy_ = std::move(next);
}

std::optional<std::string> PrivateAddressGuard::Refusal(const IpAddress& address,
                                                        std::string_view host) const {
  const auto block = NonPublicBlockOf(address);
  if (!block) return std::nullopt;
  std::shared_ptr<const Policy> policy;
  {
    MutexLock lock(mutex_);
    policy = policy_;
  }
  if (policy->allow_all) return std::nullopt;
  for (const IpNetwork& open : policy->open_networks) {
    if (open.Contains(address.Unwrapped())) return std::nullopt;
  }
  if (!host.empty() && policy->open_hosts.count(AsciiLower(host))) return std::nullopt;
  return address.ToString() + " is in " + block->ToString() +
         ", not a public address (--allow-private-addresses or --allow-network opens it)";
}

}  // namespace zcrawl::fetcher
