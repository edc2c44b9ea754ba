// UrlFingerprint and UrlSite: the identity of a URL and the site prefix of
// its key in the store. The site must be one value per origin (else one
// URL could get two keys) and must never change between builds (it orders
// keys on disk: a state written by one build is read by the next).
#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_canonicalizer.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

TEST(UrlFingerprintTest, TheSiteIsOneValuePerOrigin) {
  const uint32_t site = UrlSite("http://a.test/");
  EXPECT_EQ(UrlSite("http://a.test/deep/page.html"), site);
  EXPECT_EQ(UrlSite("http://a.test/?q=1"), site);
  EXPECT_EQ(UrlSite("http://a.test"), site);
  EXPECT_EQ(UrlSite("http://a.test#top"), site);
  EXPECT_NE(UrlSite("https://a.test/"), site);
  EXPECT_NE(UrlSite("http://a.test:8080/"), site);
  EXPECT_NE(UrlSite("http://b.test/"), site);
  EXPECT_NE(UrlSite("http://a.test.evil/"), site);
}

TEST(UrlFingerprintTest, TheSiteHashIsStableAcrossBuilds) {
  // FNV-1a 32 of the text before the path, computed independently.
  EXPECT_EQ(UrlSite("http://a.test/x"), 2876530228u);
  EXPECT_EQ(UrlSite("https://a.test:8443/y?z"), 2690910648u);
}

TEST(UrlFingerprintTest, TheKeyPairsTheFingerprintWithTheSite) {
  const UrlKey key = UrlCanonicalizer().KeyOf("http://a.test/x");
  EXPECT_EQ(key.fingerprint, UrlFingerprint("http://a.test/x"));
  EXPECT_EQ(key.site, UrlSite("http://a.test/x"));
  EXPECT_NE(UrlFingerprint("http://a.test/x"), UrlFingerprint("http://a.test/y"));
  EXPECT_NE(key.fingerprint, 0u);
}

}  // namespace
}  // namespace zcrawl::frontier
