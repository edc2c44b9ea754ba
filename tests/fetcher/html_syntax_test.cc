#include "fetcher/html_syntax.h"

#include <gtest/gtest.h>

#include <string_view>

namespace zcrawl::fetcher {
namespace {

constexpr size_t kNone = std::string_view::npos;

TEST(HtmlSyntaxTest, TextEndsAtItsOwnEndTagInAnyCase) {
  const std::string_view html = "<style>a</b></STYLE>";
  EXPECT_EQ(FindTextEndTag(html, 7, "style"), 12u);
  EXPECT_EQ(FindTextEndTag("x</Style >", 0, "style"), 1u);
  EXPECT_EQ(FindTextEndTag("x</style/>", 0, "style"), 1u);
}

// "</stylex" and "</style1" are text; the end tag needs whitespace, '/' or
// '>' after the name, and a byte after it at all.
TEST(HtmlSyntaxTest, ANameThatGoesOnOrStopsAtTheEndIsText) {
  EXPECT_EQ(FindTextEndTag("</stylex></style\t", 0, "style"), 9u);
  EXPECT_EQ(FindTextEndTag("</style1", 0, "style"), kNone);
  EXPECT_EQ(FindTextEndTag("</style", 0, "style"), kNone);
  EXPECT_EQ(FindTextEndTag("</title>", 1, "title"), kNone);
}

TEST(HtmlSyntaxTest, AControlCharacterAfterTheNameIsReportedOnlyWhenAsked) {
  const std::string_view html = "</script\x0b></script>";
  EXPECT_EQ(FindTextEndTag(html, 0, "script"), 10u);
  bool control = false;
  EXPECT_EQ(FindTextEndTag(html, 0, "script", &control), kNone);
  EXPECT_TRUE(control);
  control = false;
  EXPECT_EQ(FindTextEndTag("</script\r>", 0, "script", &control), 0u);
  EXPECT_FALSE(control);
}

}  // namespace
}  // namespace zcrawl::fetcher
