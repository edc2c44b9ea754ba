// WarcSink tests. Output is verified by tests/writer/warc_check.py, an
// independent reader (Python stdlib): each gzip member read on its own, every
// digest, Content-Length and WARC-Concurrent-To pair recomputed.
// Over 500 lines on purpose: most cases need that reader and one sink fixture
// (records, rotation, failures of write and fsync, the index, restarts).
#include "writer/warc_sink.h"

#include <openssl/sha.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/encoding.h"
#include "warc/compressed_warc_blocks.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/gzip_members.h"
#include "tests/support/warc_checker.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int64_t kFetchedAtMs = 1796005077123;  // 2026-11-30T02:17:57.123Z

// The independent reader over every .warc.gz in `dir`.
testing::WarcCheckResult RunChecker(const fs::path& dir) { return testing::RunWarcChecker(dir.string()); }

std::string Sha1Raw(const std::string& data) {
  unsigned char md[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  return std::string(reinterpret_cast<const char*>(md), sizeof(md));
}

std::string Sha1Hex(const std::string& data) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char c : Sha1Raw(data)) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return hex;
}

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

v1::Page MakePage(int i, std::string body) {
  v1::Page page;
  page.set_page_id("fetcher-1/" + std::to_string(i));
  page.set_url("http://example.com/p" + std::to_string(i));
  page.set_final_url("https://example.com/p" + std::to_string(i) + "?x=1");
  page.set_http_status(200);
  page.set_fetched_at_ms(kFetchedAtMs);
  auto* h = page.add_headers();
  h->set_name("Content-Type");
  h->set_value("text/html; charset=utf-8");
  page.set_body(std::move(body));
  return page;
}

std::vector<fs::path> WarcFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().ends_with(".warc.gz")) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

using ::zcrawl::testing::InflateGzipMembers;

TEST(WarcRecordTest, RecordIdsAreDistinctVersion4Uuids) {
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    Result<std::string> id = NewWarcRecordId();
    ASSERT_TRUE(id.ok());
    ASSERT_EQ(id->size(), 47u) << *id;  // <urn:uuid:8-4-4-4-12>
    EXPECT_TRUE(id->starts_with("<urn:uuid:")) << *id;
    EXPECT_EQ((*id)[24], '4') << *id;  // version nibble
    EXPECT_NE(std::string("89ab").find((*id)[29]), std::string::npos) << *id;  // variant
    ids.insert(*id);
  }
  EXPECT_EQ(ids.size(), 1000u);
  // Ids come from a per-thread pool of random bytes: other threads' differ.
  std::vector<std::string> others;
  std::thread([&] {
    for (int i = 0; i < 500; ++i) others.push_back(*NewWarcRecordId());
  }).join();
  ids.insert(others.begin(), others.end());
  EXPECT_EQ(ids.size(), 1500u);
}

TEST(WarcRecordTest, Sha1DigestIsLabelledBase32) {
  EXPECT_EQ(*WarcSha1Digest(""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  EXPECT_EQ(*WarcSha1Digest("abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
}

TEST(WarcRecordTest, SerialisesHeaderBlockAndEndMarker) {
  WarcRecord record{"metadata", "<urn:uuid:x>", "2026-11-30T02:17:57.123Z", {}, "abc"};
  record.AddField("WARC-Target-URI", "http://a/\r\nWARC-Type: evil");
  std::string out = "prefix";
  AppendWarcRecord(record, out);
  EXPECT_EQ(out,
            "prefixWARC/1.1\r\n"
            "WARC-Type: metadata\r\n"
            "WARC-Record-ID: <urn:uuid:x>\r\n"
            "WARC-Date: 2026-11-30T02:17:57.123Z\r\n"
            "WARC-Target-URI: http://a/  WARC-Type: evil\r\n"
            "Content-Length: 3\r\n"
            "\r\n"
            "abc\r\n\r\n");
}

class WarcSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/warc_sink_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = fs::path(tmpl) / "out";  // not created yet: the sink must create it
    options_.out_dir = dir_.string();
    options_.warc_prefix = "test";
  }
  void TearDown() override { fs::remove_all(dir_.parent_path()); }

  fs::path dir_;
  SinkOptions options_;
};

TEST_F(WarcSinkTest, IndependentReaderAcceptsEveryRecordAndField) {
  std::vector<v1::Page> pages;
  // 0: plain page with links; the fetcher gave the request it sent.
  pages.push_back(MakePage(0, "<html><a href=/x>x</a></html>"));
  pages[0].set_request_headers("GET /p0?x=1 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: zcrawl\r\n\r\n");
  pages[0].add_links()->set_url("https://example.com/x");
  pages[0].add_links()->set_url("https://other.example/y z");
  // A link must not add a line to the outlink list (nor NUL to it).
  static constexpr char kEvilLink[] = "https://example.com/a\r\noutlink: evil\0z";
  pages[0].add_links()->set_url(std::string(kEvilLink, sizeof(kEvilLink) - 1));
  pages[0].set_ip_address("192.0.2.7");
  // 1: server sent it gzip'd and chunked; the body we got is decoded.
  pages.push_back(MakePage(1, std::string("binary\0body\r\n\r\nmore", 20)));
  for (auto [name, value] : {std::pair{"Content-Encoding", "gzip"},
                             std::pair{"Transfer-Encoding", "chunked"},
                             std::pair{"content-length", "999"},
                             std::pair{":status", "200"},
                             std::pair{"X-Evil", "a\r\nInjected: yes"}}) {
    auto* h = pages[1].add_headers();
    h->set_name(name);
    h->set_value(value);
  }
  // 2: HTTP/2 404, no final_url, no request headers, userinfo/port/fragment
  // in the URL, truncated body.
  pages.push_back(MakePage(2, RandomBytes(5000, 2)));
  pages[2].set_final_url("");
  pages[2].set_url("http://user:pw@example.com:8080/a/b?q=1#frag");
  pages[2].set_http_status(404);
  pages[2].set_http_version("HTTP/2");
  pages[2].set_body_truncated(true);
  // 3: empty body, request headers with bare LF and no final blank line.
  pages.push_back(MakePage(3, ""));
  pages[3].set_request_headers("GET /p3 HTTP/1.1\nHost: example.com\n");

  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (size_t i = 0; i < pages.size(); ++i) {
    if (i % 2 == 0) {
      ASSERT_TRUE(sink.Write(pages[i]).ok());
      continue;
    }
    // Handed over, as the writer does: the bulk moves out, the page stays.
    v1::Page copy = pages[i];
    ASSERT_TRUE(sink.Write(copy, TakePayload(copy)).ok());
    EXPECT_TRUE(copy.body().empty()) << i;
    EXPECT_EQ(copy.url(), pages[i].url()) << i;
  }
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());

  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  const json& s = check.summary;
  EXPECT_EQ(s["files"].size(), 1u);
  EXPECT_EQ(s["by_type"]["warcinfo"], 1);
  EXPECT_EQ(s["by_type"]["response"], 4);
  EXPECT_EQ(s["by_type"]["request"], 4);
  EXPECT_EQ(s["by_type"]["metadata"], 1);  // only page 0 has links

  const json& r = s["responses"];
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]["uri"], "https://example.com/p0?x=1");
  EXPECT_EQ(r[0]["status_line"], "HTTP/1.1 200 OK");
  EXPECT_EQ(r[0]["date"], "2026-11-30T02:17:57.123Z");
  EXPECT_EQ(r[0]["ip"], "192.0.2.7");
  EXPECT_TRUE(r[0]["truncated"].is_null());
  for (size_t i = 0; i < pages.size(); ++i) {
    EXPECT_EQ(r[i]["payload_len"], pages[i].body().size()) << i;
    EXPECT_EQ(r[i]["body_sha1"], Sha1Hex(pages[i].body())) << i;
  }

  std::map<std::string, std::string> h1;
  for (const auto& kv : r[1]["headers"]) h1[kv[0]] = kv[1];
  EXPECT_EQ(h1.count("Content-Encoding"), 0u);
  EXPECT_EQ(h1.count("Transfer-Encoding"), 0u);
  EXPECT_EQ(h1.count("content-length"), 0u);
  EXPECT_EQ(h1.count("Injected"), 0u);
  EXPECT_EQ(h1["X-Zcrawl-Orig-Content-Encoding"], "gzip");
  EXPECT_EQ(h1["Content-Length"], "20");
  EXPECT_EQ(h1["Content-Type"], "text/html; charset=utf-8");

  EXPECT_EQ(r[2]["uri"], "http://user:pw@example.com:8080/a/b?q=1#frag");
  EXPECT_EQ(r[2]["status_line"], "HTTP/2 404 Not Found");
  EXPECT_EQ(r[2]["truncated"], "length");

  const json& q = s["requests"];
  ASSERT_EQ(q.size(), 4u);
  EXPECT_EQ(q[0]["request_line"], "GET /p0?x=1 HTTP/1.1");
  EXPECT_EQ(q[0]["headers"][1][1], "zcrawl");
  EXPECT_EQ(q[1]["request_line"], "GET /p1?x=1 HTTP/1.1");  // synthesised
  EXPECT_EQ(q[1]["headers"][0][0], "Host");
  EXPECT_EQ(q[1]["headers"][0][1], "example.com");
  EXPECT_EQ(q[2]["request_line"], "GET /a/b?q=1 HTTP/1.1");
  EXPECT_EQ(q[2]["headers"][0][1], "example.com:8080");
  EXPECT_EQ(q[3]["request_line"], "GET /p3 HTTP/1.1");
  EXPECT_EQ(q[3]["headers"], json::parse(R"([["Host", "example.com"]])"));

  ASSERT_EQ(s["metadata"].size(), 1u);
  EXPECT_EQ(s["metadata"][0]["outlinks"],
            json::array({"https://example.com/x", "https://other.example/y z",
                         "https://example.com/a  outlink: evil z"}));
}

TEST_F(WarcSinkTest, PayloadDigestFromTheFetcherIsUsedAndAWrongLengthOneIgnored) {
  // 0: the fetcher's digest, right. 1: a 5-byte value, ignored: computed.
  // 2: a 20-byte value that is not the body's: trusted as sent, which
  // proves the writer did not recompute it.
  std::vector<v1::Page> pages;
  pages.push_back(MakePage(0, RandomBytes(7000, 10)));
  pages[0].set_body_sha1(Sha1Raw(pages[0].body()));
  pages.push_back(MakePage(1, RandomBytes(7000, 11)));
  pages[1].set_body_sha1("short");
  pages.push_back(MakePage(2, RandomBytes(7000, 12)));
  const std::string other = Sha1Raw("not the body");
  pages[2].set_body_sha1(other);

  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (const auto& page : pages) ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Close().ok());

  std::vector<std::string> digests;  // WARC-Payload-Digest of each response
  for (const std::string& record : InflateGzipMembers(ReadFile(WarcFiles(dir_).at(0)))) {
    const std::string head = record.substr(0, record.find("\r\n\r\n"));
    if (head.find("WARC-Type: response") == std::string::npos) continue;
    const size_t at = head.find("WARC-Payload-Digest: ");
    ASSERT_NE(at, std::string::npos);
    digests.push_back(head.substr(at + 21, 37));
  }
  ASSERT_EQ(digests.size(), 3u);
  EXPECT_EQ(digests[0], "sha1:" + Base32Encode(Sha1Raw(pages[0].body())));
  EXPECT_EQ(digests[1], "sha1:" + Base32Encode(Sha1Raw(pages[1].body())));
  EXPECT_EQ(digests[2], "sha1:" + Base32Encode(other));
}

// The WARC header, then the block and record end, of each record of `type`.
std::vector<std::pair<std::string, std::string>> Records(const fs::path& file, const std::string& type) {
  std::vector<std::pair<std::string, std::string>> records;
  for (const std::string& record : InflateGzipMembers(ReadFile(file))) {
    const size_t end = record.find("\r\n\r\n");
    if (record.substr(0, end).find("\r\nWARC-Type: " + type + "\r\n") == std::string::npos) continue;
    records.emplace_back(record.substr(0, end), record.substr(end + 4));
  }
  return records;
}

std::vector<std::pair<std::string, std::string>> ResponseRecords(const fs::path& file) {
  return Records(file, "response");
}

std::string FieldOf(const std::string& header, const std::string& name) {
  const size_t at = header.find("\r\n" + name + ": ");
  if (at == std::string::npos) return "";
  const size_t start = at + name.size() + 4;
  return header.substr(start, header.find("\r\n", start) - start);
}

TEST_F(WarcSinkTest, BlocksCompressedByTheFetcherMakeTheSameRecords) {
  // The same pages written twice: once as the writer builds them, once with
  // the block each fetcher compressed (at several levels), given as the
  // writer gives pages (copied, and handed over). The independent reader must
  // accept both files, and the records must match byte for byte but for
  // their random record ids.
  std::vector<v1::Page> pages;
  pages.push_back(MakePage(0, "<html><a href=/x>x</a></html>"));
  pages[0].add_links()->set_url("https://example.com/x");
  pages[0].add_links()->set_url("https://example.com/a\r\noutlink: evil");
  pages[0].set_request_headers("GET /p0?x=1 HTTP/1.1\nHost: example.com\n");
  pages.push_back(MakePage(1, std::string("binary\0body\r\n\r\nmore", 20)));
  for (auto [name, value] : {std::pair{"Content-Encoding", "gzip"}, std::pair{"Transfer-Encoding", "chunked"},
                             std::pair{":status", "200"}, std::pair{"X-Evil", "a\r\nInjected: yes"}}) {
    auto* h = pages[1].add_headers();
    h->set_name(name);
    h->set_value(value);
  }
  pages.push_back(MakePage(2, RandomBytes(70000, 2)));  // past a stored block
  pages[2].set_http_status(404);
  pages[2].set_http_version("HTTP/2");
  pages[2].set_body_truncated(true);
  pages.push_back(MakePage(3, ""));
  std::string html;
  while (html.size() < 30000) html += "<li><a href=/p" + std::to_string(html.size()) + ">item</a></li>\n";
  pages.push_back(MakePage(4, html));
  for (int i = 0; i < 30; ++i) pages[4].add_links()->set_url("https://example.com/p" + std::to_string(i));
  pages[4].set_ip_address("192.0.2.9");
  for (auto& page : pages) page.set_body_sha1(Sha1Raw(page.body()));

  options_.warc_prefix = "own";
  WarcSink own(options_);
  options_.warc_prefix = "fetcher";
  WarcSink wrapped(options_);
  ASSERT_TRUE(own.Open().ok());
  ASSERT_TRUE(wrapped.Open().ok());
  const int levels[] = {1, 6, 0, 1, 12};
  for (size_t i = 0; i < pages.size(); ++i) {
    ASSERT_TRUE(own.Write(pages[i]).ok());
    v1::Page with_block = pages[i];
    GzipMemberCompressor fetcher_side(levels[i]);
    ASSERT_TRUE(AddWarcBlocks(with_block, fetcher_side).ok());
    if (i % 2 == 0) {
      ASSERT_TRUE(wrapped.Write(with_block).ok());
    } else {
      ASSERT_TRUE(wrapped.Write(with_block, TakePayload(with_block)).ok());
    }
  }
  ASSERT_TRUE(own.Close().ok());
  ASSERT_TRUE(wrapped.Close().ok());

  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["by_type"]["response"], 10);
  const auto files = WarcFiles(dir_);
  ASSERT_EQ(files.size(), 2u);
  for (const std::string type : {"response", "request", "metadata"}) {
    const auto fetcher_records = Records(files[0], type);  // "fetcher-..." sorts first
    const auto own_records = Records(files[1], type);
    ASSERT_EQ(fetcher_records.size(), type == "metadata" ? 2u : pages.size()) << type;
    ASSERT_EQ(own_records.size(), fetcher_records.size()) << type;
    for (size_t i = 0; i < own_records.size(); ++i) {
      EXPECT_EQ(fetcher_records[i].second, own_records[i].second) << type << " " << i;  // block, end
      for (const char* field : {"WARC-Target-URI", "WARC-Date", "WARC-Payload-Digest", "WARC-Block-Digest",
                                "WARC-Truncated", "WARC-IP-Address", "Content-Type", "Content-Length"}) {
        EXPECT_EQ(FieldOf(fetcher_records[i].first, field), FieldOf(own_records[i].first, field))
            << type << " " << i << " " << field;
      }
    }
  }
}

TEST_F(WarcSinkTest, FetcherBlockIsTrustedAndOneTheWriterCannotUseIsIgnored) {
  // 0: a usable block whose digest is not the block's: written as sent,
  // which proves the writer used the block and did not digest it again.
  // 1: the same wrong digest, but the page has no body_sha1: the block is
  // ignored and the record built from the body. 2: a 5-byte digest:
  // ignored too.
  const std::string wrong = Sha1Raw("not the block");
  std::vector<v1::Page> pages;
  for (int i = 0; i < 3; ++i) {
    pages.push_back(MakePage(i, RandomBytes(9000, 20 + i)));
    pages[i].set_body_sha1(Sha1Raw(pages[i].body()));
    pages[i].add_links()->set_url("https://example.com/link" + std::to_string(i));
    GzipMemberCompressor fetcher_side(1);
    ASSERT_TRUE(AddWarcBlocks(pages[i], fetcher_side).ok());
  }
  pages[0].mutable_warc_response()->set_block_sha1(wrong);
  pages[1].mutable_warc_response()->set_block_sha1(wrong);
  pages[1].clear_body_sha1();
  pages[2].mutable_warc_response()->set_block_sha1("short");
  // The request's and metadata's blocks the same way, each on its own: the
  // request's is used for page 1 too.
  pages[0].mutable_warc_request()->set_block_sha1(wrong);
  pages[1].mutable_warc_request()->set_block_sha1(wrong);
  pages[2].mutable_warc_request()->set_block_sha1("short");
  pages[0].mutable_warc_metadata()->set_block_sha1(wrong);

  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (const auto& page : pages) ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Close().ok());

  const auto records = ResponseRecords(WarcFiles(dir_).at(0));
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(FieldOf(records[0].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(wrong));
  for (size_t i = 1; i < 3; ++i) {
    const std::string block = records[i].second.substr(0, records[i].second.size() - 4);
    EXPECT_EQ(FieldOf(records[i].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(Sha1Raw(block))) << i;
    EXPECT_TRUE(block.ends_with(pages[i].body())) << i;
  }
  const auto metadata = Records(WarcFiles(dir_).at(0), "metadata");
  ASSERT_EQ(metadata.size(), 3u);
  EXPECT_EQ(FieldOf(metadata[0].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(wrong));
  EXPECT_EQ(FieldOf(metadata[1].first, "WARC-Block-Digest"),
            "sha1:" + Base32Encode(Sha1Raw("outlink: https://example.com/link1\r\n")));
  const auto requests = Records(WarcFiles(dir_).at(0), "request");
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(FieldOf(requests[0].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(wrong));
  EXPECT_EQ(FieldOf(requests[1].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(wrong));
  {
    const std::string block = requests[2].second.substr(0, requests[2].second.size() - 4);
    EXPECT_EQ(FieldOf(requests[2].first, "WARC-Block-Digest"), "sha1:" + Base32Encode(Sha1Raw(block)));
  }
}

TEST(WarcSinkWantsTest, AsksFetchersForBlocksAtItsLevelUnlessStoredOrTurnedOff) {
  SinkOptions options;
  auto wanted = [&](int level) {
    return WarcSink(options, level).needs().wants.warc_block_level();
  };
  EXPECT_EQ(wanted(1), 1u);
  EXPECT_EQ(wanted(9), 9u);
  EXPECT_EQ(wanted(0), 0u);  // stored records: nothing to spare the writer
  options.fetcher_compression = false;
  EXPECT_EQ(wanted(1), 0u);
}

TEST_F(WarcSinkTest, FileNameIsPrefixUtcStampAndSerial) {
  FakeClock clock;  // wall time 1700001000000 = 2023-11-14T22:30:00Z
  options_.warc_max_bytes = 1;  // one page per file
  // No encoding threads: each Write reaches the file before it returns.
  WarcSink sink(options_, kDefaultWarcGzipLevel, clock, /*threads=*/0);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0, "x")).ok());
  EXPECT_EQ(fs::path(sink.current_path()).filename(), "test-20231114223000-00000.warc.gz");
  clock.Advance(61'000);
  ASSERT_TRUE(sink.Write(MakePage(1, "x")).ok());
  EXPECT_EQ(fs::path(sink.current_path()).filename(), "test-20231114223101-00001.warc.gz");
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_TRUE(sink.current_path().empty());
}

TEST_F(WarcSinkTest, PageWithoutFetchTimeIsDatedByTheClock) {
  FakeClock clock;
  WarcSink sink(options_, kDefaultWarcGzipLevel, clock);
  ASSERT_TRUE(sink.Open().ok());
  v1::Page page = MakePage(0, "x");
  page.set_fetched_at_ms(0);
  ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Close().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["responses"][0]["date"], "2023-11-14T22:30:00.000Z");
}

TEST_F(WarcSinkTest, FlushedPagesAreReadableBeforeClose) {
  WarcSink sink(options_, kDefaultWarcGzipLevel, RealClock::Get(), /*threads=*/0);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i, "body")).ok());
  // Buffered, not on disk yet.
  EXPECT_EQ(fs::file_size(sink.current_path()), 0u);
  ASSERT_TRUE(sink.Flush().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["by_type"]["response"], 3);
  ASSERT_TRUE(sink.Close().ok());
}

TEST_F(WarcSinkTest, RotatesBeforeAFileWouldPassTheLimit) {
  options_.warc_max_bytes = 64 * 1024;
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  // Random bodies do not compress: about 8 KiB per page on disk.
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(8000, i))).ok());
  ASSERT_TRUE(sink.Close().ok());

  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["by_type"]["response"], 60);
  const json& files = check.summary["files"];
  EXPECT_GE(files.size(), 7u);  // 60 * 8 KiB / 64 KiB
  EXPECT_EQ(check.summary["by_type"]["warcinfo"], files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    const json& f = files[i];
    EXPECT_EQ(f["first_type"], "warcinfo");
    EXPECT_LE(f["bytes"].get<uint64_t>(), options_.warc_max_bytes) << f["path"];
    // Not rotated early either: another page would not have fitted.
    if (i + 1 < files.size()) {
      EXPECT_GT(f["bytes"].get<uint64_t>(), options_.warc_max_bytes - 9000) << f["path"];
    }
  }
  // Serials count up from 0 without gaps.
  const auto paths = WarcFiles(dir_);
  for (size_t i = 0; i < paths.size(); ++i) {
    char suffix[32];
    snprintf(suffix, sizeof(suffix), "-%05zu.warc.gz", i);
    EXPECT_TRUE(paths[i].filename().string().ends_with(suffix)) << paths[i];
  }
}

TEST_F(WarcSinkTest, PageLargerThanTheLimitGetsAFileOfItsOwn) {
  options_.warc_max_bytes = 1024;
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(4000, i))).ok());
  ASSERT_TRUE(sink.Close().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  ASSERT_EQ(check.summary["files"].size(), 3u);
  for (const json& f : check.summary["files"]) EXPECT_EQ(f["records"], 3);  // info, resp, req
}

TEST_F(WarcSinkTest, ReopenNeverOverwritesOrDeletesExistingFiles) {
  {
    WarcSink sink(options_);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(MakePage(0, "first run")).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  // Someone else's file with a higher serial and the same time stamp form.
  const fs::path foreign = dir_ / "test-20000101000000-00007.warc.gz";
  std::ofstream(foreign) << "not ours";
  const auto before = WarcFiles(dir_);
  ASSERT_EQ(before.size(), 2u);
  std::map<fs::path, std::string> contents;
  for (const auto& p : before) contents[p] = ReadFile(p);

  WarcSink sink(options_, kDefaultWarcGzipLevel, RealClock::Get(), /*threads=*/0);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(1, "second run")).ok());
  EXPECT_TRUE(sink.current_path().ends_with("-00008.warc.gz")) << sink.current_path();
  ASSERT_TRUE(sink.Close().ok());

  // Ours is untouched; the foreign file, which no index line names, was set
  // aside whole (warc_recovery.h), never changed or deleted, and its serial
  // still counts.
  const auto after = WarcFiles(dir_);
  ASSERT_EQ(after.size(), 2u);
  for (const auto& [path, data] : contents) {
    const fs::path now = path == foreign ? fs::path(path.string() + ".unacknowledged") : path;
    EXPECT_EQ(ReadFile(now), data) << now;
  }
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["by_type"]["response"], 2);
}

TEST_F(WarcSinkTest, OpenAndCloseWithoutPagesLeavesNoFile) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  ASSERT_TRUE(sink.Close().ok());  // idempotent
  EXPECT_TRUE(fs::is_directory(dir_));
  EXPECT_TRUE(WarcFiles(dir_).empty());
}

TEST_F(WarcSinkTest, WriteWithoutOpenFails) {
  WarcSink sink(options_);
  EXPECT_EQ(sink.Write(MakePage(0, "x")).code(), StatusCode::kInternal);
}

TEST_F(WarcSinkTest, OpenFailsWhenTheFolderCannotBeCreated) {
  std::ofstream(dir_.parent_path() / "file") << "x";
  options_.out_dir = (dir_.parent_path() / "file" / "sub").string();
  WarcSink sink(options_);
  EXPECT_FALSE(sink.Open().ok());
}

using zcrawl::testing::FileSizeLimit;

TEST_F(WarcSinkTest, FailedFlushCutsTheFileBackAndTheNextPagesGoToANewFile) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0, RandomBytes(3000, 0))).ok());
  ASSERT_TRUE(sink.Write(MakePage(1, RandomBytes(3000, 1))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const fs::path first = sink.current_path();
  const uintmax_t durable = fs::file_size(first);
  {
    FileSizeLimit limit(durable + 5000);
    for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
    const Status flushed = sink.Flush();
    EXPECT_FALSE(flushed.ok());
  }
  EXPECT_EQ(fs::file_size(first), durable);  // unacknowledged pages cut away
  // The retried pages land in a new file.
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_NE(sink.current_path(), first.string());
  ASSERT_TRUE(sink.Close().ok());

  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["files"].size(), 2u);
  EXPECT_EQ(check.summary["by_type"]["response"], 6);
}


std::vector<std::string> StoredKeys(WarcSink& sink) {
  std::vector<std::string> keys;
  EXPECT_TRUE(sink.ForEachStoredKey([&](const std::string& key) { keys.push_back(key); }).ok());
  return keys;
}

std::vector<std::string> UrlsOf(int from, int to) {
  std::vector<std::string> urls;
  for (int i = from; i < to; ++i) urls.push_back(MakePage(i, "").url());
  return urls;
}

TEST_F(WarcSinkTest, WorkerThreadsKeepPagesInWriteOrderAcrossFiles) {
  options_.warc_max_bytes = 64 * 1024;
  WarcSink sink(options_, kDefaultWarcGzipLevel, RealClock::Get(), /*threads=*/3);
  ASSERT_TRUE(sink.Open().ok());
  std::vector<std::string> expected;
  for (int i = 0; i < 300; ++i) {
    // Sizes vary a lot, so later pages often finish before earlier ones.
    const size_t size = (i % 7 == 0) ? 40000 : 50 + (i % 13) * 300;
    ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(size, i))).ok());
    expected.push_back(MakePage(i, "").final_url());
    if (i % 64 == 63) {
      ASSERT_TRUE(sink.Flush().ok());
    }
  }
  ASSERT_TRUE(sink.Close().ok());

  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  EXPECT_GT(check.summary["files"].size(), 5u);
  std::vector<std::string> uris;
  for (const json& r : check.summary["responses"]) uris.push_back(r["uri"]);
  EXPECT_EQ(uris, expected);
  for (const json& f : check.summary["files"]) {
    EXPECT_LE(f["bytes"].get<uint64_t>(), options_.warc_max_bytes) << f["path"];
  }
}

TEST_F(WarcSinkTest, EveryGzipLevelWritesRecordsTheReaderAccepts) {
  for (int level : {0, 1, 6, 9, 12}) {
    options_.warc_prefix = "level" + std::to_string(level);
    WarcSink sink(options_, level);
    ASSERT_TRUE(sink.Open().ok());
    ASSERT_TRUE(sink.Write(MakePage(0, std::string(30000, 'a'))).ok());
    ASSERT_TRUE(sink.Write(MakePage(1, RandomBytes(3000, 1))).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2);
  EXPECT_EQ(check.summary["by_type"]["response"], 10);
  std::map<std::string, uint64_t> bytes;
  for (const json& f : check.summary["files"]) {
    bytes[fs::path(f["path"].get<std::string>()).filename().string().substr(0, 6)] = f["bytes"];
  }
  EXPECT_GT(bytes["level0"], 33000u);  // stored
  EXPECT_LT(bytes["level1"], 12000u);  // compressed
}

TEST_F(WarcSinkTest, ReopenedSinkListsTheKeysItStoredAndWhereTheyAre) {
  {
    WarcSink sink(options_);
    ASSERT_TRUE(sink.Open().ok());
    EXPECT_TRUE(StoredKeys(sink).empty());
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(2000, i))).ok());
    ASSERT_TRUE(sink.Flush().ok());
    // The dedup key, when given, is what is listed.
    v1::Page keyed = MakePage(5, "k");
    keyed.set_dedup_key("lease:5");
    ASSERT_TRUE(sink.Write(keyed).ok());
    ASSERT_TRUE(sink.Close().ok());
  }
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  std::vector<std::string> expected = UrlsOf(0, 5);
  expected.push_back("lease:5");
  EXPECT_EQ(StoredKeys(sink), expected);
  ASSERT_TRUE(sink.Close().ok());

  // Each line's range is the page's records, starting with its response.
  std::ifstream index(sink.index_path());
  std::string line;
  int lines = 0;
  while (std::getline(index, line)) {
    const json entry = json::parse(line);
    const std::string data = ReadFile(dir_ / entry["file"].get<std::string>());
    const auto members = InflateGzipMembers(data.substr(entry["offset"], entry["length"]));
    ASSERT_EQ(members.size(), 2u) << line;  // response, request
    EXPECT_TRUE(members[0].find("WARC-Type: response\r\n") != std::string::npos) << line;
    EXPECT_TRUE(members[1].find("WARC-Type: request\r\n") != std::string::npos) << line;
    EXPECT_TRUE(members[0].find("/p" + std::to_string(lines) + "?x=1") != std::string::npos) << line;
    ++lines;
  }
  EXPECT_EQ(lines, 6);
}

TEST_F(WarcSinkTest, TornLastIndexLineIsIgnoredAndCutOnOpen) {
  std::string index_path;
  {
    WarcSink sink(options_);
    ASSERT_TRUE(sink.Open().ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i, "body")).ok());
    ASSERT_TRUE(sink.Close().ok());
    index_path = sink.index_path();
  }
  // A crash mid-append: half a line, no newline.
  std::ofstream(index_path, std::ios::app) << R"({"url":"http://example.com/torn","file":"te)";
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 3));
  ASSERT_TRUE(sink.Write(MakePage(3, "body")).ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 4));
  std::ifstream index(index_path);
  std::string line;
  while (std::getline(index, line)) {
    EXPECT_FALSE(json::parse(line, nullptr, false).is_discarded()) << line;
  }
}

TEST_F(WarcSinkTest, IndexLinesWhoseWarcBytesAreGoneAreNotListed) {
  options_.warc_max_bytes = 1;  // one page per file
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Close().ok());
  const auto files = WarcFiles(dir_);
  ASSERT_EQ(files.size(), 3u);
  fs::remove(files[0]);
  fs::resize_file(files[2], fs::file_size(files[2]) - 10);
  EXPECT_EQ(StoredKeys(sink), UrlsOf(1, 2));
}

TEST_F(WarcSinkTest, FailedFlushLeavesOnlyDurablePagesInTheIndex) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  {
    FileSizeLimit limit(fs::file_size(sink.current_path()) + 5000);
    for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
    EXPECT_FALSE(sink.Flush().ok());
  }
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 2));
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 6));
  ASSERT_TRUE(sink.Close().ok());
}

TEST_F(WarcSinkTest, PipelinedFlushMakesEachWindowDurableWhileTheNextIsWritten) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.BeginFlush().ok());
  // The next window is written while the first syncs.
  for (int i = 3; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  EXPECT_FALSE(sink.BeginFlush().ok());  // one window in flight at a time
  EXPECT_EQ(sink.pipelined(), &sink) << "it flushes in the background";
  // Ready by itself once the disk is done, without FinishFlush.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!sink.FlushReady() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(sink.FlushReady());
  ASSERT_TRUE(sink.FinishFlush().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 3));  // the first window only
  ASSERT_TRUE(sink.BeginFlush().ok());
  ASSERT_TRUE(sink.FinishFlush().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 6));
  ASSERT_TRUE(sink.Close().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  EXPECT_EQ(check.summary["files"].size(), 1u);
  EXPECT_EQ(check.summary["by_type"]["response"], 6);
}

TEST_F(WarcSinkTest, RotationWhileAFlushIsInFlightKeepsEveryPageInOrder) {
  options_.warc_max_bytes = 64 * 1024;
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  int next = 0;
  for (int window = 0; window < 4; ++window) {
    for (int i = 0; i < 20; ++i, ++next) ASSERT_TRUE(sink.Write(MakePage(next, RandomBytes(8000, next))).ok());
    if (window > 0) {
      ASSERT_TRUE(sink.FinishFlush().ok());
    }
    ASSERT_TRUE(sink.BeginFlush().ok());
  }
  ASSERT_TRUE(sink.FinishFlush().ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, next));
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  EXPECT_GE(check.summary["files"].size(), 10u);
  EXPECT_EQ(check.summary["by_type"]["response"], next);
  for (int i = 0; i < next; ++i) {
    EXPECT_EQ(check.summary["responses"][i]["uri"], MakePage(i, "").final_url()) << i;
  }
}

TEST_F(WarcSinkTest, FailedFlushInFlightFailsTheWindowWrittenAfterItToo) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const fs::path warc = sink.current_path();
  const uintmax_t durable = fs::file_size(warc);
  // Make the flush thread's index write the one that fails: pad the index
  // (lines that are not JSON are skipped) past what the WARC file will be.
  {
    std::ofstream pad(sink.index_path(), std::ios::app);
    pad << std::string(200000, '#') << "\n";
  }
  {
    FileSizeLimit limit(fs::file_size(sink.index_path()) + 50);
    for (int i = 2; i < 4; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
    ASSERT_TRUE(sink.BeginFlush().ok());  // the WARC bytes were written
    for (int i = 4; i < 6; ++i) (void)sink.Write(MakePage(i, RandomBytes(3000, i)));
    EXPECT_FALSE(sink.FinishFlush().ok());  // the index line was not
    // The window written meanwhile sat behind the cut: it fails as well.
    EXPECT_FALSE(sink.Flush().ok());
  }
  EXPECT_EQ(fs::file_size(warc), durable);
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 2));
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(sink.Write(MakePage(i, RandomBytes(3000, i))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 6));
  ASSERT_TRUE(sink.Close().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  EXPECT_EQ(check.summary["by_type"]["response"], 6);
}

TEST_F(WarcSinkTest, WriteErrorBeforeFlushFailsTheWholeWindow) {
  WarcSink sink(options_);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0, RandomBytes(3000, 0))).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const uintmax_t durable = fs::file_size(sink.current_path());
  {
    // Pages of 1 MB: the sink writes its 4 MB buffer from Write and fails
    // there, after earlier pages of the window were accepted.
    FileSizeLimit limit(durable + (2 << 20));
    Status failed = Status::Ok();
    int i = 1;
    for (; i < 40 && failed.ok(); ++i) failed = sink.Write(MakePage(i, RandomBytes(1 << 20, i)));
    EXPECT_FALSE(failed.ok());
    EXPECT_FALSE(sink.Write(MakePage(i, "after the failure")).ok());  // window refused
    // None of the window's pages may be acknowledged.
    EXPECT_FALSE(sink.Flush().ok());
  }
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 1));
  // The next window works again.
  ASSERT_TRUE(sink.Write(MakePage(1, "again")).ok());
  ASSERT_TRUE(sink.Flush().ok());
  EXPECT_EQ(StoredKeys(sink), UrlsOf(0, 2));
  ASSERT_TRUE(sink.Close().ok());
  const testing::WarcCheckResult check = RunChecker(dir_);
  ASSERT_EQ(check.exit_code, 0) << check.summary.dump(2).substr(0, 4000);
  EXPECT_EQ(check.summary["by_type"]["response"], 2);
}

}  // namespace
}  // namespace zcrawl::writer
