// VisitedSet: every URL the crawl has ever admitted, as 64-bit fingerprints
// (see url_fingerprint.h for the collision math), with a Bloom filter in
// front of the exact FingerprintTable.
//
// The one deliberately shared structure of the frontier: the link threads
// look URLs up far more often than they insert (most links on a page were
// seen before). Lookups take the lock shared, inserts exclusive, through a
// WriterPreferringRwLock so a waiting insert is never starved by a stream of
// lookups. The Bloom filter only answers "definitely new"; the exact table
// decides, so a Bloom false positive can never make the crawler skip a URL.
//
// Thread-safety: all methods from any thread. The lock is never held across
// I/O.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/rw_lock.h"
#include "frontier/bloom_filter.h"
#include "frontier/fingerprint_table.h"

namespace zcrawl::frontier {

class VisitedSet {
 public:
  explicit VisitedSet(uint64_t expected_urls);

  bool Contains(uint64_t fingerprint) const;
  // Inserts; true if the URL was new (the caller now owns scheduling it).
  bool InsertIfNew(uint64_t fingerprint);

  bool Contains(std::string_view normalized_url) const;
  bool InsertIfNew(std::string_view normalized_url);

  uint64_t size() const;
  uint64_t memory_bytes() const;
  // How often the Bloom filter said "maybe" for a URL that was new.
  uint64_t bloom_false_positives() const;

 private:
  mutable WriterPreferringRwLock lock_;
  BloomFilter bloom_;         // guarded by lock_
  FingerprintTable exact_;    // guarded by lock_
  uint64_t bloom_false_positives_ = 0;  // guarded by lock_ (exclusive)
};

}  // namespace zcrawl::frontier
