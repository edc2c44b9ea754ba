#include "writer/exec_sink.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>

#include "common/clock.h"
#include "writer/file_io.h"
#include "writer/page_json.h"

extern char** environ;

namespace zcrawl::writer {
namespace {


// After end of input (or a broken pipe), how long Close waits once more
// after SIGTERM, and after SIGKILL, before giving up on the command.
constexpr int64_t kTermGraceMs = 1000;
constexpr int64_t kKillGraceMs = 5000;
// How long to wait for a command whose pipe broke to finish exiting, so its
// exit status can be reported.
constexpr int64_t kBrokenPipeReapMs = 1000;
constexpr auto kReapPollInterval = std::chrono::milliseconds(5);

int64_t SteadyMs() { return RealClock::Get().NowMs(); }

// Blocks SIGPIPE on this thread for its lifetime, so a write to a pipe whose
// reader is gone fails with EPIPE instead of killing the process, and
// discards the SIGPIPE that write left pending (unless one was pending
// before, which is not ours to take).
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_set_);
    sigaddset(&pipe_set_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_set_, &old_mask_);
  }
  ~SigpipeBlock() {
    if (!was_pending_) {
      const timespec zero{};
      while (sigtimedwait(&pipe_set_, nullptr, &zero) > 0) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_set_;
  sigset_t old_mask_;
  bool was_pending_ = false;
};

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

}  // namespace

ExecSink::ExecSink(SinkOptions options, std::string command, ExecSinkLimits limits)
    : options_(std::move(options)), command_(std::move(command)), limits_(limits) {}

ExecSink::~ExecSink() { Close().IgnoreError(); }

Status ExecSink::Open() {
  if (open_) return Status::Ok();
  if (IsBlank(command_)) return InvalidArgumentError("exec sink: empty command");
  if (Status s = CreateFolderDurably(options_.out_dir); !s.ok()) return s;

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return ResourceExhaustedError(std::string("exec sink: pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);  // dup2 clears CLOEXEC
  posix_spawn_file_actions_addchdir_np(&actions, options_.out_dir.c_str());
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own
  sigset_t no_signals;
  sigemptyset(&no_signals);
  posix_spawnattr_setsigmask(&attributes, &no_signals);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signo : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&defaults, signo);
  posix_spawnattr_setsigdefault(&attributes, &defaults);

  std::string shell = "sh";
  std::string dash_c = "-c";
  char* argv[] = {shell.data(), dash_c.data(), command_.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(fds[0]);
  if (rc != 0) {
    ::close(fds[1]);
    return UnavailableError("exec sink: cannot start /bin/sh -c '" + command_ + "' in " +
                            options_.out_dir + ": " + std::strerror(rc));
  }
  // Non-blocking, so a command that stops reading cannot hang the writer
  // past write_timeout_ms.
  ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  fd_ = fds[1];
  pid_ = pid;
  wait_status_.reset();
  failure_ = Status::Ok();
  buffer_.clear();
  open_ = true;
  return Status::Ok();
}

Status ExecSink::Append(const v1::Page& page, PagePayload&& payload) {
  if (!open_) return InternalError("ExecSink::Write called while not open");
  if (!failure_.ok()) return failure_;
  if (Reaped()) return Break(UnavailableError(ExitDescription() + " before end of input"));
  buffer_ += PageJson(page, options_.jsonl_body ? &payload.body : nullptr);
  buffer_.push_back('\n');
  if (buffer_.size() >= kExecWriteChunkBytes) return WriteBuffer();
  return Status::Ok();
}

Status ExecSink::Flush() {
  if (!open_) return InternalError("ExecSink::Flush called while not open");
  if (!failure_.ok()) return failure_;
  if (Status s = WriteBuffer(); !s.ok()) return s;
  // A command that died may not have read what is in the pipe.
  if (Reaped()) return Break(UnavailableError(ExitDescription() + " before end of input"));
  return Status::Ok();
}

Status ExecSink::Close() {
  if (!open_) return Status::Ok();
  Status result = failure_.ok() ? WriteBuffer() : failure_;
  if (fd_ >= 0) {
    ::close(fd_);  // end of input
    fd_ = -1;
  }
  if (!WaitForExit(limits_.close_timeout_ms)) {
    // Not reaped, so pid_ > 0; the whole group, to reach a pipeline too.
    if (pid_ > 0) ::kill(-pid_, SIGTERM);
    if (!WaitForExit(kTermGraceMs) && pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      WaitForExit(kKillGraceMs);
    }
    if (result.ok()) {
      result = DeadlineExceededError("command '" + command_ + "' did not exit within " +
                                     std::to_string(limits_.close_timeout_ms) +
                                     " ms after end of input; killed");
    }
  } else if (result.ok() && !(WIFEXITED(*wait_status_) && WEXITSTATUS(*wait_status_) == 0)) {
    result = UnavailableError(ExitDescription());
  }
  open_ = false;
  return result;
}

Status ExecSink::WriteBuffer() {
  SigpipeBlock no_sigpipe;
  const int64_t deadline = SteadyMs() + limits_.write_timeout_ms;
  std::string_view data = buffer_;
  while (!data.empty()) {
    const ssize_t n = ::write(fd_, data.data(), data.size());
    if (n >= 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN) {
      const int64_t left = deadline - SteadyMs();
      if (left <= 0) {
        return Break(DeadlineExceededError("command '" + command_ + "' took no input for " +
                                           std::to_string(limits_.write_timeout_ms) + " ms"));
      }
      pollfd item{fd_, POLLOUT, 0};
      ::poll(&item, 1, static_cast<int>(std::min<int64_t>(left, INT_MAX)));
      continue;
    }
    if (errno == EPIPE) {
      WaitForExit(kBrokenPipeReapMs);
      return Break(UnavailableError(Reaped() ? ExitDescription() + " before end of input"
                                             : "command '" + command_ + "' closed its input"));
    }
    return Break(UnavailableError("write to command '" + command_ + "': " + std::strerror(errno)));
  }
  buffer_.clear();
  return Status::Ok();
}

bool ExecSink::Reaped() {
  if (wait_status_) return true;
  if (pid_ < 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_) {
    wait_status_ = status;
  } else if (r < 0 && errno == ECHILD) {
    wait_status_ = -1;  // reaped by someone else: gone, status unknown
  } else {
    return false;
  }
  pid_ = -1;
  return true;
}

bool ExecSink::WaitForExit(int64_t timeout_ms) {
  const int64_t deadline = SteadyMs() + timeout_ms;
  while (!Reaped()) {
    if (SteadyMs() >= deadline) return false;
    std::this_thread::sleep_for(kReapPollInterval);
  }
  return true;
}

std::string ExecSink::ExitDescription() const {
  const std::string who = "command '" + command_ + "'";
  if (!wait_status_ || *wait_status_ == -1) return who + " has exited (status unknown)";
  const int status = *wait_status_;
  if (WIFEXITED(status)) return who + " exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int signo = WTERMSIG(status);
    const char* name = ::sigabbrev_np(signo);
    return who + " was killed by signal " + std::to_string(signo) +
           (name ? std::string(" (SIG") + name + ")" : "");
  }
  return who + " stopped with wait status " + std::to_string(status);
}

Status ExecSink::Break(Status status) {
  failure_ = status;
  buffer_.clear();
  return status;
}

}  // namespace zcrawl::writer
