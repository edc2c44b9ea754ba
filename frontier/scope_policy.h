// ScopePolicy: decides whether a URL belongs to this crawl. Default scope is
// the hosts of the seeds; --allow-domain adds domains with their subdomains.
// Only http and https are crawled. Also guards against traps that can be
// judged from the URL alone (length, depth).
//
// Immutable after construction; safe for concurrent use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/url.h"

namespace zcrawl::frontier {

struct ScopeOptions {
  std::vector<std::string> seed_hosts;     // exact hostnames
  std::vector<std::string> allow_domains;  // D matches D and *.D
  int32_t max_depth = -1;                  // -1: unlimited
  uint32_t max_url_length = 2048;
};

class ScopePolicy {
 public:
  explicit ScopePolicy(ScopeOptions options);

  // Empty if `url` at `depth` is in scope, else a short reason
  // ("scheme", "host", "depth", "url_length").
  std::string_view Reject(const Url& url, uint32_t depth) const;

 private:
  bool HostAllowed(std::string_view host) const;

  ScopeOptions options_;
  std::unordered_set<std::string> hosts_;
};

}  // namespace zcrawl::frontier
