// PageJson: the JSON-lines record format of a page, shared by the jsonl sink
// (a file) and the exec sink (a command's stdin): the format apart from
// where it goes.
//
// One line holds: url, final_url, status, headers (object;
// a name sent more than once, compared case-insensitively, gets its values
// joined with ", " under its first spelling; lossy for Set-Cookie),
// content_type, charset, fetched_at (RFC 3339 UTC with milliseconds, null
// when the fetcher gave no time), depth, title, text, outlinks (array of
// URLs), embeds (array of URLs; only with page requisites on), unchanged
// and previous_fetched_at_ms (only for a recrawl's 304), redirects (array of {from, status, location}) and, only when a
// body is given (SinkOptions::jsonl_body), body (base64 of the decoded body) plus
// body_truncated when the fetcher cut it. Strings are always valid JSON:
// invalid UTF-8 becomes U+FFFD (common/json_writer.h).
// Pure function; thread-safe.
#pragma once

#include <string>

#include "zcrawl.pb.h"

namespace zcrawl::writer {

// The page as one JSON object, without the trailing newline; with "body"
// (base64) when `body` is not null.
std::string PageJson(const v1::Page& page, const std::string* body);

}  // namespace zcrawl::writer
