#include "writer/warc_page_encoder.h"

#include <string_view>
#include <utility>

#include "warc/compressed_warc_blocks.h"
#include "common/encoding.h"
#include "common/sha1.h"
#include "warc/warc_blocks.h"

namespace zcrawl::writer {
namespace {

// The fetcher's compressed block, if it sent a usable one (its bytes,
// `deflate`, come in the payload).
FetcherWarcBlock FetcherBlockOf(const v1::WarcBlock& block, std::string&& deflate) {
  FetcherWarcBlock taken;
  if (!IsUsableWarcBlock(block, deflate)) return taken;
  taken.deflate = std::move(deflate);
  taken.crc = block.crc32();
  taken.length = block.block_length();
  taken.digest = "sha1:" + Base32Encode(block.block_sha1());
  return taken;
}

}  // namespace

WarcPageParts WarcPagePartsOf(const v1::Page& page, PagePayload&& payload, int64_t now_ms) {
  WarcPageParts parts;
  parts.target_uri = WarcTargetUri(page);
  parts.http_status = page.http_status();
  parts.depth = page.depth();
  parts.title = page.title();
  parts.validators = PageValidatorsOf(page);
  if (parts.validators.fetched_at_ms == 0) parts.validators.fetched_at_ms = now_ms;  // as parts.date
  parts.has_content_type = StoredContentType(page, &parts.content_type);
  parts.date = FormatWarcDate(page.fetched_at_ms() != 0 ? page.fetched_at_ms() : now_ms);
  parts.ip_address = page.ip_address();
  parts.body_truncated = page.body_truncated();
  if (page.body_sha1().size() == kSha1Bytes) {
    parts.payload_digest = "sha1:" + Base32Encode(page.body_sha1());
    // The response block only with the payload digest: without it the
    // body would have to be digested here anyway.
    parts.response_compressed = FetcherBlockOf(page.warc_response(), std::move(payload.warc_response));
  }
  if (!parts.response_compressed.present()) {
    parts.response_head = WarcHttpResponseHead(page, payload.body.size());
    parts.body = std::move(payload.body);
  }
  parts.request_compressed = FetcherBlockOf(page.warc_request(), std::move(payload.warc_request));
  if (!parts.request_compressed.present()) parts.request_block = WarcRequestBlock(page, parts.target_uri);
  parts.metadata_compressed = FetcherBlockOf(page.warc_metadata(), std::move(payload.warc_metadata));
  if (!parts.metadata_compressed.present()) parts.metadata_block = WarcMetadataBlock(page);
  return parts;
}

void MakeRevisit(const v1::Page& page, std::string refers_to_uri, std::string refers_to_date,
                 std::string refers_to, WarcPageParts& parts) {
  const size_t body_length = page.body().empty() ? page.body_length() : page.body().size();
  parts.revisit = true;
  parts.revisit_profile = kIdenticalPayloadDigestProfile;
  parts.refers_to_uri = std::move(refers_to_uri);
  parts.refers_to_date = std::move(refers_to_date);
  parts.refers_to = std::move(refers_to);
  parts.response_compressed = FetcherWarcBlock();
  parts.body.clear();
  parts.body.shrink_to_fit();
  parts.response_head = WarcHttpResponseHead(page, body_length);
}

void MakeNotModifiedRevisit(const v1::Page& page, WarcPageParts& parts) {
  const v1::Validators& previous = page.not_modified_since();
  parts.revisit = true;
  parts.revisit_profile = kServerNotModifiedProfile;
  parts.refers_to_uri = parts.target_uri;
  parts.refers_to_date = FormatWarcDate(previous.fetched_at_ms());
  parts.refers_to.clear();
  parts.payload_digest = previous.payload_digest();  // empty: left out
  parts.response_compressed = FetcherWarcBlock();
  parts.body.clear();
  parts.response_head = WarcHttpResponseHead(page, 0);
}

WarcPageEncoder::WarcPageEncoder(int gzip_level) : gzip_(gzip_level) {}

Status WarcPageEncoder::AppendRecord(WarcRecord& record, std::string_view first, std::string_view second,
                                     const FetcherWarcBlock& fetcher, std::string& out) {
  record_bytes_.clear();
  if (fetcher.present()) {
    record.AddField("WARC-Block-Digest", fetcher.digest);
    AppendWarcHeader(record, fetcher.length, record_bytes_);
    AppendGzipMemberAround(record_bytes_, fetcher.deflate, fetcher.crc, fetcher.length + kWarcRecordEnd.size(),
                           out);
    return Status::Ok();
  }
  sha1_.Update(first);
  sha1_.Update(second);
  Result<std::string> digest = sha1_.Finish();
  if (!digest.ok()) return digest.status();
  record.AddField("WARC-Block-Digest", std::move(*digest));
  AppendWarcHeader(record, first.size() + second.size(), record_bytes_);
  return gzip_.AppendMember({record_bytes_, first, second, kWarcRecordEnd}, out);
}

Status WarcPageEncoder::Encode(const WarcPageParts& parts, std::string& out, WarcResponseEntry* entry) {
  Result<std::string> response_id =
      parts.response_record_id.empty() ? NewWarcRecordId() : Result<std::string>(parts.response_record_id);
  if (!response_id.ok()) return response_id.status();
  Result<std::string> request_id = NewWarcRecordId();
  if (!request_id.ok()) return request_id.status();
  // Room for all three members at once: growing `out` member by member
  // would copy what is already in it. Stored blocks need the most (the
  // blocks plus ~1 KB of WARC headers and framing per record); the
  // compressors' worst case for a page is about the same.
  out.reserve(out.size() + parts.response_head.size() + parts.body.size() + parts.request_block.size() +
              parts.metadata_block.size() + parts.response_compressed.deflate.size() +
              parts.request_compressed.deflate.size() + parts.metadata_compressed.deflate.size() +
              5 * (parts.body.size() >> 16) + 4096);

  // Response: head + body, digested and compressed from their own buffers.
  Result<std::string> payload_digest = parts.payload_digest;
  // A not-modified revisit without the earlier digest has none to give.
  const bool digest_unknown = parts.revisit && parts.revisit_profile == kServerNotModifiedProfile &&
                              parts.payload_digest.empty();
  if (parts.payload_digest.empty() && !digest_unknown) {
    sha1_.Update(parts.body);
    payload_digest = sha1_.Finish();
    if (!payload_digest.ok()) return payload_digest.status();
  }
  WarcRecord response{parts.revisit ? "revisit" : "response", *response_id, parts.date, {}, {}};
  response.AddField("WARC-Target-URI", parts.target_uri);
  if (!parts.ip_address.empty()) response.AddField("WARC-IP-Address", parts.ip_address);
  response.AddField("WARC-Concurrent-To", *request_id);
  response.AddField("Content-Type", "application/http;msgtype=response");
  if (parts.revisit) {
    response.AddField("WARC-Profile", std::string(parts.revisit_profile));
    response.AddField("WARC-Refers-To-Target-URI", parts.refers_to_uri);
    response.AddField("WARC-Refers-To-Date", parts.refers_to_date);
    if (!parts.refers_to.empty()) response.AddField("WARC-Refers-To", parts.refers_to);
  }
  if (!payload_digest->empty()) response.AddField("WARC-Payload-Digest", *payload_digest);
  if (parts.body_truncated && !parts.revisit) response.AddField("WARC-Truncated", "length");
  if (entry != nullptr) {
    entry->cdxj.url = parts.target_uri;
    entry->cdxj.warc_date = parts.date;
    // warcio gives a revisit's line the mime "warc/revisit".
    entry->cdxj.has_mime = parts.revisit || (parts.has_content_type && !parts.content_type.empty());
    entry->cdxj.mime = parts.revisit ? "warc/revisit" : CdxjMime(parts.content_type);
    entry->cdxj.status = parts.http_status;
    entry->cdxj.digest = payload_digest->empty() ? std::string() : payload_digest->substr(payload_digest->find(':') + 1);
    entry->depth = parts.depth;
    entry->title = parts.title;
    entry->validators = parts.validators;
  }
  const size_t response_start = out.size();
  Status s = AppendRecord(response, parts.response_head, parts.body, parts.response_compressed, out);
  if (!s.ok()) return s;
  if (entry != nullptr) entry->bytes = out.size() - response_start;

  WarcRecord request{"request", *request_id, parts.date, {}, {}};
  request.AddField("WARC-Target-URI", parts.target_uri);
  if (!parts.ip_address.empty()) request.AddField("WARC-IP-Address", parts.ip_address);
  request.AddField("WARC-Concurrent-To", *response_id);
  request.AddField("Content-Type", "application/http;msgtype=request");
  s = AppendRecord(request, parts.request_block, {}, parts.request_compressed, out);
  if (!s.ok()) return s;

  // Metadata: the outlinks, for a page with links.
  if (parts.metadata_block.empty() && !parts.metadata_compressed.present()) return Status::Ok();
  Result<std::string> metadata_id = NewWarcRecordId();
  if (!metadata_id.ok()) return metadata_id.status();
  WarcRecord metadata{"metadata", *metadata_id, parts.date, {}, {}};
  metadata.AddField("WARC-Target-URI", parts.target_uri);
  metadata.AddField("WARC-Refers-To", *response_id);
  metadata.AddField("Content-Type", "application/warc-fields");
  return AppendRecord(metadata, parts.metadata_block, {}, parts.metadata_compressed, out);
}

}  // namespace zcrawl::writer
