#include "common/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>

#include "common/mutex.h"

namespace zcrawl {
namespace {

using Clock = std::chrono::steady_clock;

// The core a pool thread works for; lets Shutdown catch a call from one of
// its own threads, which would otherwise wait for itself forever.
thread_local const void* tls_owner_core = nullptr;

// Runs task; returns the exception's description if it threw.
std::optional<std::string> RunTask(ThreadPool::Task task) noexcept {
  try {
    task();
  } catch (const std::exception& e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown (not a std::exception)");
  }
  return std::nullopt;
}

}  // namespace

// Everything the threads share. The ThreadPool, each worker and the
// supervisor hold a shared_ptr to it, so an abandoned worker that returns
// after the pool is gone still finds a live mutex and counters. The mutable
// members are guarded by mu_ (clang checks it: common/mutex.h).
class ThreadPool::Core : public std::enable_shared_from_this<Core> {
 public:
  Core(const ThreadPoolOptions& options, FailureHandler on_failure)
      : keep_alive_ms_(options.keep_alive_ms),
        thread_name_(options.thread_name.substr(0, 15)),
        max_queued_(options.max_queued),
        watchdog_ms_(std::max<int64_t>(0, options.watchdog_ms)),
        on_failure_(std::move(on_failure)),
        target_(std::max<size_t>(1, options.threads)) {}

  // Starts the supervisor; separate from the constructor because it needs
  // shared_from_this().
  void Start() {
    supervisor_ =
        std::thread([core = shared_from_this()] { core->SupervisorLoop(); });
  }

  bool Submit(std::string label, Task task) {
    if (!task) return false;
    MutexLock lock(mu_);
    if (stopping_) return false;
    if (max_queued_ > 0 && queue_.size() >= max_queued_) return false;
    queue_.push_back(Item{std::move(label), std::move(task)});
    if (queue_.size() > idle_ && live_ < target_ && !SpawnWorkerLocked() &&
        live_ == 0) {
      queue_.pop_back();  // Nobody could ever run it.
      return false;
    }
    if (idle_ > 0) work_cv_.notify_one();
    return true;
  }

  void Resize(size_t threads) {
    MutexLock lock(mu_);
    target_ = std::max<size_t>(1, threads);
    if (live_ > target_) {
      work_cv_.notify_all();  // Idle surplus workers exit now, busy ones later.
    } else {
      SpawnForQueueLocked();
    }
  }

  std::vector<std::string> Shutdown(ShutdownMode mode) {
    assert(tls_owner_core != this &&
           "ThreadPool::Shutdown called from its own task or failure handler");
    std::vector<std::string> not_run;
    std::deque<Item> dropped;  // Destroyed outside the lock.
    MutexLock lock(mu_);
    stopping_ = true;
    if (mode == ShutdownMode::kCancel) {
      dropped.swap(queue_);
    } else {
      SpawnForQueueLocked();
    }
    work_cv_.notify_all();
    // Workers exit once the queue is empty. A worker lost to an exception or
    // the watchdog is replaced while work remains, so wait for that too;
    // work is left over only if no thread could be created at all.
    while (!(live_ == 0 && (queue_.empty() || pending_replacements_ == 0))) state_cv_.wait(lock.native());
    for (Item& item : queue_) dropped.push_back(std::move(item));
    queue_.clear();
    supervisor_stop_ = true;
    supervisor_cv_.notify_one();
    lock.Unlock();

    supervisor_.join();  // Delivers pending failures and joins exited workers.
    not_run.reserve(dropped.size());
    for (Item& item : dropped) not_run.push_back(std::move(item.label));
    return not_run;
  }

  size_t target_size() const {
    MutexLock lock(mu_);
    return target_;
  }
  size_t live_threads() const {
    MutexLock lock(mu_);
    return live_;
  }
  size_t idle_threads() const {
    MutexLock lock(mu_);
    return idle_;
  }
  size_t idle_threads_without_deadline() const {
    MutexLock lock(mu_);
    return idle_without_deadline_;
  }
  size_t running() const {
    MutexLock lock(mu_);
    return running_;
  }
  size_t abandoned_threads() const {
    MutexLock lock(mu_);
    return abandoned_;
  }
  uint64_t replaced_workers() const {
    MutexLock lock(mu_);
    return replaced_;
  }
  size_t queued() const {
    MutexLock lock(mu_);
    return queue_.size();
  }

 private:
  struct Item {
    std::string label;
    Task task;
  };

  // What the supervisor knows about one worker; shared with that worker.
  struct WorkerState {
    bool busy = false;       // Running a task.
    bool abandoned = false;  // Given up on by the watchdog; no longer counted.
    Clock::time_point started;
    std::string label;  // Of the running task.
  };

  struct WorkerHandle {
    std::shared_ptr<WorkerState> state;
    std::thread thread;
  };

  // Starts one worker. Returns false if the OS refused a thread.
  bool SpawnWorkerLocked() REQUIRES(mu_) {
    const uint64_t id = next_worker_id_++;
    auto state = std::make_shared<WorkerState>();
    std::thread thread;
    try {
      thread = std::thread([core = shared_from_this(), state, id] {
        if (!core->thread_name_.empty()) pthread_setname_np(pthread_self(), core->thread_name_.c_str());
        core->WorkerLoop(*state, id);
      });
    } catch (const std::system_error&) {
      return false;
    }
    ++live_;
    // The new thread blocks on mu_ until this insertion is done.
    workers_.emplace(id, WorkerHandle{std::move(state), std::move(thread)});
    return true;
  }

  // Starts workers for queued items no idle worker can take, up to target_.
  void SpawnForQueueLocked() REQUIRES(mu_) {
    size_t wanted = queue_.size() > idle_ ? queue_.size() - idle_ : 0;
    while (wanted > 0 && live_ < target_ && SpawnWorkerLocked()) --wanted;
  }

  // Bookkeeping for a worker thread that is about to return.
  void ExitLocked(uint64_t id) REQUIRES(mu_) {
    --live_;
    exited_.push_back(id);
    // A wake-up meant for the queue may have landed on this worker.
    if (!queue_.empty()) work_cv_.notify_one();
    supervisor_cv_.notify_one();
    state_cv_.notify_all();
  }

  void WorkerLoop(WorkerState& self, uint64_t id) {
    tls_owner_core = this;
    MutexLock lock(mu_);
    Clock::time_point idle_since = Clock::now();
    while (true) {
      if (live_ > target_) return ExitLocked(id);  // Shrunk.
      if (!queue_.empty()) {
        Item item = std::move(queue_.front());
        queue_.pop_front();
        self.busy = true;
        self.started = Clock::now();
        self.label = item.label;
        ++running_;
        lock.Unlock();
        std::optional<std::string> error = RunTask(std::move(item.task));
        lock.Lock();
        if (self.abandoned) {
          // The supervisor already reported this task and replaced us; we
          // are no longer counted anywhere except here.
          --abandoned_;
          state_cv_.notify_all();
          return;
        }
        self.busy = false;
        self.label.clear();
        --running_;
        if (error) {
          // The thread may be in a bad state: retire it; the supervisor
          // reports the task and starts a replacement.
          failures_.push_back(
              TaskFailure{std::move(item.label), "exception: " + *error});
          ++pending_replacements_;
          return ExitLocked(id);
        }
        idle_since = Clock::now();
        continue;
      }
      if (stopping_) return ExitLocked(id);  // Queue drained.
      ++idle_;
      bool timed_out = false;
      if (keep_alive_ms_ < 0) {
        ++idle_without_deadline_;
        work_cv_.wait(lock.native());
        --idle_without_deadline_;
      } else {
        const auto expiry =
            idle_since + std::chrono::milliseconds(keep_alive_ms_);
        timed_out =
            work_cv_.wait_until(lock.native(), expiry) == std::cv_status::timeout;
      }
      --idle_;
      if (timed_out && queue_.empty() && !stopping_) return ExitLocked(id);
    }
  }

  // Abandons workers whose task has run past the watchdog deadline.
  void CheckWatchdogLocked(Clock::time_point now) REQUIRES(mu_) {
    const auto limit = std::chrono::milliseconds(watchdog_ms_);
    for (auto it = workers_.begin(); it != workers_.end();) {
      WorkerState& worker = *it->second.state;
      if (!worker.busy || now - worker.started < limit) {
        ++it;
        continue;
      }
      const auto ran_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              now - worker.started)
                              .count();
      worker.abandoned = true;
      worker.busy = false;
      --running_;
      --live_;
      ++abandoned_;
      ++pending_replacements_;
      failures_.push_back(
          TaskFailure{std::move(worker.label),
                      "watchdog: ran " + std::to_string(ran_ms) + " ms"});
      it->second.thread.detach();
      it = workers_.erase(it);
    }
  }

  void SupervisorLoop() {
    tls_owner_core = this;
    const auto period =
        std::chrono::milliseconds(std::max<int64_t>(1, watchdog_ms_ / 4));
    MutexLock lock(mu_);
    while (true) {
      if (watchdog_ms_ > 0) CheckWatchdogLocked(Clock::now());
      if (pending_replacements_ > 0) {
        for (; pending_replacements_ > 0; --pending_replacements_) {
          ++replaced_;
          // While shutting down, replace only if work is left to drain.
          if (live_ < target_ && (!stopping_ || !queue_.empty())) {
            SpawnWorkerLocked();
          }
        }
        state_cv_.notify_all();
      }
      std::vector<std::thread> to_join;
      for (uint64_t id : exited_) {
        auto it = workers_.find(id);
        if (it == workers_.end()) continue;
        to_join.push_back(std::move(it->second.thread));
        workers_.erase(it);
      }
      exited_.clear();
      std::vector<TaskFailure> failures;
      failures.swap(failures_);
      if (!to_join.empty() || !failures.empty()) {
        lock.Unlock();
        for (std::thread& thread : to_join) thread.join();
        for (const TaskFailure& failure : failures) {
          if (!on_failure_) break;
          try {
            on_failure_(failure);
          } catch (...) {
            // A throwing handler must not take the supervisor down with it.
          }
        }
        lock.Lock();
        continue;  // Re-check: events may have arrived meanwhile.
      }
      if (supervisor_stop_) return;
      if (watchdog_ms_ > 0) {
        supervisor_cv_.wait_for(lock.native(), period);
      } else {
        supervisor_cv_.wait(lock.native());
      }
    }
  }

  const int64_t keep_alive_ms_;
  const std::string thread_name_;  // shown by top -H; "" keeps the parent's
  const size_t max_queued_;
  const int64_t watchdog_ms_;
  const FailureHandler on_failure_;

  mutable Mutex mu_;
  std::condition_variable work_cv_;        // Workers: work, stop or shrink.
  std::condition_variable supervisor_cv_;  // Supervisor: exits, failures.
  std::condition_variable state_cv_;       // Shutdown: live_ changed.

  // A WorkerState is written under mu_ too (by its worker and the supervisor).
  size_t target_ GUARDED_BY(mu_);
  size_t live_ GUARDED_BY(mu_) = 0;                  // Excludes abandoned.
  size_t idle_ GUARDED_BY(mu_) = 0;
  size_t idle_without_deadline_ GUARDED_BY(mu_) = 0;  // Of idle_, untimed waits.
  size_t running_ GUARDED_BY(mu_) = 0;               // Excludes abandoned.
  size_t abandoned_ GUARDED_BY(mu_) = 0;             // Hung, not yet back.
  uint64_t replaced_ GUARDED_BY(mu_) = 0;
  size_t pending_replacements_ GUARDED_BY(mu_) = 0;  // Lost, not yet replaced.
  uint64_t next_worker_id_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;            // Submit refuses.
  bool supervisor_stop_ GUARDED_BY(mu_) = false;
  std::deque<Item> queue_ GUARDED_BY(mu_);
  std::unordered_map<uint64_t, WorkerHandle> workers_ GUARDED_BY(mu_);
  std::vector<uint64_t> exited_ GUARDED_BY(mu_);       // Returned, to join.
  std::vector<TaskFailure> failures_ GUARDED_BY(mu_);  // To report.
  std::thread supervisor_;             // Set by Start, joined by Shutdown.
};

ThreadPool::ThreadPool(ThreadPoolOptions options, FailureHandler on_failure)
    : core_(std::make_shared<Core>(options, std::move(on_failure))) {
  core_->Start();
}

ThreadPool::~ThreadPool() { Shutdown(ShutdownMode::kDrain); }

bool ThreadPool::Submit(std::string label, Task task) {
  return core_->Submit(std::move(label), std::move(task));
}

void ThreadPool::Resize(size_t threads) { core_->Resize(threads); }

std::vector<std::string> ThreadPool::Shutdown(ShutdownMode mode) {
  MutexLock lock(shutdown_mu_);
  if (shut_down_) return {};
  shut_down_ = true;
  return core_->Shutdown(mode);
}

size_t ThreadPool::target_size() const { return core_->target_size(); }
size_t ThreadPool::live_threads() const { return core_->live_threads(); }
size_t ThreadPool::idle_threads() const { return core_->idle_threads(); }
size_t ThreadPool::idle_threads_without_deadline() const {
  return core_->idle_threads_without_deadline();
}
size_t ThreadPool::queued() const { return core_->queued(); }
size_t ThreadPool::running() const { return core_->running(); }
size_t ThreadPool::abandoned_threads() const {
  return core_->abandoned_threads();
}
uint64_t ThreadPool::replaced_workers() const {
  return core_->replaced_workers();
}

}  // namespace zcrawl
