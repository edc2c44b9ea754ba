#include "writer/jsonl_sink.h"

#include "writer/jsonl_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "writer/file_io.h"
#include "writer/page_json.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

constexpr size_t kTailScanChunk = 64 * 1024;

// Size of the file without a last line that lacks its '\n'.
Result<uint64_t> SizeWithoutTornLine(int fd, uint64_t size, const std::string& path) {
  std::string chunk;
  uint64_t end = size;
  while (end > 0) {
    const uint64_t begin = end > kTailScanChunk ? end - kTailScanChunk : 0;
    chunk.resize(end - begin);
    size_t got = 0;
    while (got < chunk.size()) {
      const ssize_t n = ::pread(fd, chunk.data() + got, chunk.size() - got,
                                static_cast<off_t>(begin + got));
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

}  // namespace

JsonlSink::JsonlSink(SinkOptions options)
    : options_(std::move(options)),
      path_((fs::path(options_.out_dir) / kJsonlFileName).string()) {}

JsonlSink::~JsonlSink() { Close().IgnoreError(); }

Status JsonlSink::Open() {
  if (open_) return Status::Ok();
  if (Status s = CreateFolderDurably(options_.out_dir); !s.ok()) return s;
  Status s = OpenFile();
  if (!s.ok()) return s;
  buffer_.reserve(kJsonlWriteChunkBytes + (kJsonlWriteChunkBytes >> 2));
  open_ = true;
  return Status::Ok();
}

Status JsonlSink::OpenFile() {
  int fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    fd = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) dir_sync_needed_ = true;
  }
  if (fd < 0) return ErrnoStatus("open", path_, errno);

  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoStatus("stat", path_, err);
  }
  auto size = static_cast<uint64_t>(st.st_size);
  Result<uint64_t> whole = SizeWithoutTornLine(fd, size, path_);
  if (!whole.ok()) {
    ::close(fd);
    return whole.status();
  }
  if (*whole != size) {
    if (::ftruncate(fd, static_cast<off_t>(*whole)) != 0 || ::fsync(fd) != 0) {
      const int err = errno;
      ::close(fd);
      return ErrnoStatus("cut torn line of", path_, err);
    }
    size = *whole;
  }
  fd_ = fd;
  file_bytes_ = size;
  synced_bytes_ = size;
  return Status::Ok();
}

Status JsonlSink::Append(const v1::Page& page, PagePayload&& payload) {
  if (!open_) return InternalError("JsonlSink::Write called while not open");
  if (fd_ < 0) {
    Status s = OpenFile();
    if (!s.ok()) return s;
  }
  buffer_ += PageJson(page, options_.jsonl_body ? &payload.body : nullptr);
  buffer_.push_back('\n');
  if (buffer_.size() >= kJsonlWriteChunkBytes) {
    Status s = WriteBuffer();
    if (!s.ok()) {
      AbandonWrites();
      return s;
    }
  }
  return Status::Ok();
}

Status JsonlSink::Flush() {
  if (!open_) return InternalError("JsonlSink::Flush called while not open");
  if (fd_ >= 0) {
    Status s = WriteBuffer();
    if (s.ok() && ::fsync(fd_) != 0) s = ErrnoStatus("fsync", path_, errno);
    if (!s.ok()) {
      AbandonWrites();
      return s;
    }
    synced_bytes_ = file_bytes_;
  }
  if (dir_sync_needed_) {
    Status s = FsyncDir(options_.out_dir);
    if (!s.ok()) return s;
    dir_sync_needed_ = false;
  }
  return Status::Ok();
}

Status JsonlSink::ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
  return ForEachJsonlKey(path_, visit);
}

Status JsonlSink::Close() {
  if (!open_) return Status::Ok();
  Status s = Flush();
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  open_ = false;
  return s;
}

Status JsonlSink::WriteBuffer() {
  Status s = WriteAll(fd_, buffer_, path_);
  if (!s.ok()) return s;  // the caller abandons the writes: file_bytes_ is moot
  file_bytes_ += buffer_.size();
  buffer_.clear();
  return Status::Ok();
}

void JsonlSink::AbandonWrites() {
  buffer_.clear();
  if (fd_ < 0) return;
  // Best effort: if this fails, OpenFile on the next Write cuts the torn
  // line instead.
  if (::ftruncate(fd_, static_cast<off_t>(synced_bytes_)) == 0) ::fsync(fd_);
  ::close(fd_);
  fd_ = -1;
}

}  // namespace zcrawl::writer
