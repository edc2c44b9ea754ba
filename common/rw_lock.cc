#include "common/rw_lock.h"

namespace zcrawl {

void WriterPreferringRwLock::lock() {
  std::unique_lock<std::mutex> guard(mutex_);
  ++waiting_writers_;
  writers_cv_.wait(guard, [&] { return !writer_active_ && active_readers_ == 0; });
  --waiting_writers_;
  writer_active_ = true;
}

bool WriterPreferringRwLock::try_lock() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (writer_active_ || active_readers_ > 0) return false;
  writer_active_ = true;
  return true;
}

void WriterPreferringRwLock::unlock() {
  {
    std::lock_guard<std::mutex> guard(mutex_);
    writer_active_ = false;
  }
  // Another writer goes first if one waits; readers re-check their predicate.
  writers_cv_.notify_one();
  readers_cv_.notify_all();
}

void WriterPreferringRwLock::lock_shared() {
  std::unique_lock<std::mutex> guard(mutex_);
  readers_cv_.wait(guard, [&] { return !writer_active_ && waiting_writers_ == 0; });
  ++active_readers_;
}

bool WriterPreferringRwLock::try_lock_shared() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (writer_active_ || waiting_writers_ > 0) return false;
  ++active_readers_;
  return true;
}

void WriterPreferringRwLock::unlock_shared() {
  bool last = false;
  {
    std::lock_guard<std::mutex> guard(mutex_);
    last = --active_readers_ == 0;
  }
  if (last) writers_cv_.notify_one();
}

uint32_t WriterPreferringRwLock::waiting_writers() const {
  std::lock_guard<std::mutex> guard(mutex_);
  return waiting_writers_;
}

}  // namespace zcrawl
