// KnownUrlCache: a bounded, exact cache of fingerprints of URLs the crawl
// already knows: those the seen set lately found known (linked at least
// twice), not every URL admitted (seen_set.cc says why). Shared by the link threads, which drop a link found
// here without asking the broker (most links on a page point at pages the
// crawl knows: popular pages, the site's navigation), and the broker, which
// inserts.
//
// The reader-writer pattern of the frontier: lookups from every link thread
// take the lock shared, the broker's inserts exclusive, through a
// WriterPreferringRwLock so the broker is never starved by a stream of
// lookups. Membership is exact (a fingerprint here is known), absence means
// nothing: the SeenSet decides.
//
// Bounded: two generations of FingerprintTable; when the current one
// reaches its share of the budget the older is dropped and the current
// becomes the older, so recently used fingerprints stay (a cheap LRU). A
// hit in the older generation is reported, and the caller inserts it again
// (readers cannot: they hold the lock shared), so a URL linked all the
// time (a site's home page) is never dropped by a rotation: measured
// without that, every rotation sent the popular URLs to the disk at once
// (disk lookups 20k/s for a while, the admission rate halved).
//
// Its bound can be raised while it runs (Enlarge): the seen filter lends
// it the part of the filter's share the filter will never use (seen_set.cc,
// MaybeLendUnusedShare), so at scale the known URLs the budget can hold
// stay off the disk; and lowered (Withhold) when the per-origin state
// outgrows its share: the cache is the one part of the budget that can
// give RAM back without losing anything.
//
// Thread-safety: all methods from any thread; the lock is never held
// across I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/rw_lock.h"
#include "frontier/store/fingerprint_table.h"

namespace zcrawl::frontier {

class KnownUrlCache {
 public:
  explicit KnownUrlCache(uint64_t max_bytes);

  // *in_older (if given): found only in the older generation, so the
  // caller should Insert it again to keep it.
  bool Contains(uint64_t fingerprint, bool* in_older = nullptr) const;
  // Contains for many, under one shared lock: a link thread looks up a
  // whole report's links at once (the lock taken per link, four mutex
  // operations on a line both link threads share, was ~3% of the
  // frontier's CPU on the synthetic web). (*found)[i] is kUnknown, kKnown
  // or kKnownInOlder (the caller should Insert it again).
  enum Found : uint8_t { kUnknown = 0, kKnown = 1, kKnownInOlder = 2 };
  void Lookup(const std::vector<uint64_t>& fingerprints, std::vector<Found>* found) const;
  void Insert(const std::vector<uint64_t>& fingerprints);
  // Sets the bound to the constructor's `max_bytes` plus `extra_bytes`,
  // less what is withheld (not cumulative: the latest call holds). A
  // smaller bound takes effect at the next rotations.
  void Enlarge(uint64_t extra_bytes);
  // Gives `bytes` of the bound back to the rest of the frontier (the
  // per-origin state past its share, memory_budget.h), down to a floor of
  // kMinBytes; not cumulative either.
  void Withhold(uint64_t bytes);
  static constexpr uint64_t kMinBytes = 256 << 10;

  uint64_t size() const;
  uint64_t memory_bytes() const;
  uint64_t rotations() const;
  uint64_t max_bytes() const;

 private:
  void InsertLocked(uint64_t fingerprint) REQUIRES(lock_);
  void SetBoundLocked() REQUIRES(lock_);

  const uint64_t base_max_bytes_;
  mutable WriterPreferringRwLock lock_;
  uint64_t extra_bytes_ GUARDED_BY(lock_) = 0;
  uint64_t withheld_bytes_ GUARDED_BY(lock_) = 0;
  uint64_t max_bytes_ GUARDED_BY(lock_);
  uint64_t entries_per_generation_ GUARDED_BY(lock_);
  std::unique_ptr<FingerprintTable> current_ GUARDED_BY(lock_);
  std::unique_ptr<FingerprintTable> older_ GUARDED_BY(lock_);
  uint64_t rotations_ GUARDED_BY(lock_) = 0;
};

}  // namespace zcrawl::frontier
