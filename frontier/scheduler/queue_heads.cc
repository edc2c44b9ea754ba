#include "frontier/scheduler/queue_heads.h"

#include <algorithm>
#include <vector>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

QueueHeads::Refill QueueHeads::RefillHead(HostSlot& slot) {
  Refill result;
  if (!slot.waiting.empty() || slot.backlog == 0 || store_ == nullptr) return result;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(slot.backlog, RefillSize()));
  std::vector<QueuedUrl> loaded;
  // The store reads its staged and in-flight entries too: a refill
  // neither forces a write nor waits for one. Requisites loaded ahead may
  // be among the entries read: they are skipped.
  Status s = store_->LoadQueue(slot.id, slot.origin, slot.loaded_seq,
                               want + slot.requisites_loaded_ahead.size(), &loaded);
  if (!s.ok()) {
    ++errors_;
    spdlog::error("cannot load the queue of {}: {}", slot.origin, s.message());
    result.failed = true;
    return result;
  }
  size_t taken = 0;
  auto& ahead = slot.requisites_loaded_ahead;
  for (QueuedUrl& url : loaded) {
    if (taken == want) break;
    slot.loaded_seq = url.seq;
    if (std::binary_search(ahead.begin(), ahead.end(), url.seq)) continue;  // in RAM or leased already
    PushBack(slot, UrlRecord{std::move(url.url), slot.id, url.depth, url.attempts, url.seq,
                             url.redirect_hops, url.embed_hops});
    ++taken;
  }
  memory_.Change(slot, [&] {
    ahead.erase(ahead.begin(), std::upper_bound(ahead.begin(), ahead.end(), slot.loaded_seq));
  });
  if (taken < want) {
    // The origin record promised more than the disk holds: count them gone
    // (loudly) rather than wait for them forever.
    result.missing = slot.backlog - taken;
    ++errors_;
    spdlog::error("queue of {} holds {} fewer URLs than its record says", slot.origin, result.missing);
    SetBacklog(slot, taken);
  }
  SetBacklog(slot, slot.backlog - taken);
  ++refills_;
  slot.refilled = true;
  return result;
}

uint64_t QueueHeads::RefillSize() const {
  // Past the heads' bounds, a few URLs only (kMinRefill), so each origin
  // can still lease without a disk read per URL; without this bound the
  // heads outgrew the frontier's memory budget (bench/RESULTS.md run AK).
  if (Full()) return kMinRefill;
  // Within them, up to a full head, but no more than the origin's fair
  // share of the heads (their bound over the origins with URLs on disk):
  // a refill that took whatever room was left filled the heads to their
  // bound, after which every refill took kMinRefill, one seek per 4 leases
  // (run AK). Heads refilled to a fair share and leased down to empty hold
  // about half the bound on average (run AM).
  const uint64_t capacity = std::min(limits_.max_loaded, limits_.max_head_bytes / UrlBytes());
  const uint64_t fair_share = capacity / std::max<uint64_t>(backlogged_origins_, 1);
  return std::max<uint64_t>(kMinRefill, std::min<uint64_t>({limits_.head_per_origin, Room(), fair_share}));
}

void QueueHeads::SetBacklog(HostSlot& slot, uint64_t backlog) {
  if (slot.backlog == 0 && backlog > 0) ++backlogged_origins_;
  if (slot.backlog > 0 && backlog == 0) --backlogged_origins_;
  slot.backlog = backlog;
}

uint64_t QueueHeads::UrlBytes() const {
  return loaded_ > 0 ? std::max<uint64_t>(head_bytes_ / loaded_, 1) : kTypicalHeadUrlBytes;
}

bool QueueHeads::Full() const {
  return loaded_ >= limits_.max_loaded || head_bytes_ >= limits_.max_head_bytes;
}

uint64_t QueueHeads::Room() const {
  if (Full()) return 0;
  const uint64_t urls = limits_.max_loaded - loaded_;
  return std::min(urls, (limits_.max_head_bytes - head_bytes_) / UrlBytes());
}

template <typename Change>
void QueueHeads::ChangeHead(HostSlot& slot, Change&& change) {
  const size_t before = slot.waiting.bytes();
  const size_t urls_before = slot.waiting.size();
  change(slot.waiting);
  head_bytes_ = head_bytes_ - before + slot.waiting.bytes();
  loaded_ = loaded_ - urls_before + slot.waiting.size();
}

void QueueHeads::PushBack(HostSlot& slot, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.push_back(slot.origin, record); });
}

void QueueHeads::Insert(HostSlot& slot, size_t index, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.insert(index, slot.origin, record); });
}

void QueueHeads::PushFront(HostSlot& slot, const UrlRecord& record) {
  ChangeHead(slot, [&](UrlHead& head) { head.push_front(slot.origin, record); });
}

UrlRecord QueueHeads::PopFront(HostSlot& slot) {
  UrlRecord record;
  ChangeHead(slot, [&](UrlHead& head) { record = head.pop_front(slot.origin, slot.id); });
  if (slot.requisites_ahead > 0) --slot.requisites_ahead;
  return record;
}

void QueueHeads::Clear(HostSlot& slot) {
  ChangeHead(slot, [](UrlHead& head) { head.clear(); });
  slot.requisites_ahead = 0;
}

}  // namespace zcrawl::frontier
