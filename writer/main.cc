// zcrawl-writer: parses flags, opens the sinks, runs the WriterNode, exits.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/open_file_limit.h"
#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "writer/sink_registry.h"
#include "writer/writer_node.h"
#include "writer/writer_options.h"
#include "writer/writer_settings.h"

namespace zcrawl::writer {
namespace {


int Main(int argc, char** argv) {
  WriterOptions options;
  CLI::App app{"zcrawl writer: stores pages from all fetchers, acknowledges them once durable"};
  SettingsDeclarer declarer(app);
  DeclareWriterSettings(declarer, options);
  ConfigRequests config_requests;
  AddConfigFlags(app, &config_requests);
  if (auto exit = ParseSettings(app, "writer", [&] { app.parse(argc, argv); })) return *exit;
  if (MaybePrintConfig(app, config_requests)) return 0;
  if (Status s = SetupLogging("writer", options.logging); !s.ok()) {
    fprintf(stderr, "writer: %s\n", s.message().c_str());
    return 2;
  }
  RaiseOpenFileLimit(4096, "the writer (a connection per fetcher, its output files)");
  ShutdownSignal::Install();
  auto sinks = MakeSinks(options.format, options.sink);
  if (!sinks.ok()) {
    spdlog::error("cannot start: {}", sinks.status().message());
    return 2;
  }
  zmq::context_t context(1);
  WriterNode node(options, context, RealClock::Get(), std::move(*sinks));
  if (Status s = node.Start(); !s.ok()) {
    spdlog::error("cannot start: {}", s.message());
    return 2;
  }
  if (Status s = node.Run(); !s.ok()) {
    spdlog::error("writer failed: {}", s.ToString());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace zcrawl::writer

int main(int argc, char** argv) {
  try {
    return zcrawl::writer::Main(argc, argv);
  } catch (const std::exception& e) {
    fprintf(stderr, "writer: fatal: %s\n", e.what());
    return 1;
  }
}
