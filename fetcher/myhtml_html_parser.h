// MyHtmlHtmlParser: the HtmlParser backend built on MyHTML (libmodest), a
// fast HTML5 parser; results match GumboHtmlParser.
//
// Each instance owns a myhtml_t set up for single-threaded parsing (MyHTML
// starts no threads of its own) and one myhtml_tree_t that is cleaned and
// reused for every page; after a page above kRecreateTreeAboveBytes the tree
// is destroyed and rebuilt so that its memory pools do not stay at that size.
//
// Thread-safety: one thread at a time per instance (see html_parser.h).
// Instances are independent; MyHTML keeps no mutable global state.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "fetcher/html_parser.h"
#include "fetcher/parsed_html_builder.h"

struct myhtml;
struct myhtml_tree;

namespace zcrawl::fetcher {

class MyHtmlHtmlParser final : public HtmlParser {
 public:
  // Pages larger than this get a fresh tree afterwards.
  static constexpr size_t kRecreateTreeAboveBytes = 4 << 20;

  // Throws std::bad_alloc if MyHTML cannot allocate its structures.
  explicit MyHtmlHtmlParser(const HtmlParserOptions& options = {});
  ~MyHtmlHtmlParser() override;

  MyHtmlHtmlParser(const MyHtmlHtmlParser&) = delete;
  MyHtmlHtmlParser& operator=(const MyHtmlHtmlParser&) = delete;

  std::string_view name() const override { return "myhtml"; }

 private:
  void ParseCleanUtf8(std::string_view html, ParsedHtml* out) override;
  void CreateTree();

  struct myhtml* myhtml_ = nullptr;
  struct myhtml_tree* tree_ = nullptr;
  std::vector<ElementKind> kind_by_tag_;  // indexed by built-in tag id
};

}  // namespace zcrawl::fetcher
