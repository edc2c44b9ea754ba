#include "fetcher/html_char_refs.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/ascii.h"
#include "common/utf8.h"

namespace zcrawl::fetcher {
namespace {

bool IsAsciiAlphanumeric(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }

// The names the HTML standard also matches without a ';' (its "legacy"
// references): a run of letters that is one of these, or in text starts
// with one, is a reference even unterminated.
constexpr std::array<std::string_view, 106> kLegacyNames = {
    "AElig",  "AMP",    "Aacute", "Acirc",  "Agrave", "Aring",  "Atilde", "Auml",   "COPY",   "Ccedil",
    "ETH",    "Eacute", "Ecirc",  "Egrave", "Euml",   "GT",     "Iacute", "Icirc",  "Igrave", "Iuml",
    "LT",     "Ntilde", "Oacute", "Ocirc",  "Ograve", "Oslash", "Otilde", "Ouml",   "QUOT",   "REG",
    "THORN",  "Uacute", "Ucirc",  "Ugrave", "Uuml",   "Yacute", "aacute", "acirc",  "acute",  "aelig",
    "agrave", "amp",    "aring",  "atilde", "auml",   "brvbar", "ccedil", "cedil",  "cent",   "copy",
    "curren", "deg",    "divide", "eacute", "ecirc",  "egrave", "eth",    "euml",   "frac12", "frac14",
    "frac34", "gt",     "iacute", "icirc",  "iexcl",  "igrave", "iquest", "iuml",   "laquo",  "lt",
    "macr",   "micro",  "middot", "nbsp",   "not",    "ntilde", "oacute", "ocirc",  "ograve", "ordf",
    "ordm",   "oslash", "otilde", "ouml",   "para",   "plusmn", "pound",  "quot",   "raquo",  "reg",
    "sect",   "shy",    "sup1",   "sup2",   "sup3",   "szlig",  "thorn",  "times",  "uacute", "ucirc",
    "ugrave", "uml",    "uuml",   "yacute", "yen",    "yuml"};

// The named references decoded here (the markup ones and those common in
// titles), a name and what it stands for, from the HTML standard's table.
struct Simple {
  std::string_view name;
  std::string_view value;
};
constexpr std::array<Simple, 27> kSimple = {{
    {"amp", "&"},
    {"AMP", "&"},
    {"lt", "<"},
    {"LT", "<"},
    {"gt", ">"},
    {"GT", ">"},
    {"quot", "\""},
    {"QUOT", "\""},
    {"apos", "'"},  // not legacy: only with ';'
    {"nbsp", "\xC2\xA0"},
    {"copy", "\xC2\xA9"},
    {"reg", "\xC2\xAE"},
    {"laquo", "\xC2\xAB"},
    {"raquo", "\xC2\xBB"},
    {"middot", "\xC2\xB7"},
    {"times", "\xC3\x97"},
    {"deg", "\xC2\xB0"},
    {"mdash", "\xE2\x80\x94"},  // from here on not legacy: only with ';'
    {"ndash", "\xE2\x80\x93"},
    {"hellip", "\xE2\x80\xA6"},
    {"lsquo", "\xE2\x80\x98"},
    {"rsquo", "\xE2\x80\x99"},
    {"ldquo", "\xE2\x80\x9C"},
    {"rdquo", "\xE2\x80\x9D"},
    {"bull", "\xE2\x80\xA2"},
    {"trade", "\xE2\x84\xA2"},
    {"euro", "\xE2\x82\xAC"},
}};

const Simple* FindSimple(std::string_view name) {
  for (const Simple& s : kSimple) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

bool IsLegacyName(std::string_view name) {
  return std::find(kLegacyNames.begin(), kLegacyNames.end(), name) != kLegacyNames.end();
}

bool StartsWithLegacyName(std::string_view run) {
  return std::any_of(kLegacyNames.begin(), kLegacyNames.end(),
                     [&](std::string_view name) { return run.starts_with(name); });
}

// A numeric reference's code point, when it is one the tokenizer keeps as
// it is (no replacement, no windows-1252 remapping, no control).
bool IsPlainCodePoint(uint32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\f') return true;
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) return false;
  if (cp >= 0xD800 && cp <= 0xDFFF) return false;
  if (cp > 0x10FFFF) return false;
  if ((cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return false;  // noncharacters
  return true;
}

void AppendNormalisingNewlines(std::string_view text, std::string* out) {
  size_t start = 0;
  for (size_t cr = text.find('\r'); cr != std::string_view::npos; cr = text.find('\r', start)) {
    out->append(text.substr(start, cr - start));
    out->push_back('\n');
    start = cr + 1;
    if (start < text.size() && text[start] == '\n') ++start;
  }
  out->append(text.substr(start));
}

}  // namespace

bool DecodeSimpleCharRefs(std::string_view raw, CharRefContext context, std::string* out) {
  size_t i = 0;
  while (i < raw.size()) {
    const size_t amp = raw.find('&', i);
    if (amp == std::string_view::npos) {
      AppendNormalisingNewlines(raw.substr(i), out);
      return true;
    }
    AppendNormalisingNewlines(raw.substr(i, amp - i), out);
    size_t p = amp + 1;
    if (p < raw.size() && raw[p] == '#') {
      ++p;
      const bool hex = p < raw.size() && (raw[p] == 'x' || raw[p] == 'X');
      if (hex) ++p;
      const size_t digits = p;
      uint32_t cp = 0;
      while (p < raw.size() && (hex ? HexDigitValue(raw[p]) >= 0 : IsAsciiDigit(raw[p]))) {
        cp = std::min<uint32_t>(cp * (hex ? 16 : 10) + (hex ? HexDigitValue(raw[p]) : raw[p] - '0'), 0x110000);
        ++p;
      }
      if (p == digits) {  // "&#" or "&#x" without digits: as written
        out->append(raw.substr(amp, p - amp));
        i = p;
        continue;
      }
      if (!IsPlainCodePoint(cp)) return false;
      if (p < raw.size() && raw[p] == ';') ++p;
      AppendUtf8CodePoint(cp, out);
      i = p;
      continue;
    }
    while (p < raw.size() && IsAsciiAlphanumeric(raw[p])) ++p;
    const std::string_view run = raw.substr(amp + 1, p - amp - 1);
    if (run.empty()) {  // "&" before anything else is an ampersand
      out->push_back('&');
      i = amp + 1;
      continue;
    }
    const bool semicolon = p < raw.size() && raw[p] == ';';
    if (semicolon) {
      // "&name;" is a reference when the table has the name (or, in text,
      // starts with a legacy one): decided only for the simple names.
      const Simple* simple = FindSimple(run);
      if (simple == nullptr) return false;
      out->append(simple->value);
      i = p + 1;
      continue;
    }
    if (context == CharRefContext::kAttribute) {
      // Unterminated in an attribute: only a legacy name that is the whole
      // run and not followed by '=' decodes.
      if ((p < raw.size() && raw[p] == '=') || !IsLegacyName(run)) {
        out->append(raw.substr(amp, p - amp));
        i = p;
        continue;
      }
      const Simple* simple = FindSimple(run);
      if (simple == nullptr) return false;
      out->append(simple->value);
      i = p;
      continue;
    }
    // Text: the longest legacy name the run starts with decodes.
    if (!StartsWithLegacyName(run)) {
      out->append(raw.substr(amp, p - amp));
      i = p;
      continue;
    }
    return false;
  }
  return true;
}

}  // namespace zcrawl::fetcher
