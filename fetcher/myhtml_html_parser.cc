#include "fetcher/myhtml_html_parser.h"

#include <myhtml/api.h>

#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"

namespace zcrawl::fetcher {
namespace {

class MyHtmlAttributes final : public ElementAttributes {
 public:
  explicit MyHtmlAttributes(myhtml_tree_node_t* node) : node_(node) {}

  std::optional<std::string_view> Get(
      std::string_view lower_case_name) const override {
    for (myhtml_tree_attr_t* attribute = myhtml_node_attribute_first(node_);
         attribute != nullptr; attribute = myhtml_attribute_next(attribute)) {
      size_t key_length = 0;
      const char* key = myhtml_attribute_key(attribute, &key_length);
      if (key == nullptr || std::string_view(key, key_length) != lower_case_name) {
        continue;
      }
      size_t value_length = 0;
      const char* value = myhtml_attribute_value(attribute, &value_length);
      return value == nullptr ? std::string_view()
                              : std::string_view(value, value_length);
    }
    return std::nullopt;
  }

 private:
  myhtml_tree_node_t* node_;
};

std::string_view TagName(myhtml_tree_t* tree, myhtml_tag_id_t tag) {
  size_t length = 0;
  const char* name = myhtml_tag_name_by_id(tree, tag, &length);
  return name == nullptr ? std::string_view() : std::string_view(name, length);
}

}  // namespace

MyHtmlHtmlParser::MyHtmlHtmlParser(const HtmlParserOptions& options)
    : HtmlParser(options) {
  myhtml_ = myhtml_create();
  if (myhtml_ == nullptr ||
      myhtml_init(myhtml_, MyHTML_OPTIONS_PARSE_MODE_SINGLE, 1, 0) !=
          MyHTML_STATUS_OK) {
    myhtml_destroy(myhtml_);
    throw std::bad_alloc();
  }
  CreateTree();
  kind_by_tag_.resize(MyHTML_TAG_LAST_ENTRY, ElementKind::kInline);
  for (myhtml_tag_id_t tag = 0; tag < MyHTML_TAG_LAST_ENTRY; ++tag) {
    kind_by_tag_[tag] = ElementKindForTag(TagName(tree_, tag));
  }
}

MyHtmlHtmlParser::~MyHtmlHtmlParser() {
  if (tree_ != nullptr) myhtml_tree_destroy(tree_);
  myhtml_destroy(myhtml_);
}

void MyHtmlHtmlParser::CreateTree() {
  tree_ = myhtml_tree_create();
  if (tree_ == nullptr || myhtml_tree_init(tree_, myhtml_) != MyHTML_STATUS_OK) {
    myhtml_tree_destroy(tree_);
    tree_ = nullptr;
    throw std::bad_alloc();
  }
}

void MyHtmlHtmlParser::ParseCleanUtf8(std::string_view html, ParsedHtml* out) {
  // A failed parse (out of memory) leaves a partial tree; we extract from
  // whatever is there, which is the best a never-failing Parse can do.
  // Without text extraction, whitespace-only text tokens matter to nothing
  // we keep (MyHTML still keeps them in RCDATA such as <title>): not building
  // their nodes saves ~ a tenth of the parse on pretty-printed pages.
  myhtml_tree_parse_flags_set(tree_, parser_options().extract_text
                                         ? MyHTML_TREE_PARSE_FLAGS_CLEAN
                                         : MyHTML_TREE_PARSE_FLAGS_SKIP_WHITESPACE_TOKEN);
  (void)myhtml_parse_single(tree_, MyENCODING_UTF_8, html.data(), html.size());

  // Pre-order walk with an explicit stack: one frame per open element.
  struct Frame {
    myhtml_tree_node_t* next_child;
    ElementKind kind;
    bool html_namespace;
  };
  std::vector<Frame> stack;
  stack.push_back(Frame{myhtml_node_child(myhtml_tree_get_document(tree_)),
                        ElementKind::kInline, true});
  ParsedHtmlBuilder builder(out, parser_options().extract_text, parser_options().extract_embeds);
  std::string lowered;
  while (!stack.empty()) {
    Frame& frame = stack.back();
    myhtml_tree_node_t* node = frame.next_child;
    if (node == nullptr) {
      const Frame done = frame;
      stack.pop_back();
      if (!stack.empty()) builder.EndElement(done.kind, done.html_namespace);
      continue;
    }
    frame.next_child = myhtml_node_next(node);
    const myhtml_tag_id_t tag = myhtml_node_tag_id(node);
    if (tag == MyHTML_TAG__TEXT) {
      size_t length = 0;
      const char* text = myhtml_node_text(node, &length);
      if (text != nullptr) builder.Text(std::string_view(text, length));
      continue;
    }
    if (tag == MyHTML_TAG__UNDEF || tag == MyHTML_TAG__COMMENT ||
        tag == MyHTML_TAG__DOCTYPE) {
      continue;
    }
    ElementKind kind;
    if (tag < kind_by_tag_.size()) {
      kind = kind_by_tag_[tag];
    } else {  // a tag MyHTML does not know, e.g. a custom element
      lowered = TagName(tree_, tag);
      for (char& c : lowered) c = ToLowerAscii(c);
      kind = ElementKindForTag(lowered);
    }
    const bool html_namespace =
        myhtml_node_namespace(node) == MyHTML_NAMESPACE_HTML;
    if (builder.StartElement(kind, html_namespace, MyHtmlAttributes(node))) {
      stack.push_back(Frame{myhtml_node_child(node), kind, html_namespace});
    } else {
      builder.EndElement(kind, html_namespace);
    }
  }

  if (html.size() > kRecreateTreeAboveBytes) {
    myhtml_tree_destroy(tree_);
    tree_ = nullptr;
    CreateTree();
  } else {
    myhtml_tree_clean(tree_);
  }
}

}  // namespace zcrawl::fetcher
