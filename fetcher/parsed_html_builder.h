// ParsedHtmlBuilder: the extraction logic shared by every HtmlParser backend.
//
// A backend walks its DOM in document order and reports each element start,
// element end and text node; the builder decides what counts as a link,
// title, visible text or robots directive. Because all of that lives here,
// the backends only translate their node types, and two backends given the
// same tree produce the same ParsedHtml.
//
// A builder fills one ParsedHtml and is used by one thread; the free function
// is pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fetcher/html_parser.h"

namespace zcrawl::fetcher {

// What extraction needs to know about an element, decided by its tag name.
enum class ElementKind : uint8_t {
  kInline,    // any tag not listed below: its text runs on without a break
  kBlock,     // div, p, li, td, h1, ...: a word break before and after
  kBreak,     // br: a word break
  kHidden,    // head, script, style, noscript, noembed, noframes, datalist
  kTemplate,  // template: inert, skipped with everything inside
  kTitle,
  kA,
  kArea,
  kBase,
  kMeta,
  kFrame,
  kIframe,
  // Page requisites (ParsedHtml::embeds); script and style also hide text.
  kLink,
  kScript,
  kStyle,
  kImg,
  kInput,
  kSource,
  kTrack,
  kVideo,
  kAudio,
  kObject,
  kEmbed,
};

// The kind of the element named `lower_case_name` ("div", "a", ...).
// Backends call it once per tag id they know and keep the results in a table.
ElementKind ElementKindForTag(std::string_view lower_case_name);

// Attribute access for the element being reported; a backend adapts its node
// to this while it calls StartElement.
class ElementAttributes {
 public:
  // The value of the first attribute called `lower_case_name` ("" for an
  // attribute without a value), or nullopt if the element has none.
  virtual std::optional<std::string_view> Get(
      std::string_view lower_case_name) const = 0;

 protected:
  ~ElementAttributes() = default;
};

class ParsedHtmlBuilder {
 public:
  // Fills `out`, which must outlive the builder and start out empty.
  explicit ParsedHtmlBuilder(ParsedHtml* out, bool extract_text = true,
                             bool extract_embeds = false)
      : out_(out), extract_text_(extract_text), extract_embeds_(extract_embeds) {}

  ParsedHtmlBuilder(const ParsedHtmlBuilder&) = delete;
  ParsedHtmlBuilder& operator=(const ParsedHtmlBuilder&) = delete;

  // An element starts. `html_namespace` is false for SVG and MathML elements.
  // Returns false when the element's children must not be reported (the
  // backend skips them but still calls EndElement).
  bool StartElement(ElementKind kind, bool html_namespace,
                    const ElementAttributes& attributes);
  void EndElement(ElementKind kind, bool html_namespace);
  // A text node (or CDATA section); comments are not reported.
  void Text(std::string_view text);

 private:
  void BreakWords();
  void AddLink(LinkSource source, const ElementAttributes& attributes,
               std::string_view url_attribute, bool has_rel);
  void HandleMeta(const ElementAttributes& attributes);
  void AddEmbeds(ElementKind kind, const ElementAttributes& attributes);
  void AddEmbed(EmbedSource source, const ElementAttributes& attributes,
                std::string_view url_attribute);
  void AddSrcset(EmbedSource source, const ElementAttributes& attributes,
                 std::string_view srcset_attribute);
  void AddCss(std::string_view css);

  ParsedHtml* out_;
  const bool extract_text_;
  const bool extract_embeds_;
  bool in_style_ = false;         // inside an HTML <style>, embeds wanted
  std::string style_text_;        // its text so far
  int hidden_depth_ = 0;          // open elements whose text is not visible
  bool in_first_title_ = false;   // inside the first HTML <title>
  bool seen_title_ = false;
  bool seen_base_ = false;
  bool text_space_pending_ = false;
  bool title_space_pending_ = false;
};

}  // namespace zcrawl::fetcher
