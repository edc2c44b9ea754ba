// TurnPacer: how long the fetcher's main thread lets finished work gather
// before its next turn.
//
// Why: at web speeds every page was its own turn. A page finishing every
// ~1.5 ms (64 transfers at 75 ms) woke the main thread, its ZeroMQ I/O
// thread, the writer's and the frontier's, one message each: ~20 context
// switches per page, a fifth of the crawl's CPU in the kernel's switching
// (bench/RESULTS.md run BJ). A turn every `gap` instead sends what finished
// in between together: the pages to the writer in one burst (one wake-up of
// each I/O thread), one report batch, one work request, one ack batch back.
//
// Never at the cost of fetching: the wait is only taken while the fetch
// loop has requests queued behind its busy slots, and only half as long as
// that queue lasts at the rate transfers have been finishing (the other
// half for the refill's round trip to the frontier), so no slot goes idle
// for it. With --io blocking nothing is queued in a loop: no pacing. A ramp-up, a crawl's tail, a slow trickle and a fetcher
// short of work take their turns at once, as before.
//
// Real (steady-clock) time: this paces CPU wake-ups, not crawl logic.
// Thread-safety: used by the node's thread only.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zcrawl::fetcher {

class TurnPacer {
 public:
  // gap_us 0: no pacing.
  explicit TurnPacer(int64_t gap_us) : gap_us_(gap_us) {}

  // A turn began at now_us.
  void TurnBegan(int64_t now_us) { last_turn_us_ = now_us; }
  // A turn handed `finished` fetches over (their transfers had ended).
  void Finished(size_t finished, int64_t now_us);

  // Before the next turn: how long to wait, with `queued` requests waiting
  // in the fetch loop for a slot. 0: go now.
  int64_t WaitUs(int64_t now_us, size_t queued) const;

  // Transfers finished per second, as last measured (0 before a window).
  double finish_rate_per_s() const { return rate_per_us_ * 1e6; }

 private:
  // Finish rate measured over windows of this length, smoothed.
  static constexpr int64_t kRateWindowUs = 100'000;

  const int64_t gap_us_;
  int64_t last_turn_us_ = INT64_MIN / 2;
  int64_t window_start_us_ = -1;
  size_t window_finished_ = 0;
  double rate_per_us_ = 0;
};

}  // namespace zcrawl::fetcher
