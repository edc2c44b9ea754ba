// HostSlot: politeness and robots.txt state of one origin (scheme, host,
// port), in the spirit of Mercator's back queues and Scrapy's download slots.
// Politeness is data here, never a sleep in a fetch thread.
//
// Owned by CrawlScheduler; no synchronisation of its own.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "common/robots_rules.h"
#include "frontier/url_record.h"

namespace zcrawl::frontier {

enum class RobotsState : uint8_t {
  kNotNeeded,  // robots.txt is ignored (--no-robots)
  kNeeded,     // must be fetched before any other URL of this origin
  kFetching,   // leased to a fetcher
  kKnown,      // rules parsed (or allow/disallow all decided)
};

struct HostSlot {
  std::string origin;              // "https://example.com" or with ":port"
  std::deque<UrlRecord> waiting;   // breadth-first: admitted order
  uint32_t in_flight = 0;          // leased URLs of this origin
  int64_t next_fetch_ms = 0;       // earliest start of the next request
  int64_t delay_ms = 0;            // politeness delay, >= the global one
  RobotsState robots_state = RobotsState::kNotNeeded;
  uint32_t robots_attempts = 0;
  int64_t robots_fetched_ms = 0;   // when the rules were last learned
  std::optional<RobotsRules> robots;
  bool in_ready_heap = false;      // at most one heap entry per slot
  uint64_t done = 0;               // for status and the summary
  uint64_t failed = 0;
  // The latest failed fetch of this origin (robots.txt or a page), its
  // reason and detail: what `./run status` and the summary show for it.
  std::string last_failure;
};

}  // namespace zcrawl::frontier
