// Full disks (issue 21, point 1): real crawls (./run crawl) whose output, or
// whose frontier state, is on a small filesystem of their own (a tmpfs this
// test mounts) that fills up mid-crawl. The crawl must wait, say so, lose
// and fail nothing, not spin, and finish with every page stored exactly
// once when space comes back (the test deletes a filler file). With no
// floor, RocksDB itself meets ENOSPC and must recover in place: the same
// frontier process (by pid) finishes the crawl (issue 47, point 3).
//
// Needs root (mount); skipped with the reason elsewhere.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "tests/faults/fault_support.h"
#include "tests/support/crawl_output.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "tests/support/tree_site.h"

namespace zcrawl::testing {
namespace {

constexpr int kPages = 300;
constexpr int kFanOut = 20;
constexpr size_t kBodyBytes = 16 * 1024;
constexpr int kLeaseMs = 3000;

// A tmpfs of `bytes` at `dir`, unmounted by the destructor.
class SmallFilesystem {
 public:
  SmallFilesystem(const std::string& dir, size_t bytes) : dir_(dir) {
    std::filesystem::create_directories(dir);
    const std::string options = "size=" + std::to_string(bytes);
    if (mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      error_ = std::string("cannot mount a tmpfs (needs root): ") + std::strerror(errno);
    }
  }
  ~SmallFilesystem() {
    if (error_.empty()) umount2(dir_.c_str(), MNT_DETACH);
  }
  const std::string& error() const { return error_; }

  uint64_t FreeBytes() const {
    struct statvfs st {};
    statvfs(dir_.c_str(), &st);
    return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
  }
  // Fills the filesystem until `leave` bytes are free.
  void Fill(uint64_t leave) {
    std::ofstream filler(filler_path(), std::ios::binary);
    const std::string block(64 * 1024, 'f');
    while (FreeBytes() > leave + block.size()) filler.write(block.data(), static_cast<std::streamsize>(block.size()));
    filler.flush();
  }
  // Fills the filesystem to its last byte (a second filler, so the crawl's
  // own files keep what they hold).
  void FillUp() {
    const int fd = open(brim_path().c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const std::string page(4096, 'f');
    while (fd >= 0 && write(fd, page.data(), page.size()) > 0) {
    }
    if (fd >= 0) close(fd);
  }
  void FreeTheFiller() {
    std::filesystem::remove(filler_path());
    std::filesystem::remove(brim_path());
  }

 private:
  std::string filler_path() const { return dir_ + "/filler"; }
  std::string brim_path() const { return dir_ + "/filler-brim"; }
  std::string dir_;
  std::string error_;
};

// User plus system CPU seconds of a process so far.
double CpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream fields(stat.substr(close + 2));
  std::string skip;
  for (int i = 0; i < 11; ++i) fields >> skip;  // state .. cmajflt
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

class DiskFullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<TestHttpServer>("127.0.0.1", [](const TestRequest& r) { return TreeSite{kPages, kFanOut, 0, kBodyBytes}.Serve(r); });
    server_->Start();
    dir_ = MakeTempDir("disk-full");
  }
  void TearDown() override { server_->Stop(); }

  // Starts the crawl into dir_/out; `min_free_mb` 0: only ENOSPC stops writes.
  // `delay_ms`: between two fetches from the site (0: a crawl of ~0.3 s).
  void StartCrawl(TestProcess& crawl, int min_free_mb = 1, int delay_ms = 0) {
    crawl.Start({SourceDir() + "/run", "crawl", server_->origin() + "/", "--out", dir_ + "/out",
                 "--fetchers", "1", "--threads", "8", "--per-host", "8", "--delay-ms", std::to_string(delay_ms),
                 "--lease-ms", std::to_string(kLeaseMs), "--retries", "0", "--heartbeat-ms", "200",
                 "--liveness", "5", "--frontier-memory-mb", "16", "--min-free-mb",
                 std::to_string(min_free_mb), "--frontier-port", std::to_string(frontier_port_),
                 "--log-level", "info"},
                log_path(), {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  }
  std::string log_path() const { return dir_ + "/crawl.log"; }

  // What the crawl waits for space on, as the frontier's status reply says
  // (`./run status --json`): "writer: CAUSE", "frontier state: CAUSE" or
  // both; "" while it does not wait or does not answer.
  std::string SpaceWait() const {
    std::filesystem::remove(dir_ + "/status.log");  // TestProcess appends
    TestProcess status;
    status.Start({BinDir() + "/zcrawl-status", "--frontier", "tcp://127.0.0.1:" + std::to_string(frontier_port_),
                  "--json"},
                 dir_ + "/status.log");
    if (status.Wait(10000).value_or(-1) != 0) return "";
    const auto reply = nlohmann::json::parse(ReadFile(dir_ + "/status.log"), nullptr, false);
    return reply.is_discarded() ? "" : reply.value("waiting_for_space", "");
  }
  // Polls SpaceWait() until it names `what`; false after `timeout_ms`.
  bool WaitForSpaceWait(const std::string& what, int timeout_ms) const {
    const int64_t deadline = SteadyNowMs() + timeout_ms;
    while (SteadyNowMs() < deadline) {
      const std::string wait = SpaceWait();
      if (!wait.empty() && wait.find(what) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  // While the crawl waits: every process is alive, none spins, nothing
  // fails, for longer than a lease.
  void ExpectAPatientWait(TestProcess& crawl) {
    std::map<std::string, pid_t> pids;
    for (const char* name : {"frontier", "writer", "fetcher"}) {
      // A wait on the frontier's state can begin before the launcher has
      // started the fetcher (it starts the processes one by one): give it
      // time to come up before counting it.
      std::vector<pid_t> found;
      for (int tries = 0; tries < 200 && found.empty(); ++tries) {
        found = ChildPids(crawl.pid(), std::string("zcrawl-") + name);
        if (found.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
      ASSERT_EQ(found.size(), 1u) << name << " is not running:\n" << ReadFile(log_path());
      pids[name] = found[0];
    }
    std::map<std::string, double> before;
    for (const auto& [name, pid] : pids) before[name] = CpuSeconds(pid);
    constexpr int kWaitMs = 2 * kLeaseMs;
    std::this_thread::sleep_for(std::chrono::milliseconds(kWaitMs));
    for (const auto& [name, pid] : pids) {
      EXPECT_EQ(kill(pid, 0), 0) << name << " exited while waiting for space";
      const double used = CpuSeconds(pid) - before[name];
      EXPECT_LT(used, 0.25 * kWaitMs / 1000.0) << name << " spins while waiting for space";
    }
    // Still waiting, as the status reply (which the live line shows) says.
    EXPECT_NE(SpaceWait(), "") << ReadFile(log_path());
  }

  void ExpectEveryPageOnce() {
    auto index = ReadIndex(dir_ + "/out");
    EXPECT_EQ(index.size(), static_cast<size_t>(kPages)) << ReadFile(log_path());
    size_t twice = 0, bad_files = 0;
    for (const auto& [url, entries] : index) {
      twice += entries.size() > 1;
      std::error_code ec;
      const auto size = std::filesystem::file_size(dir_ + "/out/" + entries[0].file, ec);
      bad_files += ec || size < kBodyBytes;
    }
    EXPECT_EQ(twice, 0u) << "pages stored more than once";
    EXPECT_EQ(bad_files, 0u) << "index lines whose file is missing or short";
    const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
    ASSERT_FALSE(summary.is_discarded()) << ReadFile(log_path());
    EXPECT_EQ(summary["failed"].get<uint64_t>(), 0u) << summary.dump(2);
    EXPECT_EQ(summary["done"].get<uint64_t>(), static_cast<uint64_t>(kPages));
    EXPECT_GE(summary["space_waits"].get<uint64_t>(), 1u);
  }

  std::unique_ptr<TestHttpServer> server_;
  std::string dir_;
  const uint16_t frontier_port_ = FreeLoopbackPort();
};

TEST_F(DiskFullTest, AFullOutputWaitsForSpaceAndLosesNothing) {
  // Output and state together on 32 MiB, filled until there is room for
  // about a third of the crawl's pages above the 1 MB floor.
  SmallFilesystem fs(dir_ + "/out", 32 << 20);
  if (!fs.error().empty()) GTEST_SKIP() << fs.error();
  fs.Fill((1 << 20) + kPages / 3 * kBodyBytes);
  TestProcess crawl;
  StartCrawl(crawl);
  ASSERT_TRUE(WaitForSpaceWait("", 60000)) << ReadFile(log_path());
  ExpectAPatientWait(crawl);
  const uint64_t stored_while_full = ReadIndex(dir_ + "/out").size();
  EXPECT_LT(stored_while_full, static_cast<size_t>(kPages)) << "the disk never filled up";
  fs.FreeTheFiller();
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(log_path());
  EXPECT_EQ(*code, 0) << ReadFile(log_path());
  ExpectEveryPageOnce();
}

TEST_F(DiskFullTest, AWriterThatMeetsENOSPCItselfWaitsToo) {
  // No floor: the writer runs into ENOSPC. The state is on a filesystem of
  // its own inside the output (RocksDB is kept out of it: the floor is
  // what protects it when the two share a disk).
  SmallFilesystem fs(dir_ + "/out", 32 << 20);
  if (!fs.error().empty()) GTEST_SKIP() << fs.error();
  SmallFilesystem state(dir_ + "/out/.zcrawl", 64 << 20);
  ASSERT_TRUE(state.error().empty()) << state.error();
  fs.Fill(kPages / 3 * kBodyBytes);
  TestProcess crawl;
  StartCrawl(crawl, /*min_free_mb=*/0);
  ASSERT_TRUE(WaitForSpaceWait("writer: ", 60000)) << ReadFile(log_path());
  EXPECT_NE(SpaceWait().find("No space left on device"), std::string::npos) << SpaceWait();
  ExpectAPatientWait(crawl);
  fs.FreeTheFiller();
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(log_path());
  EXPECT_EQ(*code, 0) << ReadFile(log_path());
  ExpectEveryPageOnce();
}

TEST_F(DiskFullTest, AFullStateFolderWaitsForSpaceAndResumes) {
  // Only the frontier's state (OUT/.zcrawl) is on the small filesystem,
  // with a few KB above the floor: the crawl's first commits cross it.
  std::filesystem::create_directories(dir_ + "/out");
  SmallFilesystem fs(dir_ + "/out/.zcrawl", 4 << 20);
  if (!fs.error().empty()) GTEST_SKIP() << fs.error();
  fs.Fill((1 << 20) + 8 * 1024);
  TestProcess crawl;
  StartCrawl(crawl);
  ASSERT_TRUE(WaitForSpaceWait("frontier state: ", 60000)) << ReadFile(log_path());
  ExpectAPatientWait(crawl);
  fs.FreeTheFiller();
  auto code = crawl.Wait(120000);
  ASSERT_TRUE(code.has_value()) << ReadFile(log_path());
  EXPECT_EQ(*code, 0) << ReadFile(log_path());
  ExpectEveryPageOnce();
}

TEST_F(DiskFullTest, ENOSPCInTheStateItselfNeverRestartsTheFrontier) {
  // Issue 47, point 3. No floor (--min-free-mb 0), the store alone on a
  // filesystem of its own, filled to the last byte once the crawl is under
  // way: RocksDB itself meets ENOSPC, in its write-ahead log, its tables
  // and its info LOG. Its own recovery (DB::Resume, its SstFileManager's
  // wait for space) must carry the store through: the frontier that
  // started the crawl finishes it, never aborted and restarted by the
  // launcher (which a resumed state would also show), and every page is
  // stored once. The filler first leaves less room than RocksDB reserves
  // ahead for its log (~1.1 MB), so the log grows page by page and the
  // full disk reaches it.
  // The store alone (OUT/.zcrawl/frontier.db, a link) is on the small
  // filesystem: the writer's files stay out of it, so the crawl goes on
  // and the frontier goes on committing until its own writes fail.
  SmallFilesystem fs(dir_ + "/state", 32 << 20);
  if (!fs.error().empty()) GTEST_SKIP() << fs.error();
  std::filesystem::create_directories(dir_ + "/state/frontier.db");
  std::filesystem::create_directories(dir_ + "/out/.zcrawl");
  std::filesystem::create_directory_symlink(dir_ + "/state/frontier.db", dir_ + "/out/.zcrawl/frontier.db");
  fs.Fill(512 * 1024);
  TestProcess crawl;
  StartCrawl(crawl, /*min_free_mb=*/0, /*delay_ms=*/20);  // ~6 s of crawl
  std::set<pid_t> frontiers;
  const auto note_frontiers = [&] {
    for (pid_t pid : ChildPids(crawl.pid(), "zcrawl-frontier")) frontiers.insert(pid);
  };
  const int64_t give_up = SteadyNowMs() + 60000;
  while (ReadIndex(dir_ + "/out").size() < kPages / 10 && SteadyNowMs() < give_up) {
    note_frontiers();
    ASSERT_FALSE(crawl.Wait(20).has_value()) << ReadFile(log_path());
  }
  ASSERT_EQ(frontiers.size(), 1u) << ReadFile(log_path());
  const pid_t frontier = *frontiers.begin();
  fs.FillUp();
  // A while on a full disk, the frontier's commits failing and RocksDB
  // logging its errors: the same frontier all along, the crawl waiting.
  for (const int64_t until = SteadyNowMs() + 2 * kLeaseMs; SteadyNowMs() < until;) {
    note_frontiers();
    ASSERT_FALSE(crawl.Wait(20).has_value()) << "the crawl ended on a full disk:\n" << ReadFile(log_path());
  }
  EXPECT_LT(ReadIndex(dir_ + "/out").size(), static_cast<size_t>(kPages)) << "the crawl never waited";
  fs.FreeTheFiller();
  std::optional<int> code;
  for (const int64_t until = SteadyNowMs() + 120000; !code && SteadyNowMs() < until;) {
    note_frontiers();
    code = crawl.Wait(20);
  }
  ASSERT_TRUE(code.has_value()) << ReadFile(log_path());
  EXPECT_EQ(*code, 0) << ReadFile(log_path());
  EXPECT_EQ(frontiers, std::set<pid_t>{frontier}) << "the frontier was restarted:\n" << ReadFile(log_path());
  ExpectEveryPageOnce();
  const auto summary = nlohmann::json::parse(ReadFile(dir_ + "/out/.zcrawl/summary.json"), nullptr, false);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_FALSE(summary["resumed"].get<bool>()) << "a second frontier wrote the summary";
  EXPECT_GE(summary["memory"]["state_write_errors"].get<uint64_t>(), 1u) << "RocksDB never met ENOSPC";
}

}  // namespace
}  // namespace zcrawl::testing
