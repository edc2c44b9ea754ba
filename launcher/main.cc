// zcrawl-crawl: `./run crawl`. Starts one frontier, one writer and N fetcher
// processes on loopback (or, with --single-process, one zcrawl-local that
// runs them all as threads), restarts a process that crashes, and exits
// when the crawl is finished and every process has exited.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "launcher/recrawl.h"

#include "common/cli_config.h"
#include "common/clock.h"
#include "common/seed_list.h"
#include "common/shutdown_signal.h"
#include "common/url.h"
#include "launcher/child_process.h"
#include "launcher/component_settings.h"
#include "launcher/crawl_end.h"
#include "launcher/crawl_options.h"
#include "launcher/crawl_settings.h"
#include "launcher/progress_display.h"
#include "net/loopback_port.h"
#include "writer/sink_registry.h"
#include "writer/wacz_pack.h"

namespace zcrawl::launcher {
namespace {

// Exit codes that mean "cannot start as configured": restarting is useless.
bool IsConfigurationExit(int code) { return code == 2 || (code >= 100 && code < 128); }

std::string BinaryDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

// The child of --single-process (zcrawl-local), named in messages and logs.
constexpr char kLocalChild[] = "local";

// After the frontier exits, how long the others get to follow on their own.
constexpr int64_t kPeerExitWaitMs = 2000;

class Launcher {
 public:
  Launcher(CrawlOptions options, const ForwardedSettings& forwarded, std::vector<std::string> seeds)
      : options_(std::move(options)), forwarded_(forwarded), seeds_(std::move(seeds)) {}

  int Run() {
    const bool terminal = isatty(STDERR_FILENO);
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
    // Each listener binds a Unix socket for this machine's own peers and a
    // loopback TCP port for tools (./run status) and the start-up probe.
    // Pages cross to the writer over the Unix socket, with less kernel time
    // than over loopback TCP (with the digest change of the same commit,
    // 4-6% less CPU per page: bench/RESULTS.md, run U). The socket's
    // name is in the abstract namespace (no file to clean up after a kill)
    // and carries the TCP port, which this crawl holds: no two crawls share
    // a name. Like loopback TCP, any local user can reach it.
    const std::string frontier_endpoint = "tcp://127.0.0.1:" + std::to_string(frontier_port);
    const std::string writer_endpoint = "tcp://127.0.0.1:" + std::to_string(writer_port);
    // With --single-process the peers are threads of one process: inproc://
    // instead (a message passed as a pointer, no socket at all).
    const std::string local_scheme = options_.single_process ? "inproc://" : "ipc://@";
    const std::string frontier_local = local_scheme + "zcrawl-frontier-" + std::to_string(frontier_port);
    const std::string writer_local = local_scheme + "zcrawl-writer-" + std::to_string(writer_port);
    std::error_code ec;
    const std::string& out_dir = options_.writer.sink.out_dir;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) {
      Say("crawl: cannot create output folder %s: %s\n", out_dir.c_str(),
              ec.message().c_str());
      return 2;
    }
    const std::string state_dir = out_dir + "/.zcrawl";
    if (options_.fresh && std::filesystem::exists(state_dir)) {
      // Only a folder that holds our state marker is wiped.
      Say("crawl: --fresh: deleting the earlier crawl in %s\n", out_dir.c_str());
      for (const auto& entry : std::filesystem::directory_iterator(out_dir, ec)) {
        std::filesystem::remove_all(entry.path(), ec);
      }
    } else if (std::filesystem::exists(state_dir + "/frontier.db/CURRENT")) {
      Say("crawl: resuming the crawl saved in %s\n", out_dir.c_str());
    }
    summary_file_ = state_dir + "/summary.json";
    std::filesystem::create_directories(state_dir, ec);
    std::filesystem::remove(summary_file_, ec);

    // Seeds go to the frontier as a file: a list of millions would not fit
    // on a command line.
    const std::string seeds_file = state_dir + "/seeds.txt";
    {
      std::ofstream out(seeds_file, std::ios::trunc);
      for (const auto& seed : seeds_) out << seed << "\n";
      if (!out.flush()) {
        Say("crawl: cannot write %s\n", seeds_file.c_str());
        return 2;
      }
    }
    // Given on the command line or in --config: forwarded as given. A few
    // more are the launcher's to decide when the user did not.
    const std::string log_level = terminal ? "warn" : "info";
    const bool level_given = forwarded_.Given("frontier", "--log-level");
    std::vector<std::string> frontier_args = {
        bin + "/zcrawl-frontier", "--bind", frontier_local + "," + frontier_endpoint, "--state", state_dir,
        "--summary-file", summary_file_, "--seeds=" + seeds_file};
    if (!options_.recrawl.empty()) {
      const std::string list = state_dir + "/recrawl.jsonl";
      Result<uint64_t> written = WriteRecrawlList(options_.recrawl, list);
      if (!written.ok()) {
        Say("crawl: --recrawl: %s\n", written.status().message().c_str());
        return 2;
      }
      Say("crawl: recrawling %llu captures of %s\n", static_cast<unsigned long long>(*written),
          options_.recrawl.c_str());
      frontier_args.push_back("--recrawl-list=" + list);
    }
    Append(frontier_args, forwarded_.ArgsFor("frontier"));
    if (!level_given) frontier_args.push_back("--log-level=" + log_level);

    writer_summary_file_ = state_dir + "/writer-summary.json";
    std::filesystem::remove(writer_summary_file_, ec);
    std::vector<std::string> writer_args = {bin + "/zcrawl-writer", "--bind", writer_local + "," + writer_endpoint,
                                            "--frontier", frontier_local, "--out", out_dir,
                                            "--summary-file", writer_summary_file_};
    Append(writer_args, forwarded_.ArgsFor("writer"));
    // A recrawl's repeats of the earlier crawl's payloads are revisits too.
    if (!options_.recrawl.empty() && !forwarded_.Given("writer", "--dedup-index") &&
        !forwarded_.Given("writer", "--no-warc-dedup")) {
      for (const std::string& index : RecrawlDedupIndexes(options_.recrawl)) {
        writer_args.push_back("--dedup-index=" + index);
      }
    }
    if (!level_given) writer_args.push_back("--log-level=" + log_level);
    // --metrics-port serves the frontier's metrics; the writer's go on the
    // next port unless --writer-metrics-port says otherwise.
    if (options_.frontier.metrics_port != 0 && !forwarded_.Given("writer", "--metrics-port")) {
      writer_args.push_back("--metrics-port=" + std::to_string(options_.frontier.metrics_port + 1));
    }

    const std::string& format = options_.writer.format;
    std::vector<std::string> fetcher_args = {bin + "/zcrawl-fetcher", "--frontier",
                                             frontier_local, "--writer", writer_local};
    Append(fetcher_args, forwarded_.ArgsFor("fetcher"));
    if (!level_given) fetcher_args.push_back("--log-level=" + log_level);
    // Work no output needs is skipped unless asked for: text feeds jsonl and
    // exec sinks, requests as sent feed WARC request records, links the
    // writer sees feed jsonl, exec and WARC metadata records.
    const bool wants_text = format.find("jsonl") != std::string::npos ||
                            format.find("exec:") != std::string::npos;
    const bool wants_warc = format.find("warc") != std::string::npos || WantsWacz();
    const auto derive = [&](const char* name, bool skip) {
      if (skip && !forwarded_.Given("fetcher", name)) fetcher_args.push_back(name);
    };
    derive("--no-text", !wants_text);
    derive("--no-page-links", !wants_text && !wants_warc);  // the files sink lists no links
    derive("--no-request-headers", !wants_warc);
    // Archives replay pages with what they embed (fetcher_options.h).
    if (wants_warc && !forwarded_.Given("fetcher", "--page-requisites") &&
        !forwarded_.Given("fetcher", "--no-page-requisites")) {
      fetcher_args.push_back("--page-requisites");
    }
    if (options_.single_process) {
      // One process hosts them all; each group keeps its own command line
      // (the same flags, parsed by the same definitions).
      std::vector<std::string> local_args = {bin + "/zcrawl-local", std::to_string(options_.fetchers),
                                             "@frontier"};
      Append(local_args, {frontier_args.begin() + 1, frontier_args.end()});
      local_args.push_back("@writer");
      Append(local_args, {writer_args.begin() + 1, writer_args.end()});
      local_args.push_back("@fetcher");
      Append(local_args, {fetcher_args.begin() + 1, fetcher_args.end()});
      children_.push_back(std::make_unique<ChildProcess>(kLocalChild, local_args));
    } else {
      children_.push_back(std::make_unique<ChildProcess>("frontier", frontier_args));
      children_.push_back(std::make_unique<ChildProcess>("writer", writer_args));
      for (uint32_t i = 0; i < options_.fetchers; ++i) {
        children_.push_back(
            std::make_unique<ChildProcess>("fetcher-" + std::to_string(i + 1), fetcher_args));
      }
    }
    // On a terminal the children's log lines come through here, to be
    // printed above the live line; elsewhere they go straight to stderr.
    for (auto& child : children_) child->capture_stderr(terminal);
    started_ms_ = clock_.NowMs();
    Say("crawl: starting frontier, writer and %u fetchers%s; output in %s\n", options_.fetchers,
        options_.single_process ? " in one process" : "", out_dir.c_str());
    // Start in dependency order and wait for each listener, so that no peer
    // talks to a port nobody listens on yet (a tiny crawl can otherwise
    // end before a late peer ever reached the frontier).
    // Ports each child must open, by start order (with --single-process the
    // one child opens both).
    using Ports = std::vector<uint16_t>;
    const std::vector<Ports> listen_ports = options_.single_process
                                                ? std::vector<Ports>{{frontier_port, writer_port}}
                                                : std::vector<Ports>{{frontier_port}, {writer_port}};
    for (size_t i = 0; i < children_.size(); ++i) {
      ChildProcess& child = *children_[i];
      if (Status s = child.Start(); !s.ok()) {
        Say("crawl: cannot start %s: %s\n", child.name().c_str(), s.message().c_str());
        StopAll(SIGTERM);
        return 1;
      }
      const Ports ports = i < listen_ports.size() ? listen_ports[i] : Ports();
      const bool listening = std::all_of(ports.begin(), ports.end(),
                                         [&](uint16_t port) { return WaitUntilListening(child, port); });
      if (!listening) {
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
  // Prints a line for the user above the live progress line: clears it,
  // prints, and draws it again.
  template <typename... Args>
  void Say(const char* format, Args... args) {
    if (display_) display_->Clear();
    if constexpr (sizeof...(Args) == 0) {
      fputs(format, stderr);  // no arguments: not a format (a literal '%' stays)
    } else {
      fprintf(stderr, format, args...);
    }
    if (display_) display_->Redraw();
  }

  // The children's log lines (captured on a terminal only), above the live line.
  void RelayLogs() {
    bool any = false;
    for (auto& child : children_) {
      for (const std::string& line : child->ReadLines()) {
        if (!any && display_) display_->Clear();
        any = true;
        fprintf(stderr, "%s\n", line.c_str());
      }
    }
    if (any && display_) display_->Redraw();
  }

  bool WaitUntilListening(ChildProcess& child, uint16_t port) {
    const int64_t deadline = clock_.NowMs() + 10000;
    while (clock_.NowMs() < deadline) {
      if (LoopbackPortAccepts(port)) return true;
      int code = 0;
      RelayLogs();
      if (child.Reap(&code)) {
        RelayLogs();
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
      RelayLogs();
      if (display_ && !frontier_done_) display_->Tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    RelayLogs();
    if (start_failed_ && result == 0) result = 1;
    result = PrintSummary(result);
    if (result == 0 && WantsWacz()) result = PackWacz();
    return result;
  }

  bool WantsWacz() const {
    const std::vector<std::string> formats = zcrawl::writer::FormatNames(options_.writer.format);
    return std::find(formats.begin(), formats.end(), zcrawl::writer::kWaczFormat) != formats.end();
  }

  // --format wacz: the finished crawl's WARC files as one WACZ.
  int PackWacz() {
    const std::string& out_dir = options_.writer.sink.out_dir;
    const std::string file = out_dir + "/" + std::string(zcrawl::writer::kWaczFileName);
    zcrawl::writer::WaczCounts counts;
    if (Status s = zcrawl::writer::PackWacz(out_dir, file, &counts); !s.ok()) {
      Say("crawl: cannot pack %s: %s (`./run pack %s` tries again)\n", file.c_str(), s.message().c_str(),
          out_dir.c_str());
      return 1;
    }
    Say("crawl: packed %s: %llu WARC file(s), %llu index lines, %llu pages\n", file.c_str(),
        static_cast<unsigned long long>(counts.warc_files), static_cast<unsigned long long>(counts.index_lines),
        static_cast<unsigned long long>(counts.pages + counts.extra_pages));
    return 0;
  }

  void OnExit(ChildProcess& child, int code, bool& stopping, int64_t& finish_deadline, int& result) {
    const int64_t now = clock_.NowMs();
    // The one process of --single-process holds the frontier: the same rules.
    const bool is_frontier = child.name() == "frontier" || child.name() == kLocalChild;
    if (is_frontier && (code == 0 || stopping)) {
      frontier_done_ = true;
      frontier_exit_ms_ = now;
      if (display_) display_->StopDrawing();
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

  // Prints the summary; returns the exit code (docs/OPERATING.md, "Exit codes";
  // crawl_end.h): a crawl that finished without fetching a single page
  // says so with kNothingFetched instead of 0.
  int PrintSummary(int result) {
    const std::string& out_dir = options_.writer.sink.out_dir;
    if (display_) display_->StopDrawing();
    const double seconds = static_cast<double>(clock_.NowMs() - started_ms_) / 1000.0;
    std::ifstream in(summary_file_);
    std::string summary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!summary.empty() && summary.back() == '\n') summary.pop_back();
    Say("crawl: %s after %.1f s; output in %s\n",
            result == 0 ? "finished" : (result == 130 ? "stopped" : "failed"), seconds,
            out_dir.c_str());
    if (display_ && !summary.empty()) display_->PrintSummary(summary, seconds, result == 0);
    PrintWriterSummary();
    // children_[0] is the frontier (or the one process holding it).
    const CrawlEnd end = JudgeCrawlEnd(summary, result, children_.empty() ? 0 : children_.front()->restarts);
    if (end.finished_earlier) {
      Say("crawl: the crawl in %s had already finished; --fresh starts it over\n",
              out_dir.c_str());
    }
    if (end.exit_code == kNothingFetched) {
      Say("crawl: nothing could be fetched (the causes are above); exit code %d\n", kNothingFetched);
    }
    return end.exit_code;
  }

  // What the writer stored, and what revisit records saved (its
  // --summary-file, written when it exits).
  void PrintWriterSummary() {
    std::ifstream in(writer_summary_file_);
    const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) return;
    const auto number = [&](const char* key) { return static_cast<unsigned long long>(json.value(key, uint64_t{0})); };
    Say("crawl: stored %llu pages, %llu body bytes; %llu revisit records saved %llu bytes\n", number("stored"),
        number("bytes"), number("revisits"), number("revisit_bytes_saved"));
  }

  static void Append(std::vector<std::string>& to, const std::vector<std::string>& more) {
    to.insert(to.end(), more.begin(), more.end());
  }

  CrawlOptions options_;
  std::string writer_summary_file_;
  const ForwardedSettings& forwarded_;
  std::vector<std::string> seeds_;  // positional and --seeds, checked
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
  Launcher launcher(options, forwarded, std::move(seeds));
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
