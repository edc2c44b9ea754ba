// zcrawl-crawl: `./run crawl`. Starts one frontier, one writer and N fetcher
// processes on loopback, restarts a fetcher or writer that crashes, and
// exits when the crawl is finished and every process has exited.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>

#include "common/clock.h"
#include "common/cli_config.h"
#include "common/loopback_port.h"
#include "common/shutdown_signal.h"
#include "common/url.h"
#include "launcher/child_process.h"
#include "launcher/crawl_options.h"
#include "launcher/progress_display.h"

namespace zcrawl::launcher {
namespace {

// Exit codes that mean "cannot start as configured": restarting is useless.
bool IsConfigurationExit(int code) { return code == 2 || (code >= 100 && code < 128); }

std::string BinaryDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

void AddFlags(CLI::App& app, CrawlOptions& o) {
  app.add_option("seeds", o.seeds, "Seed URLs; their hosts are the crawl's scope");
  app.add_option("--out", o.out_dir, "Output folder")->capture_default_str();
  app.add_option("--format", o.format, "Sinks, comma-separated: files, jsonl, warc")
      ->capture_default_str();
  app.add_option("--fetchers", o.fetchers, "Fetcher processes")->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  app.add_option("--threads", o.threads, "URLs each fetcher fetches at once")->capture_default_str()
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--io", o.io, "Fetchers' I/O: multi (event loop) or blocking (a thread per fetch)")
      ->capture_default_str()->check(CLI::IsMember({"multi", "blocking"}));
  app.add_option("--max-pages", o.max_pages, "Stop admitting URLs after this many (0: unlimited)")
      ->capture_default_str();
  app.add_option("--max-depth", o.max_depth, "Most link hops from a seed (-1: unlimited)")
      ->capture_default_str();
  app.add_option("--delay-ms", o.delay_ms, "Minimum ms between request starts on one host")
      ->capture_default_str()->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  app.add_option("--per-host", o.per_host, "Concurrent fetches per host")->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  app.add_flag("!--no-robots", o.obey_robots, "Ignore robots.txt");
  app.add_flag("--sitemaps", o.follow_sitemaps, "Crawl the sitemaps robots.txt names");
  app.add_option("--retries", o.retries, "Retries of a retryable failure")->capture_default_str();
  app.add_option("--allow-domain", o.allow_domains, "Also crawl this domain and its subdomains")
      ->allow_extra_args(false);
  app.add_option("--allow", o.allow_patterns, "Only URLs matching this regex (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--deny", o.deny_patterns, "Never URLs matching this regex (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--max-pages-per-host", o.max_pages_per_host, "Most URLs per host (0: unlimited)")
      ->capture_default_str();
  app.add_option("--max-query-variants", o.max_query_variants,
                 "Most distinct query strings per path, against calendar traps (0: unlimited)")
      ->capture_default_str();
  app.add_option("--parser", o.parser, "HTML parser: gumbo or myhtml")->capture_default_str()
      ->check(CLI::IsMember({"gumbo", "myhtml"}));
  app.add_option("--log-level", o.log_level,
                 "trace|debug|info|warn|error|off (default: warn on a terminal, else info)");
  app.add_flag("--log-json", o.log_json, "Components log one JSON object per line");
  app.add_option("--frontier-port", o.frontier_port, "Frontier port on 127.0.0.1 (0: any free)");
  app.add_option("--writer-port", o.writer_port, "Writer port on 127.0.0.1 (0: any free)");
  app.add_option("--max-restarts", o.max_restarts, "Restarts of a crashed process")
      ->capture_default_str();
  app.add_flag("--fresh", o.fresh, "Delete an earlier crawl's state and output in --out, start over");
}

// After the frontier exits, how long the others get to follow on their own.
constexpr int64_t kPeerExitWaitMs = 2000;

class Launcher {
 public:
  explicit Launcher(CrawlOptions options) : options_(std::move(options)) {}

  int Run() {
    const bool terminal = isatty(STDERR_FILENO);
    if (options_.log_level.empty()) options_.log_level = terminal ? "warn" : "info";
    const std::string bin = BinaryDir();
    const uint16_t frontier_port = options_.frontier_port ? options_.frontier_port : FreeLoopbackPort();
    const uint16_t writer_port = options_.writer_port ? options_.writer_port : FreeLoopbackPort();
    if (!LoopbackPortBindable(frontier_port)) {
      fprintf(stderr, "crawl: port %u (--frontier-port) is in use\n", frontier_port);
      return 2;
    }
    if (!LoopbackPortBindable(writer_port) || writer_port == frontier_port) {
      fprintf(stderr, "crawl: port %u (--writer-port) is in use\n", writer_port);
      return 2;
    }
    const std::string frontier_endpoint = "tcp://127.0.0.1:" + std::to_string(frontier_port);
    const std::string writer_endpoint = "tcp://127.0.0.1:" + std::to_string(writer_port);
    std::error_code ec;
    std::filesystem::create_directories(options_.out_dir, ec);
    if (ec) {
      Say("crawl: cannot create output folder %s: %s\n", options_.out_dir.c_str(),
              ec.message().c_str());
      return 2;
    }
    const std::string state_dir = options_.out_dir + "/.zcrawl";
    if (options_.fresh && std::filesystem::exists(state_dir)) {
      // Only a folder that holds our state marker is wiped.
      Say("crawl: --fresh: deleting the earlier crawl in %s\n", options_.out_dir.c_str());
      for (const auto& entry : std::filesystem::directory_iterator(options_.out_dir, ec)) {
        std::filesystem::remove_all(entry.path(), ec);
      }
    } else if (std::filesystem::exists(state_dir + "/frontier.sqlite")) {
      Say("crawl: resuming the crawl saved in %s\n", options_.out_dir.c_str());
    }
    summary_file_ = state_dir + "/summary.json";
    std::filesystem::create_directories(state_dir, ec);
    std::filesystem::remove(summary_file_, ec);

    std::vector<std::string> frontier_args = {
        bin + "/zcrawl-frontier", "--bind", frontier_endpoint,
        "--delay-ms", std::to_string(options_.delay_ms),
        "--per-host", std::to_string(options_.per_host),
        "--max-pages", std::to_string(options_.max_pages),
        "--max-depth", std::to_string(options_.max_depth),
        "--retries", std::to_string(options_.retries),
        "--log-level", options_.log_level,
        "--state", state_dir,
        "--summary-file", summary_file_};
    if (!options_.obey_robots) frontier_args.push_back("--no-robots");
    if (options_.follow_sitemaps) frontier_args.push_back("--sitemaps");
    if (options_.log_json) frontier_args.push_back("--log-json");
    for (const auto& d : options_.allow_domains) frontier_args.push_back("--allow-domain=" + d);
    for (const auto& p : options_.allow_patterns) frontier_args.push_back("--allow=" + p);
    for (const auto& p : options_.deny_patterns) frontier_args.push_back("--deny=" + p);
    frontier_args.push_back("--max-pages-per-host=" + std::to_string(options_.max_pages_per_host));
    frontier_args.push_back("--max-query-variants=" + std::to_string(options_.max_query_variants));
    for (const auto& seed : options_.seeds) frontier_args.push_back(seed);
    children_.push_back(std::make_unique<ChildProcess>("frontier", frontier_args));
    std::vector<std::string> writer_args = {bin + "/zcrawl-writer", "--bind", writer_endpoint,
                                            "--frontier", frontier_endpoint, "--out",
                                            options_.out_dir, "--format", options_.format,
                                            "--log-level", options_.log_level};
    if (options_.log_json) writer_args.push_back("--log-json");
    children_.push_back(std::make_unique<ChildProcess>("writer", writer_args));
    for (uint32_t i = 0; i < options_.fetchers; ++i) {
      std::vector<std::string> fetcher_args = {
          bin + "/zcrawl-fetcher", "--frontier", frontier_endpoint, "--writer", writer_endpoint,
          "--threads", std::to_string(options_.threads), "--io", options_.io, "--parser", options_.parser,
          "--log-level", options_.log_level};
      if (options_.log_json) fetcher_args.push_back("--log-json");
      // Work no output needs is skipped: text feeds jsonl and exec sinks,
      // requests as sent feed WARC request records, links the writer sees
      // feed jsonl, exec and WARC metadata records.
      const bool wants_text = options_.format.find("jsonl") != std::string::npos ||
                              options_.format.find("exec:") != std::string::npos;
      if (!wants_text) fetcher_args.push_back("--no-text");
      if (!wants_text && options_.format.find("warc") == std::string::npos) {
        fetcher_args.push_back("--no-page-links");  // the files sink lists no links
      }
      if (options_.format.find("warc") == std::string::npos) fetcher_args.push_back("--no-request-headers");
      children_.push_back(
          std::make_unique<ChildProcess>("fetcher-" + std::to_string(i + 1), fetcher_args));
    }
    started_ms_ = clock_.NowMs();
    Say("crawl: starting frontier, writer and %u fetchers; output in %s\n",
            options_.fetchers, options_.out_dir.c_str());
    // Start in dependency order and wait for each listener, so that no peer
    // talks to a port nobody listens on yet (a tiny crawl can otherwise
    // end before a late peer ever reached the frontier).
    const std::vector<uint16_t> listen_ports = {frontier_port, writer_port};
    for (size_t i = 0; i < children_.size(); ++i) {
      ChildProcess& child = *children_[i];
      if (Status s = child.Start(); !s.ok()) {
        Say("crawl: cannot start %s: %s\n", child.name().c_str(), s.message().c_str());
        StopAll(SIGTERM);
        return 1;
      }
      if (i < listen_ports.size() && !WaitUntilListening(child, listen_ports[i])) {
        // A frontier that exits 0 at once found its crawl already finished.
        const bool finished = i == 0 && child.last_exit_code == 0;
        start_failed_ = !finished;
        StopAll(SIGTERM);
        const int result = Supervise();
        return finished ? result : 1;
      }
    }
    display_ = std::make_unique<ProgressDisplay>(context_, frontier_endpoint, writer_endpoint, terminal);
    return Supervise();
  }

 private:
  // Prints a line for the user, clearing the live progress line first.
  template <typename... Args>
  void Say(const char* format, Args... args) {
    if (display_) display_->Clear();
    fprintf(stderr, format, args...);
  }

  bool WaitUntilListening(ChildProcess& child, uint16_t port) {
    const int64_t deadline = clock_.NowMs() + 10000;
    while (clock_.NowMs() < deadline) {
      if (LoopbackPortAccepts(port)) return true;
      int code = 0;
      if (child.Reap(&code)) {
        if (code != 0) {
          Say("crawl: %s exited with code %d during start-up\n", child.name().c_str(), code);
        }
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    Say("crawl: %s did not listen on port %u within 10 s\n", child.name().c_str(), port);
    return false;
  }

  int Supervise() {
    int64_t finish_deadline = 0;
    bool stopping = false;
    int result = 0;
    while (true) {
      const int64_t now = clock_.NowMs();
      if (ShutdownSignal::Requested() && !stopping) {
        stopping = true;
        finish_deadline = now + options_.exit_grace_ms;
        Say("crawl: stopping (signal); waiting for processes to finish cleanly\n");
        StopAll(SIGINT);  // a terminal already sent it; a `kill` did not
        result = 130;
      }
      bool any_running = false;
      for (auto& child : children_) {
        int code = 0;
        if (child->Reap(&code)) OnExit(*child, code, stopping, finish_deadline, result);
        if (child->running()) any_running = true;
        if (!child->running() && child->restart_at_ms && now >= child->restart_at_ms) {
          child->restart_at_ms = 0;
          Say("crawl: restarting %s (restart %u)\n", child->name().c_str(), child->restarts);
          if (!child->Start().ok()) result = 1;
          any_running = true;
        }
        if (child->restart_at_ms) any_running = true;
      }
      if (!any_running) break;
      // Peers that never reached the frontier (e.g. still connecting when
      // a small crawl ended) get no Shutdown message: ask them by signal.
      if (frontier_done_ && !terminated_ && now > frontier_exit_ms_ + kPeerExitWaitMs) {
        terminated_ = true;
        StopAll(SIGTERM);
      }
      if (finish_deadline && now > finish_deadline) {
        Say("crawl: processes did not exit in time; terminating them\n");
        StopAll(SIGKILL);
        finish_deadline = 0;
        if (result == 0) result = 1;
      }
      if (display_ && !frontier_done_) display_->Tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (start_failed_ && result == 0) result = 1;
    PrintSummary(result);
    return result;
  }

  void OnExit(ChildProcess& child, int code, bool& stopping, int64_t& finish_deadline, int& result) {
    const int64_t now = clock_.NowMs();
    const bool is_frontier = child.name() == "frontier";
    if (is_frontier && (code == 0 || stopping)) {
      frontier_done_ = true;
      frontier_exit_ms_ = now;
      if (!finish_deadline) finish_deadline = now + options_.exit_grace_ms;
      return;
    }
    if (!is_frontier && (code == 0 || stopping || frontier_done_)) {
      if (code != 0 && !stopping && result == 0) {
        Say("crawl: %s exited with code %d\n", child.name().c_str(), code);
        result = 1;
      }
      return;
    }
    if (IsConfigurationExit(code)) {
      Say("crawl: %s cannot run as configured (exit code %d); stopping\n", child.name().c_str(), code);
      result = 2;
      stopping = true;
      finish_deadline = now + options_.exit_grace_ms;
      StopAll(SIGTERM);
      return;
    }
    // A process crashed mid-crawl: replace it, with backoff. The frontier
    // resumes from its saved state; fetchers and the writer reconnect.
    if (child.restarts >= options_.max_restarts) {
      Say("crawl: %s crashed %u times; giving up on it\n", child.name().c_str(),
              child.restarts);
      result = 1;
      if (is_frontier) {
        stopping = true;
        finish_deadline = now + options_.exit_grace_ms;
        StopAll(SIGTERM);
      }
      return;
    }
    const int64_t backoff = std::min<int64_t>(250LL << std::min<uint32_t>(child.restarts, 6), 10000);
    ++child.restarts;
    child.restart_at_ms = now + backoff;
    Say("crawl: %s exited with code %d; restarting in %lld ms\n", child.name().c_str(),
            code, static_cast<long long>(backoff));
  }

  void StopAll(int signo) {
    for (auto& child : children_) {
      child->restart_at_ms = 0;
      child->Signal(signo);
    }
  }

  void PrintSummary(int result) {
    if (display_) display_->Clear();
    const double seconds = static_cast<double>(clock_.NowMs() - started_ms_) / 1000.0;
    std::ifstream in(summary_file_);
    std::string summary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!summary.empty() && summary.back() == '\n') summary.pop_back();
    Say("crawl: %s after %.1f s; output in %s\n",
            result == 0 ? "finished" : (result == 130 ? "stopped" : "failed"), seconds,
            options_.out_dir.c_str());
    if (display_ && !summary.empty()) display_->PrintSummary(summary, seconds, result == 0);
    if (summary.find("\"already_finished\":true") != std::string::npos) {
      Say("crawl: the crawl in %s had already finished; --fresh starts it over\n",
              options_.out_dir.c_str());
    }

  }

  CrawlOptions options_;
  RealClock clock_;
  zmq::context_t context_{1};
  std::unique_ptr<ProgressDisplay> display_;
  std::vector<std::unique_ptr<ChildProcess>> children_;
  std::string summary_file_;
  int64_t started_ms_ = 0;
  bool frontier_done_ = false;
  int64_t frontier_exit_ms_ = 0;
  bool terminated_ = false;
  bool start_failed_ = false;
};

int Main(int argc, char** argv) {
  CrawlOptions options;
  CLI::App app{"zcrawl: crawl SEED... with a frontier, a writer and fetchers on this machine"};
  AddFlags(app, options);
  bool print_config = false;
  AddConfigFlags(app, &print_config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ExitWithParseError(app, e, "crawl");
  }
  if (MaybePrintConfig(app, print_config)) return 0;
  if (options.seeds.empty()) {
    fprintf(stderr, "crawl: give at least one seed URL (see --help)\n");
    return 2;
  }
  for (const auto& seed : options.seeds) {
    auto url = Url::Parse(seed);
    if (!url.ok() || (url->scheme() != "http" && url->scheme() != "https")) {
      fprintf(stderr, "crawl: seed '%s' is not an http(s) URL\n", seed.c_str());
      return 2;
    }
  }
  ShutdownSignal::Install();
  Launcher launcher(options);
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
