// FreeSpaceGuard: says when the filesystem of a folder has less free space
// than a floor (--min-free-mb), so a process stops writing before the disk
// is full rather than at ENOSPC: waiting above the floor is cheaper than
// RocksDB's recovery from ENOSPC, which the frontier's store survives too
// (frontier/store/store_info_log.h, store_writer.h) but which resumes only once
// every few seconds. The writer uses the same floor for its output, with
// ENOSPC itself as the backstop. Asks the filesystem (statvfs) at most once
// a second.
//
// Not thread-safe: one owner thread.
#pragma once

#include <sys/statvfs.h>

#include <cstdint>
#include <string>

#include "common/clock.h"

namespace zcrawl {

// --min-free-mb's default, the frontier's and the writer's: room for a few
// of RocksDB's memtable flushes at the largest memory budgets, and for the
// writer's group commits of large pages.
inline constexpr uint64_t kDefaultMinFreeMb = 256;

class FreeSpaceGuard {
 public:
  // `min_free_mb` 0: never short (only ENOSPC stops writes).
  FreeSpaceGuard(std::string path, uint64_t min_free_mb, const Clock& clock)
      : path_(std::move(path)), min_free_bytes_(min_free_mb << 20), clock_(clock) {}

  // "" while free space is at least the floor (or cannot be read), else
  // why not: "12.5 MB free on /out, below --min-free-mb 256".
  const std::string& Shortage() {
    const int64_t now = clock_.NowMs();
    if (min_free_bytes_ == 0) return shortage_;
    // Between readings the writes since the last one are counted off, so a
    // fast writer cannot run past the floor within the second.
    const bool near_floor = written_since_check_ + min_free_bytes_ > last_free_bytes_;
    if (checked_ && now - checked_ms_ < kRecheckMs && !(near_floor && shortage_.empty())) return shortage_;
    checked_ = true;
    checked_ms_ = now;
    written_since_check_ = 0;
    struct statvfs st {};
    if (statvfs(path_.c_str(), &st) != 0) return shortage_;  // unknown: keep the last answer
    const uint64_t free_bytes = static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
    last_free_bytes_ = free_bytes;
    if (free_bytes >= min_free_bytes_) {
      shortage_.clear();
    } else {
      char text[64];
      snprintf(text, sizeof text, "%.1f MB", static_cast<double>(free_bytes) / (1 << 20));
      shortage_ = std::string(text) + " free on " + path_ + ", below --min-free-mb " +
                  std::to_string(min_free_bytes_ >> 20);
    }
    return shortage_;
  }
  // About `bytes` were just written there.
  void Wrote(uint64_t bytes) { written_since_check_ += bytes; }

 private:
  static constexpr int64_t kRecheckMs = 1000;
  std::string path_;
  uint64_t min_free_bytes_;
  const Clock& clock_;
  bool checked_ = false;
  int64_t checked_ms_ = 0;
  std::string shortage_;
  uint64_t last_free_bytes_ = UINT64_MAX;
  uint64_t written_since_check_ = 0;
};

}  // namespace zcrawl
