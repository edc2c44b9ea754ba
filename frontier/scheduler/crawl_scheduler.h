// CrawlScheduler: decides which URL is fetched next, by whom, and when;
// the frontier's scheduler contract (Scrapy's is enqueue_request,
// next_request, has_pending_requests): Enqueue, Lease, Complete, Drained.
//
// Scheduling: an origin is ready when it has work, fewer than `per_host`
// URLs in flight, and its politeness time has come. A heap orders ready
// origins by (ready time, insertion sequence), so equal times rotate
// round-robin across origins and a huge or slow origin never blocks the
// others; within an origin URLs leave in admission order (breadth-first).
// With robots.txt on, an origin's first lease is always its robots.txt.
//
// The parts it coordinates, each with its own contract:
//   OriginTable      the origins (HostSlot) in RAM, parked, and in line
//   QueueHeads       the parts of their queues in RAM, and refills from disk
//   RobotsKeeper     each origin's robots.txt rules and where they live
//   LeaseTable       what fetchers hold (the atomic claim on a report)
//   RetryQueue       URLs waiting out a back-off
//   OriginStatusBoard  the per-origin rows of the status and summary
//   OriginPace       an origin's gap between requests and concurrency
//   AddressBudgets   the budget origins on one server address share
//   OriginBackoff    how an origin that pushes back is slowed (its rules)
//   fetch_outcome.h  what a report means (reasons, retryable, back-off)
// This class owns the ready heap, the state counts, and the rules that
// move a URL between states (waiting, leased, done, failed).
//
// Claiming is decided here, in memory, by the frontier's one broker thread;
// nothing else reads or writes it, so it has no locks (not thread-safe).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/clock.h"
#include "frontier/control/block_list.h"
#include "frontier/control/pace_overrides.h"
#include "frontier/scheduler/address_budgets.h"
#include "frontier/scheduler/crawl_tallies.h"
#include "frontier/scheduler/fetch_outcome.h"
#include "frontier/frontier_options.h"
#include "frontier/scheduler/host_slot.h"
#include "frontier/scheduler/lease_table.h"
#include "frontier/scheduler/origin_backoff.h"
#include "frontier/scheduler/origin_memory.h"
#include "frontier/scheduler/origin_pace.h"
#include "frontier/scheduler/origin_status_board.h"
#include "frontier/scheduler/origin_table.h"
#include "frontier/scheduler/queue_heads.h"
#include "frontier/scheduler/retry_queue.h"
#include "frontier/scheduler/robots_keeper.h"
#include "frontier/store/url_record.h"
#include "frontier/store/url_store.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// The frontier's settings (FrontierOptions) the scheduler takes, as the
// same structs, and what the frontier derives for it.
struct SchedulerOptions {
  // A recrawl: each lease carries the URL's validators from the store
  // (UrlStore::GetValidators), one point read per lease.
  bool recrawl = false;
  // A continuous crawl: each lease asks the fetcher to report what
  // revalidates the URL (v1::WorkItem.report_validators).
  bool report_validators = false;
  PolitenessOptions politeness;
  LeaseOptions leases;
  // robots.txt is fetched again after this long (RobotsKeeperOptions).
  int64_t robots_ttl_ms = kRobotsTtlMs;
  // RAM heads of the disk queues (with a store). The frontier bounds the
  // bytes by its memory budget (memory_budget.h); tests bound the URLs.
  QueueHeadLimits heads;
  // Origins with URLs queued that may be in RAM at once (with a store);
  // the others wait their turn parked. The frontier derives it from its
  // memory budget (Broker: ActiveOriginsFor).
  uint64_t max_active_origins = UINT64_MAX;
};

struct SchedulerCounts {
  uint64_t waiting = 0;  // in origin queues or waiting for a retry
  uint64_t leased = 0;
  uint64_t done = 0;
  uint64_t failed = 0;
  uint64_t retried = 0;
  uint64_t expired_leases = 0;
};

// What the broker needs to know after a report.
struct Completion {
  bool known_lease = false;  // false: stale or unknown lease, report ignored
  bool follow_links = false; // true: admit report.links at depth + 1
  uint32_t depth = 0;        // depth of the reported URL
  uint32_t embed_hops = 0;   // > 0: it is a requisite outside the scope
  uint32_t redirect_hops = 0;  // redirects taken to reach it
  std::string origin;        // origin of the reported URL
  uint32_t origin_index = 0; // its slot (= origin id in the store)
  uint64_t seq = 0;          // its queue entry
  std::string url;
  // kDone or kFailed when the URL reached its final state with this report
  // (the broker records it durably); kWaiting when it will be retried or
  // was robots.txt.
  UrlState final_state = UrlState::kWaiting;
  std::string reason;        // for kFailed
  uint32_t attempts = 0;
  std::vector<std::string> sitemaps;  // from a parsed robots.txt
};

// Called for URLs that reach a final state outside Complete() (robots
// rules, retries exhausted after lease expiry or a lost fetcher).
using FinalStateHandler =
    std::function<void(const UrlRecord&, UrlState state, const std::string& reason)>;

class CrawlScheduler {
 public:
  // `store`: where queues live (null: all in RAM). Not owned.
  CrawlScheduler(SchedulerOptions options, const Clock& clock, UrlStore* store = nullptr);

  // Adds a URL that the seen set has just admitted (with a store: stages
  // its queue entry). `soon`: a page requisite, put at the front of its
  // origin's queue (behind earlier requisites) when that queue is all in
  // RAM, so that a page's requisites are fetched soon after it.
  void Enqueue(std::string url, std::string_view origin, uint32_t depth, uint32_t attempts = 0,
               uint32_t redirect_hops = 0, uint32_t embed_hops = 0, bool soon = false);
  // Queues a done URL again, for a continuous crawl's refetch: like
  // Enqueue, but counted as a refetch, not an admission (HostSlot::refetched).
  void EnqueueRefetch(std::string url, std::string_view origin, uint32_t depth, uint32_t redirect_hops,
                      uint32_t embed_hops);
  // Re-creates an origin of a resumed crawl (OriginTable::Restore); origins
  // come in id order. On a state without the name index
  // (UrlStore::origin_names_indexed), also stages the origin's name.
  Status RestoreOrigin(const StoredOrigin& origin);
  // URLs admitted for `origin` so far (refetches not counted), loading it
  // if parked: the per-host cap's count (AdmissionLimits).
  uint64_t Admitted(std::string_view origin) { return origins_.Admitted(origin); }
  // The broker recorded `state` (final) for a URL of this origin in the
  // store, deleting its queue entry; keeps the origin's record exact
  // (loading the origin if it parked meanwhile).
  void RecordedFinal(uint32_t origin_index, UrlState state) { origins_.RecordedFinal(origin_index, state); }
  // Stages the records of origins changed since the last call (the
  // broker calls it at each commit), and parks what may park
  // (OriginTable::StageDirty).
  void StageDirtyOrigins() {
    origins_.StageDirty();
    addresses_.Sweep(clock_.NowMs());
  }
  void set_final_state_handler(FinalStateHandler handler) { on_final_ = std::move(handler); }

  // Leases up to `max` ready URLs to `fetcher`.
  std::vector<v1::WorkItem> Lease(const std::string& fetcher, uint32_t max);

  // Applies a fetcher's report for one lease.
  Completion Complete(const std::string& fetcher, const v1::FetchReport& report);

  // Returns expired leases to the queue (as a failed attempt).
  void ExpireLeases();
  // Gives every lease a full lease time from now (after a wait for disk
  // space, during which none expired).
  void RenewLeases() { leases_.ExtendAll(clock_.NowMs() + options_.leases.lease_ms); }
  // Returns every lease of `fetcher` to the queue. `count_attempt`: the
  // fetcher died (may have been killed by the URL) rather than left politely.
  void ReleaseFetcher(const std::string& fetcher, bool count_attempt);
  // A fetcher said Ready again, holding `held`: returns its other leases at
  // once, as not attempted (their reports, or their batch, were lost with
  // its old connection). Returns how many.
  uint64_t ReturnLeasesNotHeld(const std::string& fetcher, const std::unordered_set<uint64_t>& held);
  // Returns leases that never left (their WorkBatch could not be sent): at
  // once, as not attempted.
  void ReturnUnsent(const std::vector<uint64_t>& lease_ids);

  // Moves retries whose time has come back into their origin queues.
  void PromoteDueRetries();

  // Earliest monotonic time at which Lease could return something new or a
  // lease could expire; INT64_MAX when nothing is pending.
  int64_t NextEventMs() const { return std::min(NextReadyMs(), NextLeaseDeadlineMs()); }
  // The two halves of NextEventMs: when Lease could next return a URL (may
  // be in the past while no fetcher asks), and the earliest lease deadline.
  int64_t NextReadyMs() const;
  int64_t NextLeaseDeadlineMs() const { return leases_.NextDeadlineMs(); }

  // No URL waiting and none leased.
  bool Drained() const { return counts_.waiting == 0 && leases_.empty(); }

  const SchedulerCounts& counts() const { return counts_; }
  uint64_t leases_of(const std::string& fetcher) const { return leases_.CountOf(fetcher); }
  // Failure reasons and how often each happened.
  const std::map<std::string, uint64_t>& failure_reasons() const { return tallies_.failures(); }
  // Attempts that failed and were retried, by reason (a retry that later
  // succeeded leaves its trace only here).
  const std::map<std::string, uint64_t>& retry_reasons() const { return tallies_.retries(); }
  // HTTP status classes of completed fetches ("2xx" -> n).
  const std::map<std::string, uint64_t>& status_classes() const { return tallies_.status_classes(); }
  // All three, to stage in and restore from the state (crawl_tallies.h).
  CrawlTallies& tallies() { return tallies_; }
  // The per-origin rows (OriginStatusBoard).
  std::vector<v1::HostQueue> TopOrigins(size_t limit, bool by_done = false) const {
    return board_.Top(origins_.slots(), limit, by_done);
  }
  std::vector<v1::HostQueue> FailingOrigins(size_t limit) const {
    return board_.Failing(origins_.slots(), limit);
  }
  std::vector<v1::HostQueue> SlowedOrigins(size_t limit) const { return board_.Slowed(origins_.slots(), limit); }
  // The parts' figures, for the status, metrics and summary.
  const OriginTable& origins() const { return origins_; }
  const QueueHeads& heads() const { return heads_; }
  const RobotsKeeper& robots() const { return robots_; }
  // Answers that pushed an origin back (OriginBackoff::Observe), and the
  // origins in RAM backing off now (counted when asked: a metrics scrape).
  uint64_t pushbacks() const { return pushbacks_; }
  uint64_t origins_backing_off() const;
  // URLs answered 429/503 put back without using a retry, because their
  // origin was already pushing back (OriginBackoff::HeldByServer).
  uint64_t held_by_server() const { return held_by_server_; }
  // Responses 429 and 503 received (pages and robots.txt).
  uint64_t answered_429() const { return answered_429_; }
  uint64_t answered_503() const { return answered_503_; }
  // The per-address budgets (their figures: tracked(), waits()).
  const AddressBudgets& addresses() const { return addresses_; }
  // The operator's blocks and politeness overrides (frontier/control),
  // owned by the broker; null: none.
  void UseControls(BlockList* blocks, const PaceOverrides* overrides) {
    blocks_ = blocks;
    pace_.UseOverrides(overrides);
  }
  // A control changed: origins in RAM that may lease now (a block to
  // apply, a faster override) are scheduled again.
  void ControlsChanged();

 private:
  // Whether the origin can lease now or later: work, room under its
  // concurrency (per_host, or 1 while it pushes back),
  // robots.txt not in flight, and not yielding with nothing in RAM.
  bool HasWork(const HostSlot& slot) const;
  // Puts a slot with work in the ready heap (once).
  void MaybeSchedule(uint32_t slot_index);
  // Takes one URL from a ready slot into `out`; false if the slot had none.
  bool LeaseFromSlot(HostSlot& slot, const std::string& fetcher, std::vector<v1::WorkItem>& out);
  // A head with URLs in it, refilled from disk if it was empty; false if
  // nothing is left (or the disk failed: then in a second).
  bool EnsureHead(HostSlot& slot);
  // A robots.txt fetch's report.
  void ApplyRobots(HostSlot& slot, const v1::FetchReport& report, uint32_t attempts, Completion& completion);
  // A robots.txt fetch without an answer (5xx, 429, unreachable, an expired
  // lease, a lost fetcher), its `attempts`th: asked again after the retry
  // backoff, up to the retries; then the origin's URLs fail with `cause`.
  void RobotsUnanswered(HostSlot& slot, uint32_t attempts, const std::string& cause);
  // `completion`: set when called for a report (the broker records the
  // final state itself); else the final state goes to on_final_.
  void RetryOrFail(UrlRecord record, const std::string& reason, int64_t min_delay_ms,
                   Completion* completion = nullptr);
  void Fail(const UrlRecord& record, const std::string& reason, Completion* completion = nullptr);
  void FailAllWaiting(HostSlot& slot, const std::string& reason);
  // A 429 or 503 while its origin pushes back: the URL waits in its
  // origin's queue with its retries intact, unless the origin has
  // answered only so for --rate-limited-max-ms (then its URLs fail).
  void HoldForServer(HostSlot& slot, UrlRecord record, Completion& completion);
  // A request to the address `address_key` ended: origins that waited for
  // room there are scheduled again.
  void ReturnToAddress(uint32_t address_key);
  // The origin's server address, from a report of one of its fetches.
  void LearnAddress(HostSlot& slot, const v1::FetchReport& report);
  void ReturnLease(uint64_t lease_id, const std::string& reason, bool count_attempt);

  struct HeapEntry {
    int64_t ready_ms;
    uint64_t sequence;
    uint32_t slot;
    bool operator>(const HeapEntry& o) const {
      return ready_ms != o.ready_ms ? ready_ms > o.ready_ms : sequence > o.sequence;
    }
  };

  const SchedulerOptions options_;
  const Clock& clock_;
  UrlStore* store_;

  // The parts, in the order they are built (each takes those before it).
  OriginMemory memory_;
  QueueHeads heads_;
  LeaseTable leases_;
  RobotsKeeper robots_;
  OriginStatusBoard board_;
  OriginTable origins_;
  RetryQueue retries_;
  OriginBackoff backoff_;
  OriginPace pace_;
  AddressBudgets addresses_;
  BlockList* blocks_ = nullptr;
  uint64_t pushbacks_ = 0;
  uint64_t held_by_server_ = 0;
  uint64_t answered_429_ = 0;
  uint64_t answered_503_ = 0;

  std::priority_queue<HeapEntry, std::vector<HeapEntry>, std::greater<HeapEntry>> ready_heap_;
  uint64_t heap_sequence_ = 0;
  FinalStateHandler on_final_;
  SchedulerCounts counts_;
  CrawlTallies tallies_;
};

}  // namespace zcrawl::frontier
