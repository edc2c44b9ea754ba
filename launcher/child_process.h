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
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // fork+exec; the child's stdout stays the launcher's, and so does its
  // stderr unless capture_stderr(): then it is a pipe the launcher reads
  // with ReadLines, so that on a terminal log lines print above the live
  // progress line instead of into it.
  Status Start();
  void capture_stderr(bool on) { capture_stderr_ = on; }
  // Complete lines the child wrote to its stderr since the last call
  // (non-blocking; a partial line waits for its end or the child's exit).
  std::vector<std::string> ReadLines();
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
  bool capture_stderr_ = false;
  int stderr_fd_ = -1;      // read end of the child's stderr pipe
  std::string partial_;     // a line not yet ended
};

}  // namespace zcrawl::launcher
