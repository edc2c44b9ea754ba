#include "launcher/command_lines.h"

#include <algorithm>

#include "writer/sink_registry.h"

namespace zcrawl::launcher {
namespace {

void Append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

}  // namespace

bool WantsWacz(const std::string& format) {
  const std::vector<std::string> formats = writer::FormatNames(format);
  return std::find(formats.begin(), formats.end(), writer::kWaczFormat) != formats.end();
}

CrawlCommandLines BuildCommandLines(const CrawlOptions& options, const ForwardedSettings& forwarded,
                                    const CrawlLayout& layout) {
  // Each listener binds a Unix socket for this machine's own peers and a
  // loopback TCP port for tools (./run status) and the start-up probe.
  // Pages cross to the writer over the Unix socket, with less kernel time
  // than over loopback TCP (bench/RESULTS.md, run U). The socket's name is
  // in the abstract namespace (no file to clean up after a kill) and
  // carries the TCP port, which this crawl holds: no two crawls share a
  // name. Like loopback TCP, any local user can reach it.
  const std::string frontier_endpoint = "tcp://127.0.0.1:" + std::to_string(layout.frontier_port);
  const std::string writer_endpoint = "tcp://127.0.0.1:" + std::to_string(layout.writer_port);
  // With --single-process the peers are threads of one process: inproc://
  // instead (a message passed as a pointer, no socket at all).
  const std::string local_scheme = options.single_process ? "inproc://" : "ipc://@";
  const std::string frontier_local = local_scheme + "zcrawl-frontier-" + std::to_string(layout.frontier_port);
  const std::string writer_local = local_scheme + "zcrawl-writer-" + std::to_string(layout.writer_port);
  const std::string& bin = layout.bin_dir;
  // Given on the command line or in --config: forwarded as given. A few
  // more are the launcher's to decide when the user did not.
  const bool level_given = forwarded.Given("frontier", "--log-level");
  CrawlCommandLines lines;

  lines.frontier = {bin + "/zcrawl-frontier", "--bind",         frontier_local + "," + frontier_endpoint,
                    "--state",                layout.state_dir, "--summary-file",
                    layout.summary_file,      "--seeds=" + layout.seeds_file};
  if (!layout.recrawl_list.empty()) lines.frontier.push_back("--recrawl-list=" + layout.recrawl_list);
  if (layout.console_port != 0 && !forwarded.Given("frontier", "--console-port")) {
    lines.frontier.push_back("--console-port=" + std::to_string(layout.console_port));
  }
  Append(lines.frontier, forwarded.ArgsFor("frontier"));
  if (!level_given) lines.frontier.push_back("--log-level=" + layout.log_level);

  lines.writer = {bin + "/zcrawl-writer", "--bind", writer_local + "," + writer_endpoint,
                  "--frontier",           frontier_local, "--out", options.writer.sink.out_dir,
                  "--summary-file",       layout.writer_summary_file};
  Append(lines.writer, forwarded.ArgsFor("writer"));
  // A recrawl's repeats of the earlier crawl's payloads are revisits too.
  if (!forwarded.Given("writer", "--dedup-index") && !forwarded.Given("writer", "--no-warc-dedup")) {
    for (const std::string& index : layout.dedup_indexes) lines.writer.push_back("--dedup-index=" + index);
  }
  if (!level_given) lines.writer.push_back("--log-level=" + layout.log_level);
  // --metrics-port serves the frontier's metrics; the writer's go on the
  // next port unless --writer-metrics-port says otherwise.
  if (options.frontier.metrics_port != 0 && !forwarded.Given("writer", "--metrics-port")) {
    lines.writer.push_back("--metrics-port=" + std::to_string(options.frontier.metrics_port + 1));
  }

  const std::string& format = options.writer.format;
  lines.fetcher = {bin + "/zcrawl-fetcher", "--frontier", frontier_local, "--writer", writer_local};
  Append(lines.fetcher, forwarded.ArgsFor("fetcher"));
  if (!level_given) lines.fetcher.push_back("--log-level=" + layout.log_level);
  // Work no output needs is skipped unless asked for: text feeds jsonl and
  // exec sinks, requests as sent feed WARC request records, links the
  // writer sees feed jsonl, exec and WARC metadata records.
  const bool wants_text = format.find("jsonl") != std::string::npos || format.find("exec:") != std::string::npos;
  const bool wants_warc = format.find("warc") != std::string::npos || WantsWacz(format);
  const auto derive = [&](const char* name, bool skip) {
    if (skip && !forwarded.Given("fetcher", name)) lines.fetcher.push_back(name);
  };
  derive("--no-text", !wants_text);
  derive("--no-page-links", !wants_text && !wants_warc);  // the files sink lists no links
  derive("--no-request-headers", !wants_warc);
  // Archives replay pages with what they embed (fetcher_options.h).
  if (wants_warc && !forwarded.Given("fetcher", "--page-requisites") &&
      !forwarded.Given("fetcher", "--no-page-requisites")) {
    lines.fetcher.push_back("--page-requisites");
  }

  if (options.single_process) {
    // One process hosts them all; each group keeps its own command line
    // (the same flags, parsed by the same definitions).
    lines.local = {bin + "/zcrawl-local", std::to_string(options.fetchers), "@frontier"};
    Append(lines.local, {lines.frontier.begin() + 1, lines.frontier.end()});
    lines.local.push_back("@writer");
    Append(lines.local, {lines.writer.begin() + 1, lines.writer.end()});
    lines.local.push_back("@fetcher");
    Append(lines.local, {lines.fetcher.begin() + 1, lines.fetcher.end()});
    lines.frontier.clear();
    lines.writer.clear();
    lines.fetcher.clear();
  }
  return lines;
}

}  // namespace zcrawl::launcher
