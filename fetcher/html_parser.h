// HtmlParser: turns one HTML page into what the crawler keeps from it (links,
// title, visible text, robots directives), behind a small interface with
// three backends: "gumbo" (gumbo-parser, the reference), "myhtml" (MyHTML
// from libmodest, faster) and "scan" (no tree where none is needed, else
// MyHTML: scan_html_parser.h). All run the same extraction code, so they
// give identical results on the same input (tests check that), except that
// "scan" reads whole the pages the tree builders cut for their depth, and
// follows the standard where gumbo departs from it (html_link_scanner.h).
//
// Thread-safety: a parser instance keeps scratch memory that it reuses across
// pages, so Parse() must not run on one instance from two threads at once.
// Lend instances to threads for one parse at a time (html_parser_pool.h), or
// give each thread its own (MakeHtmlParser is safe to call from any
// thread); different instances never share state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

enum class LinkSource { kA, kArea, kFrame, kIframe };

// One link as written in the page: entity-decoded by the parser, otherwise
// untouched (not resolved against the base, not trimmed, not deduplicated).
struct RawLink {
  std::string href;
  LinkSource source = LinkSource::kA;
  bool rel_nofollow = false;  // rel contains the token "nofollow" (a, area)

  bool operator==(const RawLink&) const = default;
};

// What a page embeds: a page requisite, fetched so that the page can be
// replayed (styles, scripts, images, media, fonts), never followed for
// links (page_requisites in docs/ARCHITECTURE.md).
enum class EmbedSource : uint8_t {
  kLink,    // <link rel=stylesheet|icon|preload|modulepreload|...> href, imagesrcset
  kScript,  // <script src>
  kImage,   // <img src srcset>, <input type=image src>
  kSource,  // <source src srcset>, <track src>
  kMedia,   // <video src poster>, <audio src>
  kObject,  // <object data>, <embed src>
  kCss,     // url() and @import in <style> blocks and style="" attributes
};

std::string_view EmbedSourceName(EmbedSource source);

// One embedded URL as written (entity-decoded; CSS escapes decoded), not
// resolved.
struct RawEmbed {
  std::string url;
  EmbedSource source = EmbedSource::kImage;

  bool operator==(const RawEmbed&) const = default;
};

struct ParsedHtml {
  // Whitespace-collapsed text of the first <title> (HTML namespace).
  std::string title;
  // Visible text: nothing from <head>, <title>, <script>, <style>,
  // <noscript>, <template>, <noembed>, <noframes>, <datalist>, <iframe>
  // fallback text or comments. Block elements and <br> separate words; runs of ASCII whitespace
  // become one space; no leading or trailing space.
  std::string text;
  // a[href], area[href], frame[src], iframe[src] of the HTML namespace in
  // document order, every occurrence. Links inside <template> are skipped
  // (inert content); links inside <noscript> are kept.
  std::vector<RawLink> links;
  // With HtmlParserOptions::extract_embeds, what the page embeds, in
  // document order (for one element: its attributes in the order listed by
  // EmbedSource, then style=""; a <style> block's references at its end),
  // every occurrence, HTML namespace only, nothing inside <template>.
  std::vector<RawEmbed> embeds;
  // href of the first <base> element that has one, as written; "" if none.
  std::string base_href;
  // <meta name=robots content=...>: tokens separated by commas or
  // whitespace, ASCII case-insensitive. "none" sets both flags.
  bool meta_nofollow = false;
  bool meta_noindex = false;
  // The label of the first <meta charset> or <meta http-equiv=content-type
  // content="...charset=..."> as written (trimmed, not normalised); "" if none.
  std::string meta_charset;
  // True when the input was cut short at HtmlParserOptions::max_nesting_depth;
  // everything above describes the part before the cut. The tree builders
  // (gumbo, MyHTML) cut; "scan" reads a page it needs no tree for whole,
  // its cost being linear in the page, so its answer for a page nested
  // deeper than the limit has the links after the cut too.
  bool truncated = false;

  bool operator==(const ParsedHtml&) const = default;
};

struct HtmlParserOptions {
  // Element nesting beyond which a tree builder parses no more of a page
  // (and ParsedHtml::truncated is set). HTML5 tree building is quadratic in nesting
  // depth: 100k nested <div>s cost 15-20 s in either backend. The depth is an
  // estimate from a fast pre-scan (about 1 GB/s), so real pages stay well
  // below it. Higher lets odd pages through whole; lower bounds the worst case
  // harder (parse time grows with tags x depth).
  size_t max_nesting_depth = 1024;
  // Collect the visible text (ParsedHtml::text). Off when no output uses
  // it: it is ~5% of a fetcher's CPU and most of a page message's size.
  bool extract_text = true;
  // Collect ParsedHtml::embeds (page requisites): on for archive formats
  // (fetcher_options.h says why).
  bool extract_embeds = false;
};

class HtmlParser {
 public:
  virtual ~HtmlParser() = default;

  // Parses `utf8_html` (already decoded, see charset.h). Never fails: HTML5
  // parsing has no errors. A leading byte order mark is skipped; invalid
  // UTF-8 and NUL bytes are replaced with U+FFFD first, so every string in
  // the result is valid UTF-8.
  ParsedHtml Parse(std::string_view utf8_html);

  // "gumbo", "myhtml" or "scan".
  virtual std::string_view name() const = 0;

 protected:
  explicit HtmlParser(const HtmlParserOptions& options) : options_(options) {}
  const HtmlParserOptions& parser_options() const { return options_; }
  // A backend that can answer without the cleaning and the depth cut below
  // (scan_html_parser.h) does so here, from the input without its byte
  // order mark; false: Parse goes on as usual.
  virtual bool ParseWithoutTree(std::string_view /*utf8_html*/, ParsedHtml* /*out*/) { return false; }
  // Lets one backend hand clean input to another (scan_html_parser.h).
  static void ParseCleanUtf8With(HtmlParser& other, std::string_view html, ParsedHtml* out) {
    other.ParseCleanUtf8(html, out);
  }

 private:
  // Parses `html`, which is valid UTF-8 without NUL bytes, filling
  // everything in `out` except `truncated`.
  virtual void ParseCleanUtf8(std::string_view html, ParsedHtml* out) = 0;

  HtmlParserOptions options_;
};

// "gumbo", "myhtml" or "scan"; nullptr for an unknown name.
std::unique_ptr<HtmlParser> MakeHtmlParser(std::string_view name,
                                           const HtmlParserOptions& options = {});

}  // namespace zcrawl::fetcher
