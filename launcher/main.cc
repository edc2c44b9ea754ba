// zcrawl-crawl: `./run crawl`. Starts one frontier, one writer and N fetcher
// processes on loopback (or, with --single-process, one zcrawl-local that
// runs them all as threads), restarts a process that crashes, and exits
// when the crawl is finished and every process has exited.
//
// This file parses the command line, collects the seeds and builds a
// CrawlLauncher (launcher/crawl_launcher.h) on real processes, the real
// clock and the terminal; the launch itself is tested there.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>
#include <zmq.hpp>

#include "common/cli_config.h"
#include "common/clock.h"
#include "common/seed_list.h"
#include "common/shutdown_signal.h"
#include "common/url.h"
#include "launcher/child_process.h"
#include "launcher/component_settings.h"
#include "launcher/crawl_launcher.h"
#include "launcher/crawl_options.h"
#include "launcher/crawl_settings.h"
#include "launcher/progress_display.h"
#include "launcher/recrawl.h"
#include "net/loopback_port.h"

namespace zcrawl::launcher {
namespace {

std::string BinaryDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

// The seeds to crawl: the positional ones, then those of --seeds FILE (bad
// lines reported with their line numbers and skipped). Empty on error.
std::vector<std::string> CollectSeeds(const CrawlOptions& options) {
  std::vector<std::string> seeds;
  for (const auto& seed : options.seeds) {
    if (Status s = CheckSeedUrl(seed); !s.ok()) {
      fprintf(stderr, "crawl: seed %s\n", s.message().c_str());
      return {};
    }
    seeds.push_back(seed);
  }
  if (!options.frontier.seeds_file.empty()) {
    auto list = ReadSeedList(options.frontier.seeds_file);
    if (!list.ok()) {
      fprintf(stderr, "crawl: %s\n", list.status().message().c_str());
      return {};
    }
    constexpr size_t kShown = 20;
    for (size_t i = 0; i < list->errors.size() && i < kShown; ++i) {
      fprintf(stderr, "crawl: seed skipped: %s\n", list->errors[i].c_str());
    }
    if (list->errors.size() > kShown) {
      fprintf(stderr, "crawl: ... and %zu more bad seed lines skipped\n", list->errors.size() - kShown);
    }
    seeds.insert(seeds.end(), list->urls.begin(), list->urls.end());
  }
  if (!options.recrawl.empty()) {
    if (Status s = CheckRecrawlFolders(options.recrawl, options.writer.sink.out_dir); !s.ok()) {
      fprintf(stderr, "crawl: %s\n", s.message().c_str());
      return {};
    }
    auto earlier = RecrawlSeeds(options.recrawl);
    if (!earlier.ok()) {
      fprintf(stderr, "crawl: --recrawl: %s\n", earlier.status().message().c_str());
      return {};
    }
    seeds.insert(seeds.end(), earlier->begin(), earlier->end());
  }
  if (seeds.empty()) fprintf(stderr, "crawl: give at least one seed URL, or --seeds FILE (see --help)\n");
  return seeds;
}

int Main(int argc, char** argv) {
  CrawlOptions options;
  ForwardedSettings forwarded;
  CLI::App app{"zcrawl: crawl SEED... with a frontier, a writer and fetchers on this machine"};
  DeclareCrawlSettings(app, options, forwarded);
  ConfigRequests config_requests;
  AddConfigFlags(app, &config_requests);
  if (auto exit = ParseSettings(app, "crawl", [&] { app.parse(argc, argv); })) return *exit;
  if (MaybePrintConfig(app, config_requests)) return 0;
  std::vector<std::string> seeds = CollectSeeds(options);
  if (seeds.empty()) return 2;
  ShutdownSignal::Install();
  const bool terminal = isatty(STDERR_FILENO);
  zmq::context_t context(1);  // the live line's status requests
  LauncherEnv env;
  env.supervisor.clock = &RealClock::Get();
  env.supervisor.wait = [](int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); };
  env.supervisor.stop_requested = [] { return ShutdownSignal::Requested(); };
  env.supervisor.port_accepts = [](uint16_t port) { return LoopbackPortAccepts(port); };
  // On a terminal the children's log lines come through the launcher, to
  // be printed above the live line; elsewhere they go straight to stderr.
  env.make_child = [terminal](const std::string& name, const std::vector<std::string>& argv) {
    auto child = std::make_unique<ChildProcess>(name, argv);
    child->capture_stderr(terminal);
    return child;
  };
  env.make_display = [&context, terminal](const std::string& frontier_endpoint, const std::string& writer_endpoint) {
    return std::make_unique<ProgressDisplay>(context, frontier_endpoint, writer_endpoint, terminal);
  };
  env.bin_dir = BinaryDir();
  env.terminal = terminal;
  CrawlLauncher launcher(std::move(options), forwarded, std::move(seeds), std::move(env));
  return launcher.Run();
}

}  // namespace
}  // namespace zcrawl::launcher

int main(int argc, char** argv) {
  try {
    return zcrawl::launcher::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "crawl: fatal: %s\n", e.what());
    return 1;
  }
}
