// Character encodings of fetched bodies: detect which one a page uses and
// decode it to UTF-8 before HTML parsing.
//
// Labels follow the WHATWG Encoding Standard: every function that returns an
// encoding returns its canonical name ("UTF-8", "windows-1252", "Shift_JIS",
// ...), and "latin1", "iso-8859-1" and "ascii" all mean windows-1252, as they
// do in browsers. Decoding never fails on bad bytes: each invalid sequence
// becomes U+FFFD. Only a label we cannot decode is an error.
//
// All functions are pure and safe to call from any number of threads.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::fetcher {

// The canonical Encoding Standard name for `label` (surrounding ASCII
// whitespace and case ignored), or "" when the label is unknown.
// "utf8" -> "UTF-8", "Latin1" -> "windows-1252", "sjis" -> "Shift_JIS".
std::string NormalizeCharsetLabel(std::string_view label);

// The encoding to decode a response body with, as a canonical name. Follows
// the HTML standard's encoding sniffing in this order:
//   1. a byte order mark at the start of `body_prefix` (UTF-8, UTF-16LE/BE);
//   2. the charset parameter of `content_type_header` (unknown labels are
//      ignored);
//   3. a <meta charset> / <meta http-equiv=content-type> prescan of the first
//      1024 bytes (a UTF-16 label there means UTF-8, as the standard says);
//   4. our default, which deliberately differs from browsers: "UTF-8" when
//      the bytes are valid UTF-8 (pure ASCII included), else "windows-1252".
// Step 4 looks at all of `body_prefix`, so pass the whole body (validation
// runs at memory speed) or at least a few KiB; a multi-byte sequence cut off
// at the very end of the prefix still counts as valid.
std::string DetectCharset(std::string_view content_type_header,
                          std::string_view body_prefix);

// The charset named by the content attribute of a
// <meta http-equiv="Content-Type" content="..."> element, e.g.
// "text/html; charset=iso-8859-2" -> "iso-8859-2" (the label as written, not
// normalised), or "" if it names none. The HTML standard's "extracting a
// character encoding from a meta element".
std::string CharsetFromMetaContent(std::string_view content);

// Decodes `bytes` in `charset` (any Encoding Standard label) to UTF-8.
// Invalid or truncated sequences become U+FFFD; a leading byte order mark is
// removed and, as in the Encoding Standard, overrides `charset`. U+0000
// characters are kept (SanitizeUtf8 removes them). UTF-8 input that is
// already valid is returned as is: pass the body with std::move to make that
// path copy-free. windows-1252, x-user-defined and replacement are decoded
// here; the rest through glibc iconv.
// Errors: InvalidArgument for an unknown label, NotFound when this system has
// no converter for a known one. Callers fall back to SanitizeUtf8.
Result<std::string> DecodeToUtf8(std::string bytes, std::string_view charset);

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or
// code points above U+10FFFF) and contains no NUL byte.
bool IsCleanUtf8(std::string_view text);

// `text` with every maximal invalid UTF-8 subsequence (per the Encoding
// Standard's UTF-8 decoder) and every NUL byte replaced by U+FFFD. Returns
// `text` itself, without copying, when IsCleanUtf8(text).
std::string SanitizeUtf8(std::string text);

}  // namespace zcrawl::fetcher
