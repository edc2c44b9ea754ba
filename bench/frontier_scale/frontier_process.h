// FrontierProcess: the zcrawl-frontier child of frontier_scale_bench. It is
// spawned in a process group of its own (a Ctrl-C at the terminal reaches
// the bench, which then stops the frontier in order), observed through
// /proc (RSS, peak RSS, CPU) and stopped by its pid: SIGINT, then SIGKILL
// after a grace period, or killed outright (SIGKILL, as a crash). Its stdout
// is the bench's; its stderr too, or a file.
//
// Not thread-safe: one thread owns it (the bench's main thread).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::bench {

struct ProcessMemory {
  uint64_t rss_bytes = 0;  // VmRSS
  uint64_t hwm_bytes = 0;  // VmHWM: the peak RSS so far
};

class FrontierProcess {
 public:
  // `args` excludes argv[0] (the binary path is used for it). A non-empty
  // `stderr_path` is truncated and receives its stderr (its log).
  static Result<std::unique_ptr<FrontierProcess>> Spawn(const std::string& binary,
                                                        const std::vector<std::string>& args,
                                                        const std::string& stderr_path = "");
  // The output of `binary --help`, to see which flags this build has.
  static Result<std::string> HelpText(const std::string& binary);

  ~FrontierProcess();  // stops it if still running
  FrontierProcess(const FrontierProcess&) = delete;
  FrontierProcess& operator=(const FrontierProcess&) = delete;

  pid_t pid() const { return pid_; }
  // False once it exited (then reaped; see exit_description()).
  bool Running();
  // SIGINT, waits up to grace_ms, then SIGKILL. Returns how it ended.
  std::string Stop(int64_t grace_ms);
  // SIGKILL at once (no shutdown: a crash as far as its state knows), then
  // reaped. Returns how it ended ("signal 9", or its exit if it was over).
  std::string Kill();
  // "exit 0", "signal 9", ... ("running" before it ended).
  std::string exit_description() const;

  // From /proc; zeros once it is gone.
  ProcessMemory Memory() const;
  double CpuSeconds() const;  // utime + stime

 private:
  explicit FrontierProcess(pid_t pid) : pid_(pid) {}

  const pid_t pid_;
  bool reaped_ = false;
  int wait_status_ = 0;
};

}  // namespace zcrawl::bench
