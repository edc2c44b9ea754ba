// `./run control OUT pause|resume` on a running crawl (issue 50 point 2),
// judged by what the server saw: after the pause is acknowledged no request
// reaches it (the one lease then in flight aside), the pause survives a
// kill -9 of the frontier (the launcher restarts it, paused), and after
// resume the crawl finishes with every page stored once.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/crawl_output.h"
#include "tests/support/generated_site.h"
#include "tests/support/request_log.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

class PauseResumeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    foreign_ = std::make_unique<TestHttpServer>("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
    foreign_->Start();
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [this](const TestRequest& r) {
      log_.Add(LoggedRequest{"", r.target, RequestLog::NowMs(), 0});
      return site_->Serve(r);
    });
    server_->Start();
    server_->Publish([&] { site_ = std::make_unique<GeneratedSite>(40, server_->origin(), foreign_->origin()); });
    dir_ = MakeTempDir("pause_resume");
    out_ = dir_ + "/out";
  }

  std::vector<std::string> Env() const { return {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()}; }

  // `./run TOOL ARGS...`: exit code, output in `text`.
  int Run(const std::string& tool, const std::vector<std::string>& args, std::string* text) {
    std::vector<std::string> argv = {SourceDir() + "/run", tool};
    argv.insert(argv.end(), args.begin(), args.end());
    TestProcess process;
    const std::string log = dir_ + "/" + tool + "-" + std::to_string(++runs_) + ".log";
    process.Start(argv, log, Env());
    const int code = process.Wait(30000).value_or(-1);
    *text = ReadFile(log);
    return code;
  }

  // Requests the server saw that arrived at or after `from_ms`.
  size_t RequestsSince(int64_t from_ms) {
    size_t n = 0;
    for (const auto& r : log_.Entries()) n += r.start_ms >= from_ms;
    return n;
  }

  std::unique_ptr<TestHttpServer> foreign_, server_;
  std::unique_ptr<GeneratedSite> site_;
  RequestLog log_;
  std::string dir_, out_;
  int runs_ = 0;
};

TEST_F(PauseResumeTest, APausedCrawlAsksNothingSurvivesAFrontierKillAndFinishesAfterResume) {
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", out_, "--delay-ms", "150",
               "--per-host", "1", "--fetchers", "1"},
              dir_ + "/crawl.log", Env());
  for (int i = 0; i < 200 && log_.Entries().size() < 6 && crawl.running(); ++i) usleep(50 * 1000);
  ASSERT_GE(log_.Entries().size(), 6u) << ReadFile(dir_ + "/crawl.log");

  std::string text;
  ASSERT_EQ(Run("control", {out_, "pause", "--note", "the site owner asked"}, &text), 0) << text;
  EXPECT_NE(text.find("pause: paused"), std::string::npos) << text;
  const int64_t acked = RequestLog::NowMs();
  // At most the one lease in flight (--per-host 1) arrives after the ack;
  // a second of margin for it, then three seconds of silence.
  sleep(4);
  EXPECT_EQ(RequestsSince(acked + 1000), 0u) << "a request reached the server while the crawl was paused";
  ASSERT_TRUE(crawl.running());
  EXPECT_EQ(Run("control", {out_, "pause"}, &text), 0) << text;
  EXPECT_NE(text.find("already paused"), std::string::npos) << "idempotent: " << text;
  ASSERT_EQ(Run("status", {out_}, &text), 0) << text;
  EXPECT_NE(text.find("PAUSED"), std::string::npos) << text;

  // kill -9 of the frontier: the launcher starts it again, from its state,
  // still paused.
  const std::string beacon = ReadFile(out_ + "/.zcrawl/frontier.beacon");
  const pid_t frontier = static_cast<pid_t>(std::stol(beacon.substr(beacon.find("pid ") + 4)));
  ASSERT_EQ(kill(frontier, SIGKILL), 0);
  const int64_t killed = RequestLog::NowMs();
  bool back = false;
  for (int i = 0; i < 300 && !back && crawl.running(); ++i) {
    usleep(100 * 1000);
    back = Run("status", {out_}, &text) == 0 && ReadFile(out_ + "/.zcrawl/frontier.beacon").find(
                                                     "pid " + std::to_string(frontier) + "\n") == std::string::npos;
  }
  ASSERT_TRUE(back) << "the frontier was not restarted\n" << ReadFile(dir_ + "/crawl.log");
  EXPECT_NE(text.find("PAUSED"), std::string::npos) << "the pause survived the restart: " << text;
  sleep(2);
  EXPECT_EQ(RequestsSince(killed), 0u) << "the restarted frontier leased while paused";

  const size_t before_resume = log_.Entries().size();
  ASSERT_EQ(Run("control", {out_, "resume"}, &text), 0) << text;
  EXPECT_NE(text.find("resume: resumed"), std::string::npos) << text;
  ASSERT_EQ(crawl.Wait(120000).value_or(-1), 0) << ReadFile(dir_ + "/crawl.log");
  EXPECT_GT(log_.Entries().size(), before_resume) << "the crawl went on after resume";

  const auto index = ReadIndex(out_);
  for (const std::string& url : site_->ExpectedOk()) EXPECT_EQ(index.count(url), 1u) << url;
  const std::string control_log = ReadFile(out_ + "/.zcrawl/control.log");
  EXPECT_NE(control_log.find("pause note=\"the site owner asked\": paused"), std::string::npos) << control_log;
  EXPECT_NE(control_log.find("pause: already paused"), std::string::npos) << control_log;
  EXPECT_NE(control_log.find("resume: resumed"), std::string::npos) << control_log;
}

}  // namespace
}  // namespace zcrawl::testing
