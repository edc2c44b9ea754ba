#include "fetcher/turn_pacer.h"

#include <algorithm>

namespace zcrawl::fetcher {

void TurnPacer::Finished(size_t finished, int64_t now_us) {
  if (window_start_us_ < 0) window_start_us_ = now_us;
  window_finished_ += finished;
  const int64_t elapsed = now_us - window_start_us_;
  if (elapsed < kRateWindowUs) return;
  const double rate = static_cast<double>(window_finished_) / static_cast<double>(elapsed);
  // Half the last window, half the history: follows a change within a few
  // windows without jumping on one burst.
  rate_per_us_ = rate_per_us_ == 0 ? rate : (rate_per_us_ + rate) / 2;
  window_start_us_ = now_us;
  window_finished_ = 0;
}

int64_t TurnPacer::WaitUs(int64_t now_us, size_t queued) const {
  if (gap_us_ <= 0 || queued == 0) return 0;
  const int64_t remaining = last_turn_us_ + gap_us_ - now_us;
  if (remaining <= 0) return 0;
  if (rate_per_us_ <= 0) return remaining;
  // The queue runs out after about queued / rate. Wake at half of that:
  // the turn's work request still has to reach the frontier and its
  // answer come back (over a network, between machines) before the
  // queue is empty.
  const double half_lasts_us = static_cast<double>(queued) / rate_per_us_ / 2;
  return half_lasts_us >= static_cast<double>(remaining) ? remaining : static_cast<int64_t>(half_lasts_us);
}

}  // namespace zcrawl::fetcher
