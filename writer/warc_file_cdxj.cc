#include "writer/warc_file_cdxj.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>
#include <vector>

#include "writer/file_io.h"
#include "writer/warc_index.h"

namespace zcrawl::writer {
namespace {

constexpr std::string_view kWarcGzSuffix = ".warc.gz";

struct FileLines {
  std::vector<std::string> lines;
  bool lacks_cdxj = false;  // a line from before CDXJ
};

Status WriteSorted(const std::string& path, std::vector<std::string>& lines) {
  std::sort(lines.begin(), lines.end());
  std::string text;
  size_t bytes = 0;
  for (const std::string& line : lines) bytes += line.size() + 1;
  text.reserve(bytes);
  for (const std::string& line : lines) {
    text += line;
    text += '\n';
  }
  const std::string temp = path + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create", temp, errno);
  Status s = WriteAll(fd, text, temp);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus("fsync", temp, errno);
  ::close(fd);
  if (s.ok() && std::rename(temp.c_str(), path.c_str()) != 0) s = ErrnoStatus("rename", temp, errno);
  if (!s.ok()) ::unlink(temp.c_str());
  return s;
}

}  // namespace

std::string CdxjPathFor(const std::string& dir, const std::string& warc_name) {
  std::string_view stem = warc_name;
  if (stem.ends_with(kWarcGzSuffix)) stem.remove_suffix(kWarcGzSuffix.size());
  return (std::filesystem::path(dir) / (std::string(stem) + std::string(kCdxjSuffix))).string();
}

Status WriteWarcFileCdxj(const std::string& dir, const std::string& index_path, uint64_t from,
                         const std::set<std::string>* warc_names, CdxjFileCounts* counts) {
  std::map<std::string, FileLines> files;
  if (warc_names != nullptr) {
    for (const std::string& name : *warc_names) files[name];
  }
  std::map<std::string, bool> wanted;  // without a list: files met, and whether they need a CDXJ
  Status read = ForEachWarcIndexLine(index_path, dir, from, [&](const WarcIndexLine& line) {
    if (warc_names == nullptr) {
      auto [it, inserted] = wanted.try_emplace(line.file, false);
      if (inserted) it->second = !std::filesystem::exists(CdxjPathFor(dir, line.file));
      if (!it->second) return;
    } else if (!warc_names->contains(line.file)) {
      return;
    }
    FileLines& file = files[line.file];
    if (line.cdxj.empty()) {
      file.lacks_cdxj = true;
    } else {
      file.lines.push_back(line.cdxj);
    }
  });
  if (!read.ok()) return read;
  bool wrote = false;
  for (auto& [name, file] : files) {
    if (file.lacks_cdxj && file.lines.empty()) {
      if (counts != nullptr) ++counts->files_without_cdxj_lines;
      continue;
    }
    if (Status s = WriteSorted(CdxjPathFor(dir, name), file.lines); !s.ok()) return s;
    wrote = true;
    if (counts != nullptr) {
      ++counts->files_written;
      counts->lines_written += file.lines.size();
    }
  }
  return wrote ? FsyncDir(dir) : Status::Ok();
}

Status MergeCdxjFiles(const std::vector<std::string>& inputs, const std::string& output, uint64_t* lines) {
  *lines = 0;
  std::vector<std::ifstream> files;
  files.reserve(inputs.size());
  // Smallest line first; ties by input, so equal lines keep their order.
  using Head = std::pair<std::string, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  std::string line;
  for (const std::string& path : inputs) {
    files.emplace_back(path);
    if (!files.back()) return UnavailableError("cannot read " + path);
    if (std::getline(files.back(), line)) heads.emplace(line, files.size() - 1);
  }
  const std::string temp = output + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create", temp, errno);
  std::string buffer;
  Status s;
  while (s.ok() && !heads.empty()) {
    auto [text, from] = heads.top();
    heads.pop();
    buffer += text;
    buffer += '\n';
    ++*lines;
    if (std::getline(files[from], line)) heads.emplace(line, from);
    if (buffer.size() >= (1u << 20)) {
      s = WriteAll(fd, buffer, temp);
      buffer.clear();
    }
  }
  for (size_t i = 0; s.ok() && i < files.size(); ++i) {
    if (files[i].bad()) s = UnavailableError("read " + inputs[i]);
  }
  if (s.ok()) s = WriteAll(fd, buffer, temp);
  if (s.ok() && ::fsync(fd) != 0) s = ErrnoStatus("fsync", temp, errno);
  ::close(fd);
  if (s.ok() && std::rename(temp.c_str(), output.c_str()) != 0) s = ErrnoStatus("rename", temp, errno);
  if (!s.ok()) {
    ::unlink(temp.c_str());
    return s;
  }
  const std::string parent = std::filesystem::path(output).parent_path().string();
  return FsyncDir(parent.empty() ? "." : parent);
}

Status WriteCrawlIndex(const std::string& dir, const std::string& output, CrawlIndexCounts* counts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> sidecars;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().ends_with(kWarcIndexSuffix)) sidecars.push_back(it->path().string());
  }
  if (ec) return UnavailableError("cannot list " + dir + ": " + ec.message());
  for (const std::string& sidecar : sidecars) {
    if (Status s = WriteWarcFileCdxj(dir, sidecar, 0, nullptr, &counts->files); !s.ok()) return s;
  }
  std::vector<std::string> inputs;
  const fs::path output_path = fs::absolute(output);
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->path().filename().string().ends_with(kCdxjSuffix)) continue;
    if (fs::absolute(it->path()) == output_path) continue;  // an earlier merge
    inputs.push_back(it->path().string());
  }
  if (ec) return UnavailableError("cannot list " + dir + ": " + ec.message());
  std::sort(inputs.begin(), inputs.end());
  counts->inputs = inputs.size();
  return MergeCdxjFiles(inputs, output, &counts->lines);
}

}  // namespace zcrawl::writer
