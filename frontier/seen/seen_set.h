// SeenSet: decides, exactly, which reported URLs are new to the crawl, with
// RAM bounded whatever the number of known URLs. Three layers:
//   1. KnownUrlCache (exact, bounded, shared with the link threads): a hit
//      is a known URL. The link threads drop its hits before the broker;
//      here it is asked only after the filter's "maybe" (the links that
//      reach the broker are mostly new, and the filter is cheaper);
//   2. a resident Bloom filter of every fingerprint: "definitely new" needs
//      no disk read;
//   3. the UrlStore's `seen` family, asked in one batched multi-get for all
//      the "maybe" answers the cache cannot settle: the exact answer.
// A filter false positive costs one disk lookup, never a dropped URL.
//
// The multi-get runs in the link threads (LookUpStored), before the broker
// decides: past the cache's reach (~10^8 URLs) it was ~40% of the broker
// thread, the frontier's serial part. A seen key is never removed, so a
// link thread's "stored" is final and the link is dropped there. Its "not
// stored" is true of the batches settled when it asked (UrlStore::
// settled_batches); ClaimNew takes it as the answer if at most one batch
// has settled since (every later one is still in the store's staged or
// in-flight set, and the store keeps the last settled batch's fingerprints,
// which it checks too), and asks the store itself otherwise.
//
// The filter grows with the crawl, up to its share of the budget (the old
// and the new filter together during a rebuild): it starts at 1 MB (a small
// crawl's RSS stays small: a big filter's random probes would touch a page
// per URL), and whenever the URLs reach half its design size a background
// thread builds one four times larger (the last step less) from a scan of the store
// while checks go on against the old one (its false-positive rate rises
// meanwhile, costing lookups, not URLs). The same rebuild runs after a
// resume, where the filter starts empty and, until the rebuild is adopted,
// cannot say "definitely new": every check the cache cannot answer asks the
// store. Past the budget the filter stays as it is and its rate rises.
//
// Not thread-safe but for LookUpStored: the broker thread calls the rest
// (the rebuild thread only reads a store snapshot and fills its own filter,
// adopted by the broker thread once the thread is done). The link threads
// probe the published filter (one writer, many readers: bloom_filter.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "frontier/seen/bloom_filter.h"
#include "frontier/seen/known_url_cache.h"
#include "frontier/store/url_store.h"

namespace zcrawl::frontier {

struct SeenSetCounters {
  // Fingerprints decided, by any layer: the broker's claims, plus what
  // the link threads dropped before it (known to the cache, found stored).
  // Every in-scope link a fetcher reports is one check.
  uint64_t checks = 0;
  uint64_t cache_hits = 0;        // known from the cache (link threads or broker)
  uint64_t link_cache_hits = 0;   // of cache_hits, the link threads'
  uint64_t filter_negatives = 0;  // new without a disk read
  uint64_t disk_lookups = 0;      // asked the store
  uint64_t filter_false_positives = 0;  // "maybe" that the store said was new
  uint64_t admitted = 0;          // new
  uint64_t filter_rebuilds = 0;   // adopted rebuilds (growth or resume)
  // Of disk_lookups, those the link threads made, and of these the keys
  // they found stored (dropped before the broker).
  uint64_t link_disk_lookups = 0;
  uint64_t link_found_stored = 0;
  // Checks decided on a link thread's "not stored" (no disk read on the
  // broker): still current, or one settled batch behind; and those that
  // asked again because more batches had settled since.
  uint64_t link_answers_used = 0;
  uint64_t link_answers_behind = 0;
  uint64_t link_answers_stale = 0;
};

class SeenSet {
 public:
  static constexpr uint64_t kInitialFilterBytes = 1 << 20;

  // `max_filter_bytes`: the filter's share of the budget. `resumed`: the
  // store holds a crawl of about `stored_hint` URLs, so the filter is
  // rebuilt from it in the background.
  SeenSet(UrlStore& store, KnownUrlCache& cache, uint64_t max_filter_bytes, bool resumed,
          uint64_t stored_hint = 0);
  ~SeenSet();
  SeenSet(const SeenSet&) = delete;
  SeenSet& operator=(const SeenSet&) = delete;

  // LookUpStored's `as_of` when the keys were not looked up.
  static constexpr uint64_t kNotLookedUp = UINT64_MAX;

  // Thread-safe (the link threads). For each key, whether the store holds
  // it, asking the store only for what the published filter does not rule
  // out; *as_of: the settled batches this answer covers, for ClaimNew.
  void LookUpStored(const std::vector<UrlKey>& keys, std::vector<bool>* stored, uint64_t* as_of) const;

  // For each key, sets is_new[i]: true for the first occurrence of a
  // fingerprint the crawl never saw. Each new one is at once staged in the
  // store as waiting (the caller may re-stage it, e.g. as refused) and known
  // to the filter and the cache. `not_stored_as_of`: LookUpStored found
  // none of the keys stored, as of that count of settled batches.
  void ClaimNew(const std::vector<UrlKey>& keys, std::vector<bool>* is_new,
                uint64_t not_stored_as_of = kNotLookedUp);

  // Counts checks the link threads answered from the shared cache (they
  // never reach ClaimNew). Broker thread.
  void CountLinkCacheHits(uint64_t hits) {
    counters_.checks += hits;
    counters_.cache_hits += hits;
    counters_.link_cache_hits += hits;
  }

  // Fingerprints ever admitted: the store's (as counted by the last
  // rebuild, or the hint before it) plus this run's.
  uint64_t size() const { return stored_ + counters_.admitted; }
  SeenSetCounters counters() const;
  // The filter can answer "definitely new" (false until a resume's rebuild
  // is adopted).
  bool filter_complete() const { return filter_complete_; }
  uint64_t filter_bytes() const { return filter_->memory_bytes(); }
  // Entries the filter is designed for (~1% false positives); past half of
  // them it grows, if its share has room.
  uint64_t filter_capacity() const { return filter_capacity_; }
  bool rebuilding() const { return rebuild_thread_.joinable(); }

  // The size the filter grows to from `bytes` within a share of
  // `max_filter_bytes`, or 0 when it stays at `bytes` for good.
  static uint64_t NextFilterBytes(uint64_t bytes, uint64_t max_filter_bytes);

 private:
  void StartRebuild(uint64_t filter_bytes);
  void MaybeAdoptRebuilt();
  void MaybeGrow();
  void MaybeLendUnusedShare();

  UrlStore& store_;
  KnownUrlCache& cache_;
  const uint64_t max_filter_bytes_;
  // Set as the broker decides (exactly) which keys are new.
  void Decide(const std::vector<UrlKey>& keys, const std::vector<size_t>& fresh,
              const std::vector<uint64_t>& confirmed_known, std::vector<bool>* is_new);
  // ClaimNew on a "not stored" answer at most one settled batch old: only
  // the unwritten sets, and that batch's when `one_behind`.
  void ClaimNotStored(const std::vector<UrlKey>& keys, std::vector<bool>* is_new, bool one_behind);
  void Publish() { published_filter_.store(filter_complete_ ? filter_ : nullptr, std::memory_order_release); }

  std::shared_ptr<BloomFilter> filter_;
  // filter_ once complete, for the link threads (null until then).
  std::atomic<std::shared_ptr<const BloomFilter>> published_filter_;
  uint64_t filter_capacity_ = 0;  // entries at ~1% false positives
  uint64_t filter_entries_ = 0;   // entries added to filter_
  bool filter_complete_ = true;
  uint64_t stored_ = 0;           // entries of earlier runs

  // The rebuild: the thread fills rebuilt_ from a scan started on this
  // thread (a snapshot); fingerprints staged at that moment and claimed
  // since are kept in claimed_during_rebuild_ and added at adoption.
  std::thread rebuild_thread_;
  std::atomic<bool> rebuild_done_{false};
  std::atomic<bool> stop_rebuild_{false};
  bool rebuild_after_resume_ = false;
  std::unique_ptr<BloomFilter> rebuilt_;
  uint64_t rebuilt_bytes_ = 0;
  uint64_t rebuilt_entries_ = 0;
  bool rebuild_failed_ = false;
  std::vector<uint64_t> claimed_during_rebuild_;

  SeenSetCounters counters_;
  mutable std::atomic<uint64_t> link_disk_lookups_{0};
  mutable std::atomic<uint64_t> link_found_stored_{0};
};

}  // namespace zcrawl::frontier
