#include "writer/warc_page_encoder.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include "common/encoding.h"
#include "common/sha1.h"
#include "common/warc_http_head.h"
#include "common/warc_response_block.h"

namespace zcrawl::writer {
namespace {

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

// Everything but the body.
WarcPageParts PartsWithoutBody(const v1::Page& page, int64_t now_ms) {
  WarcPageParts parts;
  parts.target_uri = page.final_url().empty() ? page.url() : page.final_url();
  parts.date = FormatWarcDate(page.fetched_at_ms() != 0 ? page.fetched_at_ms() : now_ms);
  parts.ip_address = page.ip_address();
  parts.body_truncated = page.body_truncated();
  if (page.body_sha1().size() == kSha1Bytes) {
    parts.payload_digest = "sha1:" + Base32Encode(page.body_sha1());
  }
  if (!parts.payload_digest.empty() && page.has_warc_response() &&
      IsUsableWarcResponseBlock(page.warc_response())) {
    const v1::WarcResponseBlock& block = page.warc_response();
    parts.response_crc = block.crc32();
    parts.response_block_length = block.block_length();
    parts.block_digest = "sha1:" + Base32Encode(block.block_sha1());
  } else {
    parts.response_head = WarcHttpResponseHead(page, page.body().size());
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
  if (parts.block_digest.empty()) {
    parts.body = page.body();
  } else {
    parts.response_deflate = page.warc_response().deflate();
  }
  return parts;
}

WarcPageParts WarcPagePartsOf(v1::Page&& page, int64_t now_ms) {
  WarcPageParts parts = PartsWithoutBody(page, now_ms);
  if (parts.block_digest.empty()) {
    parts.body = std::move(*page.mutable_body());
  } else {
    parts.response_deflate = std::move(*page.mutable_warc_response()->mutable_deflate());
  }
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
  out.reserve(out.size() + parts.response_head.size() + parts.body.size() + parts.response_deflate.size() +
              parts.request_block.size() + parts.metadata_block.size() + 5 * (parts.body.size() >> 16) +
              4096);

  // Response: the block is head + body, digested and assembled in place,
  // unless the fetcher sent it digested and compressed.
  const bool fetcher_block = !parts.block_digest.empty();
  Result<std::string> payload_digest = parts.payload_digest;
  if (parts.payload_digest.empty()) {
    sha1_.Update(parts.body);
    payload_digest = sha1_.Finish();
    if (!payload_digest.ok()) return payload_digest.status();
  }
  Result<std::string> block_digest = parts.block_digest;
  if (!fetcher_block) {
    sha1_.Update(parts.response_head);
    sha1_.Update(parts.body);
    block_digest = sha1_.Finish();
    if (!block_digest.ok()) return block_digest.status();
  }
  WarcRecord response{"response", *response_id, parts.date, {}, {}};
  response.AddField("WARC-Target-URI", parts.target_uri);
  if (!parts.ip_address.empty()) response.AddField("WARC-IP-Address", parts.ip_address);
  response.AddField("WARC-Concurrent-To", *request_id);
  response.AddField("Content-Type", "application/http;msgtype=response");
  response.AddField("WARC-Payload-Digest", std::move(*payload_digest));
  response.AddField("WARC-Block-Digest", std::move(*block_digest));
  if (parts.body_truncated) response.AddField("WARC-Truncated", "length");
  record_bytes_.clear();
  Status s = Status::Ok();
  if (fetcher_block) {
    AppendWarcHeader(response, parts.response_block_length, record_bytes_);
    AppendGzipMemberAround(record_bytes_, parts.response_deflate, parts.response_crc,
                           parts.response_block_length + kWarcRecordEnd.size(), out);
  } else {
    AppendWarcHeader(response, parts.response_head.size() + parts.body.size(), record_bytes_);
    s = gzip_.AppendMember({record_bytes_, parts.response_head, parts.body, kWarcRecordEnd}, out);
    if (!s.ok()) return s;
  }

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
