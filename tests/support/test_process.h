// TestProcess: starts one real program for an end-to-end test, with its
// output in a log file, and waits for it with a deadline. The destructor
// kills a process still running, so a failing test leaves nothing behind.
#pragma once

#include <sys/types.h>

#include <cstdint>

#include <optional>
#include <string>
#include <vector>

#include "net/loopback_port.h"

namespace zcrawl::testing {

class TestProcess {
 public:
  TestProcess() = default;
  ~TestProcess();
  TestProcess(const TestProcess&) = delete;
  TestProcess& operator=(const TestProcess&) = delete;

  // argv[0] is the program path. `env` entries "NAME=value" are added.
  void Start(const std::vector<std::string>& argv, const std::string& log_path,
             const std::vector<std::string>& env = {});
  // Exit code (128+signal if killed), or nullopt if still running after
  // `timeout_ms`.
  std::optional<int> Wait(int timeout_ms);
  void Signal(int signo);
  bool running();
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

// Directory of the zcrawl binaries under test (ZCRAWL_BIN_DIR).
std::string BinDir();
// The repository root (for ./run).
std::string SourceDir();
// A fresh empty directory for one test, removed at exit if every test
// passed (ZCRAWL_KEEP_TEST_DIRS=1 keeps it).
std::string MakeTempDir(const std::string& name);
// Whole file, or "" if missing.
std::string ReadFile(const std::string& path);
// Waits until the file at `path` (a log) contains `needle`; false after
// `timeout_ms`.
bool WaitForLog(const std::string& path, const std::string& needle, int timeout_ms);

}  // namespace zcrawl::testing

namespace zcrawl::testing {

// A port on 127.0.0.1 that was free a moment ago (the kernel's choice).
using zcrawl::FreeLoopbackPort;

// Pids of the direct children of `parent` whose command name is `comm`
// (as in /proc/PID/comm, at most 15 characters).
std::vector<pid_t> ChildPids(pid_t parent, const std::string& comm);

}  // namespace zcrawl::testing
