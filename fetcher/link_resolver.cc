#include "fetcher/link_resolver.h"

#include <string>
#include <unordered_set>

namespace zcrawl::fetcher {

ResolvedLinks ResolveLinks(const ParsedHtml& html, const Url& page_url, bool ignore_nofollow) {
  ResolvedLinks out;
  const Url* base = &page_url;
  Result<Url> base_href = Url::Parse(html.base_href, &page_url);
  if (!html.base_href.empty() && base_href.ok()) base = &*base_href;

  std::unordered_set<std::string> seen;
  seen.reserve(html.links.size());
  out.links.reserve(html.links.size());
  for (const RawLink& raw : html.links) {
    auto resolved = Url::Parse(raw.href, base);
    if (!resolved.ok()) {
      ++out.invalid;
      continue;
    }
    if (resolved->scheme() != "http" && resolved->scheme() != "https") {
      ++out.other_schemes;
      continue;
    }
    resolved->ClearFragment();
    if (!seen.insert(resolved->href()).second) continue;
    v1::Link& link = out.links.emplace_back();
    link.set_url(resolved->href());
    link.set_nofollow(!ignore_nofollow && (raw.rel_nofollow || html.meta_nofollow));
  }
  return out;
}

}  // namespace zcrawl::fetcher
