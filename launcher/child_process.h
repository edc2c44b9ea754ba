// ChildProcess: one component process started by the launcher (frontier,
// writer or a fetcher): its command line, its pid while running, and how
// often it was restarted. Restart policy lives in ProcessSupervisor.
//
// Used from the launcher's single thread.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::launcher {

class ChildProcess {
 public:
  ChildProcess(std::string name, std::vector<std::string> argv)
      : name_(std::move(name)), argv_(std::move(argv)) {}

  // fork+exec; the child's stderr and stdout stay the launcher's.
  Status Start();
  // Non-blocking: true if the process has exited; fills exit_code
  // (128+signal for a signal).
  bool Reap(int* exit_code);
  void Signal(int signo) const;
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& name() const { return name_; }

  uint32_t restarts = 0;
  int64_t restart_at_ms = 0;  // when a pending restart is due (0: none)
  int last_exit_code = 0;

 private:
  std::string name_;
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
};

}  // namespace zcrawl::launcher
