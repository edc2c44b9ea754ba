// WarcPageEncoder: turns one crawled page into the WARC records WarcSink
// stores (response, request and, when the page has links, metadata), each
// compressed as its own gzip member. warc_sink.h describes the records.
//
// The work is split in two so it can run off the sink thread:
//   - WarcPagePartsOf (cheap: header text, and the body moved or copied)
//     runs on the thread that owns the page and yields a self-contained
//     WarcPageParts;
//   - WarcPageEncoder::Encode (the costly part: SHA-1 over the block and
//     deflate) needs nothing but those parts, so a worker thread can run it
//     (warc_encode_pool.h).
// The payload digest (SHA-1 of the body) comes with the page when the
// fetcher computed it (Page.body_sha1, 20 bytes); only a page without it
// costs a second SHA-1 pass here. The writer trusts it as it trusts the
// body: both come from the same fetcher in the same message. When the
// writer asked for them, the fetcher also sent each record's block
// compressed, with its digest (Page.warc_response, warc_request,
// warc_metadata; warc/compressed_warc_blocks.h); then a record costs no
// pass over its block here at all.
// The block digest covers the response's HTTP head and body, which stay in
// separate buffers; the compressor gets the record as pieces (header, head,
// body, end) and joins them only where its level needs one buffer.
//
// Thread-safety: WarcPagePartsOf is a pure function, safe from any thread.
// A WarcPageEncoder holds a compressor and scratch buffers: one per thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "warc/cdxj.h"
#include "warc/gzip_member.h"
#include "warc/warc_record.h"
#include "writer/page_payload.h"
#include "writer/page_validators.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

// A record's block as its fetcher compressed it (v1::WarcBlock), taken
// over only when usable (IsUsableWarcBlock).
struct FetcherWarcBlock {
  std::string deflate;  // raw DEFLATE of the block and kWarcRecordEnd
  uint32_t crc = 0;     // of the block and kWarcRecordEnd
  uint64_t length = 0;  // the block's: the record's Content-Length
  std::string digest;   // "sha1:BASE32" of the block; empty: there is none

  bool present() const { return !digest.empty(); }
};

// What a page's records are made of, owned (no reference to the page). For
// each record either the fetcher's compressed block is present, and Encode
// only wraps it in its member, or the plain block is here and Encode
// digests and compresses it.
struct WarcPageParts {
  std::string target_uri;     // final_url, else url
  uint32_t http_status = 0;
  uint32_t depth = 0;         // link hops from a seed
  std::string title;          // the page's <title>, for a WACZ's page lists
  PageValidators validators;  // for a later recrawl, in the sidecar index
  bool has_content_type = false;
  std::string content_type;  // as the response head stores it
  std::string date;           // WARC-Date
  std::string ip_address;     // empty when unknown
  bool body_truncated = false;
  std::string payload_digest; // "sha1:BASE32" of body from Page.body_sha1; empty: Encode computes it
  std::string response_head;  // status line, headers, blank line
  std::string body;           // decoded payload
  std::string request_block;  // the request as sent, or synthesised
  std::string metadata_block; // "outlink: URL" lines; empty (and none compressed): no metadata record
  std::string response_record_id;  // made beforehand when a revisit may name it; empty: Encode makes one
  // A revisit (identical-payload-digest profile): the response record is
  // only the HTTP head, and names the record stored first with the payload.
  bool revisit = false;
  std::string_view revisit_profile;  // kIdenticalPayloadDigestProfile or kServerNotModifiedProfile
  std::string refers_to_uri;
  std::string refers_to_date;
  std::string refers_to;  // its WARC-Record-ID; empty when not known
  FetcherWarcBlock response_compressed;  // used only with the fetcher's payload digest
  FetcherWarcBlock request_compressed;
  FetcherWarcBlock metadata_compressed;

  // Every record's block came compressed: Encode only wraps them.
  bool compressed_by_fetcher() const {
    return response_compressed.present() && request_compressed.present() &&
           (metadata_compressed.present() || metadata_block.empty());
  }
  // Bytes this holds that scale with the page: what backpressure counts.
  size_t page_bytes() const { return body.size() + response_compressed.deflate.size(); }
};

// Takes from `page` and its `payload` (page_payload.h: the body and the
// blocks' bytes, moved into the parts) what its records need. `now_ms`
// (wall clock) dates a page that carries no fetch time.
WarcPageParts WarcPagePartsOf(const v1::Page& page, PagePayload&& payload, int64_t now_ms);

// The WARC 1.1 profile of a revisit whose payload equals an earlier one's.
inline constexpr std::string_view kIdenticalPayloadDigestProfile =
    "http://netpreserve.org/warc/1.1/revisits/identical-payload-digest";
// ...and of a revisit whose server said the earlier capture stands (304).
inline constexpr std::string_view kServerNotModifiedProfile =
    "http://netpreserve.org/warc/1.1/revisits/server-not-modified";

// Makes `parts` (of `page`) a revisit of the record stored first with the
// same payload: the body and any compressed response block are dropped, the
// head is kept (it describes the body the original holds).
void MakeRevisit(const v1::Page& page, std::string refers_to_uri, std::string refers_to_date,
                 std::string refers_to, WarcPageParts& parts);

// Makes `parts` a revisit of the earlier capture a recrawl's conditional
// request named (Page.not_modified_since), the server having answered 304:
// the record holds the 304's head, refers to the same URL at the earlier
// capture's date, and carries that capture's payload digest when known (a
// WARC crawl's index has it; else the field is left out).
void MakeNotModifiedRevisit(const v1::Page& page, WarcPageParts& parts);

// Where Encode put the response record (it comes first), and what its
// CDXJ line says (warc/cdxj.h); the sink adds the offset and file name.
struct WarcResponseEntry {
  uint64_t bytes = 0;  // the response record's gzip member
  CdxjRecordFields cdxj;
  uint32_t depth = 0;  // the page's, for the sidecar index (warc_index.h)
  std::string title;
  PageValidators validators;
};

class WarcPageEncoder {
 public:
  // `gzip_level` as for GzipMemberCompressor.
  explicit WarcPageEncoder(int gzip_level);
  WarcPageEncoder(const WarcPageEncoder&) = delete;
  WarcPageEncoder& operator=(const WarcPageEncoder&) = delete;

  // Appends the page's records to `out`, each its own gzip member, and
  // describes the response record in `*response` when given. Fails only
  // when the random source, SHA-1 or the compressor does; `out` may then
  // hold part of a record.
  Status Encode(const WarcPageParts& parts, std::string& out, WarcResponseEntry* response = nullptr);

 private:
  // Adds WARC-Block-Digest to `record` and appends it as one member, its
  // block being `first` then `second` (digested and compressed here), or,
  // when `fetcher` is present, the fetcher's compressed block (wrapped).
  Status AppendRecord(WarcRecord& record, std::string_view first, std::string_view second,
                      const FetcherWarcBlock& fetcher, std::string& out);

  GzipMemberCompressor gzip_;
  WarcSha1 sha1_;
  std::string record_bytes_;  // scratch: a record's header, or a whole small record
};

}  // namespace zcrawl::writer
