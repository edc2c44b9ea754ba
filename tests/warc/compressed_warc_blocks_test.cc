// AddWarcBlocks (the fetcher's side of a page's WARC records): each stream
// inflates, with zlib, to exactly the block the writer would store (the
// response's HTTP head and body; the request; the outlinks) and the record
// end; the length, SHA-1 and CRC-32 that travel with it describe those
// bytes. IsUsableWarcBlock turns away blocks the writer could not wrap;
// RestoreOmittedBody gives back a body the fetcher left out, or refuses.
#include "warc/compressed_warc_blocks.h"

#include <gtest/gtest.h>
#include <openssl/sha.h>
#include <zlib.h>

#include <random>
#include <string>

#include "warc/warc_blocks.h"
#include "tests/support/gzip_members.h"

namespace zcrawl {
namespace {

using ::zcrawl::testing::InflateRawDeflate;

std::string Sha1Raw(const std::string& data) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof(md));
}

v1::Page MakePage(std::string body) {
  v1::Page page;
  page.set_url("http://127.0.0.1/a");
  page.set_http_status(404);
  page.set_http_version("HTTP/2");
  for (auto [name, value] : {std::pair{"Content-Type", "text/html"}, std::pair{"Content-Encoding", "br"},
                             std::pair{"X-Evil", "a\r\nInjected: yes"}, std::pair{":status", "404"}}) {
    auto* h = page.add_headers();
    h->set_name(name);
    h->set_value(value);
  }
  page.set_body(std::move(body));
  return page;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

class CompressedWarcBlocksLevelTest : public ::testing::TestWithParam<int> {};

TEST_P(CompressedWarcBlocksLevelTest, StreamInflatesToTheWritersHeadTheBodyAndTheRecordEnd) {
  GzipMemberCompressor compressor(GetParam());
  std::string html;
  while (html.size() < 40000) html += "<p>page text <a href=/x" + std::to_string(html.size()) + ">x</a></p>\n";
  for (const std::string& body : {std::string(), html, RandomBytes(70000, 3)}) {
    v1::Page page = MakePage(body);
    ASSERT_TRUE(AddWarcBlocks(page, compressor).ok());
    ASSERT_TRUE(page.has_warc_response());
    const v1::WarcBlock& block = page.warc_response();
    const std::string head = WarcHttpResponseHead(page, body.size());
    EXPECT_TRUE(head.starts_with("HTTP/2 404 Not Found\r\n")) << head;
    EXPECT_NE(head.find("X-Zcrawl-Orig-Content-Encoding: br\r\n"), std::string::npos) << head;
    EXPECT_EQ(head.find("\r\nInjected"), std::string::npos) << head;  // no line of its own
    EXPECT_TRUE(head.ends_with("Content-Length: " + std::to_string(body.size()) + "\r\n\r\n")) << head;
    const std::string expected = head + body + "\r\n\r\n";
    EXPECT_EQ(InflateRawDeflate(block.deflate()), expected);
    EXPECT_EQ(block.block_length(), head.size() + body.size());
    EXPECT_EQ(block.block_sha1(), Sha1Raw(head + body));
    EXPECT_EQ(block.crc32(), crc32(0, reinterpret_cast<const Bytef*>(expected.data()),
                                   static_cast<uInt>(expected.size())));
    EXPECT_TRUE(IsUsableWarcBlock(block));
    EXPECT_EQ(page.body(), body);  // the page keeps its body

    // The request's block is synthesised from the URL (no request sent);
    // no links, no metadata block.
    const v1::WarcBlock& request = page.warc_request();
    const std::string request_expected = WarcRequestBlock(page, "http://127.0.0.1/a") + "\r\n\r\n";
    EXPECT_EQ(InflateRawDeflate(request.deflate()), request_expected);
    EXPECT_EQ(request_expected.substr(0, 21), "GET /a HTTP/1.1\r\nHost");
    EXPECT_EQ(request.block_sha1(), Sha1Raw(request_expected.substr(0, request_expected.size() - 4)));
    EXPECT_TRUE(IsUsableWarcBlock(request));
    EXPECT_FALSE(page.has_warc_metadata());
  }
}

TEST_P(CompressedWarcBlocksLevelTest, PageWithLinksGetsAMetadataBlockAndItsRequestAsSent) {
  GzipMemberCompressor compressor(GetParam());
  v1::Page page = MakePage("<a href=/b>b</a>");
  page.set_request_headers("GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: zcrawl\r\n\r\n");
  page.add_links()->set_url("http://127.0.0.1/b");
  page.add_links()->set_url("http://127.0.0.1/c\r\noutlink: injected");
  ASSERT_TRUE(AddWarcBlocks(page, compressor).ok());
  const std::string metadata = "outlink: http://127.0.0.1/b\r\noutlink: http://127.0.0.1/c  outlink: injected\r\n";
  EXPECT_EQ(WarcMetadataBlock(page), metadata);
  EXPECT_EQ(InflateRawDeflate(page.warc_metadata().deflate()), metadata + "\r\n\r\n");
  EXPECT_EQ(page.warc_metadata().block_length(), metadata.size());
  EXPECT_EQ(page.warc_metadata().block_sha1(), Sha1Raw(metadata));
  const std::string request = page.request_headers() + "\r\n\r\n";
  EXPECT_EQ(InflateRawDeflate(page.warc_request().deflate()), request);
}

TEST_P(CompressedWarcBlocksLevelTest, OmittedBodyIsRestoredFromTheBlock) {
  GzipMemberCompressor compressor(GetParam());
  for (const std::string& body : {std::string("x"), std::string("\r\n\r\nlooks like a head end\r\n\r\n"),
                                  RandomBytes(70000, 4)}) {
    v1::Page page = MakePage(body);
    ASSERT_TRUE(AddWarcBlocks(page, compressor).ok());
    page.set_body_length(body.size());
    page.clear_body();
    EXPECT_TRUE(BodyWasOmitted(page));
    ASSERT_TRUE(RestoreOmittedBody(page).ok());
    EXPECT_EQ(page.body(), body);
    EXPECT_FALSE(BodyWasOmitted(page));
  }
}

INSTANTIATE_TEST_SUITE_P(Levels, CompressedWarcBlocksLevelTest, ::testing::Values(0, 1, 6, 12));

TEST(CompressedWarcBlocksTest, OmittedBodyThatTheBlockDoesNotHoldIsRefused) {
  GzipMemberCompressor compressor(1);
  v1::Page good = MakePage(RandomBytes(5000, 9));
  ASSERT_TRUE(AddWarcBlocks(good, compressor).ok());
  good.set_body_length(good.body().size());
  good.clear_body();

  auto refused = [](v1::Page page) { return RestoreOmittedBody(page).code() == StatusCode::kInvalidArgument; };
  v1::Page bad = good;
  bad.clear_warc_response();
  EXPECT_TRUE(refused(bad)) << "no block";
  bad = good;
  bad.mutable_warc_response()->set_crc32(good.warc_response().crc32() ^ 1);
  EXPECT_TRUE(refused(bad)) << "CRC";
  bad = good;
  bad.mutable_warc_response()->set_block_length(good.warc_response().block_length() + 1);
  EXPECT_TRUE(refused(bad)) << "longer than the stream";
  bad = good;
  bad.set_body_length(good.body_length() + 1);
  EXPECT_TRUE(refused(bad)) << "body_length not at the head's end";
  bad = good;
  bad.set_body_length(good.warc_response().block_length());
  EXPECT_TRUE(refused(bad)) << "body_length past the head";
  bad = good;
  bad.mutable_warc_response()->mutable_deflate()->assign(good.warc_response().deflate().size(), 'z');
  EXPECT_TRUE(refused(bad)) << "garbage stream";
  bad = good;
  bad.mutable_warc_response()->set_block_length(uint64_t{100} << 20);  // plausible for its stream,
  bad.mutable_warc_response()->mutable_deflate()->append(std::string(1 << 20, '\0'));
  ASSERT_TRUE(IsUsableWarcBlock(bad.warc_response()));
  EXPECT_TRUE(refused(bad)) << "larger than a message";  // but never allocated
  // The page as sent restores: the checks above fail for their own reason.
  v1::Page copy = good;
  ASSERT_TRUE(RestoreOmittedBody(copy).ok());
  EXPECT_EQ(copy.body().size(), good.body_length());
}

TEST(CompressedWarcBlocksTest, BlocksAWriterCannotWrapAreNotUsable) {
  GzipMemberCompressor compressor(1);
  v1::Page page = MakePage("<html>hello</html>");
  ASSERT_TRUE(AddWarcBlocks(page, compressor).ok());
  const v1::WarcBlock good = page.warc_response();
  ASSERT_TRUE(IsUsableWarcBlock(good));

  v1::WarcBlock bad = good;
  bad.set_block_sha1("short");
  EXPECT_FALSE(IsUsableWarcBlock(bad));
  bad = good;
  bad.clear_block_sha1();
  EXPECT_FALSE(IsUsableWarcBlock(bad));
  bad = good;
  bad.clear_deflate();
  EXPECT_FALSE(IsUsableWarcBlock(bad));
  bad = good;
  bad.set_block_length(0);
  EXPECT_FALSE(IsUsableWarcBlock(bad));
  bad = good;
  bad.set_block_length(good.deflate().size() * 2000);  // more than DEFLATE can make of it
  EXPECT_FALSE(IsUsableWarcBlock(bad));
  EXPECT_FALSE(IsUsableWarcBlock(v1::WarcBlock()));
}

}  // namespace
}  // namespace zcrawl
