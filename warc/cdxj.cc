#include "warc/cdxj.h"

#include <algorithm>
#include <vector>

#include "common/ascii.h"
#include "common/encoding.h"
#include "common/url.h"
#include "common/utf8.h"

namespace zcrawl {
namespace {

// warcio drops "www", "www2", ... at the start of the host, before it
// lower-cases the URL (so "WWW." stays, as there).
std::string WithoutLeadingWww(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!url.starts_with(scheme)) continue;
    std::string_view rest = url.substr(scheme.size());
    if (!rest.starts_with("www")) break;
    size_t i = 3;
    while (i < rest.size() && IsAsciiDigit(rest[i])) ++i;
    if (i < rest.size() && rest[i] == '.') {
      return std::string(scheme) + std::string(rest.substr(i + 1));
    }
    break;
  }
  return std::string(url);
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// JavaScript's String.prototype.trim, for the ASCII and Latin-1 spaces a
// header value can hold.
std::string_view TrimJs(std::string_view s) {
  auto space = [](char c) { return IsAsciiWhitespace(c) || c == '\v'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

void AppendJsonField(std::string& out, std::string_view name, std::string_view value) {
  if (out.back() != '{') out += ',';
  out += '"';
  out += name;
  out += "\":";
  AppendJsStringLiteral(out, value);
}

}  // namespace

std::string SurtKey(std::string_view url) {
  if (!url.starts_with("https:") && !url.starts_with("http:")) return std::string(url);
  const std::string stripped = WithoutLeadingWww(url);
  Result<Url> parsed = Url::Parse(AsciiLower(stripped));
  if (!parsed.ok()) return stripped;
  std::vector<std::string_view> labels = Split(parsed->hostname(), '.');
  std::reverse(labels.begin(), labels.end());
  std::string key;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) key += ',';
    key += labels[i];
  }
  if (!parsed->port().empty()) {
    key += ':';
    key += parsed->port();
  }
  key += ')';
  key += parsed->pathname();
  if (const std::string_view search = parsed->search(); !search.empty()) {
    std::vector<std::string_view> parts = Split(search.substr(1), '&');
    std::sort(parts.begin(), parts.end());
    key += '?';
    for (size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) key += '&';
      key += parts[i];
    }
  }
  return key;
}

std::string CdxjTimestamp(std::string_view warc_date) {
  std::string stamp;
  for (char c : warc_date) {
    if (c == '-' || c == ':' || c == 'T') continue;
    if (stamp.size() == 14) break;
    stamp += c;
  }
  return stamp;
}

std::optional<std::string> IsoTimeOfCdxjTimestamp(std::string_view stamp) {
  if (stamp.size() < 14 || !std::all_of(stamp.begin(), stamp.begin() + 14, IsAsciiDigit)) return std::nullopt;
  std::string out;
  out.append(stamp.substr(0, 4)).append("-").append(stamp.substr(4, 2)).append("-").append(stamp.substr(6, 2));
  out.append("T").append(stamp.substr(8, 2)).append(":").append(stamp.substr(10, 2)).append(":");
  out.append(stamp.substr(12, 2)).append("Z");
  return out;
}

std::optional<int64_t> MsOfCdxjTimestamp(std::string_view stamp) {
  if (stamp.size() != 14) return std::nullopt;
  const std::optional<std::string> iso = IsoTimeOfCdxjTimestamp(stamp);
  return iso ? ParseRfc3339Millis(*iso) : std::nullopt;
}

std::string CdxjMime(std::string_view content_type) {
  return std::string(TrimJs(content_type.substr(0, content_type.find(';'))));
}

std::string CdxjLine(const CdxjRecordFields& fields, uint64_t length, uint64_t offset, std::string_view filename) {
  std::string line = SurtKey(fields.url);
  line += ' ';
  line += CdxjTimestamp(fields.warc_date);
  line += " {";
  AppendJsonField(line, "url", fields.url);
  if (fields.has_mime) AppendJsonField(line, "mime", fields.mime);
  if (fields.status != 0) AppendJsonField(line, "status", std::to_string(fields.status));
  if (!fields.digest.empty()) AppendJsonField(line, "digest", fields.digest);
  AppendJsonField(line, "length", std::to_string(length));
  AppendJsonField(line, "offset", std::to_string(offset));
  AppendJsonField(line, "filename", filename);
  line += '}';
  return line;
}

void AppendJsStringLiteral(std::string& out, std::string_view s) {
  std::string repaired;
  if (!IsValidUtf8(s)) {
    repaired = RepairUtf8(std::string(s), /*replace_nul=*/false);
    s = repaired;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace zcrawl
