#include "tests/support/test_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace zcrawl::testing {

TestProcess::~TestProcess() {
  if (running()) {
    Signal(SIGKILL);
    Wait(5000);
  }
}

void TestProcess::Start(const std::vector<std::string>& argv, const std::string& log_path,
                        const std::vector<std::string>& env) {
  std::vector<std::string> args = argv;
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::vector<std::string> envs = env;
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    for (auto& e : envs) putenv(e.data());
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  pid_ = pid;
  exit_code_.reset();
}

std::optional<int> TestProcess::Wait(int timeout_ms) {
  if (exit_code_) return exit_code_;
  if (pid_ <= 0) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void TestProcess::Signal(int signo) {
  if (pid_ > 0 && !exit_code_) kill(pid_, signo);
}

bool TestProcess::running() { return pid_ > 0 && !Wait(0).has_value(); }

std::string BinDir() {
  const char* dir = std::getenv("ZCRAWL_BIN_DIR");
#ifdef ZCRAWL_DEFAULT_BIN_DIR
  if (!dir) dir = ZCRAWL_DEFAULT_BIN_DIR;
#endif
  return dir ? dir : ".";
}

std::string SourceDir() {
#ifdef ZCRAWL_SOURCE_DIR
  return ZCRAWL_SOURCE_DIR;
#else
  return ".";
#endif
}

namespace {

// The folders MakeTempDir made, removed when the test program ends with
// every test passed (a run of the suite made ~9 GB of them otherwise); a
// failure keeps them to look at, and so does ZCRAWL_KEEP_TEST_DIRS=1. Only
// the process that made them removes them: a forked child's exit does not.
class TempDirs {
 public:
  void Add(const std::string& dir) {
    std::lock_guard lock(mutex_);
    dirs_.push_back(dir);
  }
  ~TempDirs() {
    if (getpid() != owner_ || std::getenv("ZCRAWL_KEEP_TEST_DIRS") != nullptr) return;
    if (!::testing::UnitTest::GetInstance()->Passed()) return;
    for (const auto& dir : dirs_) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  }

 private:
  const pid_t owner_ = getpid();
  std::mutex mutex_;
  std::vector<std::string> dirs_;
};

}  // namespace

std::string MakeTempDir(const std::string& name) {
  // Made after gtest's UnitTest, so destroyed before it.
  ::testing::UnitTest::GetInstance();
  static TempDirs made;
  std::string base = std::filesystem::temp_directory_path() / ("zcrawl-test-" + name + "-XXXXXX");
  if (!mkdtemp(base.data())) throw std::runtime_error("mkdtemp failed");
  made.Add(base);
  return base;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool WaitForLog(const std::string& path, const std::string& needle, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (ReadFile(path).find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

std::vector<pid_t> ChildPids(pid_t parent, const std::string& comm) {
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.empty() || !std::isdigit(static_cast<unsigned char>(name[0]))) continue;
    // /proc/PID/stat: "pid (comm) state ppid ..."
    const std::string stat = ReadFile(entry.path().string() + "/stat");
    const size_t open = stat.find('(');
    const size_t close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string this_comm = stat.substr(open + 1, close - open - 1);
    std::istringstream rest(stat.substr(close + 2));
    char state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && this_comm == comm.substr(0, 15)) out.push_back(std::stoi(name));
  }
  return out;
}

}  // namespace zcrawl::testing
