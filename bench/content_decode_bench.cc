// Undoing Content-Encoding: gzip, on pages shaped like the bench site's, the
// way libcurl 7.88 did it for us (zlib's inflate, 16 KiB of output at a
// time, appended to the body) against ContentDecoder (ISA-L's inflater,
// 64 KiB at a time). Both fed as the network gives bytes: in 16 KiB reads.
// bench/RESULTS.md has the figures; content_decoder.h the decision.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "fetcher/content_decoder.h"

namespace {

constexpr size_t kReadBytes = 16 * 1024;  // what one socket read hands over

std::string Gzip(const std::string& data, int level) {
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, data.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  if (deflate(&zs, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// 64 pages of `bytes` each, gzipped at level 6 (as the web bench's site).
struct Pages {
  explicit Pages(size_t bytes) {
    for (uint32_t i = 0; i < 64; ++i) {
      plain_bytes += bytes;
      coded.push_back(Gzip(zcrawl::bench::SyntheticPage(i, bytes), 6));
    }
  }
  std::vector<std::string> coded;
  size_t plain_bytes = 0;
};

void ZlibInflate(benchmark::State& state) {
  const Pages pages(static_cast<size_t>(state.range(0)));
  std::string body;
  char chunk[16 * 1024];
  for (auto _ : state) {
    for (const std::string& coded : pages.coded) {
      body.clear();
      z_stream zs{};
      inflateInit2(&zs, 15 + 32);
      for (size_t at = 0; at < coded.size(); at += kReadBytes) {
        const size_t piece = std::min(kReadBytes, coded.size() - at);
        zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(coded.data() + at));
        zs.avail_in = static_cast<uInt>(piece);
        int code = Z_OK;
        do {
          zs.next_out = reinterpret_cast<Bytef*>(chunk);
          zs.avail_out = sizeof(chunk);
          code = inflate(&zs, Z_SYNC_FLUSH);
          body.append(chunk, sizeof(chunk) - zs.avail_out);
        } while (code == Z_OK && zs.avail_out == 0);
      }
      inflateEnd(&zs);
      benchmark::DoNotOptimize(body.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * pages.plain_bytes));
}

void IsalContentDecoder(benchmark::State& state) {
  const Pages pages(static_cast<size_t>(state.range(0)));
  std::string body;
  std::string error;
  for (auto _ : state) {
    for (const std::string& coded : pages.coded) {
      body.clear();
      auto decoder = zcrawl::fetcher::ContentDecoder::ForCodings("gzip", &error);
      for (size_t at = 0; at < coded.size(); at += kReadBytes) {
        decoder->Decode(std::string_view(coded).substr(at, kReadBytes), &body, 64u << 20);
      }
      benchmark::DoNotOptimize(body.data());
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * pages.plain_bytes));
}

// 18 KB: the lab site's pages; 30 KB and 120 KB: the web site's median and tail.
BENCHMARK(ZlibInflate)->Arg(18000)->Arg(30000)->Arg(120000);
BENCHMARK(IsalContentDecoder)->Arg(18000)->Arg(30000)->Arg(120000);

}  // namespace

BENCHMARK_MAIN();
