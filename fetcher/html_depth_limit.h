// A guard against pathologically deep HTML, run before the real parser.
//
// HTML5 tree building checks "is there a <p> in scope" and the like by walking
// the stack of open elements, so parse time grows with tags x nesting depth:
// 100k nested <div>s take 15-20 s in gumbo and MyHTML alike, and gumbo frees
// its tree recursively. This scan estimates the nesting depth with a cheap
// approximation of the tree builder (implied end tags of p, li, dd/dt,
// option, table parts and a; raw text of script/style/textarea/...; comments;
// void elements) and finds where the estimate first exceeds a limit. It is an
// estimate: crafted markup can still nest deeper than it thinks, but
// straightforward deep nesting is caught.
//
// Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>

namespace zcrawl::fetcher {

// The length of the longest prefix of `html` whose estimated element nesting
// stays within `max_depth`: html.size() for almost every page, else the
// offset of the start tag that would open element number max_depth + 1.
size_t DepthLimitedLength(std::string_view html, size_t max_depth);

}  // namespace zcrawl::fetcher
