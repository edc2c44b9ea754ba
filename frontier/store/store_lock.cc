#include "frontier/store/store_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <mutex>

namespace zcrawl::frontier {
namespace {

std::mutex registry_mutex;
std::map<std::string, int>& Registry() {  // path -> open stores
  static std::map<std::string, int> open;
  return open;
}

// Another process holds a write lock on some byte of `file`.
bool LockedByAnotherProcess(const std::string& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // no LOCK file: no database, nobody holds it
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = 0;
  probe.l_len = 0;  // the whole file
  const bool held = ::fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

}  // namespace

bool StoreHeld(const std::string& db_path) {
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (Registry().contains(db_path)) return true;
  }
  return LockedByAnotherProcess(db_path + "/LOCK");
}

void NoteStoreOpen(const std::string& db_path) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  ++Registry()[db_path];
}

void NoteStoreClosed(const std::string& db_path) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = Registry().find(db_path);
  if (it != Registry().end() && --it->second == 0) Registry().erase(it);
}

}  // namespace zcrawl::frontier
