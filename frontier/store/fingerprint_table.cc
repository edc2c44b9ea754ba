#include "frontier/store/fingerprint_table.h"

#include <algorithm>

namespace zcrawl::frontier {

FingerprintTable::FingerprintTable(uint64_t initial_capacity) {
  slots_.assign(initial_capacity < 16 ? 16 : initial_capacity, 0);
  grow_at_ = static_cast<uint64_t>(static_cast<double>(slots_.size()) * kMaxLoad);
}

uint64_t FingerprintTable::HomeSlot(uint64_t fingerprint) const {
  // Fingerprints are MD5 bits already, uniform in [0, 2^64); scaling maps
  // them uniformly onto [0, capacity). It is driven by the high bits, so
  // the Bloom filter (which picks blocks with the low bits) stays
  // independent of the table.
  return static_cast<uint64_t>((static_cast<unsigned __int128>(fingerprint) * slots_.size()) >> 64);
}

bool FingerprintTable::Contains(uint64_t fingerprint) const {
  const uint64_t capacity = slots_.size();
  for (uint64_t i = HomeSlot(fingerprint);;) {
    const uint64_t slot = slots_[i];
    if (slot == fingerprint) return true;
    if (slot == 0) return false;
    if (++i == capacity) i = 0;
  }
}

bool FingerprintTable::Insert(uint64_t fingerprint) {
  if (size_ + 1 > grow_at_) {
    Resize(slots_.size() * kGrowthNumerator / kGrowthDenominator);
  }
  const uint64_t capacity = slots_.size();
  for (uint64_t i = HomeSlot(fingerprint);;) {
    uint64_t& slot = slots_[i];
    if (slot == fingerprint) return false;
    if (slot == 0) {
      slot = fingerprint;
      ++size_;
      return true;
    }
    if (++i == capacity) i = 0;
  }
}

void FingerprintTable::Clear() {
  if (size_ == 0) return;
  std::fill(slots_.begin(), slots_.end(), 0);
  size_ = 0;
}

void FingerprintTable::Resize(uint64_t capacity) {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(capacity, 0);
  grow_at_ = static_cast<uint64_t>(static_cast<double>(capacity) * kMaxLoad);
  for (uint64_t fingerprint : old) {
    if (fingerprint == 0) continue;
    uint64_t i = HomeSlot(fingerprint);
    while (slots_[i] != 0) {
      if (++i == capacity) i = 0;
    }
    slots_[i] = fingerprint;
  }
}

}  // namespace zcrawl::frontier
