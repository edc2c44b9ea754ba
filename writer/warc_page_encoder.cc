#include "writer/warc_page_encoder.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/encoding.h"
#include "common/sha1.h"

namespace zcrawl::writer {
namespace {

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
// spaces. Copied whole, then fixed in place by a loop the compiler
// vectorises (an outlink list is ~2 KB per page, built on the sink thread).
void AppendHeaderValue(std::string& out, std::string_view value) {
  const size_t start = out.size();
  out.append(value);
  for (size_t i = start; i < out.size(); ++i) {
    const char c = out[i];
    if (c == '\r' || c == '\n' || c == '\0') out[i] = ' ';
  }
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

// Status line, headers and the blank line; the body follows it in the block.
std::string ResponseHead(const v1::Page& page) {
  std::string block;
  block.reserve(64 * (page.headers_size() + 2));
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
  return block;
}

// Everything but the body.
WarcPageParts PartsWithoutBody(const v1::Page& page, int64_t now_ms) {
  WarcPageParts parts;
  parts.target_uri = page.final_url().empty() ? page.url() : page.final_url();
  parts.date = FormatWarcDate(page.fetched_at_ms() != 0 ? page.fetched_at_ms() : now_ms);
  parts.ip_address = page.ip_address();
  parts.body_truncated = page.body_truncated();
  parts.response_head = ResponseHead(page);
  if (page.body_sha1().size() == kSha1Bytes) {
    parts.payload_digest = "sha1:" + Base32Encode(page.body_sha1());
  }
  parts.request_block = RequestBlock(page, parts.target_uri);
  size_t metadata_bytes = 0;
  for (const v1::Link& link : page.links()) metadata_bytes += link.url().size() + 11;
  parts.metadata_block.reserve(metadata_bytes);
  for (const v1::Link& link : page.links()) {
    parts.metadata_block += "outlink: ";
    AppendHeaderValue(parts.metadata_block, link.url());
    parts.metadata_block += "\r\n";
  }
  return parts;
}

}  // namespace

WarcPageParts WarcPagePartsOf(const v1::Page& page, int64_t now_ms) {
  WarcPageParts parts = PartsWithoutBody(page, now_ms);
  parts.body = page.body();
  return parts;
}

WarcPageParts WarcPagePartsOf(v1::Page&& page, int64_t now_ms) {
  WarcPageParts parts = PartsWithoutBody(page, now_ms);
  parts.body = std::move(*page.mutable_body());
  return parts;
}

WarcPageEncoder::WarcPageEncoder(int gzip_level) : gzip_(gzip_level) {}

Status WarcPageEncoder::AppendRecord(const WarcRecord& record, std::string& out) {
  record_bytes_.clear();
  AppendWarcRecord(record, record_bytes_);
  return gzip_.AppendMember(record_bytes_, out);
}

Status WarcPageEncoder::Encode(const WarcPageParts& parts, std::string& out) {
  Result<std::string> response_id = NewWarcRecordId();
  if (!response_id.ok()) return response_id.status();
  Result<std::string> request_id = NewWarcRecordId();
  if (!request_id.ok()) return request_id.status();
  // Room for all three members at once: growing `out` member by member
  // would copy what is already in it. Stored blocks need the most (the
  // blocks plus ~1 KB of WARC headers and framing per record); the
  // compressors' worst case for a page is about the same.
  out.reserve(out.size() + parts.response_head.size() + parts.body.size() +
              parts.request_block.size() + parts.metadata_block.size() + 5 * (parts.body.size() >> 16) +
              4096);

  // Response: the block is head + body, digested and assembled in place.
  Result<std::string> payload_digest = parts.payload_digest;
  if (parts.payload_digest.empty()) {
    sha1_.Update(parts.body);
    payload_digest = sha1_.Finish();
    if (!payload_digest.ok()) return payload_digest.status();
  }
  sha1_.Update(parts.response_head);
  sha1_.Update(parts.body);
  Result<std::string> block_digest = sha1_.Finish();
  if (!block_digest.ok()) return block_digest.status();
  WarcRecord response{"response", *response_id, parts.date, {}, {}};
  response.AddField("WARC-Target-URI", parts.target_uri);
  if (!parts.ip_address.empty()) response.AddField("WARC-IP-Address", parts.ip_address);
  response.AddField("WARC-Concurrent-To", *request_id);
  response.AddField("Content-Type", "application/http;msgtype=response");
  response.AddField("WARC-Payload-Digest", std::move(*payload_digest));
  response.AddField("WARC-Block-Digest", std::move(*block_digest));
  if (parts.body_truncated) response.AddField("WARC-Truncated", "length");
  record_bytes_.clear();
  AppendWarcHeader(response, parts.response_head.size() + parts.body.size(), record_bytes_);
  Status s = gzip_.AppendMember({record_bytes_, parts.response_head, parts.body, kWarcRecordEnd}, out);
  if (!s.ok()) return s;

  // Request.
  WarcRecord request{"request", *request_id, parts.date, {}, parts.request_block};
  sha1_.Update(request.block);
  block_digest = sha1_.Finish();
  if (!block_digest.ok()) return block_digest.status();
  request.AddField("WARC-Target-URI", parts.target_uri);
  if (!parts.ip_address.empty()) request.AddField("WARC-IP-Address", parts.ip_address);
  request.AddField("WARC-Concurrent-To", *response_id);
  request.AddField("Content-Type", "application/http;msgtype=request");
  request.AddField("WARC-Block-Digest", std::move(*block_digest));
  s = AppendRecord(request, out);
  if (!s.ok()) return s;

  // Metadata: the outlinks.
  if (parts.metadata_block.empty()) return Status::Ok();
  Result<std::string> metadata_id = NewWarcRecordId();
  if (!metadata_id.ok()) return metadata_id.status();
  WarcRecord metadata{"metadata", *metadata_id, parts.date, {}, parts.metadata_block};
  sha1_.Update(metadata.block);
  block_digest = sha1_.Finish();
  if (!block_digest.ok()) return block_digest.status();
  metadata.AddField("WARC-Target-URI", parts.target_uri);
  metadata.AddField("WARC-Refers-To", *response_id);
  metadata.AddField("Content-Type", "application/warc-fields");
  metadata.AddField("WARC-Block-Digest", std::move(*block_digest));
  return AppendRecord(metadata, out);
}

}  // namespace zcrawl::writer
