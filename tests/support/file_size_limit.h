// FileSizeLimit: while alive, this process's writes fail with EFBIG past
// `bytes` (RLIMIT_FSIZE, SIGXFSZ ignored): a real I/O error for sink tests
// without a fake file system.
//
// Thread-safety: process-wide; one at a time, on the test's thread.
#pragma once

#include <signal.h>
#include <sys/resource.h>

namespace zcrawl::testing {

class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

}  // namespace zcrawl::testing
