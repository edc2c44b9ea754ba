// frontier_scale_bench: the frontier PROCESS as its crawl grows. It starts
// the real zcrawl-frontier on free loopback ports, drives it through the
// real protocol with K fake fetchers (fake_fetcher.h: a DEALER and a
// protocol session each, answering every lease at once with the page's
// links in an endless synthetic web, synthetic_web.h), and every S seconds
// samples the frontier: its Prometheus metrics, its RSS and peak RSS and
// CPU from /proc, and the bytes of its state folder. It stops when the
// frontier knows --target-urls URLs or after --max-seconds, stops the
// frontier by pid (SIGINT, SIGKILL after 15 s) and prints the medians of
// the rates over the last half of the samples. With --kill-resume it kills
// the frontier with SIGKILL instead and times its resume on the same state
// (resume_probe.h) before stopping it.
//
//   frontier_scale_bench --frontier-bin BIN --state DIR --csv FILE
//       [--memory-mb N] [--target-urls N] [--max-seconds T] [--hosts H]
//       [--fetchers K] [--every-s S] [--kill-resume [--resume-csv FILE]]
//       [--continue-state]
//       [-- EXTRA_FRONTIER_FLAGS...]
//
// One CSV row and one line per sample; bench/frontier_scale/plot.sh draws
// the CSV; --kill-resume adds a one-row CSV. Exit 0 after a run with at
// least two samples (also when the frontier finished its crawl and exited
// 0), 1 if the frontier failed, died or never published metrics, or did
// not lease again after the kill, 2 for bad flags, 130 on Ctrl-C (after
// the figures). What each column means is in bench/README.md ("Frontier
// scale").
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "bench/frontier_scale/fake_fetcher.h"
#include "bench/frontier_scale/frontier_process.h"
#include "bench/frontier_scale/metrics_scrape.h"
#include "bench/frontier_scale/resume_probe.h"
#include "bench/frontier_scale/scale_sample.h"
#include "bench/frontier_scale/synthetic_web.h"
#include "common/process_identity.h"
#include "common/shutdown_signal.h"
#include "net/envelope_codec.h"
#include "net/loopback_port.h"

namespace zcrawl::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  std::string frontier_bin;
  std::string state_dir;
  std::string csv = "frontier_scale.csv";
  uint64_t memory_mb = 512;
  uint64_t target_urls = 100'000'000;
  double max_seconds = 3600;
  uint32_t fetchers = 4;
  uint32_t hosts_per_address = 0;  // FakeFetcherOptions::hosts_per_address
  uint32_t credit = 256;
  double every_s = 5;
  uint32_t seeds = 8;
  bool robots = false;  // let the frontier lease robots.txt first (answered "none")
  bool kill_resume = false;
  bool continue_state = false;  // start on --state as an earlier run left it
  std::string resume_csv;  // empty: the --csv name with -resume.csv
  double resume_drive_s = 10;
  double rebuild_wait_s = 300;
  SyntheticWebOptions web;
  std::vector<std::string> frontier_flags;  // after "--"
};

double OwnCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// `resume`: the restart of --kill-resume, on the state the killed run left
// (no --fresh), logging at info level, which says when the filter is rebuilt.
std::vector<std::string> FrontierArgs(const BenchOptions& o, const std::string& help, uint16_t port,
                                      uint16_t metrics_port, bool resume) {
  std::vector<std::string> args;
  auto flag = [&args](std::string name, std::string value) {
    args.push_back(std::move(name));
    args.push_back(std::move(value));
  };
  flag("--bind", "tcp://127.0.0.1:" + std::to_string(port));
  flag("--state", o.state_dir);
  if (!resume && !o.continue_state) args.push_back("--fresh");
  flag("--delay-ms", "0");
  flag("--per-host", "8");
  flag("--retries", "0");
  flag("--metrics-port", std::to_string(metrics_port));
  flag("--allow-domain", "synth.test");
  flag("--log-level", resume ? "info" : "warn");
  if (!o.robots) args.push_back("--no-robots");
  if (help.find("--memory-mb") != std::string::npos) {
    flag("--memory-mb", std::to_string(o.memory_mb));
  } else if (!resume) {
    printf("note: this frontier has no --memory-mb; running it without\n");
  }
  args.insert(args.end(), o.frontier_flags.begin(), o.frontier_flags.end());
  const SyntheticWeb web(o.web);
  for (uint32_t h = 0; h < o.seeds; ++h) args.push_back(web.Url({h, 0}));
  return args;
}

// The resumed frontier's log goes beside the state folder (a file inside
// it would be counted as state): DIR-resume.log.
ResumeOptions ResumeOptionsFor(const BenchOptions& o, const std::string& help, uint16_t port,
                               uint16_t metrics_port) {
  std::filesystem::path state = std::filesystem::absolute(o.state_dir).lexically_normal();
  if (!state.has_filename()) state = state.parent_path();  // "DIR/"
  ResumeOptions r;
  r.frontier_bin = o.frontier_bin;
  r.args = FrontierArgs(o, help, port, metrics_port, /*resume=*/true);
  r.log_path = (state.parent_path() / (state.filename().string() + "-resume.log")).string();
  r.state_dir = o.state_dir;
  r.metrics_port = metrics_port;
  r.drive_s = o.resume_drive_s;
  r.rebuild_wait_s = o.rebuild_wait_s;
  return r;
}

std::string ResumeCsvPath(const BenchOptions& o) {
  if (!o.resume_csv.empty()) return o.resume_csv;
  const std::string suffix = ".csv";
  std::string stem = o.csv;
  if (stem.size() >= suffix.size() && stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
    stem.resize(stem.size() - suffix.size());
  }
  return stem + "-resume.csv";
}

int Run(const BenchOptions& o) {
  auto help = FrontierProcess::HelpText(o.frontier_bin);
  if (!help.ok()) {
    fprintf(stderr, "frontier_scale_bench: %s\n", help.status().message().c_str());
    return 2;
  }
  FILE* csv = fopen(o.csv.c_str(), "w");
  if (csv == nullptr) {
    fprintf(stderr, "frontier_scale_bench: cannot write %s\n", o.csv.c_str());
    return 2;
  }
  WriteCsvHeader(csv);
  const uint16_t port = FreeLoopbackPort();
  uint16_t metrics_port = FreeLoopbackPort();
  while (metrics_port == port) metrics_port = FreeLoopbackPort();
  const std::vector<std::string> args = FrontierArgs(o, *help, port, metrics_port, /*resume=*/false);
  std::string command = o.frontier_bin;
  for (const auto& arg : args) command += " " + arg;
  printf("frontier: %s\n", command.c_str());
  printf(
      "web: %llu hosts, skew %.2f, %u new + %u known links a page, %u popular pages a host; "
      "%u fetchers x %u credit; target %s URLs or %.0f s\n",
      static_cast<unsigned long long>(o.web.hosts), o.web.host_skew, o.web.children, o.web.known_links,
      o.web.popular, o.fetchers, o.credit, Grouped(static_cast<double>(o.target_urls)).c_str(),
      o.max_seconds);
  fflush(stdout);

  auto frontier = FrontierProcess::Spawn(o.frontier_bin, args);
  if (!frontier.ok()) {
    fprintf(stderr, "frontier_scale_bench: %s\n", frontier.status().message().c_str());
    return 1;
  }
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };

  zmq::context_t context(1);
  const SyntheticWeb web(o.web);
  std::vector<std::unique_ptr<FakeFetcher>> fetchers;
  for (uint32_t k = 0; k < o.fetchers; ++k) {
    FakeFetcherOptions f;
    f.endpoint = "tcp://127.0.0.1:" + std::to_string(port);
    f.name = MakeRunId("fetcher-scale-" + std::to_string(k));
    f.credit = o.credit;
    f.hosts_per_address = o.hosts_per_address;
    fetchers.push_back(std::make_unique<FakeFetcher>(context, web, f));
    fetchers.back()->Start();
  }

  auto take = [&]() -> std::optional<ScaleSample> {
    auto metrics = ScrapeMetrics(metrics_port, 2000);
    if (!metrics.ok()) return std::nullopt;
    ScaleSample s;
    s.elapsed_s = elapsed();
    s.metrics = std::move(*metrics);
    s.memory = (*frontier)->Memory();
    s.cpu_s = (*frontier)->CpuSeconds();
    s.disk_bytes = FolderDiskBytes(o.state_dir);
    s.bench_cpu_s = OwnCpuSeconds();
    return s;
  };

  int exit_code = 0;
  std::string stop_reason;
  std::vector<SampleRates> rows;
  std::optional<ScaleSample> previous;
  ScaleSample last;
  while (!previous) {  // the first snapshot: the baseline of the rates
    if (!(*frontier)->Running()) {
      stop_reason = "frontier ended before publishing metrics: " + (*frontier)->exit_description();
      exit_code = 1;
      break;
    }
    if (ShutdownSignal::Requested()) {
      stop_reason = "interrupted before the first sample";
      exit_code = 130;
      break;
    }
    if (elapsed() > 60) {
      stop_reason = "no metrics from the frontier within 60 s";
      exit_code = 1;
      break;
    }
    previous = take();
    if (!previous) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  double next_row_s = previous ? previous->elapsed_s + o.every_s : 0;
  double next_check_s = 0;
  while (stop_reason.empty()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const double now = elapsed();
    bool stop = false;
    if (ShutdownSignal::Requested()) {
      stop_reason = "interrupted";
      exit_code = 130;
      stop = true;
    } else if (!(*frontier)->Running()) {
      stop_reason = "frontier ended by itself: " + (*frontier)->exit_description();
      if ((*frontier)->exit_description() != "exit 0") exit_code = 1;  // 0: its crawl finished
      break;
    } else if (now >= o.max_seconds) {
      stop_reason = "--max-seconds reached";
      stop = true;
    } else if (now >= next_check_s) {  // the target, checked every second
      next_check_s = now + 1;
      auto check = ScrapeMetrics(metrics_port, 2000);
      auto seen = check.ok() ? check->find(kSeenUrls) : Metrics::iterator();
      if (check.ok() && seen != check->end() && seen->second >= static_cast<double>(o.target_urls)) {
        stop_reason = "--target-urls reached";
        stop = true;
      }
    }
    if (!stop && now < next_row_s) continue;
    // The frontier publishes about once a second: a stop sooner after the
    // last row would add one of the same metrics, with rates of zero.
    if (stop && now - previous->elapsed_s < 1.0) break;
    std::optional<ScaleSample> sample = take();
    if (!sample) {
      if (stop) break;
      continue;  // a busy frontier missed the scrape: the next turn retries
    }
    next_row_s = sample->elapsed_s + o.every_s;
    rows.push_back(RatesBetween(*previous, *sample));
    WriteCsvRow(csv, rows.back(), *sample);
    PrintSampleLine(rows.back(), *sample);
    previous = std::move(sample);
    last = *previous;
  }
  fclose(csv);

  // --kill-resume: the frontier is killed instead, and its resume timed
  // with the same fetchers; the resumed one is stopped below.
  std::optional<ResumeFigures> resume;
  const ResumeOptions resume_options = ResumeOptionsFor(o, *help, port, metrics_port);
  if (o.kill_resume) {
    if (exit_code == 0 && (*frontier)->Running()) {
      resume = KillAndResume(resume_options, *frontier, fetchers);
      if (!resume->failure.empty()) exit_code = ShutdownSignal::Requested() ? 130 : 1;
    } else {
      printf("kill-resume skipped: %s\n", stop_reason.c_str());
    }
  }

  // Fetchers leave first (Goodbye), then the frontier is stopped.
  for (auto& fetcher : fetchers) fetcher->Stop();
  if (resume && (*frontier)->Running()) CountAfterResume(resume_options, *resume);
  const double stopped_at_s = elapsed();
  const bool was_running = (*frontier)->Running();
  std::string ended = (*frontier)->Stop(15000);
  if (was_running) {
    char took[64];
    snprintf(took, sizeof took, " %.1f s after SIGINT", elapsed() - stopped_at_s);
    ended += took;
  }
  if (resume) ended = "killed (" + resume->killed + "); the resumed one: " + ended;
  uint64_t leases = 0, reports = 0, links = 0, unknown = 0, robots = 0, malformed = 0, rejects = 0,
           retries = 0, silences = 0;
  uint32_t runs = 0;
  for (auto& fetcher : fetchers) {
    const FakeFetcherCounters& c = fetcher->counters();
    leases += c.leases;
    reports += c.reports;
    links += c.links;
    unknown += c.unknown_urls;
    robots += c.robots_items;
    malformed += c.malformed;
    rejects += c.rejects;
    retries += c.send_retries;
    silences += c.silences;
    runs = std::max(runs, c.frontier_runs.load());
    if (!fetcher->error().empty()) fprintf(stderr, "fetcher error: %s\n", fetcher->error().c_str());
  }

  printf("\nstopped: %s; frontier: %s\n", stop_reason.c_str(), ended.c_str());
  printf(
      "fetchers: %s leases, %s reports, %s links; %llu unknown URLs, %llu robots items, %llu malformed, "
      "%llu rejects, %llu sends retried, %llu silences, %u frontier runs heard\n",
      Grouped(static_cast<double>(leases)).c_str(), Grouped(static_cast<double>(reports)).c_str(),
      Grouped(static_cast<double>(links)).c_str(), static_cast<unsigned long long>(unknown),
      static_cast<unsigned long long>(robots), static_cast<unsigned long long>(malformed),
      static_cast<unsigned long long>(rejects), static_cast<unsigned long long>(retries),
      static_cast<unsigned long long>(silences), runs);
  fflush(stdout);
  // The resume's figures come last, whatever came before.
  auto report_resume = [&] {
    if (!resume) return;
    PrintResumeFigures(*resume);
    const std::string path = ResumeCsvPath(o);
    if (FILE* resume_csv = fopen(path.c_str(), "w")) {
      WriteResumeCsv(resume_csv, *resume);
      fclose(resume_csv);
    } else {
      fprintf(stderr, "frontier_scale_bench: cannot write %s\n", path.c_str());
    }
  };
  if (rows.size() < 2) {
    fprintf(stderr, "frontier_scale_bench: fewer than two samples\n");
    report_resume();
    return exit_code != 0 ? exit_code : 1;
  }
  // The last half of the samples, without a last one much shorter than
  // the period (taken at the stop: its rates are noise).
  const size_t from = rows.size() / 2;
  size_t to = rows.size();
  if (rows.back().interval_s < o.every_s / 2 && to - from > 1) --to;
  auto median = [&](double SampleRates::*field) {
    std::vector<double> values;
    for (size_t i = from; i < to; ++i) values.push_back(rows[i].*field);
    return Median(values);
  };
  const double known = std::max(last.Get(kSeenUrls), 1.0);
  printf("medians of %zu samples (%.0f-%.0f s, %s-%s known URLs):\n", to - from, rows[from].elapsed_s,
         rows[to - 1].elapsed_s, Grouped(rows[from].known_urls).c_str(),
         Grouped(rows[to - 1].known_urls).c_str());
  printf(
      "  seen checks %s%s, new URLs %s, leases %s, links %s, duplicate share %.1f%% (%s), "
      "frontier CPU %.2f cores\n",
      Rate(median(&SampleRates::seen_checks_per_s)).c_str(),
      last.Has(kSeenChecks) ? "" : " (links reported: no checks metric)",
      Rate(median(&SampleRates::new_urls_per_s)).c_str(), Rate(median(&SampleRates::leases_per_s)).c_str(),
      Rate(median(&SampleRates::links_per_s)).c_str(), 100 * median(&SampleRates::duplicate_share),
      last.Has(kLinksDuplicate) ? "links_duplicate / links_reported" : "1 - new URLs / scoped links reported",
      median(&SampleRates::cpu_cores));
  // After the exit, or as the kill left it (the resumed run wrote more).
  const uint64_t disk_after = resume ? resume->disk_after_kill : FolderDiskBytes(o.state_dir);
  printf(
      "final: %s known URLs, RSS %.0f MB (peak %.0f MB) = %.0f B/URL, disk %.1f MB = %.1f B/URL "
      "(%.1f B/URL %s), frontier CPU %.1f s, bench CPU %.1f s in %.0f s\n",
      Grouped(known).c_str(), last.memory.rss_bytes / 1048576.0, last.memory.hwm_bytes / 1048576.0,
      last.memory.rss_bytes / known, last.disk_bytes / 1048576.0, last.disk_bytes / known, disk_after / known,
      resume ? "as the kill left it" : "after exit", last.cpu_s, last.bench_cpu_s, last.elapsed_s);
  std::string absent;
  for (std::string_view name : {kSeenChecks, kLinksDuplicate, kSeenDiskLookups}) {
    if (!last.Has(name)) absent += " " + std::string(name);
  }
  if (!absent.empty()) printf("metrics this frontier does not publish:%s\n", absent.c_str());
  report_resume();
  return exit_code;
}

}  // namespace
}  // namespace zcrawl::bench

int main(int argc, char** argv) {
  using zcrawl::bench::BenchOptions;
  BenchOptions o;
  CLI::App app{
      "frontier_scale_bench: the zcrawl-frontier process driven by fake fetchers over a synthetic web"};
  app.add_option("--frontier-bin", o.frontier_bin, "zcrawl-frontier binary")->required();
  app.add_option("--state", o.state_dir, "State folder for the frontier (deleted: --fresh)")->required();
  app.add_option("--csv", o.csv, "One row per sample")->capture_default_str();
  app.add_option("--memory-mb", o.memory_mb, "The frontier's --memory-mb (if it has the flag)")
      ->capture_default_str();
  app.add_option("--target-urls", o.target_urls, "Stop once the frontier knows this many URLs")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--max-seconds", o.max_seconds, "Stop after this long at the latest")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--hosts", o.web.hosts, "Hosts of the synthetic web")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t{2}, uint64_t{1} << 62));
  app.add_option("--host-skew", o.web.host_skew, "Zipf exponent of the hosts cross-host links go to")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10.0));
  app.add_option("--children", o.web.children, "New links per page (the first to another host)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  app.add_option("--known-links", o.web.known_links, "Links per page to its host's root and popular pages")
      ->capture_default_str()
      ->check(CLI::Range(0u, 1000u));
  app.add_option("--popular", o.web.popular, "Popular pages per host, all linked from its root")
      ->capture_default_str()
      ->check(CLI::Range(1u, 10000u));
  app.add_option("--seeds", o.seeds, "Seeds: the roots of hosts 0..N-1")
      ->capture_default_str()
      ->check(CLI::Range(1u, 1000u));
  app.add_option("--hosts-per-address", o.hosts_per_address,
                 "Hosts that share one server address in the fetchers' reports (0: none reported)")
      ->capture_default_str();
  app.add_option("--fetchers", o.fetchers, "Fake fetchers (a thread and a DEALER each)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  app.add_option("--credit", o.credit, "Credit each fetcher keeps open")
      ->capture_default_str()
      ->check(CLI::Range(1u, 100000u));
  app.add_option("--every-s", o.every_s, "Seconds between samples")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 3600.0));
  app.add_flag("--robots", o.robots,
               "Do not pass --no-robots: every origin's first lease is robots.txt, answered with a 404");
  app.add_flag("--continue-state", o.continue_state,
               "Start the frontier on --state as an earlier run left it (no --fresh): the rates "
               "at a size already reached, e.g. of two builds on copies of one state");
  app.add_flag("--kill-resume", o.kill_resume,
               "At the end, SIGKILL the frontier, restart it on the same --state and time its resume");
  app.add_option("--resume-csv", o.resume_csv,
                 "--kill-resume's figures (default: the --csv name + -resume.csv)");
  app.add_option("--resume-drive-s", o.resume_drive_s,
                 "--kill-resume: seconds of rates after the first lease")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 3600.0));
  app.add_option("--rebuild-wait-s", o.rebuild_wait_s,
                 "--kill-resume: then driven on until the seen filter is rebuilt, at most this long")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 36000.0));
  app.add_option("frontier_flags", o.frontier_flags, "Extra zcrawl-frontier flags, after --");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (o.web.hosts < o.seeds) {
    fprintf(stderr, "frontier_scale_bench: --seeds must not exceed --hosts\n");
    return 2;
  }
  zcrawl::ShutdownSignal::Install();
  try {
    return zcrawl::bench::Run(o);
  } catch (const std::exception& e) {
    fprintf(stderr, "frontier_scale_bench: fatal: %s\n", e.what());
    return 1;
  }
}
