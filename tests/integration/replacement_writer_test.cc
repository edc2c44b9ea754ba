// End-to-end: the writer is replaceable. The real frontier and two real
// fetchers crawl a generated site on 127.0.0.1 while the Python writer from
// examples/sinks/sqlite_writer.py, written against docs/PROTOCOL.md only,
// stands in for zcrawl-writer and stores pages in SQLite.
//
// Skipped when /usr/bin/python3 lacks pyzmq or protobuf, or protoc is
// missing (Debian: python3-zmq, python3-protobuf, protobuf-compiler).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 200;
constexpr const char* kPython = "/usr/bin/python3";

// Runs `/bin/sh -c script`; true if it exits 0 within 30 s.
bool ShellSucceeds(const std::string& script, const std::string& log_path) {
  TestProcess process;
  process.Start({"/bin/sh", "-c", script}, log_path);
  return process.Wait(30000).value_or(-1) == 0;
}

struct StoredRow {
  int status = 0;
  std::string final_url;
  std::string title;
  std::string body;
  std::string links;  // JSON
};

// url -> every row naming it. Fails the test if the database cannot be read.
std::map<std::string, std::vector<StoredRow>> ReadPages(const std::string& path) {
  std::map<std::string, std::vector<StoredRow>> out;
  sqlite3* db = nullptr;
  // Read-write without create: opening a WAL database may need its -shm file.
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return out;
  }
  sqlite3_stmt* statement = nullptr;
  const char* sql = "SELECT url, status, final_url, title, body, links FROM pages";
  if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot query " << path << ": " << sqlite3_errmsg(db);
    sqlite3_close(db);
    return out;
  }
  auto text = [&](int column) {
    const void* data = sqlite3_column_blob(statement, column);
    const int size = sqlite3_column_bytes(statement, column);
    return data ? std::string(static_cast<const char*>(data), size) : std::string();
  };
  int rc;
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    StoredRow row;
    row.status = sqlite3_column_int(statement, 1);
    row.final_url = text(2);
    row.title = text(3);
    row.body = text(4);
    row.links = text(5);
    out[text(0)].push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) ADD_FAILURE() << "reading " << path << ": " << sqlite3_errmsg(db);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return out;
}

class ReplacementWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    out_ = MakeTempDir("replacement-writer");
    if (!ShellSucceeds(std::string(kPython) + " -c 'import zmq, google.protobuf'",
                       out_ + "/python-check.log")) {
      GTEST_SKIP() << kPython << " cannot import zmq and google.protobuf "
                   << "(install python3-zmq python3-protobuf): " << ReadFile(out_ + "/python-check.log");
    }
    if (!ShellSucceeds("protoc --version", out_ + "/protoc-check.log")) {
      GTEST_SKIP() << "protoc not found (install protobuf-compiler)";
    }
    served_ = std::make_unique<ServedSite>(kPages);
    foreign_ = served_->foreign.get();
    server_ = served_->server.get();
    site_ = served_->site.get();
  }

  void TearDown() override {
    if (!HasFailure() && !IsSkipped()) std::filesystem::remove_all(out_);  // keep logs of a failure
  }

  std::string Log(const std::string& name) { return ReadFile(out_ + "/" + name + ".log"); }

  std::unique_ptr<ServedSite> served_;
  TestHttpServer* foreign_ = nullptr;
  TestHttpServer* server_ = nullptr;
  GeneratedSite* site_ = nullptr;
  std::string out_;
};

TEST_F(ReplacementWriterTest, PythonSqliteWriterStoresEveryPageOnceAndAllProcessesExitCleanly) {
  const std::string frontier_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  const std::string writer_ep = "tcp://127.0.0.1:" + std::to_string(FreeLoopbackPort());
  TestProcess frontier, writer, fetcher_a, fetcher_b;
  frontier.Start({BinDir() + "/zcrawl-frontier", "--bind", frontier_ep, "--delay-ms", "0",
                  "--heartbeat-ms", "200", "--liveness", "5", "--per-host", "4",
                  server_->origin() + "/"},
                 out_ + "/frontier.log");
  writer.Start({kPython, SourceDir() + "/examples/sinks/sqlite_writer.py", "--bind", writer_ep,
                "--frontier", frontier_ep, "--out", out_ + "/out", "--heartbeat-ms", "200"},
               out_ + "/writer.log");
  const std::vector<std::string> fetcher_args = {
      BinDir() + "/zcrawl-fetcher", "--frontier", frontier_ep, "--writer", writer_ep,
      "--threads", "4", "--heartbeat-ms", "200", "--liveness", "5"};
  fetcher_a.Start(fetcher_args, out_ + "/fetcher_a.log");
  fetcher_b.Start(fetcher_args, out_ + "/fetcher_b.log");

  // The frontier ends the crawl, tells everyone, and waits for goodbyes.
  auto frontier_code = frontier.Wait(120000);
  ASSERT_TRUE(frontier_code.has_value()) << "crawl did not finish\n" << Log("frontier")
                                         << "\nwriter:\n" << Log("writer");
  EXPECT_EQ(*frontier_code, 0) << Log("frontier");
  EXPECT_EQ(fetcher_a.Wait(10000).value_or(-1), 0) << Log("fetcher_a");
  EXPECT_EQ(fetcher_b.Wait(10000).value_or(-1), 0) << Log("fetcher_b");
  EXPECT_EQ(writer.Wait(10000).value_or(-1), 0) << Log("writer");

  // Every page stored exactly once with the right status, nothing else.
  auto pages = ReadPages(out_ + "/out/pages.sqlite");
  for (const auto& url : site_->ExpectedOk()) {
    auto it = pages.find(url);
    if (it == pages.end()) {
      ADD_FAILURE() << "page not stored: " << url;
      continue;
    }
    EXPECT_EQ(it->second.size(), 1u) << "stored more than once: " << url;
    EXPECT_EQ(it->second[0].status, 200) << url;
  }
  for (const auto& url : site_->ExpectedNotFound()) {
    auto it = pages.find(url);
    ASSERT_NE(it, pages.end()) << "404 page not recorded: " << url;
    EXPECT_EQ(it->second.size(), 1u) << url;
    EXPECT_EQ(it->second[0].status, 404) << url;
  }
  EXPECT_EQ(pages.size(), site_->ExpectedOk().size() + site_->ExpectedNotFound().size());

  // The row holds the page itself: body bytes, title, final URL, links.
  const std::string sample = server_->origin() + GeneratedSite::PagePath(42);
  ASSERT_TRUE(pages.count(sample));
  const StoredRow& row = pages[sample][0];
  EXPECT_NE(row.body.find("<h1>Page 42</h1>"), std::string::npos);
  EXPECT_EQ(row.title, "Page 42");
  EXPECT_EQ(row.final_url, sample);
  EXPECT_NE(row.links.find("\"url\": \"" + server_->origin() + GeneratedSite::PagePath(52) + "\""),
            std::string::npos)
      << row.links;

  // Acks were right: no page was failed back to the frontier and fetched
  // again, and the crawl stayed in scope.
  for (const auto& [target, count] : server_->request_counts()) {
    EXPECT_FALSE(site_->IsForbiddenPath(target)) << "fetched out-of-scope path " << target;
    EXPECT_EQ(count, 1u) << "fetched more than once: " << target;
  }
  EXPECT_EQ(foreign_->total_requests(), 0u);
}

}  // namespace
}  // namespace zcrawl::testing
