#include "fetcher/link_resolver.h"

#include "fetcher/css_references.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace zcrawl::fetcher {
namespace {

// Resolves `raw` against `base`: the absolute http(s) URL without its
// fragment, or nullopt (counted in `out`).
std::optional<std::string> Resolve(std::string_view raw, const Url* base, ResolvedLinks& out) {
  auto resolved = Url::Parse(raw, base);
  if (!resolved.ok()) {
    ++out.invalid;
    return std::nullopt;
  }
  if (resolved->scheme() != "http" && resolved->scheme() != "https") {
    ++out.other_schemes;
    return std::nullopt;
  }
  resolved->ClearFragment();
  return std::string(resolved->href());
}

// URLs already listed, as views of the listed v1::Link's own url: one copy
// of each URL, not two. The vectors are reserved for every candidate first,
// so no Link moves while a view of it is held.
using SeenUrls = std::unordered_set<std::string_view>;

void AddEmbed(std::string url, SeenUrls& seen, ResolvedLinks& out) {
  if (seen.contains(url)) return;
  v1::Link& link = out.embeds.emplace_back();
  link.set_url(std::move(url));
  link.set_embed(true);
  seen.insert(link.url());
}

}  // namespace

ResolvedLinks ResolveLinks(const ParsedHtml& html, const Url& page_url, bool ignore_nofollow) {
  ResolvedLinks out;
  const Url* base = &page_url;
  Result<Url> base_href = Url::Parse(html.base_href, &page_url);
  if (!html.base_href.empty() && base_href.ok()) base = &*base_href;

  SeenUrls seen;
  seen.reserve(html.links.size());
  out.links.reserve(html.links.size());
  for (const RawLink& raw : html.links) {
    std::optional<std::string> url = Resolve(raw.href, base, out);
    if (!url || seen.contains(*url)) continue;
    v1::Link& link = out.links.emplace_back();
    link.set_url(std::move(*url));
    link.set_nofollow(!ignore_nofollow && (raw.rel_nofollow || html.meta_nofollow));
    seen.insert(link.url());
  }
  // Requisites are fetched whatever the page's nofollow: a robots meta
  // tag speaks of the links to follow, not of what renders the page.
  SeenUrls seen_embeds;
  out.embeds.reserve(html.embeds.size());
  for (const RawEmbed& raw : html.embeds) {
    if (std::optional<std::string> url = Resolve(raw.url, base, out)) AddEmbed(std::move(*url), seen_embeds, out);
  }
  return out;
}

ResolvedLinks ResolveCssReferences(std::string_view css, const Url& stylesheet_url) {
  ResolvedLinks out;
  std::vector<CssReference> references;
  FindCssReferences(css, &references);
  SeenUrls seen;
  out.embeds.reserve(references.size());
  for (const CssReference& reference : references) {
    if (std::optional<std::string> url = Resolve(reference.url, &stylesheet_url, out)) AddEmbed(std::move(*url), seen, out);
  }
  return out;
}

}  // namespace zcrawl::fetcher
