// Link-extraction microbenchmarks: what a fetch worker spends per HTML page,
// for the HtmlParser backends (gumbo, myhtml, scan).
//
//   BM_Parse/<parser>              HtmlParser::Parse of one ~18 KB benchmark
//                                  page (bench/synthetic_page.h): tree
//                                  building plus extraction of title, text
//                                  and raw links.
//   BM_ParseAndResolve/<parser>    the same plus ResolveLinks against the
//                                  page URL: the fetcher's whole per-page
//                                  extraction work.
//   BM_PythonDocs/<parser>         Parse + ResolveLinks over every page of
//                                  the python3-doc HTML documentation (530
//                                  real pages, ~40 MB); skipped when the
//                                  package is not installed.
//   BM_ScanExtractOnly/<pages>     the scan backend without text, links not
//                                  resolved: the extractor alone, on the
//                                  benchmark pages and both documentation
//                                  sets (postgresql-doc-15 too).
//   BM_ScanWithoutText, BM_ScanPythonDocsWithoutText: the fetchers' default
//                                  (scan, no text), resolved, with and
//                                  without page requisites.
// to_myhtml_pct is the share of pages the scan backend handed to MyHTML.
// bytes_per_second is HTML in per second on one thread; the links counter
// is resolved links per second.
//
// Run: html_parser_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "common/url.h"
#include "fetcher/html_parser.h"
#include "fetcher/link_resolver.h"
#include "fetcher/scan_html_parser.h"

namespace zcrawl::fetcher {
namespace {

constexpr const char* kPythonDocs = "/usr/share/doc/python3-doc/html/";
constexpr const char* kPostgresDocs = "/usr/share/doc/postgresql-doc-15/html/";

struct Document {
  std::string url;
  std::string html;
};

const std::vector<Document>& SyntheticPages() {
  static const std::vector<Document> pages = [] {
    std::vector<Document> out;
    for (uint32_t p = 0; p < 16; ++p) {
      out.push_back({bench::SyntheticPageUrl(2000 + p * 13), bench::SyntheticPage(2000 + p * 13)});
    }
    return out;
  }();
  return pages;
}

// Every .html page under `dir`, as if served from `url_prefix`.
std::vector<Document> DocumentationSet(const char* dir, const std::string& url_prefix) {
  std::vector<Document> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".html") continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string rel = std::filesystem::relative(it->path(), dir).string();
    out.push_back({url_prefix + rel, std::move(html)});
  }
  std::sort(out.begin(), out.end(), [](const Document& a, const Document& b) { return a.url < b.url; });
  return out;
}

const std::vector<Document>& PythonDocs() {
  static const std::vector<Document> pages = DocumentationSet(kPythonDocs, "https://docs.python.org/3.11/");
  return pages;
}

const std::vector<Document>& PostgresDocs() {
  static const std::vector<Document> pages =
      DocumentationSet(kPostgresDocs, "https://www.postgresql.org/docs/15/");
  return pages;
}

void Run(benchmark::State& state, const char* parser_name, const std::vector<Document>& docs,
         bool resolve, const HtmlParserOptions& options = {}) {
  if (docs.empty()) {
    state.SkipWithError("no documents (python3-doc not installed?)");
    return;
  }
  auto parser = MakeHtmlParser(parser_name, options);
  std::vector<Url> page_urls;
  for (const Document& d : docs) page_urls.push_back(std::move(Url::Parse(d.url)).value());
  int64_t bytes = 0;
  int64_t links = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < docs.size(); ++i) {
      ParsedHtml parsed = parser->Parse(docs[i].html);
      bytes += static_cast<int64_t>(docs[i].html.size());
      if (resolve) {
        ResolvedLinks resolved = ResolveLinks(parsed, page_urls[i], /*ignore_nofollow=*/false);
        links += static_cast<int64_t>(resolved.links.size());
        benchmark::DoNotOptimize(resolved);
      } else {
        links += static_cast<int64_t>(parsed.links.size());
      }
      benchmark::DoNotOptimize(parsed);
    }
  }
  state.SetBytesProcessed(bytes);
  // The scan backend's fallback: the share of pages it handed to MyHTML.
  if (auto* scan = dynamic_cast<ScanHtmlParser*>(parser.get())) {
    const double pages = static_cast<double>(state.iterations() * docs.size());
    state.counters["to_myhtml_pct"] = 100.0 * (pages - static_cast<double>(scan->scanned_pages())) / pages;
  }
  state.counters["links"] = benchmark::Counter(static_cast<double>(links), benchmark::Counter::kIsRate);
  state.counters["pages"] = benchmark::Counter(
      static_cast<double>(state.iterations() * docs.size()), benchmark::Counter::kIsRate);
}

void BM_Parse(benchmark::State& state, const char* parser) {
  Run(state, parser, SyntheticPages(), false);
}
void BM_ParseAndResolve(benchmark::State& state, const char* parser) {
  Run(state, parser, SyntheticPages(), true);
}
void BM_PythonDocs(benchmark::State& state, const char* parser) {
  Run(state, parser, PythonDocs(), true);
}
// The fetchers' default for files (no text) and for WARC (no text, page
// requisites): what extracting the requisites costs the scan parser.
void BM_ScanWithoutText(benchmark::State& state, bool embeds) {
  Run(state, "scan", SyntheticPages(), true, HtmlParserOptions{.extract_text = false, .extract_embeds = embeds});
}
void BM_ScanPythonDocsWithoutText(benchmark::State& state, bool embeds) {
  Run(state, "scan", PythonDocs(), true, HtmlParserOptions{.extract_text = false, .extract_embeds = embeds});
}
// The extractor alone (issue 19 point 5: at least 1 GB/s per core on the
// benchmark pages, the fallback rate reported): links without resolving.
void BM_ScanExtractOnly(benchmark::State& state, const std::vector<Document>& (*docs)()) {
  Run(state, "scan", docs(), false, HtmlParserOptions{.extract_text = false});
}
BENCHMARK_CAPTURE(BM_ScanExtractOnly, synthetic, SyntheticPages);
BENCHMARK_CAPTURE(BM_ScanExtractOnly, python_docs, PythonDocs)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScanExtractOnly, postgres_docs, PostgresDocs)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScanWithoutText, links, false);
BENCHMARK_CAPTURE(BM_ScanWithoutText, links_and_requisites, true);
BENCHMARK_CAPTURE(BM_ScanPythonDocsWithoutText, links, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScanPythonDocsWithoutText, links_and_requisites, true)->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_Parse, gumbo, "gumbo");
BENCHMARK_CAPTURE(BM_Parse, myhtml, "myhtml");
BENCHMARK_CAPTURE(BM_ParseAndResolve, gumbo, "gumbo");
BENCHMARK_CAPTURE(BM_ParseAndResolve, myhtml, "myhtml");
BENCHMARK_CAPTURE(BM_PythonDocs, gumbo, "gumbo")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PythonDocs, myhtml, "myhtml")->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace zcrawl::fetcher

BENCHMARK_MAIN();
