// UrlHead: the in-RAM head of one origin's queue (HostSlot::waiting): a
// FIFO with push_front for a lease that comes back. A vector and a read
// position instead of std::deque, because a broad crawl keeps a HostSlot
// for every origin it knows and most heads are empty: libstdc++'s deque
// allocates its map and a 512-byte node even when empty (~600 bytes per
// origin); this holds nothing until a URL arrives, and frees its array
// when it drains.
//
// Not thread-safe: owned by its HostSlot (the scheduler, broker thread).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "frontier/url_record.h"

namespace zcrawl::frontier {

class UrlHead {
 public:
  bool empty() const { return head_ == items_.size(); }
  size_t size() const { return items_.size() - head_; }
  UrlRecord& front() { return items_[head_]; }
  const UrlRecord& front() const { return items_[head_]; }

  void push_back(UrlRecord record) { items_.push_back(std::move(record)); }
  void push_front(UrlRecord record) {
    if (head_ > 0) {
      items_[--head_] = std::move(record);
    } else {
      items_.insert(items_.begin(), std::move(record));
    }
  }
  // Puts `record` `index` places behind the front (index <= size()).
  void insert(size_t index, UrlRecord record) {
    items_.insert(items_.begin() + static_cast<std::ptrdiff_t>(head_ + index), std::move(record));
  }
  void pop_front() {
    items_[head_++] = UrlRecord();  // frees its URL now
    if (head_ == items_.size()) {
      clear();
    } else if (head_ >= kCompactAfter && head_ * 2 >= items_.size()) {
      // Amortised O(1): after n pops, one move of at most n records.
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    std::vector<UrlRecord>().swap(items_);
    head_ = 0;
  }

  std::vector<UrlRecord>::const_iterator begin() const {
    return items_.begin() + static_cast<std::ptrdiff_t>(head_);
  }
  std::vector<UrlRecord>::const_iterator end() const { return items_.end(); }

 private:
  static constexpr size_t kCompactAfter = 32;
  std::vector<UrlRecord> items_;
  size_t head_ = 0;  // items_[0, head_) are popped
};

}  // namespace zcrawl::frontier
