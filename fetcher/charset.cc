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
#include "common/utf8.h"
#include "fetcher/charset_labels.h"

namespace zcrawl::fetcher {
namespace {

constexpr std::string_view kReplacementUtf8 = "\xEF\xBF\xBD";  // U+FFFD
constexpr size_t kPrescanBytes = 1024;

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         EqualsIgnoreCaseAscii(s.substr(0, prefix.size()), prefix);
}

// ---------------------------------------------------------------------------
// UTF-8 (common/utf8.h has the validator and the repair).

// True if `text` is UTF-8 except, possibly, for a sequence cut off at its end.
bool LooksLikeUtf8(std::string_view text) {
  const size_t bad = FindUtf8Problem(text, /*nul_is_bad=*/false);
  if (bad == std::string_view::npos) return true;
  size_t length = 0;
  return ExamineUtf8Sequence(text, bad, &length) == Utf8Sequence::kTruncated &&
         bad + length == text.size();
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
      AppendUtf8CodePoint(kWindows1252High[b - 0x80], &out);
    } else {
      AppendUtf8CodePoint(b, &out);
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
      AppendUtf8CodePoint(0xF780 + b - 0x80, &out);
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
