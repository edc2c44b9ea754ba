#include "writer/files_sink.h"

#include "writer/page_validators.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "common/ascii.h"
#include "common/json_writer.h"
#include "common/url.h"
#include "writer/durable_file.h"
#include "writer/file_io.h"
#include "writer/files_window_journal.h"
#include "writer/jsonl_keys.h"

namespace zcrawl::writer {
namespace {

constexpr size_t kMaxSegmentBytes = 200;

// Stable 64-bit FNV-1a, for fallback names that must not change between runs.
uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string Hex64(uint64_t v) {
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool SafeChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::strchr("-._~%+=,@!()", c) != nullptr;
}

std::string SanitizeSegment(std::string_view segment) {
  if (segment.empty() || segment == "." || segment == "..") return "_";
  std::string out;
  out.reserve(segment.size());
  for (unsigned char c : segment) out.push_back(SafeChar(c) && c != 0 ? static_cast<char>(c) : '_');
  if (out.size() > kMaxSegmentBytes) {
    out = out.substr(0, kMaxSegmentBytes - 17) + "_" + Hex64(Fnv1a(segment));
  }
  if (out == "." || out == "..") out = "_";
  return out;
}

// mkdir -p below `root`; false if some component exists as a non-directory.
bool MakeDirs(const std::string& root, const std::string& relative_dir) {
  std::string path = root;
  size_t start = 0;
  while (start < relative_dir.size()) {
    size_t end = relative_dir.find('/', start);
    if (end == std::string::npos) end = relative_dir.size();
    path += "/";
    path.append(relative_dir, start, end - start);
    if (mkdir(path.c_str(), 0755) != 0) {
      if (errno != EEXIST) return false;
      struct stat st {};
      if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    }
    start = end + 1;
  }
  return true;
}

// Where a redirect answer (3xx but 304) points; empty for any other page.
std::string_view RedirectLocation(const v1::Page& page) {
  if (page.http_status() < 300 || page.http_status() >= 400 || page.http_status() == 304) return {};
  for (const v1::Header& header : page.headers()) {
    if (EqualsIgnoreCaseAscii(header.name(), "location")) return header.value();
  }
  return {};
}

}  // namespace

std::string FilesSinkPathFor(std::string_view url_text, std::string_view content_type) {
  auto url = Url::Parse(url_text);
  if (!url.ok()) return "_/" + Hex64(Fnv1a(url_text));
  std::string path = SanitizeSegment(url->hostname());
  if (!url->port().empty()) path += "_" + std::string(url->port());
  std::string_view pathname = url->pathname();
  std::string last;
  size_t start = pathname.starts_with('/') ? 1 : 0;
  while (true) {
    const size_t slash = pathname.find('/', start);
    if (slash == std::string_view::npos) {
      last = std::string(pathname.substr(start));
      break;
    }
    path += "/" + SanitizeSegment(pathname.substr(start, slash - start));
    start = slash + 1;
  }
  std::string file = last.empty() ? "index.html" : SanitizeSegment(last);
  if (!url->search().empty()) {
    // Query variants of one path get distinct, stable names.
    file += "_q" + Hex64(Fnv1a(url->search())).substr(0, 12);
    if (content_type == "text/html") file += ".html";
  }
  return path + "/" + file;
}

FilesSink::FilesSink(const SinkOptions& options) : options_(options) {}

FilesSink::~FilesSink() { Close().IgnoreError(); }

Status FilesSink::Open() {
  if (Status s = CreateFolderDurably(options_.out_dir); !s.ok()) return s;
  const std::string index = options_.out_dir + "/index.jsonl";
  if (Status s = index_.Open(index, DurableFile::Tail::kCutTornLine); !s.ok()) return s;
  // Page files of a window an earlier run never made durable (it was
  // killed before its index lines were): gone, so no page is here twice.
  uint64_t removed = 0;
  const std::string journal_dir = options_.out_dir + "/" + std::string(kFilesWindowJournalDir);
  if (Status s = CreateFolderDurably(journal_dir); !s.ok()) return s;
  if (Status s = journal_.Open(options_.out_dir, journal_dir + "/" + std::string(kFilesWindowJournalName), index,
                               &removed);
      !s.ok()) {
    return s;
  }
  if (removed > 0) {
    spdlog::warn("files: removed {} page file(s) an earlier run wrote but never acknowledged; their pages come again",
                 removed);
  }
  unacknowledged_removed_ += removed;
  return Status::Ok();
}

Result<std::string> FilesSink::StoreBody(const v1::Page& page, const std::string& body) {
  std::string relative = FilesSinkPathFor(page.url(), page.content_type());
  for (int attempt = 0; attempt < 2; ++attempt) {
    const size_t slash = relative.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : relative.substr(0, slash);
    if (EnsureDir(dir)) {
      const std::string full = options_.out_dir + "/" + relative;
      // Named before it exists, so a kill cannot leave it unnamed.
      if (Status s = journal_.Record(relative); !s.ok()) return s;
      int fd = open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      if (fd < 0 && errno == ENOENT) {
        // Someone removed a folder we had made: make it again.
        known_dirs_.erase(dir);
        if (EnsureDir(dir)) fd = open(full.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      }
      if (fd >= 0) {
        Status s = WriteAll(fd, body, full);
        close(fd);
        if (!s.ok()) {
          unlink(full.c_str());  // no half-written page stays behind
          return s;
        }
        window_files_.push_back(full);
        return relative;
      }
      if (errno != EEXIST && errno != EISDIR && errno != ENOTDIR) {
        return ErrnoStatus("cannot create", full, errno);
      }
    }
    // Taken by another URL, or a file/directory clash: use the flat name.
    const uint64_t digest = Fnv1a(page.url());
    relative = "_/" + Hex64(digest) + "-" + Hex64(Fnv1a(page.page_id())).substr(0, 8);
  }
  return UnavailableError("no free file name for " + page.url());
}

bool FilesSink::EnsureDir(const std::string& dir) {
  if (known_dirs_.count(dir)) return true;
  if (!MakeDirs(options_.out_dir, dir)) return false;
  // Bounded: a crawl of millions of folders re-checks some, nothing worse.
  if (known_dirs_.size() >= kMaxKnownDirs) known_dirs_.clear();
  known_dirs_.insert(dir);
  return true;
}

Status FilesSink::Append(const v1::Page& page, PagePayload&& payload) {
  if (!index_.is_open()) return InternalError("files sink not open");
  // A recrawl's "not modified": no file; the line says the earlier
  // capture stands. A redirect: no file either (its target is a URL of its
  // own); the line names where it points. Stored at its path, /dir's 301
  // would take the name the folder of /dir/index.html needs.
  const bool unchanged = IsNotModifiedAnswer(page);
  const std::string_view location = RedirectLocation(page);
  Result<std::string> file =
      unchanged || !location.empty() ? Result<std::string>(std::string()) : StoreBody(page, payload.body);
  if (!file.ok()) return file.status();
  const PageValidators validators = PageValidatorsOf(page);
  JsonWriter json;
  json.BeginObject()
      .Key("url").String(page.url())
      .Key("final_url").String(page.final_url())
      .Key("status").Uint(page.http_status())
      .Key("content_type").String(page.content_type())
      .Key("bytes").Uint(payload.body.size())
      .Key("depth").Uint(page.depth())
      .Key("fetched_at_ms").Int(page.fetched_at_ms())
      .Key("file").String(*file);
  if (!location.empty()) json.Key("location").String(location);
  // A continuous crawl's later rounds of a URL: the key the writer knows
  // them by on a restart (jsonl_keys.h).
  if (!page.dedup_key().empty() && page.dedup_key() != page.url()) json.Key("key").String(page.dedup_key());
  if (!validators.etag.empty()) json.Key("etag").String(validators.etag);
  if (!validators.last_modified.empty()) json.Key("last_modified").String(validators.last_modified);
  if (unchanged) {
    json.Key("unchanged").Bool(true);
    json.Key("previous_fetched_at_ms").Int(page.not_modified_since().fetched_at_ms());
  }
  json.EndObject();
  index_buffer_ += json.str();
  index_buffer_ += '\n';
  return Status::Ok();
}

Status FilesSink::Flush() {
  if (!index_.is_open()) return InternalError("files sink not open");
  if (!index_buffer_.empty()) {
    if (Status s = index_.Append(index_buffer_); !s.ok()) {
      RollBackWindow();
      return s;
    }
  }
  // One syncfs makes every page file, directory entry and the index durable
  // at once: far cheaper than an fsync per file.
  if (syncfs(index_.fd()) != 0) {
    Status s = ErrnoStatus("syncfs", options_.out_dir, errno);
    RollBackWindow();
    return s;
  }
  index_.MarkDurable(index_.size());
  index_buffer_.clear();
  window_files_.clear();
  // The window is acknowledged; a journal not emptied only makes the next
  // Open look at files the index names, and keep them.
  if (Status s = journal_.Clear(); !s.ok()) spdlog::warn("files: {}", s.message());
  return Status::Ok();
}

void FilesSink::RollBackWindow() {
  for (const std::string& file : window_files_) unlink(file.c_str());
  window_files_.clear();
  if (Status s = journal_.Clear(); !s.ok()) spdlog::warn("files: {}", s.message());
  index_buffer_.clear();
  if (Status s = index_.CutToDurable(); !s.ok()) {
    // Rare (EIO): the index may now list pages of the failed window whose
    // files are gone; the next Open cuts only a torn last line.
    spdlog::error("cannot cut index.jsonl back to {} bytes: {}", index_.durable_size(), s.message());
    const std::string path = index_.path();
    if (Status reopened = index_.Open(path, DurableFile::Tail::kCutTornLine); !reopened.ok()) {
      spdlog::error("cannot reopen {}: {}", path, reopened.message());
    }
  }
}

Status FilesSink::ForEachStoredKey(const std::function<void(const std::string&)>& visit) {
  return ForEachJsonlKey(options_.out_dir + "/index.jsonl", visit);
}

Status FilesSink::Close() {
  if (!index_.is_open()) return Status::Ok();
  Status s = Flush();
  index_.Close();
  journal_.Close();
  return s;
}

}  // namespace zcrawl::writer
