// ChildProcess: one component process started by the launcher (frontier,
// writer or a fetcher) by fork+exec: its command line and its pid while
// running. Restart policy lives in ProcessSupervisor (process_supervisor.h).
//
// Used from the launcher's single thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "launcher/child.h"

namespace zcrawl::launcher {

class ChildProcess final : public Child {
 public:
  ChildProcess(std::string name, std::vector<std::string> argv)
      : name_(std::move(name)), argv_(std::move(argv)) {}
  ~ChildProcess() override;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // fork+exec; the child's stdout stays the launcher's, and so does its
  // stderr unless capture_stderr(): then it is a pipe the launcher reads
  // with ReadLines, so that on a terminal log lines print above the live
  // progress line instead of into it.
  Status Start() override;
  void capture_stderr(bool on) { capture_stderr_ = on; }
  // Complete lines the child wrote to its stderr since the last call
  // (non-blocking; a partial line waits for its end or the child's exit).
  std::vector<std::string> ReadLines() override;
  // Non-blocking: true if the process has exited; fills exit_code
  // (128+signal for a signal).
  bool Reap(int* exit_code) override;
  void Signal(int signo) override;
  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::vector<std::string> argv_;
  pid_t pid_ = -1;
  bool capture_stderr_ = false;
  int stderr_fd_ = -1;      // read end of the child's stderr pipe
  std::string partial_;     // a line not yet ended
};

}  // namespace zcrawl::launcher
