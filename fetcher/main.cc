// zcrawl-fetcher: parses flags, builds the FetcherNode, runs it, exits.
#include <curl/curl.h>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/open_file_limit.h"
#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "fetcher/fetcher_node.h"
#include "fetcher/fetcher_options.h"
#include "fetcher/fetcher_settings.h"

namespace zcrawl::fetcher {
namespace {


int Main(int argc, char** argv) {
  FetcherOptions options;
  CLI::App app{"zcrawl fetcher: fetches leased URLs, parses HTML, stores pages via the writer"};
  SettingsDeclarer declarer(app);
  DeclareFetcherSettings(declarer, options);
  ConfigRequests config_requests;
  AddConfigFlags(app, &config_requests);
  if (auto exit = ParseSettings(app, "fetcher", [&] { app.parse(argc, argv); })) return *exit;
  if (MaybePrintConfig(app, config_requests)) return 0;
  if (Status s = SetupLogging("fetcher", options.logging); !s.ok()) {
    fprintf(stderr, "fetcher: %s\n", s.message().c_str());
    return 2;
  }
  // SetThreads may raise the transfers to kMaxThreads at run time.
  RaiseOpenFileLimit(FetcherOpenFiles(options.http.keep_connections),
                     "the most transfers --threads and SetThreads allow, and --keep-connections");
  ShutdownSignal::Install();
  curl_global_init(CURL_GLOBAL_DEFAULT);
  int code = 0;
  {
    zmq::context_t context(1);
    FetcherNode node(options, context, RealClock::Get());
    if (Status s = node.Start(); !s.ok()) {
      spdlog::error("cannot start: {}", s.message());
      code = 2;
    } else if (Status r = node.Run(); !r.ok()) {
      spdlog::error("fetcher failed: {}", r.ToString());
      code = 1;
    }
  }
  curl_global_cleanup();
  return code;
}

}  // namespace
}  // namespace zcrawl::fetcher

int main(int argc, char** argv) {
  try {
    return zcrawl::fetcher::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "fetcher: fatal: %s\n", e.what());
    return 1;
  }
}
