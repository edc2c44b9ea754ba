// NotifyingQueue<T>: a multi-producer queue whose single consumer is an event
// loop blocked in zmq::poll. Producers push under a mutex and bump an eventfd;
// the loop polls fd() next to its sockets and drains everything at once.
//
// Thread-safety: Push from any thread; Drain and fd from the one consumer.
// Unbounded by design: every producer here is itself bounded (a pool with a
// fixed number of workers, each holding one item), so growth is capped there.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace zcrawl {

template <typename T>
class NotifyingQueue {
 public:
  NotifyingQueue() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (fd_ < 0) throw std::runtime_error("eventfd failed");
  }
  ~NotifyingQueue() { close(fd_); }
  NotifyingQueue(const NotifyingQueue&) = delete;
  NotifyingQueue& operator=(const NotifyingQueue&) = delete;

  void Push(T item) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.push_back(std::move(item));
    }
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
  }

  // Moves every queued item into `out` (appending); clears the eventfd.
  void Drain(std::vector<T>& out) {
    uint64_t count;
    [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& item : items_) out.push_back(std::move(item));
    items_.clear();
  }

  int fd() const { return fd_; }

 private:
  const int fd_;
  std::mutex mutex_;
  std::vector<T> items_;  // guarded by mutex_
};

}  // namespace zcrawl
