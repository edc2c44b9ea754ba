#include "writer/files_window_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "writer/file_io.h"

namespace zcrawl::writer {
namespace {

// The "file" of an index line; empty when it has none.
std::string FileOf(const std::string& line) {
  static constexpr std::string_view kKey = "\"file\":\"";
  const size_t at = line.find(kKey);
  if (at == std::string::npos) return {};
  const size_t start = at + kKey.size();
  const size_t end = line.find('"', start);
  if (end == std::string::npos) return {};
  std::string file = line.substr(start, end - start);
  if (file.find('\\') == std::string::npos) return file;
  // Escapes (a name we did not sanitise, from an older build): parse it.
  const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  const auto value = json.is_object() ? json.find("file") : json.end();
  return json.is_object() && value != json.end() && value->is_string() ? value->get<std::string>() : std::string();
}

// Of `names`, those that no line of the index names; one pass, memory of
// the window only.
std::set<std::string> NotIndexed(std::set<std::string> names, const std::string& index_path) {
  std::ifstream in(index_path);
  for (std::string line; in && !names.empty() && std::getline(in, line);) {
    if (const std::string file = FileOf(line); !file.empty()) names.erase(file);
  }
  return names;
}

}  // namespace

FilesWindowJournal::~FilesWindowJournal() { Close(); }

Status FilesWindowJournal::Open(const std::string& out_dir, const std::string& path, const std::string& index_path,
                                uint64_t* removed) {
  *removed = 0;
  path_ = path;
  std::ifstream in(path, std::ios::binary);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  std::set<std::string> named;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    // A torn last line (no newline) named no file: it was written first.
    const std::string relative = text.substr(start, end - start);
    if (!relative.empty() && relative.find("..") == std::string::npos) named.insert(relative);
  }
  // Any index line naming a file keeps it: one of this window's pages
  // whose line reached the index is stored (the writer lists it so), and a
  // name whose create failed because an earlier page holds it names that
  // page's file.
  for (const std::string& relative : NotIndexed(std::move(named), index_path)) {
    if (::unlink((out_dir + "/" + relative).c_str()) == 0) ++*removed;
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) return ErrnoStatus("open", path, errno);
  window_open_ = false;
  return Status::Ok();
}

Status FilesWindowJournal::Record(std::string_view relative) {
  std::string line(relative);
  line += '\n';
  if (Status s = WriteAll(fd_, line, path_); !s.ok()) return s;
  window_open_ = true;
  return Status::Ok();
}

Status FilesWindowJournal::Clear() {
  if (!window_open_) return Status::Ok();
  if (::ftruncate(fd_, 0) != 0) return ErrnoStatus("truncate", path_, errno);
  window_open_ = false;
  return Status::Ok();
}

void FilesWindowJournal::Close() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

}  // namespace zcrawl::writer
