// RobotsKeeper: the robots.txt rules of each origin through their life:
// learned from a fetch (or decided: allow all on a 4xx, RFC 9309 2.3.1.3;
// disallow all after the retries), asked again after `ttl_ms`, kept in the
// store, moved out of RAM while the origin is idle and read back before
// its next lease. The scheduler decides when robots.txt is asked and what
// its URLs do meanwhile; this class owns what the rules are and where they
// live.
//
// Spilling: an origin with nothing waiting and nothing in flight holds its
// rules on disk only (a broad crawl knows millions of origins, most idle,
// and real rules run to kilobytes), once their staged write has landed;
// until then it is a spill candidate, looked at again at each commit.
// Rules an earlier run learned are never read back (a resumed crawl asks
// again): stored rules carry this run's token.
// Used by the broker thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/origin_memory.h"
#include "frontier/store/url_store.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// Rules are asked again after this long (RFC 9309 suggests caching at most
// 24 hours).
inline constexpr int64_t kRobotsTtlMs = 24 * 3600 * 1000;

struct RobotsKeeperOptions {
  std::string agent;  // the user-agent token the rules are read for
  int64_t ttl_ms = kRobotsTtlMs;
};

class RobotsKeeper {
 public:
  // `store`: null without one (rules then stay in RAM). `run_token` tells
  // this run's stored rules from an earlier run's.
  RobotsKeeper(RobotsKeeperOptions options, UrlStore* store, const Clock& clock, OriginMemory& memory,
               uint64_t run_token);

  // Before a lease of the origin: rules past their time are needed again;
  // spilled rules are read back, or needed again if the store lacks them.
  void PrepareForLease(HostSlot& slot);

  // What a robots.txt answer told.
  enum class Answer {
    kLearned,         // rules known (parsed, or allow all on a 4xx), kept
    kUnanswered,      // 5xx, 429 or no response: ask again later
    kPrivateAddress,  // the origin resolves into a refused network
  };
  // Applies a robots.txt fetch's report; on kLearned, `sitemaps` gets the
  // Sitemap lines.
  Answer Learn(HostSlot& slot, const v1::FetchReport& report, std::vector<std::string>* sitemaps);
  // robots.txt gave no answer within the retries: disallow all (RFC 9309
  // 2.3.1.4), kept like learned rules.
  void GiveUp(HostSlot& slot);

  // Whether the origin's rules (if any in RAM) allow `url`.
  bool Allows(const HostSlot& slot, std::string_view url);

  // Moves the rules of an idle origin out of RAM once the store holds
  // them; else makes it a candidate for the next TakeSpillCandidates.
  void MaybeSpill(HostSlot& slot);
  std::vector<uint32_t> TakeSpillCandidates();
  // Takes rules this run stored, those learned at `learned_ms` or (none)
  // any; false if the store has none.
  bool ReadStored(HostSlot& slot, std::optional<int64_t> learned_ms);

  // Rules moved to the store, read back, and asked again because the store
  // did not have them.
  uint64_t spilled() const { return spilled_; }
  uint64_t reloaded() const { return reloaded_; }
  uint64_t reload_misses() const { return reload_misses_; }

 private:
  // Rules just learned: staged in the store, so they can leave RAM later.
  void Keep(HostSlot& slot);
  // The rules' Crawl-delay raises the origin's politeness delay.
  static void ApplyCrawlDelay(HostSlot& slot);

  const RobotsKeeperOptions options_;
  UrlStore* store_;
  const Clock& clock_;
  OriginMemory& memory_;
  const uint64_t run_token_;
  std::vector<uint32_t> spill_candidates_;  // idle, rules not yet written
  uint64_t spilled_ = 0;
  uint64_t reloaded_ = 0;
  uint64_t reload_misses_ = 0;
  std::string scratch_;  // RobotsTarget's, for a URL without a leading '/'
};

}  // namespace zcrawl::frontier
