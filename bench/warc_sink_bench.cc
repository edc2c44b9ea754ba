// WarcSink microbenchmarks: the writer's cost per page in WARC format.
//
//   BM_WarcWrite/gzip_level/flush_every  Write() of ~18 KB HTML pages
//       (bench/synthetic_page.h) with realistic response headers, request
//       headers and ~30 outlinks (response + request + metadata records,
//       each its own gzip member), with Flush() (write + fsync) after every
//       `flush_every` pages as the writer does per batch. Files go to a
//       fresh folder under $TMPDIR (default /tmp), removed afterwards.
// bytes_per_second is page bodies in per second of wall time (fsync waits
// included); the pages counter is pages per second; counter out_ratio = bytes on disk / body bytes.
//
// Run: warc_sink_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "writer/warc_sink.h"

namespace zcrawl::writer {
namespace {

std::vector<v1::Page> BenchPages() {
  std::vector<v1::Page> pages;
  for (uint32_t p = 0; p < 32; ++p) {
    const uint32_t n = 3000 + p * 7;
    v1::Page& page = pages.emplace_back();
    const std::string url = bench::SyntheticPageUrl(n);
    page.set_page_id("fetcher-1/" + std::to_string(n));
    page.set_url(url);
    page.set_final_url(url);
    page.set_dedup_key(url);
    page.set_http_status(200);
    page.set_http_version("HTTP/1.1");
    page.set_content_type("text/html");
    page.set_fetched_at_ms(1'780'000'000'000 + n);
    page.set_ip_address("127.0.0.3");
    page.set_body(bench::SyntheticPage(n));
    const std::pair<const char*, std::string> headers[] = {
        {"Server", "nginx/1.22.1"},
        {"Date", "Mon, 30 Nov 2026 03:10:40 GMT"},
        {"Content-Type", "text/html"},
        {"Content-Length", std::to_string(page.body().size())},
        {"Last-Modified", "Mon, 30 Nov 2026 03:09:30 GMT"},
        {"Connection", "keep-alive"},
        {"ETag", "\"6b0ce8ea-462f\""},
        {"Accept-Ranges", "bytes"}};
    for (const auto& [name, value] : headers) {
      v1::Header* h = page.add_headers();
      h->set_name(name);
      h->set_value(value);
    }
    page.set_request_headers("GET /s6/t0/p" + std::to_string(n) +
                             ".html HTTP/1.1\r\nHost: 127.0.0.3:18080\r\nUser-Agent: zcrawl/0.1\r\n"
                             "Accept: */*\r\nAccept-Encoding: gzip, br\r\n\r\n");
    for (const std::string& href : bench::SyntheticPageHrefs(n)) {
      if (href.rfind("http", 0) == 0) page.add_links()->set_url(href);
      else page.add_links()->set_url("http://127.0.0.3:18080/" + std::to_string(n) + "/" + href);
    }
  }
  return pages;
}

uint64_t FolderBytes(const std::filesystem::path& dir) {
  uint64_t total = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

void BM_WarcWrite(benchmark::State& state) {
  const int level = static_cast<int>(state.range(0));
  const auto flush_every = static_cast<size_t>(state.range(1));
  const std::vector<v1::Page> pages = BenchPages();
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path dir = std::filesystem::path(tmp ? tmp : "/tmp") /
                                    ("warc_sink_bench." + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  SinkOptions options;
  options.out_dir = dir.string();
  WarcSink sink(options, level);
  if (!sink.Open().ok()) {
    state.SkipWithError("cannot open the sink");
    return;
  }
  size_t written = 0;
  int64_t body_bytes = 0;
  for (auto _ : state) {
    const v1::Page& page = pages[written % pages.size()];
    if (!sink.Write(page).ok()) {
      state.SkipWithError("write failed");
      break;
    }
    body_bytes += static_cast<int64_t>(page.body().size());
    if (++written % flush_every == 0 && !sink.Flush().ok()) {
      state.SkipWithError("flush failed");
      break;
    }
  }
  if (!sink.Close().ok()) state.SkipWithError("close failed");
  state.SetBytesProcessed(body_bytes);
  state.counters["pages"] = benchmark::Counter(static_cast<double>(written), benchmark::Counter::kIsRate);
  if (body_bytes > 0) {
    state.counters["out_ratio"] = static_cast<double>(FolderBytes(dir)) / static_cast<double>(body_bytes);
  }
  std::filesystem::remove_all(dir);
}
// Real time: fsync waits are part of the cost.
BENCHMARK(BM_WarcWrite)->Args({1, 64})->Args({0, 64})->Args({6, 64})->Args({1, 1})->UseRealTime();

}  // namespace
}  // namespace zcrawl::writer

BENCHMARK_MAIN();
