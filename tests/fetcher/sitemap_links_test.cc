#include "fetcher/sitemap_links.h"

#include <gtest/gtest.h>

namespace zcrawl::fetcher {
namespace {

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

}  // namespace
}  // namespace zcrawl::fetcher
