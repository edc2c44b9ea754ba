// zcrawl-local: the frontier, the writer and N fetchers of `./run crawl
// --single-process`, as threads of this one process. They are the same
// nodes as in zcrawl-frontier, zcrawl-writer and zcrawl-fetcher, speaking
// the same messages, but over inproc:// links: a message passes between
// threads as a pointer, with no socket, no kernel copy and no ZeroMQ I/O
// thread on the way (about a fifth of a crawl's CPU per page on the
// benchmark's site, bench/RESULTS.md run AF). Tools still reach the
// frontier and the writer on their loopback TCP ports.
//
// Command line (written by zcrawl-crawl, not meant for people):
//   zcrawl-local FETCHERS @frontier ARGS... @writer ARGS... @fetcher ARGS...
// Each group is parsed by that component's own settings (one definition of
// every flag).
//
// Failure: a node that fails (its Run returns an error) stops the others,
// which save what they hold as on a signal, and the process exits 1; the
// launcher restarts it and the crawl resumes from the frontier's state, as
// after a kill -9 of the whole process. What the separate processes give
// and this mode does not: a crash of one component takes the others with
// it (their work is resumed, not lost).
#include <curl/curl.h>
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/cli_config.h"
#include "common/clock.h"
#include "common/logging.h"
#include "common/open_file_limit.h"
#include "common/shutdown_signal.h"
#include "fetcher/fetcher_node.h"
#include "fetcher/fetcher_options.h"
#include "fetcher/fetcher_settings.h"
#include "frontier/broker/broker.h"
#include "frontier/frontier_settings.h"
#include "frontier/admission/seed_file.h"
#include "writer/sink_registry.h"
#include "writer/writer_node.h"
#include "writer/writer_settings.h"

namespace zcrawl::launcher {
namespace {

// After the frontier finished, how long the writer and fetchers get to
// follow its Shutdown on their own (as the launcher waits for processes).
constexpr int64_t kPeerExitWaitMs = 2000;

struct Groups {
  uint32_t fetchers = 0;
  std::vector<std::string> frontier, writer, fetcher;
};

bool SplitGroups(int argc, char** argv, Groups* groups) {
  if (argc < 2) return false;
  try {
    groups->fetchers = static_cast<uint32_t>(std::stoul(argv[1]));
  } catch (...) {
    return false;
  }
  std::vector<std::string>* group = nullptr;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "@frontier") group = &groups->frontier;
    else if (arg == "@writer") group = &groups->writer;
    else if (arg == "@fetcher") group = &groups->fetcher;
    else if (group) group->push_back(arg);
    else return false;
  }
  return groups->fetchers >= 1;
}

// Parses one component's group with its own declared settings; returns an
// exit code when the process should exit (a bad flag: 2).
template <typename Options, typename Declare>
std::optional<int> ParseGroup(const char* name, const std::vector<std::string>& args, Options& options,
                              Declare declare) {
  CLI::App app{std::string("zcrawl-local: the ") + name + " settings"};
  SettingsDeclarer declarer(app);
  declare(declarer, options);
  ConfigRequests config_requests;
  AddConfigFlags(app, &config_requests);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  return ParseSettings(app, name, [&] { app.parse(reversed); });
}

// The nodes' threads, and the first failure among them.
class NodeThreads {
 public:
  void Start(std::string name, std::function<Status()> run) {
    threads_.emplace_back([this, name = std::move(name), run = std::move(run)] {
      // "zc-writer", "zc-fetcher": what a profile or top names the thread
      // (the main thread, "zcrawl-local", is the frontier's broker).
      pthread_setname_np(pthread_self(), ("zc-" + name).substr(0, 15).c_str());
      const Status s = run();
      std::lock_guard<std::mutex> lock(mutex_);
      if (!s.ok()) {
        spdlog::error("{} failed: {}; stopping the crawl (it resumes on restart)", name, s.ToString());
        failed_ = true;
        ShutdownSignal::Request();
      }
      ++finished_;
      changed_.notify_all();
    });
  }
  // Waits until every thread finished or `timeout_ms` passed.
  void WaitAll(int64_t timeout_ms) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] { return finished_ == threads_.size(); });
  }
  void JoinAll() {
    for (auto& thread : threads_) thread.join();
    threads_.clear();
  }
  bool failed() {
    std::lock_guard<std::mutex> lock(mutex_);
    return failed_;
  }

 private:
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable changed_;
  size_t finished_ = 0;
  bool failed_ = false;
};

constexpr char kUsage[] =
    "usage: zcrawl-local FETCHERS @frontier ARGS... @writer ARGS... @fetcher ARGS...\n"
    "The frontier, the writer and FETCHERS fetchers as threads of one process, each\n"
    "configured by its group of flags (see zcrawl-frontier, zcrawl-writer and\n"
    "zcrawl-fetcher --help). `./run crawl --single-process` starts it.\n";

int Main(int argc, char** argv) {
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    fputs(kUsage, stdout);
    return 0;
  }
  Groups groups;
  if (!SplitGroups(argc, argv, &groups)) {
    fputs(kUsage, stderr);
    return 2;
  }
  frontier::FrontierOptions frontier_options;
  writer::WriterOptions writer_options;
  fetcher::FetcherOptions fetcher_options;
  if (auto exit = ParseGroup("frontier", groups.frontier, frontier_options, frontier::DeclareFrontierSettings)) {
    return *exit;
  }
  if (auto exit = ParseGroup("writer", groups.writer, writer_options, writer::DeclareWriterSettings)) return *exit;
  if (auto exit = ParseGroup("fetcher", groups.fetcher, fetcher_options, fetcher::DeclareFetcherSettings)) {
    return *exit;
  }
  if (Status s = SetupLogging("local", frontier_options.logging); !s.ok()) {
    fprintf(stderr, "local: %s\n", s.message().c_str());
    return 2;
  }
  // What each zcrawl-fetcher asks for, and room for the frontier's store and
  // the writer's files; their peers are threads here, not connections.
  constexpr uint64_t kFrontierAndWriterFiles = 1024;
  RaiseOpenFileLimit(
      kFrontierAndWriterFiles + groups.fetchers * fetcher::FetcherOpenFiles(fetcher_options.http.keep_connections),
      "frontier, writer and fetchers");
  // Below what was asked (a low hard limit), the fetchers share what is left
  // after the frontier's and the writer's, instead of each counting on all.
  fetcher_options.http.open_files_share =
      fetcher::FetcherOpenFilesShare(OpenFileLimit(), groups.fetchers, kFrontierAndWriterFiles);
  if (Status s = frontier::AddSeedFile(frontier_options); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 2;
  }
  auto sinks = writer::MakeSinks(writer_options.format, writer_options.sink);
  if (!sinks.ok()) {
    spdlog::error("cannot start: {}", sinks.status().message());
    return 2;
  }
  ShutdownSignal::Install();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = 0;
  {
    zmq::context_t context(1);
    frontier::Broker broker(frontier_options, context, RealClock::Get());
    writer::WriterNode writer(writer_options, context, RealClock::Get(), std::move(*sinks));
    std::vector<std::unique_ptr<fetcher::FetcherNode>> fetchers;
    NodeThreads threads;
    // In dependency order, as the launcher starts the processes.
    Status started = broker.Start();
    if (started.ok()) started = writer.Start();
    for (uint32_t i = 0; started.ok() && i < groups.fetchers; ++i) {
      fetchers.push_back(std::make_unique<fetcher::FetcherNode>(fetcher_options, context, RealClock::Get()));
      started = fetchers.back()->Start();
    }
    if (!started.ok()) {
      spdlog::error("cannot start: {}", started.message());
      code = 2;
    } else {
      threads.Start("writer", [&writer] { return writer.Run(); });
      for (auto& node : fetchers) threads.Start("fetcher", [&node] { return node->Run(); });
      if (Status s = broker.Run(); !s.ok()) {
        spdlog::error("frontier failed: {}", s.ToString());
        code = 1;
      }
      threads.WaitAll(kPeerExitWaitMs);
      ShutdownSignal::Request();  // the ones still running: stop now
      threads.JoinAll();
      if (threads.failed()) code = 1;
    }
  }
  curl_global_cleanup();
  return code;
}

}  // namespace
}  // namespace zcrawl::launcher

#ifdef ZCRAWL_JEMALLOC
// The frontier's settings (frontier/main.cc) without its single arena: the
// fetchers' threads allocate here too, and would contend for one.
extern "C" {
const char* malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}
#endif

int main(int argc, char** argv) {
  try {
    return zcrawl::launcher::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "local: fatal: %s\n", e.what());
    return 1;
  }
}
