// WriterPreferringRwLock: a reader-writer lock in which a waiting writer is
// never starved. Once a writer waits, readers that arrive after it wait too,
// until the writer has had its turn; readers already inside finish normally.
//
// Why not std::shared_mutex: on glibc it wraps pthread_rwlock, whose default
// policy prefers readers, so a steady stream of lookups can block inserts
// forever. Satisfies the SharedMutex requirements, so std::shared_lock and
// std::unique_lock work with it. Not recursive.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace zcrawl {

class WriterPreferringRwLock {
 public:
  WriterPreferringRwLock() = default;
  WriterPreferringRwLock(const WriterPreferringRwLock&) = delete;
  WriterPreferringRwLock& operator=(const WriterPreferringRwLock&) = delete;

  void lock();
  bool try_lock();
  void unlock();

  void lock_shared();
  bool try_lock_shared();
  void unlock_shared();

  // For tests and metrics: writers currently waiting.
  uint32_t waiting_writers() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable readers_cv_;
  std::condition_variable writers_cv_;
  uint32_t active_readers_ = 0;   // guarded by mutex_
  uint32_t waiting_writers_ = 0;  // guarded by mutex_
  bool writer_active_ = false;    // guarded by mutex_
};

}  // namespace zcrawl
