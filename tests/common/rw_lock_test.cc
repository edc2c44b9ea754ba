#include "common/rw_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace zcrawl {
namespace {

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
  lock.lock_shared();
  EXPECT_TRUE(lock.try_lock_shared());
  EXPECT_FALSE(lock.try_lock());
  lock.unlock_shared();
  lock.unlock_shared();
  EXPECT_TRUE(lock.try_lock());
  EXPECT_FALSE(lock.try_lock_shared());
  lock.unlock();
}

TEST(WriterPreferringRwLockTest, ReaderArrivingAfterAWaitingWriterWaits) {
  WriterPreferringRwLock lock;
  lock.lock_shared();  // an early reader holds the lock
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    lock.lock();
    writer_done = true;
    lock.unlock();
  });
  ASSERT_TRUE(Eventually([&] { return lock.waiting_writers() == 1; }));
  // A new reader must not overtake the waiting writer.
  EXPECT_FALSE(lock.try_lock_shared());
  std::atomic<bool> late_reader_in{false};
  std::thread late_reader([&] {
    lock.lock_shared();
    late_reader_in = true;
    EXPECT_TRUE(writer_done.load()) << "reader went before the waiting writer";
    lock.unlock_shared();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(late_reader_in.load());
  lock.unlock_shared();  // the early reader leaves: the writer goes first
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
