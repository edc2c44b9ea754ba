// Differential fuzz target of the two tree builders (fetcher/gumbo_html_parser.h,
// fetcher/myhtml_html_parser.h), each also a parser of untrusted bytes on
// its own: neither may crash or hang, and where the two return different
// links (URL as written, source element, nofollow) on the same bytes, the
// exact scanner must agree with one of them wherever it answers without a
// tree. A page where it agrees with neither aborts: the scanner, a builder
// beyond its known departures, or our walk over a tree is wrong. Where the
// scanner sides with gumbo, MyHTML departs from the standard; the classes
// found are in docs/FUZZING.md, each with a regression test showing that
// the default `scan` parser answers as the standard does.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fetcher/html_parser.h"
#include "fetcher/scan_html_parser.h"

using zcrawl::fetcher::HtmlParser;
using zcrawl::fetcher::HtmlParserOptions;
using zcrawl::fetcher::MakeHtmlParser;
using zcrawl::fetcher::ScanHtmlParser;

namespace {

// Inputs where gumbo 0.10.1 and MyHTML 4 are known to build different
// trees (docs/FUZZING.md, "html_trees"): C0 and C1 control characters
// (gumbo replaces them, MyHTML keeps them), and every page whose links a
// tree builder may reorder, clone or drop (foster parenting, misnested
// <a>, <select>, <template>, <frameset>, SVG and MathML, the places gumbo
// is known to depart): those the exact scanner (html_link_scanner.h) gives
// up on, where the html_scan target holds each builder to the scanner.
bool HasControlCharacters(std::string_view html) {
  for (size_t i = 0; i < html.size(); ++i) {
    const auto c = static_cast<unsigned char>(html[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7F) return true;
    // C1 controls, U+0080-U+009F in UTF-8: gumbo replaces them too.
    if (c == 0xC2 && i + 1 < html.size() && (static_cast<unsigned char>(html[i + 1]) & 0xE0) == 0x80) return true;
  }
  return false;
}

// With ZCRAWL_FUZZ_EXPLAIN set (triage of a crash input), both answers.
void Explain(const std::vector<zcrawl::fetcher::RawLink>& g, const std::vector<zcrawl::fetcher::RawLink>& m) {
  if (!std::getenv("ZCRAWL_FUZZ_EXPLAIN")) return;
  for (const auto& [name, links] : {std::pair{"gumbo", &g}, std::pair{"myhtml", &m}}) {
    std::fprintf(stderr, "%s: %zu links\n", name, links->size());
    for (const auto& link : *links) {
      std::fprintf(stderr, "  [%d%s] %s\n", static_cast<int>(link.source), link.rel_nofollow ? " nofollow" : "",
                   link.href.c_str());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static HtmlParser* const scan = MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false}).release();
  static HtmlParser* const gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = true}).release();
  static HtmlParser* const myhtml = MakeHtmlParser("myhtml", HtmlParserOptions{.extract_text = true}).release();
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  const auto g = gumbo->Parse(html);
  const auto m = myhtml->Parse(html);
  if (g.truncated || m.truncated || HasControlCharacters(html) || g.links == m.links) return 0;
  // The builders differ. The exact scanner (html_link_scanner.h), run as
  // the production parser runs it (invalid UTF-8 replaced as the tree
  // builders do), says which of them departs from the standard: where it
  // answers without a tree, its answer is the standard's, and it must be
  // one builder's. Where it gave the page to MyHTML, a builder's choices
  // matter and either answer may stand.
  const uint64_t scanned_before = static_cast<ScanHtmlParser*>(scan)->scanned_pages();
  const auto scanned = scan->Parse(html);
  if (static_cast<ScanHtmlParser*>(scan)->scanned_pages() == scanned_before) return 0;
  if (scanned.links == g.links || scanned.links == m.links) return 0;
  // Both may depart at once: MyHTML keeping the tag the input ends in, and
  // gumbo in one of its own ways. With that tag closed by '>' MyHTML's
  // departure is gone; judge again there.
  const std::string closed = std::string(html) + ">";
  const uint64_t closed_before = static_cast<ScanHtmlParser*>(scan)->scanned_pages();
  const auto scanned_closed = scan->Parse(closed);
  if (static_cast<ScanHtmlParser*>(scan)->scanned_pages() > closed_before &&
      (scanned_closed.links == gumbo->Parse(closed).links || scanned_closed.links == myhtml->Parse(closed).links)) {
    return 0;
  }
  Explain(g.links, m.links);
  abort();
  return 0;
}
