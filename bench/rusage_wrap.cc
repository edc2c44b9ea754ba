// rusage_wrap: runs one process of a benchmark and records what it cost: CPU
// time (user, sys) and peak resident set (ru_maxrss) from wait4(), the
// kernel's own accounting, so nothing is sampled and nothing is missed at
// exit. Appends one line to $ZCRAWL_BENCH_RUSAGE_LOG when the process ends:
//   NAME PID EXIT_CODE USER_MS SYS_MS MAXRSS_KB SELF_CPU_MS SELF_HWM_KB
// and exits with the child's code (128 + signal when it was killed), so its
// parent sees what it would have seen without the wrapper. The signals a
// launcher sends (INT, TERM, HUP, QUIT) are forwarded to the child.
//
// Two ways to call it:
//  - As a symlink named like a zcrawl component (zcrawl-frontier,
//    zcrawl-writer, zcrawl-fetcher): runs $ZCRAWL_BENCH_REAL_BIN_DIR/<name>.
//    run_bench.sh puts these symlinks in a shadow bin dir beside a copy of
//    zcrawl-crawl, which starts its components from its own folder. These
//    processes have no children, so wait4's figures are the process's own:
//    SELF_CPU_MS = USER_MS + SYS_MS and SELF_HWM_KB = MAXRSS_KB.
//  - `bench_rusage_wrap --exec PATH ARGS...`: runs PATH (the launcher).
//    wait4's figures then cover the whole tree the process reaped (CPU is
//    summed, ru_maxrss is the largest single process), so the process's own
//    share is sampled from /proc/PID/stat and /proc/PID/status (VmHWM, a
//    kernel-kept peak) every 50 ms; only the last 50 ms can be missed.
//
// Single-threaded; one instance per wrapped process.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr useconds_t kSampleIntervalUs = 50'000;

volatile sig_atomic_t g_child = 0;

void Forward(int signo) {
  if (g_child > 0) kill(g_child, signo);
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The process's own CPU ms (utime + stime from /proc/PID/stat), -1 if gone.
long long OwnCpuMs(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  const size_t paren = line.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos) return -1;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  long long utime = -1;
  long long stime = -1;
  // Fields after the name start at 3 (state); utime is 14, stime 15.
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) utime = std::atoll(field.c_str());
    if (index == 15) stime = std::atoll(field.c_str());
  }
  if (utime < 0 || stime < 0) return -1;
  return (utime + stime) * 1000 / sysconf(_SC_CLK_TCK);
}

// VmHWM (peak resident set, kB) from /proc/PID/status, -1 if gone.
long OwnHwmKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

long long Ms(const timeval& tv) { return static_cast<long long>(tv.tv_sec) * 1000 + tv.tv_usec / 1000; }

}  // namespace

int main(int argc, char** argv) {
  const char* log_path = std::getenv("ZCRAWL_BENCH_RUSAGE_LOG");
  if (log_path == nullptr) {
    std::fprintf(stderr, "rusage_wrap: set ZCRAWL_BENCH_RUSAGE_LOG\n");
    return 2;
  }
  const bool exec_mode = argc >= 3 && std::strcmp(argv[1], "--exec") == 0;
  std::string real;
  int first_arg = 1;
  if (exec_mode) {
    real = argv[2];
    first_arg = 3;
  } else {
    const char* real_dir = std::getenv("ZCRAWL_BENCH_REAL_BIN_DIR");
    if (real_dir == nullptr) {
      std::fprintf(stderr, "rusage_wrap: set ZCRAWL_BENCH_REAL_BIN_DIR or use --exec PATH\n");
      return 2;
    }
    real = std::string(real_dir) + "/" + BaseName(argv[0]);
  }
  const std::string name = BaseName(real);
  std::vector<char*> args;
  args.push_back(real.data());
  for (int i = first_arg; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);

  struct sigaction action {};
  action.sa_handler = Forward;
  sigemptyset(&action.sa_mask);
  for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(signo, &action, nullptr);

  const pid_t pid = fork();
  if (pid < 0) {
    std::perror("rusage_wrap: fork");
    return 127;
  }
  if (pid == 0) {
    for (int signo : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(signo, SIG_DFL);
    execv(args[0], args.data());
    std::fprintf(stderr, "rusage_wrap: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  g_child = pid;

  int status = 0;
  rusage usage{};
  long long self_cpu_ms = -1;
  long self_hwm_kb = -1;
  while (true) {
    const pid_t r = wait4(pid, &status, exec_mode ? WNOHANG : 0, &usage);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      std::perror("rusage_wrap: wait4");
      return 127;
    }
    if (r == 0) {  // --exec: still running; sample its own figures
      const long long cpu = OwnCpuMs(pid);
      const long hwm = OwnHwmKb(pid);
      if (cpu >= 0) self_cpu_ms = cpu;
      if (hwm >= 0) self_hwm_kb = hwm;
      usleep(kSampleIntervalUs);
    }
  }
  if (!exec_mode) {
    self_cpu_ms = Ms(usage.ru_utime) + Ms(usage.ru_stime);
    self_hwm_kb = usage.ru_maxrss;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status)
                                     : (WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 255);
  char line[512];
  const int n = std::snprintf(line, sizeof line, "%s %d %d %lld %lld %ld %lld %ld\n", name.c_str(),
                              static_cast<int>(pid), code, Ms(usage.ru_utime), Ms(usage.ru_stime),
                              usage.ru_maxrss, self_cpu_ms, self_hwm_kb);
  const int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    if (write(fd, line, static_cast<size_t>(n)) != n) std::perror("rusage_wrap: write");
    close(fd);
  }
  return code;
}
