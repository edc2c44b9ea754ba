// Differential fuzz target of the two tree builders (fetcher/gumbo_html_parser.h,
// fetcher/myhtml_html_parser.h), each also a parser of untrusted bytes on
// its own: neither may crash or hang, and on the same bytes both must
// return the same links (URL as written, source element, nofollow), except
// where one of them is known to depart from the HTML standard or a tree
// builder's choices matter, which docs/FUZZING.md lists and
// KnownDeparture() skips. Any other difference
// aborts: one of them, or our tree walk over it, is wrong.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "fetcher/html_link_scanner.h"
#include "fetcher/html_parser.h"

using zcrawl::fetcher::HtmlParser;
using zcrawl::fetcher::HtmlParserOptions;
using zcrawl::fetcher::MakeHtmlParser;

namespace {

// Inputs where gumbo 0.10.1 and MyHTML 4 are known to build different
// trees (docs/FUZZING.md, "html_trees"): an input that ends inside a tag
// (MyHTML keeps the tag, the standard drops it), C0 and C1 control
// characters (gumbo replaces them, MyHTML keeps them), and every page whose links a tree
// builder may reorder, clone or drop (foster parenting, misnested <a>,
// <select>, <template>, <frameset>, SVG and MathML, the places gumbo is
// known to depart): those the exact scanner (html_link_scanner.h) gives
// up on, and where the two builders are each held to the scanner's answer
// by the html_scan target instead.
// Whether the input ends inside a start or end tag: a '<' that opens one
// (a letter or '/' next) with no '>' after it outside quoted attribute
// values. Close enough to the tokenizer for the filter (comments and raw
// text are not followed: a miss only costs a false alarm to triage).
bool EndsInsideATag(std::string_view html) {
  bool in_tag = false;
  char quote = 0;
  for (size_t i = 0; i < html.size(); ++i) {
    const char c = html[i];
    if (!in_tag) {
      const char next = i + 1 < html.size() ? html[i + 1] : 0;
      in_tag = c == '<' && (next == '/' || ((next | 0x20) >= 'a' && (next | 0x20) <= 'z'));
      quote = 0;
    } else if (quote) {
      if (c == quote) quote = 0;
    } else if ((c == '"' || c == '\'') && i > 0 && html[i - 1] == '=') {
      quote = c;
    } else if (c == '>') {
      in_tag = false;
    }
  }
  return in_tag;
}

bool KnownDeparture(std::string_view html) {
  if (EndsInsideATag(html)) return true;
  for (size_t i = 0; i < html.size(); ++i) {
    const auto c = static_cast<unsigned char>(html[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\f' && c != '\r') || c == 0x7F) return true;
    // C1 controls, U+0080-U+009F in UTF-8: gumbo replaces them too.
    if (c == 0xC2 && i + 1 < html.size() && (static_cast<unsigned char>(html[i + 1]) & 0xE0) == 0x80) return true;
  }
  zcrawl::fetcher::ParsedHtml scanned;
  return zcrawl::fetcher::ScanHtmlLinks(html, &scanned) != nullptr;
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
  static HtmlParser* const gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = true}).release();
  static HtmlParser* const myhtml = MakeHtmlParser("myhtml", HtmlParserOptions{.extract_text = true}).release();
  const std::string_view html(reinterpret_cast<const char*>(data), size);
  const auto g = gumbo->Parse(html);
  const auto m = myhtml->Parse(html);
  if (g.truncated || m.truncated || KnownDeparture(html)) return 0;
  if (g.links != m.links) {
    Explain(g.links, m.links);
    abort();
  }
  return 0;
}
