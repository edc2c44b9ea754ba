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
// Not thread-safe: the broker thread calls it (the rebuild thread only
// reads a store snapshot and fills its own filter, adopted by the broker
// thread once the thread is done).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "frontier/bloom_filter.h"
#include "frontier/known_url_cache.h"
#include "frontier/url_store.h"

namespace zcrawl::frontier {

struct SeenSetCounters {
  uint64_t checks = 0;            // fingerprints decided
  uint64_t cache_hits = 0;        // known from the cache
  uint64_t filter_negatives = 0;  // new without a disk read
  uint64_t disk_lookups = 0;      // asked the store
  uint64_t filter_false_positives = 0;  // "maybe" that the store said was new
  uint64_t admitted = 0;          // new
  uint64_t filter_rebuilds = 0;   // adopted rebuilds (growth or resume)
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

  // For each key, sets is_new[i]: true for the first occurrence of a
  // fingerprint the crawl never saw. Each new one is at once staged in the
  // store as waiting (the caller may re-stage it, e.g. as refused) and known
  // to the filter and the cache.
  void ClaimNew(const std::vector<UrlKey>& keys, std::vector<bool>* is_new);

  // Fingerprints ever admitted: the store's (as counted by the last
  // rebuild, or the hint before it) plus this run's.
  uint64_t size() const { return stored_ + counters_.admitted; }
  const SeenSetCounters& counters() const { return counters_; }
  // The filter can answer "definitely new" (false until a resume's rebuild
  // is adopted).
  bool filter_complete() const { return filter_complete_; }
  uint64_t filter_bytes() const { return filter_->memory_bytes(); }
  bool rebuilding() const { return rebuild_thread_.joinable(); }

 private:
  void StartRebuild(uint64_t filter_bytes);
  void MaybeAdoptRebuilt();
  void MaybeGrow();

  UrlStore& store_;
  KnownUrlCache& cache_;
  const uint64_t max_filter_bytes_;
  std::unique_ptr<BloomFilter> filter_;
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
};

}  // namespace zcrawl::frontier
