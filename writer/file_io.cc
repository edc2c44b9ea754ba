#include "writer/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

namespace zcrawl::writer {

std::string ErrnoMessage(std::string_view what, const std::string& path, int err) {
  return std::string(what) + " " + path + ": " + std::strerror(err);
}

Status ErrnoStatus(std::string_view what, const std::string& path, int err) {
  std::string message = ErrnoMessage(what, path, err);
  switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
      return PermissionDeniedError(std::move(message));
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
      return ResourceExhaustedError(std::move(message));
    default:
      return UnavailableError(std::move(message));
  }
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

Status CreateFolderDurably(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool created = fs::create_directories(dir, ec);
  if (ec) return ErrnoStatus("create folder", dir, ec.value());
  if (!created) return Status::Ok();
  fs::path absolute = fs::absolute(dir, ec);
  if (ec) return ErrnoStatus("create folder", dir, ec.value());
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "a/b/"
  return FsyncDir(absolute.parent_path().string());
}

Status FsyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open folder", dir, errno);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return ErrnoStatus("fsync folder", dir, err);
  return Status::Ok();
}

}  // namespace zcrawl::writer
