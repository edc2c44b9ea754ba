// CSS references: the URLs a stylesheet makes a browser fetch, found by
// tokenizing it as CSS Syntax Level 3 does (comments, strings with their
// escapes and line continuations, url tokens, escaped identifiers), so
// that a "url(" inside a comment or a string is no reference and
// "u\72l(x)" is one. Two forms count:
//   - url(x) / url("x") / url('x'), anywhere (backgrounds, @font-face src,
//     cursors, list images, ...);
//   - @import "x" and @import url(x).
// A bad url or bad string (an unescaped newline, a quote or '(' inside an
// unquoted url) is no reference, as the browser drops it too. Not counted:
// image-set()'s and src()'s bare strings (rare; their url() forms count).
//
// The text is taken as UTF-8 (stylesheets' URLs are ASCII but for the odd
// escape); the caller resolves each URL against the stylesheet's URL, or
// the document's base URL for <style> and style="" (link_resolver.h).
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

struct CssReference {
  std::string url;      // unescaped, as the browser would resolve it
  bool import = false;  // from @import (a stylesheet itself)

  bool operator==(const CssReference&) const = default;
};

// Appends the references of `css`, in order, every occurrence.
void FindCssReferences(std::string_view css, std::vector<CssReference>* out);

}  // namespace zcrawl::fetcher
