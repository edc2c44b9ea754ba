// WriterPreferringRwLock: a reader-writer lock in which a waiting writer is
// never starved. Once a writer waits, readers that arrive after it wait too,
// until the writer has had its turn; readers already inside finish normally.
//
// Why not std::shared_mutex: on glibc it wraps pthread_rwlock, whose default
// policy prefers readers, so a steady stream of lookups can block inserts
// forever. Satisfies the SharedMutex requirements, so std::shared_lock and
// std::unique_lock work with it; ReaderLock and WriterLock are the scoped
// locks the clang thread-safety analysis understands. Not recursive.
#pragma once

#include <condition_variable>
#include <cstdint>

#include "common/mutex.h"
#include "common/thread_annotations.h"

namespace zcrawl {

class CAPABILITY("rw lock") WriterPreferringRwLock {
 public:
  WriterPreferringRwLock() = default;
  WriterPreferringRwLock(const WriterPreferringRwLock&) = delete;
  WriterPreferringRwLock& operator=(const WriterPreferringRwLock&) = delete;

  void lock() ACQUIRE() EXCLUDES(mutex_);
  bool try_lock() TRY_ACQUIRE(true) EXCLUDES(mutex_);
  void unlock() RELEASE() EXCLUDES(mutex_);

  void lock_shared() ACQUIRE_SHARED() EXCLUDES(mutex_);
  bool try_lock_shared() TRY_ACQUIRE_SHARED(true) EXCLUDES(mutex_);
  void unlock_shared() RELEASE_SHARED() EXCLUDES(mutex_);

  // For tests and metrics: writers currently waiting.
  uint32_t waiting_writers() const EXCLUDES(mutex_);
  // Readers currently blocked (behind a writer, active or waiting).
  uint32_t waiting_readers() const EXCLUDES(mutex_);

 private:
  mutable Mutex mutex_;
  std::condition_variable readers_cv_;
  std::condition_variable writers_cv_;
  uint32_t active_readers_ GUARDED_BY(mutex_) = 0;
  uint32_t waiting_writers_ GUARDED_BY(mutex_) = 0;
  uint32_t waiting_readers_ GUARDED_BY(mutex_) = 0;
  bool writer_active_ GUARDED_BY(mutex_) = false;
};

class SCOPED_CAPABILITY ReaderLock {
 public:
  explicit ReaderLock(WriterPreferringRwLock& lock) ACQUIRE_SHARED(lock) : lock_(lock) { lock_.lock_shared(); }
  ~ReaderLock() RELEASE() { lock_.unlock_shared(); }
  ReaderLock(const ReaderLock&) = delete;
  ReaderLock& operator=(const ReaderLock&) = delete;

 private:
  WriterPreferringRwLock& lock_;
};

class SCOPED_CAPABILITY WriterLock {
 public:
  explicit WriterLock(WriterPreferringRwLock& lock) ACQUIRE(lock) : lock_(lock) { lock_.lock(); }
  ~WriterLock() RELEASE() { lock_.unlock(); }
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;

 private:
  WriterPreferringRwLock& lock_;
};

}  // namespace zcrawl
