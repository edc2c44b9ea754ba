#include "bench/frontier_scale/resume_probe.h"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>

#include "bench/frontier_scale/metrics_scrape.h"
#include "bench/frontier_scale/scale_sample.h"
#include "common/shutdown_signal.h"

namespace zcrawl::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The line frontier/seen/seen_set.cc logs at info level when the filter rebuilt
// from the store replaces the one in use: "seen filter rebuilt from the
// store: N URLs in M MB".
constexpr std::string_view kRebuiltLine = "seen filter rebuilt";
constexpr std::string_view kRebuiltCount = "store: ";

constexpr auto kPoll = std::chrono::milliseconds(20);
constexpr double kScrapeEveryS = 0.1;  // the metrics and the log, until each has shown up
constexpr int kFreshWaitMs = 1500;     // a snapshot published after now (about once a second)

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

double Get(const Metrics& metrics, std::string_view name) {
  auto it = metrics.find(name);
  return it == metrics.end() ? 0 : it->second;
}

// Links the frontier decided were new, i.e. the growth of its seen set
// (over-limit URLs included: they are seen, only not queued), up to the
// links still on their way through the link threads; nullopt from a
// frontier without the duplicate count.
std::optional<double> NewFromLinks(const Metrics& metrics) {
  if (metrics.find(kLinksDuplicate) == metrics.end()) return std::nullopt;
  return Get(metrics, kLinksReported) - Get(metrics, kLinksInvalid) - Get(metrics, kLinksOutOfScope) -
         Get(metrics, kLinksDuplicate);
}

uint64_t LeasesReceived(const std::vector<std::unique_ptr<FakeFetcher>>& fetchers) {
  uint64_t leases = 0;
  for (const auto& fetcher : fetchers) leases += fetcher->counters().leases.load(std::memory_order_relaxed);
  return leases;
}

// Reads what a log file gained since the last call and finds the first
// complete line holding `needle`.
class LogWatch {
 public:
  explicit LogWatch(std::string path) : path_(std::move(path)) {}

  std::optional<std::string> Find(std::string_view needle) {
    FILE* file = fopen(path_.c_str(), "r");
    if (file == nullptr) return std::nullopt;
    if (fseek(file, offset_, SEEK_SET) == 0) {
      char buffer[16384];
      size_t n;
      while ((n = fread(buffer, 1, sizeof buffer, file)) > 0) {
        pending_.append(buffer, n);
        offset_ += static_cast<long>(n);
      }
    }
    fclose(file);
    size_t end;
    while ((end = pending_.find('\n')) != std::string::npos) {
      std::string line = pending_.substr(0, end);
      pending_.erase(0, end + 1);
      if (line.find(needle) != std::string::npos) return line;
    }
    return std::nullopt;
  }

 private:
  const std::string path_;
  long offset_ = 0;
  std::string pending_;  // the start of a line not yet complete
};

}  // namespace

ResumeFigures KillAndResume(const ResumeOptions& o, std::unique_ptr<FrontierProcess>& frontier,
                            const std::vector<std::unique_ptr<FakeFetcher>>& fetchers) {
  ResumeFigures f;
  if (auto before = ScrapeFreshMetrics(o.metrics_port, kFreshWaitMs); before.ok()) {
    f.known_before_kill = Get(*before, kSeenUrls);
  }
  f.killed = frontier->Kill();
  f.disk_after_kill = FolderDiskBytes(o.state_dir);
  // Messages of the killed run still queued at a fetcher carry its sender
  // id: only a new one counts as the resumed frontier.
  std::vector<uint32_t> runs_before;
  for (const auto& fetcher : fetchers) runs_before.push_back(fetcher->counters().frontier_runs.load());
  printf("\nkill-resume: frontier killed (%s) at %s known URLs; restarting it on the same state, log in %s\n",
         f.killed.c_str(), Grouped(f.known_before_kill).c_str(), o.log_path.c_str());
  fflush(stdout);

  const auto restart = Clock::now();
  const int64_t restart_ns = FakeFetcher::NowNs();
  f.restarted_at = restart;
  auto resumed = FrontierProcess::Spawn(o.frontier_bin, o.args, o.log_path);
  if (!resumed.ok()) {
    f.failure = "cannot restart the frontier: " + resumed.status().message();
    return f;
  }
  frontier = std::move(*resumed);
  auto since_restart = [&] { return Seconds(Clock::now() - restart); };

  LogWatch log(o.log_path);
  double next_scrape_s = 0;
  Clock::time_point first_lease_seen;  // on our clock: where the window starts
  uint64_t leases_at_first = 0;
  double cpu_at_first = 0;
  bool window_done = false;
  while (true) {
    std::this_thread::sleep_for(kPoll);
    const double now_s = since_restart();
    if (ShutdownSignal::Requested()) {
      f.failure = "interrupted";
      break;
    }
    if (!frontier->Running()) {
      f.failure = "the resumed frontier ended: " + frontier->exit_description();
      break;
    }
    if (f.to_first_lease_s < 0) {
      int64_t first_ns = 0;
      for (size_t k = 0; k < fetchers.size(); ++k) {
        const FakeFetcherCounters& c = fetchers[k]->counters();
        if (c.frontier_runs.load() <= runs_before[k]) continue;
        const int64_t at = c.run_first_work_ns.load();
        if (at > 0 && (first_ns == 0 || at < first_ns)) first_ns = at;
      }
      if (first_ns > 0) {
        f.to_first_lease_s = static_cast<double>(first_ns - restart_ns) * 1e-9;
        first_lease_seen = Clock::now();
        leases_at_first = LeasesReceived(fetchers);
        cpu_at_first = frontier->CpuSeconds();
        f.rss_first_lease_mb = static_cast<double>(frontier->Memory().rss_bytes) / 1048576.0;
        printf("kill-resume: first lease %.2f s after the restart (RSS %.0f MB)\n", f.to_first_lease_s,
               f.rss_first_lease_mb);
        fflush(stdout);
      } else if (now_s > o.first_lease_timeout_s) {
        char text[96];
        snprintf(text, sizeof text, "no lease from the resumed frontier within %.0f s",
                 o.first_lease_timeout_s);
        f.failure = text;
        break;
      }
    }
    if ((f.to_metrics_s < 0 || f.to_rebuilt_s < 0) && now_s >= next_scrape_s) {
      next_scrape_s = now_s + kScrapeEveryS;
      if (f.to_metrics_s < 0) {
        if (auto metrics = ScrapeMetrics(o.metrics_port, 500); metrics.ok()) {
          f.to_metrics_s = since_restart();
          f.known_at_first_metrics = Get(*metrics, kSeenUrls);
        }
      }
      if (f.to_rebuilt_s < 0) {
        if (auto line = log.Find(kRebuiltLine)) {
          f.to_rebuilt_s = since_restart();
          const size_t at = line->find(kRebuiltCount);
          if (at != std::string::npos)
            f.rebuilt_urls = std::strtoull(line->c_str() + at + kRebuiltCount.size(), nullptr, 10);
          printf("kill-resume: seen filter rebuilt %.1f s after the restart (%s URLs)\n", f.to_rebuilt_s,
                 Grouped(static_cast<double>(f.rebuilt_urls)).c_str());
          fflush(stdout);
        }
      }
    }
    if (f.to_first_lease_s < 0) continue;
    const double driven_s = Seconds(Clock::now() - first_lease_seen);
    if (!window_done && driven_s >= o.drive_s) {
      window_done = true;
      auto metrics = ScrapeFreshMetrics(o.metrics_port, kFreshWaitMs);
      const auto end = Clock::now();
      f.window_s = Seconds(end - first_lease_seen);
      f.leases_per_s = static_cast<double>(LeasesReceived(fetchers) - leases_at_first) / f.window_s;
      f.cpu_cores = (frontier->CpuSeconds() - cpu_at_first) / f.window_s;
      const ProcessMemory memory = frontier->Memory();
      f.rss_after_mb = static_cast<double>(memory.rss_bytes) / 1048576.0;
      f.hwm_after_mb = static_cast<double>(memory.hwm_bytes) / 1048576.0;
      if (metrics.ok()) {
        // The resumed frontier's links counts start at zero, and before its
        // first lease it had no reports to count.
        const auto now_new = NewFromLinks(*metrics);
        f.new_urls_from_links = now_new.has_value();
        const double added = now_new ? *now_new : Get(*metrics, kSeenUrls) - f.known_at_first_metrics;
        f.new_urls_per_s = added / f.window_s;
      }
    }
    if (window_done && (f.to_rebuilt_s >= 0 || driven_s >= o.drive_s + o.rebuild_wait_s)) break;
  }
  return f;
}

void CountAfterResume(const ResumeOptions& o, ResumeFigures& f) {
  // The links reported before the Goodbyes are admitted within a few
  // turns; a snapshot published after that counts them all.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto metrics = ScrapeFreshMetrics(o.metrics_port, kFreshWaitMs);
  if (!metrics.ok()) return;
  f.end_s = Seconds(Clock::now() - f.restarted_at);
  f.known_end = Get(*metrics, kSeenUrls);
  if (auto added = NewFromLinks(*metrics)) f.admitted_since_restart = *added;
}

void PrintResumeFigures(const ResumeFigures& f) {
  auto at = [](double s) {
    char text[32];
    if (s < 0) return std::string("never");
    snprintf(text, sizeof text, "%.2f s", s);
    return std::string(text);
  };
  printf("kill-resume: killed (%s) at %s known URLs (disk %.1f MB); resumed frontier, from its restart:\n",
         f.killed.c_str(), Grouped(f.known_before_kill).c_str(),
         static_cast<double>(f.disk_after_kill) / 1048576.0);
  printf(
      "  metrics after %s (%s known URLs: the estimate until the filter is rebuilt), leases again within %s",
      at(f.to_metrics_s).c_str(), Grouped(f.known_at_first_metrics).c_str(), at(f.to_first_lease_s).c_str());
  if (f.to_rebuilt_s >= 0) {
    printf(", seen filter rebuilt after %s (%s URLs)\n", at(f.to_rebuilt_s).c_str(),
           Grouped(static_cast<double>(f.rebuilt_urls)).c_str());
  } else {
    printf(", seen filter not rebuilt by %.0f s\n", f.end_s);
  }
  if (f.window_s > 0) {
    printf(
        "  in the %.1f s after the first lease: leases %s, new URLs %s%s, frontier CPU %.2f cores; "
        "RSS %.0f MB at the first lease, %.0f MB after (peak %.0f MB)\n",
        f.window_s, Rate(f.leases_per_s).c_str(), Rate(f.new_urls_per_s).c_str(),
        f.new_urls_from_links ? "" : " (growth of seen_urls)", f.cpu_cores, f.rss_first_lease_mb,
        f.rss_after_mb, f.hwm_after_mb);
  }
  if (f.end_s > 0) {
    printf("  at %.1f s, the fetchers gone: %s known URLs", f.end_s, Grouped(f.known_end).c_str());
    if (f.admitted_since_restart >= 0) {
      const double recovered = f.known_end - f.admitted_since_restart;
      printf(", %s new since the restart: %s from the store, %+.0f against the last count before the kill%s",
             Grouped(f.admitted_since_restart).c_str(), Grouped(recovered).c_str(),
             recovered - f.known_before_kill, f.to_rebuilt_s >= 0 ? "" : " (not rebuilt yet: an estimate)");
    }
    printf("\n");
  }
  if (!f.failure.empty()) printf("  FAILED: %s\n", f.failure.c_str());
  fflush(stdout);
}

void WriteResumeCsv(FILE* csv, const ResumeFigures& f) {
  std::string failure;  // a CSV field: quoted, quotes doubled
  if (!f.failure.empty()) {
    failure = "\"";
    for (char c : f.failure) failure += c == '"' ? std::string("\"\"") : std::string(1, c);
    failure += "\"";
  }
  const double recovered = f.admitted_since_restart >= 0 ? f.known_end - f.admitted_since_restart : -1;
  fprintf(csv,
          "known_before_kill,disk_bytes_after_kill,to_metrics_s,to_first_lease_s,to_rebuilt_s,rebuilt_urls,"
          "known_at_first_metrics,rss_first_lease_mb,rss_after_mb,hwm_after_mb,window_s,leases_per_s,"
          "new_urls_per_s,new_urls_from_links,frontier_cores,end_s,known_end,new_since_restart,"
          "known_from_store,failure\n");
  fprintf(csv,
          "%.0f,%llu,%.3f,%.3f,%.3f,%llu,%.0f,%.1f,%.1f,%.1f,%.2f,%.0f,%.0f,%d,%.2f,%.1f,%.0f,%.0f,%.0f,%s\n",
          f.known_before_kill, static_cast<unsigned long long>(f.disk_after_kill), f.to_metrics_s,
          f.to_first_lease_s, f.to_rebuilt_s, static_cast<unsigned long long>(f.rebuilt_urls),
          f.known_at_first_metrics, f.rss_first_lease_mb, f.rss_after_mb, f.hwm_after_mb, f.window_s,
          f.leases_per_s, f.new_urls_per_s, f.new_urls_from_links ? 1 : 0, f.cpu_cores, f.end_s, f.known_end,
          f.admitted_since_restart, recovered, failure.c_str());
  fflush(csv);
}

}  // namespace zcrawl::bench
