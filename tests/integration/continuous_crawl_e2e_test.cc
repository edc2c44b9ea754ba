// End-to-end: `./run crawl --continuous` with the real processes against a
// local server whose pages behave as a site's do: some answer 304 to their
// ETag or Last-Modified, one changes on every request. The crawl keeps
// going, asks every page again conditionally, stores a server-not-modified
// revisit for each 304 and every changed body whole; stopped (SIGTERM) and
// run again, it resumes its schedule: the first request of each page in
// the second run is already conditional.
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr const char* kLastModified = "Wed, 02 Dec 2026 10:00:00 GMT";
constexpr const char* kNotModified = "http://netpreserve.org/warc/1.1/revisits/server-not-modified";

class ContinuousCrawlE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("continuous_e2e");
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) { return Serve(r); });
    server_->Start();
  }
  void TearDown() override { server_->Stop(); }

  TestResponse Serve(const TestRequest& request) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string& path = request.target;
    conditions_[path].push_back(request.Header("if-none-match") + "|" + request.Header("if-modified-since"));
    TestResponse r;
    r.headers = {{"Content-Type", "text/html"}};
    if (path == "/") {
      r.headers.push_back({"ETag", "\"idx\""});
      r.body = "<a href=/same.html>s</a><a href=/lastmod.html>l</a><a href=/changing.html>c</a>";
      if (request.Header("if-none-match") == "\"idx\"") r.status = 304;
    } else if (path == "/same.html") {
      r.headers.push_back({"ETag", "\"s1\""});
      r.body = "<p>the same, known by its ETag</p>";
      if (request.Header("if-none-match") == "\"s1\"") r.status = 304;
    } else if (path == "/lastmod.html") {
      r.headers.push_back({"Last-Modified", kLastModified});
      r.body = "<p>the same, known by its date</p>";
      if (request.Header("if-modified-since") == kLastModified) r.status = 304;
    } else if (path == "/changing.html") {
      r.body = "<p>version " + std::to_string(conditions_[path].size()) + "</p>";
    } else {
      r.status = 404;
      r.body = "not found";
    }
    if (r.status == 304) r.body.clear();
    return r;
  }

  size_t Requests(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    return conditions_[path].size();
  }

  // Runs the continuous crawl until every page was asked `rounds` more
  // times and reported, then stops it as an operator would (SIGTERM). A
  // page is asked again only once its last fetch was reported (the
  // refetch is scheduled then), so one request more than `rounds` proves
  // the `rounds` before it were counted; the server seeing the last of
  // them did not (under load its report could still be on its way).
  void CrawlFor(size_t rounds, const std::string& log) {
    std::map<std::string, size_t> target;
    for (const char* path : {"/", "/same.html", "/lastmod.html", "/changing.html"}) {
      target[path] = Requests(path) + rounds + 1;
    }
    TestProcess crawl;
    crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out", "--format", "warc",
                 "--continuous", "--refetch-min", "1s", "--refetch-max", "2s", "--fetchers", "1", "--threads", "4",
                 "--delay-ms", "0", "--per-host", "4"},
                log, {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
    for (int waited = 0; waited < 60000; waited += 100) {
      bool all = true;
      for (const auto& [path, n] : target) all = all && Requests(path) >= n;
      if (all || !crawl.running()) break;
      usleep(100 * 1000);
    }
    ASSERT_TRUE(crawl.running()) << "a continuous crawl ended by itself\n" << ReadFile(log);
    for (const auto& [path, n] : target) ASSERT_GE(Requests(path), n) << path << "\n" << ReadFile(log);
    crawl.Signal(SIGTERM);
    EXPECT_EQ(crawl.Wait(60000), std::optional<int>(130)) << ReadFile(log);
  }

  nlohmann::json CheckWarc() {
    const std::string out = dir_ + "/out";
    TestProcess check;
    check.Start({"/usr/bin/env", "python3", SourceDir() + "/tests/writer/warc_check.py", out}, dir_ + "/check.json");
    EXPECT_EQ(check.Wait(60000), std::optional<int>(0)) << ReadFile(dir_ + "/check.json").substr(0, 4000);
    return nlohmann::json::parse(ReadFile(dir_ + "/check.json"), nullptr, false);
  }

  std::string Url(const std::string& path) const { return server_->origin() + path; }

  std::string dir_;
  std::unique_ptr<TestHttpServer> server_;
  std::mutex mutex_;
  std::map<std::string, std::vector<std::string>> conditions_;  // path -> "INM|IMS" per request
};

TEST_F(ContinuousCrawlE2eTest, PagesAreAskedAgainConditionallyAndOnlyChangesAreStoredAcrossARestart) {
  CrawlFor(3, dir_ + "/first.log");
  size_t first_run;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    first_run = conditions_["/same.html"].size();
    // After each page's first fetch, every request is conditional.
    EXPECT_EQ(conditions_["/same.html"][0], "|");
    for (size_t i = 1; i < first_run; ++i) EXPECT_EQ(conditions_["/same.html"][i], "\"s1\"|") << i;
    for (size_t i = 1; i < conditions_["/lastmod.html"].size(); ++i) {
      EXPECT_EQ(conditions_["/lastmod.html"][i], std::string("|") + kLastModified) << i;
    }
  }
  // Resumed: the schedule and the validators came back from the state.
  CrawlFor(2, dir_ + "/second.log");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ASSERT_GT(conditions_["/same.html"].size(), first_run);
    EXPECT_EQ(conditions_["/same.html"][first_run], "\"s1\"|") << "the resumed crawl's first request";
  }

  // The frontier's summary of the second run counts what its fetches found.
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_TRUE(summary.is_object() && summary.contains("refetches"));
  EXPECT_GE(summary["refetches"]["unchanged"].get<int>(), 6) << "3 unchanging pages, 2 rounds";
  EXPECT_GE(summary["refetches"]["changed"].get<int>(), 2) << "the changing page, 2 rounds";
  EXPECT_EQ(summary["finished"], false);
  // The writer's: each 304 saved its page's earlier body.
  const auto writer = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/writer-summary.json"), nullptr, false);
  ASSERT_TRUE(writer.is_object()) << ReadFile(dir_ + "/out/.zcrawl/writer-summary.json");
  EXPECT_GE(writer["revisit_bytes_saved"].get<int>(), 6 * 30) << "6 or more 304s of bodies of 30 bytes or more";

  // The schedule as `./run inspect schedule` lists it: every page, the
  // changing one at the shortest interval, the others grown to the longest.
  TestProcess inspect;
  inspect.Start({SourceDir() + "/run", "inspect", "schedule", dir_ + "/out/.zcrawl"}, dir_ + "/schedule.txt",
                {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  ASSERT_EQ(inspect.Wait(30000), std::optional<int>(0)) << ReadFile(dir_ + "/schedule.txt");
  const std::string schedule = ReadFile(dir_ + "/schedule.txt");
  EXPECT_NE(schedule.find("\t1s\t" + Url("/changing.html") + "\n"), std::string::npos) << schedule;
  EXPECT_NE(schedule.find("\t2s\t" + Url("/same.html") + "\n"), std::string::npos) << schedule;
  EXPECT_NE(schedule.find("4 URLs scheduled"), std::string::npos) << schedule;

  const nlohmann::json warc = CheckWarc();
  ASSERT_TRUE(warc.is_object());
  std::map<std::string, std::vector<nlohmann::json>> responses, revisits;
  for (const auto& r : warc["responses"]) responses[r["uri"]].push_back(r);
  for (const auto& r : warc["revisits"]) revisits[r["uri"]].push_back(r);
  // An unchanging page: its body once, then a not-modified revisit per
  // 304, each naming that first capture.
  for (const char* path : {"/same.html", "/lastmod.html"}) {
    ASSERT_EQ(responses[Url(path)].size(), 1u) << path;
    EXPECT_GE(revisits[Url(path)].size(), 4u) << path;
    for (const auto& revisit : revisits[Url(path)]) {
      EXPECT_EQ(revisit["profile"], kNotModified) << path;
      EXPECT_EQ(revisit["refers_to_uri"], Url(path));
      EXPECT_EQ(revisit["payload_digest"], responses[Url(path)][0]["payload_digest"]) << path;
      EXPECT_EQ(revisit["refers_to_date"], responses[Url(path)][0]["date"]) << path << ": the capture with the body";
    }
  }
  // The changing page: a whole capture per fetch, each body different.
  std::set<std::string> bodies;
  for (const auto& r : responses[Url("/changing.html")]) bodies.insert(r["payload_digest"].get<std::string>());
  EXPECT_GE(bodies.size(), 5u);
  EXPECT_EQ(bodies.size(), responses[Url("/changing.html")].size()) << "a body stored twice";
  EXPECT_TRUE(revisits[Url("/changing.html")].empty());
  // Each capture once: no two records of a URL at the same time.
  std::set<std::pair<std::string, std::string>> captures;
  for (const auto* kind : {&responses, &revisits}) {
    for (const auto& [uri, records] : *kind) {
      for (const auto& r : records) {
        EXPECT_TRUE(captures.insert({uri, r["date"].get<std::string>()}).second) << uri << " twice at " << r["date"];
      }
    }
  }
}

}  // namespace
}  // namespace zcrawl::testing
