// Differential fuzz target of the "scan" parser (fetcher/html_link_scanner.h):
// whenever the scanner answers without a tree, each part of its answer (the
// links, the title, the base, the meta flags and charset) must be gumbo's or
// MyHTML's. Part by part, because each tree builder departs from the
// standard somewhere the other does not: gumbo in the three places the
// scanner's header names, MyHTML for example on a <title> the input ends in
// (it drops it). Any other answer aborts: a scanner bug. The scan backend as
// a whole must never crash or hang on any bytes. The first byte's low bit
// picks the mode: links only, or with page requisites (ParsedHtml::embeds,
// where the scanner gives up in more places), so both stay covered.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "fetcher/html_parser.h"
#include "fetcher/scan_html_parser.h"

using zcrawl::fetcher::HtmlParser;
using zcrawl::fetcher::HtmlParserOptions;
using zcrawl::fetcher::MakeHtmlParser;
using zcrawl::fetcher::ScanHtmlParser;

namespace {

struct Parsers {
  explicit Parsers(bool embeds)
      : scan(MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false, .extract_embeds = embeds})),
        gumbo(MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = false, .extract_embeds = embeds})),
        myhtml(MakeHtmlParser("myhtml", HtmlParserOptions{.extract_text = false, .extract_embeds = embeds})) {}
  std::unique_ptr<HtmlParser> scan, gumbo, myhtml;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static Parsers* const modes[2] = {new Parsers(false), new Parsers(true)};
  const Parsers& parsers = *modes[data[0] & 1];
  HtmlParser* const scan = parsers.scan.get();
  HtmlParser* const gumbo = parsers.gumbo.get();
  HtmlParser* const myhtml = parsers.myhtml.get();
  const std::string_view html(reinterpret_cast<const char*>(data) + 1, size - 1);
  const uint64_t scanned_before = static_cast<ScanHtmlParser*>(scan)->scanned_pages();
  const auto answer = scan->Parse(html);
  if (static_cast<ScanHtmlParser*>(scan)->scanned_pages() == scanned_before) return 0;  // MyHTML answered
  if (answer.truncated) abort();  // a scan reads pages whole
  const auto g = gumbo->Parse(html);
  if (g.truncated) return 0;  // deeper than the tree builders read: not comparable
  if (answer == g) return 0;
  const auto m = myhtml->Parse(html);
  const auto either = [](const auto& ours, const auto& a, const auto& b) { return ours == a || ours == b; };
  if (!either(answer.links, g.links, m.links) || !either(answer.embeds, g.embeds, m.embeds) ||
      !either(answer.title, g.title, m.title) ||
      !either(answer.base_href, g.base_href, m.base_href) ||
      !either(answer.meta_charset, g.meta_charset, m.meta_charset) ||
      !either(answer.meta_nofollow, g.meta_nofollow, m.meta_nofollow) ||
      !either(answer.meta_noindex, g.meta_noindex, m.meta_noindex)) {
    abort();
  }
  return 0;
}
