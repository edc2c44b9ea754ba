// ScanHtmlParser ("scan", the fetchers' default): the HtmlParser backend
// that builds no tree when it need not. Without text extraction (files and
// WARC output) it reads a page with ScanHtmlLinks, a tokenizer with a guard
// where a tree builder would be (html_link_scanner.h); a page the guard
// cannot vouch for (foster-parented tables, misnested <a>, <select>, SVG
// with HTML inside, ...) and every page when text is wanted are parsed by
// MyHTML. The result is the tree builders' either way, except that a page
// read without a tree is read whole: the tree builders' cut at
// max_nesting_depth guards against their quadratic cost, which a scan does
// not have. Without a tree there is no pass over the page but the scan: no
// depth estimate, and no UTF-8 repair unless a NUL byte is there or what
// the page yields (links, title, base, meta charset) is not valid UTF-8
// (invalid bytes are never ASCII, so they cannot change how the page
// tokenizes; only what it yields needs repairing, and then the whole page
// is repaired and scanned again).
//
// Thread-safety: one thread at a time per instance (see html_parser.h).
#pragma once

#include <atomic>
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

  // The same over every instance of the process (the fetcher logs them
  // when it is done: how often the fast path served).
  struct Totals {
    std::atomic<uint64_t> scanned{0};
    std::atomic<uint64_t> tree{0};
  };
  static Totals& ProcessTotals();

 private:
  bool ParseWithoutTree(std::string_view html, ParsedHtml* out) override;
  void ParseCleanUtf8(std::string_view html, ParsedHtml* out) override;

  MyHtmlHtmlParser tree_parser_;
  uint64_t scanned_pages_ = 0;
  std::map<std::string, uint64_t> tree_pages_;
};

}  // namespace zcrawl::fetcher
