// zcrawl-writer: parses flags, opens the sinks, runs the WriterNode, exits.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "common/cli_config.h"
#include "common/shutdown_signal.h"
#include "writer/sink_registry.h"
#include "writer/writer_node.h"
#include "writer/writer_options.h"

namespace zcrawl::writer {
namespace {

void AddFlags(CLI::App& app, WriterOptions& o) {
  app.add_option("--bind", o.bind, "Endpoint to bind for fetchers")->capture_default_str();
  app.add_option("--frontier", o.frontier, "Frontier endpoint, to learn when the crawl ends");
  app.add_option("--out", o.sink.out_dir, "Output folder")->capture_default_str();
  app.add_option("--format", o.format, "Sinks, comma-separated: files, jsonl, warc; or exec:CMD (one JSON line per page to CMD's stdin)")
      ->capture_default_str();
  app.add_option("--max-batch-pages", o.max_batch_pages, "Pages per group commit")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  app.add_option("--warc-max-bytes", o.sink.warc_max_bytes, "Rotate WARC files at this size")
      ->capture_default_str();
  app.add_option("--warc-prefix", o.sink.warc_prefix, "WARC file name prefix")->capture_default_str();
  app.add_option("--warc-gzip-level", o.sink.warc_gzip_level,
                 "gzip level of WARC records, 0-12 (0: stored, ~3x the bytes; 1: igzip, the fastest compression; 2-12: libdeflate, smaller; 1-12 compressed by the fetchers unless --no-fetcher-compression)")
      ->capture_default_str()->check(CLI::Range(0, 12));
  app.add_option("--warc-threads", o.sink.warc_threads,
                 "Threads compressing WARC records (-1: one per core, 0: none)")
      ->capture_default_str()->check(CLI::Range(-1, 64));
  app.add_flag("!--no-fetcher-compression", o.sink.fetcher_compression,
               "Compress WARC records here instead of asking the fetchers to compress their blocks");
  app.add_flag("--jsonl-body", o.sink.jsonl_body, "Include bodies (base64) in JSON lines");
  app.add_option("--metrics-port", o.metrics_port, "Serve Prometheus metrics here (0: off)")
      ->capture_default_str();
  app.add_option("--metrics-bind", o.metrics_bind, "Address for the metrics endpoint")
      ->capture_default_str();
  app.add_option("--heartbeat-ms", o.heartbeat_ms, "Heartbeat interval")->capture_default_str()
      ->check(CLI::Range(int64_t{10}, int64_t{600000}));
  AddSecurityFlags(app, o.security, /*server=*/true, /*frontier_client=*/true, false);
  app.add_option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  app.add_flag("--log-json", o.logging.json, "Log one JSON object per line");
}

int Main(int argc, char** argv) {
  WriterOptions options;
  CLI::App app{"zcrawl writer: stores pages from all fetchers, acknowledges them once durable"};
  AddFlags(app, options);
  bool print_config = false;
  AddConfigFlags(app, &print_config);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return ExitWithParseError(app, e, "writer");
  }
  if (MaybePrintConfig(app, print_config)) return 0;
  if (Status s = SetupLogging("writer", options.logging); !s.ok()) {
    fprintf(stderr, "writer: %s\n", s.message().c_str());
    return 2;
  }
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
