// GumboHtmlParser: the HtmlParser backend built on gumbo-parser, the
// reference HTML5 implementation (slower than MyHTML, very well tested).
//
// Gumbo allocates through a per-instance arena that is reset after each page,
// so the tree is never freed node by node (gumbo's own destructor recurses
// once per nesting level) and memory is reused across pages. Gumbo's error
// list is switched off (max_errors = 0); it only costs time.
//
// Thread-safety: one thread at a time per instance (see html_parser.h).
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "fetcher/html_parser.h"
#include "fetcher/parsed_html_builder.h"

namespace zcrawl::fetcher {

class GumboHtmlParser final : public HtmlParser {
 public:
  explicit GumboHtmlParser(const HtmlParserOptions& options = {});
  ~GumboHtmlParser() override;

  GumboHtmlParser(const GumboHtmlParser&) = delete;
  GumboHtmlParser& operator=(const GumboHtmlParser&) = delete;

  std::string_view name() const override { return "gumbo"; }

 private:
  class Arena;

  void ParseCleanUtf8(std::string_view html, ParsedHtml* out) override;

  std::unique_ptr<Arena> arena_;
  std::vector<ElementKind> kind_by_tag_;  // indexed by GumboTag
};

}  // namespace zcrawl::fetcher
