#include "frontier/seen/known_url_cache.h"

#include <algorithm>

namespace zcrawl::frontier {
namespace {

// Each generation's table is made at the capacity that holds a
// generation without growing (FingerprintTable::CapacityFor, ~9.4 bytes
// an entry), so two generations of this many entries stay within
// max_bytes. (Tables that grew as they filled could hold 18.8 bytes an
// entry for a moment, so a generation was half as large: at 1.5 x 10^8
// URLs the synthetic web's 9 M popular URLs no longer fitted one, and the
// seen set asked the disk for them 16-28k times a second,
// bench/RESULTS.md run AD.)
uint64_t EntriesPerGeneration(uint64_t max_bytes) {
  return std::max<uint64_t>(FingerprintTable::EntriesFor(max_bytes / 2), 1024);
}

std::unique_ptr<FingerprintTable> NewGeneration(uint64_t entries) {
  return std::make_unique<FingerprintTable>(FingerprintTable::CapacityFor(entries));
}

}  // namespace

KnownUrlCache::KnownUrlCache(uint64_t max_bytes)
    : base_max_bytes_(max_bytes),
      max_bytes_(max_bytes),
      entries_per_generation_(EntriesPerGeneration(max_bytes)),
      current_(NewGeneration(entries_per_generation_)),
      older_(std::make_unique<FingerprintTable>(16)) {}

bool KnownUrlCache::Contains(uint64_t fingerprint, bool* in_older) const {
  if (in_older) *in_older = false;
  ReaderLock guard(lock_);
  if (current_->Contains(fingerprint)) return true;
  const bool older = older_->Contains(fingerprint);
  if (in_older) *in_older = older;
  return older;
}

void KnownUrlCache::Lookup(const std::vector<uint64_t>& fingerprints, std::vector<Found>* found) const {
  found->assign(fingerprints.size(), kUnknown);
  if (fingerprints.empty()) return;
  ReaderLock guard(lock_);
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    if (current_->Contains(fingerprints[i])) {
      (*found)[i] = kKnown;
    } else if (older_->Contains(fingerprints[i])) {
      (*found)[i] = kKnownInOlder;
    }
  }
}

void KnownUrlCache::Insert(const std::vector<uint64_t>& fingerprints) {
  if (fingerprints.empty()) return;
  WriterLock guard(lock_);
  for (uint64_t fingerprint : fingerprints) InsertLocked(fingerprint);
}

void KnownUrlCache::InsertLocked(uint64_t fingerprint) {
  if (current_->Contains(fingerprint)) return;
  // A generation never grows (growing holds old and new arrays at once):
  // after a raised bound it rotates at the size it was made for, and the
  // next one is made at the new size.
  if (current_->size() >= std::min(entries_per_generation_, current_->room())) {
    older_ = std::move(current_);
    current_ = NewGeneration(entries_per_generation_);
    ++rotations_;
  }
  current_->Insert(fingerprint);
}

void KnownUrlCache::Enlarge(uint64_t extra_bytes) {
  WriterLock guard(lock_);
  extra_bytes_ = extra_bytes;
  SetBoundLocked();
}

void KnownUrlCache::Withhold(uint64_t bytes) {
  WriterLock guard(lock_);
  withheld_bytes_ = bytes;
  SetBoundLocked();
}

void KnownUrlCache::SetBoundLocked() {
  const uint64_t granted = base_max_bytes_ + extra_bytes_;
  max_bytes_ = granted > withheld_bytes_ + kMinBytes ? granted - withheld_bytes_ : kMinBytes;
  entries_per_generation_ = EntriesPerGeneration(max_bytes_);
}

uint64_t KnownUrlCache::max_bytes() const {
  ReaderLock guard(lock_);
  return max_bytes_;
}

uint64_t KnownUrlCache::size() const {
  ReaderLock guard(lock_);
  return current_->size() + older_->size();
}

uint64_t KnownUrlCache::memory_bytes() const {
  ReaderLock guard(lock_);
  return current_->memory_bytes() + older_->memory_bytes();
}

uint64_t KnownUrlCache::rotations() const {
  ReaderLock guard(lock_);
  return rotations_;
}

}  // namespace zcrawl::frontier
