// Link resolution: turns the raw hrefs a parser found into the absolute
// http(s) URLs the crawler considers, the way a browser would resolve them:
// against <base href> (itself resolved against the page URL) or the page
// URL; fragments dropped; only the first occurrence of each URL kept, in
// document order. Pure functions; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "common/url.h"
#include "fetcher/html_parser.h"
#include "zcrawl.pb.h"

namespace zcrawl::fetcher {

struct ResolvedLinks {
  std::vector<v1::Link> links;
  // ParsedHtml::embeds resolved the same way (embed set), each URL once;
  // a URL that is also a link is listed in both.
  std::vector<v1::Link> embeds;
  uint64_t invalid = 0;        // hrefs that did not resolve
  uint64_t other_schemes = 0;  // mailto:, javascript:, ftp:, ...
};

// `nofollow` on a link is set from rel=nofollow or the page's meta robots
// nofollow, unless `ignore_nofollow`.
ResolvedLinks ResolveLinks(const ParsedHtml& html, const Url& page_url, bool ignore_nofollow);

// A stylesheet's references (css_references.h) resolved against its URL,
// as embeds, each once, in order.
ResolvedLinks ResolveCssReferences(std::string_view css, const Url& stylesheet_url);

}  // namespace zcrawl::fetcher
