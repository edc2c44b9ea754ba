#include "fetcher/scan_html_parser.h"

#include <utility>

#include "fetcher/html_link_scanner.h"

namespace zcrawl::fetcher {

ScanHtmlParser::ScanHtmlParser(const HtmlParserOptions& options) : HtmlParser(options), tree_parser_(options) {}

void ScanHtmlParser::ParseCleanUtf8(std::string_view html, ParsedHtml* out) {
  if (!parser_options().extract_text) {
    ParsedHtml scanned;
    const char* needs_tree = ScanHtmlLinks(html, &scanned);
    if (needs_tree == nullptr) {
      scanned.truncated = out->truncated;
      *out = std::move(scanned);
      ++scanned_pages_;
      return;
    }
    ++tree_pages_[needs_tree];
  } else {
    ++tree_pages_["text wanted"];
  }
  ParseCleanUtf8With(tree_parser_, html, out);
}

}  // namespace zcrawl::fetcher
