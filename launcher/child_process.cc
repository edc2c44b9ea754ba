#include "launcher/child_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstring>

namespace zcrawl::launcher {

ChildProcess::~ChildProcess() {
  if (stderr_fd_ >= 0) close(stderr_fd_);
}

Status ChildProcess::Start() {
  std::vector<char*> args;
  for (auto& arg : argv_) args.push_back(arg.data());
  args.push_back(nullptr);
  // What the previous run left unread is printed first.
  if (stderr_fd_ >= 0) close(stderr_fd_);
  stderr_fd_ = -1;
  int pipe_fds[2] = {-1, -1};
  if (capture_stderr_ && pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return UnavailableError(std::string("pipe: ") + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    if (pipe_fds[0] >= 0) close(pipe_fds[0]), close(pipe_fds[1]);
    return UnavailableError(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    if (pipe_fds[1] >= 0) {
      dup2(pipe_fds[1], STDERR_FILENO);  // dup2 clears O_CLOEXEC
      // If the launcher dies, a log line must not kill the child by SIGPIPE
      // before it has shut down cleanly on its PDEATHSIG (inherited by exec).
      signal(SIGPIPE, SIG_IGN);
    }
    // Default signal handling in the child; it installs its own.
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    // If the launcher dies (even by SIGKILL), its children are told to stop
    // instead of running on as orphans.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    execv(args[0], args.data());
    fprintf(stderr, "launcher: cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  pid_ = pid;
  if (pipe_fds[0] >= 0) {
    close(pipe_fds[1]);
    fcntl(pipe_fds[0], F_SETFL, fcntl(pipe_fds[0], F_GETFL) | O_NONBLOCK);
    stderr_fd_ = pipe_fds[0];
  }
  return Status::Ok();
}

std::vector<std::string> ChildProcess::ReadLines() {
  std::vector<std::string> lines;
  if (stderr_fd_ < 0) return lines;
  char buf[16384];
  bool ended = false;
  while (true) {
    const ssize_t n = read(stderr_fd_, buf, sizeof buf);
    if (n > 0) {
      partial_.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    break;
  }
  size_t start = 0;
  for (size_t end; (end = partial_.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(partial_.substr(start, end - start));
  }
  partial_.erase(0, start);
  if (ended) {  // every writer closed it: the child (and its children) exited
    if (!partial_.empty()) lines.push_back(std::move(partial_));
    partial_.clear();
    close(stderr_fd_);
    stderr_fd_ = -1;
  }
  return lines;
}

bool ChildProcess::Reap(int* exit_code) {
  if (pid_ <= 0) return false;
  int status = 0;
  const pid_t r = waitpid(pid_, &status, WNOHANG);
  if (r == 0) return false;
  if (r < 0) {
    *exit_code = 255;
  } else if (WIFEXITED(status)) {
    *exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    *exit_code = 128 + WTERMSIG(status);
  } else {
    return false;
  }
  pid_ = -1;
  return true;
}

void ChildProcess::Signal(int signo) {
  if (pid_ > 0) kill(pid_, signo);
}

}  // namespace zcrawl::launcher
