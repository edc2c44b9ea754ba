#include "fetcher/charset.h"

#include <gtest/gtest.h>

#include <string>

namespace zcrawl::fetcher {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

std::string Decode(std::string bytes, std::string_view charset) {
  Result<std::string> decoded = DecodeToUtf8(std::move(bytes), charset);
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : "<error>";
}

// ---------------------------------------------------------------------------
// Labels.

TEST(NormalizeCharsetLabelTest, MapsLatin1AndAsciiLabelsToWindows1252) {
  for (const char* label : {"latin1", "ISO-8859-1", "iso_8859-1", "ascii",
                            "US-ASCII", "cp1252", "windows-1252", "l1"}) {
    EXPECT_EQ(NormalizeCharsetLabel(label), "windows-1252") << label;
  }
}

TEST(NormalizeCharsetLabelTest, IgnoresCaseAndSurroundingWhitespace) {
  EXPECT_EQ(NormalizeCharsetLabel(" UTF8 "), "UTF-8");
  EXPECT_EQ(NormalizeCharsetLabel("\tutf-8\n"), "UTF-8");
  EXPECT_EQ(NormalizeCharsetLabel("Shift_JIS"), "Shift_JIS");
  EXPECT_EQ(NormalizeCharsetLabel("sjis"), "Shift_JIS");
  EXPECT_EQ(NormalizeCharsetLabel("GB2312"), "GBK");
  EXPECT_EQ(NormalizeCharsetLabel("iso-8859-9"), "windows-1254");
  EXPECT_EQ(NormalizeCharsetLabel("utf-16"), "UTF-16LE");
  EXPECT_EQ(NormalizeCharsetLabel("iso-2022-kr"), "replacement");
}

TEST(NormalizeCharsetLabelTest, UnknownLabelsGiveEmpty) {
  EXPECT_EQ(NormalizeCharsetLabel(""), "");
  EXPECT_EQ(NormalizeCharsetLabel("utf-7"), "");
  EXPECT_EQ(NormalizeCharsetLabel("utf 8"), "");
  EXPECT_EQ(NormalizeCharsetLabel("x-made-up"), "");
}

// ---------------------------------------------------------------------------
// Sniffing.

TEST(DetectCharsetTest, ByteOrderMarkWinsOverEverything) {
  EXPECT_EQ(DetectCharset("text/html; charset=iso-8859-2",
                          "\xEF\xBB\xBF<meta charset=koi8-r>"),
            "UTF-8");
  EXPECT_EQ(DetectCharset("text/html; charset=utf-8", "\xFF\xFE<\0h\0"),
            "UTF-16LE");
  EXPECT_EQ(DetectCharset("", "\xFE\xFF\0<"), "UTF-16BE");
}

TEST(DetectCharsetTest, ContentTypeCharsetWinsOverMeta) {
  EXPECT_EQ(DetectCharset("text/html; charset=ISO-8859-2",
                          "<meta charset=koi8-r>"),
            "ISO-8859-2");
  EXPECT_EQ(DetectCharset("text/html;charset=\"Shift_JIS\"", ""), "Shift_JIS");
  EXPECT_EQ(DetectCharset("text/html; foo=bar; CHARSET = latin1 ; x=y", ""),
            "windows-1252");
}

TEST(DetectCharsetTest, UnknownContentTypeLabelFallsThroughToMeta) {
  EXPECT_EQ(DetectCharset("text/html; charset=bogus", "<meta charset=koi8-r>"),
            "KOI8-R");
}

TEST(DetectCharsetTest, MetaPrescanFindsCharsetAndHttpEquiv) {
  EXPECT_EQ(DetectCharset("text/html", "<!doctype html><html><head>"
                                       "<meta charset='windows-1251'>"),
            "windows-1251");
  EXPECT_EQ(DetectCharset("", "<META HTTP-EQUIV=\"Content-Type\" "
                              "CONTENT=\"text/html; charset=EUC-JP\">"),
            "EUC-JP");
  EXPECT_EQ(DetectCharset("", "<meta content='text/html; charset=euc-kr' "
                              "http-equiv=content-type>"),
            "EUC-KR");
  EXPECT_EQ(DetectCharset("", "<meta/charset=big5>"), "Big5");
}

TEST(DetectCharsetTest, MetaPrescanIgnoresWhatItMust) {
  // content= without http-equiv=content-type declares nothing.
  EXPECT_EQ(DetectCharset("", "<meta content='text/html; charset=koi8-r'>"),
            "UTF-8");
  // Inside a comment, or an attribute value of another tag.
  EXPECT_EQ(DetectCharset("", "<!-- <meta charset=koi8-r> -->"), "UTF-8");
  EXPECT_EQ(DetectCharset("", "<p title='<meta charset=koi8-r>'>"), "UTF-8");
  // Past the first 1024 bytes.
  EXPECT_EQ(DetectCharset("", std::string(1024, ' ') + "<meta charset=koi8-r>"),
            "UTF-8");
  // An unknown label.
  EXPECT_EQ(DetectCharset("", "<meta charset=bogus>"), "UTF-8");
}

TEST(DetectCharsetTest, MetaDeclaringUtf16MeansUtf8) {
  EXPECT_EQ(DetectCharset("", "<meta charset=utf-16>\xFF"), "UTF-8");
  EXPECT_EQ(DetectCharset("", "<meta charset=x-user-defined>"), "windows-1252");
}

TEST(DetectCharsetTest, DefaultsToUtf8OnlyForValidUtf8) {
  EXPECT_EQ(DetectCharset("", "plain ascii"), "UTF-8");
  EXPECT_EQ(DetectCharset("text/html", "caf\xC3\xA9"), "UTF-8");
  EXPECT_EQ(DetectCharset("", "caf\xE9 au lait"), "windows-1252");
  EXPECT_EQ(DetectCharset("", ""), "UTF-8");
}

TEST(DetectCharsetTest, SequenceCutOffAtTheEndOfThePrefixStillCountsAsUtf8) {
  EXPECT_EQ(DetectCharset("", "euro \xE2\x82"), "UTF-8");
  EXPECT_EQ(DetectCharset("", "euro \xE2\x82 more"), "windows-1252");
}

TEST(CharsetFromMetaContentTest, ExtractsTheLabelAsWritten) {
  EXPECT_EQ(CharsetFromMetaContent("text/html; charset=ISO-8859-2"), "ISO-8859-2");
  EXPECT_EQ(CharsetFromMetaContent("text/html;charset = \"utf-8\" ; x"), "utf-8");
  EXPECT_EQ(CharsetFromMetaContent("text/html; CHARSET='koi8-r'"), "koi8-r");
  EXPECT_EQ(CharsetFromMetaContent("charsetx; charset=big5;"), "big5");
  EXPECT_EQ(CharsetFromMetaContent("text/html"), "");
  EXPECT_EQ(CharsetFromMetaContent("text/html; charset="), "");
  EXPECT_EQ(CharsetFromMetaContent("text/html; charset=\"unterminated"), "");
}

// ---------------------------------------------------------------------------
// Decoding.

TEST(DecodeToUtf8Test, Windows1252UsesTheWholeC1Range) {
  EXPECT_EQ(Decode("caf\xE9 \x80 \x93quoted\x94 \x81", "iso-8859-1"),
            "caf\u00E9 \u20AC \u201Cquoted\u201D \u0081");
}

TEST(DecodeToUtf8Test, DecodesLegacyEncodingsThroughIconv) {
  EXPECT_EQ(Decode("\xB1\xE6", "ISO-8859-2"), "\u0105\u0107");  // ąć
  EXPECT_EQ(Decode("\xD0\xD2\xC9\xD7\xC5\xD4", "koi8-r"), "привет");
  EXPECT_EQ(Decode("\x93\xFA\x96\x7B", "Shift_JIS"), "日本");
  EXPECT_EQ(Decode("\xC4\xE3\xBA\xC3", "gb2312"), "你好");
  EXPECT_EQ(Decode("\xC7\xD1\xB1\xDB", "euc-kr"), "한글");
  EXPECT_EQ(Decode("\xEF\xF0\xE8\xE2\xE5\xF2", "windows-1251"), "привет");
}

TEST(DecodeToUtf8Test, InvalidBytesBecomeReplacementCharactersAndDecodingGoesOn) {
  // 0xFF is not a Shift_JIS lead byte; a lead byte at the very end is cut off.
  EXPECT_EQ(Decode("a\xFF" "b\x93", "Shift_JIS"),
            std::string("a") + kReplacement + "b" + kReplacement);
  // A lone UTF-16 surrogate.
  EXPECT_EQ(Decode(std::string("a\0\x00\xD8" "b\0", 6), "utf-16le"),
            std::string("a") + kReplacement + "b");
}

TEST(DecodeToUtf8Test, Utf16WithByteOrderMark) {
  EXPECT_EQ(Decode(std::string("\xFF\xFEh\0i\0", 6), "utf-16le"), "hi");
  // The BOM overrides the label, as in the Encoding Standard.
  EXPECT_EQ(Decode(std::string("\xFE\xFF\0h\0i", 6), "windows-1252"), "hi");
  EXPECT_EQ(Decode("\xEF\xBB\xBFok", "iso-8859-2"), "ok");
}

TEST(DecodeToUtf8Test, ValidUtf8IsReturnedWithoutCopying) {
  std::string body(1 << 20, 'x');
  body += "caf\xC3\xA9";
  const char* const original = body.data();
  Result<std::string> decoded = DecodeToUtf8(std::move(body), "utf-8");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->data(), original);
  EXPECT_TRUE(decoded->ends_with("caf\xC3\xA9"));
}

TEST(DecodeToUtf8Test, InvalidUtf8IsRepairedButNulIsKept) {
  EXPECT_EQ(Decode(std::string("a\xFF" "b\0c", 5), "utf-8"),
            std::string("a") + kReplacement + std::string("b\0c", 3));
}

TEST(DecodeToUtf8Test, SpecialEncodings) {
  EXPECT_EQ(Decode("a\x80", "x-user-defined"), "a\uF780");
  EXPECT_EQ(Decode("anything", "iso-2022-kr"), kReplacement);
  EXPECT_EQ(Decode("", "iso-2022-kr"), "");
}

TEST(DecodeToUtf8Test, UnknownCharsetIsAnError) {
  Result<std::string> decoded = DecodeToUtf8("bytes", "x-bogus");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument);
}

TEST(DecodeToUtf8Test, LargeInputGrowsTheOutputBuffer) {
  // Every byte becomes three UTF-8 bytes, more than the first guess.
  const std::string bytes(100000, '\x93');
  const std::string decoded = Decode(bytes, "windows-1252");
  EXPECT_EQ(decoded.size(), 300000u);
  const std::string cyrillic = Decode(std::string(100000, '\xC1'), "koi8-r");
  EXPECT_EQ(cyrillic.size(), 200000u);
  EXPECT_TRUE(IsCleanUtf8(cyrillic));
}

// ---------------------------------------------------------------------------
// UTF-8 hygiene.

TEST(SanitizeUtf8Test, ValidTextIsReturnedUnchangedWithoutCopying) {
  std::string text(100000, 'a');
  text += "\xE2\x82\xAC \xF0\x9F\x98\x80";
  const char* const original = text.data();
  const std::string sanitized = SanitizeUtf8(std::move(text));
  EXPECT_EQ(sanitized.data(), original);
}

TEST(SanitizeUtf8Test, ReplacesEachMaximalInvalidSubpartOnce) {
  const std::string r = kReplacement;
  EXPECT_EQ(SanitizeUtf8("a\xF0\x9F\x98" "b"), "a" + r + "b");   // truncated
  EXPECT_EQ(SanitizeUtf8("\xC0\x80"), r + r);                   // overlong
  EXPECT_EQ(SanitizeUtf8("\xED\xA0\x80"), r + r + r);           // surrogate
  EXPECT_EQ(SanitizeUtf8("\xF4\x90\x80\x80"), r + r + r + r);   // > U+10FFFF
  EXPECT_EQ(SanitizeUtf8("\x80\xBF"), r + r);                   // lone continuations
  EXPECT_EQ(SanitizeUtf8("\xE2\x82"), r);                       // truncated at end
  EXPECT_EQ(SanitizeUtf8("\xFF\xFE"), r + r);
}

TEST(SanitizeUtf8Test, ReplacesNulBytes) {
  EXPECT_EQ(SanitizeUtf8(std::string("a\0b", 3)), "a\uFFFDb");
}

TEST(IsCleanUtf8Test, AcceptsValidTextAndRejectsInvalidOrNul) {
  EXPECT_TRUE(IsCleanUtf8(""));
  EXPECT_TRUE(IsCleanUtf8("ascii only, long enough for the word loop"));
  EXPECT_TRUE(IsCleanUtf8("\xC2\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
  EXPECT_FALSE(IsCleanUtf8("0123456789abcdef\xC3"));
  EXPECT_FALSE(IsCleanUtf8(std::string("0123456789\0abcdef", 17)));
  EXPECT_FALSE(IsCleanUtf8("\xEF\xBF"));
}

}  // namespace
}  // namespace zcrawl::fetcher
