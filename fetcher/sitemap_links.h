// Sitemap links: the <loc> URLs of an XML sitemap or sitemap index
// (sitemaps.org protocol), so that sitemaps announced in robots.txt feed the
// crawl like links do. A tolerant scan, not an XML parser: entities in
// <loc> are decoded (&amp; &lt; &gt; &quot; &apos;), CDATA is unwrapped,
// anything malformed is skipped. Pure functions; thread-safe.
//
// Gzip: the protocol allows a sitemap or an index to be a gzip file
// (sitemap.xml.gz). Servers such as nginx send those as application/gzip
// without Content-Encoding, so they arrive still compressed. ReadSitemap
// recognises gzip by its magic bytes (1f 8b), whatever the name or content
// type, and inflates it with zlib, one member after another as gzip -d does.
//
// Limits: the protocol's, per file, plain or gzipped alike: 50,000 URLs and
// 50 MiB uncompressed. What lies beyond is not read; ReadSitemap says how
// much that was, and the caller logs and counts it. The byte limit is also
// the guard against gzip bombs: inflation stops there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

// sitemaps.org: "no more than 50,000 URLs".
inline constexpr size_t kMaxSitemapUrls = 50000;
// sitemaps.org: "no larger than 50MB (52,428,800 bytes)" uncompressed:
// 50 MiB, the byte count the protocol spells out.
inline constexpr uint64_t kMaxSitemapBytes = 50ull * 1024 * 1024;

struct SitemapLimits {
  size_t max_urls = kMaxSitemapUrls;
  uint64_t max_bytes = kMaxSitemapBytes;  // uncompressed
};

// What ReadSitemap found in a response body.
struct SitemapContent {
  bool is_sitemap = false;  // a urlset or sitemapindex (plain, or once inflated)
  bool gzipped = false;     // the body was gzip
  std::vector<std::string> locations;  // the <loc> values, in order; at most max_urls
  uint64_t bytes_read = 0;  // uncompressed bytes scanned; at most max_bytes
  // <loc> values found past max_urls in the bytes read, dropped. URLs in
  // bytes past max_bytes are not looked for, so not counted.
  uint64_t urls_cut = 0;
  bool size_cut = false;  // there was more than max_bytes; it was not read
  // With size_cut: uncompressed bytes not read. Exact for a plain body; for
  // gzip the size the trailer states (ISIZE, modulo 4 GiB, of the last
  // member) minus bytes_read, 0 when the trailer says no more.
  uint64_t bytes_cut = 0;
  uint64_t compressed_bytes_unread = 0;  // with size_cut, gzip: input not inflated
  // Set when gzip data does not inflate (corrupt or truncated): zlib's
  // message. Nothing else is then valid but is_sitemap, which says whether
  // what did inflate looked like a sitemap.
  std::string gzip_error;

  bool cut() const { return urls_cut > 0 || size_cut; }
};

// True if `body` looks like a sitemap (<urlset or <sitemapindex near the start).
bool LooksLikeSitemap(std::string_view body);

// True if `body` starts with gzip's magic bytes, 1f 8b.
bool IsGzip(std::string_view body);

// The <loc> values of a plain sitemap, in order; at most `max_links`.
std::vector<std::string> SitemapLocations(std::string_view body, size_t max_links = kMaxSitemapUrls);

// Reads a response body that may be a sitemap, plain or gzipped. A gzip body
// is inflated only as far as needed to tell (4 KiB) unless it is a sitemap,
// so other .gz files cost little; gzip_error is set if even that much does
// not inflate.
SitemapContent ReadSitemap(std::string_view body, const SitemapLimits& limits = {});

}  // namespace zcrawl::fetcher
