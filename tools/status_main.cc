// zcrawl-status: `./run status [OUT] [--frontier ENDPOINT] [--json]` asks a
// running frontier how the crawl is going and prints its StatusReply: the
// frontier of the crawl writing to OUT (default crawl-out; found through
// OUT/.zcrawl/frontier.beacon, common/crawl_beacon.h), or the one at
// --frontier. It shows URL counts per
// state, the fetch rate, the longest per-origin queues and one row per
// fetcher (leases, workers, last sign of life). Pointed at a writer, which
// answers StatusRequest too, it shows what was stored.
//
// It connects a DEALER with a random routing id, sends one StatusRequest and
// waits for the StatusReply (the frontier treats it as a one-shot control
// peer). No reply within --timeout-ms is an error: exit 1. Single-threaded.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "common/clock.h"
#include <zmq.hpp>

#include "common/crawl_beacon.h"
#include "common/json_writer.h"
#include "common/status_reply_json.h"
#include "common/process_identity.h"
#include "common/status.h"
#include "net/envelope_codec.h"
#include "tools/frontier_client.h"
#include "net/socket_security.h"
#include "net/zmq_io.h"
#include "zcrawl.pb.h"

namespace zcrawl {
namespace {

struct StatusToolOptions {
  // Given: that frontier. Not given: the one of the crawl writing to
  // `out`, found through its beacon (common/crawl_beacon.h).
  std::string frontier;
  std::string out = "crawl-out";
  bool json = false;
  // Long enough for a busy frontier's broker loop, short enough that a
  // script polling a dead frontier does not hang.
  int timeout_ms = 3000;
  // Operator control: resize fetcher pools (0: leave them).
  uint32_t set_threads = 0;
  std::string fetcher_id;  // "" = every fetcher
  SecurityOptions security;  // CURVE towards a secured frontier
};

Result<v1::StatusReply> RequestStatus(const StatusToolOptions& options) {
  v1::StatusRequest request;
  request.set_set_threads(options.set_threads);
  request.set_fetcher_id(options.fetcher_id);
  return AskFrontier(FrontierAddress{options.frontier, options.security, options.timeout_ms}, request);
}

// A plain text table: the first row is the header; the first column is
// left-aligned, the others right-aligned.
std::string Table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    out += "  ";
    for (size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - row[c].size(), ' ');
      if (c > 0) out += "  ";
      out += c == 0 ? row[c] + (c + 1 < row.size() ? pad : "") : pad + row[c];
    }
    out += '\n';
  }
  return out;
}

// A writer answers StatusRequest with what it stored only; a frontier
// always knows a URL and an origin (its seeds), so a reply with neither is
// a writer's (PROTOCOL.md 3.4).
bool IsWriterReply(const v1::StatusReply& r) { return r.seen() == 0 && r.hosts() == 0 && r.fetchers().empty(); }

std::string FormatText(const StatusToolOptions& options, const v1::StatusReply& r) {
  std::string out;
  if (IsWriterReply(r)) {
    return "writer " + options.frontier + ":" +
           (r.uptime_ms() > 0 ? " up " + FormatRate(static_cast<double>(r.uptime_ms()) / 1000.0) + " s" : "") +
           (r.waiting_for_space().empty() ? "" : " WAITING FOR SPACE: " + r.waiting_for_space()) +
           "\nstored: pages=" + std::to_string(r.pages_stored()) + " bytes=" + std::to_string(r.bytes_stored()) +
           " duplicates=" + std::to_string(r.duplicates()) + "\n";
  }
  out += "frontier " + options.frontier + ": " + (r.finished() ? "finished" : "running") +
         ", up " + FormatRate(static_cast<double>(r.uptime_ms()) / 1000.0) + " s\n";
  out += "urls: waiting=" + std::to_string(r.waiting()) + " leased=" + std::to_string(r.leased()) +
         " done=" + std::to_string(r.done()) + " failed=" + std::to_string(r.failed()) +
         " seen=" + std::to_string(r.seen());
  if (r.max_pages() > 0) out += " max_pages=" + std::to_string(r.max_pages());
  out += "\n";
  out += "rate: " + FormatRate(r.pages_per_second()) + " pages/s\n";
  out += "hosts: " + std::to_string(r.hosts()) + " known\n";
  if (r.pages_stored() > 0 || r.bytes_stored() > 0 || r.duplicates() > 0) {
    out += "stored: pages=" + std::to_string(r.pages_stored()) + " bytes=" +
           std::to_string(r.bytes_stored()) + " duplicates=" + std::to_string(r.duplicates()) + "\n";
  }
  if (r.has_writer()) {
    // The writer's row, from its latest heartbeat to the frontier.
    const auto& w = r.writer();
    out += "writer: stored " + std::to_string(w.pages_stored()) + " pages, " + std::to_string(w.bytes_stored()) +
           " bytes, " + std::to_string(w.duplicates()) + " duplicates; " +
           FormatRate(static_cast<double>(w.free_disk_bytes()) / 1e9) + " GB free; heard " +
           std::to_string(r.writer_last_seen_ms_ago()) + " ms ago" +
           (w.waiting_for_space().empty() ? "" : "; WAITING FOR SPACE: " + w.waiting_for_space()) + "\n";
  }
  if (r.malformed_messages() > 0) {
    out += "malformed messages dropped: " + std::to_string(r.malformed_messages()) + "\n";
  }
  if (r.paused()) out += "PAUSED by an operator: no new leases (./run control resume)\n";
  if (r.draining()) out += "DRAINING by an operator: no new URLs admitted; ends when what is known is done\n";
  if (!r.blocks().empty() || !r.overrides().empty()) {
    out += "operator rules: " + std::to_string(r.blocks_size()) + " blocks, " + std::to_string(r.overrides_size()) +
           " politeness overrides (./run control blocks)\n";
  }
  if (!r.waiting_for_space().empty()) out += "WAITING FOR SPACE: " + r.waiting_for_space() + "\n";

  if (r.top_hosts().empty()) {
    out += "\ntop hosts: no queued URLs\n";
  } else {
    out += "\ntop hosts by queue length:\n";
    std::vector<std::vector<std::string>> rows = {{"ORIGIN", "WAITING", "IN_FLIGHT", "DONE", "FAILED"}};
    for (const auto& host : r.top_hosts()) {
      rows.push_back({host.host(), std::to_string(host.waiting()), std::to_string(host.in_flight()),
                      std::to_string(host.done()), std::to_string(host.failed())});
    }
    out += Table(rows);
  }

  if (!r.failing_hosts().empty()) {
    out += "\nhosts with failures (nothing fetched first):\n";
    std::vector<std::vector<std::string>> rows = {{"ORIGIN", "DONE", "FAILED", "LAST FAILURE"}};
    for (const auto& host : r.failing_hosts()) {
      // As the closing summary says it: a state from an older build kept
      // no cause across a restart.
      rows.push_back({host.host(), std::to_string(host.done()), std::to_string(host.failed()),
                      host.last_failure().empty() ? "unknown" : host.last_failure()});
    }
    out += Table(rows);
  }

  if (!r.slowed_hosts().empty()) {
    out += "\nhosts that pushed back (" + std::to_string(r.origins_backing_off()) + " backing off now, " +
           std::to_string(r.held_by_server()) + " URLs held for them):\n";
    std::vector<std::vector<std::string>> rows = {{"ORIGIN", "PUSHBACKS", "GAP_MS", "AT_ONCE", "BACKING OFF", "WHY"}};
    const int64_t now_ms = RealClock::Get().WallMs();
    for (const auto& host : r.slowed_hosts()) {
      const std::string since = host.backoff_since_ms() == 0
                                    ? "no"
                                    : "for " + std::to_string(std::max<int64_t>(
                                                   now_ms - static_cast<int64_t>(host.backoff_since_ms()), 0) /
                                                   1000) + " s";
      rows.push_back({host.host(), std::to_string(host.pushbacks()), std::to_string(host.gap_ms()),
                      std::to_string(host.concurrency()), since, host.last_failure()});
    }
    out += Table(rows);
  }

  if (!r.addresses().empty()) {
    // Origins on one server share --per-ip (address_budgets.h).
    out += "\nserver addresses (" + std::to_string(r.addresses_busy()) + " with requests now, busiest):\n";
    std::vector<std::vector<std::string>> rows = {{"ADDRESS", "IN_FLIGHT", "ORIGINS_WAITING", "DELAY_LEFT_MS"}};
    for (const auto& a : r.addresses()) {
      rows.push_back({a.address().empty() ? "(not yet named)" : a.address(), std::to_string(a.in_flight()),
                      std::to_string(a.origins_waiting()), std::to_string(a.delay_left_ms())});
    }
    out += Table(rows);
  }

  if (r.fetchers().empty()) {
    out += "\nfetchers: none connected\n";
  } else {
    out += "\nfetchers:\n";
    std::vector<std::vector<std::string>> rows = {
        {"ID", "MACHINE", "LEASED", "DONE", "LIVE", "IDLE", "QUEUED", "FETCHING", "IN_FLIGHT", "LAST_SEEN_MS"}};
    for (const auto& f : r.fetchers()) {
      rows.push_back({f.sender_id(), f.hostname().empty() ? "?" : f.hostname() + ":" + std::to_string(f.pid()),
                      std::to_string(f.leased()), std::to_string(f.completed()),
                      std::to_string(f.load().live_workers()), std::to_string(f.load().idle_workers()),
                      std::to_string(f.load().queued()), std::to_string(f.load().transfers()),
                      std::to_string(f.load().in_flight()),
                      std::to_string(f.last_seen_ms_ago())});
    }
    out += Table(rows);
  }
  return out;
}

std::string FormatJson(const StatusToolOptions& options, const v1::StatusReply& r) {
  return StatusReplyJson(r, options.frontier) + "\n";
}

int Main(int argc, char** argv) {
  StatusToolOptions options;
  CLI::App app{"zcrawl status: ask a running crawl's frontier how the crawl is going"};
  app.add_option("out", options.out, "The crawl's output folder (--out), to find its frontier")
      ->capture_default_str();
  app.add_option("--frontier", options.frontier, "Frontier endpoint (default: the crawl writing to OUT)");
  app.add_flag("--json", options.json, "Print one JSON object instead of tables");
  app.add_option("--set-threads", options.set_threads,
                 "First set how many URLs fetchers (all, or --fetcher ID) work on at once")
      ->check(CLI::Range(1u, 4096u));
  SettingsDeclarer declarer(app);
  AddSecurityFlags(declarer, options.security, /*server=*/false, /*frontier_client=*/true, false);
  app.add_option("--fetcher", options.fetcher_id, "With --set-threads: only this fetcher (its id)");
  app.add_option("--timeout-ms", options.timeout_ms, "Give up (exit 1) without a reply after this")
      ->capture_default_str()->check(CLI::Range(1, 3600000));
  if (auto exit = zcrawl::ParseSettings(app, "status", [&] { app.parse(argc, argv); })) return *exit;
  if (Status s = ResolveFrontier(options.out, app.count("out") > 0, &options.frontier); !s.ok()) {
    std::cerr << "zcrawl-status: " << s.message() << "\n";
    return 1;
  }
  auto reply = RequestStatus(options);
  if (!reply.ok()) {
    std::cerr << "zcrawl-status: " << reply.status().message() << "\n";
    return 1;
  }
  std::cout << (options.json ? FormatJson(options, *reply) : FormatText(options, *reply));
  // The web console of the crawl found in OUT, from its beacon.
  if (auto beacon = ReadCrawlBeacon(options.out + "/.zcrawl");
      !options.json && beacon.ok() && !beacon->console.empty() &&
      std::find(beacon->endpoints.begin(), beacon->endpoints.end(), options.frontier) != beacon->endpoints.end()) {
    std::cout << "\nconsole: " << beacon->console << "\n";
  }
  std::cout.flush();
  return std::cout ? 0 : 1;
}

}  // namespace
}  // namespace zcrawl

int main(int argc, char** argv) {
  try {
    return zcrawl::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "zcrawl-status: fatal: %s\n", e.what());
    return 1;
  }
}
