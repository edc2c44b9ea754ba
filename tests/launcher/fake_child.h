// FakeChild: a scripted component process for the launcher's tests, timed
// by a FakeClock. Each Start begins the next run of its script (the last
// run repeats): the run exits by itself `exit_after_ms` after its start
// with `exit_code` (never, if exit_after_ms < 0), or on a signal it does
// not ignore (SIGINT and SIGTERM: a clean exit 0, as the components do;
// SIGKILL: 137, never ignored). It records what was asked of it. Tests
// treat its ports as accepting while it runs, unless it is `deaf`.
#pragma once

#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "launcher/child.h"

namespace zcrawl::launcher::testing {

class FakeChild final : public Child {
 public:
  struct Run {
    int64_t exit_after_ms = -1;  // < 0: runs until signalled
    int exit_code = 0;
  };

  FakeChild(std::string name, const FakeClock& clock, std::vector<Run> script)
      : name_(std::move(name)), clock_(clock), script_(std::move(script)) {}

  const std::string& name() const override { return name_; }

  Status Start() override {
    if (fail_start) return UnavailableError("fork: no");
    const size_t index = std::min(start_times_ms.size(), script_.size() - 1);
    run_ = script_[index];
    start_times_ms.push_back(clock_.NowMs());
    started_ms_ = clock_.NowMs();
    running_ = true;
    signalled_exit_ = false;
    if (on_start) on_start();
    return Status::Ok();
  }

  bool Reap(int* exit_code) override {
    if (!running_) return false;
    const bool ended = run_.exit_after_ms >= 0 && clock_.NowMs() >= started_ms_ + run_.exit_after_ms;
    if (!signalled_exit_ && !ended) return false;
    running_ = false;
    *exit_code = signalled_exit_ ? signal_exit_code_ : run_.exit_code;
    exit_times_ms.push_back(clock_.NowMs());
    return true;
  }

  void Signal(int signo) override {
    signals.push_back(signo);
    if (!running_ || signalled_exit_) return;
    if (signo != SIGKILL && ignored_signals.count(signo)) return;
    signalled_exit_ = true;
    signal_exit_code_ = signo == SIGKILL ? 128 + SIGKILL : 0;
  }

  std::vector<std::string> ReadLines() override { return {}; }

  bool running() const { return running_; }
  int starts() const { return static_cast<int>(start_times_ms.size()); }

  // Set by the test.
  bool fail_start = false;
  bool deaf = false;  // never opens its ports
  std::set<int> ignored_signals;
  std::function<void()> on_start;
  // Seen by the test.
  std::vector<int64_t> start_times_ms;
  std::vector<int64_t> exit_times_ms;
  std::vector<int> signals;

 private:
  const std::string name_;
  const FakeClock& clock_;
  const std::vector<Run> script_;
  Run run_;
  int64_t started_ms_ = 0;
  bool running_ = false;
  bool signalled_exit_ = false;
  int signal_exit_code_ = 0;
};

}  // namespace zcrawl::launcher::testing
