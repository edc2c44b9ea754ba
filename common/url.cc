#include "common/url.h"

#include <idn2.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace zcrawl {
namespace {

constexpr int kEof = -1;
constexpr size_t kNpos = std::string_view::npos;
// Offsets are 32-bit; anything near that long is not a URL worth crawling.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

// ---------------------------------------------------------------------------
// Character classes, one table lookup per byte.

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
constexpr std::array<uint16_t, 256> kCharClasses = MakeCharClasses();

inline bool Has(char c, uint16_t cls) {
  return (kCharClasses[static_cast<uint8_t>(c)] & cls) != 0;
}
inline bool IsAsciiAlpha(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
inline bool IsAsciiDigit(int c) { return c >= '0' && c <= '9'; }
inline int HexValue(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
inline char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + ('a' - 'A')) : c;
}
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != b[i]) return false;
  }
  return true;
}
inline bool IsAscii(std::string_view s) {
  for (char c : s) {
    if (static_cast<uint8_t>(c) >= 0x80) return false;
  }
  return true;
}

constexpr char kUpperHex[] = "0123456789ABCDEF";

inline void AppendPercentByte(std::string& out, uint8_t b) {
  const char enc[3] = {'%', kUpperHex[b >> 4], kUpperHex[b & 0xF]};
  out.append(enc, 3);
}

// Length of the UTF-8 sequence starting at s[i] if it is valid; otherwise the
// length of its maximal invalid subpart (what the Encoding Standard's decoder
// turns into one U+FFFD) and *valid is false.
size_t Utf8Step(std::string_view s, size_t i, bool* valid) {
  const uint8_t lead = static_cast<uint8_t>(s[i]);
  int needed = 0;
  uint8_t lower = 0x80;
  uint8_t upper = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    needed = 1;
  } else if (lead == 0xE0) {
    needed = 2;
    lower = 0xA0;
  } else if (lead == 0xED) {
    needed = 2;
    upper = 0x9F;
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    needed = 2;
  } else if (lead == 0xF0) {
    needed = 3;
    lower = 0x90;
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    needed = 3;
  } else if (lead == 0xF4) {
    needed = 3;
    upper = 0x8F;
  } else {
    *valid = false;
    return 1;
  }
  size_t j = i + 1;
  for (int k = 0; k < needed; ++k, ++j) {
    if (j >= s.size()) {
      *valid = false;
      return j - i;
    }
    const uint8_t b = static_cast<uint8_t>(s[j]);
    if (b < lower || b > upper) {
      *valid = false;
      return j - i;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  *valid = true;
  return j - i;
}

// The code point of the valid UTF-8 sequence at s[i]; *len gets its length.
char32_t DecodeCodePoint(std::string_view s, size_t i, size_t* len) {
  const uint8_t lead = static_cast<uint8_t>(s[i]);
  if (lead < 0x80) {
    *len = 1;
    return lead;
  }
  const size_t extra = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  char32_t cp = lead & (0x3F >> extra);
  for (size_t k = 1; k <= extra && i + k < s.size(); ++k) {
    cp = (cp << 6) | (static_cast<uint8_t>(s[i + k]) & 0x3F);
  }
  *len = extra + 1;
  return cp;
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<uint8_t>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    bool valid = false;
    i += Utf8Step(s, i, &valid);
    if (!valid) return false;
  }
  return true;
}

// UTF-8 percent-encodes `in` using the set(s) in `set`, appending to `out`.
// Runs of bytes outside the set are copied in one append.
void AppendPercentEncoded(std::string& out, std::string_view in, uint16_t set) {
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
      AppendPercentByte(out, b);
      ++i;
      continue;
    }
    bool valid = false;
    const size_t len = Utf8Step(in, i, &valid);
    if (valid) {
      for (size_t k = 0; k < len; ++k) {
        AppendPercentByte(out, static_cast<uint8_t>(in[i + k]));
      }
    } else {
      out.append("%EF%BF%BD");  // U+FFFD REPLACEMENT CHARACTER
    }
    i += len;
  }
}

std::string PercentDecode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    int hi = 0;
    int lo = 0;
    if (in[i] == '%' && i + 2 < in.size() &&
        (hi = HexValue(in[i + 1])) >= 0 && (lo = HexValue(in[i + 2])) >= 0) {
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// IPv4 and IPv6.

// The IPv4 number parser. Values saturate above 2^32, which every caller
// treats as out of range anyway.
bool ParseIpv4Number(std::string_view s, uint64_t* value) {
  if (s.empty()) return false;
  int radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    radix = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0') {
    radix = 8;
    s.remove_prefix(1);
  }
  uint64_t v = 0;
  for (char c : s) {
    const int d = HexValue(c);
    if (d < 0 || d >= radix) return false;
    v = v * radix + d;
    if (v > (uint64_t{1} << 32)) v = (uint64_t{1} << 32) + 1;
  }
  *value = v;
  return true;
}

bool EndsInNumber(std::string_view s) {
  if (s.empty()) return false;
  if (s.back() == '.') s.remove_suffix(1);
  const size_t dot = s.rfind('.');
  const std::string_view last = dot == kNpos ? s : s.substr(dot + 1);
  if (last.empty()) return false;
  bool all_digits = true;
  for (char c : last) all_digits = all_digits && IsAsciiDigit(c);
  if (all_digits) return true;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    for (size_t i = 2; i < last.size(); ++i) {
      if (HexValue(last[i]) < 0) return false;
    }
    return true;
  }
  return false;
}

bool ParseIpv4(std::string_view s, uint32_t* address) {
  if (!s.empty() && s.back() == '.' && s.size() > 1) s.remove_suffix(1);
  uint64_t numbers[4];
  size_t count = 0;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    const std::string_view part =
        s.substr(start, dot == kNpos ? kNpos : dot - start);
    if (count == 4) return false;  // more than four parts
    if (!ParseIpv4Number(part, &numbers[count])) return false;
    ++count;
    if (dot == kNpos) break;
    start = dot + 1;
  }
  for (size_t i = 0; i + 1 < count; ++i) {
    if (numbers[i] > 255) return false;
  }
  if (numbers[count - 1] >= (uint64_t{1} << (8 * (5 - count)))) return false;
  uint64_t v = numbers[count - 1];
  for (size_t i = 0; i + 1 < count; ++i) v += numbers[i] << (8 * (3 - i));
  *address = static_cast<uint32_t>(v);
  return true;
}

void AppendDecimal(std::string& out, uint32_t v) {
  char buf[10];
  int len = 0;
  do {
    buf[len++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (len > 0) out += buf[--len];
}

void AppendIpv4(std::string& out, uint32_t address) {
  for (int shift = 24; shift >= 0; shift -= 8) {
    AppendDecimal(out, (address >> shift) & 0xFF);
    if (shift != 0) out += '.';
  }
}

// The IPv6 parser, over the text between the brackets.
bool ParseIpv6(std::string_view in, uint16_t address[8]) {
  for (int i = 0; i < 8; ++i) address[i] = 0;
  const size_t n = in.size();
  auto at = [&](size_t p) -> int {
    return p < n ? static_cast<uint8_t>(in[p]) : kEof;
  };
  int piece = 0;
  int compress = -1;
  size_t p = 0;
  if (at(p) == ':') {
    if (at(p + 1) != ':') return false;
    p += 2;
    compress = ++piece;
  }
  while (at(p) != kEof) {
    if (piece == 8) return false;
    if (at(p) == ':') {
      if (compress != -1) return false;
      ++p;
      compress = ++piece;
      continue;
    }
    uint32_t value = 0;
    int length = 0;
    while (length < 4 && HexValue(at(p)) >= 0) {
      value = value * 16 + HexValue(at(p));
      ++p;
      ++length;
    }
    if (at(p) == '.') {
      if (length == 0) return false;
      p -= length;
      if (piece > 6) return false;
      int numbers_seen = 0;
      while (at(p) != kEof) {
        int ipv4_piece = -1;
        if (numbers_seen > 0) {
          if (at(p) == '.' && numbers_seen < 4) {
            ++p;
          } else {
            return false;
          }
        }
        if (!IsAsciiDigit(at(p))) return false;
        while (IsAsciiDigit(at(p))) {
          const int number = at(p) - '0';
          if (ipv4_piece == -1) {
            ipv4_piece = number;
          } else if (ipv4_piece == 0) {
            return false;
          } else {
            ipv4_piece = ipv4_piece * 10 + number;
          }
          if (ipv4_piece > 255) return false;
          ++p;
        }
        address[piece] = static_cast<uint16_t>(address[piece] * 0x100 + ipv4_piece);
        ++numbers_seen;
        if (numbers_seen == 2 || numbers_seen == 4) ++piece;
      }
      if (numbers_seen != 4) return false;
      break;
    } else if (at(p) == ':') {
      ++p;
      if (at(p) == kEof) return false;
    } else if (at(p) != kEof) {
      return false;
    }
    address[piece] = static_cast<uint16_t>(value);
    ++piece;
  }
  if (compress != -1) {
    int swaps = piece - compress;
    piece = 7;
    while (piece != 0 && swaps > 0) {
      const uint16_t tmp = address[piece];
      address[piece] = address[compress + swaps - 1];
      address[compress + swaps - 1] = tmp;
      --piece;
      --swaps;
    }
  } else if (piece != 8) {
    return false;
  }
  return true;
}

void AppendIpv6(std::string& out, const uint16_t address[8]) {
  // Longest run (length > 1) of zero pieces, first one on ties.
  int compress = -1;
  int longest = 1;
  for (int i = 0; i < 8;) {
    if (address[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && address[j] == 0) ++j;
    if (j - i > longest) {
      longest = j - i;
      compress = i;
    }
    i = j;
  }
  static constexpr char kLowerHex[] = "0123456789abcdef";
  out += '[';
  for (int i = 0; i < 8; ++i) {
    if (i == compress) {
      out += (i == 0) ? "::" : ":";
      i += longest - 1;
      continue;
    }
    const uint16_t v = address[i];
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const int digit = (v >> shift) & 0xF;
      if (digit != 0 || started || shift == 0) {
        out += kLowerHex[digit];
        started = true;
      }
    }
    if (i != 7) out += ':';
  }
  out += ']';
}

// ---------------------------------------------------------------------------
// Domain to ASCII for hosts with non-ASCII code points.
//
// libidn2 implements IDNA2008 lookup plus the UTS #46 mapping. UTS #46 as the
// URL Standard uses it is more lenient in three ways, handled here:
//  1. IDNA2008-only rejections (symbols such as U+2603, CONTEXTO rules):
//     libidn2's transitional mode checks only the UTS #46 table, so when a
//     label has no deviation character (where transitional and
//     non-transitional differ) and no right-to-left code point (transitional
//     mode skips CheckBidi), a transitional retry gives the UTS #46 answer.
//  2. CheckHyphens=false: leading/trailing hyphens and "--" in positions 3-4.
//  3. VerifyDnsLength=false: no 63/253 length limits.
// The whole domain goes to libidn2 first (this also checks Bidi across
// labels). On one of the errors above, each label is retried alone; a label
// that still fails (2, 3, or 1 mixed with deviation characters) is mapped in
// pieces that libidn2 accepts and Punycode-encoded here. A few code points
// whose UTS #46 status changed in Unicode 15.1 are pre-mapped (Uts46Patch).
// Known gaps: the label-by-label route cannot check Bidi across labels (it
// may accept such a domain); a label mixing U+200C/U+200D with
// IDNA2008-disallowed symbols fails; other Unicode 15.1+ table changes are
// not patched.

// libidn2 codes for rules that UTS #46 does not apply (IDNA2008 only).
bool IsIdna2008OnlyError(int rc) {
  return rc == IDN2_DISALLOWED || rc == IDN2_CONTEXTO ||
         rc == IDN2_CONTEXTO_NO_RULE || rc == IDN2_UNASSIGNED;
}

// libidn2 codes for hyphen and length checks the URL Standard turns off.
bool IsHyphenOrLengthError(int rc) {
  return rc == IDN2_2HYPHEN || rc == IDN2_HYPHEN_STARTEND ||
         rc == IDN2_TOO_BIG_LABEL || rc == IDN2_TOO_BIG_DOMAIN ||
         rc == IDN2_PUNYCODE_BIG_OUTPUT;
}

// True when a transitional lookup of `s` is a sound stand-in for UTS #46
// non-transitional processing: no deviation character (U+00DF, U+03C2,
// U+200C, U+200D) whose mapping differs, and no code point from the
// right-to-left blocks, so the CheckBidi rule that transitional mode skips in
// libidn2 has nothing to check (it applies only to domains with R/AL/AN).
bool TransitionalIsEquivalent(std::string_view s) {
  if (s.find("\xC3\x9F") != kNpos || s.find("\xCF\x82") != kNpos ||
      s.find("\xE2\x80\x8C") != kNpos || s.find("\xE2\x80\x8D") != kNpos) {
    return false;
  }
  for (size_t i = 0, len = 0; i < s.size(); i += len) {
    const char32_t cp = DecodeCodePoint(s, i, &len);
    const bool rtl = (cp >= 0x0590 && cp <= 0x08FF) ||   // Hebrew .. Arabic Ext-A
                     (cp >= 0xFB1D && cp <= 0xFDFF) ||   // presentation forms A
                     (cp >= 0xFE70 && cp <= 0xFEFF) ||   // Arabic forms B
                     (cp >= 0x10800 && cp <= 0x10FFF) ||  // SMP RTL scripts
                     (cp >= 0x1E800 && cp <= 0x1EFFF);    // Adlam, Arabic math
    if (rtl) return false;
  }
  return true;
}

// Runs libidn2's lookup on `in` with `flags`; appends the result on success.
// IDN2_NO_ALABEL_ROUNDTRIP: libidn2's re-encode comparison rejects labels with
// non-LDH ASCII such as "}" that UTS #46 allows without STD3 rules; "xn--"
// labels are still Punycode-decoded and validated by its UTS #46 step.
int Idn2Lookup(const std::string& in, int flags, std::string& out) {
  char* result = nullptr;
  const int rc = idn2_lookup_u8(reinterpret_cast<const uint8_t*>(in.c_str()),
                                reinterpret_cast<uint8_t**>(&result),
                                flags | IDN2_NO_ALABEL_ROUNDTRIP);
  if (rc == IDN2_OK) {
    out.append(result);
    idn2_free(result);
  }
  return rc;
}

// Non-transitional lookup, retried in transitional mode for IDNA2008-only
// failures when that cannot change the mapping (see 1. above).
int Uts46Lookup(const std::string& in, std::string& out) {
  const int rc = Idn2Lookup(in, IDN2_NONTRANSITIONAL, out);
  if (IsIdna2008OnlyError(rc) && TransitionalIsEquivalent(in)) {
    return Idn2Lookup(in, IDN2_TRANSITIONAL, out);
  }
  return rc;
}

// RFC 3492 Punycode parameters and bias adaptation.
constexpr uint32_t kPunyBase = 36, kPunyTMin = 1, kPunyTMax = 26, kPunySkew = 38,
                   kPunyDamp = 700, kPunyInitialBias = 72, kPunyInitialN = 128;

uint32_t PunycodeAdapt(uint32_t delta, uint32_t num_points, bool first) {
  delta = first ? delta / kPunyDamp : delta / 2;
  delta += delta / num_points;
  uint32_t k = 0;
  while (delta > ((kPunyBase - kPunyTMin) * kPunyTMax) / 2) {
    delta /= kPunyBase - kPunyTMin;
    k += kPunyBase;
  }
  return k + (kPunyBase - kPunyTMin + 1) * delta / (delta + kPunySkew);
}

uint32_t PunycodeThreshold(uint32_t k, uint32_t bias) {
  if (k <= bias) return kPunyTMin;
  if (k >= bias + kPunyTMax) return kPunyTMax;
  return k - bias;
}

// Punycode encoding of `input`, appended to `out` (without "xn--").
bool PunycodeEncode(const std::u32string& input, std::string& out) {
  auto digit = [](uint32_t d) {
    return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26));
  };
  uint32_t basic = 0;
  for (char32_t c : input) {
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++basic;
    }
  }
  if (basic > 0) out += '-';
  uint32_t n = kPunyInitialN, delta = 0, bias = kPunyInitialBias, handled = basic;
  while (handled < input.size()) {
    uint32_t m = UINT32_MAX;
    for (char32_t c : input) {
      if (c >= n && c < m) m = c;
    }
    if (m - n > (UINT32_MAX - delta) / (handled + 1)) return false;
    delta += (m - n) * (handled + 1);
    n = m;
    for (char32_t c : input) {
      if (c < n && ++delta == 0) return false;
      if (c != n) continue;
      uint32_t q = delta;
      for (uint32_t k = kPunyBase;; k += kPunyBase) {
        const uint32_t t = PunycodeThreshold(k, bias);
        if (q < t) break;
        out += digit(t + (q - t) % (kPunyBase - t));
        q = (q - t) / (kPunyBase - t);
      }
      out += digit(q);
      bias = PunycodeAdapt(delta, handled + 1, handled == basic);
      delta = 0;
      ++handled;
    }
    ++delta;
    ++n;
  }
  return true;
}

// Punycode decoding of `in` (without "xn--"), appended to `out`.
bool PunycodeDecode(std::string_view in, std::u32string& out) {
  const size_t first = out.size();
  const size_t dash = in.rfind('-');
  size_t pos = 0;
  if (dash != kNpos) {
    for (size_t k = 0; k < dash; ++k) {
      if (static_cast<uint8_t>(in[k]) >= 0x80) return false;
      out += static_cast<unsigned char>(in[k]);
    }
    pos = dash + 1;
  }
  uint32_t n = kPunyInitialN, i = 0, bias = kPunyInitialBias;
  while (pos < in.size()) {
    const uint32_t old_i = i;
    uint32_t w = 1;
    for (uint32_t k = kPunyBase;; k += kPunyBase) {
      if (pos >= in.size()) return false;
      const char c = in[pos++];
      uint32_t digit = kPunyBase;
      if (c >= '0' && c <= '9') digit = c - '0' + 26;
      if (c >= 'a' && c <= 'z') digit = c - 'a';
      if (c >= 'A' && c <= 'Z') digit = c - 'A';
      if (digit >= kPunyBase || digit > (UINT32_MAX - i) / w) return false;
      i += digit * w;
      const uint32_t t = PunycodeThreshold(k, bias);
      if (digit < t) break;
      if (w > UINT32_MAX / (kPunyBase - t)) return false;
      w *= kPunyBase - t;
    }
    const uint32_t count = static_cast<uint32_t>(out.size() - first) + 1;
    bias = PunycodeAdapt(i - old_i, count, old_i == 0);
    if (i / count > 0x10FFFF - n) return false;
    n += i / count;
    i %= count;
    if (n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF)) return false;
    out.insert(out.begin() + first + i, static_cast<char32_t>(n));
    ++i;
  }
  return true;
}

// Maps one non-ASCII label without hyphen or length checks (see 2. and 3.
// above) and appends its ASCII form. The label is cut before ASCII code
// points, which NFC never composes with what precedes them and the mapping
// handles one code point at a time, so each piece maps independently: a
// non-ASCII run together with the ASCII code point just before it (unless a
// hyphen); U+00DF and U+03C2 form pieces of their own.
bool LenientLabelToAscii(std::string_view label, std::string& out) {
  std::u32string mapped;
  std::string piece, ascii;
  size_t i = 0;
  while (i < label.size()) {
    size_t run = i;
    while (run < label.size() && static_cast<uint8_t>(label[run]) < 0x80) ++run;
    size_t piece_start = run;
    if (run < label.size() && run > i && label[run - 1] != '-') --piece_start;
    for (size_t k = i; k < piece_start; ++k) mapped += AsciiLower(label[k]);
    if (run == label.size()) break;
    size_t end = run;
    while (end < label.size() && static_cast<uint8_t>(label[end]) >= 0x80) {
      // U+00DF and U+03C2 are pieces of their own (nothing composes with
      // them), so the rest of the run may take the transitional retry.
      const bool sharp_or_sigma = label.compare(end, 2, "\xC3\x9F") == 0 ||
                                  label.compare(end, 2, "\xCF\x82") == 0;
      if (sharp_or_sigma) {
        if (end == piece_start) end += 2;
        break;
      }
      ++end;
    }
    piece.assign(label.substr(piece_start, end - piece_start));
    ascii.clear();
    int rc = Uts46Lookup(piece, ascii);
    // A piece cut off from its base character (after '-', U+00DF or U+03C2)
    // may start with a combining mark; give it the base "0", which composes
    // with nothing, and drop that again after mapping.
    const bool add_base = rc == IDN2_LEADING_COMBINING && piece_start > 0;
    if (add_base) {
      piece.insert(0, 1, '0');
      ascii.clear();
      rc = Uts46Lookup(piece, ascii);
    }
    if (rc != IDN2_OK || ascii.find('.') != kNpos) return false;
    const size_t piece_out = mapped.size();
    if (ascii.size() >= 4 && ascii.compare(0, 4, "xn--") == 0) {
      if (!PunycodeDecode(std::string_view(ascii).substr(4), mapped)) return false;
    } else {
      for (char c : ascii) mapped += static_cast<unsigned char>(c);
    }
    if (add_base) {
      if (mapped.size() == piece_out || mapped[piece_out] != U'0') return false;
      mapped.erase(piece_out, 1);
    }
    i = end;
  }
  bool all_ascii = true;
  for (char32_t c : mapped) all_ascii = all_ascii && c < 0x80;
  if (all_ascii) {
    for (char32_t c : mapped) out += static_cast<char>(c);
    return true;
  }
  out += "xn--";
  return PunycodeEncode(mapped, out);
}

// libidn2 2.3 ships an older UTS #46 table. For the few code points whose
// status changed in Unicode 15.1, returns the current mapping as UTF-8
// ("" = ignored); otherwise null. All but U+206A and U+206C..U+206F are
// confirmed by the WPT toascii data; those five share U+206B's properties.
const char* Uts46Patch(char32_t cp) {
  switch (cp) {
    case 0x1E9E: return "\xC3\x9F";      // LATIN CAPITAL SHARP S -> U+00DF
    case 0x04C0: return "\xD3\x8F";      // CYRILLIC PALOCHKA -> U+04CF
    case 0x2183: return "\xE2\x86\x84";  // ROMAN NUMERAL REVERSED C -> U+2184
    case 0x2F868: return "\xE3\x9B\xBC";  // CJK COMPAT. IDEOGRAPH -> U+36FC
    case 0x180E:                         // MONGOLIAN VOWEL SEPARATOR
    case 0x206A: case 0x206B: case 0x206C:  // deprecated format controls
    case 0x206D: case 0x206E: case 0x206F:
      return "";
    default:
      return nullptr;
  }
}

// Length of a label separator at s[i] (U+002E, U+3002, U+FF0E, U+FF61), or 0.
size_t DotLength(std::string_view s, size_t i) {
  if (s[i] == '.') return 1;
  if (i + 3 > s.size()) return 0;
  const std::string_view three = s.substr(i, 3);
  if (three == "\xE3\x80\x82" || three == "\xEF\xBC\x8E" ||
      three == "\xEF\xBD\xA1") {
    return 3;
  }
  return 0;
}

// Appends the ASCII form of a valid-UTF-8, non-ASCII `domain` to `out`.
bool DomainToAsciiIdn(std::string_view domain, std::string& out) {
  std::string input;
  input.reserve(domain.size());
  for (size_t i = 0, len = 0; i < domain.size(); i += len) {
    const char32_t cp = DecodeCodePoint(domain, i, &len);
    // NUL would end the C string early; it is forbidden anyway. (Other
    // forbidden ASCII may still compose away under NFC, e.g. "<" U+0338.)
    if (cp == 0) return false;
    if (const char* patch = Uts46Patch(cp); patch != nullptr) {
      input += patch;
    } else {
      input.append(domain, i, len);
    }
  }
  // Fast path: the whole domain at once, which also checks Bidi across labels.
  const size_t start_size = out.size();
  const int rc = Idn2Lookup(input, IDN2_NONTRANSITIONAL, out);
  if (rc == IDN2_OK) return true;
  if (!IsIdna2008OnlyError(rc) && !IsHyphenOrLengthError(rc)) return false;
  out.resize(start_size);

  // Label by label: ASCII labels without "xn--" are only lower-cased.
  std::string label;
  size_t start = 0;
  for (size_t i = 0; i <= input.size();) {
    const size_t dot = i < input.size() ? DotLength(input, i) : 1;
    if (dot == 0) {
      ++i;
      continue;
    }
    label.assign(input, start, i - start);
    if (IsAscii(label) &&
        !(label.size() >= 4 && EqualsIgnoreCase(label.substr(0, 4), "xn--"))) {
      for (char c : label) out += AsciiLower(c);
    } else if (!label.empty()) {
      const size_t before = out.size();
      const int label_rc = Uts46Lookup(label, out);
      if (label_rc != IDN2_OK) {
        out.resize(before);
        if (!IsHyphenOrLengthError(label_rc) && !IsIdna2008OnlyError(label_rc)) {
          return false;
        }
        if (IsAscii(label) || !LenientLabelToAscii(label, out)) return false;
      }
    }
    if (i < input.size()) out += '.';
    i += dot;
    start = i;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// The basic URL parser. Each state method consumes input from position p and
// appends to the href being built, then tail-calls the next state. Path and
// query are always the last thing written, so "shorten" is a truncation.
class UrlParser {
 public:
  UrlParser(std::string_view input, const Url* base, Url* url)
      : in_(input), base_(base), url_(*url), out_(url->href_) {}

  bool Run();
  const char* error() const { return error_; }

 private:
  using SchemeType = Url::SchemeType;

  int At(size_t p) const {
    return p < in_.size() ? static_cast<uint8_t>(in_[p]) : kEof;
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }
  bool special() const { return url_.scheme_type_ != SchemeType::kNotSpecial; }
  bool file() const { return url_.scheme_type_ == SchemeType::kFile; }
  bool base_is_file() const {
    return base_ != nullptr && base_->scheme_type_ == SchemeType::kFile;
  }
  bool IsSlash(int c) const { return c == '/' || (c == '\\' && special()); }
  size_t SkipSlashes(size_t p) const {
    while (At(p) == '/' || At(p) == '\\') ++p;
    return p;
  }

  void SetScheme(std::string_view lower_scheme_with_colon);
  void MarkPathStart() {
    if (url_.pathname_start_ == Url::kNone) url_.pathname_start_ = Size();
  }
  uint32_t Size() const { return static_cast<uint32_t>(out_.size()); }
  void CopyBaseAuthority();
  void CopyBasePath();
  void CopyBaseQuery();
  void ShortenPath();

  bool NoSchemeState();
  bool RelativeState(size_t p);
  bool AuthorityState(size_t p);
  bool HostState(size_t p, size_t end);
  bool ParseHost(std::string_view input, bool is_opaque);
  bool PathStartState(size_t p);
  bool PathState(size_t p);
  bool OpaquePathState(size_t p);
  bool QueryState(size_t p);
  bool FragmentState(size_t p);
  bool FileState(size_t p);
  bool FileHostState(size_t p);
  bool Finish();

  std::string_view in_;
  const Url* base_;
  Url& url_;
  std::string& out_;
  const char* error_ = "unknown";
};

namespace {

// Windows drive letter: ASCII alpha then ':' or '|'.
bool IsWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(static_cast<uint8_t>(s[0])) &&
         (s[1] == ':' || s[1] == '|');
}

bool StartsWithWindowsDriveLetter(std::string_view s) {
  if (s.size() < 2 || !IsWindowsDriveLetter(s.substr(0, 2))) return false;
  if (s.size() == 2) return true;
  const char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

bool IsSingleDot(std::string_view s) {
  return s == "." || EqualsIgnoreCase(s, "%2e");
}

bool IsDoubleDot(std::string_view s) {
  switch (s.size()) {
    case 2:
      return s == "..";
    case 4:
      return EqualsIgnoreCase(s, ".%2e") || EqualsIgnoreCase(s, "%2e.");
    case 6:
      return EqualsIgnoreCase(s, "%2e%2e");
    default:
      return false;
  }
}

int DefaultPort(std::string_view scheme) {
  if (scheme == "http" || scheme == "ws") return 80;
  if (scheme == "https" || scheme == "wss") return 443;
  if (scheme == "ftp") return 21;
  return -1;
}

}  // namespace

void UrlParser::SetScheme(std::string_view scheme_with_colon) {
  out_.append(scheme_with_colon);
  url_.protocol_end_ = Size();
  // Until an authority is written, the host is null and sits at the colon.
  url_.username_end_ = url_.host_start_ = url_.host_end_ = url_.protocol_end_;
  const std::string_view s = scheme_with_colon.substr(0, scheme_with_colon.size() - 1);
  SchemeType type = SchemeType::kNotSpecial;
  if (s == "http") {
    type = SchemeType::kHttp;
  } else if (s == "https") {
    type = SchemeType::kHttps;
  } else if (s == "ws") {
    type = SchemeType::kWs;
  } else if (s == "wss") {
    type = SchemeType::kWss;
  } else if (s == "ftp") {
    type = SchemeType::kFtp;
  } else if (s == "file") {
    type = SchemeType::kFile;
  }
  url_.scheme_type_ = type;
}

void UrlParser::CopyBaseAuthority() {
  if (!base_->has_host_) return;
  const uint32_t from = base_->protocol_end_;
  const uint32_t to = url_.protocol_end_;
  out_.append(base_->href_, from, base_->authority_end() - from);
  url_.username_end_ = base_->username_end_ - from + to;
  url_.host_start_ = base_->host_start_ - from + to;
  url_.host_end_ = base_->host_end_ - from + to;
  url_.port_ = base_->port_;
  url_.has_host_ = true;
}

void UrlParser::CopyBasePath() {
  MarkPathStart();
  out_.append(base_->href_, base_->pathname_start_,
              base_->path_end() - base_->pathname_start_);
}

void UrlParser::CopyBaseQuery() {
  if (base_->search_start_ == Url::kNone) return;
  const uint32_t end =
      base_->hash_start_ == Url::kNone ? static_cast<uint32_t>(base_->href_.size())
                                       : base_->hash_start_;
  url_.search_start_ = Size();
  out_.append(base_->href_, base_->search_start_, end - base_->search_start_);
}

void UrlParser::ShortenPath() {
  const size_t start = url_.pathname_start_;
  const size_t len = out_.size() - start;
  if (len == 0) return;
  if (file() && len == 3 && IsAsciiAlpha(static_cast<uint8_t>(out_[start + 1])) &&
      out_[start + 2] == ':') {
    return;  // a lone normalized Windows drive letter stays
  }
  out_.resize(out_.rfind('/'));
}

bool UrlParser::Run() {
  const size_t n = in_.size();
  if (n > 0 && IsAsciiAlpha(At(0))) {
    size_t q = 1;
    while (q < n && Has(in_[q], kSchemeChar)) ++q;
    if (q < n && in_[q] == ':') {
      char buf[32];
      std::string lowered;
      std::string_view scheme;
      if (q + 1 <= sizeof(buf)) {
        for (size_t i = 0; i < q; ++i) buf[i] = AsciiLower(in_[i]);
        buf[q] = ':';
        scheme = std::string_view(buf, q + 1);
      } else {
        lowered.reserve(q + 1);
        for (size_t i = 0; i < q; ++i) lowered += AsciiLower(in_[i]);
        lowered += ':';
        scheme = lowered;
      }
      SetScheme(scheme);
      const size_t p = q + 1;
      if (file()) return FileState(p);
      if (special()) {
        if (base_ != nullptr && base_->protocol() == scheme) {
          // special relative or authority state
          if (At(p) == '/' && At(p + 1) == '/') {
            return AuthorityState(SkipSlashes(p + 2));
          }
          return RelativeState(p);
        }
        // special authority slashes, then ignore slashes
        return AuthorityState(SkipSlashes(p));
      }
      if (At(p) == '/') {
        if (At(p + 1) == '/') return AuthorityState(p + 2);
        return PathState(p + 1);
      }
      return OpaquePathState(p);
    }
  }
  return NoSchemeState();
}

bool UrlParser::NoSchemeState() {
  const int c = At(0);
  if (base_ == nullptr || (base_->has_opaque_path_ && c != '#')) {
    return Fail("missing scheme and no usable base URL");
  }
  if (base_->has_opaque_path_) {
    // Same URL as base, new fragment.
    const uint32_t end = base_->hash_start_ == Url::kNone
                             ? static_cast<uint32_t>(base_->href_.size())
                             : base_->hash_start_;
    out_.append(base_->href_, 0, end);
    url_.protocol_end_ = base_->protocol_end_;
    url_.username_end_ = base_->username_end_;
    url_.host_start_ = base_->host_start_;
    url_.host_end_ = base_->host_end_;
    url_.pathname_start_ = base_->pathname_start_;
    url_.search_start_ = base_->search_start_;
    url_.port_ = base_->port_;
    url_.scheme_type_ = base_->scheme_type_;
    url_.has_host_ = base_->has_host_;
    url_.has_opaque_path_ = true;
    return FragmentState(1);
  }
  SetScheme(base_->protocol());
  if (file()) return FileState(0);
  return RelativeState(0);
}

bool UrlParser::RelativeState(size_t p) {
  const int c = At(p);
  if (IsSlash(c)) {
    // relative slash state
    const int c2 = At(p + 1);
    if (special() && (c2 == '/' || c2 == '\\')) {
      return AuthorityState(SkipSlashes(p + 2));
    }
    if (!special() && c2 == '/') return AuthorityState(p + 2);
    CopyBaseAuthority();
    return PathState(p + 1);
  }
  CopyBaseAuthority();
  CopyBasePath();
  if (c == kEof) {
    CopyBaseQuery();
    return Finish();
  }
  if (c == '?') return QueryState(p + 1);
  if (c == '#') {
    CopyBaseQuery();
    return FragmentState(p + 1);
  }
  ShortenPath();
  return PathState(p);
}

bool UrlParser::AuthorityState(size_t p) {
  const size_t n = in_.size();
  const uint16_t stop = special() ? kSpecialStop : kStop;
  size_t end = p;
  while (end < n && !Has(in_[end], stop)) ++end;
  out_ += "//";
  url_.has_host_ = true;
  size_t host_begin = p;
  const size_t at = in_.substr(p, end - p).rfind('@');
  const uint32_t userinfo_start = Size();
  if (at != kNpos) {
    if (p + at + 1 == end) return Fail("credentials without a host");
    const std::string_view userinfo = in_.substr(p, at);
    const size_t colon = userinfo.find(':');
    AppendPercentEncoded(out_, userinfo.substr(0, colon), kEncUserinfo);
    url_.username_end_ = Size();
    if (colon != kNpos) {
      out_ += ':';
      const size_t before = out_.size();
      AppendPercentEncoded(out_, userinfo.substr(colon + 1), kEncUserinfo);
      if (out_.size() == before) out_.pop_back();  // empty password
    }
    if (Size() != userinfo_start) out_ += '@';
    host_begin = p + at + 1;
  } else {
    url_.username_end_ = Size();
  }
  url_.host_start_ = Size();
  return HostState(host_begin, end);
}

bool UrlParser::HostState(size_t p, size_t end) {
  bool inside_brackets = false;
  size_t colon = kNpos;
  for (size_t i = p; i < end; ++i) {
    const char c = in_[i];
    if (c == '[') {
      inside_brackets = true;
    } else if (c == ']') {
      inside_brackets = false;
    } else if (c == ':' && !inside_brackets) {
      colon = i;
      break;
    }
  }
  const std::string_view host = in_.substr(p, (colon == kNpos ? end : colon) - p);
  if (host.empty() && (colon != kNpos || special())) {
    return Fail("missing host");
  }
  if (!ParseHost(host, !special())) return false;
  url_.host_end_ = Size();
  if (colon != kNpos) {
    // port state
    uint32_t port = 0;
    for (size_t i = colon + 1; i < end; ++i) {
      if (!IsAsciiDigit(At(i))) return Fail("invalid port");
      port = port * 10 + (in_[i] - '0');
      if (port > 65535) return Fail("port out of range");
    }
    if (colon + 1 < end && static_cast<int>(port) != DefaultPort(url_.scheme())) {
      out_ += ':';
      AppendDecimal(out_, port);
      url_.port_ = static_cast<int32_t>(port);
    }
  }
  return PathStartState(end);
}

bool UrlParser::ParseHost(std::string_view input, bool is_opaque) {
  if (!input.empty() && input[0] == '[') {
    if (input.size() < 2 || input.back() != ']') return Fail("unclosed IPv6 address");
    uint16_t address[8];
    if (!ParseIpv6(input.substr(1, input.size() - 2), address)) {
      return Fail("invalid IPv6 address");
    }
    AppendIpv6(out_, address);
    return true;
  }
  if (is_opaque) {
    for (char c : input) {
      if (Has(c, kForbiddenHost)) return Fail("forbidden host code point");
    }
    AppendPercentEncoded(out_, input, kEncC0);
    return true;
  }
  // Common case in one pass: append, lower-case, and check; fall back to the
  // general path on the first '%' or non-ASCII byte.
  const size_t start = out_.size();
  out_.append(input);
  bool simple = true;
  bool forbidden = false;  // decided only once the host is known to be ASCII
  for (size_t i = start; i < out_.size(); ++i) {
    const char c = out_[i];
    if (c == '%' || static_cast<uint8_t>(c) >= 0x80) {
      simple = false;
      break;
    }
    forbidden = forbidden || Has(c, kForbiddenDomain);
    out_[i] = AsciiLower(c);
  }
  if (simple && forbidden) return Fail("forbidden domain code point");
  if (!simple) {
    out_.resize(start);
    const std::string decoded = PercentDecode(input);
    if (IsAscii(decoded)) {
      // ASCII: lower-casing only, "xn--" labels included (see url.h).
      for (char c : decoded) {
        if (Has(c, kForbiddenDomain)) return Fail("forbidden domain code point");
        out_ += AsciiLower(c);
      }
    } else {
      if (!IsValidUtf8(decoded)) return Fail("invalid UTF-8 in host");
      if (!DomainToAsciiIdn(decoded, out_)) return Fail("domain to ASCII failed");
      for (size_t i = start; i < out_.size(); ++i) {
        if (Has(out_[i], kForbiddenDomain)) return Fail("forbidden domain code point");
      }
    }
  }
  if (out_.size() == start) return Fail("empty host");
  const std::string_view ascii(out_.data() + start, out_.size() - start);
  if (EndsInNumber(ascii)) {
    uint32_t address = 0;
    if (!ParseIpv4(ascii, &address)) return Fail("invalid IPv4 address");
    out_.resize(start);
    AppendIpv4(out_, address);
  }
  return true;
}

bool UrlParser::PathStartState(size_t p) {
  const int c = At(p);
  if (special()) return PathState(c == '/' || c == '\\' ? p + 1 : p);
  if (c == '?') return QueryState(p + 1);
  if (c == '#') return FragmentState(p + 1);
  if (c == kEof) return Finish();
  return PathState(c == '/' ? p + 1 : p);
}

bool UrlParser::PathState(size_t p) {
  MarkPathStart();
  const size_t n = in_.size();
  const bool special_url = special();
  const uint16_t stop = special_url ? kSpecialStop : kStop;
  while (true) {
    size_t q = p;
    while (q < n && !Has(in_[q], stop)) ++q;
    const std::string_view segment = in_.substr(p, q - p);
    const int c = At(q);
    const bool slash = c == '/' || (c == '\\' && special_url);
    if (IsDoubleDot(segment)) {
      ShortenPath();
      if (!slash) out_ += '/';
    } else if (IsSingleDot(segment)) {
      if (!slash) out_ += '/';
    } else {
      out_ += '/';
      if (file() && Size() == url_.pathname_start_ + 1 &&
          IsWindowsDriveLetter(segment)) {
        out_ += segment[0];
        out_ += ':';
      } else {
        AppendPercentEncoded(out_, segment, kEncPath);
      }
    }
    if (c == kEof) return Finish();
    if (c == '?') return QueryState(q + 1);
    if (c == '#') return FragmentState(q + 1);
    p = q + 1;
  }
}

bool UrlParser::OpaquePathState(size_t p) {
  MarkPathStart();
  url_.has_opaque_path_ = true;
  const size_t n = in_.size();
  size_t q = p;
  while (q < n && in_[q] != '?' && in_[q] != '#') ++q;
  AppendPercentEncoded(out_, in_.substr(p, q - p), kEncC0);
  if (q == n) return Finish();
  // A space right before '?' or '#' is encoded so it survives re-parsing.
  if (q > p && in_[q - 1] == ' ') {
    out_.pop_back();
    out_ += "%20";
  }
  return in_[q] == '?' ? QueryState(q + 1) : FragmentState(q + 1);
}

bool UrlParser::QueryState(size_t p) {
  MarkPathStart();
  size_t q = in_.find('#', p);
  if (q == kNpos) q = in_.size();
  url_.search_start_ = Size();
  out_ += '?';
  AppendPercentEncoded(out_, in_.substr(p, q - p),
                       special() ? kEncSpecialQuery : kEncQuery);
  if (q < in_.size()) return FragmentState(q + 1);
  return Finish();
}

bool UrlParser::FragmentState(size_t p) {
  MarkPathStart();
  url_.hash_start_ = Size();
  out_ += '#';
  if (p < in_.size()) AppendPercentEncoded(out_, in_.substr(p), kEncFragment);
  return Finish();
}

bool UrlParser::FileState(size_t p) {
  url_.has_host_ = true;  // a file URL's host is at least the empty host
  const int c = At(p);
  if (c == '/' || c == '\\') {
    const int c2 = At(p + 1);
    if (c2 == '/' || c2 == '\\') return FileHostState(p + 2);
    // file slash state
    out_ += "//";
    url_.username_end_ = url_.host_start_ = Size();
    if (base_is_file()) {
      out_.append(base_->hostname());
      url_.host_end_ = Size();
      const std::string_view base_path = base_->pathname();
      if (!StartsWithWindowsDriveLetter(in_.substr(p + 1)) &&
          base_path.size() >= 3 && base_path[0] == '/' &&
          IsAsciiAlpha(static_cast<uint8_t>(base_path[1])) && base_path[2] == ':' &&
          (base_path.size() == 3 || base_path[3] == '/')) {
        MarkPathStart();
        out_.append(base_path.substr(0, 3));
      }
    } else {
      url_.host_end_ = Size();
    }
    return PathState(p + 1);
  }
  out_ += "//";
  url_.username_end_ = url_.host_start_ = Size();
  if (base_is_file()) {
    out_.append(base_->hostname());
    url_.host_end_ = Size();
    CopyBasePath();
    if (c == kEof) {
      CopyBaseQuery();
      return Finish();
    }
    if (c == '?') return QueryState(p + 1);
    if (c == '#') {
      CopyBaseQuery();
      return FragmentState(p + 1);
    }
    if (!StartsWithWindowsDriveLetter(in_.substr(p))) {
      ShortenPath();
    } else {
      out_.resize(url_.pathname_start_);
    }
    return PathState(p);
  }
  url_.host_end_ = Size();
  return PathState(p);
}

bool UrlParser::FileHostState(size_t p) {
  const size_t n = in_.size();
  size_t q = p;
  while (q < n && !Has(in_[q], kSpecialStop)) ++q;
  const std::string_view host = in_.substr(p, q - p);
  out_ += "//";
  url_.username_end_ = url_.host_start_ = Size();
  if (IsWindowsDriveLetter(host)) {
    // "file://C:/x": the drive letter is the first path segment.
    url_.host_end_ = Size();
    return PathState(p);
  }
  if (!host.empty()) {
    if (!ParseHost(host, false)) return false;
    if (std::string_view(out_).substr(url_.host_start_) == "localhost") {
      out_.resize(url_.host_start_);
    }
  }
  url_.host_end_ = Size();
  return PathStartState(q);
}

bool UrlParser::Finish() {
  MarkPathStart();
  const uint32_t ps = url_.pathname_start_;
  // A hostless, non-opaque path starting with an empty segment would read
  // back as an authority; the serializer prefixes "/." to keep it a path.
  if (!url_.has_host_ && !url_.has_opaque_path_ && out_.size() >= ps + 2 &&
      out_[ps] == '/' && out_[ps + 1] == '/') {
    out_.insert(ps, "/.");
    url_.pathname_start_ += 2;
    if (url_.search_start_ != Url::kNone) url_.search_start_ += 2;
    if (url_.hash_start_ != Url::kNone) url_.hash_start_ += 2;
    url_.has_dot_prefix_ = true;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Url.

Result<Url> Url::Parse(std::string_view input, const Url* base) {
  // Strip leading and trailing C0 controls and spaces.
  size_t begin = 0;
  size_t end = input.size();
  while (begin < end && static_cast<uint8_t>(input[begin]) <= 0x20) ++begin;
  while (end > begin && static_cast<uint8_t>(input[end - 1]) <= 0x20) --end;
  std::string_view view = input.substr(begin, end - begin);
  if (view.size() > kMaxInputBytes) return InvalidArgumentError("URL too long");

  // Remove ASCII tab and newline anywhere (rare: copy only when present).
  std::string cleaned;
  const auto contains = [&](char c) {
    return std::memchr(view.data(), c, view.size()) != nullptr;
  };
  if (!view.empty() && (contains('\n') || contains('\t') || contains('\r'))) {
    cleaned.reserve(view.size());
    for (char c : view) {
      if (c != '\t' && c != '\n' && c != '\r') cleaned += c;
    }
    view = cleaned;
  }

  Url url;
  url.pathname_start_ = kNone;
  url.href_.reserve(view.size() + (base != nullptr ? base->href_.size() : 0) + 8);
  UrlParser parser(view, base, &url);
  if (!parser.Run()) {
    return InvalidArgumentError(std::string("invalid URL: ") + parser.error());
  }
  return url;
}

uint32_t Url::path_end() const {
  if (search_start_ != kNone) return search_start_;
  if (hash_start_ != kNone) return hash_start_;
  return static_cast<uint32_t>(href_.size());
}

std::string_view Url::username() const {
  return has_host_ ? Slice(protocol_end_ + 2, username_end_) : std::string_view();
}

std::string_view Url::password() const {
  if (!has_host_ || host_start_ <= username_end_ + 1) return {};
  return Slice(username_end_ + 1, host_start_ - 1);
}

bool Url::has_credentials() const {
  return has_host_ && host_start_ > protocol_end_ + 2;
}

std::string_view Url::host() const {
  return has_host_ ? Slice(host_start_, authority_end()) : std::string_view();
}

std::string_view Url::hostname() const {
  return has_host_ ? Slice(host_start_, host_end_) : std::string_view();
}

std::string_view Url::port() const {
  return port_ >= 0 ? Slice(host_end_ + 1, authority_end()) : std::string_view();
}

int Url::effective_port() const {
  if (port_ >= 0) return port_;
  return DefaultPort(scheme());
}

std::string_view Url::pathname() const { return Slice(pathname_start_, path_end()); }

std::string_view Url::search() const {
  if (search_start_ == kNone) return {};
  const uint32_t end =
      hash_start_ == kNone ? static_cast<uint32_t>(href_.size()) : hash_start_;
  if (end - search_start_ <= 1) return {};
  return Slice(search_start_, end);
}

std::string_view Url::hash() const {
  if (hash_start_ == kNone || href_.size() - hash_start_ <= 1) return {};
  return Slice(hash_start_, static_cast<uint32_t>(href_.size()));
}

std::string_view Url::href_without_fragment() const {
  return hash_start_ == kNone ? std::string_view(href_) : Slice(0, hash_start_);
}

void Url::ClearFragment() {
  if (hash_start_ == kNone) return;
  href_.resize(hash_start_);
  hash_start_ = kNone;
}

std::string Url::origin_key() const {
  if (!is_special()) return {};
  const std::string_view h = host();
  std::string key;
  key.reserve(protocol_end_ + 2 + h.size());
  key.append(href_, 0, protocol_end_);
  key += "//";
  key += h;
  return key;
}

}  // namespace zcrawl
