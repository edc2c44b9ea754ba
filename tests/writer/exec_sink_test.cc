#include "writer/exec_sink.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "writer/page_json.h"
#include "writer/sink_registry.h"

namespace zcrawl::writer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> SplitLines(const std::string& data) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < data.size()) {
    const size_t end = data.find('\n', start);
    if (end == std::string::npos) {
      lines.push_back(data.substr(start));
      break;
    }
    lines.push_back(data.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The command writes asynchronously: waits until `p` holds `n` full lines.
std::vector<std::string> WaitForLines(const fs::path& p, size_t n, int timeout_ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const std::string data = ReadFile(p);
    auto lines = SplitLines(data);
    if ((lines.size() >= n && (data.empty() || data.back() == '\n')) ||
        std::chrono::steady_clock::now() >= deadline) {
      return lines;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

v1::Page MakePage(int i) {
  v1::Page page;
  page.set_url("http://example.com/p" + std::to_string(i));
  page.set_final_url("http://example.com/p" + std::to_string(i));
  page.set_http_status(200);
  page.set_fetched_at_ms(1796005077123);
  page.set_depth(1);
  page.set_title("Page " + std::to_string(i));
  page.set_text("text " + std::to_string(i));
  page.set_content_type("text/html");
  page.set_body("<html>" + std::to_string(i) + "</html>");
  return page;
}

// Writes and flushes pages until the sink fails (a command that exits may
// still be starting when the first page goes out); the failing status.
Status WriteUntilFailure(ExecSink& sink, int timeout_ms = 5000) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (int i = 0; std::chrono::steady_clock::now() < deadline; ++i) {
    Status s = sink.Write(MakePage(i));
    if (s.ok()) s = sink.Flush();
    if (!s.ok()) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::Ok();
}

class ExecSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/exec_sink_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    options_.out_dir = (root_ / "out").string();  // the sink creates it
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  SinkOptions options_;
};

TEST_F(ExecSinkTest, PipelineReceivesOneJsonLinePerPageInOrder) {
  const fs::path got = root_ / "got.jsonl";
  ExecSink sink(options_, "grep -v '^$' | cat > '" + got.string() + "'");
  ASSERT_TRUE(sink.Open().ok());
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(sink.Write(MakePage(i)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Write(MakePage(3)).ok());
  const Status closed = sink.Close();
  ASSERT_TRUE(closed.ok()) << closed.ToString();
  // Close waited for the command, so everything is in the file now.
  const auto lines = SplitLines(ReadFile(got));
  ASSERT_EQ(lines.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const json j = json::parse(lines[i]);
    EXPECT_EQ(j["url"], "http://example.com/p" + std::to_string(i));
    EXPECT_EQ(j["title"], "Page " + std::to_string(i));
    EXPECT_EQ(j["status"], 200);
    EXPECT_EQ(j["depth"], 1);
    EXPECT_FALSE(j.contains("body"));  // jsonl_body off
  }
  EXPECT_EQ(lines[0], PageJson(MakePage(0), nullptr));
}

TEST_F(ExecSinkTest, CommandRunsInOutDirAndSeesLinesOnlyAfterFlush) {
  ExecSink sink(options_, "cat > here.jsonl");
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(fs::is_directory(options_.out_dir));
  const fs::path here = fs::path(options_.out_dir) / "here.jsonl";
  ASSERT_TRUE(sink.Write(MakePage(7)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(ReadFile(here), "") << "a line reached the command before Flush";
  ASSERT_TRUE(sink.Flush().ok());
  const auto lines = WaitForLines(here, 1);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["url"], "http://example.com/p7");
  EXPECT_TRUE(sink.Close().ok());
  EXPECT_TRUE(sink.Close().ok());  // idempotent
}

TEST_F(ExecSinkTest, BodyIsIncludedWhenJsonlBodyIsSet) {
  options_.jsonl_body = true;
  ExecSink sink(options_, "cat > with-body.jsonl");
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(1)).ok());
  ASSERT_TRUE(sink.Close().ok());
  const auto lines = SplitLines(ReadFile(fs::path(options_.out_dir) / "with-body.jsonl"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["body"], "PGh0bWw+MTwvaHRtbD4=");  // "<html>1</html>"
}

TEST_F(ExecSinkTest, LargeBatchesPassThroughThePipeWhole) {
  // Far more than a pipe holds, so Write and Flush must wait for the reader.
  options_.jsonl_body = true;
  ExecSink sink(options_, "wc -l > count.txt");
  ASSERT_TRUE(sink.Open().ok());
  v1::Page page = MakePage(0);
  page.set_body(std::string(300000, 'x'));
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(sink.Write(page).ok());
  ASSERT_TRUE(sink.Flush().ok());
  ASSERT_TRUE(sink.Close().ok());
  EXPECT_EQ(std::stoi(ReadFile(fs::path(options_.out_dir) / "count.txt")), 20);
}

TEST_F(ExecSinkTest, CommandThatExitsEarlyFailsWithItsExitStatusAndStaysFailed) {
  ExecSink sink(options_, "head -c 1 > /dev/null; exit 3");
  ASSERT_TRUE(sink.Open().ok());
  // The write into a reader-less pipe must not kill this process (SIGPIPE).
  const Status failed = WriteUntilFailure(sink);
  ASSERT_FALSE(failed.ok()) << "the sink never noticed the command exited";
  EXPECT_EQ(failed.code(), StatusCode::kUnavailable) << failed.ToString();
  EXPECT_NE(failed.message().find("exited with status 3"), std::string::npos) << failed.ToString();
  // Broken for good: nothing more is accepted, Close reports it too.
  EXPECT_EQ(sink.Write(MakePage(99)).code(), StatusCode::kUnavailable);
  EXPECT_EQ(sink.Flush().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(sink.Close().ok());
}

TEST_F(ExecSinkTest, CommandThatClosesItsInputFailsFlushWithoutSigpipe) {
  // Still running, but nobody reads the pipe: the write meets EPIPE, which
  // must come back as a status, not as a SIGPIPE killing this process.
  ExecSink sink(options_, "exec 0<&-; sleep 1.5; exit 5");
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // let sh close stdin
  const Status flushed = sink.Flush();
  ASSERT_EQ(flushed.code(), StatusCode::kUnavailable) << flushed.ToString();
  EXPECT_TRUE(flushed.message().find("closed its input") != std::string::npos ||
              flushed.message().find("exited with status 5") != std::string::npos)
      << flushed.ToString();
  EXPECT_FALSE(sink.Close().ok());
}

TEST_F(ExecSinkTest, KilledCommandIsReportedWithItsSignal) {
  ExecSink sink(options_, "cat > /dev/null");
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_GT(sink.pid(), 0);
  ASSERT_EQ(::kill(-sink.pid(), SIGKILL), 0);  // its own process group
  const Status failed = WriteUntilFailure(sink);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.code(), StatusCode::kUnavailable);
  EXPECT_NE(failed.message().find("killed by signal 9"), std::string::npos) << failed.ToString();
}

TEST_F(ExecSinkTest, UnknownCommandShowsUpAsStatus127) {
  ExecSink sink(options_, "zcrawl-no-such-command-anywhere");
  ASSERT_TRUE(sink.Open().ok());
  const Status failed = WriteUntilFailure(sink);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("exited with status 127"), std::string::npos) << failed.ToString();
}

TEST_F(ExecSinkTest, NonZeroExitAtEndOfInputFailsClose) {
  const fs::path got = root_ / "got.jsonl";
  ExecSink sink(options_, "cat > '" + got.string() + "'; exit 4");
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Write(MakePage(0)).ok());
  ASSERT_TRUE(sink.Flush().ok());
  const Status closed = sink.Close();
  EXPECT_EQ(closed.code(), StatusCode::kUnavailable) << closed.ToString();
  EXPECT_NE(closed.message().find("exited with status 4"), std::string::npos) << closed.ToString();
  EXPECT_EQ(SplitLines(ReadFile(got)).size(), 1u);
}

TEST_F(ExecSinkTest, CommandThatStopsReadingTimesOutAndIsKilledAtClose) {
  options_.jsonl_body = true;
  ExecSinkLimits limits;
  limits.write_timeout_ms = 200;
  limits.close_timeout_ms = 200;
  ExecSink sink(options_, "sleep 60", limits);
  ASSERT_TRUE(sink.Open().ok());
  v1::Page page = MakePage(0);
  page.set_body(std::string(100000, 'y'));  // more than a pipe holds, less than a chunk
  ASSERT_TRUE(sink.Write(page).ok());
  const Status flushed = sink.Flush();
  EXPECT_EQ(flushed.code(), StatusCode::kDeadlineExceeded) << flushed.ToString();
  const auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(sink.Close().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST_F(ExecSinkTest, EmptyCommandIsRejectedAtOpen) {
  ExecSink sink(options_, "  ");
  EXPECT_EQ(sink.Open().code(), StatusCode::kInvalidArgument);
}

TEST(ExecSinkRegistryTest, ExecPrefixTakesTheRestOfTheListAsTheCommand) {
  SinkOptions options;
  auto sinks = MakeSinks("jsonl,exec:tr a,b c,d > x", options);
  ASSERT_TRUE(sinks.ok()) << sinks.status().ToString();
  ASSERT_EQ(sinks->size(), 2u);
  EXPECT_EQ((*sinks)[0]->name(), "jsonl");
  ASSERT_EQ((*sinks)[1]->name(), "exec");
  EXPECT_EQ(static_cast<ExecSink&>(*(*sinks)[1]).command(), "tr a,b c,d > x");
}

// One parse of --format for the writer and the launcher (which asks it
// whether to pack a WACZ): a "wacz" inside exec's command is no format.
TEST(ExecSinkRegistryTest, FormatNamesSplitOnCommasUntilExecTakesTheRest) {
  EXPECT_EQ(FormatNames("warc,,jsonl,"), (std::vector<std::string>{"warc", "jsonl"}));
  EXPECT_EQ(FormatNames("wacz,exec:grep -e x,wacz"), (std::vector<std::string>{"wacz", "exec:grep -e x,wacz"}));
  EXPECT_EQ(FormatNames("files,exec:a"), (std::vector<std::string>{"files", "exec:a"}));
  EXPECT_EQ(FormatNames("myexec:x,files"), (std::vector<std::string>{"myexec:x", "files"}));
  EXPECT_TRUE(FormatNames("").empty());
}

TEST(ExecSinkRegistryTest, ExecWithoutCommandIsInvalid) {
  SinkOptions options;
  auto sinks = MakeSinks("exec:", options);
  ASSERT_FALSE(sinks.ok());
  EXPECT_EQ(sinks.status().code(), StatusCode::kInvalidArgument);
  auto unknown = MakeSinks("nope", options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("exec:CMD"), std::string::npos);
}

}  // namespace
}  // namespace zcrawl::writer
