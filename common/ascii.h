// ASCII helpers for protocol text: character classes, hex digits, case
// folding, whitespace tests, trimming and case-insensitive comparison, as
// URLs, HTML, HTTP and robots.txt define them.
//
// They look at single bytes and never at the locale, so only 'A'-'Z' fold
// and every other byte (UTF-8 sequences included) passes through unchanged.
// Each whitespace set is named after the standard that uses it; callers pick
// the one their format defines rather than a wider one. Header-only pure
// functions: safe to call from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zcrawl {

// ASCII whitespace of the WHATWG Infra standard: space, tab, LF, FF and CR
// (not vertical tab). What HTML and the Encoding Standard skip and split on.
inline bool IsAsciiWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

// HTTP's optional whitespace (OWS, RFC 9110): space and tab only.
inline bool IsSpaceOrTab(char c) { return c == ' ' || c == '\t'; }

inline bool IsAsciiAlpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiDigit(int c) { return c >= '0' && c <= '9'; }

// The value of a hex digit (either case), -1 for any other byte.
inline int HexDigitValue(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// True if every byte of `s` is below 0x80.
inline bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// 'A'-'Z' to 'a'-'z'; any other byte unchanged.
inline char ToLowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// A copy of `s` with 'A'-'Z' lower-cased.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ToLowerAscii(c);
  return out;
}

// `s` without the leading and trailing bytes for which `is_space` holds
// (the format's own whitespace set, e.g. robots.txt's).
template <class IsSpace>
std::string_view TrimIf(std::string_view s, IsSpace is_space) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// `s` without leading and trailing IsAsciiWhitespace characters.
inline std::string_view TrimAsciiWhitespace(std::string_view s) { return TrimIf(s, IsAsciiWhitespace); }

// A name or value cut from a raw HTTP header line: drops OWS (space, tab) at
// the front, and OWS plus the line's CR/LF at the back. A CR or LF at the
// front is kept. " text/html \r\n" -> "text/html".
inline std::string_view TrimHttpFieldWhitespace(std::string_view s) {
  while (!s.empty() && IsSpaceOrTab(s.front())) s.remove_prefix(1);
  while (!s.empty() &&
         (IsSpaceOrTab(s.back()) || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

// True if `a` and `b` are equal once both are ASCII lower-cased.
inline bool EqualsIgnoreCaseAscii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ToLowerAscii(a[i]) != ToLowerAscii(b[i])) return false;
  }
  return true;
}

}  // namespace zcrawl
