#include "frontier/fingerprint_table.h"

#include <bit>

namespace zcrawl::frontier {

FingerprintTable::FingerprintTable(uint64_t initial_capacity) {
  const uint64_t capacity = std::bit_ceil(initial_capacity < 16 ? 16 : initial_capacity);
  slots_.assign(capacity, 0);
  mask_ = capacity - 1;
  grow_at_ = static_cast<uint64_t>(static_cast<double>(capacity) * kMaxLoad);
}

uint64_t FingerprintTable::SlotFor(uint64_t fingerprint) const {
  // Fingerprints are MD5 bits already; the high bits pick the slot so the
  // Bloom filter (which uses the low bits) and the table stay independent.
  return (fingerprint >> 20) & mask_;
}

bool FingerprintTable::Contains(uint64_t fingerprint) const {
  for (uint64_t i = SlotFor(fingerprint);; i = (i + 1) & mask_) {
    const uint64_t slot = slots_[i];
    if (slot == fingerprint) return true;
    if (slot == 0) return false;
  }
}

bool FingerprintTable::Insert(uint64_t fingerprint) {
  if (size_ + 1 > grow_at_) Grow();
  for (uint64_t i = SlotFor(fingerprint);; i = (i + 1) & mask_) {
    uint64_t& slot = slots_[i];
    if (slot == fingerprint) return false;
    if (slot == 0) {
      slot = fingerprint;
      ++size_;
      return true;
    }
  }
}

void FingerprintTable::Grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  const uint64_t capacity = old.size() * 2;
  slots_.assign(capacity, 0);
  mask_ = capacity - 1;
  grow_at_ = static_cast<uint64_t>(static_cast<double>(capacity) * kMaxLoad);
  for (uint64_t fingerprint : old) {
    if (fingerprint == 0) continue;
    uint64_t i = SlotFor(fingerprint);
    while (slots_[i] != 0) i = (i + 1) & mask_;
    slots_[i] = fingerprint;
  }
}

}  // namespace zcrawl::frontier
