// CrawlScheduler: decides which URL is fetched next, by whom, and when. It
// owns the per-origin queues (HostSlot), a ready-time heap over them, the
// lease table, the retry heap and the per-state counters.
//
// Scheduling: a slot is ready when it has work, fewer than `per_host` URLs in
// flight, and its politeness time has come. The heap orders ready slots by
// (ready time, insertion sequence), so equal times rotate round-robin across
// origins and a huge or slow origin never blocks the others; within an
// origin URLs leave in admission order (breadth-first). With robots.txt on,
// an origin's first lease is always its robots.txt.
//
// With a UrlStore (the frontier always has one), every admitted URL is also
// a queue entry on disk and only a bounded head of each origin's queue is in
// RAM (`head_per_origin`, and `max_head_bytes` over all origins, packed
// records (url_head.h), when URLs are enqueued and when a head is refilled:
// a refill takes at most the origin's fair share of the bound, and past the
// bound kMinRefill URLs, so RAM holds at most max_head_bytes + kMinRefill
// records per origin with URLs waiting); the rest is loaded from disk when
// a head runs dry, in admission order.
// Without one (unit tests) the whole queue is in RAM.
//
// Parking: an origin with nothing in RAM but its slot (nothing in its
// head, leased, waiting for a retry; every final state recorded; its
// politeness time passed) leaves RAM once its record and robots rules are
// written: the store holds its counters (`origins` family), its rules, and
// its name -> id (UrlStore::FindOrigin). Two kinds park:
//   - idle: nothing queued on disk either. A URL admitted for it, or a
//     final state recorded late for it, loads it again (a point read or
//     two). A broad crawl's finished hosts cost no RAM.
//   - waiting its turn: URLs on disk, but RAM holds `max_active_origins`
//     origins and others are waiting. Like Heritrix's inactive queues: an
//     origin whose head runs dry while origins wait (or past the bound)
//     yields instead of refilling, parks once nothing of it is in flight,
//     and goes to the back of the line (`parked_waiting_`: its id, 4 bytes);
//     the front of the line is loaded whenever RAM has room. A broad crawl
//     of 10^7 hosts with URLs queued holds the slots of the bound only.
// Without a store nothing parks.
//
// Claiming is decided here, in memory, by the frontier's one broker thread;
// nothing else reads or writes it, so it has no locks (not thread-safe).
#pragma once

#include <cstdint>
#include <deque>
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
#include "frontier/frontier_options.h"
#include "frontier/host_slot.h"
#include "frontier/origin_name_index.h"
#include "frontier/parked_origin_rows.h"
#include "frontier/url_record.h"
#include "frontier/url_store.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// The defaults are the frontier's own (FrontierOptions): one definition.
struct SchedulerOptions {
  // A recrawl: each lease carries the URL's validators from the store
  // (UrlStore::GetValidators), one point read per lease.
  bool recrawl = false;
  // A continuous crawl: each lease asks the fetcher to report what
  // revalidates the URL (v1::WorkItem.report_validators).
  bool report_validators = false;
  int64_t delay_ms = FrontierOptions{}.delay_ms;
  uint32_t per_host = FrontierOptions{}.per_host;
  bool obey_robots = FrontierOptions{}.obey_robots;
  std::string robots_agent = FrontierOptions{}.robots_agent;
  int64_t lease_ms = FrontierOptions{}.lease_ms;
  uint32_t retries = FrontierOptions{}.retries;
  int64_t retry_base_ms = FrontierOptions{}.retry_base_ms;
  // robots.txt is fetched again after this long (RFC 9309 suggests caching
  // at most 24 hours).
  int64_t robots_ttl_ms = 24 * 3600 * 1000;
  // RAM heads of the disk queues (with a store): URLs loaded per refill, and
  // the most URLs and bytes (UrlHead::bytes) kept in RAM over all origins
  // when enqueueing and refilling. The frontier bounds the bytes by its
  // memory budget (memory_budget.h); tests bound the URLs.
  uint32_t head_per_origin = 64;
  uint64_t max_loaded = UINT64_MAX;
  uint64_t max_head_bytes = UINT64_MAX;
  // Origins with URLs queued that may be in RAM at once (with a store);
  // the others wait their turn parked. The frontier derives it from its
  // memory budget (Broker: ActiveOriginsFor).
  uint64_t max_active_origins = UINT64_MAX;
};

// The block jemalloc hands out for `bytes`: 16-byte steps to 128, then four
// size classes per doubling.
constexpr uint64_t AllocatorSizeClass(uint64_t bytes) {
  if (bytes <= 128) return (bytes + 15) / 16 * 16;
  uint64_t base = 128;
  while (base * 2 < bytes) base *= 2;
  return (bytes + base / 4 - 1) / (base / 4) * (base / 4);
}
static_assert(AllocatorSizeClass(240) == 256 && AllocatorSizeClass(264) == 320 && AllocatorSizeClass(100) == 112);

// URLs a head refill takes when the heads are full, and at least.
inline constexpr uint64_t kMinRefill = 4;
// What a head record is taken to cost before any is loaded (a packed
// record: seq, depth, attempts, flags and the URL less its origin).
inline constexpr uint64_t kTypicalHeadUrlBytes = 64;
// Requisites of one origin that may jump its disk backlog at once (more
// wait their turn on disk, as every URL does after a restart).
inline constexpr size_t kMaxRequisitesLoadedAhead = 1024;

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
  // Re-creates an origin of a resumed crawl; origins come in id order. One
  // with URLs queued gets a slot (they stay on disk until leased), the
  // others stay parked. On a state without the name index
  // (UrlStore::origin_names_indexed), also stages the origin's name.
  Status RestoreOrigin(const StoredOrigin& origin);
  // URLs admitted for `origin` so far (refetches not counted), loading it
  // if parked: the per-host cap's count (AdmissionLimits).
  uint64_t Admitted(std::string_view origin);
  // The broker recorded `state` (final) for a URL of this origin in the
  // store, deleting its queue entry; keeps the origin's record exact
  // (loading the origin if it parked meanwhile).
  void RecordedFinal(uint32_t origin_index, UrlState state);
  // Stages the records of origins changed since the last call (the
  // broker calls it at each commit), moves the robots rules of idle
  // origins to the store once it holds them, and parks the origins with
  // nothing due whose record the store holds.
  void StageDirtyOrigins();
  void set_final_state_handler(FinalStateHandler handler) { on_final_ = std::move(handler); }

  // Leases up to `max` ready URLs to `fetcher`.
  std::vector<v1::WorkItem> Lease(const std::string& fetcher, uint32_t max);

  // Applies a fetcher's report for one lease.
  Completion Complete(const std::string& fetcher, const v1::FetchReport& report);

  // Returns expired leases to the queue (as a failed attempt).
  void ExpireLeases();
  // Gives every lease a full lease time from now (after a wait for disk
  // space, during which none expired).
  void RenewLeases();
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
  int64_t NextEventMs() const;
  // The two halves of NextEventMs: when Lease could next return a URL (may
  // be in the past while no fetcher asks), and the earliest lease deadline.
  int64_t NextReadyMs() const;
  int64_t NextLeaseDeadlineMs() const;

  // No URL waiting and none leased.
  bool Drained() const { return counts_.waiting == 0 && leases_.empty(); }

  const SchedulerCounts& counts() const { return counts_; }
  uint64_t leases_of(const std::string& fetcher) const;
  // Failure reasons and how often each happened.
  const std::map<std::string, uint64_t>& failure_reasons() const { return failure_reasons_; }
  // Attempts that failed and were retried, by reason (a retry that later
  // succeeded leaves its trace only here).
  const std::map<std::string, uint64_t>& retry_reasons() const { return retry_reasons_; }
  // HTTP status classes of completed fetches ("2xx" -> n).
  const std::map<std::string, uint64_t>& status_classes() const { return status_classes_; }
  // The `limit` origins with the most URLs waiting or in flight (or, with
  // `by_done`, the most completed).
  std::vector<v1::HostQueue> TopOrigins(size_t limit, bool by_done = false) const;
  // Origins with failed URLs, those that fetched nothing first, then by
  // failures; each with its last_failure.
  std::vector<v1::HostQueue> FailingOrigins(size_t limit) const;
  // Every origin the crawl knows; those in RAM; those parked in the store
  // (idle or waiting their turn); those in line for a turn (some loaded
  // meanwhile by a URL of theirs).
  size_t origin_count() const { return next_origin_id_; }
  size_t active_origins() const { return slots_.size(); }
  uint64_t parked_origins() const { return parked_; }
  uint64_t origins_in_line() const { return parked_waiting_.size(); }
  // Turns given up by origins with URLs left (yields).
  uint64_t yields() const { return yields_; }
  // Origins loaded back from the store, and reads of a parked origin that
  // failed (each logged).
  uint64_t unparked() const { return unparked_; }
  uint64_t origin_errors() const { return origin_errors_; }
  // URLs of all queue heads in RAM, and how often a head was loaded from disk.
  uint64_t loaded_urls() const { return loaded_; }
  uint64_t head_bytes() const { return head_bytes_; }
  // RAM the slots of the origins in RAM hold (memory_budget.h: what is
  // past its share is withheld from the known-URL cache).
  uint64_t origin_bytes() const {
    return slots_.size() * kSlotBytes + slot_heap_bytes_ + parked_waiting_.size() * sizeof(uint32_t);
  }
  uint64_t refills() const { return refills_; }
  uint64_t backlogged_origins() const { return backlogged_origins_; }
  uint64_t queue_errors() const { return queue_errors_; }
  // Robots rules moved to the store, read back, and asked again because
  // the store did not have them.
  uint64_t robots_spilled() const { return robots_spilled_; }
  uint64_t robots_reloaded() const { return robots_reloaded_; }
  uint64_t robots_reload_misses() const { return robots_reload_misses_; }

 private:
  struct ActiveLease {
    UrlRecord record;
    std::string fetcher;
    int64_t deadline_ms = 0;
    bool robots_only = false;
  };
  struct HeapEntry {
    int64_t ready_ms;
    uint64_t sequence;
    uint32_t slot;
    bool operator>(const HeapEntry& o) const {
      return ready_ms != o.ready_ms ? ready_ms > o.ready_ms : sequence > o.sequence;
    }
  };
  struct RetryEntry {
    int64_t ready_ms;
    uint64_t sequence;
    bool operator>(const RetryEntry& o) const {
      return ready_ms != o.ready_ms ? ready_ms > o.ready_ms : sequence > o.sequence;
    }
  };
  template <typename T>
  using MinHeap = std::priority_queue<T, std::vector<T>, std::greater<T>>;

  // The slot of an origin id, loaded from the store if it is parked.
  HostSlot& Slot(uint32_t id);
  // The slot of `origin` in RAM or loaded if parked; null if unknown.
  HostSlot* FindSlot(std::string_view origin);
  // FindSlot, or a new origin's slot; returns its id.
  uint32_t SlotFor(std::string_view origin);
  HostSlot& NewSlot(uint32_t id, std::string_view origin);
  // A slot from a stored record: a parked origin, or (`restore`) one of a
  // resumed crawl, whose robots rules are an earlier run's.
  HostSlot& LoadSlot(const StoredOrigin& record, bool restore);
  // Nothing of it in RAM but its slot, its record exact (the parking rule
  // above, less the conditions that pass by themselves: a write landing,
  // the politeness time, a heap entry).
  bool Quiet(const HostSlot& slot) const;
  // Quiet, and idle or yielding.
  bool Parkable(const HostSlot& slot) const {
    return Quiet(slot) && (slot.backlog == 0 || slot.yielding);
  }
  // RAM holds more origins than the bound, or as many while others wait.
  bool MustYield() const {
    return slots_.size() > options_.max_active_origins ||
           (!parked_waiting_.empty() && slots_.size() >= options_.max_active_origins);
  }
  // A robots.txt asked again after a failure (its attempts are in RAM
  // only: such an origin neither parks nor yields).
  static bool RobotsRetrying(const HostSlot& slot) {
    return slot.robots_state == RobotsState::kNeeded && slot.robots_attempts > 0;
  }
  // Loads origins from the front of the line while RAM has room.
  void LoadWaitingOrigins();
  // A parked origin's slot, loaded; null (counted, logged) when the store
  // cannot give its record.
  HostSlot* LoadParked(uint32_t id);
  // `written_at`: the settled batches at which the store holds its record.
  void AddParkCandidate(HostSlot& slot, uint64_t written_at);
  // LoadSlot of a parked origin.
  HostSlot& Unpark(const StoredOrigin& record);
  // Its durable record, as staged.
  static StoredOrigin RecordOf(const HostSlot& slot);
  // Its id left the line.
  void LeaveLine(HostSlot& slot);
  void ParkCandidates();
  void Park(HostSlot& slot);
  // A parked origin's status row, kept if it ranks among the failing or
  // the busiest (parked_origin_rows.h).
  void KeepParkedRow(v1::HostQueue row);
  bool HasWork(const HostSlot& slot) const;
  void MaybeSchedule(uint32_t slot_index);
  // Takes one URL from a ready slot into `out`; false if the slot had none.
  bool LeaseFromSlot(uint32_t slot_index, const std::string& fetcher,
                     std::vector<v1::WorkItem>& out);
  // Loads the next part of a slot's queue from disk if its head is empty;
  // false if nothing is left.
  bool EnsureHead(HostSlot& slot, uint32_t slot_index);
  // Every change of a head goes through these, which keep loaded_ and
  // head_bytes_ exact (ChangeHead measures the head before and after).
  template <typename Change>
  void ChangeHead(HostSlot& slot, Change&& change);
  void PushHeadBack(HostSlot& slot, const UrlRecord& record);
  void InsertHead(HostSlot& slot, size_t index, const UrlRecord& record);
  UrlRecord PopHead(HostSlot& slot, uint32_t slot_index);
  void PushHeadFront(HostSlot& slot, const UrlRecord& record);
  void ClearHead(HostSlot& slot);
  // Every change of a slot's heap-held parts (robots rules, last failure,
  // requisites loaded ahead) goes through this, which keeps
  // slot_heap_bytes_ exact.
  template <typename Change>
  void ChangeSlot(HostSlot& slot, Change&& change) {
    const uint64_t before = SlotHeapBytes(slot);
    change();
    slot_heap_bytes_ = slot_heap_bytes_ - before + SlotHeapBytes(slot);
  }
  // Heap bytes of a slot outside slots_: its name, its entry in the name
  // index, its robots rules, last failure and requisites loaded ahead.
  static uint64_t SlotHeapBytes(const HostSlot& slot);
  // A slot in the map: a node (next pointer, id, slot; std::hash of an
  // integer is not cached) at jemalloc's size class (four per doubling),
  // and a bucket pointer.
  static constexpr uint64_t kSlotBytes =
      AllocatorSizeClass(sizeof(void*) + sizeof(std::pair<const uint32_t, HostSlot>)) + sizeof(void*);
  // The heads are at max_loaded URLs or max_head_bytes.
  bool HeadsFull() const;
  // URLs the heads can still take within both bounds.
  uint64_t HeadRoom() const;
  // A head record's bytes: the heads' mean so far, a typical URL's before
  // any is loaded.
  uint64_t HeadUrlBytes() const;
  // URLs a refill of an empty head takes (CrawlScheduler::EnsureHead).
  uint64_t RefillSize() const;
  // Every change of a slot's disk backlog goes through this, which keeps
  // backlogged_origins_ exact.
  void SetBacklog(HostSlot& slot, uint64_t backlog);
  void MarkDirty(HostSlot& slot);
  // A failed fetch of the origin: its last failure, kept in its record too
  // (staged with it), so the status and summary name it after a resume.
  void SetLastFailure(HostSlot& slot, std::string failure);
  void ApplyRobots(uint32_t slot_index, const v1::FetchReport& report, uint32_t attempts,
                   Completion& completion);
  // A robots.txt fetch without an answer (5xx, 429, unreachable, an expired
  // lease, a lost fetcher), its `attempts`th: asked again after the retry
  // backoff, up to the retries; then the origin's URLs fail with `cause`.
  void RobotsUnanswered(uint32_t slot_index, uint32_t attempts, const std::string& cause);
  // The rules just learned (kKnown): also staged in the store, so they can
  // leave RAM while the origin is idle.
  void KeepRobots(uint32_t slot_index);
  // An origin with nothing waiting and nothing in flight holds its robots
  // rules on disk only (a broad crawl knows millions of origins, most idle,
  // and real rules run to kilobytes), once their staged write has landed;
  // until then it is a candidate, looked at again at each commit
  // (StageDirtyOrigins).
  void MaybeSpillRobots(uint32_t slot_index);
  // Reads spilled rules back before a lease; if the store does not have
  // this learning of them, robots.txt is asked again.
  void LoadRobots(uint32_t slot_index);
  // Takes rules learned in this run from the store, those learned at
  // `learned_ms` or (none) any; false if it has none.
  bool ReadStoredRobots(HostSlot& slot, std::optional<int64_t> learned_ms);
  // The rules' Crawl-delay raises the origin's politeness delay.
  void ApplyCrawlDelay(HostSlot& slot);
  // `completion`: set when called for a report (the broker records the
  // final state itself); else the final state goes to on_final_.
  void RetryOrFail(UrlRecord record, const std::string& reason, int64_t min_delay_ms,
                   Completion* completion = nullptr);
  void Fail(const UrlRecord& record, const std::string& reason, Completion* completion = nullptr);
  void FailAllWaiting(uint32_t slot_index, const std::string& reason);
  void ReturnLease(uint64_t lease_id, const std::string& reason, bool count_attempt);
  int64_t BackoffMs(uint32_t attempts) const;

  const SchedulerOptions options_;
  const Clock& clock_;
  UrlStore* store_;

  // The origins in RAM by id. A node-based map: references to slots stay
  // valid as origins come and go (the name index points at them), and no
  // array doubles (at 1.4 x 10^5 origins a vector held capacity for
  // 2.6 x 10^5, ~40 MB unused).
  std::unordered_map<uint32_t, HostSlot> slots_;
  OriginNameIndex slot_by_origin_;
  uint32_t next_origin_id_ = 0;
  uint64_t parked_ = 0;
  uint64_t unparked_ = 0;
  uint64_t yields_ = 0;
  // Parked origins with URLs queued, in the order they parked; not loaded
  // before this time after a read of one failed.
  std::deque<uint32_t> parked_waiting_;
  int64_t line_retry_ms_ = INT64_MIN;
  uint64_t origin_errors_ = 0;
  // Origins with nothing due, waiting for their record to be written (the
  // store write at which it is), their politeness time or their rules'
  // spill before they park.
  std::vector<std::pair<uint32_t, uint64_t>> park_candidates_;
  // The status rows of parked origins: most failed, most fetched. The
  // status shows 10 and the summary 5; a few more stand in for rows that
  // leave when their origin is loaded again.
  static constexpr size_t kParkedRows = 32;
  // The status orders: failing (those that fetched nothing first, then by
  // failures), busiest (most completed), most waiting or in flight.
  static bool FailingBefore(const OriginCounts& a, const OriginCounts& b);
  static bool BusiestBefore(const OriginCounts& a, const OriginCounts& b);
  static bool MostQueuedBefore(const OriginCounts& a, const OriginCounts& b);
  static v1::HostQueue HostRow(const HostSlot& slot);
  // The best `limit` by `before` of the slots in RAM (`failing_only`: with
  // failures) and the `parked` rows.
  std::vector<v1::HostQueue> BestOrigins(size_t limit, OriginOrder before, bool failing_only,
                                         const std::vector<v1::HostQueue>& parked) const;
  ParkedOriginRows parked_failing_;
  ParkedOriginRows parked_busiest_;
  MinHeap<HeapEntry> ready_heap_;
  uint64_t heap_sequence_ = 0;

  std::unordered_map<uint64_t, ActiveLease> leases_;
  MinHeap<std::pair<int64_t, uint64_t>> lease_deadlines_;  // (deadline, lease id), lazy
  uint64_t next_lease_id_ = 1;

  MinHeap<RetryEntry> retry_heap_;
  std::unordered_map<uint64_t, UrlRecord> retry_records_;  // by RetryEntry::sequence

  FinalStateHandler on_final_;
  std::vector<uint32_t> dirty_slots_;
  uint64_t loaded_ = 0;      // URLs in all heads
  uint64_t head_bytes_ = 0;  // UrlHead::bytes of all heads
  uint64_t backlogged_origins_ = 0;  // slots with URLs waiting on disk only
  uint64_t slot_heap_bytes_ = 0;  // SlotHeapBytes of all slots
  uint64_t refills_ = 0;
  uint64_t queue_errors_ = 0;
  uint64_t robots_spilled_ = 0;
  uint64_t robots_reloaded_ = 0;
  uint64_t robots_reload_misses_ = 0;
  // Tells this run's spilled rules from an earlier run's (lease epoch).
  uint64_t run_token_ = 0;
  std::vector<uint32_t> robots_spill_candidates_;  // idle, rules not yet written
  SchedulerCounts counts_;
  std::map<std::string, uint64_t> failure_reasons_;
  std::map<std::string, uint64_t> retry_reasons_;
  std::map<std::string, uint64_t> status_classes_;
  std::string robots_scratch_;  // RobotsTarget's, for a URL without a leading '/'
};

}  // namespace zcrawl::frontier
