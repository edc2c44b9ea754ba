// RetryQueue: URLs waiting out a back-off before another attempt, in the
// order their time comes (ties in the order they came). A URL here is
// still "waiting" in the crawl's counts and belongs to its origin
// (HostSlot::retrying counts it there); at its time the scheduler puts it
// at the front of its origin's queue. Used by the broker thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <vector>

#include "frontier/store/url_record.h"

namespace zcrawl::frontier {

class RetryQueue {
 public:
  void Push(UrlRecord record, int64_t ready_ms);
  // The first URL whose time is at or before `now_ms`, taken out.
  std::optional<UrlRecord> PopDue(int64_t now_ms);
  // When the next one is due; INT64_MAX when empty.
  int64_t NextReadyMs() const;
  size_t size() const { return records_.size(); }

 private:
  struct Entry {
    int64_t ready_ms;
    uint64_t sequence;
    bool operator>(const Entry& o) const {
      return ready_ms != o.ready_ms ? ready_ms > o.ready_ms : sequence > o.sequence;
    }
  };
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
  // By Entry::sequence: the heap stays small (two words an entry).
  std::unordered_map<uint64_t, UrlRecord> records_;
  uint64_t next_sequence_ = 0;
};

}  // namespace zcrawl::frontier
