// Page requisites: what a page embeds (html_parser.h ParsedHtml::embeds),
// the CSS references of stylesheets (css_references.h) and srcset's
// grammar (srcset.h). Every backend must give the same embeds; the scanner
// must answer ordinary pages without a tree and, whenever it answers,
// answer as gumbo does.
#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "fetcher/css_references.h"
#include "fetcher/html_link_scanner.h"
#include "fetcher/html_parser.h"
#include "fetcher/link_resolver.h"
#include "fetcher/scan_html_parser.h"
#include "fetcher/srcset.h"
#include "tests/support/documentation_corpus.h"
#include "tests/support/test_process.h"

namespace zcrawl::fetcher {

// Readable failures: "image [a.png]" instead of the struct's bytes.
void PrintTo(const RawEmbed& embed, std::ostream* out) {
  *out << EmbedSourceName(embed.source) << " [" << embed.url << "]";
}

namespace {

std::vector<std::string> CssUrls(std::string_view css, bool imports_only = false) {
  std::vector<CssReference> references;
  FindCssReferences(css, &references);
  std::vector<std::string> urls;
  for (const CssReference& r : references) {
    if (!imports_only || r.import) urls.push_back(r.url);
  }
  return urls;
}

using Urls = std::vector<std::string>;

TEST(CssReferencesTest, FindsUrlTokensAndUrlFunctions) {
  EXPECT_EQ(CssUrls("a{background:url(a.png)}"), Urls{"a.png"});
  EXPECT_EQ(CssUrls("a{background:url( \"b.png\" )}"), Urls{"b.png"});
  EXPECT_EQ(CssUrls("a{background:url('c.png')}"), Urls{"c.png"});
  EXPECT_EQ(CssUrls("a{background:URL(d.png)}"), Urls{"d.png"});
  EXPECT_EQ(CssUrls("a{background:url(  spaced.png  )}"), Urls{"spaced.png"});
  EXPECT_EQ(CssUrls("a{background:url(x.png),url(y.png)}"), (Urls{"x.png", "y.png"}));
  EXPECT_EQ(CssUrls("@font-face{src:url(f.woff2) format(\"woff2\"),url('f.woff') format('woff')}"),
            (Urls{"f.woff2", "f.woff"}));
  // "." and "+" before an identifier are delimiters: url( still follows.
  EXPECT_EQ(CssUrls(".url(dot.png)"), Urls{"dot.png"});
  // The end of the input closes an unquoted url.
  EXPECT_EQ(CssUrls("a{background:url(eof.png"), Urls{"eof.png"});
}

TEST(CssReferencesTest, DecodesEscapesAsTheTokenizerDoes) {
  EXPECT_EQ(CssUrls("a{background:u\\72l(escaped-name.png)}"), Urls{"escaped-name.png"});
  EXPECT_EQ(CssUrls("a{background:url(f\\29 .png)}"), Urls{"f).png"});
  EXPECT_EQ(CssUrls("a{background:url(a\\(b.png)}"), Urls{"a(b.png"});
  EXPECT_EQ(CssUrls("a{background:url(\"q\\\"uote.png\")}"), Urls{"q\"uote.png"});
  EXPECT_EQ(CssUrls("a{background:url(\"line\\\ncontinued.png\")}"), Urls{"linecontinued.png"});
  EXPECT_EQ(CssUrls("a{background:url(\\0 zero.png)}"), Urls{"\xEF\xBF\xBDzero.png"});
  EXPECT_EQ(CssUrls("a{background:url(caf\\e9 .png)}"), Urls{"caf\xC3\xA9.png"});
}

TEST(CssReferencesTest, IgnoresWhatIsNoReference) {
  EXPECT_TRUE(CssUrls("/* url(comment.png) */").empty());
  EXPECT_TRUE(CssUrls("a{content:\"url(string.png)\"}").empty());
  EXPECT_TRUE(CssUrls("a{content:'unterminated url(x.png)\n'} ").empty());
  EXPECT_TRUE(CssUrls("a{background:x-url(prefixed.png)}").empty());
  EXPECT_TRUE(CssUrls("a{width:1url(dimension.png)}").empty());
  EXPECT_TRUE(CssUrls("#url(hash.png){}").empty());
  EXPECT_TRUE(CssUrls("a{background:url()}").empty());
  EXPECT_TRUE(CssUrls("a{background:url(\"\")}").empty());
  // Bad urls: a quote, a '(' or whitespace inside an unquoted url.
  EXPECT_TRUE(CssUrls("a{background:url(bad\"q.png)}").empty());
  EXPECT_TRUE(CssUrls("a{background:url(bad(p.png)}").empty());
  EXPECT_TRUE(CssUrls("a{background:url(two words.png)}").empty());
  // A bad url's remnants are skipped up to its ')', and what follows counts.
  EXPECT_EQ(CssUrls("a{background:url(bad x);b:url(after.png)}"), Urls{"after.png"});
  // A bad string in url("...") is no reference.
  EXPECT_TRUE(CssUrls("a{background:url(\"broken\n.png\")}").empty());
  // Strings elsewhere are not URLs.
  EXPECT_TRUE(CssUrls("a{font-family:\"x.png\"}").empty());
}

TEST(CssReferencesTest, ImportsTakeAStringOrAUrl) {
  EXPECT_EQ(CssUrls("@import \"i1.css\";", true), Urls{"i1.css"});
  EXPECT_EQ(CssUrls("@import url(i2.css) screen;", true), Urls{"i2.css"});
  EXPECT_EQ(CssUrls("@import url(\"i3.css\");", true), Urls{"i3.css"});
  EXPECT_EQ(CssUrls("@IMPORT 'i4.css';", true), Urls{"i4.css"});
  EXPECT_EQ(CssUrls("@import /* c */ 'i5.css';", true), Urls{"i5.css"});
  EXPECT_EQ(CssUrls("@\\69mport 'i6.css';", true), Urls{"i6.css"});
  EXPECT_TRUE(CssUrls("@import \"bad\nx.css\";").empty());
  EXPECT_TRUE(CssUrls("@import foo;").empty());
  EXPECT_TRUE(CssUrls("@media screen { 'not-an-import.css' }").empty());
  // url() in an @import is an import; url() elsewhere is not.
  EXPECT_EQ(CssUrls("@import url(a.css); b{background:url(b.png)}", true), Urls{"a.css"});
}

std::vector<std::string> Srcset(std::string_view s) {
  std::vector<std::string> urls;
  ParseSrcset(s, &urls);
  return urls;
}

TEST(SrcsetTest, ParsesCandidatesAsTheStandardDoes) {
  EXPECT_EQ(Srcset("a.png"), Urls{"a.png"});
  EXPECT_EQ(Srcset("a.png 1x, b.png 2x"), (Urls{"a.png", "b.png"}));
  EXPECT_EQ(Srcset("  a.png 100w,b.png 200w  ,  c.png"), (Urls{"a.png", "b.png", "c.png"}));
  EXPECT_EQ(Srcset("a.png,b.png"), Urls{"a.png,b.png"}) << "a comma inside a URL does not split it";
  EXPECT_EQ(Srcset("a.png,, b.png 2x"), (Urls{"a.png", "b.png"})) << "trailing commas end a URL";
  EXPECT_EQ(Srcset("a.png 1.5x, b.png 2e0x, c.png .5x"), (Urls{"a.png", "b.png", "c.png"}));
  EXPECT_EQ(Srcset("a.png 100w 50h"), Urls{"a.png"});
  EXPECT_EQ(Srcset("data:image/png;base64,AAA= 1x, b.png 2x"), (Urls{"data:image/png;base64,AAA=", "b.png"}));
  // Parentheses keep a comma inside a descriptor (a future syntax).
  EXPECT_EQ(Srcset("a.png (x, y), b.png"), Urls{"b.png"}) << "the unknown descriptor drops a.png";
}

TEST(SrcsetTest, DropsCandidatesWithInvalidDescriptors) {
  EXPECT_TRUE(Srcset("a.png 1x 2x").empty());
  EXPECT_TRUE(Srcset("a.png 0w").empty());
  EXPECT_TRUE(Srcset("a.png 100w 1x").empty());
  EXPECT_TRUE(Srcset("a.png -1x").empty());
  EXPECT_TRUE(Srcset("a.png 50h").empty()) << "a height needs a width";
  EXPECT_TRUE(Srcset("a.png 1.x").empty());
  EXPECT_TRUE(Srcset("a.png 10px").empty());
  EXPECT_TRUE(Srcset("").empty());
  EXPECT_TRUE(Srcset(" , , ").empty());
  EXPECT_EQ(Srcset("bad.png 1x 2x, good.png 3x"), Urls{"good.png"});
}

// A page with every kind of requisite, read without a tree by the scanner.
constexpr std::string_view kEveryKind =
    "<!DOCTYPE html><html><head><meta charset=utf-8><title>t</title>"
    "<link rel=stylesheet href=\"/s.css\"><link rel=\"alternate stylesheet\" href=alt.css>"
    "<link rel=\"shortcut icon\" href=/favicon.ico><link rel=next href=/page2><link rel=canonical href=/c>"
    "<link rel=preload as=image href=hero.png imagesrcset=\"hero-1x.png 1x, hero-2x.png 2x\">"
    "<link rel=modulepreload href=m.js><link rel=prefetch href=later.js>"
    "<style>@import \"imp.css\"; body { background: url(bg.png) } /* url(comment.png) */"
    " .x{content:\"url(str.png)\"}</style>"
    "<script src=app.js></script><script>var x = '<img src=no.png>';</script>"
    "</head><body><div style=\"background-image: url('div.png')\">x</div>"
    "<img src=a.png srcset=\"a-1.png 1x, a-2.png 2x\" alt=x>"
    "<picture><source srcset=\"p.webp 1x, p2.webp 2x\" type=image/webp><img src=p.jpg></picture>"
    "<video src=v.mp4 poster=poster.jpg><source src=v.webm><track src=subs.vtt></video>"
    "<audio src=a.mp3></audio><input type=IMAGE src=button.png><input type=text src=no-text.png>"
    "<object data=movie.swf></object><embed src=e.swf><a href=/page><img src=in-a.png></a>"
    "<img src='  spaced.png  '><img src=''><img src=a.png>"
    "<table><tr><td style=\"background:url(td.png)\">c</td></tr></table>"
    "<svg><image href=svg.png /></svg><noscript><img src=ns.png></noscript>"
    "</body></html>";

const std::vector<RawEmbed> kEveryKindEmbeds = {
    {"/s.css", EmbedSource::kLink},       {"alt.css", EmbedSource::kLink},     {"/favicon.ico", EmbedSource::kLink},
    {"hero.png", EmbedSource::kLink},     {"hero-1x.png", EmbedSource::kLink}, {"hero-2x.png", EmbedSource::kLink},
    {"m.js", EmbedSource::kLink},         {"imp.css", EmbedSource::kCss},      {"bg.png", EmbedSource::kCss},
    {"app.js", EmbedSource::kScript},     {"div.png", EmbedSource::kCss},      {"a.png", EmbedSource::kImage},
    {"a-1.png", EmbedSource::kImage},     {"a-2.png", EmbedSource::kImage},    {"p.webp", EmbedSource::kSource},
    {"p2.webp", EmbedSource::kSource},    {"p.jpg", EmbedSource::kImage},      {"v.mp4", EmbedSource::kMedia},
    {"poster.jpg", EmbedSource::kMedia},  {"v.webm", EmbedSource::kSource},    {"subs.vtt", EmbedSource::kSource},
    {"a.mp3", EmbedSource::kMedia},       {"button.png", EmbedSource::kImage}, {"movie.swf", EmbedSource::kObject},
    {"e.swf", EmbedSource::kObject},      {"in-a.png", EmbedSource::kImage},   {"spaced.png", EmbedSource::kImage},
    {"a.png", EmbedSource::kImage},       {"td.png", EmbedSource::kCss},       {"ns.png", EmbedSource::kImage},
};

std::string Describe(const std::vector<RawEmbed>& embeds) {
  std::string out;
  for (const RawEmbed& e : embeds) out += "  " + std::string(EmbedSourceName(e.source)) + " [" + e.url + "]\n";
  return out;
}

class PageRequisitesParserTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<HtmlParser> parser_ =
      MakeHtmlParser(GetParam(), HtmlParserOptions{.extract_text = false, .extract_embeds = true});
};

TEST_P(PageRequisitesParserTest, EveryKindOfEmbedInDocumentOrder) {
  const ParsedHtml parsed = parser_->Parse(kEveryKind);
  EXPECT_EQ(parsed.embeds, kEveryKindEmbeds) << Describe(parsed.embeds);
  if (GetParam() == "scan") {
    EXPECT_EQ(static_cast<ScanHtmlParser&>(*parser_).scanned_pages(), 1u) << "read without a tree";
  }
  // Links are what they were without embeds.
  auto without = MakeHtmlParser(GetParam(), HtmlParserOptions{.extract_text = false});
  const ParsedHtml plain = without->Parse(kEveryKind);
  EXPECT_TRUE(plain.embeds.empty());
  EXPECT_EQ(plain.links, parsed.links);
  EXPECT_EQ(plain.title, parsed.title);
}

TEST_P(PageRequisitesParserTest, ImageTagIsAnImgAndTemplatesAreInert) {
  EXPECT_EQ(parser_->Parse("<p><image src=renamed.png>").embeds,
            (std::vector<RawEmbed>{{"renamed.png", EmbedSource::kImage}}));
  EXPECT_TRUE(parser_->Parse("<template><img src=t.png><style>a{b:url(t.png)}</style></template>").embeds.empty());
}

TEST_P(PageRequisitesParserTest, StyleAttributesOnMergedTagsCountWhereTheTreeHasThem) {
  // The second <body> adds its style to the first: before the <img>.
  const ParsedHtml parsed = parser_->Parse("<body><img src=i.png><body style='background:url(b.png)'>");
  EXPECT_EQ(parsed.embeds,
            (std::vector<RawEmbed>{{"b.png", EmbedSource::kCss}, {"i.png", EmbedSource::kImage}}))
      << Describe(parsed.embeds);
}

// Why the scanner gives up on style="" of a formatting element: a tree
// builder reconstructs the <b> left open across the </p>, clone and
// attributes, so its style counts twice.
TEST_P(PageRequisitesParserTest, AReconstructedFormattingElementBringsItsStyleAgain) {
  const ParsedHtml parsed = parser_->Parse("<p><b style='background:url(b.png)'>x</p>y");
  EXPECT_EQ(parsed.embeds, (std::vector<RawEmbed>{{"b.png", EmbedSource::kCss}, {"b.png", EmbedSource::kCss}}))
      << Describe(parsed.embeds);
}

INSTANTIATE_TEST_SUITE_P(Backends, PageRequisitesParserTest, ::testing::Values("gumbo", "myhtml", "scan"));

// Found by ./run fuzz html_scan: a <style> the input ends in keeps its text
// for gumbo (and the standard), not for MyHTML; the scanner leaves it to
// MyHTML, so the scan backend answers as MyHTML does.
TEST(PageRequisitesScannerTest, AStyleTheInputEndsInIsMyHtmlsToAnswer) {
  const std::string html = "<p>x<style>a{background:url(s.png)}";
  const HtmlParserOptions options{.extract_text = false, .extract_embeds = true};
  EXPECT_EQ(MakeHtmlParser("gumbo", options)->Parse(html).embeds,
            (std::vector<RawEmbed>{{"s.png", EmbedSource::kCss}}));
  const ParsedHtml myhtml = MakeHtmlParser("myhtml", options)->Parse(html);
  EXPECT_TRUE(myhtml.embeds.empty());
  EXPECT_EQ(MakeHtmlParser("scan", options)->Parse(html).embeds, myhtml.embeds);
}

// Found by ./run fuzz html_scan: gumbo reads a control character in a
// <style> as U+FFFD, MyHTML keeps it, and the url() it is in is good for
// one and bad for the other; the scanner leaves such a page to MyHTML.
TEST(PageRequisitesScannerTest, AControlCharacterInAStyleIsMyHtmlsToAnswer) {
  const std::string html = "<style>a{background:url(b.\x07png)}</style>";
  const HtmlParserOptions options{.extract_text = false, .extract_embeds = true};
  EXPECT_EQ(MakeHtmlParser("gumbo", options)->Parse(html).embeds,
            (std::vector<RawEmbed>{{"b.\xEF\xBF\xBDpng", EmbedSource::kCss}}));
  const ParsedHtml myhtml = MakeHtmlParser("myhtml", options)->Parse(html);
  EXPECT_TRUE(myhtml.embeds.empty());
  EXPECT_EQ(MakeHtmlParser("scan", options)->Parse(html).embeds, myhtml.embeds);
}

TEST(PageRequisitesScannerTest, GivesUpWhereATreeBuilderMovesOrDropsAttributes) {
  struct Case {
    std::string html;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"<body style='background:url(b.png)'>", "style on a merged or dropped tag"},
      {"<td style='background:url(x.png)'>outside a table", "style on a merged or dropped tag"},
      {"<table><input type=image src=fostered.png></table>", "foster parenting"},
      {"<table><input src=fostered.png></table>", "foster parenting"},
      {"<b style='background:url(b.png)'><p>x</b>y", "style on a formatting element"},
      {"<style>a{background:url(s.png)}", "unterminated style"},
      {"<style>a{background:url(b.\x07png)}</style>", "control character"},
      {"<div style='background:url(d.\x17png)'>", "control character"},
  };
  for (const Case& c : cases) {
    ParsedHtml scanned;
    EXPECT_STREQ(ScanHtmlLinks(c.html, &scanned, /*extract_embeds=*/true), c.reason.c_str()) << c.html;
    // Without embeds these pages yield the same either way: no give-up.
    ParsedHtml plain;
    EXPECT_EQ(ScanHtmlLinks(c.html, &plain), nullptr) << c.html;
  }
  ParsedHtml hidden;
  EXPECT_EQ(ScanHtmlLinks("<table><input type=HIDDEN src=x.png></table>", &hidden, true), nullptr);
}

// Random soup of requisites and the guards' cases: the scanner, whenever it
// answers, answers as gumbo does; both paths are taken.
TEST(PageRequisitesScannerTest, RandomSoupAgreesWithGumboWheneverItAnswers) {
  const std::vector<std::string_view> pieces = {
      "<img src=i.png>", "<img srcset='a 1x, b 2x'>", "<link rel=stylesheet href=s.css>", "<link rel=next href=n>",
      "<style>a{b:url(u.png)}</style>", "<script src=j.js></script>", "<div style='x:url(d.png)'>", "</div>",
      "<table>", "</table>", "<tr>", "<td style='x:url(td.png)'>", "</td>", "<a href=/a>", "</a>", "<p>", "</p>",
      "<body style='x:url(b.png)'>", "<video poster=v.jpg>", "</video>", "<source src=s.webm>", "<picture>",
      "</picture>", "<input type=image src=in.png>", "<object data=o>", "</object>", "<embed src=e>", "<image src=im>",
      "<svg>", "</svg>", "<template>", "</template>", "<select>", "text ", "<b>", "</b>", "<span style=\"x:url('s')\">",
      "</span>", "<caption>", "<th>", "<col style=x:url(c)>", "<form style=x:url(f)>", "<!-- <img src=c> -->", "<i style=x:url(i)>", "</i>"};
  auto gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = false, .extract_embeds = true});
  uint64_t state = 20261203;
  auto next = [&](size_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>((state >> 33) % bound);
  };
  size_t answered = 0, gave_up = 0;
  constexpr int kDocs = 4000;
  for (int d = 0; d < kDocs && !::testing::Test::HasFailure(); ++d) {
    std::string doc;
    const size_t length = 1 + next(24);
    for (size_t i = 0; i < length; ++i) doc.append(pieces[next(pieces.size())]);
    ParsedHtml scanned;
    if (ScanHtmlLinks(doc, &scanned, /*extract_embeds=*/true) != nullptr) {
      ++gave_up;
      continue;
    }
    ++answered;
    const ParsedHtml reference = gumbo->Parse(doc);
    EXPECT_EQ(scanned.embeds, reference.embeds) << doc << "\n--- scan:\n"
                                                << Describe(scanned.embeds) << "--- gumbo:\n"
                                                << Describe(reference.embeds);
    EXPECT_EQ(scanned.links, reference.links) << doc;
  }
  EXPECT_GT(answered, kDocs / 10u);
  EXPECT_GT(gave_up, kDocs / 10u);
}

TEST(PageRequisitesScannerTest, PythonDocumentationCorpusAgreesWithGumbo) {
  const auto files = corpus::PythonDocumentationPages();
  if (files.empty()) GTEST_SKIP() << "python3-doc is not installed";
  auto gumbo = MakeHtmlParser("gumbo", HtmlParserOptions{.extract_text = false, .extract_embeds = true});
  auto scan = MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false, .extract_embeds = true});
  size_t with_embeds = 0;
  for (const auto& path : files) {
    const std::string html = testing::ReadFile(path.string());
    const ParsedHtml reference = gumbo->Parse(html);
    EXPECT_EQ(scan->Parse(html).embeds, reference.embeds) << path;
    with_embeds += !reference.embeds.empty();
  }
  EXPECT_EQ(with_embeds, files.size()) << "every documentation page has its stylesheets";
  EXPECT_GE(static_cast<ScanHtmlParser&>(*scan).scanned_pages(), files.size() - 3) << "read without a tree";
}

TEST(PageRequisitesResolveTest, EmbedsResolveAgainstTheBaseOnceEachWhateverNofollowSays) {
  auto parser = MakeHtmlParser("scan", HtmlParserOptions{.extract_text = false, .extract_embeds = true});
  const ParsedHtml parsed = parser->Parse(
      "<meta name=robots content=nofollow><base href=/b/><img src=x.png><img src=x.png#frag>"
      "<img src=//cdn.example/y.png><img src=data:image/png,AA><a href=/a>a</a>");
  auto page = Url::Parse("http://h.example/dir/page.html");
  ASSERT_TRUE(page.ok());
  const ResolvedLinks resolved = ResolveLinks(parsed, *page, /*ignore_nofollow=*/false);
  std::vector<std::string> embeds;
  for (const auto& e : resolved.embeds) {
    EXPECT_TRUE(e.embed());
    EXPECT_FALSE(e.nofollow());
    embeds.push_back(e.url());
  }
  EXPECT_EQ(embeds, (Urls{"http://h.example/b/x.png", "http://cdn.example/y.png"}));
  ASSERT_EQ(resolved.links.size(), 1u);
  EXPECT_FALSE(resolved.links[0].embed());
  EXPECT_TRUE(resolved.links[0].nofollow());
  EXPECT_EQ(resolved.other_schemes, 1u) << "the data: URL";

  auto sheet = Url::Parse("http://cdn.example/css/site.css");
  ASSERT_TRUE(sheet.ok());
  const ResolvedLinks css = ResolveCssReferences("@import 'more.css'; a{b:url(../font.woff2)} c{d:url(../font.woff2)}", *sheet);
  ASSERT_EQ(css.embeds.size(), 2u);
  EXPECT_EQ(css.embeds[0].url(), "http://cdn.example/css/more.css");
  EXPECT_EQ(css.embeds[1].url(), "http://cdn.example/font.woff2");
}

}  // namespace
}  // namespace zcrawl::fetcher
