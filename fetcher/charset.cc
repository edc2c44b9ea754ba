#include "fetcher/charset.h"

#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/ascii.h"

namespace zcrawl::fetcher {
namespace {

constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";  // U+FFFD
constexpr size_t kPrescanBytes = 1024;

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualsIgnoreCaseAscii(s.substr(0, prefix.size()), prefix);
}

// ---------------------------------------------------------------------------
// Encoding Standard labels.

struct LabelEntry {
  std::string_view label;
  std::string_view name;
};

// Every label of the Encoding Standard, grouped by the encoding it names.
constexpr LabelEntry kLabels[] = {
    {"unicode-1-1-utf-8", "UTF-8"}, {"unicode11utf8", "UTF-8"},
    {"unicode20utf8", "UTF-8"}, {"utf-8", "UTF-8"}, {"utf8", "UTF-8"},
    {"x-unicode20utf8", "UTF-8"},
    {"866", "IBM866"}, {"cp866", "IBM866"}, {"csibm866", "IBM866"},
    {"ibm866", "IBM866"},
    {"csisolatin2", "ISO-8859-2"}, {"iso-8859-2", "ISO-8859-2"},
    {"iso-ir-101", "ISO-8859-2"}, {"iso8859-2", "ISO-8859-2"},
    {"iso88592", "ISO-8859-2"}, {"iso_8859-2", "ISO-8859-2"},
    {"iso_8859-2:1987", "ISO-8859-2"}, {"l2", "ISO-8859-2"},
    {"latin2", "ISO-8859-2"},
    {"csisolatin3", "ISO-8859-3"}, {"iso-8859-3", "ISO-8859-3"},
    {"iso-ir-109", "ISO-8859-3"}, {"iso8859-3", "ISO-8859-3"},
    {"iso88593", "ISO-8859-3"}, {"iso_8859-3", "ISO-8859-3"},
    {"iso_8859-3:1988", "ISO-8859-3"}, {"l3", "ISO-8859-3"},
    {"latin3", "ISO-8859-3"},
    {"csisolatin4", "ISO-8859-4"}, {"iso-8859-4", "ISO-8859-4"},
    {"iso-ir-110", "ISO-8859-4"}, {"iso8859-4", "ISO-8859-4"},
    {"iso88594", "ISO-8859-4"}, {"iso_8859-4", "ISO-8859-4"},
    {"iso_8859-4:1988", "ISO-8859-4"}, {"l4", "ISO-8859-4"},
    {"latin4", "ISO-8859-4"},
    {"csisolatincyrillic", "ISO-8859-5"}, {"cyrillic", "ISO-8859-5"},
    {"iso-8859-5", "ISO-8859-5"}, {"iso-ir-144", "ISO-8859-5"},
    {"iso8859-5", "ISO-8859-5"}, {"iso88595", "ISO-8859-5"},
    {"iso_8859-5", "ISO-8859-5"}, {"iso_8859-5:1988", "ISO-8859-5"},
    {"arabic", "ISO-8859-6"}, {"asmo-708", "ISO-8859-6"},
    {"csiso88596e", "ISO-8859-6"}, {"csiso88596i", "ISO-8859-6"},
    {"csisolatinarabic", "ISO-8859-6"}, {"ecma-114", "ISO-8859-6"},
    {"iso-8859-6", "ISO-8859-6"}, {"iso-8859-6-e", "ISO-8859-6"},
    {"iso-8859-6-i", "ISO-8859-6"}, {"iso-ir-127", "ISO-8859-6"},
    {"iso8859-6", "ISO-8859-6"}, {"iso88596", "ISO-8859-6"},
    {"iso_8859-6", "ISO-8859-6"}, {"iso_8859-6:1987", "ISO-8859-6"},
    {"csisolatingreek", "ISO-8859-7"}, {"ecma-118", "ISO-8859-7"},
    {"elot_928", "ISO-8859-7"}, {"greek", "ISO-8859-7"},
    {"greek8", "ISO-8859-7"}, {"iso-8859-7", "ISO-8859-7"},
    {"iso-ir-126", "ISO-8859-7"}, {"iso8859-7", "ISO-8859-7"},
    {"iso88597", "ISO-8859-7"}, {"iso_8859-7", "ISO-8859-7"},
    {"iso_8859-7:1987", "ISO-8859-7"}, {"sun_eu_greek", "ISO-8859-7"},
    {"csiso88598e", "ISO-8859-8"}, {"csisolatinhebrew", "ISO-8859-8"},
    {"hebrew", "ISO-8859-8"}, {"iso-8859-8", "ISO-8859-8"},
    {"iso-8859-8-e", "ISO-8859-8"}, {"iso-ir-138", "ISO-8859-8"},
    {"iso8859-8", "ISO-8859-8"}, {"iso88598", "ISO-8859-8"},
    {"iso_8859-8", "ISO-8859-8"}, {"iso_8859-8:1988", "ISO-8859-8"},
    {"visual", "ISO-8859-8"},
    {"csiso88598i", "ISO-8859-8-I"}, {"iso-8859-8-i", "ISO-8859-8-I"},
    {"logical", "ISO-8859-8-I"},
    {"csisolatin6", "ISO-8859-10"}, {"iso-8859-10", "ISO-8859-10"},
    {"iso-ir-157", "ISO-8859-10"}, {"iso8859-10", "ISO-8859-10"},
    {"iso885910", "ISO-8859-10"}, {"l6", "ISO-8859-10"},
    {"latin6", "ISO-8859-10"},
    {"iso-8859-13", "ISO-8859-13"}, {"iso8859-13", "ISO-8859-13"},
    {"iso885913", "ISO-8859-13"},
    {"iso-8859-14", "ISO-8859-14"}, {"iso8859-14", "ISO-8859-14"},
    {"iso885914", "ISO-8859-14"},
    {"csisolatin9", "ISO-8859-15"}, {"iso-8859-15", "ISO-8859-15"},
    {"iso8859-15", "ISO-8859-15"}, {"iso885915", "ISO-8859-15"},
    {"iso_8859-15", "ISO-8859-15"}, {"l9", "ISO-8859-15"},
    {"iso-8859-16", "ISO-8859-16"},
    {"cskoi8r", "KOI8-R"}, {"koi", "KOI8-R"}, {"koi8", "KOI8-R"},
    {"koi8-r", "KOI8-R"}, {"koi8_r", "KOI8-R"},
    {"koi8-ru", "KOI8-U"}, {"koi8-u", "KOI8-U"},
    {"csmacintosh", "macintosh"}, {"mac", "macintosh"},
    {"macintosh", "macintosh"}, {"x-mac-roman", "macintosh"},
    {"dos-874", "windows-874"}, {"iso-8859-11", "windows-874"},
    {"iso8859-11", "windows-874"}, {"iso885911", "windows-874"},
    {"tis-620", "windows-874"}, {"windows-874", "windows-874"},
    {"cp1250", "windows-1250"}, {"windows-1250", "windows-1250"},
    {"x-cp1250", "windows-1250"},
    {"cp1251", "windows-1251"}, {"windows-1251", "windows-1251"},
    {"x-cp1251", "windows-1251"},
    {"ansi_x3.4-1968", "windows-1252"}, {"ascii", "windows-1252"},
    {"cp1252", "windows-1252"}, {"cp819", "windows-1252"},
    {"csisolatin1", "windows-1252"}, {"ibm819", "windows-1252"},
    {"iso-8859-1", "windows-1252"}, {"iso-ir-100", "windows-1252"},
    {"iso8859-1", "windows-1252"}, {"iso88591", "windows-1252"},
    {"iso_8859-1", "windows-1252"}, {"iso_8859-1:1987", "windows-1252"},
    {"l1", "windows-1252"}, {"latin1", "windows-1252"},
    {"us-ascii", "windows-1252"}, {"windows-1252", "windows-1252"},
    {"x-cp1252", "windows-1252"},
    {"cp1253", "windows-1253"}, {"windows-1253", "windows-1253"},
    {"x-cp1253", "windows-1253"},
    {"cp1254", "windows-1254"}, {"csisolatin5", "windows-1254"},
    {"iso-8859-9", "windows-1254"}, {"iso-ir-148", "windows-1254"},
    {"iso8859-9", "windows-1254"}, {"iso88599", "windows-1254"},
    {"iso_8859-9", "windows-1254"}, {"iso_8859-9:1989", "windows-1254"},
    {"l5", "windows-1254"}, {"latin5", "windows-1254"},
    {"windows-1254", "windows-1254"}, {"x-cp1254", "windows-1254"},
    {"cp1255", "windows-1255"}, {"windows-1255", "windows-1255"},
    {"x-cp1255", "windows-1255"},
    {"cp1256", "windows-1256"}, {"windows-1256", "windows-1256"},
    {"x-cp1256", "windows-1256"},
    {"cp1257", "windows-1257"}, {"windows-1257", "windows-1257"},
    {"x-cp1257", "windows-1257"},
    {"cp1258", "windows-1258"}, {"windows-1258", "windows-1258"},
    {"x-cp1258", "windows-1258"},
    {"x-mac-cyrillic", "x-mac-cyrillic"}, {"x-mac-ukrainian", "x-mac-cyrillic"},
    {"chinese", "GBK"}, {"csgb2312", "GBK"}, {"csiso58gb231280", "GBK"},
    {"gb2312", "GBK"}, {"gb_2312", "GBK"}, {"gb_2312-80", "GBK"},
    {"gbk", "GBK"}, {"iso-ir-58", "GBK"}, {"x-gbk", "GBK"},
    {"gb18030", "gb18030"},
    {"big5", "Big5"}, {"big5-hkscs", "Big5"}, {"cn-big5", "Big5"},
    {"csbig5", "Big5"}, {"x-x-big5", "Big5"},
    {"cseucpkdfmtjapanese", "EUC-JP"}, {"euc-jp", "EUC-JP"},
    {"x-euc-jp", "EUC-JP"},
    {"csiso2022jp", "ISO-2022-JP"}, {"iso-2022-jp", "ISO-2022-JP"},
    {"csshiftjis", "Shift_JIS"}, {"ms932", "Shift_JIS"},
    {"ms_kanji", "Shift_JIS"}, {"shift-jis", "Shift_JIS"},
    {"shift_jis", "Shift_JIS"}, {"sjis", "Shift_JIS"},
    {"windows-31j", "Shift_JIS"}, {"x-sjis", "Shift_JIS"},
    {"cseuckr", "EUC-KR"}, {"csksc56011987", "EUC-KR"}, {"euc-kr", "EUC-KR"},
    {"iso-ir-149", "EUC-KR"}, {"korean", "EUC-KR"},
    {"ks_c_5601-1987", "EUC-KR"}, {"ks_c_5601-1989", "EUC-KR"},
    {"ksc5601", "EUC-KR"}, {"ksc_5601", "EUC-KR"}, {"windows-949", "EUC-KR"},
    {"csiso2022kr", "replacement"}, {"hz-gb-2312", "replacement"},
    {"iso-2022-cn", "replacement"}, {"iso-2022-cn-ext", "replacement"},
    {"iso-2022-kr", "replacement"}, {"replacement", "replacement"},
    {"unicodefffe", "UTF-16BE"}, {"utf-16be", "UTF-16BE"},
    {"csunicode", "UTF-16LE"}, {"iso-10646-ucs-2", "UTF-16LE"},
    {"ucs-2", "UTF-16LE"}, {"unicode", "UTF-16LE"},
    {"unicodefeff", "UTF-16LE"}, {"utf-16", "UTF-16LE"},
    {"utf-16le", "UTF-16LE"},
    {"x-user-defined", "x-user-defined"},
};

const std::unordered_map<std::string_view, std::string_view>& LabelMap() {
  static const auto* const kMap = [] {
    auto* map = new std::unordered_map<std::string_view, std::string_view>();
    for (const LabelEntry& entry : kLabels) map->emplace(entry.label, entry.name);
    return map;
  }();
  return *kMap;
}

// The glibc iconv name that decodes the canonical encoding `name` the way the
// Encoding Standard does (or the closest glibc has), "" if none.
std::string_view IconvName(std::string_view name) {
  if (name == "ISO-8859-8-I") return "ISO-8859-8";
  if (name == "macintosh") return "MACINTOSH";
  if (name == "x-mac-cyrillic") return "MAC-UK";
  // The Encoding Standard decodes GBK labels with the gb18030 decoder.
  if (name == "GBK" || name == "gb18030") return "GB18030";
  if (name == "Big5") return "BIG5-HKSCS";
  if (name == "Shift_JIS") return "WINDOWS-31J";
  if (name == "EUC-KR") return "UHC";  // windows-949, a superset of EUC-KR
  // IBM866, ISO-8859-x, KOI8-x, windows-125x, EUC-JP, ISO-2022-JP, UTF-16xx:
  // glibc knows them by their canonical names.
  return name;
}

// ---------------------------------------------------------------------------
// UTF-8.

enum class Utf8Step { kValid, kInvalid, kTruncated };

// Looks at the sequence starting at text[pos] (non-ASCII lead byte). Sets
// *length to the bytes of a valid sequence, or of the maximal invalid
// subpart (at least 1), the unit that becomes one U+FFFD.
Utf8Step DecodeUtf8Sequence(std::string_view text, size_t pos, size_t* length) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(pos);
  size_t needed = 0;
  uint8_t lower = 0x80;
  uint8_t upper = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    needed = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    needed = 2;
    if (lead == 0xE0) lower = 0xA0;
    if (lead == 0xED) upper = 0x9F;  // no UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    needed = 3;
    if (lead == 0xF0) lower = 0x90;
    if (lead == 0xF4) upper = 0x8F;  // nothing above U+10FFFF
  } else {
    *length = 1;
    return Utf8Step::kInvalid;
  }
  size_t i = 1;
  for (; i <= needed; ++i) {
    if (pos + i >= text.size()) {
      *length = i;
      return Utf8Step::kTruncated;
    }
    const uint8_t b = byte(pos + i);
    if (b < lower || b > upper) {
      *length = i;
      return Utf8Step::kInvalid;
    }
    lower = 0x80;
    upper = 0xBF;
  }
  *length = i;
  return Utf8Step::kValid;
}

bool HasNonAsciiOrZero(uint64_t word) {
  constexpr uint64_t kLow = 0x0101010101010101ULL;
  constexpr uint64_t kHigh = 0x8080808080808080ULL;
  return ((word | ((word - kLow) & ~word)) & kHigh) != 0;
}

// Offset of the first byte that starts an invalid (or truncated) sequence or,
// when `nul_is_bad`, is NUL; npos if there is none.
size_t FindUtf8Problem(std::string_view text, bool nul_is_bad) {
  size_t pos = 0;
  const size_t size = text.size();
  while (pos < size) {
    if (pos + 8 <= size) {
      uint64_t word;
      std::memcpy(&word, text.data() + pos, 8);
      if (!HasNonAsciiOrZero(word)) {
        pos += 8;
        continue;
      }
    }
    const auto b = static_cast<uint8_t>(text[pos]);
    if (b < 0x80) {
      if (b == 0 && nul_is_bad) return pos;
      ++pos;
      continue;
    }
    size_t length = 0;
    if (DecodeUtf8Sequence(text, pos, &length) != Utf8Step::kValid) return pos;
    pos += length;
  }
  return std::string_view::npos;
}

// Appends `text` to `out`, replacing each invalid unit (and NUL when
// `replace_nul`) with U+FFFD.
void AppendUtf8Replacing(std::string_view text, bool replace_nul,
                         std::string* out) {
  while (!text.empty()) {
    const size_t bad = FindUtf8Problem(text, replace_nul);
    if (bad == std::string_view::npos) {
      out->append(text);
      return;
    }
    out->append(text.substr(0, bad));
    size_t length = 1;
    if (static_cast<uint8_t>(text[bad]) >= 0x80) {
      DecodeUtf8Sequence(text, bad, &length);
    }
    out->append(kReplacementUtf8);
    text.remove_prefix(bad + length);
  }
}

std::string RepairUtf8(std::string text, bool replace_nul) {
  const size_t bad = FindUtf8Problem(text, replace_nul);
  if (bad == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + text.size() / 8 + 16);
  out.append(text, 0, bad);
  AppendUtf8Replacing(std::string_view(text).substr(bad), replace_nul, &out);
  return out;
}

// True if `text` is UTF-8 except, possibly, for a sequence cut off at its end.
bool LooksLikeUtf8(std::string_view text) {
  const size_t bad = FindUtf8Problem(text, /*nul_is_bad=*/false);
  if (bad == std::string_view::npos) return true;
  size_t length = 0;
  return DecodeUtf8Sequence(text, bad, &length) == Utf8Step::kTruncated &&
         bad + length == text.size();
}

void AppendCodePoint(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// ---------------------------------------------------------------------------
// Single-byte decoders we do ourselves.

// windows-1252 bytes 0x80..0x9F; the rest map to the same code point.
constexpr uint16_t kWindows1252High[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
    0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
};

std::string DecodeWindows1252(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 4);
  for (char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else if (b < 0xA0) {
      AppendCodePoint(kWindows1252High[b - 0x80], &out);
    } else {
      AppendCodePoint(b, &out);
    }
  }
  return out;
}

std::string DecodeXUserDefined(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() + bytes.size() / 2);
  for (char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    if (b < 0x80) {
      out.push_back(c);
    } else {
      AppendCodePoint(0xF780 + b - 0x80, &out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// iconv.

class IconvHandle {
 public:
  explicit IconvHandle(const char* from) : cd_(iconv_open("UTF-8", from)) {}
  ~IconvHandle() {
    if (ok()) iconv_close(cd_);
  }
  IconvHandle(const IconvHandle&) = delete;
  IconvHandle& operator=(const IconvHandle&) = delete;

  bool ok() const { return cd_ != reinterpret_cast<iconv_t>(-1); }
  iconv_t get() const { return cd_; }

 private:
  iconv_t cd_;
};

// Converts with `cd`, writing U+FFFD for each invalid unit (`unit_bytes`
// skipped per error) and for a truncated tail.
std::string ConvertWithIconv(iconv_t cd, std::string_view bytes,
                             size_t unit_bytes) {
  std::string out;
  out.resize(bytes.size() + bytes.size() / 2 + 16);
  char* in_ptr = const_cast<char*>(bytes.data());
  size_t in_left = bytes.size();
  size_t used = 0;
  bool flushed = false;
  while (!flushed) {
    char* out_ptr = out.data() + used;
    size_t out_left = out.size() - used;
    // With no input left, one more call returns the shift state to initial.
    const bool flushing = in_left == 0;
    const size_t rc = flushing
                          ? iconv(cd, nullptr, nullptr, &out_ptr, &out_left)
                          : iconv(cd, &in_ptr, &in_left, &out_ptr, &out_left);
    const int error = rc == static_cast<size_t>(-1) ? errno : 0;
    used = out_ptr - out.data();
    if (error == 0) {
      flushed = flushing;
      continue;
    }
    if (error == E2BIG) {
      out.resize(out.size() * 2);
      continue;
    }
    if (flushing) break;  // nothing left to replace or skip
    // EILSEQ: an invalid unit; EINVAL: the input ends inside a sequence.
    // Anything else is treated like EILSEQ so that we always make progress.
    if (out.size() - used < kReplacementUtf8.size()) out.resize(out.size() * 2);
    out.replace(used, kReplacementUtf8.size(), kReplacementUtf8);
    used += kReplacementUtf8.size();
    const size_t skip =
        error == EINVAL ? in_left : std::min(unit_bytes, in_left);
    in_ptr += skip;
    in_left -= skip;
  }
  out.resize(used);
  return out;
}

// ---------------------------------------------------------------------------
// Sniffing.

// Canonical name of the encoding a byte order mark at the start of `bytes`
// names, and the BOM's length; "" if there is no BOM.
std::string_view SniffBom(std::string_view bytes, size_t* bom_length) {
  if (bytes.starts_with("\xEF\xBB\xBF")) {
    *bom_length = 3;
    return "UTF-8";
  }
  if (bytes.starts_with("\xFE\xFF")) {
    *bom_length = 2;
    return "UTF-16BE";
  }
  if (bytes.starts_with("\xFF\xFE")) {
    *bom_length = 2;
    return "UTF-16LE";
  }
  *bom_length = 0;
  return "";
}

// The charset parameter of a Content-Type header value, unquoted; "" if none.
std::string CharsetParam(std::string_view content_type) {
  size_t pos = content_type.find(';');
  while (pos != std::string_view::npos && pos < content_type.size()) {
    ++pos;  // past ';'
    const size_t eq = content_type.find_first_of("=;", pos);
    if (eq == std::string_view::npos) return "";
    if (content_type[eq] == ';') {  // a parameter without a value
      pos = eq;
      continue;
    }
    const std::string_view name =
        TrimAsciiWhitespace(content_type.substr(pos, eq - pos));
    size_t value_pos = eq + 1;
    while (value_pos < content_type.size() &&
           IsAsciiWhitespace(content_type[value_pos])) {
      ++value_pos;
    }
    std::string value;
    if (value_pos < content_type.size() && content_type[value_pos] == '"') {
      size_t i = value_pos + 1;
      for (; i < content_type.size() && content_type[i] != '"'; ++i) {
        if (content_type[i] == '\\' && i + 1 < content_type.size()) ++i;
        value.push_back(content_type[i]);
      }
      pos = content_type.find(';', i);
    } else {
      pos = content_type.find(';', value_pos);
      value = TrimAsciiWhitespace(content_type.substr(
          value_pos, pos == std::string_view::npos ? std::string_view::npos
                                                   : pos - value_pos));
    }
    if (EqualsIgnoreCaseAscii(name, "charset")) return value;
  }
  return "";
}

// The HTML standard's "prescan a byte stream to determine its encoding",
// returning a canonical name or "".
class MetaPrescanner {
 public:
  explicit MetaPrescanner(std::string_view bytes)
      : bytes_(bytes.substr(0, kPrescanBytes)) {}

  std::string Run() {
    while (pos_ < bytes_.size()) {
      const std::string_view rest = bytes_.substr(pos_);
      if (rest.starts_with("<!--")) {
        const size_t end = bytes_.find("-->", pos_ + 2);
        if (end == std::string_view::npos) return "";
        pos_ = end + 3;
      } else if (StartsWithIgnoreCase(rest, "<meta") && rest.size() > 5 &&
                 (IsAsciiWhitespace(rest[5]) || rest[5] == '/')) {
        pos_ += 6;
        std::string charset = ScanMeta();
        if (!charset.empty()) return charset;
      } else if (rest.size() >= 2 && rest[0] == '<' &&
                 (IsAsciiAlpha(rest[1]) ||
                  (rest[1] == '/' && rest.size() >= 3 &&
                   IsAsciiAlpha(rest[2])))) {
        pos_ = bytes_.find_first_of(" \t\n\f\r>", pos_);
        if (pos_ == std::string_view::npos) return "";
        std::string name;
        std::string value;
        while (GetAttribute(&name, &value)) {
        }
        ++pos_;
      } else if (rest.starts_with("<!") || rest.starts_with("</") ||
                 rest.starts_with("<?")) {
        pos_ = bytes_.find('>', pos_ + 2);
        if (pos_ == std::string_view::npos) return "";
        ++pos_;
      } else {
        ++pos_;
      }
    }
    return "";
  }

 private:
  static bool IsAsciiAlpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  // Attributes of one <meta>; the encoding it declares, or "".
  std::string ScanMeta() {
    std::vector<std::string> seen;
    bool got_pragma = false;
    enum class NeedPragma { kUnset, kYes, kNo } need_pragma = NeedPragma::kUnset;
    std::string charset;
    std::string name;
    std::string value;
    while (GetAttribute(&name, &value)) {
      bool duplicate = false;
      for (const std::string& s : seen) duplicate = duplicate || s == name;
      if (duplicate) continue;
      seen.push_back(name);
      if (name == "http-equiv") {
        got_pragma = got_pragma || value == "content-type";
      } else if (name == "content") {
        if (charset.empty()) {
          const std::string declared = CharsetFromMetaContent(value);
          if (!declared.empty()) {
            charset = NormalizeCharsetLabel(declared);
            need_pragma = NeedPragma::kYes;
          }
        }
      } else if (name == "charset") {
        charset = NormalizeCharsetLabel(value);
        need_pragma = NeedPragma::kNo;
      }
    }
    ++pos_;  // past '>'
    if (need_pragma == NeedPragma::kUnset) return "";
    if (need_pragma == NeedPragma::kYes && !got_pragma) return "";
    if (charset == "UTF-16LE" || charset == "UTF-16BE") return "UTF-8";
    if (charset == "x-user-defined") return "windows-1252";
    return charset;
  }

  // "Get an attribute": name lower-cased, value lower-cased as the standard
  // does. Returns false at '>' or at the end of the prescanned bytes, where
  // pos_ is left on the '>' (or past the end).
  bool GetAttribute(std::string* name, std::string* value) {
    name->clear();
    value->clear();
    while (pos_ < bytes_.size() &&
           (IsAsciiWhitespace(bytes_[pos_]) || bytes_[pos_] == '/')) {
      ++pos_;
    }
    if (pos_ >= bytes_.size() || bytes_[pos_] == '>') return false;
    // Name.
    while (true) {
      if (pos_ >= bytes_.size()) return false;
      const char c = bytes_[pos_];
      if (c == '=' && !name->empty()) {
        ++pos_;
        break;
      }
      if (IsAsciiWhitespace(c)) {
        while (pos_ < bytes_.size() && IsAsciiWhitespace(bytes_[pos_])) ++pos_;
        if (pos_ >= bytes_.size()) return false;
        if (bytes_[pos_] != '=') return true;
        ++pos_;
        break;
      }
      if (c == '/' || c == '>') return true;
      name->push_back(ToLowerAscii(c));
      ++pos_;
    }
    // Value.
    while (pos_ < bytes_.size() && IsAsciiWhitespace(bytes_[pos_])) ++pos_;
    if (pos_ >= bytes_.size()) return false;
    const char first = bytes_[pos_];
    if (first == '"' || first == '\'') {
      ++pos_;
      while (true) {
        if (pos_ >= bytes_.size()) return false;
        if (bytes_[pos_] == first) {
          ++pos_;
          return true;
        }
        value->push_back(ToLowerAscii(bytes_[pos_++]));
      }
    }
    if (first == '>') return true;
    while (pos_ < bytes_.size() && !IsAsciiWhitespace(bytes_[pos_]) &&
           bytes_[pos_] != '>') {
      value->push_back(ToLowerAscii(bytes_[pos_++]));
    }
    return pos_ < bytes_.size();
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

std::string NormalizeCharsetLabel(std::string_view label) {
  label = TrimAsciiWhitespace(label);
  if (label.empty() || label.size() > 32) return "";
  const std::string lower = AsciiLower(label);
  const auto& map = LabelMap();
  const auto it = map.find(lower);
  return it == map.end() ? "" : std::string(it->second);
}

std::string CharsetFromMetaContent(std::string_view content) {
  size_t pos = 0;
  while (true) {
    size_t found = std::string_view::npos;
    for (size_t i = pos; i + 7 <= content.size(); ++i) {
      if (EqualsIgnoreCaseAscii(content.substr(i, 7), "charset")) {
        found = i;
        break;
      }
    }
    if (found == std::string_view::npos) return "";
    pos = found + 7;
    while (pos < content.size() && IsAsciiWhitespace(content[pos])) ++pos;
    if (pos >= content.size() || content[pos] != '=') continue;
    ++pos;
    while (pos < content.size() && IsAsciiWhitespace(content[pos])) ++pos;
    if (pos >= content.size()) return "";
    const char quote = content[pos];
    if (quote == '"' || quote == '\'') {
      const size_t end = content.find(quote, pos + 1);
      if (end == std::string_view::npos) return "";
      return std::string(content.substr(pos + 1, end - pos - 1));
    }
    size_t end = pos;
    while (end < content.size() && !IsAsciiWhitespace(content[end]) &&
           content[end] != ';') {
      ++end;
    }
    return std::string(content.substr(pos, end - pos));
  }
}

std::string DetectCharset(std::string_view content_type_header,
                          std::string_view body_prefix) {
  size_t bom_length = 0;
  const std::string_view bom = SniffBom(body_prefix, &bom_length);
  if (!bom.empty()) return std::string(bom);

  std::string from_header =
      NormalizeCharsetLabel(CharsetParam(content_type_header));
  if (!from_header.empty()) return from_header;

  std::string from_meta = MetaPrescanner(body_prefix).Run();
  if (!from_meta.empty()) return from_meta;

  return LooksLikeUtf8(body_prefix) ? "UTF-8" : "windows-1252";
}

Result<std::string> DecodeToUtf8(std::string bytes, std::string_view charset) {
  size_t bom_length = 0;
  std::string name(SniffBom(bytes, &bom_length));
  if (!name.empty()) {
    bytes.erase(0, bom_length);
  } else {
    name = NormalizeCharsetLabel(charset);
    if (name.empty()) {
      return InvalidArgumentError("unknown charset label: " +
                                  std::string(charset.substr(0, 64)));
    }
  }

  if (name == "UTF-8") return RepairUtf8(std::move(bytes), /*replace_nul=*/false);
  if (name == "windows-1252") return DecodeWindows1252(bytes);
  if (name == "x-user-defined") return DecodeXUserDefined(bytes);
  if (name == "replacement") {
    return bytes.empty() ? std::string() : std::string(kReplacementUtf8);
  }
  const std::string iconv_name(IconvName(name));
  IconvHandle handle(iconv_name.c_str());
  if (!handle.ok()) {
    return NotFoundError("no iconv converter for " + name);
  }
  const size_t unit_bytes = name.starts_with("UTF-16") ? 2 : 1;
  // iconv should only ever produce valid UTF-8; repair anyway so that the
  // contract never depends on a converter's corner cases.
  return RepairUtf8(ConvertWithIconv(handle.get(), bytes, unit_bytes),
                    /*replace_nul=*/false);
}

bool IsCleanUtf8(std::string_view text) {
  return FindUtf8Problem(text, /*nul_is_bad=*/true) == std::string_view::npos;
}

std::string SanitizeUtf8(std::string text) {
  return RepairUtf8(std::move(text), /*replace_nul=*/true);
}

}  // namespace zcrawl::fetcher
