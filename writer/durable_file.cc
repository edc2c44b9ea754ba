#include "writer/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "writer/file_io.h"

namespace zcrawl::writer {
namespace {

constexpr size_t kTailScanChunk = 64 * 1024;

// Size of the open file `fd` (`size` bytes) without a last line that lacks
// its '\n'; read backwards in chunks.
Result<uint64_t> SizeWithoutTornLine(int fd, uint64_t size, const std::string& path) {
  std::string chunk;
  uint64_t end = size;
  while (end > 0) {
    const uint64_t begin = end > kTailScanChunk ? end - kTailScanChunk : 0;
    chunk.resize(end - begin);
    size_t got = 0;
    while (got < chunk.size()) {
      const ssize_t n = ::pread(fd, chunk.data() + got, chunk.size() - got, static_cast<off_t>(begin + got));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return ErrnoStatus("read", path, n < 0 ? errno : EIO);
      got += static_cast<size_t>(n);
    }
    const size_t newline = chunk.rfind('\n');
    if (newline != std::string::npos) return begin + newline + 1;
    end = begin;
  }
  return uint64_t{0};
}

// Cuts the open file to `size` and fsyncs the cut.
Status Cut(int fd, uint64_t size, const std::string& path) {
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) return ErrnoStatus("truncate", path, errno);
  if (::fsync(fd) != 0) return ErrnoStatus("fsync", path, errno);
  return Status::Ok();
}

}  // namespace

DurableFile::~DurableFile() { Close(); }

Status DurableFile::Open(const std::string& path, Tail tail) {
  Close();
  path_ = path;
  created_ = false;
  fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd_ < 0 && errno == ENOENT) {
    fd_ = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created_ = fd_ >= 0;
  }
  if (fd_ < 0) return ErrnoStatus("open", path, errno);
  if (Status s = ReadSize(); !s.ok()) return s;
  if (tail == Tail::kCutTornLine && size_ > 0) {
    Result<uint64_t> whole = SizeWithoutTornLine(fd_, size_, path_);
    Status s = whole.ok() ? Status::Ok() : whole.status();
    if (s.ok() && *whole != size_) s = Cut(fd_, *whole, path_);
    if (!s.ok()) {
      Close();
      return s;
    }
    size_ = *whole;
  }
  durable_size_ = size_;
  return Status::Ok();
}

Result<bool> DurableFile::Create(const std::string& path) {
  Close();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) return false;
    return ErrnoStatus("create", path, errno);
  }
  fd_ = fd;
  path_ = path;
  created_ = true;
  size_ = 0;
  durable_size_ = 0;
  return true;
}

Status DurableFile::Append(std::string_view data) {
  if (fd_ < 0) return InternalError("append to " + path_ + ": not open");
  if (Status s = WriteAll(fd_, data, path_); !s.ok()) return s;  // the caller cuts back
  size_ += data.size();
  return Status::Ok();
}

Status DurableFile::Sync() {
  if (fd_ < 0) return InternalError("fsync " + path_ + ": not open");
  if (::fsync(fd_) != 0) return ErrnoStatus("fsync", path_, errno);
  durable_size_ = size_;
  return Status::Ok();
}

Status DurableFile::CutToDurable() {
  if (fd_ < 0) return Status::Ok();
  Status s = Cut(fd_, durable_size_, path_);
  if (!s.ok()) {
    Close();
    return s;
  }
  size_ = durable_size_;
  return Status::Ok();
}

void DurableFile::Remove() {
  if (path_.empty()) return;
  ::unlink(path_.c_str());
  Close();
}

void DurableFile::Close() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

Status DurableFile::ReadSize() {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    Close();
    return ErrnoStatus("stat", path_, err);
  }
  size_ = static_cast<uint64_t>(st.st_size);
  return Status::Ok();
}

Status CutTornLine(const std::string& path) {
  if (::access(path.c_str(), F_OK) != 0) return errno == ENOENT ? Status::Ok() : ErrnoStatus("open", path, errno);
  DurableFile file;
  return file.Open(path, DurableFile::Tail::kCutTornLine);
}

}  // namespace zcrawl::writer
