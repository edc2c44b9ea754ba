// What the HTML standard's tokenizer and tree builder say about element
// names and tag bytes, for the two hand-written tokenizers that read a page
// without a tree builder: the nesting guard (html_depth_limit.h) and the
// link scanner (html_link_scanner.h). Each list is defined here once, so the
// two agree on which elements have no content and whose content is text.
//
// Names are lower case, as the tokenizer leaves them. Pure data and
// functions: safe from any thread.
#pragma once

#include <cstddef>
#include <string_view>

namespace zcrawl::fetcher {

// Elements "in body" takes as a start tag only: no content, no end tag.
// The standard's void elements and the legacy names the tree builder
// treats the same way (basefont, bgsound, frame, keygen, param; <image>
// becomes an <img>).
inline constexpr std::string_view kVoidElements[] = {
    "area", "base",  "basefont", "bgsound", "br",   "col",    "embed", "frame",  "hr", "image",
    "img",  "input", "keygen",   "link",    "meta", "param", "source", "track", "wbr"};

// Elements whose content the tokenizer reads as text, without character
// references, up to their own end tag (FindTextEndTag): the raw text
// elements (script, style) and those the tree builder switches the
// tokenizer to RAWTEXT for (noscript too, but only with scripting on,
// which a crawler has off).
inline constexpr std::string_view kRawTextElements[] = {"script", "style",   "xmp",
                                                        "iframe", "noembed", "noframes"};

// The escapable raw text elements: text up to their end tag like the
// above, but with character references decoded (RCDATA).
inline constexpr std::string_view kEscapableRawTextElements[] = {"textarea", "title"};

// The element after whose start tag everything is text.
inline constexpr std::string_view kPlaintextElement = "plaintext";

// Whitespace inside tags: the tokenizer's tab, LF, FF and space, and CR,
// which its input stream turns into LF.
constexpr bool IsTagSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r'; }

// A byte that ends a tag name: tag whitespace, '/' or '>'.
constexpr bool EndsTagName(char c) { return IsTagSpace(c) || c == '/' || c == '>'; }

// A control character that is not tag whitespace (DEL included): where
// the standard, gumbo and MyHTML part ways (gumbo takes a vertical tab in a
// tag for whitespace, and reads controls in text as U+FFFD).
constexpr bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && !IsTagSpace(c)) || u == 0x7F;
}

// Where the text content of a (raw or escapable) raw text element `name`,
// begun at `from`, ends: the offset of the first "</name" (ASCII case
// insensitive) followed by a byte that ends a tag name; npos if none.
// With `control_after_name`, the search instead stops at a "</name"
// followed by a control character that is not tag whitespace (gumbo may
// end the element there, the standard does not), sets it and returns npos.
size_t FindTextEndTag(std::string_view html, size_t from, std::string_view name,
                      bool* control_after_name = nullptr);

}  // namespace zcrawl::fetcher
