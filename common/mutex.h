// Mutex and MutexLock: std::mutex and its scoped lock as the clang
// thread-safety analysis understands them (common/thread_annotations.h).
// A condition variable waits on MutexLock::native(); write the wait as a
// loop in the caller (`while (!ready_) cv.wait(lock.native());`), so the
// guarded state is read where the analysis sees the lock held.
// Thread-safe, as std::mutex.
#pragma once

#include <mutex>

#include "common/thread_annotations.h"

namespace zcrawl {

class CAPABILITY("mutex") Mutex {
 public:
  void lock() ACQUIRE() { mutex_.lock(); }
  void unlock() RELEASE() { mutex_.unlock(); }
  bool try_lock() TRY_ACQUIRE(true) { return mutex_.try_lock(); }
  std::mutex& native() { return mutex_; }

 private:
  std::mutex mutex_;
};

class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) ACQUIRE(mutex) : lock_(mutex.native()) {}
  ~MutexLock() RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  // Lets go for a while (work done outside the lock), then takes it again.
  void Unlock() RELEASE() { lock_.unlock(); }
  void Lock() ACQUIRE() { lock_.lock(); }
  // For std::condition_variable::wait.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace zcrawl
