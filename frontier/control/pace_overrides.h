// PaceOverrides: the operator's run-time politeness for an origin or a
// domain (`./run control politeness`; issue 50), for the site owner who
// wrote to ask for less, or the operator's own site that may take more.
// An override's delay_ms replaces --delay-ms and robots.txt's Crawl-delay
// for the origins it matches, and its per_host replaces --per-host; a
// back-off still slows the origin further, and never brings it back
// faster than the override (OriginPace takes the largest gap and the
// least concurrency). The most specific override wins: the origin's own,
// then its host's, then its parent domains'.
// Not thread-safe: the broker thread owns it.
#pragma once

#include <string_view>
#include <vector>

#include "common/status.h"
#include "frontier/control/control_target.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

class PaceOverrides {
 public:
  // Sets (or replaces) the override of rule.target; fails on a bad target
  // or one with neither a delay nor a per_host.
  Status Set(v1::PolitenessRule rule);
  // False if the target had no override.
  bool Clear(const v1::Target& target);

  bool empty() const { return by_origin_.empty(); }
  // The override that applies to `origin`, or null.
  const v1::PolitenessRule* For(std::string_view origin) const { return by_origin_.Find(origin); }
  // The override set on exactly `target` (normalised), or null.
  const v1::PolitenessRule* Of(const v1::Target& target) const;
  std::vector<v1::PolitenessRule> Rules() const { return rules_; }

 private:
  void Reindex();

  std::vector<v1::PolitenessRule> rules_;  // in the order they were set
  OriginTargetMap<v1::PolitenessRule> by_origin_;
};

}  // namespace zcrawl::frontier
