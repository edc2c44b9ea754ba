#include "fetcher/scan_html_parser.h"

#include <cstring>
#include <string>
#include <utility>

#include "common/utf8.h"
#include "fetcher/charset.h"
#include "fetcher/html_link_scanner.h"

namespace zcrawl::fetcher {

ScanHtmlParser::Totals& ScanHtmlParser::ProcessTotals() {
  static Totals totals;
  return totals;
}

ScanHtmlParser::ScanHtmlParser(const HtmlParserOptions& options) : HtmlParser(options), tree_parser_(options) {}

namespace {

template <typename Check>
bool EveryYield(const ParsedHtml& parsed, Check check) {
  if (!check(parsed.title) || !check(parsed.base_href) || !check(parsed.meta_charset)) return false;
  for (const RawLink& link : parsed.links) {
    if (!check(link.href)) return false;
  }
  for (const RawEmbed& embed : parsed.embeds) {
    if (!check(embed.url)) return false;
  }
  return true;
}

bool YieldsCleanUtf8(const ParsedHtml& parsed) {
  return EveryYield(parsed, [](const std::string& s) { return IsCleanUtf8(s); });
}

// The tree builders disagree on control characters and noncharacters
// (gumbo replaces them with U+FFFD, MyHTML keeps them, as the standard
// does): a page that yields one is left to MyHTML, the backend's answer
// wherever it gives up. `s` is valid UTF-8 here.
bool YieldsNoControls(const ParsedHtml& parsed) {
  return EveryYield(parsed, [](const std::string& s) {
    for (size_t i = 0; i < s.size();) {
      const auto byte = static_cast<unsigned char>(s[i]);
      if (byte < 0x80) {
        if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\f' && byte != '\r') || byte == 0x7F) {
          return false;
        }
        ++i;
        continue;
      }
      size_t length = 1;
      const char32_t cp = DecodeUtf8CodePoint(s, i, &length);
      if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE) return false;
      i += length;
    }
    return true;
  });
}

}  // namespace

bool ScanHtmlParser::ParseWithoutTree(std::string_view html, ParsedHtml* out) {
  if (parser_options().extract_text) {
    ++tree_pages_["text wanted"];
    ProcessTotals().tree.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  // NUL bytes change tokenizing (the tree builders see U+FFFD there).
  std::string repaired;
  if (std::memchr(html.data(), '\0', html.size()) != nullptr) {
    repaired = SanitizeUtf8(std::string(html));
    html = repaired;
  }
  ParsedHtml scanned;
  const char* needs_tree = ScanHtmlLinks(html, &scanned, parser_options().extract_embeds);
  if (needs_tree == nullptr && !YieldsCleanUtf8(scanned)) {
    repaired = SanitizeUtf8(std::string(html));
    scanned = ParsedHtml();
    needs_tree = ScanHtmlLinks(repaired, &scanned, parser_options().extract_embeds);
  }
  if (needs_tree == nullptr && !YieldsNoControls(scanned)) needs_tree = "control character";
  if (needs_tree != nullptr) {
    ++tree_pages_[needs_tree];
    ProcessTotals().tree.fetch_add(1, std::memory_order_relaxed);
    return false;  // Parse cleans, cuts and calls ParseCleanUtf8: MyHTML
  }
  *out = std::move(scanned);
  ++scanned_pages_;
  ProcessTotals().scanned.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ScanHtmlParser::ParseCleanUtf8(std::string_view html, ParsedHtml* out) {
  ParseCleanUtf8With(tree_parser_, html, out);
}

}  // namespace zcrawl::fetcher
