// FingerprintTable: the exact set of 64-bit URL fingerprints. Open addressing
// with linear probing over a flat array of uint64_t (0 marks an empty slot),
// so each URL costs 8 bytes divided by the load factor: between 9.4 and 18.8
// bytes per URL with growth by doubling at 85% load. No deletions: a crawl
// never forgets a URL.
//
// Not internally synchronised: VisitedSet guards it.
#pragma once

#include <cstdint>
#include <vector>

namespace zcrawl::frontier {

class FingerprintTable {
 public:
  explicit FingerprintTable(uint64_t initial_capacity = 1024);

  bool Contains(uint64_t fingerprint) const;
  // True if it was absent and is now inserted.
  bool Insert(uint64_t fingerprint);

  uint64_t size() const { return size_; }
  uint64_t memory_bytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  static constexpr double kMaxLoad = 0.85;

  void Grow();
  uint64_t SlotFor(uint64_t fingerprint) const;

  std::vector<uint64_t> slots_;
  uint64_t mask_;
  uint64_t size_ = 0;
  uint64_t grow_at_;
};

}  // namespace zcrawl::frontier
