// zcrawl-frontier: parses flags, builds the Broker, runs it, exits.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/open_file_limit.h"
#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "frontier/broker/broker.h"
#include "frontier/frontier_options.h"
#include "frontier/admission/seed_file.h"
#include "frontier/frontier_settings.h"

namespace zcrawl::frontier {
namespace {


int Main(int argc, char** argv) {
  FrontierOptions options;
  CLI::App app{"zcrawl frontier: owns the URL queue, the visited set and politeness"};
  SettingsDeclarer declarer(app);
  DeclareFrontierSettings(declarer, options);
  ConfigRequests config_requests;
  AddConfigFlags(app, &config_requests);
  if (auto exit = ParseSettings(app, "frontier", [&] { app.parse(argc, argv); })) return *exit;
  if (MaybePrintConfig(app, config_requests)) return 0;
  if (Status s = SetupLogging("frontier", options.logging); !s.ok()) {
    fprintf(stderr, "frontier: %s\n", s.message().c_str());
    return 2;
  }
  RaiseOpenFileLimit(4096, "the frontier (a connection per peer, the store's files)");
  if (Status s = AddSeedFile(options); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 2;
  }
  ShutdownSignal::Install();
  zmq::context_t context(1);
  Broker broker(options, context, RealClock::Get());
  if (Status s = broker.Start(); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 2;
  }
  if (Status s = broker.Run(); !s.ok()) {
    spdlog::error("frontier failed: {}", s.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace zcrawl::frontier

#ifdef ZCRAWL_JEMALLOC
// jemalloc's settings for the frontier, the process whose memory grows with
// the crawl: one arena (its hot path is one thread), and freed pages kept
// for a second, then handed back by jemalloc's own thread. Handing them
// back at once (dirty_decay_ms:0, chosen when RAM held every URL: ~290
// instead of ~350 bytes of RSS per known URL) cost a madvise per freed run,
// whose TLB shootdowns and the page faults that followed were ~30% of the
// broker thread; a second's worth costs ~10 MB of RSS and took a third off
// the frontier's CPU per new URL (bench/RESULTS.md run Y). MALLOC_CONF
// still wins.
extern "C" {
const char* malloc_conf = "narenas:1,background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}
#endif

int main(int argc, char** argv) {
  try {
    return zcrawl::frontier::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "frontier: fatal: %s\n", e.what());
    return 1;
  }
}
