// The URL Standard's byte classes (internal to common/url*.cc): the
// percent-encode sets, forbidden host and domain code points, scheme bytes
// and path stops, one table lookup per byte; and percent-encoding of a
// string with a set. Pure; thread-safe.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/percent_encoding.h"
#include "common/utf8.h"

namespace zcrawl::url_internal {

enum CharClass : uint16_t {
  kEncC0 = 1 << 0,            // C0 control percent-encode set
  kEncFragment = 1 << 1,      // fragment percent-encode set
  kEncQuery = 1 << 2,         // query percent-encode set
  kEncSpecialQuery = 1 << 3,  // special-query percent-encode set
  kEncPath = 1 << 4,          // path percent-encode set
  kEncUserinfo = 1 << 5,      // userinfo percent-encode set
  kForbiddenHost = 1 << 6,    // forbidden host code point
  kForbiddenDomain = 1 << 7,  // forbidden domain code point
  kSchemeChar = 1 << 8,       // ASCII alphanumeric, '+', '-', '.'
  kStop = 1 << 9,             // ends a path segment or authority: / ? #
  kSpecialStop = 1 << 10,     // same for special URLs: / \ ? #
};

constexpr std::array<uint16_t, 256> MakeCharClasses() {
  std::array<uint16_t, 256> table{};
  for (int c = 0; c < 256; ++c) {
    const bool c0 = c < 0x20 || c > 0x7E;
    const bool fragment =
        c0 || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`';
    const bool query =
        c0 || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>';
    const bool special_query = query || c == '\'';
    const bool path = query || c == '?' || c == '^' || c == '`' || c == '{' ||
                      c == '}';
    const bool userinfo = path || c == '/' || c == ':' || c == ';' ||
                          c == '=' || c == '@' || (c >= '[' && c <= ']') ||
                          c == '|';
    const bool forbidden_host =
        c == 0 || c == '\t' || c == '\n' || c == '\r' || c == ' ' ||
        c == '#' || c == '/' || c == ':' || c == '<' || c == '>' || c == '?' ||
        c == '@' || c == '[' || c == '\\' || c == ']' || c == '^' || c == '|';
    const bool forbidden_domain =
        forbidden_host || c < 0x20 || c == '%' || c == 0x7F;
    const bool scheme_char = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                             (c >= '0' && c <= '9') || c == '+' || c == '-' ||
                             c == '.';
    const bool stop = c == '/' || c == '?' || c == '#';
    const bool special_stop = stop || c == '\\';
    table[c] = static_cast<uint16_t>(
        (c0 ? kEncC0 : 0) | (fragment ? kEncFragment : 0) |
        (query ? kEncQuery : 0) | (special_query ? kEncSpecialQuery : 0) |
        (path ? kEncPath : 0) | (userinfo ? kEncUserinfo : 0) |
        (forbidden_host ? kForbiddenHost : 0) |
        (forbidden_domain ? kForbiddenDomain : 0) |
        (scheme_char ? kSchemeChar : 0) | (stop ? kStop : 0) |
        (special_stop ? kSpecialStop : 0));
  }
  return table;
}
inline constexpr std::array<uint16_t, 256> kCharClasses = MakeCharClasses();

inline bool Has(char c, uint16_t cls) {
  return (kCharClasses[static_cast<uint8_t>(c)] & cls) != 0;
}

// UTF-8 percent-encodes `in` using the set(s) in `set`, appending to `out`.
// Runs of bytes outside the set are copied in one append.
inline void AppendPercentEncoded(std::string& out, std::string_view in, uint16_t set) {
  size_t i = 0;
  const size_t n = in.size();
  while (i < n) {
    size_t run = i;
    while (run < n && !Has(in[run], set)) ++run;
    out.append(in.data() + i, run - i);
    i = run;
    if (i >= n) break;
    const uint8_t b = static_cast<uint8_t>(in[i]);
    if (b < 0x80) {
      AppendPercentEncodedByte(out, b);
      ++i;
      continue;
    }
    size_t len = 0;
    if (ExamineUtf8Sequence(in, i, &len) == Utf8Sequence::kValid) {
      for (size_t k = 0; k < len; ++k) {
        AppendPercentEncodedByte(out, static_cast<uint8_t>(in[i + k]));
      }
    } else {
      out.append("%EF%BF%BD");  // U+FFFD REPLACEMENT CHARACTER
    }
    i += len;
  }
}

}  // namespace zcrawl::url_internal
