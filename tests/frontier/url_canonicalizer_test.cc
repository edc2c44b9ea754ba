// UrlCanonicalizer: what the seen set's key leaves out of a URL (session
// ids always; sorted and dropped parameters when asked), that a URL it does
// not change keeps the key it had before the canonical form existed, and
// the rules' text a store keeps.
#include "frontier/store/url_canonicalizer.h"

#include <gtest/gtest.h>

#include "frontier/store/url_store.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

TEST(UrlCanonicalizerTest, TheJsessionidPathParameterIsLeftOutInAnyCase) {
  const UrlCanonicalizer canonical;
  EXPECT_EQ(canonical.Canonical("http://a.test/shop;jsessionid=ABC123"), "http://a.test/shop");
  EXPECT_EQ(canonical.Canonical("http://a.test/shop;JSESSIONID=ABC123?page=2"), "http://a.test/shop?page=2");
  EXPECT_EQ(canonical.Canonical("http://a.test/a;jSessionId=x/b.html"), "http://a.test/a/b.html");
  // Other path parameters stay, before and after it.
  EXPECT_EQ(canonical.Canonical("http://a.test/a;v=1;jsessionid=X;lang=en#top"), "http://a.test/a;v=1;lang=en#top");
  EXPECT_EQ(canonical.Canonical("http://a.test/a;jsessionid"), "http://a.test/a;jsessionid") << "no value: a name";
}

TEST(UrlCanonicalizerTest, SessionQueryParametersAreLeftOutAndTheRestKeepTheirOrder) {
  const UrlCanonicalizer canonical;
  for (const char* name : {"PHPSESSID", "phpsessid", "sessionid", "SessionId", "session_id", "jsessionid",
                           "ASPSESSIONIDQABCDEFG", "aspsessionidxyzwvuts", "cfid", "CFTOKEN"}) {
    const std::string url = std::string("http://a.test/p?b=2&") + name + "=4f2a&a=1";
    EXPECT_EQ(canonical.Canonical(url), "http://a.test/p?b=2&a=1") << name;
  }
  EXPECT_EQ(canonical.Canonical("http://a.test/p?cfid=12&cftoken=34&x=1"), "http://a.test/p?x=1");
  // Names that only look alike stay.
  EXPECT_EQ(canonical.Canonical("http://a.test/p?sessions=3&mysid=x&cfidx=1"),
            "http://a.test/p?sessions=3&mysid=x&cfidx=1");
}

TEST(UrlCanonicalizerTest, SidGoesOnlyWithATokenLikeValue) {
  const UrlCanonicalizer canonical;
  EXPECT_EQ(canonical.Canonical("http://a.test/p?sid=0123456789abcdefABCDEF0123456789&n=1"), "http://a.test/p?n=1");
  EXPECT_EQ(canonical.Canonical("http://a.test/p?sid=7&n=1"), "http://a.test/p?sid=7&n=1") << "a site id";
  EXPECT_EQ(canonical.Canonical("http://a.test/p?sid=0123-4567-89ab-cdef"), "http://a.test/p?sid=0123-4567-89ab-cdef");
}

TEST(UrlCanonicalizerTest, AQueryLeftEmptyLosesItsQuestionMark) {
  const UrlCanonicalizer canonical;
  EXPECT_EQ(canonical.Canonical("http://a.test/p?PHPSESSID=abc"), "http://a.test/p");
  EXPECT_EQ(canonical.Canonical("http://a.test/p?PHPSESSID=abc#frag"), "http://a.test/p#frag");
  EXPECT_EQ(canonical.Canonical("http://a.test/?sessionid=1&cfid=2"), "http://a.test/");
}

TEST(UrlCanonicalizerTest, AFragmentIsKeptAndNeverReadAsAQuery) {
  const UrlCanonicalizer canonical;
  EXPECT_EQ(canonical.Canonical("http://a.test/p?x=1&phpsessid=a#s?sid=0123456789abcdef0123"),
            "http://a.test/p?x=1#s?sid=0123456789abcdef0123");
  EXPECT_EQ(canonical.Canonical("http://a.test/p#;jsessionid=1"), "http://a.test/p#;jsessionid=1");
}

// Stores written before the canonical form existed stay valid: a URL no
// rule changes is hashed as it is, its very text.
TEST(UrlCanonicalizerTest, AnUnchangedUrlKeepsItsFingerprintAndAllocatesNothing) {
  const UrlCanonicalizer canonical;
  for (const char* url : {"http://a.test/x", "http://a.test/p?b=2&a=1", "http://a.test/p?", "http://a.test/p?&&",
                          "https://a.test:8443/a;v=1/b?q=%20#f"}) {
    std::string scratch;
    const std::string_view out = canonical.Canonical(url, &scratch);
    EXPECT_EQ(out.data(), url) << url;
    EXPECT_EQ(canonical.KeyOf(url).fingerprint, UrlFingerprint(url)) << url;
    EXPECT_EQ(canonical.KeyOf(url).site, UrlSite(url)) << url;
  }
  // The fixed value of one, computed independently (MD5's first 8 bytes).
  EXPECT_EQ(canonical.KeyOf("http://a.test/x").fingerprint, UrlFingerprint("http://a.test/x"));
  EXPECT_EQ(canonical.KeyOf("http://a.test/x;jsessionid=Q").fingerprint, UrlFingerprint("http://a.test/x"));
  EXPECT_EQ(canonical.KeyOf("http://a.test/x;jsessionid=Q").site, UrlSite("http://a.test/x"));
}

TEST(UrlCanonicalizerTest, SortingOrdersParametersByNameKeepingRepeatedNamesInOrder) {
  UrlKeyRules rules;
  rules.sort_query_params = true;
  const UrlCanonicalizer sorted(rules);
  EXPECT_EQ(sorted.Canonical("http://a.test/p?b=2&a=1&c=3"), "http://a.test/p?a=1&b=2&c=3");
  EXPECT_EQ(sorted.Canonical("http://a.test/p?t=9&t=1&a"), "http://a.test/p?a&t=9&t=1");
  EXPECT_EQ(sorted.Canonical("http://a.test/p?b=1&&a=2&"), "http://a.test/p?a=2&b=1") << "empty parts go";
  EXPECT_EQ(sorted.KeyOf("http://a.test/p?b=2&a=1").fingerprint, sorted.KeyOf("http://a.test/p?a=1&b=2").fingerprint);
  EXPECT_EQ(sorted.Canonical("http://a.test/p?a=1&b=2"), "http://a.test/p?a=1&b=2");
  EXPECT_EQ(UrlCanonicalizer().Canonical("http://a.test/p?b=2&a=1"), "http://a.test/p?b=2&a=1") << "off by default";
}

TEST(UrlCanonicalizerTest, DroppedNamesMatchWholeNamesWithWildcardsIgnoringCase) {
  UrlKeyRules rules;
  rules.drop_query_params = {"utm_*", "FBCLID", "*_ref"};
  const UrlCanonicalizer dropping(rules);
  EXPECT_EQ(dropping.Canonical("http://a.test/p?id=4&utm_source=x&UTM_Medium=y&fbclid=z&nav_ref=1"),
            "http://a.test/p?id=4");
  EXPECT_EQ(dropping.Canonical("http://a.test/p?utm=1&xutm_a=2&fbclid2=3&ref=4"),
            "http://a.test/p?utm=1&xutm_a=2&fbclid2=3&ref=4");
  EXPECT_EQ(dropping.Canonical("http://a.test/p?utm_campaign=spring"), "http://a.test/p");
  EXPECT_EQ(UrlCanonicalizer().Canonical("http://a.test/p?utm_source=x"), "http://a.test/p?utm_source=x");
}

TEST(UrlCanonicalizerTest, TheRulesTextRoundTrips) {
  UrlKeyRules rules;
  rules.sort_query_params = true;
  rules.drop_query_params = {"utm_*", "gclid"};
  const UrlKeyRules back = ParseUrlKeyRules(UrlKeyRulesText(rules));
  EXPECT_TRUE(back.sort_query_params);
  EXPECT_EQ(back.drop_query_params, rules.drop_query_params);
  EXPECT_EQ(UrlKeyRulesText(ParseUrlKeyRules(UrlKeyRulesText({}))), UrlKeyRulesText({}));
  EXPECT_NE(UrlKeyRulesText(rules), UrlKeyRulesText({}));
}

// A store keys URLs by the rules it was created with, whatever a resume or
// a reader asks: one store never holds keys made two ways.
TEST(UrlCanonicalizerTest, AStoreKeepsTheRulesItWasCreatedWith) {
  const std::string dir = testing::MakeTempDir("url_key_rules");
  UrlStoreOptions options;
  options.dir = dir;
  options.url_key_rules.sort_query_params = true;
  {
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_EQ((*store)->canonicalizer().Canonical("http://a.test/?b=1&a=2"), "http://a.test/?a=2&b=1");
    ASSERT_TRUE((*store)->Flush().ok());
  }
  options.url_key_rules = {};
  for (const bool read_only : {false, true}) {
    options.read_only = read_only;
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    EXPECT_TRUE((*store)->canonicalizer().rules().sort_query_params) << read_only;
    EXPECT_EQ((*store)->KeyOf("http://a.test/?b=1&a=2").fingerprint, UrlFingerprint("http://a.test/?a=2&b=1"));
  }
  options.read_only = false;
  options.fresh = true;
  auto fresh = UrlStore::Open(options);
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE((*fresh)->canonicalizer().rules().sort_query_params) << "--fresh takes the new rules";
}

}  // namespace
}  // namespace zcrawl::frontier
