#include "fetcher/gumbo_html_parser.h"

#include <gumbo.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ascii.h"

namespace zcrawl::fetcher {

// Bump allocator for one parse. Gumbo's frees are no-ops; Reset() drops
// everything at once and keeps one block for the next page.
class GumboHtmlParser::Arena {
 public:
  void* Allocate(size_t size) {
    size = (size + kAlignment - 1) & ~(kAlignment - 1);
    if (blocks_.empty() || blocks_.back().size - used_ < size) {
      const size_t block_size = std::max(size, next_block_size_);
      next_block_size_ = std::min(next_block_size_ * 2, kMaxBlockSize);
      blocks_.push_back(
          Block{std::make_unique_for_overwrite<std::byte[]>(block_size),
                block_size});
      used_ = 0;
    }
    void* result = blocks_.back().data.get() + used_;
    used_ += size;
    return result;
  }

  void Reset() {
    // Keep the newest (largest) block unless it is big enough to matter.
    if (!blocks_.empty() && blocks_.back().size <= kMaxRetainedBytes) {
      Block keep = std::move(blocks_.back());
      blocks_.clear();
      blocks_.push_back(std::move(keep));
    } else {
      blocks_.clear();
      next_block_size_ = kFirstBlockSize;
    }
    used_ = 0;
  }

  static void* GumboAllocate(void* arena, size_t size) {
    return static_cast<Arena*>(arena)->Allocate(size);
  }
  static void GumboFree(void* /*arena*/, void* /*pointer*/) {}

 private:
  struct Block {
    std::unique_ptr<std::byte[]> data;
    size_t size;
  };

  static constexpr size_t kAlignment = alignof(std::max_align_t);
  static constexpr size_t kFirstBlockSize = 64 << 10;
  static constexpr size_t kMaxBlockSize = 16 << 20;
  static constexpr size_t kMaxRetainedBytes = 4 << 20;

  std::vector<Block> blocks_;
  size_t used_ = 0;
  size_t next_block_size_ = kFirstBlockSize;
};

namespace {

class GumboAttributes final : public ElementAttributes {
 public:
  explicit GumboAttributes(const GumboElement& element) : element_(element) {}

  std::optional<std::string_view> Get(
      std::string_view lower_case_name) const override {
    const GumboVector& attributes = element_.attributes;
    for (unsigned i = 0; i < attributes.length; ++i) {
      const auto* attribute = static_cast<const GumboAttribute*>(attributes.data[i]);
      if (lower_case_name == attribute->name) {
        return std::string_view(attribute->value);
      }
    }
    return std::nullopt;
  }

 private:
  const GumboElement& element_;
};

// The lower-cased name of an element gumbo does not know, from its source.
std::string UnknownTagName(const GumboElement& element) {
  GumboStringPiece piece = element.original_tag;
  gumbo_tag_from_original_text(&piece);  // strips "<", attributes and ">"
  return AsciiLower(piece.data == nullptr ? std::string_view()
                                          : std::string_view(piece.data, piece.length));
}

}  // namespace

GumboHtmlParser::GumboHtmlParser(const HtmlParserOptions& options)
    : HtmlParser(options), arena_(std::make_unique<Arena>()) {
  kind_by_tag_.resize(GUMBO_TAG_LAST + 1, ElementKind::kInline);
  for (int tag = 0; tag < GUMBO_TAG_LAST; ++tag) {
    if (tag == GUMBO_TAG_UNKNOWN) continue;
    kind_by_tag_[tag] =
        ElementKindForTag(gumbo_normalized_tagname(static_cast<GumboTag>(tag)));
  }
}

GumboHtmlParser::~GumboHtmlParser() = default;

void GumboHtmlParser::ParseCleanUtf8(std::string_view html, ParsedHtml* out) {
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &Arena::GumboAllocate;
  options.deallocator = &Arena::GumboFree;
  options.userdata = arena_.get();
  options.max_errors = 0;
  GumboOutput* output =
      gumbo_parse_with_options(&options, html.data(), html.size());

  // Pre-order walk with an explicit stack: one frame per open element.
  struct Frame {
    const GumboVector* children;
    unsigned next_child;
    ElementKind kind;
    bool html_namespace;
  };
  std::vector<Frame> stack;
  stack.push_back(Frame{&output->document->v.document.children, 0,
                        ElementKind::kInline, true});
  ParsedHtmlBuilder builder(out, parser_options().extract_text, parser_options().extract_embeds);
  while (!stack.empty()) {
    Frame& frame = stack.back();
    if (frame.next_child >= frame.children->length) {
      const Frame done = frame;
      stack.pop_back();
      if (!stack.empty()) builder.EndElement(done.kind, done.html_namespace);
      continue;
    }
    const auto* node =
        static_cast<const GumboNode*>(frame.children->data[frame.next_child++]);
    switch (node->type) {
      case GUMBO_NODE_ELEMENT:
      case GUMBO_NODE_TEMPLATE: {
        const GumboElement& element = node->v.element;
        const ElementKind kind = element.tag == GUMBO_TAG_UNKNOWN
                                     ? ElementKindForTag(UnknownTagName(element))
                                     : kind_by_tag_[element.tag];
        const bool html_namespace = element.tag_namespace == GUMBO_NAMESPACE_HTML;
        if (builder.StartElement(kind, html_namespace, GumboAttributes(element))) {
          stack.push_back(Frame{&element.children, 0, kind, html_namespace});
        } else {
          builder.EndElement(kind, html_namespace);
        }
        break;
      }
      case GUMBO_NODE_TEXT:
      case GUMBO_NODE_CDATA:
      case GUMBO_NODE_WHITESPACE:
        builder.Text(node->v.text.text);
        break;
      case GUMBO_NODE_DOCUMENT:
      case GUMBO_NODE_COMMENT:
        break;
    }
  }
  // Everything, the output included, lives in the arena.
  arena_->Reset();
}

}  // namespace zcrawl::fetcher
