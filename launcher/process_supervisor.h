// ProcessSupervisor: starts a crawl's processes in order, watches them,
// restarts one that crashes (with backoff, up to a cap), and decides the
// crawl's result from how they exited (docs/OPERATING.md, "Exit codes";
// the launcher's summary may still turn a 0 into kNothingFetched).
//
// The first child holds the frontier (the frontier itself, or the one
// zcrawl-local of --single-process). Its clean exit ends the crawl: the
// others get peer_exit_wait_ms to follow on their own, then SIGTERM, and
// all of them exit_grace_ms in total before SIGKILL. Rules on an exit:
//   - a non-frontier child that exits 0, or any exit once stopping or once
//     the frontier is done, is not restarted (non-zero and unexpected: 1);
//   - an exit code meaning "cannot run as configured" (2, 100-127) stops
//     the crawl with 2;
//   - any other exit is a crash: restarted after RestartBackoffMs, until a
//     child has been restarted max_restarts times; then 1, and a frontier
//     that gave up stops the crawl.
// A stop request (the user's signal) sends SIGINT to all and gives 130.
//
// Time, waiting, the stop request and the readiness probe come from
// SupervisorEnv, so tests drive it with a fake clock and fake children.
// Not thread-safe: used from the launcher's single thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/clock.h"
#include "launcher/child.h"
#include "launcher/console.h"

namespace zcrawl::launcher {

// Exit codes that mean "cannot start as configured": restarting is useless.
bool IsConfigurationExit(int code);
// The wait before restart number restarts+1: 250 ms doubling, at most 10 s.
int64_t RestartBackoffMs(uint32_t restarts);

struct SupervisorOptions {
  uint32_t max_restarts = 20;      // restarts of one child before giving up on it
  int64_t exit_grace_ms = 15000;   // once the crawl ends or stops, until SIGKILL
  int64_t peer_exit_wait_ms = 2000;  // after the frontier exits, until SIGTERM to the rest
  int64_t listen_timeout_ms = 10000;  // a child's ports must accept within this at start
  int64_t start_poll_ms = 5;       // waits between readiness probes at start
  int64_t poll_ms = 20;            // waits between rounds of Supervise
};

struct SupervisorEnv {
  const Clock* clock = &RealClock::Get();
  // Sleeps `ms` (tests: advances a fake clock).
  std::function<void(int64_t ms)> wait;
  // True once the user asked the crawl to stop (ShutdownSignal).
  std::function<bool()> stop_requested;
  // True once something accepts connections on 127.0.0.1:port.
  std::function<bool(uint16_t port)> port_accepts;
};

// A child and the ports it must open before the next child starts.
struct SupervisedChild {
  std::unique_ptr<Child> child;
  std::vector<uint16_t> listen_ports;
};

class ProcessSupervisor {
 public:
  enum class StartResult {
    kStarted,          // every child runs and listens: call Supervise
    kFinishedAtOnce,   // the frontier exited 0 at once (its crawl had ended): Supervise
    kFailed,           // a child exited or did not listen: others told to stop; Supervise
    kCannotStart,      // a Start() failed: others told to stop; nothing more to do
  };

  // What Supervise knows of one child.
  struct ChildState {
    uint32_t restarts = 0;      // times restarted after a crash
    int64_t restart_at_ms = 0;  // when a pending restart is due (0: none)
    int last_exit_code = 0;     // of its last exit (0 before one)
    bool running = false;
  };

  ProcessSupervisor(std::vector<SupervisedChild> children, SupervisorOptions options, SupervisorEnv env,
                    Console& console);
  ProcessSupervisor(const ProcessSupervisor&) = delete;
  ProcessSupervisor& operator=(const ProcessSupervisor&) = delete;

  // Starts the children in order, each after the previous one's ports accept.
  StartResult StartAll();
  // Runs until every child has exited and no restart is pending; the
  // crawl's result: 0, 1 (a process failed), 2 (configuration), 130 (stopped).
  int Supervise();
  // One round of Supervise: reaps, restarts what is due, escalates; false
  // once nothing runs and no restart is pending.
  bool Poll();

  size_t size() const { return children_.size(); }
  const ChildState& state(size_t i) const { return children_[i].state; }
  uint32_t frontier_restarts() const { return children_.empty() ? 0 : children_[0].state.restarts; }
  bool frontier_done() const { return frontier_done_; }
  bool stopping() const { return stopping_; }
  int result() const { return result_; }

 private:
  struct Slot {
    std::unique_ptr<Child> child;
    std::vector<uint16_t> listen_ports;
    ChildState state;
  };

  bool Reap(Slot& slot);
  bool WaitUntilListening(Slot& slot, uint16_t port);
  void OnExit(size_t index, int code);
  void BeginStopping(int signo);
  void StopAll(int signo);
  void RelayLogs();

  std::vector<Slot> children_;
  const SupervisorOptions options_;
  const SupervisorEnv env_;
  Console& console_;
  bool stopping_ = false;
  int64_t finish_deadline_ms_ = 0;  // 0: none
  int result_ = 0;
  bool frontier_done_ = false;
  int64_t frontier_exit_ms_ = 0;
  bool terminated_ = false;
};

}  // namespace zcrawl::launcher
