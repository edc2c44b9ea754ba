#include "bench/frontier_scale/frontier_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace zcrawl::bench {
namespace {

// The value of a "Name:   123 kB" line of /proc/PID/status, in bytes.
uint64_t StatusKilobytes(const std::string& status, const std::string& name) {
  const size_t at = status.find("\n" + name + ":");
  if (at == std::string::npos) return 0;
  return std::strtoull(status.c_str() + at + name.size() + 2, nullptr, 10) * 1024;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

Result<std::unique_ptr<FrontierProcess>> FrontierProcess::Spawn(const std::string& binary,
                                                                const std::vector<std::string>& args,
                                                                const std::string& stderr_path) {
  std::vector<std::string> argv_strings = {binary};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGPIPE);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setpgroup(&attr, 0);  // its own group: Ctrl-C is ours to pass on
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  if (!stderr_path.empty()) {
    posix_spawn_file_actions_addopen(&files, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  pid_t pid = 0;
  const int error = posix_spawn(&pid, binary.c_str(), &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (error != 0) return UnavailableError("cannot start " + binary + ": " + std::strerror(error));
  return std::unique_ptr<FrontierProcess>(new FrontierProcess(pid));
}

Result<std::string> FrontierProcess::HelpText(const std::string& binary) {
  if (access(binary.c_str(), X_OK) != 0) return NotFoundError(binary + " is not an executable file");
  // The path goes to the shell quoted; a quote inside it is spelled '\''.
  std::string quoted = "'";
  for (char c : binary) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  quoted += "'";
  FILE* pipe = popen((quoted + " --help 2>&1").c_str(), "r");
  if (pipe == nullptr) return UnavailableError("cannot run " + binary + " --help");
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, n);
  const int status = pclose(pipe);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return UnavailableError(binary + " --help failed: " + text.substr(0, 500));
  }
  return text;
}

FrontierProcess::~FrontierProcess() {
  if (!reaped_) (void)Stop(5000);
}

bool FrontierProcess::Running() {
  if (reaped_) return false;
  int status = 0;
  const pid_t got = waitpid(pid_, &status, WNOHANG);
  if (got == pid_ || (got < 0 && errno == ECHILD)) {
    reaped_ = true;
    wait_status_ = status;
    return false;
  }
  return true;
}

std::string FrontierProcess::Stop(int64_t grace_ms) {
  if (!Running()) return exit_description();
  kill(pid_, SIGINT);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!Running()) return exit_description();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Kill() + " (SIGKILL after " + std::to_string(grace_ms) + " ms)";
}

std::string FrontierProcess::Kill() {
  if (!Running()) return exit_description();
  kill(pid_, SIGKILL);
  int status = 0;
  if (waitpid(pid_, &status, 0) == pid_) wait_status_ = status;
  reaped_ = true;
  return exit_description();
}

std::string FrontierProcess::exit_description() const {
  if (!reaped_) return "running";
  if (WIFEXITED(wait_status_)) return "exit " + std::to_string(WEXITSTATUS(wait_status_));
  if (WIFSIGNALED(wait_status_)) return "signal " + std::to_string(WTERMSIG(wait_status_));
  return "ended";
}

ProcessMemory FrontierProcess::Memory() const {
  ProcessMemory memory;
  if (reaped_) return memory;
  const std::string status = ReadWhole("/proc/" + std::to_string(pid_) + "/status");
  memory.rss_bytes = StatusKilobytes(status, "VmRSS");
  memory.hwm_bytes = StatusKilobytes(status, "VmHWM");
  return memory;
}

double FrontierProcess::CpuSeconds() const {
  if (reaped_) return 0;
  const std::string stat = ReadWhole("/proc/" + std::to_string(pid_) + "/stat");
  // The command name is in parentheses and may hold spaces: count fields
  // after the last ')'. There, field 0 is the state, 11 utime, 12 stime.
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  uint64_t ticks = 0;
  for (int i = 0; i <= 12 && fields >> field; ++i) {
    if (i == 11 || i == 12) ticks += std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace zcrawl::bench
