#include "frontier/scheduler/origin_table.h"

#include <algorithm>
#include <climits>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

OriginTable::OriginTable(OriginTableOptions options, UrlStore* store, const Clock& clock,
                         OriginMemory& memory, QueueHeads& heads, RobotsKeeper& robots,
                         OriginStatusBoard& board)
    : options_(options),
      store_(store),
      clock_(clock),
      memory_(memory),
      heads_(heads),
      robots_(robots),
      board_(board) {}

HostSlot& OriginTable::Slot(uint32_t id) {
  if (HostSlot* slot = Loaded(id)) return *slot;
  if (HostSlot* slot = LoadParked(id)) return *slot;
  // A slot without a name stands in, so the caller's counts land somewhere;
  // it is never staged, so the stored record stays as it was.
  StoredOrigin record;
  record.id = id;
  return Unpark(record);
}

HostSlot* OriginTable::Loaded(uint32_t id) {
  auto it = slots_.find(id);
  return it == slots_.end() ? nullptr : &it->second;
}

HostSlot* OriginTable::LoadParked(uint32_t id) {
  // Parked: the store holds its record (it was written before it parked).
  StoredOrigin record;
  Status s = store_ ? store_->GetOrigin(id, &record) : NotFoundError("no store");
  if (!s.ok()) {
    ++errors_;
    spdlog::error("cannot load parked origin {}: {}", id, s.message());
    return nullptr;
  }
  return &Unpark(record);
}

HostSlot* OriginTable::Find(std::string_view origin) {
  if (HostSlot* slot = by_name_.Find(origin)) return slot;
  if (parked_ == 0) return nullptr;
  StoredOrigin record;
  Status s = store_->FindOrigin(origin, &record);
  if (s.code() == StatusCode::kNotFound) return nullptr;
  if (!s.ok()) {
    // Counted and logged; the origin then starts afresh under a new id
    // (its politeness and per-host count are split, no URL is lost).
    ++errors_;
    spdlog::error("cannot look up origin {}: {}", origin, s.message());
    return nullptr;
  }
  return &Unpark(record);
}

std::vector<uint32_t> OriginTable::LoadWaiting() {
  std::vector<uint32_t> loaded;
  // Called at every lease: nothing to read, not even the clock, when the
  // line is empty (as it is below the bound).
  if (line_.empty() || clock_.NowMs() < line_retry_ms_) return loaded;
  while (!line_.empty() && slots_.size() < options_.max_active_origins) {
    const uint32_t id = line_.front();
    line_.pop_front();
    if (HostSlot* slot = Loaded(id)) {
      // Loaded meanwhile by a URL of its own: it leaves the line all the same.
      LeaveLine(*slot);
      continue;
    }
    HostSlot* slot = LoadParked(id);
    if (!slot) {
      // Its URLs are still counted waiting: it keeps a place in line, and
      // the line waits a second rather than spin on a failing disk.
      line_.push_back(id);
      line_retry_ms_ = clock_.NowMs() + 1000;
      break;
    }
    slot->yielding = false;  // its turn
    LeaveLine(*slot);
    loaded.push_back(id);
  }
  return loaded;
}

int64_t OriginTable::NextLineMs() const {
  if (line_.empty() || slots_.size() >= options_.max_active_origins) return INT64_MAX;
  return std::max(clock_.NowMs(), line_retry_ms_);
}

void OriginTable::Yield(HostSlot& slot) {
  slot.yielding = true;
  AddParkCandidate(slot, store_->settled_when_staged_is_written());
}

HostSlot& OriginTable::Unpark(const StoredOrigin& record) {
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

uint32_t OriginTable::IdFor(std::string_view origin) {
  if (HostSlot* slot = Find(origin)) return slot->id;
  const uint32_t id = next_id_++;
  HostSlot& slot = NewSlot(id, origin);
  if (store_) store_->StageOriginName(origin, id);
  // Past the bound a new origin queues its URLs on disk and takes its turn
  // in line, once its record is written.
  slot.yielding = store_ && MustYield();
  MarkDirty(slot);
  return id;
}

HostSlot& OriginTable::NewSlot(uint32_t id, std::string_view origin) {
  HostSlot& slot = slots_.try_emplace(id).first->second;
  slot.id = id;
  slot.origin = std::string(origin);
  slot.delay_ms = options_.politeness.delay_ms;
  slot.robots_state = options_.politeness.obey_robots ? RobotsState::kNeeded : RobotsState::kNotNeeded;
  if (!slot.origin.empty()) by_name_.Insert(&slot);
  memory_.Added(slot);
  return slot;
}

HostSlot& OriginTable::LoadSlot(const StoredOrigin& record, bool restore) {
  HostSlot& slot = NewSlot(record.id, record.origin);
  slot.next_seq = record.next_seq;
  slot.recorded_done = slot.done = record.done;
  slot.recorded_failed = slot.failed = record.failed;
  slot.refetched = record.refetched;
  heads_.SetBacklog(slot, record.queued());
  // A resume reads its queue from the start: what was leased at the crash
  // is before the hint and waiting again.
  if (!restore) {
    slot.loaded_seq = record.loaded_seq;
    slot.in_line = record.in_line;
  }
  // Rules an earlier run learned are not taken (a run's learning is told
  // by its token): a resumed crawl asks robots.txt again.
  if (!restore && slot.robots_state == RobotsState::kNeeded) robots_.ReadStored(slot, std::nullopt);
  board_.Loaded(slot.origin);
  if (!record.last_failure.empty()) memory_.Change(slot, [&] { slot.SetLastFailure(record.last_failure); });
  if (record.backoff.any()) memory_.Change(slot, [&] { RestoreBackoff(record.backoff, slot); });
  slot.address_key = record.address_key;
  return slot;
}

StoredBackoff OriginTable::BackoffRecordOf(const HostSlot& slot) const {
  StoredBackoff b;
  if (!slot.trouble) return b;
  const OriginTrouble& t = *slot.trouble;
  const int64_t to_wall = clock_.WallMs() - clock_.NowMs();
  auto wall = [&](int64_t mono) { return mono == 0 ? 0 : std::max<int64_t>(mono + to_wall, 1); };
  b.since_ms = wall(t.backoff_since_ms);
  b.last_pushback_ms = wall(t.last_pushback_ms);
  b.limited_since_ms = wall(t.limited_since_ms);
  if (t.backoff_since_ms != 0) b.hold_until_ms = wall(slot.next_fetch_ms);
  b.gap_ms = static_cast<uint32_t>(std::max(t.backoff_gap_ms, 0));
  b.floor_ms = static_cast<uint32_t>(std::max(t.backoff_floor_ms, 0));
  b.pushbacks = t.pushbacks;
  return b;
}

void OriginTable::RestoreBackoff(const StoredBackoff& b, HostSlot& slot) const {
  OriginTrouble& t = slot.Trouble();
  const int64_t to_mono = clock_.NowMs() - clock_.WallMs();
  // A time from before this run's clock began is still a time: kept as
  // the earliest this clock can say (1), never as 0 ("none").
  auto mono = [&](int64_t wall) { return wall == 0 ? 0 : std::max<int64_t>(wall + to_mono, 1); };
  t.backoff_since_ms = mono(b.since_ms);
  t.last_pushback_ms = mono(b.last_pushback_ms);
  t.limited_since_ms = mono(b.limited_since_ms);
  t.backoff_gap_ms = static_cast<int32_t>(std::min<uint32_t>(b.gap_ms, INT32_MAX));
  t.backoff_floor_ms = static_cast<int32_t>(std::min<uint32_t>(b.floor_ms, INT32_MAX));
  t.pushbacks = b.pushbacks;
  if (b.hold_until_ms != 0) slot.next_fetch_ms = std::max(slot.next_fetch_ms, mono(b.hold_until_ms));
}

StoredOrigin OriginTable::RecordOf(const HostSlot& slot) const {
  StoredOrigin record;
  record.id = slot.id;
  record.origin = slot.origin;
  record.next_seq = slot.next_seq;
  record.done = slot.recorded_done;
  record.failed = slot.recorded_failed;
  record.refetched = slot.refetched;
  record.in_line = slot.in_line;
  record.last_failure = slot.LastFailure();
  record.backoff = BackoffRecordOf(slot);
  record.address_key = slot.address_key;
  return record;
}

void OriginTable::LeaveLine(HostSlot& slot) {
  // Its record says so before it can park again (a parked origin whose
  // record said "in line" when it was not would never get a turn).
  slot.in_line = false;
  MarkDirty(slot);
}

void OriginTable::MarkDirty(HostSlot& slot) {
  if (slot.dirty) return;
  slot.dirty = true;
  dirty_.push_back(slot.id);
}

void OriginTable::SetLastFailure(HostSlot& slot, std::string failure) {
  memory_.Change(slot, [&] { slot.SetLastFailure(std::move(failure)); });
  MarkDirty(slot);
}

void OriginTable::RecordedFinal(uint32_t id, UrlState state) {
  if (id >= next_id_) return;
  HostSlot& slot = Slot(id);
  if (state == UrlState::kDone) ++slot.recorded_done;
  if (state == UrlState::kFailed) ++slot.recorded_failed;
  MarkDirty(slot);
}

uint64_t OriginTable::Admitted(std::string_view origin) {
  const HostSlot* slot = Find(origin);
  return slot ? slot->next_seq - 1 - slot->refetched : 0;
}

void OriginTable::StageDirty() {
  for (uint32_t id : dirty_) {
    HostSlot& slot = Slot(id);  // a dirty slot never parks
    slot.dirty = false;
    if (!store_ || slot.origin.empty()) continue;
    store_->StageOrigin(RecordOf(slot));
    if (Parkable(slot)) AddParkCandidate(slot, store_->settled_when_staged_is_written());
  }
  dirty_.clear();
  for (uint32_t id : robots_.TakeSpillCandidates()) {
    // Parked since it became a candidate: spilled.
    if (HostSlot* slot = Loaded(id)) robots_.MaybeSpill(*slot);
  }
  ParkCandidates();
}

bool OriginTable::Quiet(const HostSlot& slot) const {
  if (!slot.waiting.empty() || slot.in_flight > 0 || slot.retrying > 0 ||
      !slot.requisites_loaded_ahead.empty() || slot.origin.empty()) {
    return false;
  }
  // Every URL's final state recorded (RecordedFinal) but those on disk: the
  // record's queued count is the backlog, so the origin loads back exact.
  if (slot.recorded_done + slot.recorded_failed + slot.backlog != slot.next_seq - 1) return false;
  return slot.robots_state != RobotsState::kFetching && !RobotsRetrying(slot);
}

void OriginTable::AddParkCandidate(HostSlot& slot, uint64_t written_at) {
  if (slot.park_candidate) return;
  slot.park_candidate = true;
  park_candidates_.emplace_back(slot.id, written_at);
}

void OriginTable::ParkCandidates() {
  if (park_candidates_.empty()) return;
  const int64_t now = clock_.NowMs();
  std::vector<std::pair<uint32_t, uint64_t>> candidates;
  candidates.swap(park_candidates_);
  for (const auto& [id, written_at] : candidates) {
    HostSlot& slot = slots_.at(id);  // a candidate stays in RAM
    slot.park_candidate = false;
    // Busy again, or changed: staged again first, a candidate again then.
    if (!Parkable(slot) || slot.dirty) continue;
    if (slot.robots) robots_.MaybeSpill(slot);
    if (slot.robots || slot.in_ready_heap || slot.next_fetch_ms > now ||
        store_->settled_batches() < written_at) {
      slot.park_candidate = true;
      park_candidates_.emplace_back(id, written_at);
      continue;
    }
    Park(slot);
  }
}

void OriginTable::Park(HostSlot& slot) {
  board_.Parked(board_.RowOf(slot));
  if (slot.backlog > 0) {
    // Its turn is over: to the back of the line (unless it has a place
    // there: loaded by a URL of its own while in line), with where its
    // queue starts in its record (staged now; an older one only reads a
    // few tombstones more).
    if (!slot.in_line) line_.push_back(slot.id);
    slot.in_line = true;
    ++yields_;
    StoredOrigin record = RecordOf(slot);
    record.loaded_seq = slot.loaded_seq;
    store_->StageOrigin(record);
    heads_.SetBacklog(slot, 0);  // still counted waiting by the scheduler
  }
  memory_.Removed(slot);
  by_name_.Erase(&slot);
  slots_.erase(slot.id);
  ++parked_;
}

Status OriginTable::Restore(const StoredOrigin& origin, bool* loaded) {
  *loaded = false;
  if (origin.id != next_id_ || by_name_.Find(origin.origin)) {
    return DataLossError("origin record " + std::to_string(origin.id) + " (" + origin.origin +
                         ") is out of order or repeated");
  }
  next_id_ = origin.id + 1;
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
    if (in_line) line_.push_back(origin.id);
    v1::HostQueue row;
    row.set_host(origin.origin);
    row.set_done(origin.done);
    row.set_failed(origin.failed);
    row.set_last_failure(origin.last_failure);
    row.set_pushbacks(origin.backoff.pushbacks);
    board_.Parked(std::move(row));
    return Status::Ok();
  }
  LoadSlot(origin, /*restore=*/true);
  *loaded = true;
  return Status::Ok();
}

}  // namespace zcrawl::frontier
