// Differential fuzz target of the "scan" parser (fetcher/html_link_scanner.h):
// whenever the scanner answers without a tree, each part of its answer (the
// links, the title, the base, the meta flags and charset) must be gumbo's or
// MyHTML's. Part by part, because each tree builder departs from the
// standard somewhere the other does not: gumbo in the three places the
// scanner's header names, MyHTML for example on a <title> the input ends in
// (it drops it). Any other answer aborts: a scanner bug. The scan backend as
// a whole must never crash or hang on any bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fetcher/html_parser.h"
#include "fetcher/scan_html_parser.h"

using zcrawl::fetcher::HtmlParser;
using zcrawl::fetcher::HtmlParserOptions;
using zcrawl::fetcher::MakeHtmlParser;
using zcrawl::fetcher::ScanHtmlParser;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static HtmlParser* const scan = MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false}).release();
  static HtmlParser* const gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = false}).release();
  static HtmlParser* const myhtml = MakeHtmlParser("myhtml", HtmlParserOptions{.extract_text = false}).release();
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  const uint64_t scanned_before = static_cast<ScanHtmlParser*>(scan)->scanned_pages();
  const auto answer = scan->Parse(html);
  if (static_cast<ScanHtmlParser*>(scan)->scanned_pages() == scanned_before) return 0;  // MyHTML answered
  if (answer.truncated) abort();  // a scan reads pages whole
  const auto g = gumbo->Parse(html);
  if (g.truncated) return 0;  // deeper than the tree builders read: not comparable
  if (answer == g) return 0;
  const auto m = myhtml->Parse(html);
  const auto either = [](const auto& ours, const auto& a, const auto& b) { return ours == a || ours == b; };
  if (!either(answer.links, g.links, m.links) || !either(answer.title, g.title, m.title) ||
      !either(answer.base_href, g.base_href, m.base_href) ||
      !either(answer.meta_charset, g.meta_charset, m.meta_charset) ||
      !either(answer.meta_nofollow, g.meta_nofollow, m.meta_nofollow) ||
      !either(answer.meta_noindex, g.meta_noindex, m.meta_noindex)) {
    abort();
  }
  return 0;
}
