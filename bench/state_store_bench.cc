// Cost of the frontier's durable state: recording admitted URLs and their
// final states in SQLite, with group commits of different sizes (the
// frontier commits every --commit-interval-ms, typically hundreds to
// thousands of changes at once) against one commit per change.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "frontier/state_store.h"

namespace zcrawl::frontier {
namespace {

std::string FreshDir() {
  static int n = 0;
  const auto dir = std::filesystem::temp_directory_path() / ("zcrawl-state-bench-" + std::to_string(getpid()) + "-" + std::to_string(++n));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// One iteration = one URL admitted and later marked done, committed in
// groups of state.range(0) URLs.
void BM_StateStoreAdmitAndFinish(benchmark::State& state) {
  const std::string dir = FreshDir();
  auto store = StateStore::Open(dir, /*fresh=*/true);
  if (!store.ok()) {
    state.SkipWithError(store.status().message().c_str());
    return;
  }
  const int64_t group = state.range(0);
  int64_t i = 0;
  for (auto _ : state) {
    const std::string url = "https://host-" + std::to_string(i % 97) + ".example/path/page-" + std::to_string(i) + ".html";
    (*store)->RecordAdmitted(url, "https://host-" + std::to_string(i % 97) + ".example", 3);
    (*store)->RecordFinal(url, UrlState::kDone, "", 1);
    if (++i % group == 0) {
      if (Status s = (*store)->Commit(); !s.ok()) state.SkipWithError(s.message().c_str());
    }
  }
  (void)(*store)->Commit();
  state.SetItemsProcessed(state.iterations());
  state.counters["us_per_url"] = benchmark::Counter(
      static_cast<double>(state.iterations()), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  store->reset();
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_StateStoreAdmitAndFinish)->Arg(1)->Arg(100)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace
}  // namespace zcrawl::frontier

BENCHMARK_MAIN();
