#include "frontier/visited_set.h"

#include <mutex>
#include <shared_mutex>

#include "frontier/url_fingerprint.h"

namespace zcrawl::frontier {

VisitedSet::VisitedSet(uint64_t expected_urls)
    : bloom_(expected_urls), exact_(expected_urls / 4 + 16) {}

bool VisitedSet::Contains(uint64_t fingerprint) const {
  std::shared_lock<WriterPreferringRwLock> guard(lock_);
  return bloom_.MayContain(fingerprint) && exact_.Contains(fingerprint);
}

bool VisitedSet::InsertIfNew(uint64_t fingerprint) {
  // Read first: most reported links are already known, and a shared lock
  // lets the other link threads proceed.
  if (Contains(fingerprint)) return false;
  std::unique_lock<WriterPreferringRwLock> guard(lock_);
  const bool maybe = bloom_.MayContain(fingerprint);
  if (maybe && exact_.Contains(fingerprint)) return false;  // raced with another insert
  if (maybe) ++bloom_false_positives_;
  bloom_.Add(fingerprint);
  exact_.Insert(fingerprint);
  return true;
}

bool VisitedSet::Contains(std::string_view normalized_url) const {
  return Contains(UrlFingerprint(normalized_url));
}

bool VisitedSet::InsertIfNew(std::string_view normalized_url) {
  return InsertIfNew(UrlFingerprint(normalized_url));
}

uint64_t VisitedSet::size() const {
  std::shared_lock<WriterPreferringRwLock> guard(lock_);
  return exact_.size();
}

uint64_t VisitedSet::memory_bytes() const {
  std::shared_lock<WriterPreferringRwLock> guard(lock_);
  return exact_.memory_bytes() + bloom_.memory_bytes();
}

uint64_t VisitedSet::bloom_false_positives() const {
  std::shared_lock<WriterPreferringRwLock> guard(lock_);
  return bloom_false_positives_;
}

}  // namespace zcrawl::frontier
