// End-to-end: `./run crawl --recrawl OLD --out NEW` against a local server
// whose pages change between two crawls: some unchanged with an ETag, some
// with Last-Modified only, some changed, some removed (404, 410), some the
// same body under several URLs, one new. The second crawl asks
// conditionally, stores a server-not-modified revisit for each 304, an
// identical-payload revisit for each payload the first crawl holds, and
// the body only of what changed: no body is stored twice across the two.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr const char* kLastModified = "Wed, 02 Dec 2026 10:00:00 GMT";

class RecrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("recrawl");
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) { return Serve(r); });
    server_->Start();
  }
  void TearDown() override { server_->Stop(); }

  TestResponse Serve(const TestRequest& request) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string& path = request.target;
    conditions_[round_][path] = request.Header("if-none-match") + "|" + request.Header("if-modified-since");
    TestResponse r;
    r.headers = {{"Content-Type", "text/html"}};
    const bool second = round_ == 2;
    if (path == "/") {
      r.headers.push_back({"ETag", second ? "\"idx-2\"" : "\"idx-1\""});
      r.body = "<a href=/etag.html>e</a><a href=/lastmod.html>l</a><a href=/changed.html>c</a>"
               "<a href=/removed.html>r</a><a href=/gone.html>g</a><a href=/dup-a.html>a</a>"
               "<a href=/dup-b.html>b</a><a href=/plain.html>p</a>";
      if (second) r.body += "<a href=/new.html>n</a>";
      if (second && request.Header("if-none-match") == "\"idx-2\"") r.status = 304;
    } else if (path == "/etag.html") {
      r.headers.push_back({"ETag", "\"e1\""});
      r.body = "<p>the same, known by its ETag</p>";
      if (request.Header("if-none-match") == "\"e1\"") r.status = 304;
    } else if (path == "/lastmod.html") {
      r.headers.push_back({"Last-Modified", kLastModified});
      r.body = "<p>the same, known by its date</p>";
      if (request.Header("if-modified-since") == kLastModified) r.status = 304;
    } else if (path == "/changed.html") {
      r.headers.push_back({"ETag", second ? "\"c2\"" : "\"c1\""});
      r.body = second ? "<p>second version</p>" : "<p>first version</p>";
      if (request.Header("if-none-match") == (second ? "\"c2\"" : "\"c1\"")) r.status = 304;
    } else if (path == "/removed.html") {
      r.status = second ? 410 : 200;
      r.body = second ? "gone for good" : "<p>soon removed</p>";
    } else if (path == "/gone.html") {
      r.status = second ? 404 : 200;
      r.body = second ? "not here" : "<p>soon missing</p>";
    } else if (path == "/dup-a.html" || path == "/dup-b.html" || path == "/plain.html") {
      r.body = path == "/plain.html" ? "<p>no validators, never changes</p>" : "<p>one body, two URLs</p>";
    } else if (path == "/new.html" && second) {
      r.body = "<p>new in the second round</p>";
    } else {
      r.status = 404;
      r.body = "not found";
    }
    if (r.status == 304) r.body.clear();
    return r;
  }

  void Crawl(int round, const std::vector<std::string>& args, const std::string& log) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      round_ = round;
    }
    std::vector<std::string> command = {SourceDir() + "/run", "crawl", "--fetchers", "1", "--threads", "4",
                                        "--delay-ms", "0", "--per-host", "4"};
    command.insert(command.end(), args.begin(), args.end());
    TestProcess crawl;
    crawl.Start(command, log, {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    ASSERT_EQ(crawl.Wait(120000), std::optional<int>(0)) << ReadFile(log);
  }

  // warc_check.py's summary with details of the WARC files in `dir`.
  nlohmann::json CheckWarc(const std::string& dir) {
    TestProcess check;
    check.Start({"/usr/bin/env", "python3", SourceDir() + "/tests/writer/warc_check.py", dir}, dir + ".check");
    EXPECT_EQ(check.Wait(60000), std::optional<int>(0)) << ReadFile(dir + ".check").substr(0, 4000);
    return nlohmann::json::parse(ReadFile(dir + ".check"), nullptr, false);
  }

  std::string Url(const std::string& path) const { return server_->origin() + path; }

  std::string dir_;
  std::unique_ptr<TestHttpServer> server_;
  std::mutex mutex_;
  int round_ = 1;
  std::map<int, std::map<std::string, std::string>> conditions_;  // round -> path -> "INM|IMS"
};

TEST_F(RecrawlTest, WarcRecrawlStoresOnlyWhatChangedAndRevisitsTheRest) {
  const std::string first = dir_ + "/first", second = dir_ + "/second";
  Crawl(1, {Url("/"), "--out", first, "--format", "warc"}, dir_ + "/first.log");
  Crawl(2, {"--recrawl", first, "--out", second, "--format", "warc"}, dir_ + "/second.log");

  {
    std::lock_guard<std::mutex> lock(mutex_);
    // The second crawl asked conditionally, with what the first stored.
    EXPECT_EQ(conditions_[2]["/etag.html"], "\"e1\"|");
    EXPECT_EQ(conditions_[2]["/lastmod.html"], std::string("|") + kLastModified);
    EXPECT_EQ(conditions_[2]["/changed.html"], "\"c1\"|");
    EXPECT_EQ(conditions_[2]["/"], "\"idx-1\"|");
    EXPECT_EQ(conditions_[2]["/plain.html"], "|");
    EXPECT_EQ(conditions_[2].count("/new.html"), 1u) << "a link of the changed index, crawled as usual";
    for (const auto& [path, condition] : conditions_[1]) EXPECT_EQ(condition, "|") << path;
  }

  const nlohmann::json one = CheckWarc(first);
  const nlohmann::json two = CheckWarc(second);
  ASSERT_TRUE(one.is_object() && two.is_object());
  std::map<std::string, nlohmann::json> first_responses;  // uri -> record
  for (const auto& r : one["responses"]) first_responses[r["uri"]] = r;
  for (const auto& r : one["revisits"]) first_responses.emplace(r["uri"], r);
  std::map<std::string, nlohmann::json> second_responses, second_revisits;
  for (const auto& r : two["responses"]) second_responses[r["uri"]] = r;
  for (const auto& r : two["revisits"]) second_revisits[r["uri"]] = r;

  // 304s: server-not-modified revisits naming the first capture.
  for (const char* path : {"/etag.html", "/lastmod.html"}) {
    ASSERT_TRUE(second_revisits.count(Url(path))) << path;
    const auto& revisit = second_revisits[Url(path)];
    EXPECT_EQ(revisit["profile"], "http://netpreserve.org/warc/1.1/revisits/server-not-modified") << path;
    EXPECT_EQ(revisit["refers_to_uri"], Url(path));
    EXPECT_EQ(revisit["refers_to_date"], first_responses[Url(path)]["date"]) << path;
    EXPECT_EQ(revisit["payload_digest"], first_responses[Url(path)]["payload_digest"]) << path;
    EXPECT_EQ(revisit["status_line"].get<std::string>().substr(9, 3), "304");
  }
  // Unchanged bodies without validators: identical-payload revisits of the
  // first crawl's records (through its CDXJ as --dedup-index).
  for (const char* path : {"/dup-a.html", "/dup-b.html", "/plain.html"}) {
    ASSERT_TRUE(second_revisits.count(Url(path))) << path;
    EXPECT_EQ(second_revisits[Url(path)]["profile"],
              "http://netpreserve.org/warc/1.1/revisits/identical-payload-digest") << path;
  }
  // What changed, went or came is stored whole, with its status.
  for (const auto& [path, status] : std::map<std::string, int>{
           {"/", 200}, {"/changed.html", 200}, {"/removed.html", 410}, {"/gone.html", 404}, {"/new.html", 200}}) {
    ASSERT_TRUE(second_responses.count(Url(path))) << path;
    EXPECT_EQ(second_responses[Url(path)]["status"], status) << path;
  }
  EXPECT_EQ(second_responses.size() + second_revisits.size(), 10u);
  // The summary reports the revisits and the bytes they did not store
  // again (the three unchanged bodies without validators; a 304's body
  // size is not known to an earlier crawl's WARC indexes).
  const size_t saved = 2 * std::string("<p>one body, two URLs</p>").size() +
                       std::string("<p>no validators, never changes</p>").size();
  EXPECT_NE(ReadFile(dir_ + "/second.log").find("5 revisit records saved " + std::to_string(saved) + " bytes"),
            std::string::npos)
      << ReadFile(dir_ + "/second.log");
  // No payload stored twice across both crawls.
  std::set<std::string> stored;
  for (const auto* crawl : {&one, &two}) {
    for (const auto& r : (*crawl)["responses"]) {
      if (r["payload_len"] == 0) continue;
      EXPECT_TRUE(stored.insert(r["payload_digest"].get<std::string>()).second)
          << r["uri"] << " stored a payload already stored";
    }
  }
}

TEST_F(RecrawlTest, FilesRecrawlMarksUnchangedPagesAndWritesNoFileForThem) {
  const std::string first = dir_ + "/first", second = dir_ + "/second";
  Crawl(1, {Url("/"), "--out", first}, dir_ + "/first.log");
  Crawl(2, {"--recrawl", first, "--out", second}, dir_ + "/second.log");
  const auto one = ReadIndex(first);
  const auto two = ReadIndex(second);
  ASSERT_TRUE(two.count(Url("/etag.html")));
  const std::string lines = ReadFile(second + "/index.jsonl");
  for (const auto& [url, entries] : two) {
    const IndexEntry& e = entries[0];
    const bool unchanged = url == Url("/etag.html") || url == Url("/lastmod.html");
    if (unchanged) EXPECT_EQ(e.status, 304) << url;
    EXPECT_EQ(e.file.empty(), unchanged) << url << ": a file only for what was fetched whole";
  }
  EXPECT_NE(lines.find("\"unchanged\":true"), std::string::npos);
  EXPECT_EQ(two.size(), one.size() + 1) << "every earlier URL, and the new one";

  // Recrawling into the folder being recrawled is refused, clearly.
  TestProcess same;
  same.Start({SourceDir() + "/run", "crawl", "--recrawl", first, "--out", first}, dir_ + "/same.log",
             {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  EXPECT_EQ(same.Wait(30000), std::optional<int>(2));
  EXPECT_NE(ReadFile(dir_ + "/same.log").find("a recrawl writes a new one"), std::string::npos);
}

}  // namespace
}  // namespace zcrawl::testing
