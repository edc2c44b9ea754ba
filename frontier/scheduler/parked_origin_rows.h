// ParkedOriginRows: what `./run status` and the summary show of origins
// that are parked (CrawlScheduler keeps an origin with nothing due in the
// store only). A parked origin's counts cannot change while it is parked,
// so its row is kept as it was when it left RAM; and since the status
// shows a handful of rows, only the `capacity` best by one order are kept.
// A row leaves when its origin is loaded again (Take); the rows it had
// pushed out are not brought back, so after many such returns the list may
// miss an origin that ranks high: it is a status view, not an account.
//
// Not thread-safe (CrawlScheduler's broker thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "zcrawl.pb.h"

namespace zcrawl::frontier {

// What the status orders read of an origin: its row's counts, without the
// strings (a slot's are compared without building its row).
struct OriginCounts {
  uint64_t waiting = 0;
  uint64_t in_flight = 0;
  uint64_t done = 0;
  uint64_t failed = 0;
  uint64_t pushbacks = 0;
  static OriginCounts Of(const v1::HostQueue& row) {
    return {row.waiting(), row.in_flight(), row.done(), row.failed(), row.pushbacks()};
  }
};
// `before(a, b)`: a ranks above b.
using OriginOrder = bool (*)(const OriginCounts&, const OriginCounts&);

class ParkedOriginRows {
 public:
  ParkedOriginRows(size_t capacity, OriginOrder before) : capacity_(capacity), before_(before) {}

  // Keeps `row` if it ranks among the best `capacity`.
  void Offer(v1::HostQueue row) {
    const OriginCounts counts = OriginCounts::Of(row);
    if (rows_.size() == capacity_ && !before_(counts, OriginCounts::Of(rows_.back()))) return;
    auto at = std::upper_bound(rows_.begin(), rows_.end(), counts, [&](const OriginCounts& c, const v1::HostQueue& r) {
      return before_(c, OriginCounts::Of(r));
    });
    rows_.insert(at, std::move(row));
    if (rows_.size() > capacity_) rows_.pop_back();
  }
  // Removes the row of `host`, returned if there was one.
  std::optional<v1::HostQueue> Take(std::string_view host) {
    auto it = std::find_if(rows_.begin(), rows_.end(), [&](const v1::HostQueue& row) { return row.host() == host; });
    if (it == rows_.end()) return std::nullopt;
    v1::HostQueue row = std::move(*it);
    rows_.erase(it);
    return row;
  }
  // Best first.
  const std::vector<v1::HostQueue>& rows() const { return rows_; }

 private:
  size_t capacity_;
  OriginOrder before_;
  std::vector<v1::HostQueue> rows_;
};

}  // namespace zcrawl::frontier
