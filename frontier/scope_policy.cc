#include "frontier/scope_policy.h"

namespace zcrawl::frontier {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

ScopePolicy::ScopePolicy(ScopeOptions options) : options_(std::move(options)) {
  for (const auto& host : options_.seed_hosts) hosts_.insert(Lower(host));
  for (auto& domain : options_.allow_domains) {
    domain = Lower(domain);
    while (!domain.empty() && domain.front() == '.') domain.erase(0, 1);
  }
}

bool ScopePolicy::HostAllowed(std::string_view host) const {
  if (hosts_.count(std::string(host))) return true;
  for (const auto& domain : options_.allow_domains) {
    if (host == domain) return true;
    if (host.size() > domain.size() && host.ends_with(domain) &&
        host[host.size() - domain.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

std::string_view ScopePolicy::Reject(const Url& url, uint32_t depth) const {
  const auto scheme = url.scheme();
  if (scheme != "http" && scheme != "https") return "scheme";
  if (url.href().size() > options_.max_url_length) return "url_length";
  if (options_.max_depth >= 0 && depth > static_cast<uint32_t>(options_.max_depth)) return "depth";
  if (!HostAllowed(url.hostname())) return "host";
  return {};
}

}  // namespace zcrawl::frontier
