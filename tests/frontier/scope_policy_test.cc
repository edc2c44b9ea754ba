#include "frontier/scope_policy.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

Url U(const char* s) { return *Url::Parse(s); }

TEST(ScopePolicyTest, SeedHostsAreInScopeOthersAreNot) {
  ScopePolicy scope({{"example.com"}, {}, -1, 2048});
  EXPECT_TRUE(scope.Reject(U("http://example.com/a"), 3).empty());
  EXPECT_TRUE(scope.Reject(U("https://EXAMPLE.com:8443/a"), 3).empty());
  EXPECT_EQ(scope.Reject(U("http://sub.example.com/"), 0), "host");
  EXPECT_EQ(scope.Reject(U("http://other.org/"), 0), "host");
  EXPECT_EQ(scope.Reject(U("ftp://example.com/"), 0), "scheme");
}

TEST(ScopePolicyTest, AllowDomainCoversSubdomainsButNotLookalikes) {
  ScopePolicy scope({{}, {"example.com"}, -1, 2048});
  EXPECT_TRUE(scope.Reject(U("http://example.com/"), 0).empty());
  EXPECT_TRUE(scope.Reject(U("http://a.b.example.com/"), 0).empty());
  EXPECT_EQ(scope.Reject(U("http://badexample.com/"), 0), "host");
}

TEST(ScopePolicyTest, DepthAndLengthLimits) {
  ScopePolicy scope({{"h"}, {}, 2, 30});
  EXPECT_TRUE(scope.Reject(U("http://h/a"), 2).empty());
  EXPECT_EQ(scope.Reject(U("http://h/a"), 3), "depth");
  EXPECT_EQ(scope.Reject(U("http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 0), "url_length");
}

}  // namespace
}  // namespace zcrawl::frontier
