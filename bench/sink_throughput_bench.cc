// Writer throughput per sink against the raw disk, in one run: each sink
// writes ~18 KB pages and flushes (fsync) every 512 pages, as the writer's
// group commit does when pages arrive faster than it stores them (its
// --max-batch-pages, default 512), pipelined like the writer (BeginFlush, the next 512
// pages, FinishFlush; sink.h); `_sync` variants call Flush and wait.
// BM_RawWriteFsync writes the same number of body bytes with write(2) in
// 1 MiB chunks and one fsync per 512 pages' worth — what `dd bs=1M
// conv=fsync` does in steps; BM_RawWriteFsyncOverlapped runs each fsync on
// a second thread while the next chunk is written, the same overlap the
// sinks get. bytes_per_second counts page bodies, so the figures compare
// directly. The WARC sink runs with its default encoding threads (one per
// core) unless the name says otherwise. Pages come as our fetchers send
// them to a writer with the default settings: with the body's SHA-1
// (Page.body_sha1) and, for WARC at a gzip level of 1 or more, the response
// block they compressed (Page.warc_response, made before the clock starts:
// that work is the fetchers'). `warc_writer_compresses` leaves the block
// out (the writer's --no-fetcher-compression), `warc_own_digest` the digest
// too.
// Files go to $TMPDIR (default /tmp).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "bench/synthetic_page.h"
#include "common/sha1.h"
#include "warc/compressed_warc_blocks.h"
#include "writer/sink_registry.h"

namespace zcrawl::writer {
namespace {

constexpr int kPagesPerFlush = 512;  // WriterOptions::max_batch_pages

std::string FreshDir(const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  const auto dir = std::filesystem::path(tmp ? tmp : "/tmp") /
                   ("zcrawl-sink-bench-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// What the fetchers add to each page.
enum class FetcherWork { kNone, kDigest, kDigestAndBlock };

const std::vector<v1::Page>& Pages() {
  static const std::vector<v1::Page> pages = [] {
    std::vector<v1::Page> out;
    for (uint32_t n = 0; n < 512; ++n) {
      v1::Page& page = out.emplace_back();
      const std::string url = bench::SyntheticPageUrl(n);
      page.set_page_id("f/" + std::to_string(n));
      page.set_url(url);
      page.set_final_url(url);
      page.set_dedup_key(url);
      page.set_http_status(200);
      page.set_content_type("text/html");
      page.set_fetched_at_ms(1'780'000'000'000 + n);
      page.set_title("Page " + std::to_string(n));
      page.set_body(bench::SyntheticPage(n));
      page.set_body_sha1(Sha1(page.body()));  // as our fetchers send it
      for (const auto& href : bench::SyntheticPageHrefs(n)) page.add_links()->set_url(href);
    }
    return out;
  }();
  return pages;
}

// Pages() with the WARC record blocks a fetcher makes at gzip `level`.
std::vector<v1::Page> PagesWithBlocks(int level) {
  std::vector<v1::Page> out = Pages();
  GzipMemberCompressor compressor(level);
  for (v1::Page& page : out) {
    if (!AddWarcBlocks(page, compressor).ok()) out.clear();
  }
  return out;
}

void BM_Sink(benchmark::State& state, const char* format, int warc_gzip_level = 1,
             int warc_threads = -1, bool pipelined = true,
             FetcherWork fetcher = FetcherWork::kDigestAndBlock) {
  const std::string dir = FreshDir(format);
  SinkOptions options;
  options.out_dir = dir;
  options.warc_gzip_level = warc_gzip_level;
  options.warc_threads = warc_threads;
  auto sinks = MakeSinks(format, options);
  if (!sinks.ok() || (*sinks)[0]->Open().code() != StatusCode::kOk) {
    state.SkipWithError("cannot open sink");
    return;
  }
  Sink& sink = *(*sinks)[0];
  // Blocks only where the writer would ask for them (WarcSink::needs).
  const v1::WriterWants wants = sink.needs().wants;
  const std::vector<v1::Page> pages =
      fetcher == FetcherWork::kDigestAndBlock && wants.warc_block_level() > 0
          ? PagesWithBlocks(static_cast<int>(wants.warc_block_level()))
          : Pages();
  if (pages.empty()) {
    state.SkipWithError("cannot make the fetchers' blocks");
    return;
  }
  uint64_t bytes = 0, n = 0;
  for (auto _ : state) {
    // Each iteration: one group commit of kPagesPerFlush distinct pages.
    for (int i = 0; i < kPagesPerFlush; ++i, ++n) {
      v1::Page page = pages[n % pages.size()];
      page.set_url(page.url() + "?n=" + std::to_string(n));  // distinct files
      if (fetcher == FetcherWork::kNone) page.clear_body_sha1();
      bytes += page.body().size();
      // As the writer does: the bulk is the sink's to take.
      if (!sink.Write(page, TakePayload(page)).ok()) state.SkipWithError("write failed");
    }
    if (pipelined && sink.pipelined() != nullptr) {
      // The previous window synced while this one was written.
      PipelinedFlush& flush = *sink.pipelined();
      if (!flush.FinishFlush().ok() || !flush.BeginFlush().ok()) state.SkipWithError("flush failed");
    } else if (!sink.Flush().ok()) {
      state.SkipWithError("flush failed");
    }
  }
  if (sink.pipelined() != nullptr && !sink.pipelined()->FinishFlush().ok()) state.SkipWithError("flush failed");
  (void)sink.Close();
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.counters["pages_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsRate);
  // Bytes on disk per page-body byte (WARC: the compression ratio with the
  // records' framing).
  uint64_t stored = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) stored += entry.file_size();
  }
  state.counters["output_ratio"] = bytes ? static_cast<double>(stored) / static_cast<double>(bytes) : 0;
  std::filesystem::remove_all(dir);
}
BENCHMARK_CAPTURE(BM_Sink, files, "files")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
BENCHMARK_CAPTURE(BM_Sink, jsonl, "jsonl")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
BENCHMARK_CAPTURE(BM_Sink, warc, "warc")->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
BENCHMARK_CAPTURE(BM_Sink, warc_stored, "warc", 0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
// The WARC sink compressing on its own thread only (--warc-threads 0).
BENCHMARK_CAPTURE(BM_Sink, warc_one_thread, "warc", 1, 0)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
// Flush waited for before the next window starts.
BENCHMARK_CAPTURE(BM_Sink, warc_sync, "warc", 1, -1, false)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
// Pages without the fetcher's block: the writer compresses and digests each
// response itself (--no-fetcher-compression, or fetchers that do not
// answer WriterWants).
BENCHMARK_CAPTURE(BM_Sink, warc_writer_compresses, "warc", 1, -1, true, FetcherWork::kDigest)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
// Pages without Page.body_sha1 either: the writer digests every body twice.
BENCHMARK_CAPTURE(BM_Sink, warc_own_digest, "warc", 1, -1, true, FetcherWork::kNone)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);

void BM_RawWriteFsync(benchmark::State& state, bool overlapped) {
  const std::string dir = FreshDir("raw");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/raw.bin";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  uint64_t page_bytes = 0;
  for (int i = 0; i < kPagesPerFlush; ++i) page_bytes += Pages()[i].body().size();
  const std::string chunk(1 << 20, 'x');
  uint64_t bytes = 0;
  std::future<int> sync;
  for (auto _ : state) {
    uint64_t left = page_bytes;
    while (left > 0) {
      const size_t n = std::min<uint64_t>(left, chunk.size());
      if (write(fd, chunk.data(), n) != static_cast<ssize_t>(n)) state.SkipWithError("write failed");
      left -= n;
    }
    if (overlapped) {
      if (sync.valid()) sync.get();
      sync = std::async(std::launch::async, [fd] { return fsync(fd); });
    } else {
      fsync(fd);
    }
    bytes += page_bytes;
  }
  if (sync.valid()) sync.get();
  close(fd);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  std::filesystem::remove_all(dir);
}
BENCHMARK_CAPTURE(BM_RawWriteFsync, stepwise, false)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);
BENCHMARK_CAPTURE(BM_RawWriteFsync, overlapped, true)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2);

}  // namespace
}  // namespace zcrawl::writer

BENCHMARK_MAIN();
