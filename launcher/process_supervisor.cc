#include "launcher/process_supervisor.h"

#include <signal.h>

#include <algorithm>
#include <utility>

namespace zcrawl::launcher {

bool IsConfigurationExit(int code) { return code == 2 || (code >= 100 && code < 128); }

int64_t RestartBackoffMs(uint32_t restarts) {
  return std::min<int64_t>(250LL << std::min<uint32_t>(restarts, 6), 10000);
}

ProcessSupervisor::ProcessSupervisor(std::vector<SupervisedChild> children, SupervisorOptions options,
                                     SupervisorEnv env, Console& console)
    : options_(options), env_(std::move(env)), console_(console) {
  for (SupervisedChild& child : children) {
    children_.push_back(Slot{std::move(child.child), std::move(child.listen_ports), ChildState()});
  }
}

ProcessSupervisor::StartResult ProcessSupervisor::StartAll() {
  // Dependency order, each listener waited for: no peer talks to a port
  // nobody listens on yet (a tiny crawl could otherwise end before a late
  // peer ever reached the frontier).
  for (size_t i = 0; i < children_.size(); ++i) {
    Slot& slot = children_[i];
    if (Status s = slot.child->Start(); !s.ok()) {
      console_.Say("crawl: cannot start %s: %s\n", slot.child->name().c_str(), s.message().c_str());
      StopAll(SIGTERM);
      return StartResult::kCannotStart;
    }
    slot.state.running = true;
    const bool listening = std::all_of(slot.listen_ports.begin(), slot.listen_ports.end(),
                                       [&](uint16_t port) { return WaitUntilListening(slot, port); });
    if (!listening) {
      // A frontier that exits 0 at once found its crawl already finished
      // (one still running but deaf is a failure).
      const bool finished = i == 0 && !slot.state.running && slot.state.last_exit_code == 0;
      StopAll(SIGTERM);
      return finished ? StartResult::kFinishedAtOnce : StartResult::kFailed;
    }
  }
  return StartResult::kStarted;
}

bool ProcessSupervisor::WaitUntilListening(Slot& slot, uint16_t port) {
  const int64_t deadline = env_.clock->NowMs() + options_.listen_timeout_ms;
  while (env_.clock->NowMs() < deadline) {
    if (env_.port_accepts(port)) return true;
    RelayLogs();
    if (Reap(slot)) {
      RelayLogs();
      if (slot.state.last_exit_code != 0) {
        console_.Say("crawl: %s exited with code %d during start-up\n", slot.child->name().c_str(),
                     slot.state.last_exit_code);
      }
      return false;
    }
    env_.wait(options_.start_poll_ms);
  }
  console_.Say("crawl: %s did not listen on port %u within %lld s\n", slot.child->name().c_str(), port,
               static_cast<long long>(options_.listen_timeout_ms / 1000));
  return false;
}

int ProcessSupervisor::Supervise() {
  while (Poll()) env_.wait(options_.poll_ms);
  RelayLogs();
  return result_;
}

bool ProcessSupervisor::Poll() {
  const int64_t now = env_.clock->NowMs();
  if (!stopping_ && env_.stop_requested()) {
    console_.Say("crawl: stopping (signal); waiting for processes to finish cleanly\n");
    BeginStopping(SIGINT);  // a terminal already sent it; a `kill` did not
    result_ = 130;
  }
  bool any_running = false;
  for (size_t i = 0; i < children_.size(); ++i) {
    Slot& slot = children_[i];
    if (Reap(slot)) OnExit(i, slot.state.last_exit_code);
    if (slot.state.running) any_running = true;
    if (!slot.state.running && slot.state.restart_at_ms && now >= slot.state.restart_at_ms) {
      slot.state.restart_at_ms = 0;
      console_.Say("crawl: restarting %s (restart %u)\n", slot.child->name().c_str(), slot.state.restarts);
      if (slot.child->Start().ok()) {
        slot.state.running = true;
      } else {
        result_ = 1;
      }
      any_running = true;
    }
    if (slot.state.restart_at_ms) any_running = true;
  }
  if (!any_running) return false;
  // Peers that never reached the frontier (e.g. still connecting when a
  // small crawl ended) get no Shutdown message: ask them by signal.
  if (frontier_done_ && !terminated_ && now > frontier_exit_ms_ + options_.peer_exit_wait_ms) {
    terminated_ = true;
    StopAll(SIGTERM);
  }
  if (finish_deadline_ms_ && now > finish_deadline_ms_) {
    console_.Say("crawl: processes did not exit in time; terminating them\n");
    StopAll(SIGKILL);
    finish_deadline_ms_ = 0;
    if (result_ == 0) result_ = 1;
  }
  RelayLogs();
  if (!frontier_done_) console_.Tick();
  return true;
}

bool ProcessSupervisor::Reap(Slot& slot) {
  int code = 0;
  if (!slot.state.running || !slot.child->Reap(&code)) return false;
  slot.state.running = false;
  slot.state.last_exit_code = code;
  return true;
}

void ProcessSupervisor::OnExit(size_t index, int code) {
  Slot& slot = children_[index];
  const std::string& name = slot.child->name();
  const int64_t now = env_.clock->NowMs();
  const bool is_frontier = index == 0;
  if (is_frontier && (code == 0 || stopping_)) {
    frontier_done_ = true;
    frontier_exit_ms_ = now;
    console_.StopDrawing();
    if (!finish_deadline_ms_) finish_deadline_ms_ = now + options_.exit_grace_ms;
    return;
  }
  if (!is_frontier && (code == 0 || stopping_ || frontier_done_)) {
    if (code != 0 && !stopping_ && result_ == 0) {
      console_.Say("crawl: %s exited with code %d\n", name.c_str(), code);
      result_ = 1;
    }
    return;
  }
  if (IsConfigurationExit(code)) {
    console_.Say("crawl: %s cannot run as configured (exit code %d); stopping\n", name.c_str(), code);
    result_ = 2;
    BeginStopping(SIGTERM);
    return;
  }
  // A process crashed mid-crawl: replace it, with backoff. The frontier
  // resumes from its saved state; fetchers and the writer reconnect.
  if (slot.state.restarts >= options_.max_restarts) {
    console_.Say("crawl: %s crashed %u times; giving up on it\n", name.c_str(), slot.state.restarts);
    result_ = 1;
    if (is_frontier) BeginStopping(SIGTERM);
    return;
  }
  const int64_t backoff = RestartBackoffMs(slot.state.restarts);
  ++slot.state.restarts;
  slot.state.restart_at_ms = now + backoff;
  console_.Say("crawl: %s exited with code %d; restarting in %lld ms\n", name.c_str(), code,
               static_cast<long long>(backoff));
}

void ProcessSupervisor::BeginStopping(int signo) {
  stopping_ = true;
  finish_deadline_ms_ = env_.clock->NowMs() + options_.exit_grace_ms;
  StopAll(signo);
}

void ProcessSupervisor::StopAll(int signo) {
  for (Slot& slot : children_) {
    slot.state.restart_at_ms = 0;
    if (slot.state.running) slot.child->Signal(signo);
  }
}

void ProcessSupervisor::RelayLogs() {
  std::vector<std::string> lines;
  for (Slot& slot : children_) {
    for (std::string& line : slot.child->ReadLines()) lines.push_back(std::move(line));
  }
  console_.Relay(lines);
}

}  // namespace zcrawl::launcher
