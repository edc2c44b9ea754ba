// A writer killed between its WARC fsync and its index fsync (issue 47): the
// window's pages are durable in the WARC file but not acknowledged, so they
// come again. The restarted writer must cut them out of the file it had
// written (writer/warc_recovery.h), leaving every page in the WARC files
// exactly once, as an independent reader (warcio's parser,
// tests/node/warc_captures.mjs) counts them.
//
// The kill is a fault point in the writer (common/fault_point.h) armed
// through the environment of a real `./run crawl`; its marker file proves it
// fired and says which file held how many bytes at that instant.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "tests/support/tree_site.h"
#include "tests/support/warc_checker.h"

namespace zcrawl::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kPages = 400;

TEST(WriterKillTest, KilledBetweenWarcAndIndexFsyncsLeavesEveryPageOnceInTheWarcFiles) {
  TestHttpServer server("127.0.0.1", [](const TestRequest& r) { return TreeSite{kPages, 20, 2}.Serve(r); });
  server.Start();
  const std::string dir = MakeTempDir("writer_kill");
  const std::string out = dir + "/out";
  const std::string marker = dir + "/fault-fired";
  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", out, "--format", "warc",
               "--fetchers", "2", "--threads", "4", "--per-host", "8", "--delay-ms", "0",
               "--max-batch-pages", "16"},
              dir + "/crawl.log",
              {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir(), "ZCRAWL_FAULT_POINT=warc-data-synced",
               "ZCRAWL_FAULT_AFTER=4", "ZCRAWL_FAULT_MARKER=" + marker});
  const auto code = crawl.Wait(180000);
  server.Stop();
  const std::string log = ReadFile(dir + "/crawl.log");
  ASSERT_EQ(code, std::optional<int>(0)) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);

  // The fault happened: the writer died with a window durable in `file`
  // (then `bytes` long) whose index lines were not.
  ASSERT_TRUE(fs::exists(marker)) << "the fault point never fired";
  std::istringstream note(ReadFile(marker));
  std::string file;
  uint64_t bytes = 0;
  note >> file >> bytes;
  ASSERT_FALSE(file.empty());
  // Recovery cut that window out: the file is shorter now, or set aside
  // when none of its pages had been acknowledged.
  if (fs::exists(file)) {
    EXPECT_LT(fs::file_size(file), bytes) << file << " still holds the unacknowledged window";
  } else {
    EXPECT_TRUE(fs::exists(file + ".unacknowledged")) << file;
  }

  // Every page once in the index and, by warcio's count, in the files.
  const auto index = ReadIndex(out, "zcrawl-index.jsonl");
  EXPECT_EQ(index.size(), static_cast<size_t>(kPages));
  const WarcCheckResult counted = CountWarcCaptures(out);
  ASSERT_EQ(counted.exit_code, 0) << counted.summary.dump();
  const nlohmann::json& captures = counted.summary;
  EXPECT_EQ(captures["uris"].get<int>(), kPages) << captures.dump();
  EXPECT_EQ(captures["captures"].get<int>(), kPages) << captures.dump();
  EXPECT_TRUE(captures["duplicated"].empty()) << captures["duplicated"].dump(1).substr(0, 3000);
}

}  // namespace
}  // namespace zcrawl::testing
