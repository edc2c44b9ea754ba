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

uint32_t CrawlScheduler::SlotFor(std::string_view origin) {
  if (auto found = slot_by_origin_.Find(origin)) return *found;
  const auto index = static_cast<uint32_t>(slots_.size());
  HostSlot& slot = slots_.emplace_back();
  slot.origin = std::string(origin);
  slot.delay_ms = options_.delay_ms;
  slot.robots_state = options_.obey_robots ? RobotsState::kNeeded : RobotsState::kNotNeeded;
  slot_by_origin_.Insert(index);
  slot_heap_bytes_ += SlotHeapBytes(slot);
  MarkDirty(slot, index);
  return index;
}

void CrawlScheduler::MarkDirty(HostSlot& slot, uint32_t slot_index) {
  if (slot.dirty) return;
  slot.dirty = true;
  dirty_slots_.push_back(slot_index);
}

void CrawlScheduler::StageDirtyOrigins() {
  for (uint32_t index : dirty_slots_) {
    HostSlot& slot = slots_[index];
    slot.dirty = false;
    if (!store_) continue;
    StoredOrigin record;
    record.id = index;
    record.origin = slot.origin;
    record.next_seq = slot.next_seq;
    record.done = slot.recorded_done;
    record.failed = slot.recorded_failed;
    record.refetched = slot.refetched;
    store_->StageOrigin(record);
  }
  dirty_slots_.clear();
  std::vector<uint32_t> candidates;
  candidates.swap(robots_spill_candidates_);
  for (uint32_t index : candidates) MaybeSpillRobots(index);
}

Status CrawlScheduler::RestoreOrigin(const StoredOrigin& origin) {
  if (origin.id != slots_.size() || slot_by_origin_.Find(origin.origin)) {
    return DataLossError("origin record " + std::to_string(origin.id) + " (" + origin.origin +
                         ") is out of order or repeated");
  }
  const uint32_t index = SlotFor(origin.origin);
  HostSlot& slot = slots_[index];
  slot.dirty = false;
  dirty_slots_.pop_back();
  slot.next_seq = origin.next_seq;
  slot.recorded_done = slot.done = origin.done;
  slot.recorded_failed = slot.failed = origin.failed;
  slot.refetched = origin.refetched;
  SetBacklog(slot, origin.queued());
  counts_.waiting += slot.backlog;
  counts_.done += origin.done;
  counts_.failed += origin.failed;
  MaybeSchedule(index);
  return Status::Ok();
}

void CrawlScheduler::RecordedFinal(uint32_t origin_index, UrlState state) {
  if (origin_index >= slots_.size()) return;
  HostSlot& slot = slots_[origin_index];
  if (state == UrlState::kDone) ++slot.recorded_done;
  if (state == UrlState::kFailed) ++slot.recorded_failed;
  MarkDirty(slot, origin_index);
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

namespace {

v1::HostQueue HostRow(const HostSlot& slot) {
  v1::HostQueue q;
  q.set_host(slot.origin);
  q.set_waiting(slot.waiting_total());
  q.set_in_flight(slot.in_flight);
  q.set_done(slot.done);
  q.set_failed(slot.failed);
  q.set_last_failure(slot.LastFailure());
  return q;
}

}  // namespace

std::vector<v1::HostQueue> CrawlScheduler::FailingOrigins(size_t limit) const {
  std::vector<const HostSlot*> order;
  for (const HostSlot& slot : slots_) {
    if (slot.failed > 0) order.push_back(&slot);
  }
  const size_t n = std::min(limit, order.size());
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [](const HostSlot* a, const HostSlot* b) {
                      if ((a->done == 0) != (b->done == 0)) return a->done == 0;
                      return a->failed > b->failed;
                    });
  std::vector<v1::HostQueue> out;
  for (size_t i = 0; i < n; ++i) out.push_back(HostRow(*order[i]));
  return out;
}

std::vector<v1::HostQueue> CrawlScheduler::TopOrigins(size_t limit, bool by_done) const {
  std::vector<const HostSlot*> order;
  for (const HostSlot& slot : slots_) order.push_back(&slot);
  const size_t n = std::min(limit, order.size());
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [by_done](const HostSlot* a, const HostSlot* b) {
                      if (by_done) return a->done + a->failed > b->done + b->failed;
                      return a->waiting_total() + a->in_flight > b->waiting_total() + b->in_flight;
                    });
  std::vector<v1::HostQueue> out;
  for (size_t i = 0; i < n; ++i) out.push_back(HostRow(*order[i]));
  return out;
}

}  // namespace zcrawl::frontier
