#include "launcher/crawl_launcher.h"

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/http_service.h"
#include "launcher/command_lines.h"
#include "launcher/crawl_end.h"
#include "launcher/recrawl.h"
#include "net/loopback_port.h"
#include "writer/sink_registry.h"

namespace zcrawl::launcher {
namespace {

// The child of --single-process (zcrawl-local), named in messages and logs.
constexpr char kLocalChild[] = "local";

}  // namespace

CrawlLauncher::CrawlLauncher(CrawlOptions options, const ForwardedSettings& forwarded,
                             std::vector<std::string> seeds, LauncherEnv env)
    : options_(std::move(options)),
      forwarded_(forwarded),
      seeds_(std::move(seeds)),
      env_(std::move(env)),
      console_(env_.out) {}

int CrawlLauncher::Run() {
  const uint16_t frontier_port = options_.frontier_port ? options_.frontier_port : FreeLoopbackPort();
  const uint16_t writer_port = options_.writer_port ? options_.writer_port : FreeLoopbackPort();
  if (!LoopbackPortBindable(frontier_port)) {
    console_.Say("crawl: port %u (--frontier-port) is in use\n", frontier_port);
    return 2;
  }
  if (!LoopbackPortBindable(writer_port) || writer_port == frontier_port) {
    console_.Say("crawl: port %u (--writer-port) is in use\n", writer_port);
    return 2;
  }
  const std::string& out_dir = options_.writer.sink.out_dir;
  Result<OutputFolderState> folder = PrepareOutputFolder(out_dir, options_.fresh, env_.remove);
  if (!folder.ok()) {
    console_.Say("crawl: %s%s; nothing was started\n", options_.fresh ? "--fresh: " : "",
                 folder.status().message().c_str());
    return 2;
  }
  if (*folder == OutputFolderState::kCleared) {
    console_.Say("crawl: --fresh: deleted the earlier crawl in %s\n", out_dir.c_str());
  } else if (*folder == OutputFolderState::kResuming) {
    console_.Say("crawl: resuming the crawl saved in %s\n", out_dir.c_str());
  }
  CrawlLayout layout;
  layout.bin_dir = env_.bin_dir;
  layout.frontier_port = frontier_port;
  layout.writer_port = writer_port;
  // The web console, on by default on a free loopback port; --console-port
  // chooses one (0: off).
  const bool console_given = forwarded_.Given("frontier", "--console-port");
  layout.console_port = console_given ? options_.frontier.console_port : FreeLoopbackPort();
  layout.state_dir = StateDir(out_dir);
  layout.summary_file = summary_file_ = layout.state_dir + "/summary.json";
  layout.writer_summary_file = writer_summary_file_ = layout.state_dir + "/writer-summary.json";
  layout.seeds_file = layout.state_dir + "/seeds.txt";
  layout.log_level = env_.terminal ? "warn" : "info";
  std::error_code ec;
  std::filesystem::create_directories(layout.state_dir, ec);
  std::filesystem::remove(summary_file_, ec);
  std::filesystem::remove(writer_summary_file_, ec);
  // Seeds go to the frontier as a file: a list of millions would not fit
  // on a command line.
  {
    std::ofstream out(layout.seeds_file, std::ios::trunc);
    for (const auto& seed : seeds_) out << seed << "\n";
    if (!out.flush()) {
      console_.Say("crawl: cannot write %s\n", layout.seeds_file.c_str());
      return 2;
    }
  }
  if (!options_.recrawl.empty()) {
    layout.recrawl_list = layout.state_dir + "/recrawl.jsonl";
    Result<uint64_t> written = WriteRecrawlList(options_.recrawl, layout.recrawl_list);
    if (!written.ok()) {
      console_.Say("crawl: --recrawl: %s\n", written.status().message().c_str());
      return 2;
    }
    console_.Say("crawl: recrawling %llu captures of %s\n", static_cast<unsigned long long>(*written),
                 options_.recrawl.c_str());
    layout.dedup_indexes = RecrawlDedupIndexes(options_.recrawl);
  }
  const CrawlCommandLines lines = BuildCommandLines(options_, forwarded_, layout);

  // The frontier (or the one process holding it) first; ports each child
  // must open before the next starts.
  std::vector<SupervisedChild> children;
  const auto add = [&](const std::string& name, const std::vector<std::string>& argv,
                       std::vector<uint16_t> ports) {
    children.push_back(SupervisedChild{env_.make_child(name, argv), std::move(ports)});
  };
  if (options_.single_process) {
    add(kLocalChild, lines.local, {frontier_port, writer_port});
  } else {
    add("frontier", lines.frontier, {frontier_port});
    add("writer", lines.writer, {writer_port});
    for (uint32_t i = 0; i < options_.fetchers; ++i) add("fetcher-" + std::to_string(i + 1), lines.fetcher, {});
  }
  children_made_ = children.size();
  SupervisorOptions supervision;
  supervision.max_restarts = options_.max_restarts;
  supervision.exit_grace_ms = options_.exit_grace_ms;
  ProcessSupervisor supervisor(std::move(children), supervision, env_.supervisor, console_);

  started_ms_ = env_.supervisor.clock->NowMs();
  console_.Say("crawl: starting frontier, writer and %u fetchers%s; output in %s\n", options_.fetchers,
               options_.single_process ? " in one process" : "", out_dir.c_str());
  switch (supervisor.StartAll()) {
    case ProcessSupervisor::StartResult::kCannotStart:
      return 1;
    case ProcessSupervisor::StartResult::kFailed: {
      const int result = supervisor.Supervise();
      Finish(result == 0 ? 1 : result, supervisor.frontier_restarts());
      return 1;
    }
    case ProcessSupervisor::StartResult::kFinishedAtOnce:
      return Finish(supervisor.Supervise(), supervisor.frontier_restarts());
    case ProcessSupervisor::StartResult::kStarted:
      break;
  }
  // Where to watch it from another terminal: the frontier's beacon in the
  // state folder leads `./run status` there (common/crawl_beacon.h).
  console_.Say("crawl: watch it with ./run status%s%s\n", out_dir == "crawl-out" ? "" : " ",
               out_dir == "crawl-out" ? "" : out_dir.c_str());
  if (layout.console_port != 0) {
    const std::string& bind = options_.frontier.console_bind;
    const std::string token = IsLoopbackName(bind) ? "" : " (its token: " + layout.state_dir + "/console.token)";
    console_.Say("crawl: console on http://%s:%u/%s\n", bind.c_str(), static_cast<unsigned>(layout.console_port),
                 token.c_str());
  }
  if (env_.make_display) {
    display_ = env_.make_display("tcp://127.0.0.1:" + std::to_string(frontier_port),
                                 "tcp://127.0.0.1:" + std::to_string(writer_port));
    console_.set_display(display_.get());
  }
  return Finish(supervisor.Supervise(), supervisor.frontier_restarts());
}

// The summary, then the WACZ of a crawl that succeeded.
int CrawlLauncher::Finish(int result, uint32_t frontier_restarts) {
  result = PrintSummary(result, frontier_restarts);
  if (result == 0 && WantsWacz(options_.writer.format)) result = PackWacz();
  return result;
}

// Prints the summary; returns the exit code (docs/OPERATING.md, "Exit codes";
// crawl_end.h): a crawl that finished without fetching a single page says
// so with kNothingFetched instead of 0.
int CrawlLauncher::PrintSummary(int result, uint32_t frontier_restarts) {
  const std::string& out_dir = options_.writer.sink.out_dir;
  console_.StopDrawing();
  const double seconds = static_cast<double>(env_.supervisor.clock->NowMs() - started_ms_) / 1000.0;
  std::ifstream in(summary_file_);
  std::string summary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!summary.empty() && summary.back() == '\n') summary.pop_back();
  const CrawlEnd end = JudgeCrawlEnd(summary, result, frontier_restarts);
  const int said = end.exit_code == kNothingFetched ? 0 : end.exit_code;
  console_.Say("crawl: %s after %.1f s; output in %s\n",
               said == 0 ? "finished" : (said == kStopped ? "stopped" : "failed"), seconds, out_dir.c_str());
  if (display_ && !summary.empty()) display_->PrintSummary(summary, seconds, said == 0);
  PrintWriterSummary();
  if (end.finished_earlier) {
    console_.Say("crawl: the crawl in %s had already finished; --fresh starts it over\n", out_dir.c_str());
  }
  if (end.exit_code == kNothingFetched) {
    console_.Say("crawl: nothing could be fetched (the causes are above); exit code %d\n", kNothingFetched);
  }
  return end.exit_code;
}

// What the writer stored, and what revisit records saved (its
// --summary-file, written when it exits).
void CrawlLauncher::PrintWriterSummary() {
  std::ifstream in(writer_summary_file_);
  const auto json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return;
  const auto number = [&](const char* key) { return static_cast<unsigned long long>(json.value(key, uint64_t{0})); };
  console_.Say("crawl: stored %llu pages, %llu body bytes; %llu revisit records saved %llu bytes\n",
               number("stored"), number("bytes"), number("revisits"), number("revisit_bytes_saved"));
}

// --format wacz: the finished crawl's WARC files as one WACZ.
int CrawlLauncher::PackWacz() {
  packed_ = true;
  const std::string& out_dir = options_.writer.sink.out_dir;
  const std::string file = out_dir + "/" + std::string(writer::kWaczFileName);
  writer::WaczCounts counts;
  if (Status s = env_.pack_wacz(out_dir, file, &counts); !s.ok()) {
    console_.Say("crawl: cannot pack %s: %s (`./run pack %s` tries again)\n", file.c_str(), s.message().c_str(),
                 out_dir.c_str());
    return 1;
  }
  console_.Say("crawl: packed %s: %llu WARC file(s), %llu index lines, %llu pages\n", file.c_str(),
               static_cast<unsigned long long>(counts.warc_files),
               static_cast<unsigned long long>(counts.index_lines),
               static_cast<unsigned long long>(counts.pages + counts.extra_pages));
  return 0;
}

}  // namespace zcrawl::launcher
