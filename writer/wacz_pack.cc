#include "writer/wacz_pack.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>
#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

#include "common/encoding.h"
#include "common/json_writer.h"
#include "warc/cdxj.h"
#include "writer/file_io.h"
#include "writer/warc_file_cdxj.h"
#include "writer/warc_index.h"
#include "writer/warc_recovery.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

struct PageEntry {
  std::string url;
  std::string ts;
  std::string title;
};

// A file in the WACZ: its path there, the file here, and its fixity.
struct Resource {
  Resource(std::string zip, std::string local) : zip_path(std::move(zip)), local_path(std::move(local)) {}
  std::string zip_path;
  std::string local_path;
  uint64_t bytes = 0;
  std::string sha256;  // hex
};

Status HashFile(Resource& resource) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return InternalError("sha256: no context");
  const int fd = ::open(resource.local_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", resource.local_path, errno);
  std::vector<char> buffer(1 << 20);
  resource.bytes = 0;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoStatus("read", resource.local_path, err);
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n));
    resource.bytes += static_cast<uint64_t>(n);
  }
  ::close(fd);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &md_len) != 1) return InternalError("sha256 failed");
  static constexpr char kHex[] = "0123456789abcdef";
  resource.sha256.clear();
  for (unsigned int i = 0; i < md_len; ++i) {
    resource.sha256 += kHex[md[i] >> 4];
    resource.sha256 += kHex[md[i] & 15];
  }
  return Status::Ok();
}

Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return out ? Status::Ok() : UnavailableError("cannot write " + path);
}

std::string PagesJsonl(const std::vector<PageEntry>& pages, std::string_view id, std::string_view title) {
  std::string text = JsonWriter()
                         .BeginObject()
                         .Key("format")
                         .String("json-pages-1.0")
                         .Key("id")
                         .String(id)
                         .Key("title")
                         .String(title)
                         .EndObject()
                         .Take();
  text += '\n';
  uint64_t id_number = 0;
  for (const PageEntry& page : pages) {
    JsonWriter line;
    line.BeginObject().Key("id").String(std::string(id) + "-" + std::to_string(++id_number));
    line.Key("url").String(page.url).Key("ts").String(page.ts);
    if (!page.title.empty()) line.Key("title").String(page.title);
    text += line.EndObject().Take();
    text += '\n';
  }
  return text;
}

// The seeds' pages and the other HTML pages, from every sidecar index in
// `dir`, each URL once (the first stored).
Status CollectPages(const std::string& dir, std::vector<PageEntry>* pages, std::vector<PageEntry>* extra) {
  std::vector<std::string> sidecars;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().ends_with(kWarcIndexSuffix)) sidecars.push_back(entry.path().string());
  }
  std::sort(sidecars.begin(), sidecars.end());
  std::set<std::string> seen;
  for (const std::string& sidecar : sidecars) {
    Status s = ForEachWarcIndexLine(sidecar, dir, 0, [&](const WarcIndexLine& line) {
      if (line.cdxj.empty()) return;
      const size_t brace = line.cdxj.find('{');
      const size_t space = line.cdxj.find(' ');
      if (brace == std::string::npos || space == std::string::npos) return;
      const auto json = nlohmann::json::parse(line.cdxj.substr(brace), nullptr, /*allow_exceptions=*/false);
      if (json.is_discarded() || !json.is_object() || !json.contains("url") || !json["url"].is_string()) return;
      const std::optional<std::string> ts = IsoTimeOfCdxjTimestamp(std::string_view(line.cdxj).substr(space + 1));
      if (!ts) return;
      PageEntry page{json["url"].get<std::string>(), *ts, line.title};
      if (!seen.insert(page.url).second) return;
      const std::string mime = json.value("mime", "");
      const std::string status = json.value("status", "");
      const bool html_ok = (mime == "text/html" || mime == "application/xhtml+xml") && status.size() == 3 &&
                           status[0] == '2';
      if (line.depth == 0) {
        pages->push_back(std::move(page));
      } else if (html_ok) {
        extra->push_back(std::move(page));
      }
    });
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status WriteZip(const std::string& output, const std::vector<Resource>& resources) {
  int error = 0;
  zip_t* zip = zip_open(output.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
  if (zip == nullptr) {
    zip_error_t ze;
    zip_error_init_with_code(&ze, error);
    Status s = UnavailableError("cannot create " + output + ": " + zip_error_strerror(&ze));
    zip_error_fini(&ze);
    return s;
  }
  for (const Resource& resource : resources) {
    zip_source_t* source = zip_source_file(zip, resource.local_path.c_str(), 0, -1);
    zip_int64_t index = source == nullptr ? -1 : zip_file_add(zip, resource.zip_path.c_str(), source, ZIP_FL_ENC_UTF_8);
    if (index < 0) {
      if (source != nullptr) zip_source_free(source);
      Status s = UnavailableError("cannot add " + resource.local_path + " to " + output + ": " + zip_strerror(zip));
      zip_discard(zip);
      return s;
    }
    if (zip_set_file_compression(zip, static_cast<zip_uint64_t>(index), ZIP_CM_STORE, 0) != 0) {
      Status s = UnavailableError("cannot store " + resource.zip_path + ": " + zip_strerror(zip));
      zip_discard(zip);
      return s;
    }
  }
  // libzip writes to a temporary file and renames it over `output`.
  if (zip_close(zip) != 0) {
    Status s = UnavailableError("cannot write " + output + ": " + zip_strerror(zip));
    zip_discard(zip);
    return s;
  }
  const int fd = ::open(output.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("open", output, errno);
  const bool synced = ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!synced) return ErrnoStatus("fsync", output, err);
  const std::string parent = fs::path(output).parent_path().string();
  return FsyncDir(parent.empty() ? "." : parent);
}

}  // namespace

Status PackWacz(const std::string& dir, const std::string& output, WaczCounts* counts) {
  *counts = WaczCounts();
  // A writer that died and was never restarted may have left pages no index
  // line acknowledges; the package holds each page once, as the writer's
  // own recovery would leave the files (warc_recovery.h).
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(kWarcIndexSuffix)) continue;
    const std::string prefix = name.substr(0, name.size() - kWarcIndexSuffix.size());
    WarcRecoveryCounts cut;
    if (Status s = CutWarcFilesToIndex(dir, prefix, entry.path().string(), 0, nullptr, &cut); !s.ok()) return s;
    counts->unacknowledged_cut += cut.files_cut + cut.files_set_aside;
  }
  CrawlIndexCounts index_counts;
  const std::string index_path = (fs::path(dir) / "index.cdxj").string();
  if (Status s = WriteCrawlIndex(dir, index_path, &index_counts); !s.ok()) return s;
  counts->index_lines = index_counts.lines;

  std::vector<PageEntry> pages;
  std::vector<PageEntry> extra;
  if (Status s = CollectPages(dir, &pages, &extra); !s.ok()) return s;
  counts->pages = pages.size();
  counts->extra_pages = extra.size();

  // The page lists and the manifests are made in a work folder beside.
  const std::string work = (fs::path(dir) / ".zcrawl-wacz").string();
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work, ec);
  if (ec) return UnavailableError("cannot create " + work + ": " + ec.message());
  std::vector<Resource> resources;
  const std::string pages_path = work + "/pages.jsonl";
  const std::string extra_path = work + "/extraPages.jsonl";
  if (Status s = WriteText(pages_path, PagesJsonl(pages, "pages", "Seeds")); !s.ok()) return s;
  if (Status s = WriteText(extra_path, PagesJsonl(extra, "extra-pages", "Crawled pages")); !s.ok()) return s;
  std::vector<std::string> warcs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().ends_with(".warc.gz")) warcs.push_back(entry.path().filename().string());
  }
  std::sort(warcs.begin(), warcs.end());
  counts->warc_files = warcs.size();
  for (const std::string& name : warcs) resources.emplace_back("archive/" + name, dir + "/" + name);
  resources.emplace_back("indexes/index.cdx", index_path);
  resources.emplace_back("pages/pages.jsonl", pages_path);
  resources.emplace_back("pages/extraPages.jsonl", extra_path);
  for (Resource& resource : resources) {
    if (Status s = HashFile(resource); !s.ok()) return s;
  }

  const std::string now = FormatRfc3339Millis(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                  std::chrono::system_clock::now().time_since_epoch())
                                                  .count());
  JsonWriter package;
  package.BeginObject().Key("profile").String("data-package").Key("wacz_version").String("1.1.1").Key("title").String("zcrawl crawl of " + dir);
  package.Key("created").String(now).Key("modified").String(now).Key("software").String("zcrawl");
  if (!pages.empty()) {
    package.Key("home").BeginObject().Key("url").String(pages.front().url).Key("ts").String(pages.front().ts);
    package.EndObject();
  }
  package.Key("resources").BeginArray();
  for (const Resource& resource : resources) {
    package.BeginObject().Key("name").String(fs::path(resource.zip_path).filename().string());
    package.Key("path").String(resource.zip_path).Key("hash").String("sha256:" + resource.sha256);
    package.Key("bytes").Uint(resource.bytes).EndObject();
  }
  package.EndArray().EndObject();
  Resource manifest("datapackage.json", work + "/datapackage.json");
  if (Status s = WriteText(manifest.local_path, package.Take()); !s.ok()) return s;
  if (Status s = HashFile(manifest); !s.ok()) return s;
  Resource digest("datapackage-digest.json", work + "/datapackage-digest.json");
  const std::string digest_text = JsonWriter()
                                      .BeginObject()
                                      .Key("path")
                                      .String("datapackage.json")
                                      .Key("hash")
                                      .String("sha256:" + manifest.sha256)
                                      .EndObject()
                                      .Take();
  if (Status s = WriteText(digest.local_path, digest_text); !s.ok()) return s;
  resources.push_back(manifest);
  resources.push_back(digest);

  Status written = WriteZip(output, resources);
  fs::remove_all(work, ec);
  if (!written.ok()) return written;
  counts->bytes = static_cast<uint64_t>(fs::file_size(output, ec));
  return Status::Ok();
}

}  // namespace zcrawl::writer
