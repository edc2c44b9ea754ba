// The HTTP head a WARC response record stores in front of the body: status
// line, the response headers as received, and the blank line. Built in one
// place because two processes build it: the writer, and the fetchers when
// they compress response blocks for it (warc_response_block.h).
//
// The body a Page carries is decoded (content-encoding removed), so the head
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

// Appends `value` with CR, LF and NUL replaced by spaces.
void AppendHeaderValue(std::string& out, std::string_view value);

}  // namespace zcrawl
