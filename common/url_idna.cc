#include <idn2.h>

#include "common/ascii.h"
#include "common/url_host.h"
#include "common/utf8.h"

namespace zcrawl::url_internal {

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

namespace {

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
    const char32_t cp = DecodeUtf8CodePoint(s, i, &len);
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
    for (size_t k = i; k < piece_start; ++k) mapped += ToLowerAscii(label[k]);
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

}  // namespace

// Appends the ASCII form of a valid-UTF-8, non-ASCII `domain` to `out`.
bool DomainToAsciiIdn(std::string_view domain, std::string& out) {
  std::string input;
  input.reserve(domain.size());
  for (size_t i = 0, len = 0; i < domain.size(); i += len) {
    const char32_t cp = DecodeUtf8CodePoint(domain, i, &len);
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
        !(label.size() >= 4 && EqualsIgnoreCaseAscii(label.substr(0, 4), "xn--"))) {
      for (char c : label) out += ToLowerAscii(c);
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

}  // namespace zcrawl::url_internal
