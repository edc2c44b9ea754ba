#include "fetcher/sitemap_links.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/gzip_file.h"

namespace zcrawl::fetcher {
namespace {

std::string Gzip(const std::string& data, int level = Z_BEST_COMPRESSION) {
  return ::zcrawl::testing::GzipFile(data, level);
}

std::string Urlset(const std::vector<std::string>& urls) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (const auto& url : urls) out += "  <url><loc>" + url + "</loc><lastmod>2024-01-01</lastmod></url>\n";
  return out + "</urlset>\n";
}

std::string Index(const std::vector<std::string>& sitemaps) {
  std::string out =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
  for (const auto& url : sitemaps) out += "  <sitemap><loc>" + url + "</loc></sitemap>\n";
  return out + "</sitemapindex>\n";
}

std::vector<std::string> NumberedUrls(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("http://a.test/page/" + std::to_string(i));
  return out;
}

TEST(SitemapLinksTest, ReadsLocsOfUrlsetsAndIndexes) {
  const std::string urlset =
      "<?xml version=\"1.0\"?><urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
      "<url><loc> http://a.test/x?p=1&amp;q=2 </loc><lastmod>2020</lastmod></url>"
      "<url><loc><![CDATA[http://a.test/y]]></loc></url><url><loc></loc></url></urlset>";
  EXPECT_TRUE(LooksLikeSitemap(urlset));
  EXPECT_EQ(SitemapLocations(urlset),
            (std::vector<std::string>{"http://a.test/x?p=1&q=2", "http://a.test/y"}));
  const std::string index = "<sitemapindex><sitemap><loc>http://a.test/s2.xml</loc></sitemap></sitemapindex>";
  EXPECT_TRUE(LooksLikeSitemap(index));
  EXPECT_EQ(SitemapLocations(index), std::vector<std::string>{"http://a.test/s2.xml"});
}

TEST(SitemapLinksTest, IgnoresOtherXmlAndTruncatedDocuments) {
  EXPECT_FALSE(LooksLikeSitemap("<rss><channel><link>x</link></channel></rss>"));
  EXPECT_TRUE(SitemapLocations("<urlset><url><loc>http://a.test/unclosed").empty());
  std::string many = "<urlset>";
  for (int i = 0; i < 10; ++i) many += "<url><loc>http://a.test/" + std::to_string(i) + "</loc></url>";
  EXPECT_EQ(SitemapLocations(many, 3).size(), 3u);
}

// --- ReadSitemap: plain and gzipped alike ------------------------------------

TEST(SitemapLinksTest, GzippedUrlsetAndIndexYieldExactlyTheLocationsOfTheirPlainVersions) {
  const std::string urlset = Urlset({"http://a.test/x?p=1&amp;q=2", "<![CDATA[http://a.test/y]]>",
                                     "http://a.test/z"});
  const std::string index = Index({"http://a.test/sm1.xml", "http://a.test/sm2.xml.gz"});
  for (const std::string& plain : {urlset, index}) {
    const SitemapContent from_plain = ReadSitemap(plain);
    ASSERT_TRUE(from_plain.is_sitemap);
    EXPECT_FALSE(from_plain.gzipped);
    EXPECT_EQ(from_plain.locations, SitemapLocations(plain));
    for (int level : {Z_BEST_SPEED, Z_BEST_COMPRESSION}) {
      const std::string gz = Gzip(plain, level);
      ASSERT_TRUE(IsGzip(gz));
      const SitemapContent from_gzip = ReadSitemap(gz);
      EXPECT_TRUE(from_gzip.is_sitemap);
      EXPECT_TRUE(from_gzip.gzipped);
      EXPECT_EQ(from_gzip.gzip_error, "");
      EXPECT_EQ(from_gzip.locations, from_plain.locations) << "level " << level;
      EXPECT_EQ(from_gzip.bytes_read, plain.size());
      EXPECT_FALSE(from_gzip.cut());
    }
  }
  EXPECT_EQ(ReadSitemap(Gzip(urlset)).locations,
            (std::vector<std::string>{"http://a.test/x?p=1&q=2", "http://a.test/y", "http://a.test/z"}));
  EXPECT_EQ(ReadSitemap(Gzip(index)).locations,
            (std::vector<std::string>{"http://a.test/sm1.xml", "http://a.test/sm2.xml.gz"}));
}

TEST(SitemapLinksTest, GzipFileOfSeveralMembersIsReadWhole) {
  // `cat a.gz b.gz` is a valid gzip file; gzip -d reads both members.
  const std::string plain = Urlset(NumberedUrls(300));
  const size_t half = plain.size() / 2;
  const std::string gz = Gzip(plain.substr(0, half)) + Gzip(plain.substr(half));
  EXPECT_EQ(ReadSitemap(gz).locations, NumberedUrls(300));
}

TEST(SitemapLinksTest, IsGzipGoesByTheMagicBytesOnly) {
  EXPECT_TRUE(IsGzip(std::string("\x1f\x8b", 2)));
  EXPECT_FALSE(IsGzip("\x1f"));
  EXPECT_FALSE(IsGzip(""));
  EXPECT_FALSE(IsGzip("<urlset>"));
  EXPECT_FALSE(IsGzip(std::string("\x8b\x1f", 2)));
}

TEST(SitemapLinksTest, GzipOfSomethingElseIsNotASitemap) {
  std::string text(1 << 20, 'x');  // more than the 4 KiB looked at
  text += "<urlset><url><loc>http://a.test/late</loc></url></urlset>";
  const SitemapContent content = ReadSitemap(Gzip(text));
  EXPECT_TRUE(content.gzipped);
  EXPECT_FALSE(content.is_sitemap);
  EXPECT_EQ(content.gzip_error, "");
  EXPECT_TRUE(content.locations.empty());
  EXPECT_FALSE(ReadSitemap("%PDF-1.4").is_sitemap);
}

// A sitemap index naming one plain and one gzipped sitemap: every URL of
// both, as the fetcher would find them fetching each <loc> in turn.
TEST(SitemapLinksTest, IndexOfAPlainAndAGzippedSitemapYieldsTheUrlsOfBoth) {
  const std::vector<std::string> first = {"http://a.test/a1", "http://a.test/a2"};
  const std::vector<std::string> second = {"http://a.test/b1", "http://a.test/b2", "http://a.test/b3"};
  const std::map<std::string, std::string> served = {
      {"http://a.test/sitemap_index.xml", Index({"http://a.test/sm1.xml", "http://a.test/sm2.xml.gz"})},
      {"http://a.test/sm1.xml", Urlset(first)},
      {"http://a.test/sm2.xml.gz", Gzip(Urlset(second))},
  };
  std::vector<std::string> pending = {"http://a.test/sitemap_index.xml"};
  std::set<std::string> pages;
  while (!pending.empty()) {
    const std::string url = pending.back();
    pending.pop_back();
    auto it = served.find(url);
    if (it == served.end()) {
      pages.insert(url);
      continue;
    }
    const SitemapContent content = ReadSitemap(it->second);
    ASSERT_TRUE(content.is_sitemap) << url;
    for (const auto& loc : content.locations) pending.push_back(loc);
  }
  std::set<std::string> expected(first.begin(), first.end());
  expected.insert(second.begin(), second.end());
  EXPECT_EQ(pages, expected);
}

// --- The protocol's limits -------------------------------------------------

TEST(SitemapLinksTest, MoreThan50000UrlsAreCutAt50000AndTheRestCounted) {
  const std::vector<std::string> urls = NumberedUrls(50007);
  const std::string plain = Urlset(urls);
  const std::vector<std::string> first(urls.begin(), urls.begin() + 50000);
  for (const std::string& body : {plain, Gzip(plain)}) {
    const SitemapContent content = ReadSitemap(body);
    EXPECT_TRUE(content.is_sitemap);
    EXPECT_EQ(content.locations.size(), 50000u);
    EXPECT_EQ(content.locations, first);
    EXPECT_EQ(content.urls_cut, 7u);
    EXPECT_FALSE(content.size_cut);
    EXPECT_TRUE(content.cut());
  }
  // Exactly 50,000 is within the limit.
  const std::string full = Urlset(first);
  for (const std::string& body : {full, Gzip(full)}) {
    const SitemapContent content = ReadSitemap(body);
    EXPECT_EQ(content.locations.size(), 50000u);
    EXPECT_EQ(content.urls_cut, 0u);
    EXPECT_FALSE(content.cut());
  }
}

TEST(SitemapLinksTest, GzipBombStopsAt50MiBAndCountsTheCut) {
  ASSERT_EQ(kMaxSitemapBytes, 52428800u);  // sitemaps.org's 50MB, in bytes
  const std::string head = "<urlset><url><loc>http://a.test/first</loc></url>";
  const std::string plain = head + std::string(60u << 20, ' ') + "<url><loc>http://a.test/after</loc></url></urlset>";
  const std::string bomb = Gzip(plain);
  ASSERT_LT(bomb.size(), 256u * 1024) << "a bomb is small on the wire";

  const auto started = std::chrono::steady_clock::now();
  const SitemapContent content = ReadSitemap(bomb);
  const auto elapsed = std::chrono::steady_clock::now() - started;

  EXPECT_TRUE(content.is_sitemap);
  EXPECT_EQ(content.gzip_error, "");
  EXPECT_EQ(content.locations, std::vector<std::string>{"http://a.test/first"});
  EXPECT_TRUE(content.size_cut);
  EXPECT_TRUE(content.cut());
  EXPECT_EQ(content.bytes_read, kMaxSitemapBytes);
  EXPECT_EQ(content.bytes_cut, plain.size() - kMaxSitemapBytes);
  EXPECT_GT(content.compressed_bytes_unread, 0u);
  EXPECT_LT(content.compressed_bytes_unread, bomb.size());
  EXPECT_LT(elapsed, std::chrono::seconds(5));

  // The same document plain is cut at the same place.
  const SitemapContent from_plain = ReadSitemap(plain);
  EXPECT_EQ(from_plain.locations, content.locations);
  EXPECT_TRUE(from_plain.size_cut);
  EXPECT_EQ(from_plain.bytes_read, kMaxSitemapBytes);
  EXPECT_EQ(from_plain.bytes_cut, plain.size() - kMaxSitemapBytes);
}

TEST(SitemapLinksTest, ByteLimitIsInclusive) {
  SitemapLimits limits;
  const std::string plain = Urlset(NumberedUrls(20));
  limits.max_bytes = plain.size();
  for (const std::string& body : {plain, Gzip(plain)}) {
    const SitemapContent content = ReadSitemap(body, limits);
    EXPECT_FALSE(content.size_cut);
    EXPECT_EQ(content.bytes_read, plain.size());
    EXPECT_EQ(content.locations.size(), 20u);
  }
  limits.max_bytes = plain.size() - 1;
  for (const std::string& body : {plain, Gzip(plain)}) {
    const SitemapContent content = ReadSitemap(body, limits);
    EXPECT_TRUE(content.size_cut);
    EXPECT_EQ(content.bytes_read, plain.size() - 1);
    EXPECT_EQ(content.bytes_cut, 1u);
    EXPECT_EQ(content.locations.size(), 20u);  // only "</urlset>\n" lost its last byte
  }
}

// --- Corrupt gzip ------------------------------------------------------------

TEST(SitemapLinksTest, CorruptGzipGivesTheReasonAndNoLocations) {
  const std::string plain = Urlset(NumberedUrls(2000));
  const std::string gz = Gzip(plain);
  ASSERT_GT(gz.size(), 1000u);

  // Cut short (a transfer that ended early).
  SitemapContent truncated = ReadSitemap(gz.substr(0, gz.size() / 2));
  EXPECT_TRUE(truncated.gzipped);
  EXPECT_TRUE(truncated.is_sitemap);  // its head was one
  EXPECT_EQ(truncated.gzip_error, "gzip data ends early");
  EXPECT_TRUE(truncated.locations.empty());

  // A wrong CRC-32 in the trailer.
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] ^= 0x55;
  SitemapContent crc = ReadSitemap(bad_crc);
  EXPECT_TRUE(crc.is_sitemap);
  EXPECT_EQ(crc.gzip_error, "incorrect data check");
  EXPECT_TRUE(crc.locations.empty());

  // Garbage behind the magic bytes: not even the head inflates.
  SitemapContent garbage = ReadSitemap(std::string("\x1f\x8b\x08\x00", 4) + std::string(64, '\xff'));
  EXPECT_TRUE(garbage.gzipped);
  EXPECT_FALSE(garbage.is_sitemap);
  EXPECT_NE(garbage.gzip_error, "");
  EXPECT_TRUE(garbage.locations.empty());

  // Magic bytes alone.
  EXPECT_EQ(ReadSitemap(std::string("\x1f\x8b", 2)).gzip_error, "gzip data ends early");
}

}  // namespace
}  // namespace zcrawl::fetcher
