#include "fetcher/sitemap_links.h"

#include <zlib.h>

#include <algorithm>
#include <climits>

#include "common/ascii.h"

namespace zcrawl::fetcher {
namespace {

// How far LooksLikeSitemap looks, and so how much of a gzip body is
// inflated to tell whether it is a sitemap.
constexpr size_t kSniffBytes = 4096;

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

// The next non-empty <loc> value at or after `pos` (which moves past it),
// or false when there is none.
bool NextLocation(std::string_view body, size_t& pos, std::string& value) {
  while (true) {
    const size_t open = body.find("<loc>", pos);
    if (open == std::string_view::npos) return false;
    const size_t start = open + 5;
    const size_t close = body.find("</loc>", start);
    if (close == std::string_view::npos) return false;
    std::string_view raw = body.substr(start, close - start);
    pos = close + 6;
    if (raw.starts_with("<![CDATA[") && raw.ends_with("]]>")) {
      value = std::string(TrimAsciiWhitespace(raw.substr(9, raw.size() - 12)));
    } else {
      value = std::string(TrimAsciiWhitespace(DecodeEntities(raw)));
    }
    if (!value.empty()) return true;
  }
}

// Up to `max_links` locations into `out`; returns how many more there were.
uint64_t ScanLocations(std::string_view body, size_t max_links, std::vector<std::string>& out) {
  uint64_t more = 0;
  size_t pos = 0;
  std::string value;
  while (NextLocation(body, pos, value)) {
    if (out.size() < max_links) {
      out.push_back(std::move(value));
    } else {
      ++more;
    }
  }
  return more;
}

// A gzip body inflated piecemeal, so the caller can stop at any size.
class Gunzip {
 public:
  explicit Gunzip(std::string_view in) : in_(in) {
    ok_ = inflateInit2(&zs_, 15 + 16) == Z_OK;  // 15: 32 KiB window; +16: gzip wrapper
    if (!ok_) error_ = "zlib inflateInit2 failed";
  }
  ~Gunzip() {
    if (ok_) inflateEnd(&zs_);
  }
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  // Appends to `out` until it holds `size` bytes or the data ends. False
  // (and error()) if the data is corrupt or ends early.
  bool InflateUntil(std::string& out, size_t size) {
    if (!error_.empty()) return false;
    while (!ended_ && out.size() < size) {
      if (zs_.avail_in == 0) Refill();
      const size_t old = out.size();
      const size_t room = std::min<size_t>({size - old, 1u << 20, UINT_MAX});
      out.resize(old + room);
      zs_.next_out = reinterpret_cast<Bytef*>(out.data() + old);
      zs_.avail_out = static_cast<uInt>(room);
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      out.resize(old + room - zs_.avail_out);
      if (rc == Z_STREAM_END) {
        // Another member may follow; other trailing bytes are ignored, as
        // gzip -d ignores them.
        if (zs_.avail_in == 0) Refill();
        if (IsGzip(std::string_view(reinterpret_cast<const char*>(zs_.next_in), zs_.avail_in)) &&
            inflateReset(&zs_) == Z_OK) {
          continue;
        }
        ended_ = true;
      } else if (rc == Z_BUF_ERROR) {  // no progress: with room for output, no input left
        error_ = "gzip data ends early";
        return false;
      } else if (rc != Z_OK) {
        error_ = zs_.msg != nullptr ? zs_.msg : "inflate failed rc=" + std::to_string(rc);
        return false;
      }
    }
    return true;
  }

  uint64_t unread() const { return in_.size() - fed_ + zs_.avail_in; }
  const std::string& error() const { return error_; }

 private:
  // zlib counts input in uInt: feed a larger body in pieces.
  void Refill() {
    const size_t n = std::min<size_t>(in_.size() - fed_, UINT_MAX);
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in_.data() + fed_));
    zs_.avail_in = static_cast<uInt>(n);
    fed_ += n;
  }

  std::string_view in_;
  size_t fed_ = 0;  // bytes of in_ handed to zlib
  z_stream zs_{};
  bool ok_ = false;
  bool ended_ = false;
  std::string error_;
};

// The uncompressed size the last gzip member's trailer states (ISIZE,
// little-endian, modulo 2^32).
uint64_t StatedGzipSize(std::string_view body) {
  if (body.size() < 18) return 0;  // header 10 + trailer 8
  uint64_t size = 0;
  for (int i = 0; i < 4; ++i) {
    size |= static_cast<uint64_t>(static_cast<unsigned char>(body[body.size() - 4 + i])) << (8 * i);
  }
  return size;
}

}  // namespace

bool LooksLikeSitemap(std::string_view body) {
  const std::string_view head = body.substr(0, kSniffBytes);
  return head.find("<urlset") != std::string_view::npos ||
         head.find("<sitemapindex") != std::string_view::npos;
}

bool IsGzip(std::string_view body) {
  return body.size() >= 2 && static_cast<unsigned char>(body[0]) == 0x1f &&
         static_cast<unsigned char>(body[1]) == 0x8b;
}

std::vector<std::string> SitemapLocations(std::string_view body, size_t max_links) {
  std::vector<std::string> out;
  ScanLocations(body, max_links, out);
  return out;
}

SitemapContent ReadSitemap(std::string_view body, const SitemapLimits& limits) {
  SitemapContent content;
  std::string inflated;
  std::string_view text = body;
  if (IsGzip(body)) {
    content.gzipped = true;
    Gunzip gunzip(body);
    const size_t sniff = static_cast<size_t>(std::min<uint64_t>(kSniffBytes, limits.max_bytes + 1));
    const bool head_ok = gunzip.InflateUntil(inflated, sniff);
    content.is_sitemap = LooksLikeSitemap(inflated);
    if (!head_ok) {
      content.gzip_error = gunzip.error();
      return content;
    }
    if (!content.is_sitemap) return content;
    // One byte past the limit tells a file of exactly max_bytes from a
    // larger one.
    if (!gunzip.InflateUntil(inflated, static_cast<size_t>(limits.max_bytes + 1))) {
      content.gzip_error = gunzip.error();
      return content;
    }
    if (inflated.size() > limits.max_bytes) {
      content.size_cut = true;
      inflated.resize(static_cast<size_t>(limits.max_bytes));
      content.compressed_bytes_unread = gunzip.unread();
      const uint64_t stated = StatedGzipSize(body);
      content.bytes_cut = stated > limits.max_bytes ? stated - limits.max_bytes : 0;
    }
    text = inflated;
  } else {
    content.is_sitemap = LooksLikeSitemap(body);
    if (!content.is_sitemap) return content;
    if (text.size() > limits.max_bytes) {
      content.size_cut = true;
      content.bytes_cut = text.size() - limits.max_bytes;
      text = text.substr(0, static_cast<size_t>(limits.max_bytes));
    }
  }
  content.bytes_read = text.size();
  content.urls_cut = ScanLocations(text, limits.max_urls, content.locations);
  return content;
}

}  // namespace zcrawl::fetcher
