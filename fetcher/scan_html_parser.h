// ScanHtmlParser ("scan", the fetchers' default): the HtmlParser backend
// that builds no tree when it need not. Without text extraction (files and
// WARC output) it reads a page with ScanHtmlLinks, a tokenizer with a guard
// where a tree builder would be (html_link_scanner.h); a page the guard
// cannot vouch for (foster-parented tables, misnested <a>, <select>, SVG
// with HTML inside, ...) and every page when text is wanted are parsed by
// MyHTML. The result is the tree builders' either way.
//
// Thread-safety: one thread at a time per instance (see html_parser.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "fetcher/html_parser.h"
#include "fetcher/myhtml_html_parser.h"

namespace zcrawl::fetcher {

class ScanHtmlParser final : public HtmlParser {
 public:
  explicit ScanHtmlParser(const HtmlParserOptions& options = {});

  std::string_view name() const override { return "scan"; }

  // Pages read without a tree, and pages given to MyHTML by reason
  // ("text wanted", "foster parenting", ...): for tests and benchmarks.
  uint64_t scanned_pages() const { return scanned_pages_; }
  const std::map<std::string, uint64_t>& tree_pages() const { return tree_pages_; }

 private:
  void ParseCleanUtf8(std::string_view html, ParsedHtml* out) override;

  MyHtmlHtmlParser tree_parser_;
  uint64_t scanned_pages_ = 0;
  std::map<std::string, uint64_t> tree_pages_;
};

}  // namespace zcrawl::fetcher
