// Small helpers shared by the fault-injection tests (tests/faults/): a
// steady clock, finding processes by their command line so a test can
// prove nothing it started is left running, and what a process uses. (FreeLoopbackPort is in
// tests/support/test_process.h.)
//
// Header-only on purpose: each fault test is one source file, registered
// with one zcrawl_test line. Stateless functions; safe from any thread.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_process.h"

namespace zcrawl::testing {

inline int64_t SteadyNowMs() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Pids of live processes (not zombies) one of whose command-line arguments
// contains `needle` (e.g. a test's unique temporary folder or port).
inline std::vector<pid_t> PidsWithArgument(const std::string& needle) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    const pid_t pid = std::stoi(name);
    if (pid == getpid()) continue;
    const std::string stat = ReadFile(entry.path().string() + "/stat");
    const size_t close_paren = stat.rfind(')');
    if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) continue;
    if (stat[close_paren + 2] == 'Z') continue;  // exited, waiting to be reaped
    const std::string cmdline = ReadFile(entry.path().string() + "/cmdline");
    if (cmdline.find(needle) != std::string::npos) out.push_back(pid);
  }
  return out;
}

// Lines of `text` (without the newline), empty lines skipped.
inline std::vector<std::string> NonEmptyLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// What a running process holds, from /proc: its peak resident memory
// (VmHWM), threads and open file descriptors. Zeros once it is gone.
struct ProcessUsage {
  uint64_t peak_rss_kb = 0;
  int threads = 0;
  int open_files = 0;
};

inline ProcessUsage UsageOf(pid_t pid) {
  ProcessUsage usage;
  const std::string dir = "/proc/" + std::to_string(pid);
  std::istringstream status(ReadFile(dir + "/status"));
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) usage.peak_rss_kb = std::stoull(line.substr(6));
    if (line.rfind("Threads:", 0) == 0) usage.threads = std::stoi(line.substr(8));
  }
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(dir + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++usage.open_files;
  }
  return usage;
}

}  // namespace zcrawl::testing
