// The cost of a link's seen-set key on the link threads: the canonical
// form (session ids left out, url_canonicalizer.h) against hashing the URL
// as it is, and the trap guards (url_traps.h) every in-scope link passes.
//
//   BM_UrlKeyRaw/Canonical   the benchmark pages' absolute links (no query):
//                            MD5 + site hash alone, then through the default
//                            canonicalizer; the difference is its cost.
//   BM_UrlKeyQuery*          links with a 3-parameter query: the default
//                            rules scan the names; Rules adds sorting and two
//                            drop patterns; Session ones lose a PHPSESSID
//                            (the only path that allocates).
//   BM_UrlTraps              PathRepeats(limit 3) + QueryParamCount per link.
// items_per_second is links per second on one thread.
//
// Run: url_key_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "common/url.h"
#include "frontier/admission/url_traps.h"
#include "frontier/store/url_canonicalizer.h"

namespace zcrawl::frontier {
namespace {

std::vector<std::string> PageLinks() {
  std::vector<std::string> urls;
  for (uint32_t p = 0; p < 64; ++p) {
    auto base = Url::Parse(bench::SyntheticPageUrl(1000 + p * 37));
    for (const std::string& href : bench::SyntheticPageHrefs(1000 + p * 37)) {
      auto url = Url::Parse(href, &*base);
      if (url.ok() && url->is_special()) urls.push_back(std::string(url->href_without_fragment()));
    }
  }
  return urls;
}

std::vector<std::string> QueryLinks(bool session) {
  std::vector<std::string> urls;
  for (int i = 0; i < 256; ++i) {
    urls.push_back("https://www.example-" + std::to_string(i % 17) + ".com/catalogue/item-" + std::to_string(i * 7) +
                   ".html?sort=price&page=" + std::to_string(i % 9) + "&q=caf%C3%A9+au+lait" +
                   (session ? "&PHPSESSID=9f8e7d6c5b4a39281706f5e4d3c2b1a0" : ""));
  }
  return urls;
}

void RunKeys(benchmark::State& state, const std::vector<std::string>& urls, const UrlCanonicalizer* canonical) {
  for (auto _ : state) {
    for (const std::string& url : urls) {
      const UrlKey key = canonical ? canonical->KeyOf(url) : UrlKey{UrlFingerprint(url), UrlSite(url)};
      benchmark::DoNotOptimize(key);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * urls.size()));
}

void BM_UrlKeyRaw(benchmark::State& state) { RunKeys(state, PageLinks(), nullptr); }
BENCHMARK(BM_UrlKeyRaw);

void BM_UrlKeyCanonical(benchmark::State& state) {
  const UrlCanonicalizer canonical;
  RunKeys(state, PageLinks(), &canonical);
}
BENCHMARK(BM_UrlKeyCanonical);

void BM_UrlKeyQueryRaw(benchmark::State& state) { RunKeys(state, QueryLinks(false), nullptr); }
BENCHMARK(BM_UrlKeyQueryRaw);

void BM_UrlKeyQueryCanonical(benchmark::State& state) {
  const UrlCanonicalizer canonical;
  RunKeys(state, QueryLinks(false), &canonical);
}
BENCHMARK(BM_UrlKeyQueryCanonical);

void BM_UrlKeyQueryRules(benchmark::State& state) {
  UrlKeyRules rules;
  rules.sort_query_params = true;
  rules.drop_query_params = {"utm_*", "fbclid"};
  const UrlCanonicalizer canonical(rules);
  RunKeys(state, QueryLinks(false), &canonical);
}
BENCHMARK(BM_UrlKeyQueryRules);

void BM_UrlKeyQuerySession(benchmark::State& state) {
  const UrlCanonicalizer canonical;
  RunKeys(state, QueryLinks(true), &canonical);
}
BENCHMARK(BM_UrlKeyQuerySession);

void BM_UrlTraps(benchmark::State& state) {
  std::vector<Url> urls;
  for (const std::string& url : PageLinks()) urls.push_back(*Url::Parse(url));
  for (const std::string& url : QueryLinks(false)) urls.push_back(*Url::Parse(url));
  for (auto _ : state) {
    for (const Url& url : urls) {
      benchmark::DoNotOptimize(PathRepeats(url.pathname(), 3));
      benchmark::DoNotOptimize(QueryParamCount(url.search()));
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * urls.size()));
}
BENCHMARK(BM_UrlTraps);

}  // namespace
}  // namespace zcrawl::frontier

BENCHMARK_MAIN();
