#include "frontier/admission/scope_policy.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace zcrawl::frontier {
namespace {

Url U(const char* s) { return *Url::Parse(s); }

TEST(ScopePolicyTest, SeedHostsAreInScopeOthersAreNot) {
  ScopeOptions options;
  options.seed_hosts = {"example.com"};
  ScopePolicy scope(options);
  EXPECT_TRUE(scope.Reject(U("http://example.com/a"), 3).empty());
  EXPECT_TRUE(scope.Reject(U("https://EXAMPLE.com:8443/a"), 3).empty());
  EXPECT_EQ(scope.Reject(U("http://sub.example.com/"), 0), "host");
  EXPECT_EQ(scope.Reject(U("http://other.org/"), 0), "host");
  EXPECT_EQ(scope.Reject(U("ftp://example.com/"), 0), "scheme");
}

TEST(ScopePolicyTest, WebScopeTakesAnyHttpHostButKeepsTheOtherRules) {
  ScopeOptions options;
  options.seed_hosts = {"example.com"};
  options.any_host = true;
  options.rules.max_depth = 2;
  options.rules.deny_patterns = {"/private/"};
  ScopePolicy scope(options);
  EXPECT_TRUE(scope.Reject(U("http://other.org/a"), 1).empty());
  EXPECT_TRUE(scope.Reject(U("https://sub.example.co.uk/"), 2).empty());
  EXPECT_EQ(scope.Reject(U("ftp://other.org/"), 0), "scheme");
  EXPECT_EQ(scope.Reject(U("http://other.org/a"), 3), "depth");
  EXPECT_EQ(scope.Reject(U("http://other.org/private/x"), 0), "deny");
}

TEST(ScopePolicyTest, AllowDomainCoversSubdomainsButNotLookalikes) {
  ScopeOptions options;
  options.rules.allow_domains = {"example.com"};
  ScopePolicy scope(options);
  EXPECT_TRUE(scope.Reject(U("http://example.com/"), 0).empty());
  EXPECT_TRUE(scope.Reject(U("http://a.b.example.com/"), 0).empty());
  EXPECT_EQ(scope.Reject(U("http://badexample.com/"), 0), "host");
}

TEST(ScopePolicyTest, DepthAndLengthLimits) {
  ScopeOptions options;
  options.seed_hosts = {"h"};
  options.rules.max_depth = 2;
  options.rules.max_url_length = 30;
  ScopePolicy scope(options);
  EXPECT_TRUE(scope.Reject(U("http://h/a"), 2).empty());
  EXPECT_EQ(scope.Reject(U("http://h/a"), 3), "depth");
  EXPECT_EQ(scope.Reject(U("http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), 0), "url_length");
}

ScopeOptions PatternOptions(std::vector<std::string> allow, std::vector<std::string> deny) {
  ScopeOptions options;
  options.seed_hosts = {"h"};
  options.rules.allow_patterns = std::move(allow);
  options.rules.deny_patterns = std::move(deny);
  return options;
}

ScopePolicy MustCreate(ScopeOptions options) {
  auto policy = ScopePolicy::Create(std::move(options));
  EXPECT_TRUE(policy.ok()) << policy.status().ToString();
  return std::move(policy).value();
}

TEST(ScopePolicyTest, RequisitesForgiveHostAndAllowWithinTheirHopsButNotDeny) {
  ScopeOptions options;
  options.seed_hosts = {"example.com"};
  options.rules.max_depth = 0;
  options.rules.max_embed_hops = 1;
  options.rules.allow_patterns = {"^https?://example\\.com/docs/"};
  options.rules.deny_patterns = {"\\.exe$"};
  ScopePolicy scope = MustCreate(options);
  uint32_t hops = 9;
  EXPECT_TRUE(scope.RejectEmbed(U("http://example.com/docs/s.css"), 0, &hops).empty());
  EXPECT_EQ(hops, 0u);
  EXPECT_TRUE(scope.RejectEmbed(U("http://example.com/static/s.css"), 0, &hops).empty()) << "outside allow";
  EXPECT_EQ(hops, 1u);
  EXPECT_TRUE(scope.RejectEmbed(U("http://cdn.net/s.css"), 0, &hops).empty());
  EXPECT_EQ(hops, 1u);
  EXPECT_EQ(scope.RejectEmbed(U("http://cdn.net/font.woff2"), 1, &hops), "embed_hops");
  EXPECT_EQ(scope.RejectEmbed(U("http://example.com/docs/tool.exe"), 0, &hops), "deny");
  EXPECT_EQ(scope.RejectEmbed(U("ftp://example.com/docs/x.png"), 0, &hops), "scheme");
  EXPECT_EQ(scope.Reject(U("http://example.com/docs/s.css"), 1), "depth") << "links keep the depth limit";
}

TEST(ScopePolicyTest, DenyPatternDropsMatchingUrlsOnly) {
  auto scope = MustCreate(PatternOptions({}, {"/calendar/", "[?&]sessionid="}));
  EXPECT_EQ(scope.Reject(U("http://h/calendar/2024/01"), 0), "deny");
  EXPECT_EQ(scope.Reject(U("http://h/a?x=1&sessionid=42"), 0), "deny");
  EXPECT_TRUE(scope.Reject(U("http://h/a?x=1"), 0).empty());
  EXPECT_TRUE(scope.Reject(U("http://h/calendars"), 0).empty());
}

TEST(ScopePolicyTest, AllowPatternsNarrowTheHostScopeButNeverWidenIt) {
  auto scope = MustCreate(PatternOptions({"^https?://[^/]+/docs/", "\\.html$"}, {}));
  EXPECT_TRUE(scope.Reject(U("http://h/docs/intro"), 0).empty());
  EXPECT_TRUE(scope.Reject(U("http://h/blog/post.html"), 0).empty());
  EXPECT_EQ(scope.Reject(U("http://h/blog/post"), 0), "allow");
  // The anchors of one pattern do not leak into the other once combined.
  EXPECT_EQ(scope.Reject(U("http://h/blog/docs/x"), 0), "allow");
  EXPECT_EQ(scope.Reject(U("http://other/docs/intro"), 0), "host");
}

TEST(ScopePolicyTest, DenyWinsOverAllow) {
  auto scope = MustCreate(PatternOptions({"/docs/"}, {"/docs/old/"}));
  EXPECT_TRUE(scope.Reject(U("http://h/docs/new/a"), 0).empty());
  EXPECT_EQ(scope.Reject(U("http://h/docs/old/a"), 0), "deny");
}

TEST(ScopePolicyTest, PatternsAreCaseSensitiveAndSeeTheNormalisedUrl) {
  auto scope = MustCreate(PatternOptions({}, {"^http://h/Private"}));
  EXPECT_EQ(scope.Reject(U("HTTP://H/Private/x"), 0), "deny");  // scheme and host lower-cased
  EXPECT_TRUE(scope.Reject(U("http://h/private/x"), 0).empty());
}

TEST(ScopePolicyTest, InvalidPatternIsAStartUpErrorNamingThePattern) {
  auto bad = ScopePolicy::Create(PatternOptions({"ok", "(unclosed"}, {}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("--allow '(unclosed'"), std::string::npos)
      << bad.status().message();

  auto bad_deny = ScopePolicy::Create(PatternOptions({}, {"a{2,1}"}));
  ASSERT_FALSE(bad_deny.ok());
  EXPECT_NE(bad_deny.status().message().find("--deny 'a{2,1}'"), std::string::npos);

  EXPECT_FALSE(ScopePolicy::Create(PatternOptions({}, {""})).ok());  // would deny everything
  EXPECT_THROW(ScopePolicy scope(PatternOptions({"["}, {})), std::invalid_argument);
}

TEST(ScopePolicyTest, BackReferencePatternsAreMatchedOneByOne) {
  // A back-reference cannot be combined into one alternation (its group
  // number would shift); the policy falls back to one regex per pattern.
  auto scope = MustCreate(PatternOptions({}, {"/(seg[0-9])/\\1/", "/never/"}));
  EXPECT_EQ(scope.Reject(U("http://h/seg1/seg1/x"), 0), "deny");
  EXPECT_TRUE(scope.Reject(U("http://h/seg1/seg2/x"), 0).empty());
  EXPECT_EQ(scope.Reject(U("http://h/never/x"), 0), "deny");
}

TEST(ScopePolicyTest, PolicySurvivesAMove) {
  auto created = ScopePolicy::Create(PatternOptions({"/a"}, {"/a/b"}));
  ASSERT_TRUE(created.ok());
  ScopePolicy moved = std::move(created).value();
  EXPECT_TRUE(moved.Reject(U("http://h/a/c"), 0).empty());
  EXPECT_EQ(moved.Reject(U("http://h/a/b"), 0), "deny");
  EXPECT_EQ(moved.Reject(U("http://h/c"), 0), "allow");
}

TEST(ScopePolicyTest, ConcurrentCallersAllGetTheSameAnswers) {
  ScopeOptions options = PatternOptions({"/keep/"}, {"[?&]drop="});
  options.regex_copies = 2;  // fewer copies than threads: some share one
  auto scope = MustCreate(std::move(options));
  std::vector<Url> urls;
  std::vector<std::string_view> expected;
  for (int i = 0; i < 2000; ++i) {
    const std::string n = std::to_string(i);
    switch (i % 3) {
      case 0: urls.push_back(U(("http://h/keep/" + n).c_str())); expected.push_back(""); break;
      case 1: urls.push_back(U(("http://h/keep/" + n + "?drop=1").c_str())); expected.push_back("deny"); break;
      default: urls.push_back(U(("http://h/other/" + n).c_str())); expected.push_back("allow"); break;
    }
  }
  std::vector<int> wrong(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        for (size_t i = 0; i < urls.size(); ++i) wrong[t] += scope.Reject(urls[i], 0) != expected[i];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace zcrawl::frontier
