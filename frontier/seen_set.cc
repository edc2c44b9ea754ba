#include "frontier/seen_set.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <unordered_set>

namespace zcrawl::frontier {
namespace {

// BloomFilter is sized by an expected count at 10 bits (1.25 bytes) each.
constexpr uint64_t kBitsPerEntry = 10;
uint64_t EntriesFor(uint64_t bytes) { return std::max<uint64_t>(bytes * 8 / kBitsPerEntry, 1024); }
uint64_t BytesFor(uint64_t entries) { return entries * kBitsPerEntry / 8; }
constexpr uint64_t kGrowth = 4;

}  // namespace

SeenSet::SeenSet(UrlStore& store, KnownUrlCache& cache, uint64_t max_filter_bytes, bool resumed,
                 uint64_t stored_hint)
    : store_(store), cache_(cache), max_filter_bytes_(std::max(max_filter_bytes, kInitialFilterBytes)) {
  filter_capacity_ = EntriesFor(kInitialFilterBytes);
  filter_ = std::make_unique<BloomFilter>(filter_capacity_);
  if (resumed) {
    stored_ = stored_hint;
    filter_complete_ = false;
    rebuild_after_resume_ = true;
    // Room for the stored URLs and as many again, within the budget.
    StartRebuild(std::clamp<uint64_t>(BytesFor(stored_hint * 2), kInitialFilterBytes, max_filter_bytes_));
  }
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
  ++counters_.filter_rebuilds;
  spdlog::info("seen filter rebuilt from the store: {} URLs in {} MB", filter_entries_,
               filter_->memory_bytes() >> 20);
}

void SeenSet::MaybeGrow() {
  // Start at half the design size, so the larger filter is usually adopted
  // before this one saturates (measured: waiting for the full design size
  // left the old filter past it for most of a rebuild, and the false
  // positives' disk lookups halved the admission rate meanwhile).
  if (!filter_complete_ || rebuild_thread_.joinable() || filter_entries_ < filter_capacity_ / 2) {
    return;
  }
  const uint64_t bytes = filter_->memory_bytes();
  if (bytes >= max_filter_bytes_) return;  // at the budget: the rate rises instead
  StartRebuild(std::min(bytes * kGrowth, max_filter_bytes_));
}

void SeenSet::ClaimNew(const std::vector<uint64_t>& fingerprints, std::vector<bool>* is_new) {
  MaybeAdoptRebuilt();
  is_new->assign(fingerprints.size(), false);
  counters_.checks += fingerprints.size();
  std::unordered_set<uint64_t> in_batch;
  std::vector<uint64_t> ask;
  std::vector<size_t> ask_positions;
  std::vector<size_t> fresh;  // positions decided new
  std::vector<uint64_t> confirmed_known;  // known: re-inserted into the cache
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    const uint64_t fingerprint = fingerprints[i];
    if (!in_batch.insert(fingerprint).second) continue;  // repeated in this batch
    bool in_older = false;
    if (cache_.Contains(fingerprint, &in_older)) {
      ++counters_.cache_hits;
      if (in_older) confirmed_known.push_back(fingerprint);  // inserted again below
      continue;
    }
    if (filter_complete_ && !filter_->MayContain(fingerprint)) {
      ++counters_.filter_negatives;
      fresh.push_back(i);
      continue;
    }
    ask.push_back(fingerprint);
    ask_positions.push_back(i);
  }
  if (!ask.empty()) {
    std::vector<bool> present;
    store_.Contains(ask, &present);
    counters_.disk_lookups += ask.size();
    for (size_t j = 0; j < ask.size(); ++j) {
      if (present[j]) {
        confirmed_known.push_back(ask[j]);
      } else {
        if (filter_complete_) ++counters_.filter_false_positives;
        fresh.push_back(ask_positions[j]);
      }
    }
  }
  std::vector<uint64_t> claimed;
  claimed.reserve(fresh.size() + confirmed_known.size());
  for (size_t i : fresh) {
    const uint64_t fingerprint = fingerprints[i];
    (*is_new)[i] = true;
    filter_->Add(fingerprint);
    if (rebuild_thread_.joinable()) claimed_during_rebuild_.push_back(fingerprint);
    store_.StageSeen(SeenEntry{fingerprint, SeenState::kAdmitted, 0, {}, {}});
    claimed.push_back(fingerprint);
  }
  filter_entries_ += claimed.size();
  counters_.admitted += claimed.size();
  // Known now, and likely asked about again soon (the page's own links to
  // popular pages, the next pages of the same site).
  claimed.insert(claimed.end(), confirmed_known.begin(), confirmed_known.end());
  cache_.Insert(claimed);
  MaybeGrow();
}

}  // namespace zcrawl::frontier
