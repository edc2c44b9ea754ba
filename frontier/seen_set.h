// SeenSet: decides, exactly, which reported URLs are new to the crawl, with
// RAM bounded whatever the number of known URLs. Three layers, cheapest
// first:
//   1. KnownUrlCache (exact, bounded, shared with the link threads): a hit
//      is a known URL;
//   2. a resident Bloom filter of every fingerprint (fixed size, from the
//      memory budget): "definitely new" needs no disk read;
//   3. the UrlStore's `seen` family, asked in one batched multi-get for all
//      the "maybe" answers of a batch: the exact answer.
// A filter false positive costs one disk lookup, never a dropped URL; the
// filter's rate rises past its design size (--memory-mb) and only costs
// lookups.
//
// After a resume the filter is empty, so it cannot say "definitely new";
// until a background thread has rebuilt it from the store (a sequential
// scan), every check not answered by the cache goes to the store. The
// frontier leases at once meanwhile.
//
// Not thread-safe: the broker thread calls it (the rebuild thread only reads
// the store and fills its own filter, handed over under a mutex).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
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
};

class SeenSet {
 public:
  // `filter_bytes`: the Bloom filter's size. `resumed`: the store holds a
  // crawl, so the filter is rebuilt from it in the background.
  SeenSet(UrlStore& store, KnownUrlCache& cache, uint64_t filter_bytes, bool resumed);
  ~SeenSet();
  SeenSet(const SeenSet&) = delete;
  SeenSet& operator=(const SeenSet&) = delete;

  // For each fingerprint, sets is_new[i]: true for the first occurrence of
  // a fingerprint the crawl never saw. Each new one is at once staged in the
  // store as waiting (the caller may re-stage it, e.g. as refused) and known
  // to the filter and the cache.
  void ClaimNew(const std::vector<uint64_t>& fingerprints, std::vector<bool>* is_new);

  // Fingerprints ever admitted (this run's plus the stored count).
  uint64_t size() const { return stored_ + counters_.admitted; }
  const SeenSetCounters& counters() const { return counters_; }
  bool filter_complete() const { return filter_complete_; }
  uint64_t filter_bytes() const { return filter_->memory_bytes(); }

 private:
  void StartRebuild(uint64_t filter_bytes);
  void MaybeAdoptRebuilt();

  UrlStore& store_;
  KnownUrlCache& cache_;
  std::unique_ptr<BloomFilter> filter_;
  bool filter_complete_ = true;
  uint64_t stored_ = 0;  // entries counted by the rebuild

  // The rebuild: the thread fills rebuilt_ from a scan (the store's
  // iterator reads a consistent snapshot); fingerprints claimed meanwhile
  // are kept in claimed_during_rebuild_ and added at hand-over.
  std::thread rebuild_thread_;
  std::atomic<bool> rebuild_done_{false};
  std::atomic<bool> stop_rebuild_{false};
  std::unique_ptr<BloomFilter> rebuilt_;
  uint64_t rebuilt_entries_ = 0;
  bool rebuild_failed_ = false;
  std::vector<uint64_t> claimed_during_rebuild_;

  SeenSetCounters counters_;
};

}  // namespace zcrawl::frontier
