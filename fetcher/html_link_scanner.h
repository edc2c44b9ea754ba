// ScanHtmlLinks: what the crawler keeps from a page without building its
// tree: an HTML5 tokenizer (exact: tags, attributes, comments, doctype, raw
// text, RCDATA and script data as the standard tokenizes them) with a guard
// in place of the tree builder.
//
// Why it can be exact: without visible text, a page's ParsedHtml is a
// function of its a/area/iframe/base/meta/title elements in document order
// (parsed_html_builder.h). A tree builder inserts each element at the end of
// the open elements' path, so document order is token order, except where
// it (1) puts an element before a table (foster parenting), (2) clones an
// <a> (the active formatting elements: <a> misnested or left open across a
// block), (3) drops or re-homes elements (<select>, <frameset>, <template>),
// or (4) puts them in another namespace (SVG, MathML). The guard follows
// just enough state to see each of these coming (open tables and whether the
// current node is a cell, an open <a> and what was opened inside it, open
// SVG elements) and, at the first one, gives up: the page then needs a tree
// builder (scan_html_parser.h falls back to MyHTML). A character reference
// it does not decode itself (a named one outside the common few of
// html_char_refs.h, odd numeric ones) in an attribute or title that matters
// also gives up.
// So every answer it gives is the tree builders' answer; the differential
// tests (tests/fetcher/html_link_scanner_test.cc) hold it to gumbo's.
//
// Differential fuzzing (5.4 million inputs, 3.25 million answered, and
// ./run fuzz html_scan) found gumbo 0.10.1 departing from the standard in
// three places: an SVG end tag with anything between its name and '>'
// ("</svg >" does not close the <svg> for gumbo), "</>" just before an SVG
// tag, and a repeated attribute without a value (gumbo drops the attribute
// after it). MyHTML follows the standard there, but departs from it
// elsewhere (it drops a <title> the input ends in). So that every answer is
// a tree builder's, the scanner gives up in those three places too, and on
// control characters in tags and in what a page yields, where the two
// disagree (scan_html_parser.h): MyHTML answers there.
//
// Not handled (gives up): text extraction (ParsedHtml::text), MathML, SVG
// with HTML inside (integration points, breakout tags, CDATA), <plaintext>,
// script data that opens "<!--" and then "<script" before its end.
//
// Thread-safe: no state outside the call.
#pragma once

#include <string_view>

#include "fetcher/html_parser.h"

namespace zcrawl::fetcher {

// Fills `out` (links, title, base_href, meta flags and charset, and with
// `extract_embeds` the page requisites; not text)
// from `html`, which holds no NUL byte, and returns nullptr; or returns why
// a tree builder is needed ("foster parenting", "misnested a", ...), `out`
// then half filled. Bytes that are not valid UTF-8 do not change how a page
// tokenizes (they are never ASCII) and are kept as they are in what it
// yields: the caller checks that (scan_html_parser.h).
const char* ScanHtmlLinks(std::string_view html, ParsedHtml* out, bool extract_embeds = false);

}  // namespace zcrawl::fetcher
