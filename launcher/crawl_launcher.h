// CrawlLauncher: one `./run crawl`, from options parsed to exit code. It
// readies the output folder (--fresh deletes the earlier crawl there, and a
// deletion that fails ends the launch with 2 before anything starts),
// writes the seeds file, builds the processes' command lines, starts and
// supervises them (ProcessSupervisor), prints the summary and decides the
// exit code (docs/OPERATING.md, "Exit codes"), and with --format wacz packs
// the WARC files of a crawl that succeeded (exit code 0) into one WACZ.
//
// Processes, the packer, the display and the file remover arrive through
// LauncherEnv, so tests run a whole launch with fake children.
// Not thread-safe: one Run per object, from one thread.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "launcher/child.h"
#include "launcher/component_settings.h"
#include "launcher/console.h"
#include "launcher/crawl_options.h"
#include "launcher/output_folder.h"
#include "launcher/process_supervisor.h"
#include "launcher/progress_display.h"
#include "writer/wacz_pack.h"

namespace zcrawl::launcher {

struct LauncherEnv {
  SupervisorEnv supervisor;
  // The process for one command line (argv[0] is the binary).
  std::function<std::unique_ptr<Child>(const std::string& name, const std::vector<std::string>& argv)> make_child;
  // writer::PackWacz, or a fake.
  std::function<Status(const std::string& dir, const std::string& file, writer::WaczCounts* counts)> pack_wacz =
      writer::PackWacz;
  // Deletes what --fresh deletes.
  PathRemover remove = RemovePathTree;
  // The live line, once every process listens; null (or returning null): none.
  std::function<std::unique_ptr<ProgressDisplay>(const std::string& frontier_endpoint,
                                                 const std::string& writer_endpoint)>
      make_display;
  std::string bin_dir = ".";  // where the component binaries are
  bool terminal = false;      // stderr is a terminal: quieter children (warn)
  FILE* out = stderr;         // where the launcher's own lines go
};

class CrawlLauncher {
 public:
  // `seeds`: checked, at least one.
  CrawlLauncher(CrawlOptions options, const ForwardedSettings& forwarded, std::vector<std::string> seeds,
                LauncherEnv env);
  CrawlLauncher(const CrawlLauncher&) = delete;
  CrawlLauncher& operator=(const CrawlLauncher&) = delete;

  // The exit code.
  int Run();

  // How many children were made (0 when the launch ended before any).
  size_t children_made() const { return children_made_; }
  // True once the WACZ packer was called.
  bool packed() const { return packed_; }

 private:
  int Finish(int result, uint32_t frontier_restarts);
  int PrintSummary(int result, uint32_t frontier_restarts);
  void PrintWriterSummary();
  int PackWacz();

  const CrawlOptions options_;
  const ForwardedSettings& forwarded_;
  const std::vector<std::string> seeds_;
  LauncherEnv env_;
  Console console_;
  std::unique_ptr<ProgressDisplay> display_;
  std::string summary_file_;
  std::string writer_summary_file_;
  int64_t started_ms_ = 0;
  size_t children_made_ = 0;
  bool packed_ = false;
};

}  // namespace zcrawl::launcher
