#include "launcher/crawl_settings.h"

#include "fetcher/fetcher_settings.h"
#include "frontier/frontier_settings.h"
#include "writer/writer_settings.h"

namespace zcrawl::launcher {

void DeclareCrawlSettings(CLI::App& app, CrawlOptions& o, ForwardedSettings& forwarded) {
  // Positional seeds are "urls" in a TOML config; "seeds" is --seeds FILE.
  app.add_option("urls", o.seeds, "Seed URLs; their hosts are the crawl's scope");
  app.add_option("--fetchers", o.fetchers, "Fetcher processes")->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  app.add_option("--frontier-port", o.frontier_port, "Frontier port on 127.0.0.1 (0: any free)")
      ->capture_default_str();
  app.add_option("--writer-port", o.writer_port, "Writer port on 127.0.0.1 (0: any free)")
      ->capture_default_str();
  app.add_option("--max-restarts", o.max_restarts, "Restarts of a crashed process")
      ->capture_default_str();
  app.add_option("--exit-grace-ms", o.exit_grace_ms,
                 "After the crawl finished, how long the processes may take to exit")
      ->capture_default_str()->check(CLI::Range(int64_t{100}, int64_t{600000}));
  app.add_flag("--single-process", o.single_process,
               "Run the frontier, the writer and the fetchers as threads of one process, linked in "
               "memory instead of over sockets: less CPU per page; a crash of one restarts them all");
  app.add_flag("--fresh", o.fresh, "Delete an earlier crawl's state and output in --out, start over");
  app.add_option("--recrawl", o.recrawl,
                 "Crawl again what the crawl in this folder captured, asking servers whether each page "
                 "changed (If-None-Match, If-Modified-Since); output goes to --out, a new folder")
      ->check(CLI::ExistingDirectory);
  for (CLI::Option* own : app.get_options()) {
    if (own->get_group() == "Options" && own->get_single_name() != "help") own->group("Crawl");
  }
  // Endpoints, state paths and keys are the launcher's: everything runs on
  // 127.0.0.1. The seed list and the output folder are read here first.
  using enum SettingRoute;
  ComponentSettings frontier_settings(
      app, "frontier", "Frontier (scope, politeness, retries, state)",
      {{"--bind", kWithheld}, {"--state", kWithheld}, {"--fresh", kWithheld},
       {"--summary-file", kWithheld}, {"--stay", kWithheld}, {"--curve-key", kWithheld},
       {"--curve-allow", kWithheld}, {"--insecure", kWithheld}, {"--seeds", kManaged},
       {"--recrawl-list", kWithheld}},
      forwarded);
  frontier::DeclareFrontierSettings(frontier_settings, o.frontier);
  ComponentSettings fetcher_settings(
      app, "fetcher", "Fetchers (HTTP, TLS, parsing)",
      {{"--frontier", kWithheld}, {"--writer", kWithheld}, {"--stay", kWithheld},
       {"--curve-key", kWithheld}, {"--frontier-key", kWithheld}, {"--writer-key", kWithheld}},
      forwarded);
  fetcher::DeclareFetcherSettings(fetcher_settings, o.fetcher);
  ComponentSettings writer_settings(
      app, "writer", "Writer (output)",
      {{"--bind", kWithheld}, {"--frontier", kWithheld}, {"--out", kManaged}, {"--summary-file", kWithheld},
       {"--curve-key", kWithheld}, {"--curve-allow", kWithheld}, {"--insecure", kWithheld},
       {"--frontier-key", kWithheld}},
      forwarded);
  writer::DeclareWriterSettings(writer_settings, o.writer);
  // The launcher picks the log level by where stderr goes.
  if (CLI::Option* level = app.get_option_no_throw("--log-level")) {
    level->default_str("")->description(
        "trace|debug|info|warn|error|off (default: warn on a terminal, else info)");
  }
  if (CLI::Option* port = app.get_option_no_throw("--writer-metrics-port")) {
    port->description("Writer's Prometheus metrics port (default: --metrics-port + 1 when that is set)");
  }
}

}  // namespace zcrawl::launcher
