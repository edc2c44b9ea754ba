#include "fetcher/scan_html_parser.h"

#include <cstring>
#include <string>
#include <utility>

#include "fetcher/charset.h"
#include "fetcher/html_link_scanner.h"

namespace zcrawl::fetcher {

ScanHtmlParser::Totals& ScanHtmlParser::ProcessTotals() {
  static Totals totals;
  return totals;
}

ScanHtmlParser::ScanHtmlParser(const HtmlParserOptions& options) : HtmlParser(options), tree_parser_(options) {}

namespace {

bool YieldsCleanUtf8(const ParsedHtml& parsed) {
  if (!IsCleanUtf8(parsed.title) || !IsCleanUtf8(parsed.base_href) || !IsCleanUtf8(parsed.meta_charset)) {
    return false;
  }
  for (const RawLink& link : parsed.links) {
    if (!IsCleanUtf8(link.href)) return false;
  }
  return true;
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
  const char* needs_tree = ScanHtmlLinks(html, &scanned);
  if (needs_tree == nullptr && !YieldsCleanUtf8(scanned)) {
    repaired = SanitizeUtf8(std::string(html));
    scanned = ParsedHtml();
    needs_tree = ScanHtmlLinks(repaired, &scanned);
  }
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
