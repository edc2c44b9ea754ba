#include "writer/jsonl_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

namespace zcrawl::writer {

Status ForEachJsonlKey(const std::string& path, const std::function<void(const std::string&)>& visit) {
  std::ifstream in(path);
  if (!in) return Status::Ok();
  std::string line;
  while (std::getline(in, line)) {
    auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded() || !json.is_object()) continue;
    auto it = json.find("key");  // present when it is not the URL
    if (it == json.end()) it = json.find("url");
    if (it != json.end() && it->is_string()) visit(it->get<std::string>());
  }
  return Status::Ok();
}

Status TruncateTornLine(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? Status::Ok() : UnavailableError("open " + path + ": " + std::strerror(errno));
  struct stat st {};
  fstat(fd, &st);
  off_t end = st.st_size;
  // Walk back from the end to the last newline, in small reads.
  char buf[4096];
  off_t keep = 0;
  while (end > 0) {
    const off_t start = end > static_cast<off_t>(sizeof buf) ? end - static_cast<off_t>(sizeof buf) : 0;
    const ssize_t n = pread(fd, buf, static_cast<size_t>(end - start), start);
    if (n <= 0) break;
    bool found = false;
    for (ssize_t i = n - 1; i >= 0; --i) {
      if (buf[i] == '\n') {
        keep = start + i + 1;
        found = true;
        break;
      }
    }
    if (found) break;
    end = start;
  }
  Status result = Status::Ok();
  if (keep != st.st_size) {
    if (ftruncate(fd, keep) != 0 || fsync(fd) != 0) {
      result = UnavailableError("truncate " + path + ": " + std::strerror(errno));
    }
  }
  close(fd);
  return result;
}

}  // namespace zcrawl::writer
