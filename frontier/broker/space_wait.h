// SpaceWait: whether the crawl is waiting for disk space, and why: the
// writer's output (it said so in its WriterState) or the frontier's own
// state folder (a commit failed with ResourceExhausted). While either
// waits, the broker hands out no work and lets no lease expire, so a full
// disk costs time and never a page or an attempt; when the last one ends,
// every lease gets a full lease time again. The log says so once at each
// end of a wait; status, the live line, the summary and metrics show it.
//
// Owned by the broker thread; not thread-safe.
#pragma once

#include <cstdint>
#include <string>

namespace zcrawl::frontier {

class SpaceWait {
 public:
  enum class Source { kWriter, kState };

  // `detail` empty: that source has space. Returns true when the crawl as
  // a whole just stopped waiting (the caller renews the leases).
  bool Set(Source source, const std::string& detail, int64_t now_ms);

  bool waiting() const { return !writer_.empty() || !state_.empty(); }
  // "writer: write /out/x: No space left on device (for 12 s)", "" if none.
  std::string Describe(int64_t now_ms) const;
  uint64_t waits() const { return waits_; }
  // Time spent waiting, the current wait included.
  int64_t waited_ms(int64_t now_ms) const { return waited_ms_ + (waiting() ? now_ms - since_ms_ : 0); }

 private:
  std::string writer_;
  std::string state_;
  int64_t since_ms_ = 0;    // when the current wait began
  int64_t waited_ms_ = 0;   // earlier waits
  uint64_t waits_ = 0;
};

}  // namespace zcrawl::frontier
