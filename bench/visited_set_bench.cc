// Visited-set microbenchmarks: insert and lookup throughput of VisitedSet
// with 1, 2 and 4 threads at 1M and 10M URLs, with the MD5 fingerprinting
// of realistic URL strings included ("Urls") and with precomputed
// fingerprints ("Fingerprints"), plus the memory it takes per URL.
//
// Each run is one iteration that does all the work (N inserts, or 1.25 N
// lookups of which 80% hit, "most links on a page were seen before"),
// split over the threads; items_per_second is the total rate. Counters:
//   bytes_per_url      VisitedSet::memory_bytes() / URLs (Bloom + table)
//   rss_bytes_per_url  growth of the process RSS while the set was built,
//                      freed memory handed back first (insert runs; a
//                      cross-check of bytes_per_url)
// BM_LinkAdmission measures the whole link path of one link thread (parse,
// normalise, scope, visited set) in links per second, for reports of 50
// links of which 80% are known; /0 without URL patterns, /1 with two --deny
// patterns.
// BM_BytesPerUrlOverGrowth inserts fingerprints one by one into a set sized
// for `expected` URLs and reports the worst and best bytes per URL seen at
// any size from `expected` to 10M: the memory target must hold at every
// size, not only right before the table grows.
//
// Run: visited_set_bench [--benchmark_filter=...]. The URL strings for 10M
// runs take about 1.3 GB, built once.
#include <benchmark/benchmark.h>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "frontier/link_admitter.h"
#include "frontier/scope_policy.h"
#include "frontier/url_fingerprint.h"
#include "frontier/visited_set.h"

namespace zcrawl::frontier {
namespace {

constexpr int64_t kMillion = 1'000'000;

// "https://host-417.example/section-12/topic-803/page-77123.html?q=5&ref=nav"
std::string MakeUrl(uint64_t i) {
  char buffer[160];
  const int n = std::snprintf(
      buffer, sizeof buffer, "https://host-%llu.example/section-%llu/topic-%llu/page-%llu.html?q=%llu&ref=nav",
      static_cast<unsigned long long>((i * 2654435761ULL) % 10007), static_cast<unsigned long long>(i % 97),
      static_cast<unsigned long long>((i / 97) % 1000), static_cast<unsigned long long>(i),
      static_cast<unsigned long long>(i % 13));
  return std::string(buffer, static_cast<size_t>(n));
}

// URL i and its fingerprint, for i < count; built once, grown on demand.
const std::vector<std::string>& Urls(uint64_t count) {
  static std::vector<std::string> urls;
  urls.reserve(count);
  while (urls.size() < count) urls.push_back(MakeUrl(urls.size()));
  return urls;
}

const std::vector<uint64_t>& Fingerprints(uint64_t count) {
  static std::vector<uint64_t> fingerprints;
  const auto& urls = Urls(count);
  fingerprints.reserve(count);
  while (fingerprints.size() < count) fingerprints.push_back(UrlFingerprint(urls[fingerprints.size()]));
  return fingerprints;
}

uint64_t RssBytes() {
  long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    long size = 0;
    if (std::fscanf(f, "%ld %ld", &size, &pages) != 2) pages = 0;
    std::fclose(f);
  }
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// ---- Inserts: a fresh set sized for N, filled by all threads together. ----

std::unique_ptr<VisitedSet> g_insert_set;  // written by thread 0 outside the timed loop
uint64_t g_rss_before = 0;

// Inputs published by thread 0 before the loop's start barrier, which every
// thread passes before reading them.
const std::string* g_urls = nullptr;
const uint64_t* g_fingerprints = nullptr;

template <bool kWithStrings>
void PrepareInputs(uint64_t count) {
  if constexpr (kWithStrings) {
    g_urls = Urls(count).data();
  } else {
    g_fingerprints = Fingerprints(count).data();
  }
}

template <bool kWithStrings>
void BM_Insert(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  if (state.thread_index() == 0) {
    PrepareInputs<kWithStrings>(n);
    g_insert_set.reset();
    malloc_trim(0);  // hand freed memory back, so RSS growth is this set's
    g_rss_before = RssBytes();
    g_insert_set = std::make_unique<VisitedSet>(n);
  }
  const uint64_t step = static_cast<uint64_t>(state.threads());
  uint64_t admitted = 0;
  for (auto _ : state) {
    for (uint64_t i = static_cast<uint64_t>(state.thread_index()); i < n; i += step) {
      if constexpr (kWithStrings) {
        admitted += g_insert_set->InsertIfNew(g_urls[i]);
      } else {
        admitted += g_insert_set->InsertIfNew(g_fingerprints[i]);
      }
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(admitted));
  if (state.thread_index() == 0) {
    const double size = static_cast<double>(g_insert_set->size());
    state.counters["bytes_per_url"] = static_cast<double>(g_insert_set->memory_bytes()) / size;
    malloc_trim(0);  // arrays left behind by growth are not the set's
    state.counters["rss_bytes_per_url"] = static_cast<double>(RssBytes() - g_rss_before) / size;
    if (g_insert_set->size() != n) state.SkipWithError("lost or duplicated inserts");
    g_insert_set.reset();
  }
}

// ---- Lookups: a set filled with URLs 0..N-1 (built once per N), probed ----
// ---- with URLs 0..1.25N-1: 80% hits, 20% misses.                       ----

VisitedSet& FilledSet(uint64_t n) {
  static std::unique_ptr<VisitedSet> set;
  static uint64_t filled_for = 0;
  if (filled_for != n) {
    set.reset();
    set = std::make_unique<VisitedSet>(n);
    const auto& fingerprints = Fingerprints(n);
    for (uint64_t i = 0; i < n; ++i) set->InsertIfNew(fingerprints[i]);
    filled_for = n;
  }
  return *set;
}

template <bool kWithStrings>
void BM_Lookup(benchmark::State& state) {
  const uint64_t n = static_cast<uint64_t>(state.range(0));
  const uint64_t probes = n + n / 4;
  static VisitedSet* shared = nullptr;
  if (state.thread_index() == 0) {
    PrepareInputs<kWithStrings>(probes);
    shared = &FilledSet(n);
  }
  VisitedSet* set = nullptr;
  uint64_t hits = 0;
  uint64_t done = 0;
  const uint64_t step = static_cast<uint64_t>(state.threads());
  for (auto _ : state) {
    set = shared;
    for (uint64_t i = static_cast<uint64_t>(state.thread_index()); i < probes; i += step) {
      if constexpr (kWithStrings) {
        hits += set->Contains(g_urls[i]);
      } else {
        hits += set->Contains(g_fingerprints[i]);
      }
      ++done;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(done));
  state.counters["hit_ratio"] = benchmark::Counter(static_cast<double>(hits) / static_cast<double>(done),
                                                   benchmark::Counter::kAvgThreads);
  if (state.thread_index() == 0) {
    state.counters["bytes_per_url"] =
        static_cast<double>(set->memory_bytes()) / static_cast<double>(set->size());
  }
}

// ---- The whole link path of one link thread. ----

void BM_LinkAdmission(benchmark::State& state) {
  constexpr uint64_t kKnown = 200'000;
  constexpr uint64_t kLinksPerReport = 50;
  ScopeOptions scope_options;
  scope_options.allow_domains = {"example"};
  if (state.range(0) != 0) scope_options.deny_patterns = {"/calendar/", "[?&](sid|sessionid)="};
  ScopePolicy scope(scope_options);
  VisitedSet visited(4 * kKnown);
  LinkAdmitter admitter(scope, visited, 1);
  for (uint64_t i = 0; i < kKnown; ++i) visited.InsertIfNew(MakeUrl(i));
  // 80% of each report's links are known, 20% new.
  uint64_t next_new = kKnown;
  uint64_t links = 0;
  uint64_t admitted = 0;
  for (auto _ : state) {
    state.PauseTiming();
    AdmissionJob job;
    job.depth = 1;
    for (uint64_t k = 0; k < kLinksPerReport; ++k) {
      job.links.push_back(k % 5 == 0 ? MakeUrl(next_new++) : MakeUrl((next_new * 31 + k) % kKnown));
    }
    state.ResumeTiming();
    AdmissionResult result = admitter.Admit(job);
    benchmark::DoNotOptimize(result);
    links += job.links.size();
    admitted += result.admitted.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(links));
  state.counters["admitted_ratio"] = static_cast<double>(admitted) / static_cast<double>(links);
  admitter.Stop();
}

// ---- Worst and best bytes per URL while a set grows. ----

void BM_BytesPerUrlOverGrowth(benchmark::State& state) {
  const uint64_t expected = static_cast<uint64_t>(state.range(0));
  const uint64_t last = 10 * kMillion;
  double worst = 0;
  double best = 1e9;
  for (auto _ : state) {
    VisitedSet set(expected);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (uint64_t i = 1; i <= last; ++i) {
      x += 0x9E3779B97F4A7C15ULL;  // distinct, well-spread non-zero fingerprints
      uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
      z ^= z >> 31;
      set.InsertIfNew(z == 0 ? 1 : z);
      if (i >= expected) {
        const double per_url = static_cast<double>(set.memory_bytes()) / static_cast<double>(set.size());
        worst = std::max(worst, per_url);
        best = std::min(best, per_url);
      }
    }
  }
  state.counters["worst_bytes_per_url"] = worst;
  state.counters["best_bytes_per_url"] = best;
}

void SizesAndThreads(benchmark::internal::Benchmark* b) {
  b->Arg(kMillion)->Arg(10 * kMillion)->Threads(1)->Threads(2)->Threads(4);
  b->Iterations(1)->UseRealTime()->Unit(benchmark::kMillisecond);
}

BENCHMARK_TEMPLATE(BM_Insert, true)->Name("BM_InsertUrls")->Apply(SizesAndThreads);
BENCHMARK_TEMPLATE(BM_Insert, false)->Name("BM_InsertFingerprints")->Apply(SizesAndThreads);
BENCHMARK_TEMPLATE(BM_Lookup, true)->Name("BM_LookupUrls")->Apply(SizesAndThreads);
BENCHMARK_TEMPLATE(BM_Lookup, false)->Name("BM_LookupFingerprints")->Apply(SizesAndThreads);
BENCHMARK(BM_LinkAdmission)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BytesPerUrlOverGrowth)->Arg(100'000)->Arg(kMillion)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace zcrawl::frontier

BENCHMARK_MAIN();
