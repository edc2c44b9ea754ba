// HostSlot: politeness and robots.txt state of one origin (scheme, host,
// port), in the spirit of Mercator's back queues and Scrapy's download slots.
// Politeness is data here, never a sleep in a fetch thread.
//
// Owned by OriginTable, in RAM while the origin has something due and
// its turn (origin_table.h, "Parking": an idle origin, or one waiting
// its turn, is in the store only); no synchronisation of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/robots_rules.h"
#include "frontier/scheduler/url_head.h"
#include "frontier/store/url_record.h"

namespace zcrawl::frontier {

enum class RobotsState : uint8_t {
  kNotNeeded,  // robots.txt is ignored (--no-robots)
  kNeeded,     // must be fetched before any other URL of this origin
  kFetching,   // leased to a fetcher
  kKnown,      // rules parsed (or allow/disallow all decided)
};

// The rare part of an origin's state.
struct OriginTrouble {
  // The latest failed fetch of the origin (robots.txt or a page), its
  // reason and detail: what `./run status` and the summary show for it,
  // kept in its record too (StoredOrigin::last_failure), so a resume still
  // shows it.
  std::string last_failure;
  // Back-off (origin_backoff.h): since when the origin pushes back (0: it
  // does not), and its latest push back.
  int64_t backoff_since_ms = 0;
  int64_t last_pushback_ms = 0;
  // Since when the origin answers 429 or 503 to requests sent while it
  // already did (0: it answered a later request healthy): a URL answered
  // so keeps its retries, and past --rate-limited-max-ms the origin's URLs
  // fail `rate_limited` (origin_backoff.h).
  int64_t limited_since_ms = 0;
  // The gap it gets between request starts meanwhile (at most
  // --backoff-max-ms, a day).
  int32_t backoff_gap_ms = 0;
  // The least gap while the back-off is remembered: twice the pace that
  // was too fast when the origin last pushed back.
  int32_t backoff_floor_ms = 0;
  uint32_t pushbacks = 0;            // push backs in this crawl, for the summary's rows
  // Requests it may have in flight while backing off: 1 at each push
  // back, one more per healthy answer once the gap is at its floor, up to
  // --per-host (origin_backoff.h). Not kept in the record: a restarted
  // back-off starts again at 1.
  uint16_t backoff_concurrency = 1;
  uint8_t server_errors_in_row = 0;  // 5xx other than 503, up to kServerErrorRun
};

// Fields ordered largest first, the rarely set ones behind a pointer: one
// per origin in RAM (bench/RESULTS.md run AN: 328 bytes before; 240 now,
// 264 with its node in the scheduler's map).
struct HostSlot {
  std::string origin;              // "https://example.com" or with ":port"
  // The head of this origin's queue, in RAM, breadth-first (admitted
  // order); with a UrlStore the rest (`backlog` URLs after `loaded_seq`)
  // waits on disk and is loaded when the head runs dry.
  UrlHead waiting;
  // Seqs past loaded_seq that are in RAM already: requisites that jumped a
  // disk backlog (CrawlScheduler::Enqueue), skipped when a refill reaches
  // them; ascending, at most kMaxRequisitesLoadedAhead.
  std::vector<uint64_t> requisites_loaded_ahead;
  // The rules (set once robots.txt is known); kKnown without them: they
  // wait in the store while the origin has nothing in RAM
  // (RobotsKeeper::MaybeSpill).
  std::unique_ptr<RobotsRules> robots;
  // What few origins have (a failure to show, a back-off in force), behind
  // one pointer: null while the origin is healthy (Trouble creates it).
  std::unique_ptr<OriginTrouble> trouble;
  uint64_t backlog = 0;            // waiting URLs on disk only
  uint64_t loaded_seq = 0;         // every seq <= this is in RAM or leased or final
  uint64_t next_seq = 1;           // seq of the next admitted URL
  // Final states the broker has recorded in the store (with the queue
  // entry's deletion): next_seq - 1 - recorded_done - recorded_failed is
  // exactly the number of queue entries on disk.
  uint64_t recorded_done = 0;
  uint64_t recorded_failed = 0;
  // Queue entries that were a continuous crawl's refetches of done URLs,
  // not admissions (next_seq - 1 - refetched URLs were admitted).
  uint64_t refetched = 0;
  uint64_t done = 0;               // for status and the summary
  uint64_t failed = 0;
  int64_t next_fetch_ms = 0;       // earliest start of the next request
  int64_t delay_ms = 0;            // politeness delay, >= the global one
  int64_t robots_fetched_ms = 0;   // when the rules were last learned
  // The store holds the rules once its settled batches reach this.
  uint64_t robots_written_at = UINT64_MAX;
  // Requisites put at the front of `waiting` (CrawlScheduler::Enqueue
  // `soon`): new ones go behind them, so a page's come in page order.
  uint32_t requisites_ahead = 0;
  uint32_t id = 0;                 // the origin's id in the store (its queue keys)
  uint32_t in_flight = 0;          // leased URLs of this origin
  uint32_t retrying = 0;           // its URLs waiting in the retry heap
  uint32_t robots_attempts = 0;
  // Its server address's key (AddressBudgets::KeyOf; 0: not known yet).
  uint32_t address_key = 0;
  RobotsState robots_state = RobotsState::kNotNeeded;
  // The flags are bits: with the address key, the slot stays 240 bytes.
  bool dirty : 1 = false;              // origin record changed since last staged
  bool in_ready_heap : 1 = false;      // at most one heap entry per slot
  bool park_candidate : 1 = false;     // in OriginTable's park candidates
  // Its turn is over (OriginTable::MustYield): no more refills; it
  // parks with its URLs on disk once nothing of it is in flight.
  bool yielding : 1 = false;
  bool refilled : 1 = false;           // a head refill since it was loaded: its turn began
  bool in_line : 1 = false;            // its id is in OriginTable's line (StoredOrigin::in_line)
  // Its latest response time in ms, saturated (OriginPace; in the padding
  // after the flags).
  uint16_t response_ms = 0;

  uint64_t waiting_total() const { return waiting.size() + backlog; }
  OriginTrouble& Trouble() {
    if (!trouble) trouble = std::make_unique<OriginTrouble>();
    return *trouble;
  }
  const std::string& LastFailure() const {
    static const std::string kNone;
    return trouble ? trouble->last_failure : kNone;
  }
  void SetLastFailure(std::string failure) { Trouble().last_failure = std::move(failure); }
};

// A robots.txt asked again after a failure (its attempts are in RAM only:
// such an origin neither parks nor yields).
inline bool RobotsRetrying(const HostSlot& slot) {
  return slot.robots_state == RobotsState::kNeeded && slot.robots_attempts > 0;
}

}  // namespace zcrawl::frontier
