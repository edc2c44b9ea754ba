// CrawlScheduler microbenchmarks: the frontier broker thread's own cost per
// URL, without sockets or link admission.
//
//   BM_LeaseCompleteCycle/hosts/batch  steady state: Lease(batch) to one
//       fetcher, Complete() each URL with a 200 report, Enqueue one new URL
//       per completed one (as admitted links would), ExpireLeases() with the
//       fake clock advanced 1 ms per round, as the broker's loop does. No
//       politeness delay, no robots.txt, per_host unlimited, 10,000 URLs
//       waiting. items_per_second = URLs leased and completed per second.
//   BM_WaitingUrlMemory/url_length     heap bytes per waiting URL (one
//       UrlRecord in its origin's queue) measured with mallinfo2() across
//       1M Enqueue calls over 4 origins; counter bytes_per_waiting_url.
//       The seen set's share: frontier_scale_bench (bytes per known URL).
//
// Run: crawl_scheduler_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "frontier/scheduler/crawl_scheduler.h"

namespace zcrawl::frontier {
namespace {

SchedulerOptions BenchOptions() {
  SchedulerOptions options;
  options.politeness.delay_ms = 0;
  options.politeness.per_host = 1'000'000;
  options.politeness.obey_robots = false;
  return options;
}

std::string Origin(uint32_t host) {
  return "http://10.0." + std::to_string(host / 250) + "." + std::to_string(2 + host % 250) + ":18080";
}

// "http://10.0.0.3:18080/s4/t9/p2488.html", padded with a query to `length`.
std::string BenchUrl(const std::string& origin, uint64_t n, size_t length = 0) {
  std::string url = origin + "/s" + std::to_string(n / 500 % 10) + "/t" + std::to_string(n / 50 % 10) +
                    "/p" + std::to_string(n) + ".html";
  if (url.size() + 3 < length) url += "?q=" + std::string(length - url.size() - 3, 'x');
  return url;
}

void BM_LeaseCompleteCycle(benchmark::State& state) {
  const auto hosts = static_cast<uint32_t>(state.range(0));
  const auto batch = static_cast<uint32_t>(state.range(1));
  FakeClock clock;
  CrawlScheduler scheduler(BenchOptions(), clock);
  std::vector<std::string> origins;
  for (uint32_t h = 0; h < hosts; ++h) origins.push_back(Origin(h));
  uint64_t next = 0;
  for (; next < 10'000; ++next) {
    const std::string& origin = origins[next % hosts];
    scheduler.Enqueue(BenchUrl(origin, next), origin, 1);
  }
  const std::string fetcher = "fetcher-1";
  v1::FetchReport report;
  int64_t completed = 0;
  for (auto _ : state) {
    std::vector<v1::WorkItem> items = scheduler.Lease(fetcher, batch);
    for (const v1::WorkItem& item : items) {
      report.set_lease_id(item.lease_id());
      report.set_url(item.url());
      report.set_status(v1::FETCH_STATUS_OK);
      report.set_http_status(200);
      Completion completion = scheduler.Complete(fetcher, report);
      if (!completion.known_lease) {
        state.SkipWithError("scheduler did not know its own lease");
        return;
      }
      const std::string& origin = origins[next % hosts];
      scheduler.Enqueue(BenchUrl(origin, next++), origin, completion.depth + 1);
    }
    completed += static_cast<int64_t>(items.size());
    clock.Advance(1);
    scheduler.ExpireLeases();
  }
  state.SetItemsProcessed(completed);
}
BENCHMARK(BM_LeaseCompleteCycle)->Args({4, 64})->Args({4, 1})->Args({1000, 64});

void BM_WaitingUrlMemory(benchmark::State& state) {
  const auto length = static_cast<size_t>(state.range(0));
  constexpr uint64_t kUrls = 1'000'000;
  double bytes_per_url = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::vector<std::string> origins;
    for (uint32_t h = 0; h < 4; ++h) origins.push_back(Origin(h));
    FakeClock clock;
    auto scheduler = std::make_unique<CrawlScheduler>(BenchOptions(), clock);
    malloc_trim(0);
    const size_t before = mallinfo2().uordblks;
    state.ResumeTiming();
    for (uint64_t n = 0; n < kUrls; ++n) {
      const std::string& origin = origins[n % 4];
      scheduler->Enqueue(BenchUrl(origin, n, length), origin, 1);
    }
    state.PauseTiming();
    bytes_per_url = static_cast<double>(mallinfo2().uordblks - before) / kUrls;
    scheduler.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kUrls));
  state.counters["bytes_per_waiting_url"] = bytes_per_url;
}
// 40: the benchmark site's URLs; 80 and 120: typical and long web URLs.
BENCHMARK(BM_WaitingUrlMemory)->Arg(40)->Arg(80)->Arg(120)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace zcrawl::frontier

BENCHMARK_MAIN();
