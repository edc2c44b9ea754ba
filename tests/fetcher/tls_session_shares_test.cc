// TlsSessionShares: one share per https origin, one common share for the
// rest, and the least recently used origin's share freed past the limit
// unless a transfer holds it.
#include "fetcher/tls_session_shares.h"

#include <gtest/gtest.h>

namespace zcrawl::fetcher {
namespace {

TEST(TlsSessionSharesTest, OneSharePerHttpsOriginAndOneCommonForTheRest) {
  TlsSessionShares shares(8);
  CURLSH* a = shares.Acquire("https://a.example/x?q");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(shares.Acquire("https://a.example/y"), a) << "same origin, same share";
  EXPECT_NE(shares.Acquire("https://a.example:8443/"), a) << "another port is another origin";
  CURLSH* plain = shares.Acquire("http://a.example/");
  ASSERT_NE(plain, nullptr) << "plain http gets a share too: a handle must never start without one";
  EXPECT_EQ(shares.Acquire("http://b.example/"), plain);
  EXPECT_NE(plain, a);
  EXPECT_EQ(shares.size(), 2u) << "only https origins are kept";
  EXPECT_EQ(TlsSessionShares::HttpsOrigin("https://h:1/p#f"), "https://h:1");
  EXPECT_EQ(TlsSessionShares::HttpsOrigin("https://h?q"), "https://h");
  EXPECT_EQ(TlsSessionShares::HttpsOrigin("http://h/"), "");
}

TEST(TlsSessionSharesTest, PastTheLimitTheLeastRecentUnheldOriginIsForgotten) {
  TlsSessionShares shares(2);
  CURLSH* a = shares.Acquire("https://a/");  // held throughout
  CURLSH* b = shares.Acquire("https://b/");
  shares.Release(b);
  CURLSH* c = shares.Acquire("https://c/");
  shares.Release(c);
  EXPECT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares.Acquire("https://a/"), a) << "held, so kept although least recent";
  shares.Release(a);
  shares.Release(a);
  // b went. Now a is more recent than c, so d pushes out c.
  CURLSH* d = shares.Acquire("https://d/");
  shares.Release(d);
  EXPECT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares.Acquire("https://a/"), a);
  shares.Release(a);
  EXPECT_EQ(shares.Acquire("https://d/"), d);
  shares.Release(d);
  EXPECT_EQ(shares.size(), 2u) << "c is the one forgotten";
}

TEST(TlsSessionSharesTest, WhenEveryOtherIsHeldTheLimitGivesWayUntilReleased) {
  TlsSessionShares shares(1);
  CURLSH* a = shares.Acquire("https://a/");
  CURLSH* b = shares.Acquire("https://b/");
  EXPECT_NE(a, b);
  EXPECT_EQ(shares.size(), 2u) << "both held: neither may be freed under a running transfer";
  shares.Release(a);
  shares.Release(b);
  CURLSH* c = shares.Acquire("https://c/");
  shares.Release(c);
  EXPECT_EQ(shares.size(), 1u);
}

TEST(TlsSessionSharesTest, NoOriginsKeptMeansTheCommonShareForAll) {
  TlsSessionShares shares(0);
  CURLSH* plain = shares.Acquire("http://a/");
  EXPECT_EQ(shares.Acquire("https://a/"), plain);
  EXPECT_EQ(shares.size(), 0u);
}

}  // namespace
}  // namespace zcrawl::fetcher
