// The operator's controls (frontier/control): how a target is written and
// matched, blocks and politeness overrides, every state verb's answer and
// idempotence, and the state kept across a restart.
#include "frontier/control/crawl_controls.h"

#include <gtest/gtest.h>

namespace zcrawl::frontier {
namespace {

v1::Target T(const std::string& text) {
  auto target = ParseTarget(text);
  EXPECT_TRUE(target.ok()) << text << ": " << target.status().message();
  return target.ok() ? *target : v1::Target{};
}

v1::Control Verb(const std::function<void(v1::Control&)>& set, const std::string& note = "") {
  v1::Control c;
  set(c);
  c.set_note(note);
  return c;
}

TEST(ControlTargetTest, OriginsDomainsAndPatternsAreWrittenOneWay) {
  EXPECT_EQ(T("https://Shop.Example.com:443").origin(), "https://shop.example.com") << "the default port is dropped";
  EXPECT_EQ(T("http://a.test:8080").origin(), "http://a.test:8080");
  EXPECT_EQ(T("*.Example.COM").domain(), "example.com");
  EXPECT_EQ(T(".example.com").domain(), "example.com");
  EXPECT_EQ(T("re:/cart/").url_regex(), "/cart/");
  for (const char* text : {"https://a.test/path", "ftp://a.test", "a b.com", "", "re:(", "re:", "a.test:80"}) {
    EXPECT_FALSE(ParseTarget(text).ok()) << text;
  }
  for (const char* text : {"https://a.test", "example.com", "re:\\?sid="}) {
    EXPECT_EQ(DescribeTarget(T(text)), text) << "written back as given";
  }
  EXPECT_EQ(HostOfOrigin("https://a.example:8443"), "a.example");
  EXPECT_EQ(HostOfOrigin("http://[::1]:8080"), "[::1]");
}

TEST(BlockListTest, AnOriginADomainWithItsSubdomainsOrAPatternAndEachCountsWhatItStopped) {
  BlockList blocks;
  EXPECT_EQ(blocks.Match("http://a.test/x", "http://a.test"), nullptr) << "empty: blocks nothing";
  v1::BlockRule by_origin;
  *by_origin.mutable_target() = T("http://a.test:8080");
  ASSERT_TRUE(*blocks.Add(by_origin));
  EXPECT_FALSE(*blocks.Add(by_origin)) << "twice: the first stays";
  v1::BlockRule by_domain;
  *by_domain.mutable_target() = T("example.com");
  ASSERT_TRUE(*blocks.Add(by_domain));
  v1::BlockRule by_pattern;
  *by_pattern.mutable_target() = T("re:[?&]sid=");
  ASSERT_TRUE(*blocks.Add(by_pattern));

  EXPECT_TRUE(blocks.BlocksOrigin("http://a.test:8080"));
  EXPECT_FALSE(blocks.BlocksOrigin("http://a.test")) << "another port is another origin";
  EXPECT_TRUE(blocks.BlocksOrigin("https://www.example.com"));
  EXPECT_TRUE(blocks.BlocksOrigin("http://example.com:81"));
  EXPECT_FALSE(blocks.BlocksOrigin("https://notexample.com")) << "a domain matches on a label boundary";
  EXPECT_FALSE(blocks.BlocksOrigin("https://b.test")) << "a pattern blocks URLs, not origins";
  EXPECT_NE(blocks.Match("https://b.test/p?sid=7", "https://b.test"), nullptr);
  EXPECT_EQ(blocks.Match("https://b.test/p?side=7", "https://b.test"), nullptr);
  EXPECT_NE(blocks.Match("https://deep.www.example.com/", "https://deep.www.example.com"), nullptr);
  blocks.CountBlocked("https://www.example.com", 5);

  const auto rules = blocks.Rules();
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_EQ(rules[0].blocked_urls(), 0u);
  EXPECT_EQ(rules[1].blocked_urls(), 6u);
  EXPECT_EQ(rules[2].blocked_urls(), 1u);

  EXPECT_TRUE(blocks.Remove(T("example.com")));
  EXPECT_FALSE(blocks.Remove(T("example.com")));
  EXPECT_FALSE(blocks.BlocksOrigin("https://www.example.com"));
  EXPECT_TRUE(blocks.BlocksOrigin("http://a.test:8080"));
}

TEST(PaceOverridesTest, TheMostSpecificOverrideWins) {
  PaceOverrides overrides;
  v1::PolitenessRule domain;
  *domain.mutable_target() = T("example.com");
  domain.set_delay_ms(5000);
  ASSERT_TRUE(overrides.Set(domain).ok());
  v1::PolitenessRule origin;
  *origin.mutable_target() = T("https://api.example.com");
  origin.set_per_host(1);
  ASSERT_TRUE(overrides.Set(origin).ok());
  ASSERT_NE(overrides.For("https://www.example.com"), nullptr);
  EXPECT_EQ(overrides.For("https://www.example.com")->delay_ms(), 5000u);
  EXPECT_FALSE(overrides.For("https://api.example.com")->has_delay_ms()) << "the origin's own, not its domain's";
  EXPECT_EQ(overrides.For("https://other.test"), nullptr);

  v1::PolitenessRule nothing;
  *nothing.mutable_target() = T("a.test");
  EXPECT_FALSE(overrides.Set(nothing).ok()) << "neither a delay nor a concurrency";
  v1::PolitenessRule zero;
  *zero.mutable_target() = T("a.test");
  zero.set_per_host(0);
  EXPECT_FALSE(overrides.Set(zero).ok());
  v1::PolitenessRule pattern;
  pattern.mutable_target()->set_url_regex("x");
  pattern.set_delay_ms(1);
  EXPECT_FALSE(overrides.Set(pattern).ok()) << "a pattern names no origin to pace";
  EXPECT_TRUE(overrides.Clear(T("example.com")));
  EXPECT_EQ(overrides.For("https://www.example.com"), nullptr);
}

TEST(CrawlControlsTest, EachVerbSaysWhatChangedAndIsIdempotent) {
  CrawlControls c;
  const int64_t now = 1'700'000'000'000;
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_pause(); }), now), "paused: no new leases; what is in flight finishes");
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_pause(); }), now), "already paused");
  EXPECT_TRUE(c.paused());
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_resume(); }), now), "resumed");
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_resume(); }), now), "not paused");

  auto block = Verb([](auto& v) { *v.mutable_block()->mutable_target() = T("https://spam.test"); }, "owner asked");
  EXPECT_NE(c.Apply(block, now)->find("blocked https://spam.test"), std::string::npos);
  EXPECT_EQ(*c.Apply(block, now), "https://spam.test was already blocked");
  EXPECT_EQ(c.blocks().Rules()[0].note(), "owner asked");
  EXPECT_EQ(c.blocks().Rules()[0].since_ms(), static_cast<uint64_t>(now));
  auto bad = Verb([](auto& v) { v.mutable_block()->mutable_target()->set_url_regex("(["); });
  EXPECT_FALSE(c.Apply(bad, now).ok()) << "a pattern that does not compile is refused";
  auto unblock = Verb([](auto& v) { *v.mutable_unblock()->mutable_target() = T("https://spam.test"); });
  EXPECT_NE(c.Apply(unblock, now)->find("unblocked"), std::string::npos);
  EXPECT_EQ(*c.Apply(unblock, now), "https://spam.test was not blocked");

  auto slow = Verb([](auto& v) {
    *v.mutable_politeness()->mutable_target() = T("example.com");
    v.mutable_politeness()->set_delay_ms(2000);
  });
  EXPECT_EQ(*c.Apply(slow, now), "example.com: delay 2000 ms (overrides --delay-ms, Crawl-delay and --per-host)");
  EXPECT_EQ(*c.Apply(slow, now), "example.com already has delay 2000 ms");
  auto clear = Verb([](auto& v) {
    *v.mutable_politeness()->mutable_target() = T("example.com");
    v.mutable_politeness()->set_clear(true);
  });
  EXPECT_NE(c.Apply(clear, now)->find("cleared"), std::string::npos);
  EXPECT_EQ(*c.Apply(clear, now), "example.com had no override");

  EXPECT_FALSE(c.Apply(Verb([](auto& v) { v.mutable_threads()->set_threads(0); }), now).ok());
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_threads()->set_threads(8); }), now), "fetchers asked for 8 threads each");
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_threads()->set_threads(8); }), now), "fetchers already asked for 8 threads");
  EXPECT_NE(c.Apply(Verb([](auto& v) { v.mutable_drain(); }), now)->find("draining"), std::string::npos);
  EXPECT_EQ(*c.Apply(Verb([](auto& v) { v.mutable_drain(); }), now), "already draining");
  EXPECT_FALSE(c.Apply(v1::Control{}, now).ok()) << "no verb";
}

TEST(CrawlControlsTest, TheStateKeepsEveryControlAcrossARestart) {
  CrawlControls before;
  const int64_t now = 1'700'000'000'000;
  before.Apply(Verb([](auto& v) { v.mutable_pause(); }), now);
  before.Apply(Verb([](auto& v) { v.mutable_drain(); }), now);
  before.Apply(Verb([](auto& v) { v.mutable_threads()->set_threads(3); }), now);
  before.Apply(Verb([](auto& v) { *v.mutable_block()->mutable_target() = T("re:/cart/"); }), now);
  before.Apply(Verb([](auto& v) {
                 *v.mutable_politeness()->mutable_target() = T("https://a.test");
                 v.mutable_politeness()->set_per_host(1);
               }),
               now);
  before.blocks().Match("https://a.test/cart/1", "https://a.test");

  v1::ControlState saved;
  ASSERT_TRUE(saved.ParseFromString(before.State().SerializeAsString()));
  CrawlControls after;
  EXPECT_TRUE(after.Restore(saved).empty());
  EXPECT_TRUE(after.paused());
  EXPECT_TRUE(after.draining());
  EXPECT_EQ(after.threads(), 3u);
  EXPECT_NE(after.blocks().Match("https://b.test/cart/2", "https://b.test"), nullptr);
  EXPECT_EQ(after.blocks().Rules()[0].blocked_urls(), 2u) << "the count goes on";
  ASSERT_NE(after.overrides().For("https://a.test"), nullptr);
  EXPECT_EQ(after.overrides().For("https://a.test")->per_host(), 1u);

  v1::ControlState damaged = saved;
  damaged.mutable_blocks(0)->mutable_target()->set_url_regex("([");
  CrawlControls partial;
  EXPECT_EQ(partial.Restore(damaged).size(), 1u) << "a rule that no longer parses is dropped, and said";
  EXPECT_TRUE(partial.paused());
}

}  // namespace
}  // namespace zcrawl::frontier
