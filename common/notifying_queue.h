// NotifyingQueue<T>: a multi-producer queue whose single consumer is an event
// loop blocked in zmq::poll. Producers push under a mutex and bump an eventfd;
// the loop polls fd() next to its sockets and drains everything at once. Only
// the push into an empty queue bumps the eventfd.
//
// Thread-safety: Push from any thread; Drain and fd from the one consumer.
// Unbounded by design: every producer here is itself bounded (a pool with a
// fixed number of workers, each holding one item), so growth is capped there.
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/mutex.h"

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
    bool was_empty;
    {
      MutexLock lock(mutex_);
      was_empty = items_.empty();
      items_.push_back(std::move(item));
    }
    // Only the push that makes the queue non-empty needs to wake the loop:
    // later ones are taken by the same Drain (which reads the eventfd
    // before it takes the items, so no wake-up is lost). Saves a syscall
    // and a wake-up per item under load.
    if (!was_empty) return;
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(fd_, &one, sizeof one);
  }

  // Moves every queued item into `out` (appending); clears the eventfd.
  void Drain(std::vector<T>& out) {
    uint64_t count;
    [[maybe_unused]] ssize_t n = read(fd_, &count, sizeof count);
    MutexLock lock(mutex_);
    for (auto& item : items_) out.push_back(std::move(item));
    items_.clear();
  }

  int fd() const { return fd_; }

 private:
  const int fd_;
  Mutex mutex_;
  std::vector<T> items_ GUARDED_BY(mutex_);
};

}  // namespace zcrawl
