#include "fetcher/sitemap_links.h"

namespace zcrawl::fetcher {
namespace {

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::string DecodeEntities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool matched = false;
    for (const auto& [name, c] : kEntities) {
      if (s.substr(i, name.size()) == name) {
        out.push_back(c);
        i += name.size() - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out.push_back('&');
  }
  return out;
}

}  // namespace

bool LooksLikeSitemap(std::string_view body) {
  const std::string_view head = body.substr(0, 4096);
  return head.find("<urlset") != std::string_view::npos ||
         head.find("<sitemapindex") != std::string_view::npos;
}

std::vector<std::string> SitemapLocations(std::string_view body, size_t max_links) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (out.size() < max_links) {
    const size_t open = body.find("<loc>", pos);
    if (open == std::string_view::npos) break;
    const size_t start = open + 5;
    const size_t close = body.find("</loc>", start);
    if (close == std::string_view::npos) break;
    std::string_view value = body.substr(start, close - start);
    pos = close + 6;
    if (value.starts_with("<![CDATA[") && value.ends_with("]]>")) {
      out.push_back(Trim(value.substr(9, value.size() - 12)));
    } else {
      out.push_back(Trim(DecodeEntities(value)));
    }
    if (out.back().empty()) out.pop_back();
  }
  return out;
}

}  // namespace zcrawl::fetcher
