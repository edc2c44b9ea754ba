// A whole launch on fake children and a fake clock: the WACZ is packed
// exactly when --format has wacz and the crawl succeeded; the exit code
// follows the frontier's summary; --fresh clears an earlier crawl, and a
// --fresh that cannot delete it exits 2 before any process is made.
#include "launcher/crawl_launcher.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "launcher/crawl_end.h"
#include "tests/launcher/fake_child.h"
#include "tests/support/test_process.h"

namespace zcrawl::launcher {
namespace {

namespace fs = std::filesystem;
using testing::FakeChild;

// The value after `flag` in a command line ("" if absent).
std::string ArgAfter(const std::vector<std::string>& argv, const std::string& flag) {
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] == flag) return argv[i + 1];
  }
  return "";
}

class CrawlLauncherTest : public ::testing::Test {
 protected:
  CrawlLauncherTest() {
    options_.writer.sink.out_dir = zcrawl::testing::MakeTempDir("launch") + "/out";
    options_.fetchers = 2;
  }
  ~CrawlLauncherTest() override { fclose(devnull_); }

  // Runs a launch whose frontier (or local child) writes `summary_json` and exits `frontier_exit`
  // a second after it started; the others run until told to stop.
  int Launch(const std::string& summary_json, int frontier_exit = 0) {
    LauncherEnv env;
    env.supervisor.clock = &clock_;
    env.supervisor.wait = [this](int64_t ms) {
      clock_.Advance(ms);
      if (clock_.NowMs() > 10'000'000) throw std::runtime_error("launch did not end");
    };
    env.supervisor.stop_requested = [] { return false; };
    env.supervisor.port_accepts = [](uint16_t) { return true; };
    env.make_child = [this, summary_json, frontier_exit](const std::string& name,
                                                          const std::vector<std::string>& argv) {
      names_.push_back(name);
      if (name != "frontier" && name != "local") return std::make_unique<FakeChild>(name, clock_, std::vector<FakeChild::Run>{{-1, 0}});
      auto frontier = std::make_unique<FakeChild>(name, clock_, std::vector<FakeChild::Run>{{1000, frontier_exit}});
      const std::string summary_file = ArgAfter(argv, "--summary-file");
      frontier->on_start = [summary_file, summary_json] { std::ofstream(summary_file) << summary_json; };
      return frontier;
    };
    env.pack_wacz = [this](const std::string& dir, const std::string& file, writer::WaczCounts*) {
      packs_.push_back({dir, file});
      return pack_status_;
    };
    env.remove = remove_;
    env.out = devnull_;
    CrawlLauncher launcher(options_, forwarded_, {"http://a.test/"}, std::move(env));
    const int code = launcher.Run();
    children_made_ = launcher.children_made();
    return code;
  }

  const std::string& out() const { return options_.writer.sink.out_dir; }

  FakeClock clock_;
  FILE* devnull_ = fopen("/dev/null", "w");
  CrawlOptions options_;
  ForwardedSettings forwarded_;
  PathRemover remove_ = RemovePathTree;
  Status pack_status_ = Status::Ok();
  std::vector<std::pair<std::string, std::string>> packs_;
  std::vector<std::string> names_;
  size_t children_made_ = 0;
};

constexpr const char* kFetched = R"({"finished":true,"done":12,"failed":0})";
constexpr const char* kNothing = R"({"finished":true,"done":0,"failed":3})";

TEST_F(CrawlLauncherTest, ASuccessfulWaczCrawlIsPackedOnceIntoItsOutputFolder) {
  options_.writer.format = "warc,wacz";
  EXPECT_EQ(Launch(kFetched), 0);
  ASSERT_EQ(packs_.size(), 1u);
  EXPECT_EQ(packs_[0].first, out());
  EXPECT_EQ(packs_[0].second, out() + "/crawl.wacz");
  EXPECT_EQ(names_, (std::vector<std::string>{"frontier", "writer", "fetcher-1", "fetcher-2"}));
}

TEST_F(CrawlLauncherTest, WithoutWaczInTheFormatNothingIsPacked) {
  options_.writer.format = "warc";
  EXPECT_EQ(Launch(kFetched), 0);
  EXPECT_TRUE(packs_.empty());
}

TEST_F(CrawlLauncherTest, AFailedCrawlIsNotPacked) {
  options_.writer.format = "wacz";
  EXPECT_EQ(Launch(kFetched, /*frontier_exit=*/2), 2);
  EXPECT_TRUE(packs_.empty());
}

TEST_F(CrawlLauncherTest, ACrawlThatFetchedNothingExits3AndIsNotPacked) {
  options_.writer.format = "wacz";
  EXPECT_EQ(Launch(kNothing), kNothingFetched);
  EXPECT_TRUE(packs_.empty());
}

TEST_F(CrawlLauncherTest, APackingFailureFailsTheCrawl) {
  options_.writer.format = "wacz";
  pack_status_ = InternalError("disk on fire");
  EXPECT_EQ(Launch(kFetched), 1);
  EXPECT_EQ(packs_.size(), 1u);
}

TEST_F(CrawlLauncherTest, SingleProcessRunsOneLocalChild) {
  options_.single_process = true;
  options_.writer.format = "wacz";
  EXPECT_EQ(Launch(kFetched), 0) << "the local child holds the frontier: its exit 0 ends the crawl";
  EXPECT_EQ(names_, std::vector<std::string>{"local"});
  EXPECT_EQ(packs_.size(), 1u);
}

TEST_F(CrawlLauncherTest, FreshClearsTheEarlierCrawlBeforeStarting) {
  fs::create_directories(out() + "/.zcrawl/frontier.db");
  std::ofstream(out() + "/.zcrawl/frontier.db/CURRENT") << "x";
  std::ofstream(out() + "/old.warc.gz") << "x";
  options_.fresh = true;
  EXPECT_EQ(Launch(kFetched), 0);
  EXPECT_FALSE(fs::exists(out() + "/old.warc.gz"));
  EXPECT_FALSE(fs::exists(out() + "/.zcrawl/frontier.db"));
}

TEST_F(CrawlLauncherTest, AFreshThatCannotDeleteTheEarlierCrawlExits2AndStartsNothing) {
  fs::create_directories(out() + "/.zcrawl/frontier.db");
  std::ofstream(out() + "/old.warc.gz") << "x";
  options_.fresh = true;
  remove_ = [](const fs::path&, std::error_code& ec) { ec = std::make_error_code(std::errc::read_only_file_system); };
  EXPECT_EQ(Launch(kFetched), 2);
  EXPECT_EQ(children_made_, 0u);
  EXPECT_TRUE(names_.empty());
  EXPECT_TRUE(fs::exists(out() + "/old.warc.gz"));
}

}  // namespace
}  // namespace zcrawl::launcher
