// URL microbenchmarks: Url::Parse, the WHATWG parser every link goes through
// twice (in the fetcher against the page URL, in the frontier's link threads
// for normalisation).
//
//   BM_UrlParseRelative   the ~32 hrefs of a benchmark page (relative, ./,
//                         ../, ../../, root-relative, absolute, other hosts,
//                         scheme-relative, mailto:, javascript:) against the
//                         page URL as base: what ResolveLinks does per link.
//   BM_UrlParseAbsolute   the same links already absolute (what the
//                         frontier's link threads parse again).
//   BM_UrlParseLong       absolute URLs with query strings, percent escapes
//                         and an upper-case host: the slower common path.
// items_per_second is URLs parsed per second on one thread.
//
// Run: url_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "common/url.h"

namespace zcrawl {
namespace {

constexpr uint32_t kPages = 64;

void BM_UrlParseRelative(benchmark::State& state) {
  std::vector<Url> bases;
  std::vector<std::vector<std::string>> hrefs;
  for (uint32_t p = 0; p < kPages; ++p) {
    auto base = Url::Parse(bench::SyntheticPageUrl(1000 + p * 37));
    if (!base.ok()) {
      state.SkipWithError("base URL did not parse");
      return;
    }
    bases.push_back(std::move(base).value());
    hrefs.push_back(bench::SyntheticPageHrefs(1000 + p * 37));
  }
  int64_t parsed = 0;
  uint64_t failures = 0;
  for (auto _ : state) {
    for (uint32_t p = 0; p < kPages; ++p) {
      for (const std::string& href : hrefs[p]) {
        auto url = Url::Parse(href, &bases[p]);
        failures += url.ok() ? 0 : 1;
        benchmark::DoNotOptimize(url);
        ++parsed;
      }
    }
  }
  if (failures) state.SkipWithError("some hrefs failed to parse");
  state.SetItemsProcessed(parsed);
}
BENCHMARK(BM_UrlParseRelative);

void BM_UrlParseAbsolute(benchmark::State& state) {
  std::vector<std::string> urls;
  for (uint32_t p = 0; p < kPages; ++p) {
    auto base = Url::Parse(bench::SyntheticPageUrl(1000 + p * 37));
    for (const std::string& href : bench::SyntheticPageHrefs(1000 + p * 37)) {
      auto url = Url::Parse(href, &*base);
      if (url.ok() && url->is_special()) urls.push_back(url->href());
    }
  }
  int64_t parsed = 0;
  for (auto _ : state) {
    for (const std::string& u : urls) {
      auto url = Url::Parse(u);
      benchmark::DoNotOptimize(url);
    }
    parsed += static_cast<int64_t>(urls.size());
  }
  state.SetItemsProcessed(parsed);
}
BENCHMARK(BM_UrlParseAbsolute);

void BM_UrlParseLong(benchmark::State& state) {
  std::vector<std::string> urls;
  for (int i = 0; i < 256; ++i) {
    urls.push_back("HTTPS://WWW.Example-" + std::to_string(i % 17) +
                   ".COM:443/catalogue/Section%20" + std::to_string(i) +
                   "/./item/../item-" + std::to_string(i * 7) +
                   ".html?sort=price&page=" + std::to_string(i % 9) + "&q=caf%C3%A9+au+lait#reviews");
  }
  int64_t parsed = 0;
  for (auto _ : state) {
    for (const std::string& u : urls) {
      auto url = Url::Parse(u);
      benchmark::DoNotOptimize(url);
    }
    parsed += static_cast<int64_t>(urls.size());
  }
  state.SetItemsProcessed(parsed);
}
BENCHMARK(BM_UrlParseLong);

}  // namespace
}  // namespace zcrawl

BENCHMARK_MAIN();
