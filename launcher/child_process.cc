#include "launcher/child_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace zcrawl::launcher {

Status ChildProcess::Start() {
  std::vector<char*> args;
  for (auto& arg : argv_) args.push_back(arg.data());
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return UnavailableError(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
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
  return Status::Ok();
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
  last_exit_code = *exit_code;
  return true;
}

void ChildProcess::Signal(int signo) const {
  if (pid_ > 0) kill(pid_, signo);
}

}  // namespace zcrawl::launcher
