// Differential fuzz target of the two tree builders (fetcher/gumbo_html_parser.h,
// fetcher/myhtml_html_parser.h), each also a parser of untrusted bytes on
// its own: neither may crash or hang, and on the same bytes both must
// return the same links (URL as written, source element, nofollow), except
// where one of them is known to depart from the HTML standard or a tree
// builder's choices matter, which docs/FUZZING.md lists and the checks
// below skip. Any other difference aborts: one of them, or our tree walk
// over it, is wrong.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// MyHTML keeps a tag the input ends in, the standard (and gumbo) drops it
// (eof-in-tag): its answer is the standard's plus one last link. The exact
// scanner, agreeing with gumbo, says which answer is the standard's.
bool MyHtmlKeptTheTagTheInputEndsIn(const std::vector<zcrawl::fetcher::RawLink>& standard,
                                    const std::vector<zcrawl::fetcher::RawLink>& myhtml) {
  return myhtml.size() == standard.size() + 1 && std::equal(standard.begin(), standard.end(), myhtml.begin());
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
  // The scanner as the production parser runs it (invalid UTF-8 replaced
  // as the tree builders do); if it gave the page to MyHTML, a builder's
  // choices matter there.
  const uint64_t scanned_before = static_cast<ScanHtmlParser*>(scan)->scanned_pages();
  const auto scanned = scan->Parse(html);
  if (static_cast<ScanHtmlParser*>(scan)->scanned_pages() == scanned_before) return 0;
  if (scanned.links == g.links && MyHtmlKeptTheTagTheInputEndsIn(g.links, m.links)) return 0;
  Explain(g.links, m.links);
  abort();
  return 0;
}
