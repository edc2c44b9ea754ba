#include "writer/warc_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "common/encoding.h"
#include "writer/file_io.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kWarcSuffix = ".warc.gz";
constexpr int kMaxCreateAttempts = 10000;
constexpr char kWarcinfoBlock[] =
    "software: zcrawl\r\n"
    "format: WARC File Format 1.1\r\n"
    "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n";

// "PREFIX-YYYYmmddHHMMSS-NNNNN.warc.gz" -> NNNNN; false for other names.
bool ParseSerial(std::string_view name, std::string_view prefix, uint64_t& serial) {
  if (name.size() <= prefix.size() + 1 + kWarcSuffix.size() || !name.starts_with(prefix) ||
      name[prefix.size()] != '-' || !name.ends_with(kWarcSuffix)) {
    return false;
  }
  std::string_view rest = name.substr(prefix.size() + 1);
  rest.remove_suffix(kWarcSuffix.size());
  const size_t dash = rest.find('-');
  if (dash != 14 || rest.size() == 15) return false;
  const auto all_digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string_view stamp = rest.substr(0, 14);
  const std::string_view digits = rest.substr(15);
  if (!all_digits(stamp) || !all_digits(digits) || digits.size() > 18) return false;
  serial = std::stoull(std::string(digits));
  return true;
}

// "YYYYmmddHHMMSS" in UTC.
std::string FileStamp(int64_t ms) {
  std::string stamp;
  for (char c : FormatRfc3339Millis(ms)) {
    if (c >= '0' && c <= '9') stamp.push_back(c);
    if (stamp.size() == 14) break;
  }
  return stamp;
}

std::string SerialString(uint64_t serial) {
  std::string digits = std::to_string(serial);
  if (digits.size() < 5) digits.insert(0, 5 - digits.size(), '0');
  return digits;
}

std::string_view ReasonPhrase(uint32_t status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// RFC 9110 token characters: what a header name may contain.
bool IsHeaderName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7F) return false;
    if (std::strchr("\"(),/:;<=>?@[\\]{}", c) != nullptr) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

// Header values must not break the header block: CR, LF and NUL become
// spaces.
void AppendHeaderValue(std::string& out, std::string_view value) {
  for (char c : value) out.push_back(c == '\r' || c == '\n' || c == '\0' ? ' ' : c);
}

struct HostAndPath {
  std::string host;  // with ":port" when the URL has one
  std::string path;  // path and query, "/" at least
};

HostAndPath SplitUrl(std::string_view url) {
  HostAndPath parts;
  const size_t scheme_end = url.find("://");
  std::string_view rest = scheme_end == std::string_view::npos ? url : url.substr(scheme_end + 3);
  const size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) authority.remove_prefix(at + 1);
  parts.host = std::string(authority);
  std::string_view path =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  path = path.substr(0, path.find('#'));
  if (path.empty() || path.front() != '/') parts.path = "/";
  parts.path += path;
  return parts;
}

std::string RequestBlock(const v1::Page& page, std::string_view target) {
  if (!page.request_headers().empty()) {
    // As sent, with bare LF line ends made CRLF and the final blank line
    // added when missing.
    std::string block;
    block.reserve(page.request_headers().size() + 8);
    char previous = '\0';
    for (char c : page.request_headers()) {
      if (c == '\n' && previous != '\r') block.push_back('\r');
      block.push_back(c);
      previous = c;
    }
    if (!block.ends_with("\r\n\r\n")) {
      while (!block.empty() && (block.back() == '\r' || block.back() == '\n')) block.pop_back();
      block += "\r\n\r\n";
    }
    return block;
  }
  const HostAndPath parts = SplitUrl(target);
  std::string block = "GET ";
  AppendHeaderValue(block, parts.path);
  block += " HTTP/1.1\r\nHost: ";
  AppendHeaderValue(block, parts.host);
  block += "\r\n\r\n";
  return block;
}

std::string ResponseBlock(const v1::Page& page) {
  std::string block;
  block.reserve(page.body().size() + 64 * (page.headers_size() + 2));
  AppendHeaderValue(block, page.http_version().empty() ? "HTTP/1.1" : page.http_version());
  block += ' ';
  block += std::to_string(page.http_status());
  block += ' ';
  block += ReasonPhrase(page.http_status());
  block += "\r\n";
  for (const v1::Header& header : page.headers()) {
    std::string_view name = header.name();
    if (!IsHeaderName(name)) continue;  // includes HTTP/2 pseudo-headers
    if (EqualsIgnoreCase(name, "Content-Length") || EqualsIgnoreCase(name, "Transfer-Encoding")) {
      continue;
    }
    if (EqualsIgnoreCase(name, "Content-Encoding")) name = "X-Zcrawl-Orig-Content-Encoding";
    block += name;
    block += ": ";
    AppendHeaderValue(block, header.value());
    block += "\r\n";
  }
  block += "Content-Length: ";
  block += std::to_string(page.body().size());
  block += "\r\n\r\n";
  block += page.body();
  return block;
}

}  // namespace

WarcSink::WarcSink(SinkOptions options, int gzip_level, const Clock& clock)
    : options_(std::move(options)), gzip_(gzip_level), clock_(&clock) {}

WarcSink::~WarcSink() { Close().IgnoreError(); }

Status WarcSink::Open() {
  if (open_) return Status::Ok();
  std::error_code ec;
  const fs::path dir(options_.out_dir);
  const bool created = fs::create_directories(dir, ec);
  if (ec) return ErrnoStatus("create folder", options_.out_dir, ec.value());
  if (created) {
    // Make the new folder's own entry durable too.
    fs::path absolute = fs::absolute(dir, ec);
    if (!absolute.has_filename()) absolute = absolute.parent_path();  // "a/b/"
    if (!ec) {
      Status s = FsyncDir(absolute.parent_path().string());
      if (!s.ok()) return s;
    }
  }
  if (::access(options_.out_dir.c_str(), W_OK | X_OK) != 0) {
    return ErrnoStatus("access", options_.out_dir, errno);
  }
  uint64_t next = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    uint64_t serial = 0;
    if (ParseSerial(it->path().filename().string(), options_.warc_prefix, serial)) {
      next = std::max(next, serial + 1);
    }
  }
  if (ec) return ErrnoStatus("list folder", options_.out_dir, ec.value());
  next_serial_ = next;
  buffer_.reserve(kWarcWriteChunkBytes + (kWarcWriteChunkBytes >> 2));
  open_ = true;
  return Status::Ok();
}

Status WarcSink::Write(const v1::Page& page) {
  if (!open_) return InternalError("WarcSink::Write called while not open");
  page_bytes_.clear();
  Status s = AppendPageRecords(page, page_bytes_);
  if (!s.ok()) return s;

  if (fd_ >= 0 && pages_in_file_ > 0 &&
      file_bytes_ + page_bytes_.size() > options_.warc_max_bytes) {
    s = FinishFile();
    if (!s.ok()) {
      AbandonFile();
      return s;
    }
  }
  if (fd_ < 0) {
    s = StartFile();
    if (!s.ok()) return s;
  }
  buffer_ += page_bytes_;
  file_bytes_ += page_bytes_.size();
  ++pages_in_file_;
  if (buffer_.size() >= kWarcWriteChunkBytes) {
    s = WriteBuffer();
    if (!s.ok()) {
      AbandonFile();
      return s;
    }
  }
  return Status::Ok();
}

Status WarcSink::Flush() {
  if (!open_) return InternalError("WarcSink::Flush called while not open");
  if (fd_ >= 0) {
    Status s = WriteBuffer();
    if (s.ok() && ::fsync(fd_) != 0) s = ErrnoStatus("fsync", path_, errno);
    if (!s.ok()) {
      AbandonFile();
      return s;
    }
    synced_bytes_ = file_bytes_;
  }
  return SyncDirIfNeeded();
}

Status WarcSink::Close() {
  if (!open_) return Status::Ok();
  Status s = Status::Ok();
  if (fd_ >= 0) {
    s = FinishFile();
    if (!s.ok()) AbandonFile();
  }
  if (s.ok()) s = SyncDirIfNeeded();
  open_ = false;
  return s;
}

Status WarcSink::AppendCompressed(const WarcRecord& record, std::string& out) {
  record_bytes_.clear();
  AppendWarcRecord(record, record_bytes_);
  return gzip_.AppendMember(record_bytes_, out);
}

Status WarcSink::AppendPageRecords(const v1::Page& page, std::string& out) {
  const std::string& target = page.final_url().empty() ? page.url() : page.final_url();
  const std::string date = FormatWarcDate(page.fetched_at_ms() != 0 ? page.fetched_at_ms() : clock_->WallMs());

  Result<std::string> response_id = NewWarcRecordId();
  if (!response_id.ok()) return response_id.status();
  Result<std::string> request_id = NewWarcRecordId();
  if (!request_id.ok()) return request_id.status();

  // Response.
  WarcRecord response{"response", *response_id, date, {}, ResponseBlock(page)};
  Result<std::string> payload_digest = WarcSha1Digest(page.body());
  if (!payload_digest.ok()) return payload_digest.status();
  Result<std::string> block_digest = WarcSha1Digest(response.block);
  if (!block_digest.ok()) return block_digest.status();
  response.AddField("WARC-Target-URI", target);
  if (!page.ip_address().empty()) response.AddField("WARC-IP-Address", page.ip_address());
  response.AddField("WARC-Concurrent-To", *request_id);
  response.AddField("Content-Type", "application/http;msgtype=response");
  response.AddField("WARC-Payload-Digest", std::move(*payload_digest));
  response.AddField("WARC-Block-Digest", std::move(*block_digest));
  if (page.body_truncated()) response.AddField("WARC-Truncated", "length");
  Status s = AppendCompressed(response, out);
  if (!s.ok()) return s;

  // Request.
  WarcRecord request{"request", *request_id, date, {}, RequestBlock(page, target)};
  block_digest = WarcSha1Digest(request.block);
  if (!block_digest.ok()) return block_digest.status();
  request.AddField("WARC-Target-URI", target);
  if (!page.ip_address().empty()) request.AddField("WARC-IP-Address", page.ip_address());
  request.AddField("WARC-Concurrent-To", *response_id);
  request.AddField("Content-Type", "application/http;msgtype=request");
  request.AddField("WARC-Block-Digest", std::move(*block_digest));
  s = AppendCompressed(request, out);
  if (!s.ok()) return s;

  // Metadata: the outlinks.
  if (page.links_size() == 0) return Status::Ok();
  Result<std::string> metadata_id = NewWarcRecordId();
  if (!metadata_id.ok()) return metadata_id.status();
  WarcRecord metadata{"metadata", *metadata_id, date, {}, {}};
  for (const v1::Link& link : page.links()) {
    metadata.block += "outlink: ";
    AppendHeaderValue(metadata.block, link.url());
    metadata.block += "\r\n";
  }
  block_digest = WarcSha1Digest(metadata.block);
  if (!block_digest.ok()) return block_digest.status();
  metadata.AddField("WARC-Target-URI", target);
  metadata.AddField("WARC-Refers-To", *response_id);
  metadata.AddField("Content-Type", "application/warc-fields");
  metadata.AddField("WARC-Block-Digest", std::move(*block_digest));
  return AppendCompressed(metadata, out);
}

Status WarcSink::StartFile() {
  const int64_t now_ms = clock_->WallMs();
  const std::string stamp = FileStamp(now_ms);
  std::string name;
  std::string path;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    if (attempt == kMaxCreateAttempts) {
      return ResourceExhaustedError("no free WARC serial in " + options_.out_dir);
    }
    name = options_.warc_prefix + "-" + stamp + "-" + SerialString(next_serial_) +
           std::string(kWarcSuffix);
    path = (fs::path(options_.out_dir) / name).string();
    ++next_serial_;
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 && errno != EEXIST) return ErrnoStatus("create", path, errno);
  }
  fd_ = fd;
  path_ = std::move(path);
  file_bytes_ = 0;
  synced_bytes_ = 0;
  pages_in_file_ = 0;
  dir_sync_needed_ = true;

  Result<std::string> id = NewWarcRecordId();
  if (!id.ok()) {
    AbandonFile();
    return id.status();
  }
  std::string block = kWarcinfoBlock;
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) == 0 && host[0] != '\0') {
    block += "hostname: ";
    AppendHeaderValue(block, host);
    block += "\r\n";
  }
  WarcRecord info{"warcinfo", std::move(*id), FormatWarcDate(now_ms), {}, std::move(block)};
  Result<std::string> digest = WarcSha1Digest(info.block);
  if (!digest.ok()) {
    AbandonFile();
    return digest.status();
  }
  info.AddField("WARC-Filename", name);
  info.AddField("Content-Type", "application/warc-fields");
  info.AddField("WARC-Block-Digest", std::move(*digest));
  const size_t before = buffer_.size();
  Status s = AppendCompressed(info, buffer_);
  if (!s.ok()) {
    AbandonFile();
    return s;
  }
  file_bytes_ += buffer_.size() - before;
  return Status::Ok();
}

Status WarcSink::FinishFile() {
  Status s = WriteBuffer();
  if (s.ok() && ::fsync(fd_) != 0) s = ErrnoStatus("fsync", path_, errno);
  if (!s.ok()) return s;
  synced_bytes_ = file_bytes_;
  // The data is durable already, so a failing close cannot lose any.
  ::close(std::exchange(fd_, -1));
  path_.clear();
  return Status::Ok();
}

Status WarcSink::WriteBuffer() {
  if (buffer_.empty()) return Status::Ok();
  Status s = WriteAll(fd_, buffer_, path_);
  if (s.ok()) buffer_.clear();
  return s;
}

void WarcSink::AbandonFile() {
  buffer_.clear();
  if (fd_ < 0) return;
  if (synced_bytes_ == 0) {
    // Nothing in it was ever acknowledged: remove it.
    ::unlink(path_.c_str());
  } else if (::ftruncate(fd_, static_cast<off_t>(synced_bytes_)) == 0) {
    ::fsync(fd_);
  }
  ::close(fd_);
  fd_ = -1;
  path_.clear();
}

Status WarcSink::SyncDirIfNeeded() {
  if (!dir_sync_needed_) return Status::Ok();
  Status s = FsyncDir(options_.out_dir);
  if (s.ok()) dir_sync_needed_ = false;
  return s;
}

}  // namespace zcrawl::writer
