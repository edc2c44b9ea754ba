// BoundedQueue<T>: a blocking multi-producer multi-consumer queue with a
// capacity. Full means back-pressure: Push waits (or TryPush fails), the
// queue never grows past its capacity. Close() wakes everyone; after it, Push
// fails and Pop drains what is left, then reports closed.
//
// Thread-safety: every method from any thread (the lock's guarded state is
// checked by clang's analysis, common/mutex.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <optional>

#include "common/mutex.h"

namespace zcrawl {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Blocks while full. False once closed.
  bool Push(T item) {
    MutexLock lock(mutex_);
    while (!closed_ && items_.size() >= capacity_) not_full_.wait(lock.native());
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  bool TryPush(T& item) {
    MutexLock lock(mutex_);
    if (closed_ || items_.size() >= capacity_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  // Waits up to `timeout` for an item. nullopt on timeout or closed-and-empty.
  std::optional<T> PopFor(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    MutexLock lock(mutex_);
    while (!closed_ && items_.empty()) {
      if (not_empty_.wait_until(lock.native(), deadline) == std::cv_status::timeout) break;
    }
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  std::optional<T> TryPop() { return PopFor(std::chrono::milliseconds(0)); }

  void Close() {
    MutexLock lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

  size_t size() const {
    MutexLock lock(mutex_);
    return items_.size();
  }
  size_t capacity() const { return capacity_; }
  bool closed() const {
    MutexLock lock(mutex_);
    return closed_;
  }

 private:
  const size_t capacity_;
  mutable Mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<T> items_ GUARDED_BY(mutex_);
  bool closed_ GUARDED_BY(mutex_) = false;
};

}  // namespace zcrawl
