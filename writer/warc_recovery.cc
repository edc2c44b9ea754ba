#include "writer/warc_recovery.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <utility>
#include <vector>

#include "writer/file_io.h"
#include "writer/warc_file_name.h"
#include "writer/warc_index.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

Status TruncateDurably(const std::string& path, uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", path, errno);
  Status s;
  if (::ftruncate(fd, static_cast<off_t>(size)) != 0) {
    s = ErrnoStatus("truncate", path, errno);
  } else if (::fsync(fd) != 0) {
    s = ErrnoStatus("fsync", path, errno);
  }
  ::close(fd);
  return s;
}

}  // namespace

Status CutWarcFilesToIndex(const std::string& dir, std::string_view prefix, const std::string& index_path,
                           uint64_t from, const std::set<std::string>* only, WarcRecoveryCounts* counts) {
  // The acknowledged end of each file: the furthest byte a durable index
  // line names (ForEachWarcIndexLine keeps only lines within their file).
  std::map<std::string, uint64_t> acknowledged_end;
  Status read = ForEachWarcIndexLine(index_path, dir, from, [&](const WarcIndexLine& line) {
    if (only != nullptr && !only->contains(line.file)) return;
    uint64_t& end = acknowledged_end[line.file];
    end = std::max(end, line.offset + line.length);
  });
  if (!read.ok()) return read;

  std::vector<std::string> names;
  if (only != nullptr) {
    names.assign(only->begin(), only->end());
  } else {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      uint64_t serial = 0;
      std::string name = it->path().filename().string();
      if (ParseWarcFileSerial(name, prefix, serial)) names.push_back(std::move(name));
    }
    if (ec) return ErrnoStatus("list folder", dir, ec.value());
  }

  bool renamed = false;
  for (const std::string& name : names) {
    const std::string path = (fs::path(dir) / name).string();
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (ec) continue;  // gone already (a window's file removed by its sink)
    const auto known = acknowledged_end.find(name);
    if (known == acknowledged_end.end()) {
      if (::rename(path.c_str(), (path + std::string(kUnacknowledgedSuffix)).c_str()) != 0) {
        return ErrnoStatus("rename", path, errno);
      }
      renamed = true;
      ++counts->files_set_aside;
    } else if (size > known->second) {
      if (Status s = TruncateDurably(path, known->second); !s.ok()) return s;
      ++counts->files_cut;
      counts->bytes_cut += size - known->second;
    }
  }
  return renamed ? FsyncDir(dir) : Status::Ok();
}

}  // namespace zcrawl::writer
