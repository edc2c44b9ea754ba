// BlockList: the operator's blocks of a running crawl (`./run control
// block`; issue 50). A blocked URL is never fetched: the scheduler fails
// what it had queued as `blocked` when its turn comes (an origin or domain
// block before its robots.txt, so the site sees nothing more), and the
// broker refuses new links to it (counted as links.blocked) without
// marking them seen, so an unblock lets later links in. Requests in flight
// when a block arrives finish. URLs a block failed stay failed after an
// unblock.
//
// Cost: nothing while empty (one check); an origin or domain block costs
// a few hash lookups per URL leased or admitted; a pattern costs a regexec
// per URL (fine for the handful an operator writes).
// Not thread-safe: the broker thread owns it.
#pragma once

#include <regex.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "frontier/control/control_target.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

class BlockList {
 public:
  BlockList() = default;
  BlockList(const BlockList&) = delete;
  BlockList& operator=(const BlockList&) = delete;

  // Adds `rule` (its target normalised); false if that target was blocked
  // already (the rule kept is the first). Fails on a bad target.
  Result<bool> Add(v1::BlockRule rule);
  // False if the target was not blocked.
  bool Remove(const v1::Target& target);

  bool empty() const { return rules_.empty(); }
  // Whether a block stops every URL of `origin` (an origin or domain
  // block): its robots.txt is not fetched either.
  bool BlocksOrigin(std::string_view origin) const { return by_origin_.Find(origin) != nullptr; }
  // The block that matches `url` of `origin`, counted in its blocked_urls;
  // null if none.
  const v1::BlockRule* Match(std::string_view url, std::string_view origin);
  // Counts `n` URLs of `origin` that its origin or domain block ended.
  void CountBlocked(std::string_view origin, uint64_t n);

  // The rules in force, in the order they were added.
  std::vector<v1::BlockRule> Rules() const;

 private:
  struct Entry {
    v1::BlockRule rule;
    std::shared_ptr<regex_t> regex;  // for a pattern target
  };
  Entry* Find(const v1::Target& target);
  void Reindex();

  std::vector<std::unique_ptr<Entry>> rules_;
  OriginTargetMap<Entry*> by_origin_;  // origin and domain rules
  std::vector<Entry*> patterns_;
};

}  // namespace zcrawl::frontier
