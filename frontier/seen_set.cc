#include "frontier/seen_set.h"

#include <spdlog/spdlog.h>

#include <unordered_set>

namespace zcrawl::frontier {
namespace {

// BloomFilter takes an expected count at 10 bits (1.25 bytes) per entry.
uint64_t FilterEntriesFor(uint64_t bytes) { return bytes * 8 / 10; }

}  // namespace

SeenSet::SeenSet(UrlStore& store, KnownUrlCache& cache, uint64_t filter_bytes, bool resumed)
    : store_(store),
      cache_(cache),
      filter_(std::make_unique<BloomFilter>(FilterEntriesFor(filter_bytes))) {
  if (resumed) StartRebuild(filter_bytes);
}

SeenSet::~SeenSet() {
  stop_rebuild_ = true;
  if (rebuild_thread_.joinable()) rebuild_thread_.join();
}

void SeenSet::StartRebuild(uint64_t filter_bytes) {
  filter_complete_ = false;
  rebuilt_ = std::make_unique<BloomFilter>(FilterEntriesFor(filter_bytes));
  rebuild_thread_ = std::thread([this] {
    uint64_t entries = 0;
    Status s = store_.ForEachSeen([&](const SeenEntry& entry) {
      rebuilt_->Add(entry.fingerprint);
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
  if (filter_complete_ || !rebuild_done_) return;
  rebuild_thread_.join();
  if (rebuild_failed_) {
    // Stay exact: every check keeps going to the store.
    rebuild_done_ = false;
    return;
  }
  for (uint64_t fingerprint : claimed_during_rebuild_) rebuilt_->Add(fingerprint);
  claimed_during_rebuild_ = {};
  stored_ = rebuilt_entries_;  // the scan's snapshot predates this run's claims
  filter_ = std::move(rebuilt_);
  filter_complete_ = true;
  spdlog::info("seen filter rebuilt from the store: {} URLs", rebuilt_entries_);
}

void SeenSet::ClaimNew(const std::vector<uint64_t>& fingerprints, std::vector<bool>* is_new) {
  MaybeAdoptRebuilt();
  is_new->assign(fingerprints.size(), false);
  counters_.checks += fingerprints.size();
  std::unordered_set<uint64_t> in_batch;
  std::vector<uint64_t> ask;
  std::vector<size_t> ask_positions;
  std::vector<size_t> fresh;  // positions decided new
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    const uint64_t fingerprint = fingerprints[i];
    if (!in_batch.insert(fingerprint).second) continue;  // repeated in this batch
    if (cache_.Contains(fingerprint)) {
      ++counters_.cache_hits;
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
  std::vector<uint64_t> confirmed_known;
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
  claimed.reserve(fresh.size());
  for (size_t i : fresh) {
    const uint64_t fingerprint = fingerprints[i];
    (*is_new)[i] = true;
    filter_->Add(fingerprint);
    if (!filter_complete_) claimed_during_rebuild_.push_back(fingerprint);
    store_.StageSeen(SeenEntry{fingerprint, SeenState::kWaiting, 0, {}, {}});
    claimed.push_back(fingerprint);
  }
  counters_.admitted += claimed.size();
  // Known now, and likely asked about again soon (the page's own links to
  // popular pages, the next pages of the same site).
  claimed.insert(claimed.end(), confirmed_known.begin(), confirmed_known.end());
  cache_.Insert(claimed);
}

}  // namespace zcrawl::frontier
