#include "fetcher/link_resolver.h"

#include <gtest/gtest.h>

namespace zcrawl::fetcher {
namespace {

std::vector<std::string> Urls(const ResolvedLinks& r) {
  std::vector<std::string> out;
  for (const auto& l : r.links) out.push_back(l.url());
  return out;
}

ParsedHtml Parse(const std::string& html) { return MakeHtmlParser("gumbo")->Parse(html); }

TEST(LinkResolverTest, ResolvesEveryKindOfHrefInDocumentOrderOnce) {
  auto page = *Url::Parse("http://h.test/dir/page.html");
  auto html = Parse(
      "<a href='next.html'>r</a><a href='../up.html'>u</a><a href='/root'>x</a>"
      "<a href='http://other.test/a#frag'>abs</a><a href='next.html#x'>dup</a>"
      "<a href='mailto:a@b'>m</a><a href='javascript:void(0)'>j</a>"
      "<area href='//proto.test/p'><iframe src='if.html'></iframe><frame src='fr.html'>"
      "<a href='?q=1'>query</a><a href='#only'>frag</a><a href='http://[bad'>bad</a>");
  auto resolved = ResolveLinks(html, page, false);
  EXPECT_EQ(Urls(resolved), (std::vector<std::string>{
                                "http://h.test/dir/next.html", "http://h.test/up.html",
                                "http://h.test/root", "http://other.test/a",
                                "http://proto.test/p", "http://h.test/dir/if.html",
                                "http://h.test/dir/page.html?q=1", "http://h.test/dir/page.html"}));
  EXPECT_EQ(resolved.other_schemes, 2u);
  EXPECT_EQ(resolved.invalid, 1u);
}

TEST(LinkResolverTest, BaseHrefChangesResolution) {
  auto page = *Url::Parse("http://h.test/a/b.html");
  auto html = Parse("<head><base href='/base/'></head><a href='c.html'>c</a>");
  EXPECT_EQ(Urls(ResolveLinks(html, page, false)),
            std::vector<std::string>{"http://h.test/base/c.html"});
}

TEST(LinkResolverTest, NofollowFromRelAndMetaUnlessIgnored) {
  auto page = *Url::Parse("http://h.test/");
  auto rel = Parse("<a rel='nofollow noopener' href='/x'>x</a><a href='/y'>y</a>");
  auto links = ResolveLinks(rel, page, false).links;
  ASSERT_EQ(links.size(), 2u);
  EXPECT_TRUE(links[0].nofollow());
  EXPECT_FALSE(links[1].nofollow());
  auto meta = Parse("<meta name='robots' content='noindex, nofollow'><a href='/y'>y</a>");
  EXPECT_TRUE(ResolveLinks(meta, page, false).links[0].nofollow());
  EXPECT_FALSE(ResolveLinks(meta, page, true).links[0].nofollow());
}

}  // namespace
}  // namespace zcrawl::fetcher
