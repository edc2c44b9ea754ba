// `./run control` on a running crawl (issue 50 point 2), judged by what
// the servers saw:
//   - add-seeds --widen from a file: a second site, not in the crawl's
//     scope, is crawled; a bad line is refused by its number;
//   - politeness: the second site's request starts are spaced as asked;
//   - block: the first site receives no request after the block is
//     acknowledged (the one lease in flight aside), across a kill -9 of the
//     frontier, and its URLs end as `blocked`;
//   - drain: the crawl ends without following links found after it;
//   - stop: the crawl ends at once, exit 130, and resumes on the next run.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/crawl_output.h"
#include "tests/support/generated_site.h"
#include "tests/support/request_log.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

// One GeneratedSite on `address`, logging the start of every request.
struct LoggedSite {
  LoggedSite(const std::string& address, int pages, const std::string& foreign_origin) {
    server = std::make_unique<TestHttpServer>(address, [this](const TestRequest& r) {
      log.Add(LoggedRequest{"", r.target, RequestLog::NowMs(), 0});
      return site->Serve(r);
    });
    server->Start();
    server->Publish([&] { site = std::make_unique<GeneratedSite>(pages, server->origin(), foreign_origin); });
  }
  ~LoggedSite() { server->Stop(); }
  size_t RequestsSince(int64_t from_ms) {
    size_t n = 0;
    for (const auto& r : log.Entries()) n += r.start_ms >= from_ms;
    return n;
  }
  std::vector<int64_t> StartsSince(int64_t from_ms) {
    std::vector<int64_t> starts;
    for (const auto& r : log.Entries()) {
      if (r.start_ms >= from_ms) starts.push_back(r.start_ms);
    }
    std::sort(starts.begin(), starts.end());
    return starts;
  }

  RequestLog log;
  std::unique_ptr<TestHttpServer> server;
  std::unique_ptr<GeneratedSite> site;
};

class ControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    foreign_ = std::make_unique<TestHttpServer>("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
    foreign_->Start();
    dir_ = MakeTempDir("control_e2e");
    out_ = dir_ + "/out";
  }
  void TearDown() override { foreign_->Stop(); }

  std::vector<std::string> Env() const { return {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()}; }

  // `./run control OUT ARGS...`: exit code, output in `text`.
  int Control(const std::vector<std::string>& args, std::string* text) {
    std::vector<std::string> argv = {SourceDir() + "/run", "control", out_};
    argv.insert(argv.end(), args.begin(), args.end());
    TestProcess process;
    const std::string log = dir_ + "/control-" + std::to_string(++runs_) + ".log";
    process.Start(argv, log, Env());
    const int code = process.Wait(30000).value_or(-1);
    *text = ReadFile(log);
    return code;
  }

  void StartCrawl(TestProcess& crawl, const std::string& seed) {
    crawl.Start({SourceDir() + "/run", "crawl", seed, "--out", out_, "--delay-ms", "100", "--per-host", "1",
                 "--fetchers", "1"},
                dir_ + "/crawl-" + std::to_string(++crawls_) + ".log", Env());
  }

  void WaitForRequests(LoggedSite& site, size_t n, TestProcess& crawl) {
    for (int i = 0; i < 300 && site.log.Entries().size() < n && crawl.running(); ++i) usleep(50 * 1000);
    ASSERT_GE(site.log.Entries().size(), n) << ReadFile(dir_ + "/crawl-" + std::to_string(crawls_) + ".log");
  }

  pid_t FrontierPid() {
    const std::string beacon = ReadFile(out_ + "/.zcrawl/frontier.beacon");
    return static_cast<pid_t>(std::stol(beacon.substr(beacon.find("pid ") + 4)));
  }

  nlohmann::json Summary() {
    return nlohmann::json::parse(ReadFile(out_ + "/.zcrawl/summary.json"), nullptr, false);
  }

  std::unique_ptr<TestHttpServer> foreign_;
  std::string dir_, out_;
  int runs_ = 0;
  int crawls_ = 0;
};

TEST_F(ControlTest, AddSeedsPolitenessAndBlockAreObeyedAndSurviveAFrontierKill) {
  LoggedSite a("127.0.0.1", 150, foreign_->origin());
  LoggedSite b("127.0.0.3", 12, foreign_->origin());
  TestProcess crawl;
  StartCrawl(crawl, a.server->origin() + "/");
  WaitForRequests(a, 5, crawl);

  // A second site, out of the crawl's scope, from a file with a bad line.
  const std::string seeds = dir_ + "/seeds.txt";
  std::ofstream(seeds) << "# more\nnot a url\n" << b.server->origin() << "/\n";
  std::string text;
  ASSERT_EQ(Control({"add-seeds", "--widen", "--file", seeds}, &text), 0) << text;
  EXPECT_NE(text.find("1 of 2 URLs admitted"), std::string::npos) << text;
  EXPECT_NE(text.find("refused line 2: "), std::string::npos) << text;
  ASSERT_EQ(Control({"politeness", b.server->origin(), "--delay-ms", "400", "--note", "owner asked"}, &text), 0)
      << text;
  const int64_t paced = RequestLog::NowMs();
  EXPECT_EQ(Control({"politeness", b.server->origin(), "--delay-ms", "400"}, &text), 0) << text;
  EXPECT_NE(text.find("already has delay 400 ms"), std::string::npos) << "idempotent: " << text;
  for (int i = 0; i < 200 && b.StartsSince(paced + 500).size() < 5 && crawl.running(); ++i) usleep(50 * 1000);
  const std::vector<int64_t> starts = b.StartsSince(paced + 500);
  ASSERT_GE(starts.size(), 5u) << "the added seed's site was crawled";
  for (size_t i = 1; i < starts.size(); ++i) {
    EXPECT_GE(starts[i] - starts[i - 1], 350) << "request " << i << " came too soon after the one before";
  }

  // Block the first site: nothing more reaches it.
  ASSERT_EQ(Control({"block", a.server->origin(), "--note", "the owner asked"}, &text), 0) << text;
  EXPECT_NE(text.find("block: blocked " + a.server->origin()), std::string::npos) << text;
  const int64_t blocked = RequestLog::NowMs();
  EXPECT_EQ(Control({"block", "re:(["}, &text), 2) << "a bad pattern is refused before it is sent: " << text;

  const pid_t frontier = FrontierPid();
  ASSERT_EQ(kill(frontier, SIGKILL), 0);
  bool back = false;
  for (int i = 0; i < 300 && !back && crawl.running(); ++i) {
    usleep(100 * 1000);
    back = Control({"blocks"}, &text) == 0 && FrontierPid() != frontier;
  }
  ASSERT_TRUE(back) << "the frontier was not restarted: " << text;
  EXPECT_NE(text.find("block      " + a.server->origin()), std::string::npos) << "kept across the kill: " << text;
  EXPECT_NE(text.find("politeness " + b.server->origin() + "  delay 400 ms"), std::string::npos) << text;

  ASSERT_EQ(crawl.Wait(120000).value_or(-1), 0) << ReadFile(dir_ + "/crawl-1.log");
  EXPECT_EQ(a.RequestsSince(blocked + 1000), 0u) << "a request reached the blocked site";
  const auto index = ReadIndex(out_);
  for (const std::string& url : b.site->ExpectedOk()) EXPECT_EQ(index.count(url), 1u) << url;
  size_t stored_of_a = 0;
  for (const std::string& url : a.site->ExpectedOk()) stored_of_a += index.count(url);
  EXPECT_LT(stored_of_a, a.site->ExpectedOk().size()) << "the block ended the first site's crawl early";
  const auto summary = Summary();
  ASSERT_TRUE(summary.is_object());
  EXPECT_GT(summary["failure_reasons"].value("blocked", uint64_t{0}), 0u) << summary.dump();
  const std::string control_log = ReadFile(out_ + "/.zcrawl/control.log");
  EXPECT_NE(control_log.find("block " + a.server->origin() + " note=\"the owner asked\": blocked"), std::string::npos)
      << control_log;
  EXPECT_NE(control_log.find("add-seeds: 1 of 2 URLs admitted; scope widened to their hosts;refused line 2: "),
            std::string::npos)
      << "one line per control: " << control_log;
}

TEST_F(ControlTest, DrainEndsTheCrawlWithWhatIsKnownAndStopEndsItResumably) {
  LoggedSite a("127.0.0.1", 80, foreign_->origin());
  TestProcess crawl;
  StartCrawl(crawl, a.server->origin() + "/");
  WaitForRequests(a, 4, crawl);
  std::string text;
  ASSERT_EQ(Control({"stop"}, &text), 0) << text;
  EXPECT_EQ(crawl.Wait(60000).value_or(-1), 130) << "stopped, not finished: " << ReadFile(dir_ + "/crawl-1.log");
  const size_t before = a.log.Entries().size();
  ASSERT_LT(before, 40u) << "the stop came early in the crawl";

  // The next run resumes it; drained, it ends with what it knew.
  TestProcess again;
  StartCrawl(again, a.server->origin() + "/");
  WaitForRequests(a, before + 2, again);
  ASSERT_EQ(Control({"drain"}, &text), 0) << text;
  EXPECT_NE(text.find("drain: draining"), std::string::npos) << text;
  ASSERT_EQ(again.Wait(120000).value_or(-1), 0) << ReadFile(dir_ + "/crawl-2.log");
  const auto summary = Summary();
  ASSERT_TRUE(summary.is_object());
  EXPECT_GT(summary["links"].value("draining", uint64_t{0}), 0u) << summary.dump();
  EXPECT_LT(a.log.Entries().size(), a.site->ExpectedOk().size()) << "links found after the drain were not followed";
  EXPECT_TRUE(summary.value("finished", false));
}

}  // namespace
}  // namespace zcrawl::testing
