#include "common/rw_lock.h"

namespace zcrawl {

void WriterPreferringRwLock::lock() {
  MutexLock guard(mutex_);
  ++waiting_writers_;
  while (writer_active_ || active_readers_ != 0) writers_cv_.wait(guard.native());
  --waiting_writers_;
  writer_active_ = true;
}

bool WriterPreferringRwLock::try_lock() {
  MutexLock guard(mutex_);
  if (writer_active_ || active_readers_ > 0) return false;
  writer_active_ = true;
  return true;
}

void WriterPreferringRwLock::unlock() {
  {
    MutexLock guard(mutex_);
    writer_active_ = false;
  }
  // Another writer goes first if one waits; readers re-check their predicate.
  writers_cv_.notify_one();
  readers_cv_.notify_all();
}

void WriterPreferringRwLock::lock_shared() {
  MutexLock guard(mutex_);
  if (writer_active_ || waiting_writers_ != 0) {
    ++waiting_readers_;
    while (writer_active_ || waiting_writers_ != 0) readers_cv_.wait(guard.native());
    --waiting_readers_;
  }
  ++active_readers_;
}

bool WriterPreferringRwLock::try_lock_shared() {
  MutexLock guard(mutex_);
  if (writer_active_ || waiting_writers_ > 0) return false;
  ++active_readers_;
  return true;
}

void WriterPreferringRwLock::unlock_shared() {
  bool last = false;
  {
    MutexLock guard(mutex_);
    last = --active_readers_ == 0;
  }
  if (last) writers_cv_.notify_one();
}

uint32_t WriterPreferringRwLock::waiting_writers() const {
  MutexLock guard(mutex_);
  return waiting_writers_;
}

uint32_t WriterPreferringRwLock::waiting_readers() const {
  MutexLock guard(mutex_);
  return waiting_readers_;
}

}  // namespace zcrawl
