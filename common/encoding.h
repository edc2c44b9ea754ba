// Text encodings used by the output formats: base64 (JSON lines bodies),
// base32 (WARC digests) and the two timestamp forms (RFC 3339 for JSON,
// WARC-Date for WARC records).
//
// Pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zcrawl {

// RFC 4648 section 4 base64, standard alphabet, '=' padding, no line breaks.
std::string Base64Encode(std::string_view data);

// RFC 4648 section 6 base32 (alphabet A-Z2-7), '=' padding. A 20-byte SHA-1
// needs no padding: 32 characters, the form WARC digests use.
std::string Base32Encode(std::string_view data);

// "2026-11-30T02:17:57.123Z": RFC 3339, UTC, always three fraction digits.
// `ms` is milliseconds since the Unix epoch; negative values are fine.
// Instants outside years 0000-9999 are clamped to that range (RFC 3339 has
// four-digit years only).
std::string FormatRfc3339Millis(int64_t ms);

// The inverse, for "YYYY-MM-DDThh:mm:ss[.fraction]Z" (UTC; the fraction's
// first three digits count): milliseconds since the epoch, or nullopt for
// any other form.
std::optional<int64_t> ParseRfc3339Millis(std::string_view text);

// WARC-Date value for a WARC/1.1 record. WARC/1.1 (section 5.4) allows a
// fraction of a second, so this keeps the milliseconds we have and returns
// the same form as FormatRfc3339Millis; warcio.js writes WARC/1.1 dates the
// same way. A separate name so WARC output can change form on its own.
std::string FormatWarcDate(int64_t ms);

}  // namespace zcrawl
