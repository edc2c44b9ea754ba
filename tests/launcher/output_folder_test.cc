// The output folder before a crawl: --fresh deletes an earlier crawl (its
// state marker last), never a folder without the marker, and a deletion
// that fails is reported, with the path, instead of ignored: once with a
// folder the process really may not change, once with an injected failure.
#include "launcher/output_folder.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "tests/support/test_process.h"

namespace zcrawl::launcher {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "x";
}

// An earlier crawl's folder: output files, a subfolder, and the state.
std::string EarlierCrawl(const std::string& name) {
  const std::string out = zcrawl::testing::MakeTempDir(name) + "/out";
  Touch(out + "/crawl-00000.warc.gz");
  Touch(out + "/files/a.test/index.html");
  Touch(out + "/.zcrawl/frontier.db/CURRENT");
  return out;
}

TEST(OutputFolderTest, FreshDeletesTheEarlierCrawlWithItsStateLast) {
  const std::string out = EarlierCrawl("fresh");
  std::vector<fs::path> removed;
  const PathRemover remover = [&](const fs::path& path, std::error_code& ec) {
    removed.push_back(path.filename());
    RemovePathTree(path, ec);
  };

  Result<OutputFolderState> state = PrepareOutputFolder(out, /*fresh=*/true, remover);

  ASSERT_TRUE(state.ok()) << state.status().message();
  EXPECT_EQ(*state, OutputFolderState::kCleared);
  EXPECT_TRUE(fs::is_empty(out));
  ASSERT_EQ(removed.size(), 3u);
  EXPECT_EQ(removed.back(), ".zcrawl");
}

TEST(OutputFolderTest, WithoutFreshTheSavedCrawlIsResumedAndNothingDeleted) {
  const std::string out = EarlierCrawl("resume");
  Result<OutputFolderState> state = PrepareOutputFolder(out, /*fresh=*/false);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, OutputFolderState::kResuming);
  EXPECT_TRUE(fs::exists(out + "/crawl-00000.warc.gz"));
}

TEST(OutputFolderTest, FreshNeverEmptiesAFolderWithoutTheStateMarker) {
  const std::string out = zcrawl::testing::MakeTempDir("not-ours") + "/out";
  Touch(out + "/thesis.tex");
  Result<OutputFolderState> state = PrepareOutputFolder(out, /*fresh=*/true);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, OutputFolderState::kNew);
  EXPECT_TRUE(fs::exists(out + "/thesis.tex"));
}

TEST(OutputFolderTest, AFailedDeletionIsAnErrorNamingThePathAndKeepsTheStateMarker) {
  const std::string out = EarlierCrawl("injected");
  const PathRemover refuses_warc = [](const fs::path& path, std::error_code& ec) {
    if (path.filename() == "crawl-00000.warc.gz") {
      ec = std::make_error_code(std::errc::device_or_resource_busy);
      return;
    }
    RemovePathTree(path, ec);
  };

  Result<OutputFolderState> state = PrepareOutputFolder(out, /*fresh=*/true, refuses_warc);

  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.status().code(), StatusCode::kInternal);
  EXPECT_NE(state.status().message().find("crawl-00000.warc.gz"), std::string::npos) << state.status().message();
  EXPECT_TRUE(fs::exists(out + "/.zcrawl")) << "--fresh can try again";
}

// A real failure: a folder this process may list but not change (as root,
// a child process that became nobody; otherwise a read-only folder).
TEST(OutputFolderTest, AFolderThatCannotBeChangedFailsFreshWithPermissionDenied) {
  const std::string base = zcrawl::testing::MakeTempDir("read-only");
  const std::string out = base + "/out";
  Touch(out + "/crawl-00000.warc.gz");
  Touch(out + "/.zcrawl/frontier.db/CURRENT");
  const bool root = geteuid() == 0;
  // Root's folders, readable by all; or ours, made read-only.
  for (const std::string& dir : {base, out, out + "/.zcrawl", out + "/.zcrawl/frontier.db"}) {
    ASSERT_EQ(chmod(dir.c_str(), root ? 0755 : 0555), 0) << dir;
  }
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipe_fds[0]);
    if (root && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) _exit(90);
    Result<OutputFolderState> state = PrepareOutputFolder(out, /*fresh=*/true);
    const std::string message = state.ok() ? "" : state.status().message();
    (void)!write(pipe_fds[1], message.data(), message.size());
    _exit(state.ok() ? 0 : static_cast<int>(state.status().code()));
  }
  close(pipe_fds[1]);
  std::string message;
  char buf[512];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) message.append(buf, static_cast<size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  if (!root) chmod(out.c_str(), 0755), chmod(base.c_str(), 0755);  // let MakeTempDir clean up

  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_NE(WEXITSTATUS(status), 90) << "could not become nobody";
  EXPECT_EQ(WEXITSTATUS(status), static_cast<int>(StatusCode::kPermissionDenied)) << message;
  EXPECT_NE(message.find("cannot delete"), std::string::npos) << message;
  EXPECT_TRUE(fs::exists(out + "/crawl-00000.warc.gz"));
  EXPECT_TRUE(fs::exists(out + "/.zcrawl/frontier.db/CURRENT"));
}

TEST(OutputFolderTest, AnOutputFolderThatCannotBeCreatedIsAnError) {
  const std::string base = zcrawl::testing::MakeTempDir("not-a-folder");
  Touch(base + "/file");
  Result<OutputFolderState> state = PrepareOutputFolder(base + "/file/out", /*fresh=*/false);
  ASSERT_FALSE(state.ok());
  EXPECT_NE(state.status().message().find("cannot create"), std::string::npos) << state.status().message();
}

}  // namespace
}  // namespace zcrawl::launcher
