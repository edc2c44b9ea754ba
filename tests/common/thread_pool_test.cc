#include "common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace zcrawl {
namespace {

using std::chrono::milliseconds;

// Polls cond every 2 ms until it holds or 5 s pass; real timings stay
// robust on a loaded machine.
bool WaitFor(const std::function<bool()>& cond,
             milliseconds timeout = milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!cond()) {
    if (std::chrono::steady_clock::now() > deadline) return cond();
    std::this_thread::sleep_for(milliseconds(2));
  }
  return true;
}

// A one-shot gate tasks block on until the test opens it.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Collects failures reported on the supervisor thread.
class FailureLog {
 public:
  ThreadPool::FailureHandler Handler() {
    return [this](const TaskFailure& f) {
      std::lock_guard<std::mutex> lock(mu_);
      failures_.push_back(f);
    };
  }
  std::vector<TaskFailure> Get() {
    std::lock_guard<std::mutex> lock(mu_);
    return failures_;
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu_);
    return failures_.size();
  }

 private:
  std::mutex mu_;
  std::vector<TaskFailure> failures_;
};

ThreadPoolOptions Options(size_t threads, int64_t keep_alive_ms = -1) {
  ThreadPoolOptions options;
  options.threads = threads;
  options.keep_alive_ms = keep_alive_ms;
  return options;
}

// Fills the pool with `threads` workers that block on gate, and waits until
// all of them are running.
void OccupyAll(ThreadPool& pool, size_t threads, Gate& gate) {
  for (size_t i = 0; i < threads; ++i) {
    ASSERT_TRUE(
        pool.Submit("block" + std::to_string(i), [&gate] { gate.Wait(); }));
  }
  ASSERT_TRUE(WaitFor([&] { return pool.running() == threads; }));
}

TEST(ThreadPoolTest, RunsSubmittedTasks) {
  ThreadPool pool(Options(2));
  std::atomic<int> count{0};
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(pool.Submit("t", [&] { ++count; }));
  }
  EXPECT_TRUE(WaitFor([&] { return count.load() == 100; }));
  EXPECT_EQ(pool.target_size(), 2u);
  EXPECT_LE(pool.live_threads(), 2u);
}

TEST(ThreadPoolTest, ResizingWhileSubmittingLosesNoTasks) {
  ThreadPoolOptions options = Options(4, /*keep_alive_ms=*/5);
  ThreadPool pool(options);
  std::atomic<int> count{0};
  std::atomic<int> accepted{0};
  std::atomic<int> concurrent{0};
  std::atomic<int> max_concurrent{0};
  std::atomic<bool> submitting_done{false};

  std::thread resizer([&] {
    size_t size = 1;
    while (!submitting_done.load()) {
      pool.Resize(size);
      size = size % 8 + 1;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    pool.Resize(8);
  });
  std::vector<std::thread> submitters;
  for (int s = 0; s < 4; ++s) {
    submitters.emplace_back([&] {
      for (int i = 0; i < 2500; ++i) {
        bool ok = pool.Submit("inc", [&] {
          int now = ++concurrent;
          int seen = max_concurrent.load();
          while (now > seen &&
                 !max_concurrent.compare_exchange_weak(seen, now)) {
          }
          ++count;
          --concurrent;
        });
        if (ok) ++accepted;
      }
    });
  }
  for (std::thread& t : submitters) t.join();
  submitting_done = true;
  resizer.join();

  EXPECT_EQ(accepted.load(), 10000);
  EXPECT_TRUE(pool.Shutdown(ThreadPool::ShutdownMode::kDrain).empty());
  EXPECT_EQ(count.load(), 10000);
  EXPECT_LE(max_concurrent.load(), 8);
  EXPECT_EQ(pool.live_threads(), 0u);
}

TEST(ThreadPoolTest, GrowingStartsThreadsForQueuedWork) {
  ThreadPool pool(Options(1));
  Gate gate;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(pool.Submit("b", [&] { gate.Wait(); }));
  }
  ASSERT_TRUE(WaitFor([&] { return pool.running() == 1; }));
  EXPECT_EQ(pool.queued(), 3u);
  EXPECT_EQ(pool.live_threads(), 1u);

  pool.Resize(4);
  EXPECT_EQ(pool.target_size(), 4u);
  EXPECT_TRUE(WaitFor([&] { return pool.running() == 4; }));
  EXPECT_EQ(pool.queued(), 0u);
  EXPECT_EQ(pool.live_threads(), 4u);
  gate.Open();
}

TEST(ThreadPoolTest, ShrinkingRetiresSurplusWorkersAfterTheirTasks) {
  ThreadPool pool(Options(4));
  Gate gate;
  OccupyAll(pool, 4, gate);
  std::atomic<int> later{0};
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(pool.Submit("later", [&] { ++later; }));
  }
  pool.Resize(1);
  EXPECT_EQ(pool.live_threads(), 4u);  // Busy workers are not interrupted.
  gate.Open();
  EXPECT_TRUE(WaitFor([&] { return pool.live_threads() == 1u; }));
  EXPECT_TRUE(WaitFor([&] { return later.load() == 20; }));
  EXPECT_EQ(pool.queued(), 0u);
}

TEST(ThreadPoolTest, ShrinkingWakesIdleSurplusWorkers) {
  ThreadPool pool(Options(3));  // Never expire on their own.
  Gate gate;
  OccupyAll(pool, 3, gate);
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return pool.idle_threads() == 3u; }));
  pool.Resize(1);
  EXPECT_TRUE(WaitFor([&] { return pool.live_threads() == 1u; }));
  EXPECT_EQ(pool.idle_threads(), 1u);
}

TEST(ThreadPoolTest, IdleThreadsExitAfterKeepAliveAndComeBackOnSubmit) {
  ThreadPool pool(Options(3, /*keep_alive_ms=*/30));
  Gate gate;
  OccupyAll(pool, 3, gate);
  EXPECT_EQ(pool.live_threads(), 3u);
  gate.Open();
  EXPECT_TRUE(WaitFor([&] { return pool.live_threads() == 0u; }));
  EXPECT_EQ(pool.idle_threads(), 0u);

  std::atomic<bool> ran{false};
  ASSERT_TRUE(pool.Submit("again", [&] { ran = true; }));
  EXPECT_GE(pool.live_threads(), 1u);  // Started by Submit itself.
  EXPECT_TRUE(WaitFor([&] { return ran.load(); }));
}

TEST(ThreadPoolTest, NegativeKeepAliveKeepsIdleThreads) {
  ThreadPool pool(Options(2, /*keep_alive_ms=*/-1));
  Gate gate;
  OccupyAll(pool, 2, gate);
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return pool.idle_threads() == 2u; }));
  // Both are idle in a wait with no deadline, so no keep-alive can end it
  // (a timed wait, however long, is not counted here).
  EXPECT_EQ(pool.idle_threads_without_deadline(), 2u);
  EXPECT_EQ(pool.live_threads(), 2u);
}

TEST(ThreadPoolTest, CountsIdleQueuedAndRunning) {
  ThreadPool pool(Options(2));
  EXPECT_EQ(pool.live_threads(), 0u);  // Lazy: no work, no threads.
  Gate gate;
  OccupyAll(pool, 2, gate);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.Submit("q", [] {}));
  }
  EXPECT_EQ(pool.queued(), 3u);
  EXPECT_EQ(pool.running(), 2u);
  EXPECT_EQ(pool.idle_threads(), 0u);
  EXPECT_EQ(pool.live_threads(), 2u);

  gate.Open();
  EXPECT_TRUE(WaitFor([&] {
    return pool.queued() == 0u && pool.running() == 0u &&
           pool.idle_threads() == 2u;
  }));
  EXPECT_EQ(pool.live_threads(), 2u);
}

TEST(ThreadPoolTest, SupervisorReplacesWorkerWhoseTaskThrows) {
  FailureLog log;
  ThreadPool pool(Options(2), log.Handler());
  Gate gate;
  OccupyAll(pool, 2, gate);
  gate.Open();
  ASSERT_TRUE(WaitFor([&] { return pool.idle_threads() == 2u; }));

  ASSERT_TRUE(pool.Submit("http://a.example/x",
                          [] { throw std::runtime_error("parser blew up"); }));
  ASSERT_TRUE(WaitFor([&] { return log.size() == 1u; }));
  std::vector<TaskFailure> failures = log.Get();
  EXPECT_EQ(failures[0].label, "http://a.example/x");
  EXPECT_EQ(failures[0].reason, "exception: parser blew up");
  EXPECT_TRUE(WaitFor([&] {
    return pool.replaced_workers() == 1u && pool.live_threads() == 2u;
  }));

  std::atomic<int> count{0};
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(pool.Submit("ok", [&] { ++count; }));
  EXPECT_TRUE(WaitFor([&] { return count.load() == 10; }));
  EXPECT_EQ(log.size(), 1u);
}

TEST(ThreadPoolTest, NonStandardExceptionIsReportedToo) {
  FailureLog log;
  ThreadPool pool(Options(1), log.Handler());
  ASSERT_TRUE(pool.Submit("odd", [] { throw 42; }));
  ASSERT_TRUE(WaitFor([&] { return log.size() == 1u; }));
  EXPECT_EQ(log.Get()[0].label, "odd");
  EXPECT_EQ(log.Get()[0].reason.rfind("exception: ", 0), 0u);
}

TEST(ThreadPoolTest, ShutdownDeliversFailuresBeforeReturning) {
  FailureLog log;
  ThreadPool pool(Options(1), log.Handler());
  ASSERT_TRUE(pool.Submit("bad", [] { throw std::runtime_error("x"); }));
  ASSERT_TRUE(pool.Submit("good", [] {}));
  EXPECT_TRUE(pool.Shutdown(ThreadPool::ShutdownMode::kDrain).empty());
  ASSERT_EQ(log.size(), 1u);  // No waiting: Shutdown guarantees delivery.
  EXPECT_EQ(log.Get()[0].label, "bad");
}

TEST(ThreadPoolTest, FailureHandlerMayResubmit) {
  std::atomic<int> attempts{0};
  std::atomic<bool> succeeded{false};
  ThreadPool* pool_ptr = nullptr;
  std::function<void()> flaky = [&] {
    if (++attempts < 3) throw std::runtime_error("transient");
    succeeded = true;
  };
  ThreadPool pool(Options(1), [&](const TaskFailure& f) {
    pool_ptr->Submit(f.label, flaky);
  });
  pool_ptr = &pool;
  ASSERT_TRUE(pool.Submit("retry-me", flaky));
  EXPECT_TRUE(WaitFor([&] { return succeeded.load(); }));
  EXPECT_EQ(attempts.load(), 3);
  EXPECT_TRUE(WaitFor([&] { return pool.replaced_workers() == 2u; }));
}

TEST(ThreadPoolTest, WatchdogAbandonsHungTaskAndPoolKeepsServing) {
  FailureLog log;
  ThreadPoolOptions options = Options(2);
  options.watchdog_ms = 60;
  ThreadPool pool(options, log.Handler());
  Gate filler;
  OccupyAll(pool, 2, filler);
  filler.Open();
  ASSERT_TRUE(WaitFor([&] { return pool.idle_threads() == 2u; }));

  auto hang = std::make_shared<Gate>();
  std::atomic<bool> hung_returned{false};
  ASSERT_TRUE(pool.Submit("http://slow.example/", [hang, &hung_returned] {
    hang->Wait();
    hung_returned = true;
  }));
  ASSERT_TRUE(WaitFor([&] { return log.size() == 1u; }));
  TaskFailure failure = log.Get()[0];
  EXPECT_EQ(failure.label, "http://slow.example/");
  ASSERT_EQ(failure.reason.rfind("watchdog: ran ", 0), 0u) << failure.reason;
  EXPECT_GE(std::stoll(failure.reason.substr(14)), 60);
  EXPECT_TRUE(WaitFor([&] {
    return pool.replaced_workers() == 1u && pool.live_threads() == 2u;
  }));
  EXPECT_EQ(pool.abandoned_threads(), 1u);
  EXPECT_EQ(pool.running(), 0u);  // The hung task no longer counts.

  std::atomic<int> count{0};
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.Submit("ok", [&] { ++count; }));
  EXPECT_TRUE(WaitFor([&] { return count.load() == 50; }));

  hang->Open();
  EXPECT_TRUE(WaitFor([&] { return pool.abandoned_threads() == 0u; }));
  EXPECT_TRUE(hung_returned.load());
  // The late return did not disturb the accounting.
  EXPECT_EQ(pool.live_threads(), 2u);
  EXPECT_EQ(pool.running(), 0u);
  EXPECT_EQ(log.size(), 1u);
}

TEST(ThreadPoolTest, AbandonedThreadMayReturnAfterPoolIsDestroyed) {
  auto hang = std::make_shared<Gate>();
  auto returned = std::make_shared<std::atomic<bool>>(false);
  FailureLog log;
  {
    ThreadPoolOptions options = Options(1);
    options.watchdog_ms = 20;
    ThreadPool pool(options, log.Handler());
    ASSERT_TRUE(pool.Submit("stuck", [hang, returned] {
      hang->Wait();
      *returned = true;
    }));
    ASSERT_TRUE(WaitFor([&] { return log.size() == 1u; }));
    // Destruction drains; it must not wait for the abandoned task.
  }
  EXPECT_FALSE(returned->load());
  hang->Open();
  EXPECT_TRUE(WaitFor([&] { return returned->load(); }));
  // The thread now exits through the shared core; sanitizers flag any
  // use of freed pool state.
  std::this_thread::sleep_for(milliseconds(20));
}

TEST(ThreadPoolTest, WatchdogLetsShutdownFinishDespiteHungTask) {
  FailureLog log;
  ThreadPoolOptions options = Options(1);
  options.watchdog_ms = 20;
  ThreadPool pool(options, log.Handler());
  auto hang = std::make_shared<Gate>();
  ASSERT_TRUE(pool.Submit("stuck", [hang] { hang->Wait(); }));
  std::atomic<int> after{0};
  ASSERT_TRUE(pool.Submit("after", [&] { ++after; }));
  EXPECT_TRUE(pool.Shutdown(ThreadPool::ShutdownMode::kDrain).empty());
  EXPECT_EQ(after.load(), 1);  // Drained by the replacement worker.
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log.Get()[0].label, "stuck");
  hang->Open();
}

TEST(ThreadPoolTest, BoundedQueueRejectsWhenFull) {
  ThreadPoolOptions options = Options(1);
  options.max_queued = 2;
  ThreadPool pool(options);
  Gate gate;
  OccupyAll(pool, 1, gate);
  std::atomic<int> count{0};
  EXPECT_TRUE(pool.Submit("q1", [&] { ++count; }));
  EXPECT_TRUE(pool.Submit("q2", [&] { ++count; }));
  EXPECT_FALSE(pool.Submit("q3", [&] { ++count; }));
  EXPECT_EQ(pool.queued(), 2u);
  EXPECT_EQ(pool.live_threads(), 1u);  // Back-pressure, not growth.

  gate.Open();
  EXPECT_TRUE(WaitFor([&] { return count.load() == 2; }));
  EXPECT_TRUE(pool.Submit("q4", [&] { ++count; }));
  EXPECT_TRUE(WaitFor([&] { return count.load() == 3; }));
}

TEST(ThreadPoolTest, SubmitRejectsEmptyTask) {
  ThreadPool pool(Options(1));
  EXPECT_FALSE(pool.Submit("empty", nullptr));
  EXPECT_EQ(pool.queued(), 0u);
}

TEST(ThreadPoolTest, ShutdownDrainRunsEverythingQueued) {
  ThreadPool pool(Options(2, /*keep_alive_ms=*/10));
  Gate gate;
  OccupyAll(pool, 2, gate);
  std::atomic<int> count{0};
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(pool.Submit("d", [&] { ++count; }));
  std::thread opener([&] {
    std::this_thread::sleep_for(milliseconds(20));
    gate.Open();
  });
  EXPECT_TRUE(pool.Shutdown(ThreadPool::ShutdownMode::kDrain).empty());
  opener.join();
  EXPECT_EQ(count.load(), 200);
  EXPECT_EQ(pool.live_threads(), 0u);
  EXPECT_FALSE(pool.Submit("late", [] {}));
  EXPECT_TRUE(pool.Shutdown(ThreadPool::ShutdownMode::kCancel).empty());
}

TEST(ThreadPoolTest, ShutdownCancelReturnsLabelsOfQueuedTasks) {
  ThreadPool pool(Options(1));
  Gate gate;
  std::atomic<bool> running_finished{false};
  ASSERT_TRUE(pool.Submit("running", [&] {
    gate.Wait();
    running_finished = true;
  }));
  ASSERT_TRUE(WaitFor([&] { return pool.running() == 1u; }));
  std::atomic<int> ran{0};
  for (const char* label : {"http://a/", "http://b/", "http://c/"}) {
    ASSERT_TRUE(pool.Submit(label, [&] { ++ran; }));
  }

  std::vector<std::string> cancelled;
  std::thread stopper(
      [&] { cancelled = pool.Shutdown(ThreadPool::ShutdownMode::kCancel); });
  // Shutdown empties the queue at once, then waits for the running task.
  ASSERT_TRUE(WaitFor([&] { return pool.queued() == 0u; }));
  EXPECT_FALSE(pool.Submit("late", [] {}));
  gate.Open();
  stopper.join();

  EXPECT_EQ(cancelled,
            (std::vector<std::string>{"http://a/", "http://b/", "http://c/"}));
  EXPECT_EQ(ran.load(), 0);
  EXPECT_TRUE(running_finished.load());
}

TEST(ThreadPoolTest, DestructorDrainsQueue) {
  std::atomic<int> count{0};
  {
    ThreadPool pool(Options(3));
    for (int i = 0; i < 500; ++i)
      ASSERT_TRUE(pool.Submit("d", [&] { ++count; }));
  }
  EXPECT_EQ(count.load(), 500);
}

TEST(ThreadPoolTest, ZeroThreadsMeansOne) {
  ThreadPool pool(Options(0));
  EXPECT_EQ(pool.target_size(), 1u);
  pool.Resize(0);
  EXPECT_EQ(pool.target_size(), 1u);
  std::atomic<bool> ran{false};
  ASSERT_TRUE(pool.Submit("x", [&] { ran = true; }));
  EXPECT_TRUE(WaitFor([&] { return ran.load(); }));
}

}  // namespace
}  // namespace zcrawl
