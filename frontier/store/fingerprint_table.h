// FingerprintTable: the exact set of 64-bit URL fingerprints. Open addressing
// with linear probing over a flat array of uint64_t (0 marks an empty slot).
// No deletions of one fingerprint: a crawl never forgets a URL; Clear()
// empties the whole table and keeps its capacity (the store's staged
// fingerprints, emptied every commit).
//
// Memory: 8 bytes per slot divided by the load factor. The table grows by
// 1.5x (not 2x) when it passes 85% load, so the load stays between 57% and
// 85%: 9.4 to 14.1 bytes per URL at any size (doubling gave 9.4 to 18.8).
// The capacity is therefore not a power of two; a fingerprint's home slot is
// (fingerprint * capacity) >> 64 ("fast range"), one multiply instead of a
// mask. While growing, old and new arrays coexist for a moment (2.5x).
//
// Not internally synchronised: KnownUrlCache guards it; UrlStore's are
// the broker thread's.
#pragma once

#include <cstdint>
#include <vector>

namespace zcrawl::frontier {

class FingerprintTable {
 public:
  explicit FingerprintTable(uint64_t initial_capacity = 1024);
  // The capacity that holds `entries` without growing: 8 bytes a slot at
  // most kMaxLoad full, ~9.4 bytes an entry.
  static uint64_t CapacityFor(uint64_t entries) {
    return static_cast<uint64_t>(static_cast<double>(entries) / kMaxLoad) + 2;
  }
  // The entries a table of at most `bytes` holds without growing (the
  // inverse of CapacityFor).
  static uint64_t EntriesFor(uint64_t bytes) {
    const uint64_t slots = bytes / sizeof(uint64_t);
    return slots > 2 ? static_cast<uint64_t>(static_cast<double>(slots - 2) * kMaxLoad) : 0;
  }

  bool Contains(uint64_t fingerprint) const;
  // True if it was absent and is now inserted.
  bool Insert(uint64_t fingerprint);

  // Empties the table, keeping its capacity.
  void Clear();
  template <typename Visit>
  void ForEach(Visit visit) const {
    for (uint64_t fingerprint : slots_) {
      if (fingerprint != 0) visit(fingerprint);
    }
  }

  uint64_t size() const { return size_; }
  // Entries it holds before its next growth.
  uint64_t room() const { return grow_at_; }
  uint64_t capacity() const { return slots_.size(); }
  uint64_t memory_bytes() const { return slots_.size() * sizeof(uint64_t); }

 private:
  // Load at which the table grows, and by how much. Higher load saves memory
  // but lengthens the probe runs of inserts (at 85%, ~23 slots, 3 cache
  // lines, for a miss); a smaller growth factor narrows the band of loads
  // but rehashes more often.
  static constexpr double kMaxLoad = 0.85;
  static constexpr uint64_t kGrowthNumerator = 3;  // capacity *= 3 / 2
  static constexpr uint64_t kGrowthDenominator = 2;

  void Resize(uint64_t capacity);
  uint64_t HomeSlot(uint64_t fingerprint) const;

  std::vector<uint64_t> slots_;
  uint64_t size_ = 0;
  uint64_t grow_at_ = 0;
};

}  // namespace zcrawl::frontier
