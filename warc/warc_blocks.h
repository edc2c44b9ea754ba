// The blocks of a page's WARC records: the response's HTTP head (stored in
// front of the body), the request, and the metadata record's outlinks.
// Built in one place because two processes build them: the writer, and the
// fetchers when they compress the blocks for it (compressed_warc_blocks.h).
//
// Response head: status line, the response headers as received, and the
// blank line. The body a Page carries is decoded (content-encoding removed), so the head
// describes that body: Content-Length is the decoded size, the original
// Content-Encoding is kept as X-Zcrawl-Orig-Content-Encoding, and
// Transfer-Encoding is dropped (the record holds no chunks). Header names
// that are not RFC 9110 tokens (HTTP/2 pseudo-headers among them) are left
// out; CR, LF and NUL in values become spaces, so a hostile header cannot
// end the head early.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "zcrawl.pb.h"

namespace zcrawl {

// What follows every WARC record's block.
inline constexpr std::string_view kWarcRecordEnd = "\r\n\r\n";

// Status line, headers and the blank line, for a body of `body_size` bytes.
std::string WarcHttpResponseHead(const v1::Page& page, size_t body_size);

// The request record's block: the request as the fetcher sent it
// (Page.request_headers, bare LF made CRLF, the final blank line added when
// missing), or, without it, "GET path HTTP/1.1" with a Host header made
// from `target_uri` (the record's WARC-Target-URI).
std::string WarcRequestBlock(const v1::Page& page, std::string_view target_uri);

// The metadata record's block: one "outlink: URL" line per link and one
// "embed: URL" line per page requisite (values made safe as above); empty for a page without links, which gets no
// metadata record.
std::string WarcMetadataBlock(const v1::Page& page);

// The value of the first Content-Type header as WarcHttpResponseHead
// stores it; false when the page has none (what the CDXJ line's mime is
// made of).
bool StoredContentType(const v1::Page& page, std::string* value);

// The record's WARC-Target-URI: final_url, else url.
std::string_view WarcTargetUri(const v1::Page& page);

// Appends `value` with CR, LF and NUL replaced by spaces.
void AppendHeaderValue(std::string& out, std::string_view value);

}  // namespace zcrawl
