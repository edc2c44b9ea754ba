#include "common/rw_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace zcrawl {
namespace {

// The lock's own protocol is under test, in orders the clang thread-safety
// analysis cannot follow (try-locks inside EXPECT_*, a lock taken in one
// lambda and released in another): these calls are not checked.
void Lock(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { l.lock(); }
void Unlock(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { l.unlock(); }
bool TryLock(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { return l.try_lock(); }
void LockShared(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { l.lock_shared(); }
void UnlockShared(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { l.unlock_shared(); }
bool TryLockShared(WriterPreferringRwLock& l) NO_THREAD_SAFETY_ANALYSIS { return l.try_lock_shared(); }

// Polls `condition` for up to 5 s; no fixed sleeps before assertions.
template <typename F>
bool Eventually(F condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(WriterPreferringRwLockTest, ReadersShareTheLock) {
  WriterPreferringRwLock lock;
  LockShared(lock);
  EXPECT_TRUE(TryLockShared(lock));
  EXPECT_FALSE(TryLock(lock));
  UnlockShared(lock);
  UnlockShared(lock);
  EXPECT_TRUE(TryLock(lock));
  EXPECT_FALSE(TryLockShared(lock));
  Unlock(lock);
}

TEST(WriterPreferringRwLockTest, ReaderArrivingAfterAWaitingWriterWaits) {
  WriterPreferringRwLock lock;
  LockShared(lock);  // an early reader holds the lock
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    Lock(lock);
    writer_done = true;
    Unlock(lock);
  });
  ASSERT_TRUE(Eventually([&] { return lock.waiting_writers() == 1; }));
  // A new reader must not overtake the waiting writer.
  EXPECT_FALSE(TryLockShared(lock));
  std::atomic<bool> late_reader_in{false};
  std::thread late_reader([&] {
    LockShared(lock);
    late_reader_in = true;
    EXPECT_TRUE(writer_done.load()) << "reader went before the waiting writer";
    UnlockShared(lock);
  });
  // The late reader is there and blocked (not merely not started yet).
  ASSERT_TRUE(Eventually([&] { return lock.waiting_readers() == 1; }));
  EXPECT_FALSE(late_reader_in.load());
  UnlockShared(lock);  // the early reader leaves: the writer goes first
  writer.join();
  late_reader.join();
  EXPECT_TRUE(writer_done.load());
  EXPECT_TRUE(late_reader_in.load());
}

TEST(WriterPreferringRwLockTest, WriterIsNotStarvedByAStreamOfReaders) {
  WriterPreferringRwLock lock;
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] {
      while (!stop) {
        std::shared_lock<WriterPreferringRwLock> guard(lock);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  int writes = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (writes < 50 && std::chrono::steady_clock::now() < deadline) {
    std::unique_lock<WriterPreferringRwLock> guard(lock);
    ++writes;
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(writes, 50);
}

TEST(WriterPreferringRwLockTest, ExclusiveSectionsNeverOverlapReaders) {
  WriterPreferringRwLock lock;
  std::atomic<int> readers_inside{0};
  std::atomic<int> writers_inside{0};
  std::atomic<bool> violation{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if ((i + t) % 5 == 0) {
          std::unique_lock<WriterPreferringRwLock> guard(lock);
          if (++writers_inside != 1 || readers_inside != 0) violation = true;
          --writers_inside;
        } else {
          std::shared_lock<WriterPreferringRwLock> guard(lock);
          ++readers_inside;
          if (writers_inside != 0) violation = true;
          --readers_inside;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(violation.load());
}

}  // namespace
}  // namespace zcrawl
