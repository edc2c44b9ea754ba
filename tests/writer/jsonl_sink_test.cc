#include "writer/jsonl_sink.h"
#include "writer/page_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/base64_decode.h"
#include "tests/support/file_size_limit.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kFetchedAtMs = 1796005077123;  // 2026-11-30T02:17:57.123Z

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Parses every line; fails the test on a line that is not one JSON object.
std::vector<json> ReadLines(const fs::path& p) {
  std::vector<json> out;
  const std::string data = ReadFile(p);
  EXPECT_TRUE(data.empty() || data.back() == '\n');
  size_t start = 0;
  while (start < data.size()) {
    const size_t end = data.find('\n', start);
    const std::string line = data.substr(start, end - start);
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << "not a JSON object: " << line.substr(0, 200);
    out.push_back(std::move(j));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

using zcrawl::testing::Base64DecodeForTest;

v1::Page MakePage(int i) {
  v1::Page page;
  page.set_url("http://example.com/p" + std::to_string(i));
  page.set_final_url("https://example.com/p" + std::to_string(i));
  page.set_http_status(200);
  page.set_fetched_at_ms(kFetchedAtMs);
  page.set_depth(2);
  page.set_title("Page " + std::to_string(i));
  page.set_text("hello");
  page.set_content_type("text/html");
  page.set_charset("utf-8");
  page.set_body("<html>" + std::to_string(i) + "</html>");
  return page;
}

class JsonlSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/jsonl_sink_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    options_.out_dir = (root_ / "out").string();  // the sink creates it
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path file() const { return fs::path(options_.out_dir) / "pages.jsonl"; }

  fs::path root_;
  SinkOptions options_;
};

TEST_F(JsonlSinkTest, WritesOneObjectPerPageWithEveryField) {
  v1::Page page = MakePage(0);
  for (auto [name, value] : {std::pair{"Content-Type", "text/html"},
                             std::pair{"Set-Cookie", "a=1"},
                             std::pair{"set-cookie", "b=2"},
                             std::pair{"X-Empty", ""}}) {
    auto* h = page.add_headers();
    h->set_name(name);
    h->set_value(value);
  }
  page.add_links()->set_url("https://example.com/a");
  page.add_links()->set_url("https://example.com/b");
  auto* r = page.add_redirects();
  r->set_from_url("http://example.com/p0");
  r->set_status_code(301);
  r->set_location("https://example.com/p0");

  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Write(MakePage(1)).ok());
  ASSERT_TRUE(sink.Close().ok());

  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 2u);
  const json& j = lines[0];
  EXPECT_EQ(j["url"], "http://example.com/p0");
  EXPECT_EQ(j["final_url"], "https://example.com/p0");
  EXPECT_EQ(j["status"], 200);
  EXPECT_EQ(j["headers"],
            json({{"Content-Type", "text/html"}, {"Set-Cookie", "a=1, b=2"}, {"X-Empty", ""}}));
  EXPECT_EQ(j["content_type"], "text/html");
  EXPECT_EQ(j["charset"], "utf-8");
  EXPECT_EQ(j["fetched_at"], "2026-11-30T02:17:57.123Z");
  EXPECT_EQ(j["depth"], 2);
  EXPECT_EQ(j["title"], "Page 0");
  EXPECT_EQ(j["text"], "hello");
  EXPECT_EQ(j["outlinks"], json::array({"https://example.com/a", "https://example.com/b"}));
  EXPECT_EQ(j["redirects"], json::parse(R"([{"from":"http://example.com/p0","status":301,
                                              "location":"https://example.com/p0"}])"));
  EXPECT_FALSE(j.contains("body"));  // jsonl_body is off by default
  EXPECT_EQ(lines[1]["title"], "Page 1");
  EXPECT_EQ(lines[1]["outlinks"], json::array());
}

TEST_F(JsonlSinkTest, BodyRoundTripsThroughBase64WhenEnabled) {
  options_.jsonl_body = true;
  v1::Page page = MakePage(0);
  std::string body;
  for (int i = 0; i < 1000; ++i) body.push_back(static_cast<char>(i * 7));
  page.set_body(body);
  page.set_body_truncated(true);
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Close().ok());
  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(Base64DecodeForTest(lines[0]["body"]), body);
  EXPECT_EQ(lines[0]["body_truncated"], true);
}

TEST_F(JsonlSinkTest, InvalidUtf8AndControlCharactersStayValidJson) {
  v1::Page page = MakePage(0);
  page.set_text("caf\xc3\xa9 \xff\xfe broken \xc3");
  page.set_title("quote \" backslash \\ newline \n tab \t nul " + std::string(1, '\0') + " end");
  auto* h = page.add_headers();
  h->set_name("X-Bin\xff");
  h->set_value("v\x01");
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Close().ok());
  // nlohmann rejects invalid UTF-8, so parsing at all proves validity.
  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["text"], "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd broken \xef\xbf\xbd");
  EXPECT_EQ(lines[0]["title"],
            "quote \" backslash \\ newline \n tab \t nul " + std::string(1, '\0') + " end");
  EXPECT_EQ(lines[0]["headers"]["X-Bin\xef\xbf\xbd"], "v\x01");
}

TEST_F(JsonlSinkTest, UnknownFetchTimeIsNull) {
  v1::Page page = MakePage(0);
  page.set_fetched_at_ms(0);
  const json j = json::parse(PageJson(page, nullptr));
  EXPECT_TRUE(j["fetched_at"].is_null());
}

TEST_F(JsonlSinkTest, LinesReachTheFileOnlyAtFlush) {
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0)).ok());
  EXPECT_EQ(fs::file_size(file()), 0u);
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(ReadLines(file()).size(), 1u);
  ASSERT_TRUE(sink.Close().ok());
  ASSERT_TRUE(sink.Close().ok());  // idempotent
}

TEST_F(JsonlSinkTest, ReopenAppendsToWhatIsThere) {
  for (int run = 0; run < 2; ++run) {
    JsonlSink sink(options_);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(MakePage(run * 2)).ok());
    ASSERT_TRUE(sink.Write(MakePage(run * 2 + 1)).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lines[i]["title"], "Page " + std::to_string(i));
}

TEST_F(JsonlSinkTest, OpenCutsATornLastLine) {
  fs::create_directories(options_.out_dir);
  std::ofstream(file(), std::ios::binary) << "{\"title\":\"kept\"}\n{\"title\":\"torn";
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(7)).ok());
  ASSERT_TRUE(sink.Close().ok());
  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["title"], "kept");
  EXPECT_EQ(lines[1]["title"], "Page 7");
}

TEST_F(JsonlSinkTest, OpenCutsAFileThatIsOneTornLine) {
  fs::create_directories(options_.out_dir);
  std::ofstream(file(), std::ios::binary) << std::string(200000, 'x');  // spans scan chunks
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  EXPECT_EQ(fs::file_size(file()), 0u);
  ASSERT_TRUE(sink.Close().ok());
}

TEST_F(JsonlSinkTest, WriteWithoutOpenFails) {
  JsonlSink sink(options_);
  EXPECT_EQ(sink.Write(MakePage(0)).code(), StatusCode::kInternal);
}

using zcrawl::testing::FileSizeLimit;

TEST_F(JsonlSinkTest, FailedFlushLeavesNoTornLineAndWritingResumes) {
  options_.jsonl_body = true;
  auto big_page = [](int i) {
    v1::Page page = MakePage(i);
    page.set_body(std::string(3000, static_cast<char>('a' + i)));
    return page;
  };
  JsonlSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(big_page(0)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const uintmax_t durable = fs::file_size(file());
  {
    FileSizeLimit limit(durable + 6000);  // one more line fits, the next is torn
    for (int i = 1; i < 4; ++i) ASSERT_TRUE(sink.Write(big_page(i)).ok());
    EXPECT_FALSE(sink.Flush().ok());
  }
  EXPECT_EQ(fs::file_size(file()), durable);
  for (int i = 1; i < 4; ++i) ASSERT_TRUE(sink.Write(big_page(i)).ok());  // redelivered
  ASSERT_TRUE(sink.Close().ok());
  const auto lines = ReadLines(file());
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(lines[i]["title"], "Page " + std::to_string(i));
}

}  // namespace
}  // namespace zcrawl::writer
