// ThreadPool: a resizable pool of worker threads with a supervisor.
//
// The fetcher owns one pool and submits labelled work items (the label is
// usually the URL). Workers are created lazily: a thread is started only when
// work is queued, no idle worker can take it and fewer than target_size()
// threads are alive. A worker idle for keep_alive_ms exits; the next Submit
// starts a new one. Resize() grows or shrinks the target while tasks run;
// queued work is never dropped by a resize (surplus workers exit only between
// tasks).
//
// A supervisor thread watches the workers. A task that throws kills its worker;
// a task running longer than watchdog_ms gets its worker abandoned (a thread
// cannot be killed in C++, so it is detached and left to finish on its own).
// Either way the supervisor reports the task through the failure handler and
// starts a replacement, so the pool keeps its configured size. The pool's
// state lives in a shared core that every thread co-owns, so an abandoned
// thread that returns late, even after the ThreadPool is destroyed, only
// touches memory that is still alive and no longer counts it as a worker.
// What the abandoned *task* itself touches is the caller's responsibility.
//
// Thread safety: every public method may be called from any thread
// concurrently. The failure handler runs on the supervisor thread, never under
// the pool's lock, so it may call Submit/Resize/queries (e.g. to retry), but
// neither it nor a task may call Shutdown or destroy the pool (that would wait
// for itself). Counts returned by the queries are snapshots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/mutex.h"

namespace zcrawl {

struct ThreadPoolOptions {
  // Target number of worker threads. More threads overlap more slow fetches
  // but cost memory and contention. 0 is treated as 1.
  size_t threads = 4;
  // An idle worker exits after this long; the thread is recreated when work
  // arrives. Lower frees resources sooner, higher avoids thread churn under
  // bursty load. Negative: idle workers never exit.
  int64_t keep_alive_ms = 60000;
  // Maximum number of queued (not yet started) items; Submit returns false
  // when full so the caller applies back-pressure. 0 = unbounded.
  size_t max_queued = 0;
  // A task running longer than this is reported as failed and its thread is
  // abandoned and replaced. Must exceed the slowest legitimate task (e.g. the
  // fetch timeout). The supervisor wakes every watchdog_ms/4. 0 (or negative)
  // = off: a hung task then also blocks Shutdown.
  int64_t watchdog_ms = 0;
  // Name of the worker threads as `top -H` and debuggers show it (at most
  // 15 characters are kept). Empty: they keep the process's name.
  std::string thread_name;
};

// A task the supervisor gave up on. reason is "exception: <what()>" or
// "watchdog: ran <N> ms". The caller should treat the item as failed and
// retryable.
struct TaskFailure {
  std::string label;
  std::string reason;
};

class ThreadPool {
 public:
  using Task = std::function<void()>;
  // Called on the supervisor thread, once per failed task. May be empty.
  using FailureHandler = std::function<void(const TaskFailure&)>;

  enum class ShutdownMode {
    kDrain,   // run every queued item, then stop
    kCancel,  // drop queued items (their labels are returned), then stop
  };

  explicit ThreadPool(ThreadPoolOptions options,
                      FailureHandler on_failure = nullptr);
  // Shutdown(kDrain) unless Shutdown already ran.
  ~ThreadPool();

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues task under label. Returns false, without queuing, when the queue
  // is full (max_queued), the pool is shutting down, or no worker thread
  // exists and none could be created.
  bool Submit(std::string label, Task task);

  // Sets the target worker count (0 is treated as 1). Growing starts threads
  // only for queued work; shrinking lets surplus workers exit after their
  // current task.
  void Resize(size_t threads);

  // Stops accepting work, then drains or cancels the queue as asked, waits
  // for running tasks (abandoned ones excepted) and for the supervisor to
  // deliver every pending failure, and joins all threads. Returns the labels
  // of queued items that did not run (kCancel; with kDrain only if no worker
  // thread could be created). Later calls return an empty vector at once.
  std::vector<std::string> Shutdown(ShutdownMode mode);

  size_t target_size() const;
  // Worker threads alive, idle or running; abandoned threads not included.
  size_t live_threads() const;
  // Workers waiting for work.
  size_t idle_threads() const;
  // Of those, workers waiting with no keep-alive deadline (keep_alive_ms <
  // 0): nothing but work, Resize or Shutdown ends their wait.
  size_t idle_threads_without_deadline() const;
  // Items queued and not yet started.
  size_t queued() const;
  // Tasks currently running on (non-abandoned) workers.
  size_t running() const;
  // Abandoned threads whose hung task has not returned yet.
  size_t abandoned_threads() const;
  // Workers the supervisor retired because their task threw or hung.
  uint64_t replaced_workers() const;

 private:
  class Core;  // Shared state, co-owned by the pool and every thread it starts.

  std::shared_ptr<Core> core_;
  Mutex shutdown_mu_;  // Serialises Shutdown calls.
  bool shut_down_ GUARDED_BY(shutdown_mu_) = false;
};

}  // namespace zcrawl
