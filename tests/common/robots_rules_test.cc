// RobotsRules tests: RFC 9309's examples and Google's parser's corner cases,
// one case a few lines each. Over 500 lines on purpose: one table of rules
// and paths per concern, all over one small API; the wire form's tests are
// at the end (robots_rules_codec.cc).
#include "common/robots_rules.h"

#include <gtest/gtest.h>

#include <chrono>
#include <random>
#include <sstream>
#include <string>

#include "common/robots_inspect.h"

namespace zcrawl {
namespace {

using std::chrono::steady_clock;
using namespace std::string_view_literals;

double SecondsSince(steady_clock::time_point start) {
  return std::chrono::duration<double>(steady_clock::now() - start).count();
}

// RFC 9309 section 5.1.
constexpr std::string_view kRfcSimpleExample =
    "User-Agent: *\n"
    "Disallow: *.gif$\n"
    "Disallow: /example/\n"
    "Allow: /publications/\n"
    "\n"
    "User-Agent: foobot\n"
    "Disallow:/\n"
    "Allow:/example/page.html\n"
    "Allow:/example/allowed.gif\n"
    "\n"
    "User-Agent: barbot\n"
    "User-Agent: bazbot\n"
    "Disallow: /example/page.html\n"
    "\n"
    "User-Agent: quxbot\n";

TEST(RobotsRulesTest, RfcSimpleExampleForUnnamedCrawlerUsesStarGroup) {
  const RobotsRules rules = RobotsRules::Parse(kRfcSimpleExample, "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/image.gif"));
  EXPECT_FALSE(rules.IsAllowed("/a/b/c.gif"));
  EXPECT_TRUE(rules.IsAllowed("/a/b/c.gif?x=1"));  // '$' anchors the end
  EXPECT_FALSE(rules.IsAllowed("/example/"));
  EXPECT_FALSE(rules.IsAllowed("/example/page.html"));
  EXPECT_TRUE(rules.IsAllowed("/publications/"));
  EXPECT_TRUE(rules.IsAllowed("/publications/x.html"));
  EXPECT_TRUE(rules.IsAllowed("/other"));
}

TEST(RobotsRulesTest, RfcSimpleExampleForFoobot) {
  const RobotsRules rules = RobotsRules::Parse(kRfcSimpleExample, "foobot");
  EXPECT_FALSE(rules.IsAllowed("/"));
  EXPECT_FALSE(rules.IsAllowed("/publications/"));
  EXPECT_TRUE(rules.IsAllowed("/example/page.html"));
  EXPECT_TRUE(rules.IsAllowed("/example/allowed.gif"));
  EXPECT_FALSE(rules.IsAllowed("/example/other.gif"));
}

TEST(RobotsRulesTest, RfcSimpleExampleBarbotAndBazbotShareAGroup) {
  for (const char* bot : {"barbot", "bazbot"}) {
    SCOPED_TRACE(bot);
    const RobotsRules rules = RobotsRules::Parse(kRfcSimpleExample, bot);
    EXPECT_FALSE(rules.IsAllowed("/example/page.html"));
    EXPECT_TRUE(rules.IsAllowed("/example/"));  // not the "*" group's rules
    EXPECT_TRUE(rules.IsAllowed("/image.gif"));
  }
}

TEST(RobotsRulesTest, RfcSimpleExampleEmptyGroupAllowsEverything) {
  const RobotsRules rules = RobotsRules::Parse(kRfcSimpleExample, "quxbot");
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_TRUE(rules.IsAllowed("/example/"));
  EXPECT_TRUE(rules.IsAllowed("/image.gif"));
}

TEST(RobotsRulesTest, RfcLongestMatchExample) {
  // RFC 9309 section 5.2.
  const RobotsRules rules = RobotsRules::Parse(
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n",
      "foobot");
  EXPECT_TRUE(rules.IsAllowed("/example/page/"));
  EXPECT_TRUE(rules.IsAllowed("/example/page/allowed.gif"));
  EXPECT_FALSE(rules.IsAllowed("/example/page/disallowed.gif"));
}

TEST(RobotsRulesTest, LongestMatchWinsRegardlessOfOrder) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\n"
      "allow: /a/b/c\n"
      "disallow: /a\n"
      "allow: /a/b\n"
      "disallow: /a/b/c/d\n",
      "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/a"));
  EXPECT_FALSE(rules.IsAllowed("/a/x"));
  EXPECT_TRUE(rules.IsAllowed("/a/b"));
  EXPECT_TRUE(rules.IsAllowed("/a/b/c"));
  EXPECT_FALSE(rules.IsAllowed("/a/b/c/d/e"));
  EXPECT_TRUE(rules.IsAllowed("/b"));
}

TEST(RobotsRulesTest, AllowWinsTieOfEqualLength) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\n"
      "disallow: /page\n"
      "allow: /page\n"
      "disallow: /*.php\n"
      "allow: /x*y.p\n",
      "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/page"));
  EXPECT_TRUE(rules.IsAllowed("/page.html"));
  // Both "/*.php" and "/x*y.p" (6 octets) match: Allow wins.
  EXPECT_TRUE(rules.IsAllowed("/xy.php"));
  EXPECT_FALSE(rules.IsAllowed("/z.php"));
}

TEST(RobotsRulesTest, WildcardMatchesAnySequence) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\n"
      "disallow: /*/private/\n"
      "disallow: /search*q=\n"
      "disallow: *sessionid\n",
      "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/a/private/x"));
  EXPECT_FALSE(rules.IsAllowed("/a/b/private/"));
  EXPECT_TRUE(rules.IsAllowed("/private/"));  // "/*/" needs two slashes
  EXPECT_FALSE(rules.IsAllowed("/search?q=x"));
  EXPECT_FALSE(rules.IsAllowed("/searchpage?lang=en&q=x"));
  EXPECT_TRUE(rules.IsAllowed("/search?lang=en"));
  EXPECT_FALSE(rules.IsAllowed("/x?sessionid=1"));
}

TEST(RobotsRulesTest, DollarAnchorsOnlyAtTheEnd) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\n"
      "disallow: /exact$\n"
      "disallow: /*.pdf$\n"
      "disallow: /a$b\n",
      "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/exact"));
  EXPECT_TRUE(rules.IsAllowed("/exact/"));
  EXPECT_TRUE(rules.IsAllowed("/exactly"));
  EXPECT_FALSE(rules.IsAllowed("/doc.pdf"));
  EXPECT_FALSE(rules.IsAllowed("/x.pdf/y.pdf"));
  EXPECT_TRUE(rules.IsAllowed("/doc.pdf?download=1"));
  EXPECT_TRUE(rules.IsAllowed("/doc.pdfx"));
  // A '$' not at the end is a literal character.
  EXPECT_FALSE(rules.IsAllowed("/a$bc"));
  EXPECT_TRUE(rules.IsAllowed("/ab"));
}

TEST(RobotsRulesTest, PathIncludesQuery) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\ndisallow: /*?\nallow: /page?ok=1\n", "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/page"));
  EXPECT_FALSE(rules.IsAllowed("/page?x=1"));
  EXPECT_TRUE(rules.IsAllowed("/page?ok=1"));
}

TEST(RobotsRulesTest, EmptyPathMeansRoot) {
  const RobotsRules rules =
      RobotsRules::Parse("user-agent: *\ndisallow: /$\n", "zcrawl");
  EXPECT_FALSE(rules.IsAllowed(""));
  EXPECT_FALSE(rules.IsAllowed("/"));
  EXPECT_TRUE(rules.IsAllowed("/a"));
}

TEST(RobotsRulesTest, PercentEncodedUnreservedEqualsLiteral) {
  const RobotsRules encoded_rule =
      RobotsRules::Parse("user-agent: *\ndisallow: /%7Efoo\n", "zcrawl");
  EXPECT_FALSE(encoded_rule.IsAllowed("/~foo"));
  EXPECT_FALSE(encoded_rule.IsAllowed("/%7efoo"));
  EXPECT_FALSE(encoded_rule.IsAllowed("/%7Efoo/bar"));

  const RobotsRules literal_rule =
      RobotsRules::Parse("user-agent: *\ndisallow: /~foo\n", "zcrawl");
  EXPECT_FALSE(literal_rule.IsAllowed("/%7Efoo"));
  EXPECT_FALSE(literal_rule.IsAllowed("/%7efoo"));
  EXPECT_TRUE(literal_rule.IsAllowed("/~bar"));

  // RFC 9309 section 2.2.2: %62%61%7A is "baz".
  const RobotsRules baz =
      RobotsRules::Parse("user-agent: *\ndisallow: /foo/bar/baz\n", "zcrawl");
  EXPECT_FALSE(baz.IsAllowed("/foo/bar/%62%61%7A"));
}

TEST(RobotsRulesTest, Utf8RuleMatchesPercentEncodedPathAndViceVersa) {
  const RobotsRules utf8_rule =
      RobotsRules::Parse("user-agent: *\ndisallow: /\xC3\xA4\n", "zcrawl");
  EXPECT_FALSE(utf8_rule.IsAllowed("/%C3%A4"));
  EXPECT_FALSE(utf8_rule.IsAllowed("/%c3%a4x"));
  EXPECT_FALSE(utf8_rule.IsAllowed("/\xC3\xA4"));
  EXPECT_TRUE(utf8_rule.IsAllowed("/a"));

  const RobotsRules encoded_rule =
      RobotsRules::Parse("user-agent: *\ndisallow: /%c3%a4\n", "zcrawl");
  EXPECT_FALSE(encoded_rule.IsAllowed("/\xC3\xA4"));
  EXPECT_FALSE(encoded_rule.IsAllowed("/%C3%A4"));

  // RFC 9309 section 2.2.2: U+30C4 in a path.
  const RobotsRules katakana = RobotsRules::Parse(
      "user-agent: *\ndisallow: /foo/bar/\xE3\x83\x84\n", "zcrawl");
  EXPECT_FALSE(katakana.IsAllowed("/foo/bar/%E3%83%84"));
}

TEST(RobotsRulesTest, ReservedCharactersStayEncoded) {
  const RobotsRules rules =
      RobotsRules::Parse("user-agent: *\ndisallow: /a%2fb\n", "zcrawl");
  EXPECT_EQ(rules.rules().at(0).pattern, "/a%2Fb");
  EXPECT_FALSE(rules.IsAllowed("/a%2Fb"));
  EXPECT_TRUE(rules.IsAllowed("/a/b"));  // %2F is not a path separator
}

TEST(RobotsRulesTest, ProductTokenMatchesCaseInsensitively) {
  const std::string body =
      "User-agent: *\nDisallow: /\n\nUser-agent: ZCrawl\nDisallow: /private\n";
  const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/public"));
  EXPECT_FALSE(rules.IsAllowed("/private"));
  EXPECT_TRUE(RobotsRules::Parse(body, "ZCRAWL").IsAllowed("/public"));
}

TEST(RobotsRulesTest, UserAgentValueIsReducedToItsProductToken) {
  const std::string body =
      "User-agent: *\nDisallow: /\n\n"
      "User-agent: zcrawl/1.0 (+http://example.com/bot)\nDisallow: /private\n";
  const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/public"));
  EXPECT_FALSE(rules.IsAllowed("/private"));
  // Our own token given as a full User-Agent string works too.
  EXPECT_TRUE(RobotsRules::Parse(body, "zcrawl/2.3").IsAllowed("/public"));
}

TEST(RobotsRulesTest, LongerTokenDoesNotMatchPrefix) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: zcrawlbot\nDisallow: /\n\n"
      "User-agent: zcrawl-news\nDisallow: /\n\n"
      "User-agent: *\nDisallow: /star\n",
      "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/x"));
  EXPECT_FALSE(rules.IsAllowed("/star"));
}

TEST(RobotsRulesTest, FallsBackToStarGroupWhenNoGroupNamesUs) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: otherbot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp/\n",
      "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/"));
  EXPECT_FALSE(rules.IsAllowed("/tmp/x"));
}

TEST(RobotsRulesTest, NoMatchingOrStarGroupAllowsEverything) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: otherbot\nDisallow: /\nCrawl-delay: 5\n", "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/"));
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_FALSE(rules.crawl_delay_seconds().has_value());
}

TEST(RobotsRulesTest, MatchingGroupsAreMerged) {
  // RFC 9309 section 2.2.1 example.
  const std::string body =
      "user-agent: ExampleBot\n"
      "disallow: /foo\n"
      "disallow: /bar\n"
      "\n"
      "user-agent: ExampleBot\n"
      "disallow: /baz\n"
      "\n"
      "user-agent: *\n"
      "disallow: /qux\n";
  const RobotsRules rules = RobotsRules::Parse(body, "examplebot");
  EXPECT_FALSE(rules.IsAllowed("/foo"));
  EXPECT_FALSE(rules.IsAllowed("/bar"));
  EXPECT_FALSE(rules.IsAllowed("/baz"));
  EXPECT_TRUE(rules.IsAllowed("/qux"));  // the "*" group is not merged in

  const RobotsRules star = RobotsRules::Parse(
      "user-agent: *\ndisallow: /a\n\nuser-agent: x\ndisallow: /x\n\n"
      "user-agent: *\ndisallow: /b\n",
      "zcrawl");
  EXPECT_FALSE(star.IsAllowed("/a"));
  EXPECT_FALSE(star.IsAllowed("/b"));
  EXPECT_TRUE(star.IsAllowed("/x"));
}

TEST(RobotsRulesTest, GroupWithStarAndUsAppliesEitherWay) {
  const std::string body =
      "user-agent: zcrawl\nuser-agent: *\ndisallow: /shared\n\n"
      "user-agent: zcrawl\ndisallow: /own\n";
  const RobotsRules us = RobotsRules::Parse(body, "zcrawl");
  EXPECT_FALSE(us.IsAllowed("/shared"));
  EXPECT_FALSE(us.IsAllowed("/own"));
  const RobotsRules other = RobotsRules::Parse(body, "otherbot");
  EXPECT_FALSE(other.IsAllowed("/shared"));
  EXPECT_TRUE(other.IsAllowed("/own"));
}

TEST(RobotsRulesTest, RulesBeforeAnyUserAgentAreIgnored) {
  const RobotsRules rules = RobotsRules::Parse(
      "Disallow: /early\nCrawl-delay: 9\nUser-agent: *\nDisallow: /late\n",
      "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/early"));
  EXPECT_FALSE(rules.IsAllowed("/late"));
  EXPECT_FALSE(rules.crawl_delay_seconds().has_value());
}

TEST(RobotsRulesTest, EmptyDisallowIsNoRule) {
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: *\nDisallow:\nDisallow: \n", "zcrawl");
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_TRUE(rules.IsAllowed("/anything"));
}

TEST(RobotsRulesTest, RobotsTxtIsAlwaysAllowed) {
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: *\nDisallow: /\n", "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/index.html"));
  EXPECT_TRUE(rules.IsAllowed("/robots.txt"));
  EXPECT_TRUE(rules.IsAllowed("/robots.txt?x=1"));
  EXPECT_FALSE(rules.IsAllowed("/robots.txt.bak"));
  EXPECT_TRUE(RobotsRules::DisallowAll().IsAllowed("/robots.txt"));
}

TEST(RobotsRulesTest, AllowAllAndDisallowAll) {
  EXPECT_TRUE(RobotsRules::AllowAll().IsAllowed("/x"));
  EXPECT_FALSE(RobotsRules::DisallowAll().IsAllowed("/x"));
  EXPECT_FALSE(RobotsRules::DisallowAll().IsAllowed(""));
}

TEST(RobotsRulesTest, ToleratesFormattingVariants) {
  const std::string body =
      "\xEF\xBB\xBF"           // BOM
      "# leading comment\r\n"  // CRLF
      "USER-AGENT:zcrawl\r"    // lone CR, no space after colon
      "  Disallow :/a # trailing comment\n"
      "disallow /b\n"          // no colon, one-word value
      "this line has no colon at all\n"
      "Noindex: /c\n"          // unknown key
      "dISALLOW:\t/d\t\n"
      "Dissallow: /e\n";       // common misspelling
  const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/a"));
  EXPECT_FALSE(rules.IsAllowed("/b"));
  EXPECT_TRUE(rules.IsAllowed("/c"));
  EXPECT_FALSE(rules.IsAllowed("/d"));
  EXPECT_FALSE(rules.IsAllowed("/e"));
  EXPECT_TRUE(rules.IsAllowed("/f"));
  EXPECT_EQ(rules.rules().size(), 4u);
}

TEST(RobotsRulesTest, BomOnlyCountsAtTheStart) {
  const RobotsRules rules =
      RobotsRules::Parse("\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", "zcrawl");
  EXPECT_FALSE(rules.IsAllowed("/x"));
}

TEST(RobotsRulesTest, CrawlDelayParsesDecimalSeconds) {
  auto delay = [](std::string_view value) {
    return RobotsRules::Parse("User-agent: *\nCrawl-delay: " + std::string(value) + "\n",
                              "zcrawl")
        .crawl_delay_seconds();
  };
  EXPECT_EQ(delay("10"), 10.0);
  EXPECT_EQ(delay("0.5"), 0.5);
  EXPECT_EQ(delay(".25"), 0.25);
  EXPECT_EQ(delay("0"), 0.0);
  EXPECT_EQ(delay("3600"), RobotsRules::kMaxCrawlDelaySeconds);  // clamped
  EXPECT_EQ(delay("99999999999999999999999"), RobotsRules::kMaxCrawlDelaySeconds);
  EXPECT_FALSE(delay("").has_value());
  EXPECT_FALSE(delay("-1").has_value());
  EXPECT_FALSE(delay("abc").has_value());
  EXPECT_FALSE(delay("1.2.3").has_value());
  EXPECT_FALSE(delay("5s").has_value());
  EXPECT_FALSE(delay("1e3").has_value());
  EXPECT_FALSE(delay("nan").has_value());
  EXPECT_FALSE(delay("inf").has_value());
  EXPECT_FALSE(delay(".").has_value());
}

TEST(RobotsRulesTest, CrawlDelayComesFromTheMatchedGroup) {
  const std::string body =
      "User-agent: *\nCrawl-delay: 7\n\n"
      "User-agent: zcrawl\nCrawl-delay: 0.5\nDisallow: /x\n\n"
      "User-agent: zcrawl\nCrawl-delay: bogus\n";
  EXPECT_EQ(RobotsRules::Parse(body, "zcrawl").crawl_delay_seconds(), 0.5);
  EXPECT_EQ(RobotsRules::Parse(body, "other").crawl_delay_seconds(), 7.0);
  EXPECT_FALSE(RobotsRules::Parse("User-agent: zcrawl\nDisallow: /\n"
                                  "User-agent: *\nCrawl-delay: 7\n",
                                  "zcrawl")
                   .crawl_delay_seconds()
                   .has_value());
}

TEST(RobotsRulesTest, CrawlDelayOfMergedGroupsIsTheLargest) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: zcrawl\nCrawl-delay: 4\n\nUser-agent: zcrawl\nCrawl-delay: 2\n",
      "zcrawl");
  EXPECT_EQ(rules.crawl_delay_seconds(), 4.0);
}

TEST(RobotsRulesTest, CrawlDelayEndsTheUserAgentLines) {
  // The user-agent after Crawl-delay starts a new group.
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: zcrawl\nCrawl-delay: 1\nUser-agent: other\nDisallow: /x\n",
      "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/x"));
  EXPECT_EQ(rules.crawl_delay_seconds(), 1.0);
}

TEST(RobotsRulesTest, SitemapsAreGlobalAndCollectedInOrder) {
  const RobotsRules rules = RobotsRules::Parse(
      "Sitemap: https://example.com/first.xml\n"
      "User-agent: other\n"
      "sitemap:https://example.com/second.xml # comment\n"
      "Disallow: /\n"
      "SITEMAP: https://example.com/first.xml\n"
      "Sitemap:\n",
      "zcrawl");
  EXPECT_EQ(rules.sitemaps(),
            (std::vector<std::string>{"https://example.com/first.xml",
                                      "https://example.com/second.xml"}));
  // The sitemap line between user-agent and disallow did not split the group.
  EXPECT_TRUE(rules.IsAllowed("/"));
  EXPECT_FALSE(RobotsRules::Parse(
                   "User-agent: zcrawl\nSitemap: https://e.com/s.xml\nDisallow: /\n",
                   "zcrawl")
                   .IsAllowed("/a"));
}

TEST(RobotsRulesTest, EmptyFileAllowsEverything) {
  const RobotsRules rules = RobotsRules::Parse("", "zcrawl");
  EXPECT_TRUE(rules.IsAllowed("/"));
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_TRUE(rules.sitemaps().empty());
  EXPECT_FALSE(rules.crawl_delay_seconds().has_value());
  EXPECT_EQ(rules, RobotsRules::AllowAll());
}

TEST(RobotsRulesTest, BinaryGarbageDoesNotCrash) {
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::string body(1 + rng() % 4096, '\0');
    for (char& c : body) c = static_cast<char>(rng());
    // Sprinkle some structure in so the parser gets past the key lookup.
    body += "\nuser-agent: *\ndisallow: /\0\xFF%\x80*$\n"sv;
    body.insert(rng() % body.size(), std::string("\0User-agent:\0zcrawl\r", 20));
    const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
    (void)rules.IsAllowed("/x\xff%zz");
    const Result<RobotsRules> copy = RobotsRules::Deserialize(rules.Serialize());
    ASSERT_TRUE(copy.ok());
    EXPECT_EQ(*copy, rules);
  }
}

TEST(RobotsRulesTest, NulBytesInsideValuesAreEncoded) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: *\nDisallow: /a\0b\n"sv, "zcrawl");
  ASSERT_EQ(rules.rules().size(), 1u);
  EXPECT_EQ(rules.rules()[0].pattern, "/a%00b");
  EXPECT_FALSE(rules.IsAllowed("/a%00b"));
}

TEST(RobotsRulesTest, HugeFileIsTruncatedAndParsesFast) {
  std::string body = "User-agent: *\nDisallow: /early\n";
  const std::string first_filler = "/filler/" + std::to_string(body.size());
  while (body.size() < 2 * 1024 * 1024) {
    body += "Disallow: /filler/" + std::to_string(body.size()) + "\n";
  }
  body += "Disallow: /late\n";
  const auto start = steady_clock::now();
  const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
  EXPECT_LT(SecondsSince(start), 2.0);
  EXPECT_FALSE(rules.IsAllowed("/early"));
  EXPECT_TRUE(rules.IsAllowed("/late"));  // beyond the 500 KiB limit
  EXPECT_FALSE(rules.IsAllowed(first_filler + "/x"));
  EXPECT_LT(rules.rules().size(), RobotsRules::kMaxBodyBytes / 20);
}

TEST(RobotsRulesTest, LineCutByTheLimitIsDropped) {
  std::string body = "User-agent: *\n";
  body += "# " + std::string(RobotsRules::kMaxBodyBytes - body.size() - 2 - 1 -
                                 std::string_view("Disallow: /").size(),
                             'x');
  body += "\nDisallow: /";  // ends exactly at the limit ...
  body += "private\n";      // ... the rest is beyond it
  ASSERT_GT(body.size(), RobotsRules::kMaxBodyBytes);
  const RobotsRules rules = RobotsRules::Parse(body, "zcrawl");
  EXPECT_TRUE(rules.rules().empty());
  EXPECT_TRUE(rules.IsAllowed("/public"));

  // A line that ends right at the limit is kept.
  std::string exact = body.substr(0, RobotsRules::kMaxBodyBytes) + "\nDisallow: /z\n";
  const RobotsRules kept = RobotsRules::Parse(exact, "zcrawl");
  EXPECT_FALSE(kept.IsAllowed("/public"));
  EXPECT_TRUE(kept.IsAllowed("/robots.txt"));
}

TEST(RobotsRulesTest, PathologicalWildcardPatternIsFast) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: *\n"
      "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b\n"
      "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b$\n"
      "Disallow: /**************************************************c\n",
      "zcrawl");
  const std::string path = "/" + std::string(20000, 'a');
  const auto start = steady_clock::now();
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(rules.IsAllowed(path));
  EXPECT_LT(SecondsSince(start), 2.0);
  EXPECT_FALSE(rules.IsAllowed(path + "b"));
  EXPECT_FALSE(rules.IsAllowed(path + "bc"));
}

TEST(RobotsRulesTest, SerializeRoundTrips) {
  const RobotsRules rules = RobotsRules::Parse(
      "Sitemap: https://example.com/s.xml\n"
      "User-agent: zcrawl\n"
      "Crawl-delay: 0.3\n"
      "Allow: /a/b$\n"
      "Disallow: /a\n"
      "Disallow: /*\xC3\xA4*.gif$\n",
      "zcrawl");
  ASSERT_EQ(rules.rules().size(), 3u);
  const Result<RobotsRules> copy = RobotsRules::Deserialize(rules.Serialize());
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ(*copy, rules);
  EXPECT_EQ(copy->crawl_delay_seconds(), 0.3);
  EXPECT_EQ(copy->sitemaps(), rules.sitemaps());
  EXPECT_TRUE(copy->IsAllowed("/a/b"));
  EXPECT_FALSE(copy->IsAllowed("/a/c"));

  for (const RobotsRules& r : {RobotsRules::AllowAll(), RobotsRules::DisallowAll()}) {
    const Result<RobotsRules> c = RobotsRules::Deserialize(r.Serialize());
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(*c, r);
  }
}

TEST(RobotsRulesTest, DeserializeRejectsCorruptInput) {
  const std::string good =
      RobotsRules::Parse("User-agent: *\nCrawl-delay: 2\nDisallow: /x\n"
                         "Sitemap: http://e.com/s\n",
                         "zcrawl")
          .Serialize();
  EXPECT_EQ(RobotsRules::Deserialize("").status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(RobotsRules::Deserialize("nope").status().code(), StatusCode::kDataLoss);
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(RobotsRules::Deserialize(good.substr(0, n)).ok()) << "prefix " << n;
  }
  EXPECT_FALSE(RobotsRules::Deserialize(good + "x").ok());
  std::string bad_flags = good;
  bad_flags[4] = '\x7F';
  EXPECT_FALSE(RobotsRules::Deserialize(bad_flags).ok());
  // A crawl delay above the maximum (bytes 5..12 hold the double).
  std::string bad_delay = good;
  bad_delay[12] = '\x7F';
  EXPECT_FALSE(RobotsRules::Deserialize(bad_delay).ok());
}

// The crawler's scheduler and `./run inspect robots` match the same part of
// a URL, through this one function.
TEST(RobotsTargetTest, PathAndQueryWithoutFragmentAndAlwaysALeadingSlash) {
  std::string scratch;
  EXPECT_EQ(RobotsTarget("http://h/a?b#f", scratch), "/a?b");
  EXPECT_EQ(RobotsTarget("http://h:8080/a/b", scratch), "/a/b");
  EXPECT_EQ(RobotsTarget("http://h?b", scratch), "/?b");
  EXPECT_EQ(RobotsTarget("http://h", scratch), "/");
  EXPECT_EQ(RobotsTarget("http://h#f", scratch), "/");
  EXPECT_EQ(RobotsTarget("/a#f", scratch), "/a");
  EXPECT_EQ(RobotsTarget("a?b", scratch), "/a?b");
  // The common case costs no copy: a view into the URL.
  const std::string url = "https://h/x?y";
  const std::string_view target = RobotsTarget(url, scratch);
  EXPECT_EQ(target.data(), url.data() + 9);
}

TEST(RunInspectRobotsTest, PrintsOneVerdictPerUrl) {
  const std::string body =
      "User-agent: *\nDisallow: /\n\n"
      "User-agent: zcrawl\nDisallow: /private\nDisallow: /*?session\n";
  std::istringstream urls(
      "http://example.com/public\n"
      "https://example.com/private/x?y=1\r\n"
      "\n"
      "http://example.com\n"
      "http://example.com?session=1\n"
      "http://example.com/a#/private\n"
      "/private\n"
      "/ok?session=2\n");
  std::ostringstream out;
  EXPECT_EQ(RunInspectRobots(body, "zcrawl/1.0 (+http://x)", urls, out), 0);
  EXPECT_EQ(out.str(),
            "allow\n"
            "disallow\n"
            "allow\n"
            "disallow\n"
            "allow\n"
            "disallow\n"
            "disallow\n");

  std::istringstream again("http://example.com/public\n");
  std::ostringstream other_out;
  EXPECT_EQ(RunInspectRobots(body, "otherbot", again, other_out), 0);
  EXPECT_EQ(other_out.str(), "disallow\n");
}

}  // namespace
}  // namespace zcrawl
