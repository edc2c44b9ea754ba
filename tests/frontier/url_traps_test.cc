// The trap guards on a URL's parts (url_traps.h), and ScopePolicy refusing
// with their reasons, links and page requisites alike, within the limits
// given and not at all with 0.
#include "frontier/admission/url_traps.h"

#include <gtest/gtest.h>

#include <string>

#include "frontier/admission/scope_policy.h"

namespace zcrawl::frontier {
namespace {

TEST(UrlTrapsTest, APathRepeatsWhenOneSegmentOccursMoreThanTheLimitAnywhere) {
  EXPECT_FALSE(PathRepeats("/a/b/a/b/a/b/", 3));
  EXPECT_TRUE(PathRepeats("/a/b/a/b/a/b/a/b/", 3));
  EXPECT_TRUE(PathRepeats("/x/a/y/a/z/a/w/a", 3)) << "not only in a row";
  EXPECT_FALSE(PathRepeats("/2011/11/11/11-things.html", 3)) << "a date: three copies of 11";
  EXPECT_TRUE(PathRepeats("/a/a/a", 2));
  EXPECT_FALSE(PathRepeats("/a//////b/", 1)) << "empty segments are not counted";
  EXPECT_FALSE(PathRepeats("/", 1));
  EXPECT_FALSE(PathRepeats("/ab/a/b/abab", 1));
}

TEST(UrlTrapsTest, LongPathsAreJudgedWholeBeyondTheInlineSegments) {
  std::string path;
  for (int i = 0; i < 100; ++i) path += "/s" + std::to_string(i);
  EXPECT_FALSE(PathRepeats(path, 1));
  EXPECT_TRUE(PathRepeats(path + "/s99/s3", 1));
  EXPECT_FALSE(PathRepeats(path + "/s99/s3", 2));
}

TEST(UrlTrapsTest, QueryParametersAreTheNonEmptyParts) {
  EXPECT_EQ(QueryParamCount(""), 0u);
  EXPECT_EQ(QueryParamCount("?"), 0u);
  EXPECT_EQ(QueryParamCount("?a=1"), 1u);
  EXPECT_EQ(QueryParamCount("?a=1&b&c=&&"), 3u);
}

ScopeOptions TrapOptions(uint32_t max_path_repeat, uint32_t max_query_params) {
  ScopeOptions options;
  options.seed_hosts = {"h"};
  options.rules.max_path_repeat = max_path_repeat;
  options.rules.max_query_params = max_query_params;
  return options;
}

TEST(UrlTrapsTest, TheScopeRefusesLinksAndRequisitesPastTheLimits) {
  const ScopePolicy scope(TrapOptions(3, 4));
  Url loop = *Url::Parse("http://h/a/b/a/b/a/b/a/b/c.html");
  Url facets = *Url::Parse("http://h/list?a=1&b=2&c=3&d=4&e=5");
  uint32_t hops = 0;
  EXPECT_EQ(scope.Reject(loop, 0), ScopePolicy::kPathRepeat);
  EXPECT_EQ(scope.RejectEmbed(loop, 0, &hops), ScopePolicy::kPathRepeat);
  EXPECT_EQ(scope.Reject(facets, 0), ScopePolicy::kQueryParams);
  EXPECT_EQ(scope.RejectEmbed(facets, 0, &hops), ScopePolicy::kQueryParams);
  EXPECT_TRUE(scope.Reject(*Url::Parse("http://h/a/b/a/b/a/b/c.html"), 0).empty());
  EXPECT_TRUE(scope.Reject(*Url::Parse("http://h/list?a=1&b=2&c=3&d=4"), 0).empty());
}

TEST(UrlTrapsTest, ZeroTurnsAGuardOff) {
  const ScopePolicy scope(TrapOptions(0, 0));
  EXPECT_TRUE(scope.Reject(*Url::Parse("http://h/a/a/a/a/a/a/a/a/a"), 0).empty());
  EXPECT_TRUE(scope.Reject(*Url::Parse("http://h/?a&b&c&d&e&f&g&h&i&j&k&l&m&n&o&p&q&r&s&t&u&v&w&x&y&z&aa&ab&ac&ad"
                                       "&ae&af&ag&ah"), 0).empty());
}

TEST(UrlTrapsTest, TheDefaultsRefuseALoopAndLeaveOrdinaryUrlsAlone) {
  const ScopePolicy scope(TrapOptions(ScopeRules{}.max_path_repeat, ScopeRules{}.max_query_params));
  EXPECT_EQ(scope.Reject(*Url::Parse("http://h/en/docs/en/docs/en/docs/en/docs/"), 0), ScopePolicy::kPathRepeat);
  EXPECT_TRUE(scope.Reject(*Url::Parse("http://h/2011/11/11/post?utm_source=a&utm_medium=b&id=3"), 0).empty());
}

}  // namespace
}  // namespace zcrawl::frontier
