// Fuzz target of sitemap reading (fetcher/sitemap_links.h), plain and
// gzipped: the first byte chooses small limits or none, and whether the
// rest is gzipped by this target first (so the XML scanner behind the
// inflater is reached too). ReadSitemap must never crash and must keep
// its limits: no more locations than max_urls, no more bytes read than
// max_bytes, and a cut only where one was reported.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fetcher/sitemap_links.h"

namespace {

std::string Gzip(std::string_view bytes) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, bytes.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  zcrawl::fetcher::SitemapLimits limits;
  if (data[0] & 1) {
    limits.max_urls = 1 + (data[0] >> 4);
    limits.max_bytes = 64 + 16 * (data[0] & 0x0E);
  }
  const std::string body = (data[0] & 0x10) ? Gzip(rest) : std::string(rest);
  const auto content = zcrawl::fetcher::ReadSitemap(body, limits);
  if (content.locations.size() > limits.max_urls) abort();
  if (content.bytes_read > limits.max_bytes) abort();
  if (content.bytes_cut > 0 && !content.size_cut) abort();
  (void)zcrawl::fetcher::SitemapLocations(rest, limits.max_urls);
  (void)zcrawl::fetcher::LooksLikeSitemap(rest);
  return 0;
}
