#include "frontier/seen/seen_set.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>

namespace zcrawl::frontier {
namespace {

// BloomFilter is sized by an expected count at 10 bits (1.25 bytes) each.
constexpr uint64_t kBitsPerEntry = 10;
uint64_t EntriesFor(uint64_t bytes) { return std::max<uint64_t>(bytes * 8 / kBitsPerEntry, 1024); }
constexpr uint64_t kGrowth = 4;

}  // namespace

SeenSet::SeenSet(UrlStore& store, KnownUrlCache& cache, uint64_t max_filter_bytes, bool resumed,
                 uint64_t stored_hint)
    : store_(store), cache_(cache), max_filter_bytes_(std::max(max_filter_bytes, kInitialFilterBytes)) {
  filter_capacity_ = EntriesFor(kInitialFilterBytes);
  filter_ = std::make_shared<BloomFilter>(filter_capacity_);
  if (resumed) {
    stored_ = stored_hint;
    filter_complete_ = false;
    rebuild_after_resume_ = true;
    // The size growth would have reached with room for four times the
    // stored URLs, so the adopted filter is at most a quarter full and does
    // not grow again at once (sized for twice, it sat at its growth
    // threshold the moment it was adopted, measured at 6x10^7 URLs: a
    // second rebuild right after the first), and a crawl resumed at the
    // budget gets the filter and the lent cache it had. Each step fits
    // beside its predecessor, so also beside the 1 MB filter that exists
    // meanwhile.
    uint64_t bytes = kInitialFilterBytes;
    while (EntriesFor(bytes) < stored_hint * 4) {
      const uint64_t next = NextFilterBytes(bytes, max_filter_bytes_);
      if (next == 0) break;
      bytes = next;
    }
    StartRebuild(bytes);
  } else {
    MaybeLendUnusedShare();
  }
  Publish();
}

SeenSet::~SeenSet() {
  stop_rebuild_ = true;
  if (rebuild_thread_.joinable()) rebuild_thread_.join();
}

void SeenSet::StartRebuild(uint64_t filter_bytes) {
  // Everything seen so far is either written (the scan's snapshot has it)
  // or staged (taken now), and all claimed from here on is recorded.
  std::unique_ptr<SeenScan> scan = store_.StartSeenScan();
  claimed_during_rebuild_ = store_.staged_fingerprints();
  rebuilt_bytes_ = filter_bytes;
  rebuilt_ = std::make_unique<BloomFilter>(EntriesFor(filter_bytes));
  rebuild_done_ = false;
  rebuild_thread_ = std::thread([this, scan = std::move(scan)] {
    pthread_setname_np(pthread_self(), "filter-rebuild");
    uint64_t entries = 0;
    Status s = scan->ForEach([&](uint64_t fingerprint) {
      rebuilt_->Add(fingerprint);
      ++entries;
      return !stop_rebuild_.load(std::memory_order_relaxed);
    });
    rebuilt_entries_ = entries;
    rebuild_failed_ = !s.ok() || stop_rebuild_;
    if (!s.ok()) spdlog::error("cannot rebuild the seen filter: {}", s.message());
    rebuild_done_ = true;
  });
}

void SeenSet::MaybeAdoptRebuilt() {
  if (!rebuild_thread_.joinable() || !rebuild_done_) return;
  rebuild_thread_.join();
  if (rebuild_failed_) {
    // Stay exact: the old filter (or none, after a resume) goes on; a
    // later growth check tries again.
    rebuilt_.reset();
    claimed_during_rebuild_ = {};
    return;
  }
  for (uint64_t fingerprint : claimed_during_rebuild_) rebuilt_->Add(fingerprint);
  filter_entries_ = rebuilt_entries_ + claimed_during_rebuild_.size();
  claimed_during_rebuild_ = {};
  if (rebuild_after_resume_) {
    // The scan counted the earlier runs' URLs (its snapshot predates this
    // run's claims, which are counted in `admitted`).
    stored_ = rebuilt_entries_;
    rebuild_after_resume_ = false;
  }
  filter_ = std::move(rebuilt_);
  filter_capacity_ = EntriesFor(rebuilt_bytes_);
  filter_complete_ = true;
  Publish();
  MaybeLendUnusedShare();
  ++counters_.filter_rebuilds;
  spdlog::info("seen filter rebuilt from the store: {} URLs in {} MB", filter_entries_,
               filter_->memory_bytes() >> 20);
}

uint64_t SeenSet::NextFilterBytes(uint64_t bytes, uint64_t max_filter_bytes) {
  // The old filter answers until the new one is adopted, so both must fit
  // in the share: the last step may be smaller than 4x (measured: a 256 MB
  // filter growing to the 540 MB share would have held 796 MB during the
  // rebuild). A step of less than 2x is not taken: it would scan the whole
  // store for a few percent more room (at --memory-mb 1200 it was 256 to
  // 284 MB at 1.07 x 10^8 URLs), and the share it would use does more as
  // known-URL cache (MaybeLendUnusedShare).
  const uint64_t next = std::min(bytes * kGrowth, max_filter_bytes > bytes ? max_filter_bytes - bytes : 0);
  return next >= 2 * bytes ? next : 0;
}

void SeenSet::MaybeGrow() {
  // Start at half the design size, so the larger filter is usually adopted
  // before this one saturates (measured: waiting for the full design size
  // left the old filter past it for most of a rebuild, and the false
  // positives' disk lookups halved the admission rate meanwhile).
  if (!filter_complete_ || rebuild_thread_.joinable() || filter_entries_ < filter_capacity_ / 2) {
    return;
  }
  // At the budget, the false-positive rate rises instead.
  if (const uint64_t next = NextFilterBytes(filter_->memory_bytes(), max_filter_bytes_)) StartRebuild(next);
}

void SeenSet::MaybeLendUnusedShare() {
  // A filter that will not grow again never needs its successor's room:
  // the known-URL cache takes it. At 10^8 URLs the known URLs the cache
  // misses are most of the seen set's disk lookups (bench/RESULTS.md run
  // AB: 49k/s beside 29k new URLs/s); at --memory-mb 1200 this is 284 MB
  // more cache from 2.7 x 10^7 URLs on. (Only a failed rebuild retries a
  // growth, and a failed one is never adopted, so nothing is lent then.)
  const uint64_t bytes = std::max(filter_->memory_bytes(), rebuilt_bytes_);
  if (NextFilterBytes(bytes, max_filter_bytes_) != 0 || bytes >= max_filter_bytes_) return;
  cache_.Enlarge(max_filter_bytes_ - bytes);
  spdlog::info("seen filter at its final {} MB: the known-URL cache takes the share's other {} MB",
               bytes >> 20, (max_filter_bytes_ - bytes) >> 20);
}

SeenSetCounters SeenSet::counters() const {
  SeenSetCounters counters = counters_;
  counters.link_disk_lookups = link_disk_lookups_.load(std::memory_order_relaxed);
  counters.link_found_stored = link_found_stored_.load(std::memory_order_relaxed);
  counters.disk_lookups += counters.link_disk_lookups;
  counters.checks += counters.link_found_stored;
  return counters;
}

void SeenSet::LookUpStored(const std::vector<UrlKey>& keys, std::vector<bool>* stored, uint64_t* as_of) const {
  // The count first: the multi-get below then sees every batch it covers.
  // The filter after it holds at least what those batches admitted (a
  // fingerprint is added before it is staged), so its "no" is a "not
  // stored" as of the count too.
  *as_of = store_.settled_batches();
  const std::shared_ptr<const BloomFilter> filter = published_filter_.load(std::memory_order_acquire);
  stored->assign(keys.size(), false);
  std::vector<UrlKey> ask;
  std::vector<size_t> positions;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (filter && !filter->MayContain(keys[i].fingerprint)) continue;
    ask.push_back(keys[i]);
    positions.push_back(i);
  }
  if (ask.empty()) return;
  std::vector<bool> present;
  store_.StoredSeen(ask, &present);
  uint64_t found = 0;
  for (size_t j = 0; j < ask.size(); ++j) {
    if (!present[j]) continue;
    (*stored)[positions[j]] = true;
    ++found;
  }
  link_disk_lookups_.fetch_add(ask.size(), std::memory_order_relaxed);
  link_found_stored_.fetch_add(found, std::memory_order_relaxed);
}

void SeenSet::ClaimNew(const std::vector<UrlKey>& keys, std::vector<bool>* is_new, uint64_t not_stored_as_of) {
  MaybeAdoptRebuilt();
  is_new->assign(keys.size(), false);
  counters_.checks += keys.size();
  if (not_stored_as_of != kNotLookedUp) {
    const uint64_t settled = store_.settled_batches();
    if (not_stored_as_of == settled || not_stored_as_of + 1 == settled) {
      ClaimNotStored(keys, is_new, /*one_behind=*/not_stored_as_of + 1 == settled);
      return;
    }
    counters_.link_answers_stale += keys.size();
  }
  std::unordered_set<uint64_t> in_batch;
  std::vector<UrlKey> ask;
  std::vector<size_t> ask_positions;
  std::vector<size_t> fresh;  // positions decided new
  std::vector<uint64_t> confirmed_known;  // known: re-inserted into the cache
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t fingerprint = keys[i].fingerprint;
    if (!in_batch.insert(fingerprint).second) continue;  // repeated in this batch
    // The filter first: one cache line, and it answers most links that
    // reach the broker (new ones: the link threads dropped what the cache
    // knew). Only a "maybe" is worth the cache's two table probes, which
    // were 7% of the broker thread when they came first.
    if (filter_complete_ && !filter_->MayContain(fingerprint)) {
      ++counters_.filter_negatives;
      fresh.push_back(i);
      continue;
    }
    bool in_older = false;
    if (cache_.Contains(fingerprint, &in_older)) {
      ++counters_.cache_hits;
      if (in_older) confirmed_known.push_back(fingerprint);  // inserted again below
      continue;
    }
    ask.push_back(keys[i]);
    ask_positions.push_back(i);
  }
  if (!ask.empty()) {
    std::vector<bool> present;
    store_.Contains(ask, &present);
    counters_.disk_lookups += ask.size();
    for (size_t j = 0; j < ask.size(); ++j) {
      if (present[j]) {
        confirmed_known.push_back(ask[j].fingerprint);
      } else {
        if (filter_complete_) ++counters_.filter_false_positives;
        fresh.push_back(ask_positions[j]);
      }
    }
  }
  Decide(keys, fresh, confirmed_known, is_new);
}

void SeenSet::ClaimNotStored(const std::vector<UrlKey>& keys, std::vector<bool>* is_new, bool one_behind) {
  // Not in the database as of the batches settled then: known only if
  // staged or in flight now, or in the one batch settled since (the filter
  // and the cache cannot add to that: whatever they know is written,
  // staged or in flight).
  std::unordered_set<uint64_t> in_batch;
  std::vector<size_t> fresh;
  std::vector<uint64_t> confirmed_known;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint64_t fingerprint = keys[i].fingerprint;
    if (!in_batch.insert(fingerprint).second) continue;
    if (store_.Unwritten(fingerprint) || (one_behind && store_.InLastSettled(fingerprint))) {
      confirmed_known.push_back(fingerprint);
    } else {
      fresh.push_back(i);
    }
  }
  (one_behind ? counters_.link_answers_behind : counters_.link_answers_used) += keys.size();
  Decide(keys, fresh, confirmed_known, is_new);
}

void SeenSet::Decide(const std::vector<UrlKey>& keys, const std::vector<size_t>& fresh,
                     const std::vector<uint64_t>& confirmed_known, std::vector<bool>* is_new) {
  for (size_t i : fresh) {
    const uint64_t fingerprint = keys[i].fingerprint;
    (*is_new)[i] = true;
    filter_->Add(fingerprint);
    if (rebuild_thread_.joinable()) claimed_during_rebuild_.push_back(fingerprint);
    store_.StageSeen(SeenEntry{fingerprint, keys[i].site, SeenState::kAdmitted, 0, {}, {}});
  }
  filter_entries_ += fresh.size();
  counters_.admitted += fresh.size();
  // The cache takes the URLs found known (a link seen twice is likely to
  // be seen again: a site's navigation, its popular pages), not the new
  // ones: most of those are linked once, and inserting them rotated the
  // cache every ~100 s at 3x10^7 URLs, dropping the popular ones (measured:
  // 15k disk lookups/s of known URLs). A new URL linked again costs one
  // lookup the second time (usually answered by the staged set or the
  // memtable), then it is cached.
  cache_.Insert(confirmed_known);
  MaybeGrow();
}

}  // namespace zcrawl::frontier
