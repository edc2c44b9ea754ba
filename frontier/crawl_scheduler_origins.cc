// CrawlScheduler's origins, split from crawl_scheduler.cc (which leases,
// completes and retries): the slot of each origin, its queue head in RAM
// loaded from and spilled to the store, its durable counters, its restore
// after a resume, and the per-origin rows of the status and summary.
#include <algorithm>

#include <spdlog/spdlog.h>

#include "frontier/crawl_scheduler.h"

namespace zcrawl::frontier {

namespace {

// A string's heap block: its capacity and terminator, none when it fits
// the object itself (libstdc++'s 15 bytes).
uint64_t HeapBytes(const std::string& text) { return text.capacity() > 15 ? text.capacity() + 1 : 0; }

}  // namespace

uint64_t CrawlScheduler::SlotHeapBytes(const HostSlot& slot) {
  return HeapBytes(slot.origin) + OriginNameIndex::kEntryBytes +
         (slot.last_failure ? sizeof(std::string) + HeapBytes(*slot.last_failure) : 0) +
         slot.requisites_loaded_ahead.capacity() * sizeof(uint64_t) +
         (slot.robots ? sizeof(RobotsRules) + slot.robots->memory_bytes() : 0);
}

HostSlot& CrawlScheduler::Slot(uint32_t id) {
  if (auto it = slots_.find(id); it != slots_.end()) return it->second;
  if (HostSlot* slot = LoadParked(id)) return *slot;
  // A slot without a name stands in, so the caller's counts land somewhere;
  // it is never staged, so the stored record stays as it was.
  StoredOrigin record;
  record.id = id;
  return Unpark(record);
}

HostSlot* CrawlScheduler::LoadParked(uint32_t id) {
  // Parked: the store holds its record (it was written before it parked).
  StoredOrigin record;
  Status s = store_ ? store_->GetOrigin(id, &record) : NotFoundError("no store");
  if (!s.ok()) {
    ++origin_errors_;
    spdlog::error("cannot load parked origin {}: {}", id, s.message());
    return nullptr;
  }
  return &Unpark(record);
}

HostSlot* CrawlScheduler::FindSlot(std::string_view origin) {
  if (HostSlot* slot = slot_by_origin_.Find(origin)) return slot;
  if (parked_ == 0) return nullptr;
  StoredOrigin record;
  Status s = store_->FindOrigin(origin, &record);
  if (s.code() == StatusCode::kNotFound) return nullptr;
  if (!s.ok()) {
    // Counted and logged; the origin then starts afresh under a new id
    // (its politeness and per-host count are split, no URL is lost).
    ++origin_errors_;
    spdlog::error("cannot look up origin {}: {}", origin, s.message());
    return nullptr;
  }
  return &Unpark(record);
}

void CrawlScheduler::LoadWaitingOrigins() {
  // Called at every lease: nothing to read, not even the clock, when the
  // line is empty (as it is below the bound).
  if (parked_waiting_.empty() || clock_.NowMs() < line_retry_ms_) return;
  while (!parked_waiting_.empty() && slots_.size() < options_.max_active_origins) {
    const uint32_t id = parked_waiting_.front();
    parked_waiting_.pop_front();
    if (auto it = slots_.find(id); it != slots_.end()) {
      // Loaded meanwhile by a URL of its own: it leaves the line all the same.
      LeaveLine(it->second);
      continue;
    }
    HostSlot* slot = LoadParked(id);
    if (!slot) {
      // Its URLs are still counted waiting: it keeps a place in line, and
      // the line waits a second rather than spin on a failing disk.
      parked_waiting_.push_back(id);
      line_retry_ms_ = clock_.NowMs() + 1000;
      return;
    }
    slot->yielding = false;  // its turn
    LeaveLine(*slot);
    MaybeSchedule(id);
  }
}

HostSlot& CrawlScheduler::Unpark(const StoredOrigin& record) {
  --parked_;
  ++unparked_;
  HostSlot& slot = LoadSlot(record, /*restore=*/false);
  // Loaded for a count, a URL or a late final state, not for its turn:
  // past the bound it takes its URLs to disk and parks again (the line
  // gives it its turn). Idle, it parks again at the next commit unless it
  // got something to do.
  slot.yielding = MustYield();
  AddParkCandidate(slot, /*written_at=*/0);
  return slot;
}

uint32_t CrawlScheduler::SlotFor(std::string_view origin) {
  if (HostSlot* slot = FindSlot(origin)) return slot->id;
  const uint32_t id = next_origin_id_++;
  HostSlot& slot = NewSlot(id, origin);
  if (store_) store_->StageOriginName(origin, id);
  // Past the bound a new origin queues its URLs on disk and takes its turn
  // in line, once its record is written.
  slot.yielding = store_ && MustYield();
  MarkDirty(slot);
  return id;
}

HostSlot& CrawlScheduler::NewSlot(uint32_t id, std::string_view origin) {
  HostSlot& slot = slots_.try_emplace(id).first->second;
  slot.id = id;
  slot.origin = std::string(origin);
  slot.delay_ms = options_.delay_ms;
  slot.robots_state = options_.obey_robots ? RobotsState::kNeeded : RobotsState::kNotNeeded;
  if (!slot.origin.empty()) slot_by_origin_.Insert(&slot);
  slot_heap_bytes_ += SlotHeapBytes(slot);
  return slot;
}

HostSlot& CrawlScheduler::LoadSlot(const StoredOrigin& record, bool restore) {
  HostSlot& slot = NewSlot(record.id, record.origin);
  slot.next_seq = record.next_seq;
  slot.recorded_done = slot.done = record.done;
  slot.recorded_failed = slot.failed = record.failed;
  slot.refetched = record.refetched;
  SetBacklog(slot, record.queued());
  // A resume reads its queue from the start: what was leased at the crash
  // is before the hint and waiting again.
  if (!restore) {
    slot.loaded_seq = record.loaded_seq;
    slot.in_line = record.in_line;
  }
  // Rules an earlier run learned are not taken (a run's learning is told
  // by its token): a resumed crawl asks robots.txt again.
  if (!restore && slot.robots_state == RobotsState::kNeeded) ReadStoredRobots(slot, std::nullopt);
  parked_busiest_.Take(slot.origin);
  parked_failing_.Take(slot.origin);
  if (!record.last_failure.empty()) ChangeSlot(slot, [&] { slot.SetLastFailure(record.last_failure); });
  return slot;
}

StoredOrigin CrawlScheduler::RecordOf(const HostSlot& slot) {
  StoredOrigin record;
  record.id = slot.id;
  record.origin = slot.origin;
  record.next_seq = slot.next_seq;
  record.done = slot.recorded_done;
  record.failed = slot.recorded_failed;
  record.refetched = slot.refetched;
  record.in_line = slot.in_line;
  record.last_failure = slot.LastFailure();
  return record;
}

void CrawlScheduler::LeaveLine(HostSlot& slot) {
  // Its record says so before it can park again (a parked origin whose
  // record said "in line" when it was not would never get a turn).
  slot.in_line = false;
  MarkDirty(slot);
}

void CrawlScheduler::MarkDirty(HostSlot& slot) {
  if (slot.dirty) return;
  slot.dirty = true;
  dirty_slots_.push_back(slot.id);
}

void CrawlScheduler::SetLastFailure(HostSlot& slot, std::string failure) {
  ChangeSlot(slot, [&] { slot.SetLastFailure(std::move(failure)); });
  MarkDirty(slot);
}

void CrawlScheduler::StageDirtyOrigins() {
  for (uint32_t id : dirty_slots_) {
    HostSlot& slot = Slot(id);  // a dirty slot never parks
    slot.dirty = false;
    if (!store_ || slot.origin.empty()) continue;
    store_->StageOrigin(RecordOf(slot));
    if (Parkable(slot)) AddParkCandidate(slot, store_->settled_when_staged_is_written());
  }
  dirty_slots_.clear();
  std::vector<uint32_t> candidates;
  candidates.swap(robots_spill_candidates_);
  for (uint32_t index : candidates) MaybeSpillRobots(index);
  ParkCandidates();
}

bool CrawlScheduler::Quiet(const HostSlot& slot) const {
  if (!slot.waiting.empty() || slot.in_flight > 0 || slot.retrying > 0 ||
      !slot.requisites_loaded_ahead.empty() || slot.origin.empty()) {
    return false;
  }
  // Every URL's final state recorded (RecordedFinal) but those on disk: the
  // record's queued count is the backlog, so the origin loads back exact.
  if (slot.recorded_done + slot.recorded_failed + slot.backlog != slot.next_seq - 1) return false;
  return slot.robots_state != RobotsState::kFetching && !RobotsRetrying(slot);
}

void CrawlScheduler::AddParkCandidate(HostSlot& slot, uint64_t written_at) {
  if (slot.park_candidate) return;
  slot.park_candidate = true;
  park_candidates_.emplace_back(slot.id, written_at);
}

void CrawlScheduler::ParkCandidates() {
  if (park_candidates_.empty()) return;
  const int64_t now = clock_.NowMs();
  std::vector<std::pair<uint32_t, uint64_t>> candidates;
  candidates.swap(park_candidates_);
  for (const auto& [id, written_at] : candidates) {
    HostSlot& slot = slots_.at(id);  // a candidate stays in RAM
    slot.park_candidate = false;
    // Busy again, or changed: staged again first, a candidate again then.
    if (!Parkable(slot) || slot.dirty) continue;
    if (slot.robots) MaybeSpillRobots(id);
    if (slot.robots || slot.in_ready_heap || slot.next_fetch_ms > now ||
        store_->settled_batches() < written_at) {
      slot.park_candidate = true;
      park_candidates_.emplace_back(id, written_at);
      continue;
    }
    Park(slot);
  }
}

void CrawlScheduler::KeepParkedRow(v1::HostQueue row) {
  if (row.failed() > 0) parked_failing_.Offer(row);
  if (row.done() + row.failed() > 0) parked_busiest_.Offer(std::move(row));
}

void CrawlScheduler::Park(HostSlot& slot) {
  KeepParkedRow(HostRow(slot));
  if (slot.backlog > 0) {
    // Its turn is over: to the back of the line (unless it has a place
    // there: loaded by a URL of its own while in line), with where its
    // queue starts in its record (staged now; an older one only reads a
    // few tombstones more).
    if (!slot.in_line) parked_waiting_.push_back(slot.id);
    slot.in_line = true;
    ++yields_;
    StoredOrigin record = RecordOf(slot);
    record.loaded_seq = slot.loaded_seq;
    store_->StageOrigin(record);
    SetBacklog(slot, 0);  // still counted in counts_.waiting
  }
  slot_heap_bytes_ -= SlotHeapBytes(slot);
  slot_by_origin_.Erase(&slot);
  const uint32_t id = slot.id;
  slots_.erase(id);
  ++parked_;
}

Status CrawlScheduler::RestoreOrigin(const StoredOrigin& origin) {
  if (origin.id != next_origin_id_ || slot_by_origin_.Find(origin.origin)) {
    return DataLossError("origin record " + std::to_string(origin.id) + " (" + origin.origin +
                         ") is out of order or repeated");
  }
  next_origin_id_ = origin.id + 1;
  counts_.done += origin.done;
  counts_.failed += origin.failed;
  if (store_ && !store_->origin_names_indexed()) store_->StageOriginName(origin.origin, origin.id);
  const bool parked = store_ && (origin.queued() == 0 || slots_.size() >= options_.max_active_origins);
  const bool in_line = parked && origin.queued() > 0;
  if (store_ && origin.in_line != in_line) {
    // The line is built afresh: a record must not say "in line" of an
    // origin that is not (it would never get a turn). Written before any
    // origin is loaded (Broker::LoadState).
    StoredOrigin corrected = origin;
    corrected.in_line = in_line;
    store_->StageOrigin(corrected);
  }
  if (parked) {
    // Nothing queued, or RAM is full: it stays parked (in line if it has
    // URLs queued), only its status row is kept.
    ++parked_;
    if (origin.queued() > 0) {
      parked_waiting_.push_back(origin.id);
      counts_.waiting += origin.queued();
    }
    v1::HostQueue row;
    row.set_host(origin.origin);
    row.set_done(origin.done);
    row.set_failed(origin.failed);
    row.set_last_failure(origin.last_failure);
    KeepParkedRow(std::move(row));
    return Status::Ok();
  }
  HostSlot& slot = LoadSlot(origin, /*restore=*/true);
  counts_.waiting += slot.backlog;
  MaybeSchedule(origin.id);
  return Status::Ok();
}

uint64_t CrawlScheduler::Admitted(std::string_view origin) {
  const HostSlot* slot = FindSlot(origin);
  return slot ? slot->next_seq - 1 - slot->refetched : 0;
}

void CrawlScheduler::RecordedFinal(uint32_t origin_index, UrlState state) {
  if (origin_index >= next_origin_id_) return;
  HostSlot& slot = Slot(origin_index);
  if (state == UrlState::kDone) ++slot.recorded_done;
  if (state == UrlState::kFailed) ++slot.recorded_failed;
  MarkDirty(slot);
}

bool CrawlScheduler::EnsureHead(HostSlot& slot, uint32_t slot_index) {
  if (!slot.waiting.empty()) return true;
  if (slot.backlog == 0 || store_ == nullptr) return false;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(slot.backlog, RefillSize()));
  std::vector<QueuedUrl> loaded;
  // The store reads its staged and in-flight entries too: a refill
  // neither forces a write nor waits for one. Requisites loaded ahead may
  // be among the entries read: they are skipped.
  Status s = store_->LoadQueue(slot_index, slot.origin, slot.loaded_seq,
                               want + slot.requisites_loaded_ahead.size(), &loaded);
  if (!s.ok()) {
    // Try again in a second rather than spinning on a failing disk.
    ++queue_errors_;
    spdlog::error("cannot load the queue of {}: {}", slot.origin, s.message());
    slot.next_fetch_ms = std::max(slot.next_fetch_ms, clock_.NowMs() + 1000);
    return false;
  }
  size_t taken = 0;
  auto& ahead = slot.requisites_loaded_ahead;
  for (QueuedUrl& url : loaded) {
    if (taken == want) break;
    slot.loaded_seq = url.seq;
    if (std::binary_search(ahead.begin(), ahead.end(), url.seq)) continue;  // in RAM or leased already
    PushHeadBack(slot, UrlRecord{std::move(url.url), slot_index, url.depth, url.attempts, url.seq,
                                 url.redirect_hops, url.embed_hops});
    ++taken;
  }
  ChangeSlot(slot, [&] { ahead.erase(ahead.begin(), std::upper_bound(ahead.begin(), ahead.end(), slot.loaded_seq)); });
  if (taken < want) {
    // The origin record promised more than the disk holds: count them gone
    // (loudly) rather than wait for them forever.
    const uint64_t missing = slot.backlog - taken;
    ++queue_errors_;
    spdlog::error("queue of {} holds {} fewer URLs than its record says", slot.origin, missing);
    counts_.waiting -= missing;
    SetBacklog(slot, taken);
  }
  SetBacklog(slot, slot.backlog - taken);
  ++refills_;
  slot.refilled = true;
  return !slot.waiting.empty();
}

uint64_t CrawlScheduler::RefillSize() const {
  // Past the heads' bounds, a few URLs only (kMinRefill), so each origin
  // can still lease without a disk read per URL. Measured without this
  // bound at 8.5 x 10^7 URLs: 140,547 origins held 8.1 M URLs in RAM
  // (max_loaded 1.2 M), ~1 GB past the frontier's memory budget.
  if (HeadsFull()) return kMinRefill;
  // Within them, up to a full head, but no more than the origin's fair
  // share of the heads (their bound over the origins with URLs on disk).
  // A refill that took whatever room was left filled the heads to their
  // bound, after which every refill took kMinRefill: one seek per 4 leases,
  // ~36% of the broker thread at 1.9 x 10^8 URLs (bench/RESULTS.md run
  // AK). Heads refilled to a fair share and leased down to empty hold about
  // half the bound on average, so refills keep their share: 21 leases per
  // refill at 2 x 10^8 URLs, 0.58x the refill time per lease, 0.92x the
  // frontier's CPU to that size (run AM).
  const uint64_t capacity = std::min(options_.max_loaded, options_.max_head_bytes / HeadUrlBytes());
  const uint64_t fair_share = capacity / std::max<uint64_t>(backlogged_origins_, 1);
  return std::max<uint64_t>(kMinRefill, std::min<uint64_t>({options_.head_per_origin, HeadRoom(), fair_share}));
}

void CrawlScheduler::SetBacklog(HostSlot& slot, uint64_t backlog) {
  if (slot.backlog == 0 && backlog > 0) ++backlogged_origins_;
  if (slot.backlog > 0 && backlog == 0) --backlogged_origins_;
  slot.backlog = backlog;
}

uint64_t CrawlScheduler::HeadUrlBytes() const {
  return loaded_ > 0 ? std::max<uint64_t>(head_bytes_ / loaded_, 1) : kTypicalHeadUrlBytes;
}

bool CrawlScheduler::HeadsFull() const {
  return loaded_ >= options_.max_loaded || head_bytes_ >= options_.max_head_bytes;
}

uint64_t CrawlScheduler::HeadRoom() const {
  if (HeadsFull()) return 0;
  const uint64_t urls = options_.max_loaded - loaded_;
  return std::min(urls, (options_.max_head_bytes - head_bytes_) / HeadUrlBytes());
}

template <typename Change>
void CrawlScheduler::ChangeHead(HostSlot& slot, Change&& change) {
  const size_t before = slot.waiting.bytes();
  const size_t urls_before = slot.waiting.size();
  change(slot.waiting);
  head_bytes_ = head_bytes_ - before + slot.waiting.bytes();
  loaded_ = loaded_ - urls_before + slot.waiting.size();
}

void CrawlScheduler::PushHeadBack(HostSlot& slot, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.push_back(slot.origin, record); });
}

void CrawlScheduler::InsertHead(HostSlot& slot, size_t index, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.insert(index, slot.origin, record); });
}

UrlRecord CrawlScheduler::PopHead(HostSlot& slot, uint32_t slot_index) {
  UrlRecord record;
  ChangeHead(slot, [&](UrlHead& head) { record = head.pop_front(slot.origin, slot_index); });
  if (slot.requisites_ahead > 0) --slot.requisites_ahead;
  return record;
}

void CrawlScheduler::PushHeadFront(HostSlot& slot, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.push_front(slot.origin, record); });
}

void CrawlScheduler::ClearHead(HostSlot& slot) {
  ChangeHead(slot, [](UrlHead& head) { head.clear(); });
  slot.requisites_ahead = 0;
}

v1::HostQueue CrawlScheduler::HostRow(const HostSlot& slot) {
  v1::HostQueue q;
  q.set_host(slot.origin);
  q.set_waiting(slot.waiting_total());
  q.set_in_flight(slot.in_flight);
  q.set_done(slot.done);
  q.set_failed(slot.failed);
  q.set_last_failure(slot.LastFailure());
  return q;
}

bool CrawlScheduler::FailingBefore(const OriginCounts& a, const OriginCounts& b) {
  if ((a.done == 0) != (b.done == 0)) return a.done == 0;
  return a.failed > b.failed;
}

bool CrawlScheduler::BusiestBefore(const OriginCounts& a, const OriginCounts& b) {
  return a.done + a.failed > b.done + b.failed;
}

bool CrawlScheduler::MostQueuedBefore(const OriginCounts& a, const OriginCounts& b) {
  return a.waiting + a.in_flight > b.waiting + b.in_flight;
}

std::vector<v1::HostQueue> CrawlScheduler::BestOrigins(size_t limit, OriginOrder before, bool failing_only,
                                                       const std::vector<v1::HostQueue>& parked) const {
  // The best `limit` slots in RAM (rows built for those only: a crawl may
  // hold millions), then the parked rows among them.
  struct Ranked {
    OriginCounts counts;
    const HostSlot* slot;
  };
  std::vector<Ranked> order;
  for (const auto& [id, slot] : slots_) {
    if (failing_only && slot.failed == 0) continue;
    order.push_back({{slot.waiting_total(), slot.in_flight, slot.done, slot.failed}, &slot});
  }
  const size_t n = std::min(limit, order.size());
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [&](const Ranked& a, const Ranked& b) { return before(a.counts, b.counts); });
  std::vector<v1::HostQueue> out;
  for (size_t i = 0; i < n; ++i) out.push_back(HostRow(*order[i].slot));
  out.insert(out.end(), parked.begin(), parked.end());
  std::stable_sort(out.begin(), out.end(), [&](const v1::HostQueue& a, const v1::HostQueue& b) {
    return before(OriginCounts::Of(a), OriginCounts::Of(b));
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::vector<v1::HostQueue> CrawlScheduler::FailingOrigins(size_t limit) const {
  return BestOrigins(limit, FailingBefore, /*failing_only=*/true, parked_failing_.rows());
}

std::vector<v1::HostQueue> CrawlScheduler::TopOrigins(size_t limit, bool by_done) const {
  // Parked origins show their rows as they parked: by queue, those in line
  // rank by what they had queued then (most are not among the rows).
  return BestOrigins(limit, by_done ? BusiestBefore : MostQueuedBefore, /*failing_only=*/false,
                     parked_busiest_.rows());
}

}  // namespace zcrawl::frontier
