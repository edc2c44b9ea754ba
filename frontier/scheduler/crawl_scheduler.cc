#include "frontier/scheduler/crawl_scheduler.h"

#include <algorithm>
#include <climits>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

std::string_view UrlStateName(UrlState state) {
  switch (state) {
    case UrlState::kWaiting: return "waiting";
    case UrlState::kLeased: return "leased";
    case UrlState::kDone: return "done";
    case UrlState::kFailed: return "failed";
  }
  return "unknown";
}

CrawlScheduler::CrawlScheduler(SchedulerOptions options, const Clock& clock, UrlStore* store)
    : options_(std::move(options)),
      clock_(clock),
      store_(store),
      heads_(options_.heads, store, memory_),
      robots_(RobotsKeeperOptions{options_.politeness.robots_agent, options_.robots_ttl_ms}, store, clock, memory_,
              leases_.epoch()),
      origins_(OriginTableOptions{options_.politeness, options_.max_active_origins}, store, clock, memory_,
               heads_, robots_, board_),
      backoff_(options_.politeness),
      pace_(options_.politeness),
      addresses_(options_.politeness) {
  board_.ShowPace(&pace_, &clock_);
}

bool CrawlScheduler::HasWork(const HostSlot& slot) const {
  if (slot.in_flight >= pace_.Concurrency(slot)) return false;
  // A yielding origin leases what it has in RAM (a retry, a robots.txt
  // being asked again), no more: the rest waits for its next turn.
  if (slot.yielding && slot.waiting.empty() && !RobotsRetrying(slot)) return false;
  switch (slot.robots_state) {
    case RobotsState::kNeeded: return slot.waiting_total() > 0;
    case RobotsState::kFetching: return false;
    case RobotsState::kNotNeeded:
    case RobotsState::kKnown: return slot.waiting_total() > 0;
  }
  return false;
}

void CrawlScheduler::MaybeSchedule(uint32_t slot_index) {
  HostSlot& slot = origins_.Slot(slot_index);
  if (slot.in_ready_heap || !HasWork(slot)) return;
  slot.in_ready_heap = true;
  ready_heap_.push({slot.next_fetch_ms, heap_sequence_++, slot_index});
}

void CrawlScheduler::Enqueue(std::string url, std::string_view origin, uint32_t depth,
                             uint32_t attempts, uint32_t redirect_hops, uint32_t embed_hops, bool soon) {
  const uint32_t index = origins_.IdFor(origin);
  HostSlot& slot = origins_.Slot(index);
  UrlRecord record{std::move(url), index, depth, attempts, slot.next_seq++, redirect_hops, embed_hops};
  origins_.MarkDirty(slot);
  ++counts_.waiting;
  // A requisite jumps the queue, also a disk backlog: its seq is then
  // remembered as loaded ahead of loaded_seq, and a refill that reaches it
  // skips it. Within bounds (RAM, kMaxRequisitesLoadedAhead); past them,
  // and after a restart, it waits its turn on disk like a link.
  soon = soon && !heads_.Full() &&
         (slot.backlog == 0 || slot.requisites_loaded_ahead.size() < kMaxRequisitesLoadedAhead);
  if (store_) {
    store_->StageQueued(index, slot.origin,
                        QueuedUrl{record.seq, record.url, depth, attempts, redirect_hops, embed_hops});
    if (!soon && (slot.backlog > 0 || slot.waiting.size() >= heads_.head_per_origin() || heads_.Full() ||
                  slot.yielding)) {
      heads_.SetBacklog(slot, slot.backlog + 1);  // waits on disk, behind what is there already
      MaybeSchedule(index);
      return;
    }
  }
  if (slot.backlog == 0) {
    slot.loaded_seq = record.seq;
    // All at or below loaded_seq now.
    memory_.Change(slot, [&] { std::vector<uint64_t>().swap(slot.requisites_loaded_ahead); });
  } else {
    memory_.Change(slot, [&] { slot.requisites_loaded_ahead.push_back(record.seq); });
  }
  if (soon) {
    heads_.Insert(slot, std::min<size_t>(slot.requisites_ahead, slot.waiting.size()), record);
    ++slot.requisites_ahead;
  } else {
    heads_.PushBack(slot, record);
  }
  MaybeSchedule(index);
}

void CrawlScheduler::EnqueueRefetch(std::string url, std::string_view origin, uint32_t depth,
                                    uint32_t redirect_hops, uint32_t embed_hops) {
  ++origins_.Slot(origins_.IdFor(origin)).refetched;  // Enqueue marks the slot dirty
  Enqueue(std::move(url), origin, depth, /*attempts=*/0, redirect_hops, embed_hops);
}

Status CrawlScheduler::RestoreOrigin(const StoredOrigin& origin) {
  bool loaded = false;
  if (Status s = origins_.Restore(origin, &loaded); !s.ok()) return s;
  counts_.done += origin.done;
  counts_.failed += origin.failed;
  counts_.waiting += origin.queued();
  if (loaded) MaybeSchedule(origin.id);
  return Status::Ok();
}

std::vector<v1::WorkItem> CrawlScheduler::Lease(const std::string& fetcher, uint32_t max) {
  std::vector<v1::WorkItem> out;
  PromoteDueRetries();
  for (uint32_t id : origins_.LoadWaiting()) MaybeSchedule(id);
  const int64_t now = clock_.NowMs();
  while (out.size() < max && !ready_heap_.empty()) {
    const HeapEntry top = ready_heap_.top();
    if (top.ready_ms > now) break;
    ready_heap_.pop();
    HostSlot& slot = origins_.Slot(top.slot);
    slot.in_ready_heap = false;
    if (!HasWork(slot)) continue;
    if (slot.next_fetch_ms > now) {  // the delay grew since it was queued
      MaybeSchedule(top.slot);
      continue;
    }
    if (const int64_t address_ready = addresses_.ReadyMs(slot.address_key, now); address_ready > now) {
      // Its server address has no room: it waits for a request there to
      // end, or for the address's delay. Marked in the heap meanwhile, so
      // nothing else schedules it twice (and it does not park).
      slot.in_ready_heap = true;
      if (address_ready == INT64_MAX) {
        addresses_.Wait(slot.address_key, top.slot);
      } else {
        ready_heap_.push({address_ready, heap_sequence_++, top.slot});
      }
      continue;
    }
    if (slot.waiting.empty() && slot.backlog > 0 && slot.refilled && origins_.MustYield() &&
        !RobotsRetrying(slot)) {
      // Its head ran dry, after a refill at least, while others wait for
      // a turn: it parks instead of refilling, once nothing of it is in
      // flight.
      origins_.Yield(slot);
      continue;
    }
    if (LeaseFromSlot(slot, fetcher, out)) {
      slot.next_fetch_ms = now + pace_.GapMs(slot);
      addresses_.Leased(slot.address_key, now);
    }
    MaybeSchedule(top.slot);
  }
  return out;
}

bool CrawlScheduler::EnsureHead(HostSlot& slot) {
  if (!slot.waiting.empty()) return true;
  const QueueHeads::Refill refill = heads_.RefillHead(slot);
  // Try again in a second rather than spinning on a failing disk.
  if (refill.failed) slot.next_fetch_ms = std::max(slot.next_fetch_ms, clock_.NowMs() + 1000);
  counts_.waiting -= refill.missing;
  return !slot.waiting.empty();
}

bool CrawlScheduler::LeaseFromSlot(HostSlot& slot, const std::string& fetcher,
                                   std::vector<v1::WorkItem>& out) {
  ActiveLease lease;
  lease.fetcher = fetcher;
  lease.leased_ms = clock_.NowMs();
  lease.deadline_ms = lease.leased_ms + options_.leases.lease_ms;
  lease.address_key = slot.address_key;
  if (blocks_ != nullptr && !blocks_->empty() && blocks_->BlocksOrigin(slot.origin)) {
    // Blocked whole: not even its robots.txt is asked for.
    const uint64_t failed_before = counts_.failed;
    FailAllWaiting(slot, "blocked");
    blocks_->CountBlocked(slot.origin, counts_.failed - failed_before);
    return false;
  }
  robots_.PrepareForLease(slot);
  if (slot.robots_state == RobotsState::kNeeded) {
    slot.robots_state = RobotsState::kFetching;
    lease.robots_only = true;
    lease.record = UrlRecord{slot.origin + "/robots.txt", slot.id, 0, slot.robots_attempts};
  } else {
    // Skip (and fail) URLs that robots.txt forbids without spending the
    // politeness slot on them.
    bool found = false;
    while (!found && (slot.yielding ? !slot.waiting.empty() : EnsureHead(slot))) {
      UrlRecord front = heads_.PopFront(slot);
      --counts_.waiting;
      if (!robots_.Allows(slot, front.url)) {
        Fail(front, "robots_disallowed");
        continue;
      }
      if (blocks_ != nullptr && !blocks_->empty() && blocks_->Match(front.url, slot.origin) != nullptr) {
        Fail(front, "blocked");
        continue;
      }
      lease.record = std::move(front);
      found = true;
    }
    if (!found) {
      robots_.MaybeSpill(slot);  // every URL it had was disallowed
      return false;
    }
  }
  v1::WorkItem& item = out.emplace_back();
  item.set_url(lease.record.url);
  item.set_depth(lease.record.depth);
  item.set_redirect_hops(lease.record.redirect_hops);
  item.set_embed_hops(lease.record.embed_hops);
  item.set_lease_deadline_ms(static_cast<uint64_t>(clock_.WallMs() + options_.leases.lease_ms));
  item.set_attempt(lease.record.attempts + 1);
  item.set_robots_only(lease.robots_only);
  item.set_report_validators(options_.report_validators && !lease.robots_only);
  if (options_.recrawl && store_ && !lease.robots_only) {
    std::string validators;
    if (store_->GetValidators(store_->KeyOf(lease.record.url), &validators) &&
        !item.mutable_previous()->ParseFromString(validators)) {
      item.clear_previous();  // a damaged entry costs the condition, not the fetch
    }
  }
  ++slot.in_flight;
  item.set_lease_id(leases_.Add(std::move(lease)));
  counts_.leased = leases_.size();
  return true;
}

Completion CrawlScheduler::Complete(const std::string& fetcher, const v1::FetchReport& report) {
  Completion completion;
  // The lease must match in id, URL and holder: a report from anyone else
  // (stale, or a confused peer) changes nothing.
  std::optional<ActiveLease> taken = leases_.TakeMatching(report.lease_id(), report.url(), fetcher);
  if (!taken) return completion;
  ActiveLease& lease = *taken;
  counts_.leased = leases_.size();
  completion.known_lease = true;
  completion.depth = lease.record.depth;
  completion.embed_hops = lease.record.embed_hops;
  completion.redirect_hops = lease.record.redirect_hops;
  completion.url = lease.record.url;
  completion.attempts = lease.record.attempts + 1;
  const uint32_t slot_index = lease.record.origin;
  HostSlot& slot = origins_.Slot(slot_index);
  completion.origin = slot.origin;
  completion.origin_index = slot_index;
  completion.seq = lease.record.seq;
  if (slot.in_flight > 0) --slot.in_flight;
  addresses_.Name(lease.address_key, report.server_address());
  ReturnToAddress(lease.address_key);
  LearnAddress(slot, report);

  if (report.status() == v1::FETCH_STATUS_OK) {
    OriginPace::ObserveResponse(slot, report.fetch_ms());
    // This request's start was the latest the rule could not yet know of.
    slot.next_fetch_ms = std::max(slot.next_fetch_ms, lease.leased_ms + pace_.ResponseGapMs(slot));
    answered_429_ += report.http_status() == 429;
    answered_503_ += report.http_status() == 503;
  }
  const bool was_backing_off = OriginBackoff::BackingOff(slot);
  memory_.Change(slot, [&] {
    if (backoff_.Observe(slot, report, clock_.NowMs(), lease.leased_ms, pace_.GapMs(slot))) ++pushbacks_;
  });
  // A back-off is kept in the origin's record: it holds after parking and
  // across a restart.
  if (was_backing_off || OriginBackoff::BackingOff(slot)) origins_.MarkDirty(slot);
  const bool failed = report.status() != v1::FETCH_STATUS_OK || report.http_status() >= 400;
  if (failed && !(lease.robots_only && report.http_status() >= 400 && report.http_status() < 500)) {
    // (a robots.txt 4xx is no failure: RFC 9309 reads it as "allow all")
    origins_.SetLastFailure(slot, (lease.robots_only ? "robots.txt: " : "") + DescribeFailure(report));
  }
  if (lease.robots_only) {
    ApplyRobots(slot, report, lease.record.attempts + 1, completion);
    MaybeSchedule(slot_index);
    return completion;
  }

  const uint32_t http = report.http_status();
  if (report.status() == v1::FETCH_STATUS_OK) {
    tallies_.CountStatusClass(StatusClass(http));
    if (IsServerStatePushBack(report) && OriginBackoff::HeldByServer(slot, lease.leased_ms)) {
      HoldForServer(slot, std::move(lease.record), completion);
    } else if (http == 429 || http >= 500) {
      RetryOrFail(std::move(lease.record), "http_" + std::to_string(http),
                  std::min<int64_t>(report.retry_after_ms(), kMaxRetryAfterMs), &completion);
    } else if (http >= 400) {
      Fail(lease.record, "http_" + std::to_string(http), &completion);
      completion.follow_links = !report.links().empty();  // error pages may link on
    } else {
      ++counts_.done;
      ++slot.done;
      completion.final_state = UrlState::kDone;
      completion.follow_links = true;
    }
  } else if (IsRetryableStatus(report.status())) {
    RetryOrFail(std::move(lease.record), FetchStatusReason(report), 0, &completion);
  } else {
    Fail(lease.record, FetchStatusReason(report), &completion);
  }
  robots_.MaybeSpill(slot);
  MaybeSchedule(slot_index);
  return completion;
}

void CrawlScheduler::ApplyRobots(HostSlot& slot, const v1::FetchReport& report, uint32_t attempts,
                                 Completion& completion) {
  switch (robots_.Learn(slot, report, &completion.sitemaps)) {
    case RobotsKeeper::Answer::kLearned: return;
    case RobotsKeeper::Answer::kPrivateAddress:
      // Its pages would be refused the same way: they fail now, with that
      // reason. robots.txt stays needed, so a URL admitted later asks again
      // (a refusal costs no request) in case the name now resolves elsewhere.
      slot.robots_state = RobotsState::kNeeded;
      slot.robots_attempts = 0;
      FailAllWaiting(slot, "private_address");
      return;
    case RobotsKeeper::Answer::kUnanswered:
      // The reason names the cause: "robots_unavailable: connection_refused".
      RobotsUnanswered(slot, attempts,
                       report.status() == v1::FETCH_STATUS_OK ? "http_" + std::to_string(report.http_status())
                                                              : FetchStatusReason(report));
      return;
  }
}

void CrawlScheduler::RobotsUnanswered(HostSlot& slot, uint32_t attempts, const std::string& cause) {
  if (attempts <= options_.leases.retries) {
    slot.robots_attempts = attempts;
    slot.robots_state = RobotsState::kNeeded;
    slot.next_fetch_ms =
        std::max(slot.next_fetch_ms, clock_.NowMs() + RetryBackoffMs(options_.leases.retry_base_ms, attempts));
    ++counts_.retried;
    return;
  }
  robots_.GiveUp(slot);
  spdlog::warn("robots.txt unavailable origin={} attempts={} cause={}: its URLs fail", slot.origin,
               attempts, slot.LastFailure());
  FailAllWaiting(slot, "robots_unavailable: " + cause);
}

void CrawlScheduler::RetryOrFail(UrlRecord record, const std::string& reason, int64_t min_delay_ms,
                                 Completion* completion) {
  ++record.attempts;
  if (record.attempts > options_.leases.retries) {
    Fail(record, reason, completion);
    return;
  }
  ++counts_.retried;
  tallies_.CountRetry(reason);
  ++counts_.waiting;
  const int64_t ready =
      clock_.NowMs() + std::max(RetryBackoffMs(options_.leases.retry_base_ms, record.attempts), min_delay_ms);
  ++origins_.Slot(record.origin).retrying;
  retries_.Push(std::move(record), ready);
}

void CrawlScheduler::ReturnToAddress(uint32_t address_key) {
  for (uint32_t id : addresses_.Returned(address_key, clock_.NowMs())) {
    // It waited in no heap: marked so only while it waited (Lease).
    if (HostSlot* waiting = origins_.Loaded(id)) {
      waiting->in_ready_heap = false;
      MaybeSchedule(id);
    }
  }
}

void CrawlScheduler::LearnAddress(HostSlot& slot, const v1::FetchReport& report) {
  if (report.server_address().empty()) return;
  // After a redirect to another origin the address is that origin's.
  const std::string& final_url = report.final_url();
  if (!final_url.empty() && final_url != report.url() &&
      !(final_url.starts_with(slot.origin) &&
        (final_url.size() == slot.origin.size() || final_url[slot.origin.size()] == '/'))) {
    return;
  }
  const uint32_t key = AddressBudgets::KeyOf(report.server_address());
  if (key == slot.address_key) return;
  slot.address_key = key;
  addresses_.Learn(key, report.server_address());
  origins_.MarkDirty(slot);
}

void CrawlScheduler::HoldForServer(HostSlot& slot, UrlRecord record, Completion& completion) {
  if (backoff_.LimitedTooLong(slot, clock_.NowMs())) {
    Fail(record, "rate_limited", &completion);
    FailAllWaiting(slot, "rate_limited");
    return;
  }
  ++held_by_server_;
  // Behind the others in RAM, the origin's gap holding them all: at the
  // front, a URL that alone gets 429s would be asked again and again and
  // hold the limit open; behind, the others' answers can end it.
  heads_.PushBack(slot, record);
  ++counts_.waiting;
}

void CrawlScheduler::Fail(const UrlRecord& record, const std::string& reason, Completion* completion) {
  ++counts_.failed;
  ++origins_.Slot(record.origin).failed;
  tallies_.CountFailure(reason);
  spdlog::debug("failed url={} reason={} attempts={}", record.url, reason, record.attempts);
  if (completion) {
    completion->final_state = UrlState::kFailed;
    completion->reason = reason;
  } else if (on_final_) {
    on_final_(record, UrlState::kFailed, reason);
  }
}

void CrawlScheduler::ControlsChanged() {
  for (const auto& [id, slot] : origins_.slots()) MaybeSchedule(id);  // touches the heap, not the map
}

void CrawlScheduler::FailAllWaiting(HostSlot& slot, const std::string& reason) {
  // With a store the queue may be mostly on disk: load it part by part.
  while (EnsureHead(slot)) {
    slot.waiting.ForEach(slot.origin, slot.id, [&](UrlRecord&& record) { Fail(record, reason); });
    counts_.waiting -= slot.waiting.size();
    heads_.Clear(slot);
  }
}

void CrawlScheduler::PromoteDueRetries() {
  const int64_t now = clock_.NowMs();
  while (std::optional<UrlRecord> record = retries_.PopDue(now)) {
    const uint32_t index = record->origin;
    HostSlot& slot = origins_.Slot(index);
    --slot.retrying;
    heads_.PushFront(slot, *record);  // retries go first
    MaybeSchedule(index);
  }
}

void CrawlScheduler::ReturnLease(uint64_t lease_id, const std::string& reason, bool count_attempt) {
  std::optional<ActiveLease> taken = leases_.Take(lease_id);
  if (!taken) return;
  ActiveLease& lease = *taken;
  counts_.leased = leases_.size();
  const uint32_t slot_index = lease.record.origin;
  HostSlot& slot = origins_.Slot(slot_index);
  if (slot.in_flight > 0) --slot.in_flight;
  ReturnToAddress(lease.address_key);
  if (lease.robots_only && count_attempt) {
    // Expired, or its fetcher was lost: counted and backed off like any
    // unanswered robots.txt, so one that hangs or kills fetchers cannot
    // keep the crawl from ending (it used to be re-leased at once, forever).
    origins_.SetLastFailure(slot, "robots.txt: " + reason);
    RobotsUnanswered(slot, lease.record.attempts + 1, reason);
  } else if (lease.robots_only) {
    slot.robots_state = RobotsState::kNeeded;  // handed back unasked: at once
  } else if (count_attempt) {
    RetryOrFail(std::move(lease.record), reason, 0);
  } else {
    heads_.PushFront(slot, lease.record);
    ++counts_.waiting;
  }
  MaybeSchedule(slot_index);
}

void CrawlScheduler::ExpireLeases() {
  const int64_t now = clock_.NowMs();
  while (std::optional<uint64_t> id = leases_.NextExpired(now)) {
    spdlog::debug("lease expired id={} url={}", *id, leases_.Find(*id)->record.url);
    ++counts_.expired_leases;
    ReturnLease(*id, "lease_expired", /*count_attempt=*/true);
  }
}

uint64_t CrawlScheduler::ReturnLeasesNotHeld(const std::string& fetcher,
                                             const std::unordered_set<uint64_t>& held) {
  const std::vector<uint64_t> ids = leases_.IdsOf(fetcher, &held);
  for (uint64_t id : ids) ReturnLease(id, "not_held", /*count_attempt=*/false);
  return ids.size();
}

void CrawlScheduler::ReturnUnsent(const std::vector<uint64_t>& lease_ids) {
  for (uint64_t id : lease_ids) ReturnLease(id, "not_sent", /*count_attempt=*/false);
}

void CrawlScheduler::ReleaseFetcher(const std::string& fetcher, bool count_attempt) {
  for (uint64_t id : leases_.IdsOf(fetcher)) ReturnLease(id, "fetcher_lost", count_attempt);
}

uint64_t CrawlScheduler::origins_backing_off() const {
  uint64_t n = 0;
  for (const auto& [id, slot] : origins_.slots()) n += OriginBackoff::BackingOff(slot);
  return n;
}

int64_t CrawlScheduler::NextReadyMs() const {
  int64_t next = INT64_MAX;
  if (!ready_heap_.empty()) next = std::min(next, ready_heap_.top().ready_ms);
  // Origins in line and room in RAM: the next Lease loads them.
  next = std::min(next, origins_.NextLineMs());
  return std::min(next, retries_.NextReadyMs());
}

}  // namespace zcrawl::frontier
