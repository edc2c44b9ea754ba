// ScopePolicy: decides whether a URL belongs to this crawl. Default scope is
// the hosts of the seeds; --allow-domain adds domains with their subdomains;
// --scope web (any_host) admits every host (a broad crawl, bounded by the
// per-host and per-domain budgets of AdmissionLimits instead).
// Only http and https are crawled. Also guards against traps that can be
// judged from the URL alone: length, depth, a path segment repeated past
// max_path_repeat (a loop of relative links: /a/b/a/b/a/b/a/b), more query
// parameters than max_query_params; and applies the operator's URL
// patterns: --deny REGEX drops every URL it matches; with any --allow REGEX
// given, a URL must also match one of them. Patterns narrow the host scope,
// never widen it (use allow_domains for that); deny wins over allow.
//
// Patterns are POSIX extended regular expressions (regcomp with
// REG_EXTENDED | REG_NOSUB), case-sensitive, searched anywhere in the
// normalised URL (anchor with ^ and $). Each list is compiled once into one
// alternation, so a URL costs one regexec per list (~0.5 us for 4 patterns
// on an 80-byte URL), not one per pattern; std::regex measured 8x slower.
//
// Immutable after construction; Reject is safe for concurrent use. glibc's
// regexec serialises callers of one compiled regex_t with an internal lock,
// so the policy keeps `regex_copies` compiled copies and spreads calling
// threads over them; give it one copy per link thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/status.h"
#include "common/url.h"

#include "frontier/frontier_options.h"

namespace zcrawl::frontier {

struct ScopeOptions {
  std::vector<std::string> seed_hosts;     // exact hostnames
  bool any_host = false;                   // --scope web
  ScopeRules rules;                        // the frontier's, as they are
  uint32_t regex_copies = 1;               // threads calling Reject at once
};

class ScopePolicy {
 public:
  // Validates the options: InvalidArgument naming the pattern and the
  // regcomp error if a pattern does not compile.
  static Result<ScopePolicy> Create(ScopeOptions options);

  // Prefer Create(). Throws std::invalid_argument on an invalid pattern (a
  // start-up configuration error); fine for options without patterns.
  explicit ScopePolicy(ScopeOptions options);

  ~ScopePolicy();
  ScopePolicy(ScopePolicy&&) noexcept;
  ScopePolicy& operator=(ScopePolicy&&) noexcept;
  ScopePolicy(const ScopePolicy&) = delete;
  ScopePolicy& operator=(const ScopePolicy&) = delete;

  // The trap guards' reasons (counted apart: AdmissionResult).
  static constexpr std::string_view kUrlLength = "url_length";
  static constexpr std::string_view kPathRepeat = "path_repeat";
  static constexpr std::string_view kQueryParams = "query_params";

  // Empty if `url` at `depth` is in scope, else a short reason naming the
  // check that failed: "scheme", "url_length", "path_repeat",
  // "query_params", "depth", "host", "deny" (a deny pattern matched) or
  // "allow" (allow patterns given, none matched).
  std::string_view Reject(const Url& url, uint32_t depth) const;

  // The same for a page requisite embedded by a URL `parent_embed_hops`
  // embeds outside the scope (0: the parent is in scope). Depth does not
  // apply (a page's requisites are fetched whatever its depth); a host or
  // allow-pattern miss is forgiven within max_embed_hops, and then
  // *embed_hops is parent_embed_hops + 1 (0 when in scope). Scheme, the
  // trap guards and deny patterns apply as to links.
  std::string_view RejectEmbed(const Url& url, uint32_t parent_embed_hops, uint32_t* embed_hops) const;

  // Adds hosts to the scope while the crawl runs (`./run control add-seeds
  // --widen`); safe while other threads call Reject. The broker keeps them
  // in its state and adds them again after a restart.
  void AddHosts(const std::vector<std::string>& hosts);

 private:
  class PatternSet;  // one list of patterns, compiled (scope_policy.cc)
  struct AddedHosts;  // AddHosts' set and its lock (scope_policy.cc)

  ScopePolicy() = default;
  Status Init(ScopeOptions options);
  bool HostAllowed(std::string_view host) const;
  // The trap guard `url` fails ("url_length", "path_repeat",
  // "query_params"), or empty.
  std::string_view Trap(const Url& url) const;

  ScopeOptions options_;
  std::unordered_set<std::string> hosts_;
  std::unique_ptr<PatternSet> allow_;  // null when no allow patterns
  std::unique_ptr<PatternSet> deny_;   // null when no deny patterns
  std::unique_ptr<AddedHosts> added_;
};

}  // namespace zcrawl::frontier
