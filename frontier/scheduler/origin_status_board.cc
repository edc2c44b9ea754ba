#include "frontier/scheduler/origin_status_board.h"

#include <algorithm>

namespace zcrawl::frontier {

OriginStatusBoard::OriginStatusBoard()
    : parked_failing_(kParkedRows, FailingBefore),
      parked_busiest_(kParkedRows, BusiestBefore),
      parked_slowed_(kParkedRows, MorePushbacksBefore) {}

v1::HostQueue OriginStatusBoard::RowOf(const HostSlot& slot) const {
  v1::HostQueue q;
  q.set_host(slot.origin);
  q.set_waiting(slot.waiting_total());
  q.set_in_flight(slot.in_flight);
  q.set_done(slot.done);
  q.set_failed(slot.failed);
  q.set_last_failure(slot.LastFailure());
  if (pace_) {
    q.set_gap_ms(static_cast<uint64_t>(pace_->GapMs(slot)));
    q.set_concurrency(pace_->Concurrency(slot));
  }
  if (slot.trouble) {
    q.set_pushbacks(slot.trouble->pushbacks);
    if (clock_ && OriginBackoff::BackingOff(slot)) {
      q.set_backoff_since_ms(
          static_cast<uint64_t>(std::max<int64_t>(slot.trouble->backoff_since_ms + clock_->WallMs() - clock_->NowMs(), 1)));
    }
  }
  return q;
}

void OriginStatusBoard::Parked(v1::HostQueue row) {
  if (row.failed() > 0) parked_failing_.Offer(row);
  if (row.pushbacks() > 0) parked_slowed_.Offer(row);
  if (row.done() + row.failed() > 0) parked_busiest_.Offer(std::move(row));
}

void OriginStatusBoard::Loaded(std::string_view origin) {
  parked_busiest_.Take(origin);
  parked_failing_.Take(origin);
  parked_slowed_.Take(origin);
}

bool OriginStatusBoard::FailingBefore(const OriginCounts& a, const OriginCounts& b) {
  if ((a.done == 0) != (b.done == 0)) return a.done == 0;
  return a.failed > b.failed;
}

bool OriginStatusBoard::BusiestBefore(const OriginCounts& a, const OriginCounts& b) {
  return a.done + a.failed > b.done + b.failed;
}

bool OriginStatusBoard::MorePushbacksBefore(const OriginCounts& a, const OriginCounts& b) {
  return a.pushbacks > b.pushbacks;
}

bool OriginStatusBoard::MostQueuedBefore(const OriginCounts& a, const OriginCounts& b) {
  return a.waiting + a.in_flight > b.waiting + b.in_flight;
}

std::vector<v1::HostQueue> OriginStatusBoard::Best(const OriginSlots& slots, size_t limit,
                                                   OriginOrder before, bool (*only)(const HostSlot&),
                                                   const std::vector<v1::HostQueue>& parked) const {
  struct Ranked {
    OriginCounts counts;
    const HostSlot* slot;
  };
  std::vector<Ranked> order;
  for (const auto& [id, slot] : slots) {
    if (only && !only(slot)) continue;
    const uint64_t pushbacks = slot.trouble ? slot.trouble->pushbacks : 0;
    order.push_back({{slot.waiting_total(), slot.in_flight, slot.done, slot.failed, pushbacks}, &slot});
  }
  const size_t n = std::min(limit, order.size());
  std::partial_sort(order.begin(), order.begin() + n, order.end(),
                    [&](const Ranked& a, const Ranked& b) { return before(a.counts, b.counts); });
  std::vector<v1::HostQueue> out;
  for (size_t i = 0; i < n; ++i) out.push_back(RowOf(*order[i].slot));
  out.insert(out.end(), parked.begin(), parked.end());
  std::stable_sort(out.begin(), out.end(), [&](const v1::HostQueue& a, const v1::HostQueue& b) {
    return before(OriginCounts::Of(a), OriginCounts::Of(b));
  });
  if (out.size() > limit) out.resize(limit);
  return out;
}

std::vector<v1::HostQueue> OriginStatusBoard::Failing(const OriginSlots& slots, size_t limit) const {
  return Best(
      slots, limit, FailingBefore, [](const HostSlot& slot) { return slot.failed > 0; }, parked_failing_.rows());
}

std::vector<v1::HostQueue> OriginStatusBoard::Slowed(const OriginSlots& slots, size_t limit) const {
  return Best(
      slots, limit, MorePushbacksBefore,
      [](const HostSlot& slot) { return slot.trouble && slot.trouble->pushbacks > 0; }, parked_slowed_.rows());
}

std::vector<v1::HostQueue> OriginStatusBoard::Top(const OriginSlots& slots, size_t limit, bool by_done) const {
  // Parked origins show their rows as they parked: by queue, those in line
  // rank by what they had queued then (most are not among the rows).
  return Best(slots, limit, by_done ? BusiestBefore : MostQueuedBefore, nullptr, parked_busiest_.rows());
}

}  // namespace zcrawl::frontier
