#include "frontier/crawl_scheduler.h"

#include <algorithm>
#include <climits>
#include <random>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {
namespace {

constexpr int64_t kMaxBackoffMs = 5 * 60 * 1000;
constexpr int64_t kMaxRetryAfterMs = 60 * 60 * 1000;
constexpr int64_t kMaxCrawlDelayMs = 60 * 1000;

std::string StatusClass(uint32_t http_status) {
  if (http_status < 100 || http_status > 599) return "other";
  return std::to_string(http_status / 100) + "xx";
}

bool IsRetryableStatus(v1::FetchStatus status) {
  return status == v1::FETCH_STATUS_NETWORK_ERROR || status == v1::FETCH_STATUS_TIMEOUT ||
         status == v1::FETCH_STATUS_WORKER_FAILED || status == v1::FETCH_STATUS_WRITER_FAILED;
}

// The failure reason of a report: the transfer's cause where the fetcher
// named one (connection_refused, tls_certificate_untrusted, ...), else the
// status. Older fetchers send no cause.
std::string FetchStatusReason(const v1::FetchReport& report) {
  if (!report.cause().empty() && (report.status() == v1::FETCH_STATUS_NETWORK_ERROR ||
                                  report.status() == v1::FETCH_STATUS_TIMEOUT ||
                                  report.status() == v1::FETCH_STATUS_TOO_LARGE)) {
    return report.cause();
  }
  switch (report.status()) {
    case v1::FETCH_STATUS_NETWORK_ERROR: return "network_error";
    case v1::FETCH_STATUS_TIMEOUT: return "timeout";
    case v1::FETCH_STATUS_TOO_LARGE: return "too_large";
    case v1::FETCH_STATUS_ROBOTS_DISALLOWED: return "robots_disallowed";
    case v1::FETCH_STATUS_REDIRECT_LIMIT: return "redirect_limit";
    case v1::FETCH_STATUS_WORKER_FAILED: return "worker_failed";
    case v1::FETCH_STATUS_WRITER_FAILED: return "writer_failed";
    case v1::FETCH_STATUS_INVALID_URL: return "invalid_url";
    case v1::FETCH_STATUS_SKIPPED_CONTENT: return "skipped_content";
    case v1::FETCH_STATUS_PRIVATE_ADDRESS: return "private_address";
    default: return "unknown_status";
  }
}

// What failed in a report, for an origin's last_failure: the reason and
// the fetcher's detail, e.g. "connection_refused (Couldn't connect to server:
// Failed to connect to 127.0.0.1 port 1 ...)".
std::string DescribeFailure(const v1::FetchReport& report) {
  std::string reason = report.status() == v1::FETCH_STATUS_OK
                           ? "http_" + std::to_string(report.http_status())
                           : FetchStatusReason(report);
  if (!report.error().empty()) reason += " (" + report.error() + ")";
  return reason;
}

// Lease ids start at a random epoch so a report from before a frontier
// restart cannot match a lease handed out after it.
uint64_t RandomLeaseEpoch() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) & 0xFFFFFF) << 40;
}

}  // namespace

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
      parked_failing_(kParkedRows, FailingBefore),
      parked_busiest_(kParkedRows, BusiestBefore),
      next_lease_id_(RandomLeaseEpoch() + 1),
      run_token_(next_lease_id_) {}

bool CrawlScheduler::HasWork(const HostSlot& slot) const {
  if (slot.in_flight >= options_.per_host) return false;
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
  HostSlot& slot = Slot(slot_index);
  if (slot.in_ready_heap || !HasWork(slot)) return;
  slot.in_ready_heap = true;
  ready_heap_.push({slot.next_fetch_ms, heap_sequence_++, slot_index});
}

void CrawlScheduler::Enqueue(std::string url, std::string_view origin, uint32_t depth,
                             uint32_t attempts, uint32_t redirect_hops, uint32_t embed_hops, bool soon) {
  const uint32_t index = SlotFor(origin);
  HostSlot& slot = Slot(index);
  UrlRecord record{std::move(url), index, depth, attempts, slot.next_seq++, redirect_hops, embed_hops};
  MarkDirty(slot);
  ++counts_.waiting;
  // A requisite jumps the queue, also a disk backlog: its seq is then
  // remembered as loaded ahead of loaded_seq, and a refill that reaches it
  // skips it. Within bounds (RAM, kMaxRequisitesLoadedAhead); past them,
  // and after a restart, it waits its turn on disk like a link.
  soon = soon && !HeadsFull() &&
         (slot.backlog == 0 || slot.requisites_loaded_ahead.size() < kMaxRequisitesLoadedAhead);
  if (store_) {
    store_->StageQueued(index, slot.origin,
                        QueuedUrl{record.seq, record.url, depth, attempts, redirect_hops, embed_hops});
    if (!soon && (slot.backlog > 0 || slot.waiting.size() >= options_.head_per_origin || HeadsFull() ||
                  slot.yielding)) {
      SetBacklog(slot, slot.backlog + 1);  // waits on disk, behind what is there already
      MaybeSchedule(index);
      return;
    }
  }
  if (slot.backlog == 0) {
    slot.loaded_seq = record.seq;
    // All at or below loaded_seq now.
    ChangeSlot(slot, [&] { std::vector<uint64_t>().swap(slot.requisites_loaded_ahead); });
  } else {
    ChangeSlot(slot, [&] { slot.requisites_loaded_ahead.push_back(record.seq); });
  }
  if (soon) {
    InsertHead(slot, std::min<size_t>(slot.requisites_ahead, slot.waiting.size()), record);
    ++slot.requisites_ahead;
  } else {
    PushHeadBack(slot, record);
  }
  MaybeSchedule(index);
}

void CrawlScheduler::EnqueueRefetch(std::string url, std::string_view origin, uint32_t depth,
                                    uint32_t redirect_hops, uint32_t embed_hops) {
  ++Slot(SlotFor(origin)).refetched;  // Enqueue marks the slot dirty
  Enqueue(std::move(url), origin, depth, /*attempts=*/0, redirect_hops, embed_hops);
}

std::vector<v1::WorkItem> CrawlScheduler::Lease(const std::string& fetcher, uint32_t max) {
  std::vector<v1::WorkItem> out;
  PromoteDueRetries();
  LoadWaitingOrigins();
  const int64_t now = clock_.NowMs();
  while (out.size() < max && !ready_heap_.empty()) {
    const HeapEntry top = ready_heap_.top();
    if (top.ready_ms > now) break;
    ready_heap_.pop();
    HostSlot& slot = Slot(top.slot);
    slot.in_ready_heap = false;
    if (!HasWork(slot)) continue;
    if (slot.next_fetch_ms > now) {  // the delay grew since it was queued
      MaybeSchedule(top.slot);
      continue;
    }
    if (slot.waiting.empty() && slot.backlog > 0 && slot.refilled && MustYield() && !RobotsRetrying(slot)) {
      // Its head ran dry, after a refill at least, while others wait for
      // a turn: it parks instead of refilling, once nothing of it is in
      // flight.
      slot.yielding = true;
      AddParkCandidate(slot, store_->settled_when_staged_is_written());
      continue;
    }
    if (LeaseFromSlot(top.slot, fetcher, out)) {
      slot.next_fetch_ms = now + slot.delay_ms;
    }
    MaybeSchedule(top.slot);
  }
  return out;
}

bool CrawlScheduler::LeaseFromSlot(uint32_t slot_index, const std::string& fetcher,
                                   std::vector<v1::WorkItem>& out) {
  HostSlot& slot = Slot(slot_index);
  ActiveLease lease;
  lease.fetcher = fetcher;
  lease.deadline_ms = clock_.NowMs() + options_.lease_ms;
  if (slot.robots_state == RobotsState::kKnown &&
      clock_.NowMs() - slot.robots_fetched_ms > options_.robots_ttl_ms) {
    slot.robots_state = RobotsState::kNeeded;  // cached rules are too old
    slot.robots_attempts = 0;
  }
  if (slot.robots_state == RobotsState::kKnown && !slot.robots) LoadRobots(slot_index);
  if (slot.robots_state == RobotsState::kNeeded) {
    slot.robots_state = RobotsState::kFetching;
    lease.robots_only = true;
    lease.record = UrlRecord{slot.origin + "/robots.txt", slot_index, 0, slot.robots_attempts};
  } else {
    // Skip (and fail) URLs that robots.txt forbids without spending the
    // politeness slot on them.
    bool found = false;
    while (!found && (slot.yielding ? !slot.waiting.empty() : EnsureHead(slot, slot_index))) {
      UrlRecord front = PopHead(slot, slot_index);
      --counts_.waiting;
      if (slot.robots && !slot.robots->IsAllowed(RobotsTarget(front.url, robots_scratch_))) {
        Fail(front, "robots_disallowed");
        continue;
      }
      lease.record = std::move(front);
      found = true;
    }
    if (!found) {
      MaybeSpillRobots(slot_index);  // every URL it had was disallowed
      return false;
    }
  }
  const uint64_t id = next_lease_id_++;
  v1::WorkItem& item = out.emplace_back();
  item.set_url(lease.record.url);
  item.set_depth(lease.record.depth);
  item.set_redirect_hops(lease.record.redirect_hops);
  item.set_embed_hops(lease.record.embed_hops);
  item.set_lease_id(id);
  item.set_lease_deadline_ms(static_cast<uint64_t>(clock_.WallMs() + options_.lease_ms));
  item.set_attempt(lease.record.attempts + 1);
  item.set_robots_only(lease.robots_only);
  item.set_report_validators(options_.report_validators && !lease.robots_only);
  if (options_.recrawl && store_ && !lease.robots_only) {
    std::string validators;
    if (store_->GetValidators(UrlKeyOf(lease.record.url), &validators) &&
        !item.mutable_previous()->ParseFromString(validators)) {
      item.clear_previous();  // a damaged entry costs the condition, not the fetch
    }
  }
  ++slot.in_flight;
  lease_deadlines_.push({lease.deadline_ms, id});
  leases_.emplace(id, std::move(lease));
  counts_.leased = leases_.size();
  return true;
}

Completion CrawlScheduler::Complete(const std::string& fetcher, const v1::FetchReport& report) {
  Completion completion;
  auto it = leases_.find(report.lease_id());
  // The lease must match in id, URL and holder: a report from anyone else
  // (stale, or a confused peer) changes nothing.
  if (it == leases_.end() || it->second.record.url != report.url() ||
      it->second.fetcher != fetcher) {
    return completion;
  }
  ActiveLease lease = std::move(it->second);
  leases_.erase(it);
  counts_.leased = leases_.size();
  completion.known_lease = true;
  completion.depth = lease.record.depth;
  completion.embed_hops = lease.record.embed_hops;
  completion.redirect_hops = lease.record.redirect_hops;
  completion.url = lease.record.url;
  completion.attempts = lease.record.attempts + 1;
  const uint32_t slot_index = lease.record.origin;
  HostSlot& slot = Slot(slot_index);
  completion.origin = slot.origin;
  completion.origin_index = slot_index;
  completion.seq = lease.record.seq;
  if (slot.in_flight > 0) --slot.in_flight;

  const bool failed = report.status() != v1::FETCH_STATUS_OK || report.http_status() >= 400;
  if (failed && !(lease.robots_only && report.http_status() >= 400 && report.http_status() < 500)) {
    // (a robots.txt 4xx is no failure: RFC 9309 reads it as "allow all")
    SetLastFailure(slot, (lease.robots_only ? "robots.txt: " : "") + DescribeFailure(report));
  }
  if (lease.robots_only) {
    ApplyRobots(slot_index, report, lease.record.attempts + 1, completion);
    MaybeSchedule(slot_index);
    return completion;
  }

  const uint32_t http = report.http_status();
  if (report.status() == v1::FETCH_STATUS_OK) {
    status_classes_[StatusClass(http)]++;
    if (http == 429 || http >= 500) {
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
  MaybeSpillRobots(slot_index);
  MaybeSchedule(slot_index);
  return completion;
}

void CrawlScheduler::KeepRobots(uint32_t slot_index) {
  HostSlot& slot = Slot(slot_index);
  if (!store_ || !slot.robots) return;
  store_->StageRobots(slot_index, run_token_, slot.robots_fetched_ms, slot.robots->Serialize());
  slot.robots_written_at = store_->settled_when_staged_is_written();
}

void CrawlScheduler::MaybeSpillRobots(uint32_t slot_index) {
  auto it = slots_.find(slot_index);
  if (it == slots_.end()) return;  // parked since it became a candidate: spilled
  HostSlot& slot = it->second;
  // Nothing of it in RAM or in flight, and no refill coming: idle, or
  // yielding with its URLs on disk (it parks once the rules are out).
  if (!store_ || !slot.robots || slot.robots_state != RobotsState::kKnown || slot.in_flight > 0 ||
      !slot.waiting.empty() || (slot.backlog > 0 && !slot.yielding)) {
    return;
  }
  if (store_->settled_batches() < slot.robots_written_at) {
    robots_spill_candidates_.push_back(slot_index);
    return;
  }
  ChangeSlot(slot, [&] { slot.robots.reset(); });
  ++robots_spilled_;
}

void CrawlScheduler::LoadRobots(uint32_t slot_index) {
  HostSlot& slot = Slot(slot_index);
  if (ReadStoredRobots(slot, slot.robots_fetched_ms)) return;
  // Not written (a failed commit) or damaged: ask robots.txt again.
  ++robots_reload_misses_;
  spdlog::debug("robots rules of {} not in the store: asking robots.txt again", slot.origin);
  slot.robots_state = RobotsState::kNeeded;
  slot.robots_attempts = 0;
}

bool CrawlScheduler::ReadStoredRobots(HostSlot& slot, std::optional<int64_t> learned_ms) {
  uint64_t run = 0;
  int64_t fetched_ms = 0;
  std::string bytes;
  if (!store_ || !store_->GetRobots(slot.id, &run, &fetched_ms, &bytes) || run != run_token_ ||
      (learned_ms && fetched_ms != *learned_ms)) {
    return false;
  }
  auto rules = RobotsRules::Deserialize(bytes);
  if (!rules.ok()) return false;
  ChangeSlot(slot, [&] { slot.robots = std::make_unique<RobotsRules>(std::move(*rules)); });
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = fetched_ms;
  slot.robots_written_at = 0;  // read from the store: it holds them
  ApplyCrawlDelay(slot);
  ++robots_reloaded_;
  return true;
}

void CrawlScheduler::ApplyCrawlDelay(HostSlot& slot) {
  if (auto delay = slot.robots->crawl_delay_seconds()) {
    const auto delay_ms = std::min<int64_t>(static_cast<int64_t>(*delay * 1000), kMaxCrawlDelayMs);
    slot.delay_ms = std::max(slot.delay_ms, delay_ms);
  }
}

void CrawlScheduler::ApplyRobots(uint32_t slot_index, const v1::FetchReport& report,
                                 uint32_t attempts, Completion& completion) {
  HostSlot& slot = Slot(slot_index);
  const uint32_t http = report.http_status();
  const bool got_response = report.status() == v1::FETCH_STATUS_OK;
  if (report.status() == v1::FETCH_STATUS_PRIVATE_ADDRESS) {
    // Its pages would be refused the same way: they fail now, with that
    // reason. robots.txt stays needed, so a URL admitted later asks again
    // (a refusal costs no request) in case the name now resolves elsewhere.
    slot.robots_state = RobotsState::kNeeded;
    slot.robots_attempts = 0;
    FailAllWaiting(slot_index, "private_address");
    return;
  }
  if (got_response && http >= 200 && http < 300) {
    ChangeSlot(slot, [&] {
      slot.robots = std::make_unique<RobotsRules>(RobotsRules::Parse(report.robots_txt(), options_.robots_agent));
    });
    completion.sitemaps = slot.robots->sitemaps();
  } else if (got_response && http >= 400 && http < 500 && http != 429) {
    ChangeSlot(slot, [&] { slot.robots = std::make_unique<RobotsRules>(RobotsRules::AllowAll()); });  // RFC 9309 2.3.1.3: unavailable
  } else {
    // 5xx, 429 or unreachable: RFC 9309 says assume complete disallow for
    // now; we wait and ask again before deciding. The reason names the
    // cause: "robots_unavailable: connection_refused".
    RobotsUnanswered(slot_index, attempts,
                     got_response ? "http_" + std::to_string(http) : FetchStatusReason(report));
    return;
  }
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = clock_.NowMs();
  ApplyCrawlDelay(slot);
  KeepRobots(slot_index);
}

void CrawlScheduler::RobotsUnanswered(uint32_t slot_index, uint32_t attempts, const std::string& cause) {
  HostSlot& slot = Slot(slot_index);
  if (attempts <= options_.retries) {
    slot.robots_attempts = attempts;
    slot.robots_state = RobotsState::kNeeded;
    slot.next_fetch_ms = std::max(slot.next_fetch_ms, clock_.NowMs() + BackoffMs(attempts));
    ++counts_.retried;
    return;
  }
  ChangeSlot(slot, [&] { slot.robots = std::make_unique<RobotsRules>(RobotsRules::DisallowAll()); });
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = clock_.NowMs();
  KeepRobots(slot_index);
  spdlog::warn("robots.txt unavailable origin={} attempts={} cause={}: its URLs fail", slot.origin,
               attempts, slot.LastFailure());
  FailAllWaiting(slot_index, "robots_unavailable: " + cause);
}

int64_t CrawlScheduler::BackoffMs(uint32_t attempts) const {
  int64_t backoff = options_.retry_base_ms;
  for (uint32_t i = 1; i < attempts && backoff < kMaxBackoffMs; ++i) backoff *= 2;
  return std::min(backoff, kMaxBackoffMs);
}

void CrawlScheduler::RetryOrFail(UrlRecord record, const std::string& reason, int64_t min_delay_ms,
                                 Completion* completion) {
  ++record.attempts;
  if (record.attempts > options_.retries) {
    Fail(record, reason, completion);
    return;
  }
  ++counts_.retried;
  ++retry_reasons_[reason];
  ++counts_.waiting;
  const int64_t ready = clock_.NowMs() + std::max(BackoffMs(record.attempts), min_delay_ms);
  const uint64_t sequence = heap_sequence_++;
  ++Slot(record.origin).retrying;
  retry_heap_.push({ready, sequence});
  retry_records_.emplace(sequence, std::move(record));
}

void CrawlScheduler::Fail(const UrlRecord& record, const std::string& reason,
                          Completion* completion) {
  ++counts_.failed;
  ++Slot(record.origin).failed;
  ++failure_reasons_[reason];
  spdlog::debug("failed url={} reason={} attempts={}", record.url, reason, record.attempts);
  if (completion) {
    completion->final_state = UrlState::kFailed;
    completion->reason = reason;
  } else if (on_final_) {
    on_final_(record, UrlState::kFailed, reason);
  }
}

void CrawlScheduler::FailAllWaiting(uint32_t slot_index, const std::string& reason) {
  HostSlot& slot = Slot(slot_index);
  // With a store the queue may be mostly on disk: load it part by part.
  while (EnsureHead(slot, slot_index)) {
    slot.waiting.ForEach(slot.origin, slot_index, [&](UrlRecord&& record) { Fail(record, reason); });
    counts_.waiting -= slot.waiting.size();
    ClearHead(slot);
  }
}

void CrawlScheduler::PromoteDueRetries() {
  const int64_t now = clock_.NowMs();
  while (!retry_heap_.empty() && retry_heap_.top().ready_ms <= now) {
    const uint64_t sequence = retry_heap_.top().sequence;
    retry_heap_.pop();
    auto node = retry_records_.extract(sequence);
    UrlRecord& record = node.mapped();
    const uint32_t index = record.origin;
    HostSlot& slot = Slot(index);
    --slot.retrying;
    PushHeadFront(slot, std::move(record));  // retries go first
    MaybeSchedule(index);
  }
}

void CrawlScheduler::ReturnLease(uint64_t lease_id, const std::string& reason, bool count_attempt) {
  auto it = leases_.find(lease_id);
  if (it == leases_.end()) return;
  ActiveLease lease = std::move(it->second);
  leases_.erase(it);
  counts_.leased = leases_.size();
  const uint32_t slot_index = lease.record.origin;
  HostSlot& slot = Slot(slot_index);
  if (slot.in_flight > 0) --slot.in_flight;
  if (lease.robots_only && count_attempt) {
    // Expired, or its fetcher was lost: counted and backed off like any
    // unanswered robots.txt, so one that hangs or kills fetchers cannot
    // keep the crawl from ending (it used to be re-leased at once, forever).
    SetLastFailure(slot, "robots.txt: " + reason);
    RobotsUnanswered(slot_index, lease.record.attempts + 1, reason);
  } else if (lease.robots_only) {
    slot.robots_state = RobotsState::kNeeded;  // handed back unasked: at once
  } else if (count_attempt) {
    RetryOrFail(std::move(lease.record), reason, 0);
  } else {
    PushHeadFront(slot, std::move(lease.record));
    ++counts_.waiting;
  }
  MaybeSchedule(slot_index);
}

void CrawlScheduler::ExpireLeases() {
  const int64_t now = clock_.NowMs();
  while (!lease_deadlines_.empty() && lease_deadlines_.top().first <= now) {
    const uint64_t id = lease_deadlines_.top().second;
    lease_deadlines_.pop();
    if (leases_.count(id) == 0) continue;  // completed long ago
    spdlog::debug("lease expired id={} url={}", id, leases_.at(id).record.url);
    ++counts_.expired_leases;
    ReturnLease(id, "lease_expired", /*count_attempt=*/true);
  }
}

void CrawlScheduler::RenewLeases() {
  const int64_t deadline = clock_.NowMs() + options_.lease_ms;
  decltype(lease_deadlines_) renewed;
  for (auto& [id, lease] : leases_) {
    lease.deadline_ms = std::max(lease.deadline_ms, deadline);
    renewed.push({lease.deadline_ms, id});
  }
  lease_deadlines_.swap(renewed);
}

uint64_t CrawlScheduler::ReturnLeasesNotHeld(const std::string& fetcher,
                                             const std::unordered_set<uint64_t>& held) {
  std::vector<uint64_t> ids;
  for (const auto& [id, lease] : leases_) {
    if (lease.fetcher == fetcher && !held.count(id)) ids.push_back(id);
  }
  for (uint64_t id : ids) ReturnLease(id, "not_held", /*count_attempt=*/false);
  return ids.size();
}

void CrawlScheduler::ReturnUnsent(const std::vector<uint64_t>& lease_ids) {
  for (uint64_t id : lease_ids) ReturnLease(id, "not_sent", /*count_attempt=*/false);
}

void CrawlScheduler::ReleaseFetcher(const std::string& fetcher, bool count_attempt) {
  std::vector<uint64_t> ids;
  for (const auto& [id, lease] : leases_) {
    if (lease.fetcher == fetcher) ids.push_back(id);
  }
  for (uint64_t id : ids) ReturnLease(id, "fetcher_lost", count_attempt);
}

int64_t CrawlScheduler::NextEventMs() const {
  return std::min(NextReadyMs(), NextLeaseDeadlineMs());
}

int64_t CrawlScheduler::NextReadyMs() const {
  int64_t next = INT64_MAX;
  if (!ready_heap_.empty()) next = std::min(next, ready_heap_.top().ready_ms);
  // Origins in line and room in RAM: the next Lease loads them.
  if (!parked_waiting_.empty() && slots_.size() < options_.max_active_origins) {
    next = std::min(next, std::max(clock_.NowMs(), line_retry_ms_));
  }
  if (!retry_heap_.empty()) next = std::min(next, retry_heap_.top().ready_ms);
  return next;
}

int64_t CrawlScheduler::NextLeaseDeadlineMs() const {
  return lease_deadlines_.empty() ? INT64_MAX : lease_deadlines_.top().first;
}

uint64_t CrawlScheduler::leases_of(const std::string& fetcher) const {
  uint64_t n = 0;
  for (const auto& [id, lease] : leases_) n += lease.fetcher == fetcher;
  return n;
}

}  // namespace zcrawl::frontier
