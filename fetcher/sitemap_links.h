// Sitemap links: the <loc> URLs of an XML sitemap or sitemap index
// (sitemaps.org protocol), so that sitemaps announced in robots.txt feed the
// crawl like links do. A tolerant scan, not an XML parser: entities in
// <loc> are decoded (&amp; &lt; &gt; &quot; &apos;), CDATA is unwrapped,
// anything malformed is skipped. Pure function; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

// True if `body` looks like a sitemap (<urlset or <sitemapindex near the start).
bool LooksLikeSitemap(std::string_view body);

// The <loc> values, in order; at most `max_links` (the protocol allows 50,000).
std::vector<std::string> SitemapLocations(std::string_view body, size_t max_links = 50000);

}  // namespace zcrawl::fetcher
