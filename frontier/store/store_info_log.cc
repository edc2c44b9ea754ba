#include "frontier/store/store_info_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>

namespace zcrawl::frontier {
namespace {

uint64_t NowMicros() {
  struct timeval now {};
  gettimeofday(&now, nullptr);
  return static_cast<uint64_t>(now.tv_sec) * 1000000 + static_cast<uint64_t>(now.tv_usec);
}

}  // namespace

StoreInfoLog::StoreInfoLog(std::string db_path, uint64_t max_bytes)
    : path_(std::move(db_path) + "/LOG"), max_bytes_(max_bytes) {}

StoreInfoLog::~StoreInfoLog() { CloseImpl().PermitUncheckedError(); }

rocksdb::Status StoreInfoLog::CloseImpl() {
  std::lock_guard<std::mutex> lock(mu_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  return rocksdb::Status::OK();
}

bool StoreInfoLog::Ready(size_t line_bytes) {
  if (fd_ >= 0 && size_ + line_bytes > max_bytes_ && size_ > 0) {
    close(fd_);
    fd_ = -1;
    // A failed rename (no space for the directory entry) keeps appending
    // to the full LOG: a larger log, never a lost store.
    rename(path_.c_str(), (path_ + ".old." + std::to_string(NowMicros())).c_str());
  }
  if (fd_ < 0) {
    fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) return false;
    struct stat st {};
    size_ = fstat(fd_, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  }
  return true;
}

void StoreInfoLog::Logv(const char* format, va_list ap) {
  // RocksDB's line format: local time to the microsecond, thread, message.
  const uint64_t now = NowMicros();
  const time_t seconds = static_cast<time_t>(now / 1000000);
  struct tm t {};
  localtime_r(&seconds, &t);
  char line[4096];
  int used = snprintf(line, sizeof line, "%04d/%02d/%02d-%02d:%02d:%02d.%06d %lx ", t.tm_year + 1900,
                      t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec,
                      static_cast<int>(now % 1000000), static_cast<long>(syscall(SYS_gettid)));
  va_list copy;
  va_copy(copy, ap);
  const int message = vsnprintf(line + used, sizeof line - used, format, copy);
  va_end(copy);
  if (message > 0) used += message;
  // Cut at the buffer (long lines are truncated, as RocksDB's are), then
  // end with exactly one newline.
  if (used > static_cast<int>(sizeof line) - 1) used = sizeof line - 1;
  if (used == 0 || line[used - 1] != '\n') line[used++] = '\n';
  std::lock_guard<std::mutex> lock(mu_);
  if (!Ready(static_cast<size_t>(used))) {
    dropped_lines_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const ssize_t written = write(fd_, line, static_cast<size_t>(used));
  if (written > 0) size_ += static_cast<uint64_t>(written);
  if (written != used) dropped_lines_.fetch_add(1, std::memory_order_relaxed);  // full: dropped
}

size_t StoreInfoLog::GetLogFileSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<size_t>(size_);
}

}  // namespace zcrawl::frontier
