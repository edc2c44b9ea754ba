// SinkOptions: the settings every sink reads. Filled from WriterOptions by
// the writer's main; sinks keep a copy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace zcrawl::writer {

struct SinkOptions {
  // Output folder; created if missing. Each sink writes inside it only.
  std::string out_dir = "crawl-out";
  // WARC files rotate once they reach this size. Larger files mean fewer
  // files but slower seeks for tools that scan whole files.
  uint64_t warc_max_bytes = 1ull << 30;
  // WARC file names: PREFIX-YYYYmmddHHMMSS-SERIAL.warc.gz
  std::string warc_prefix = "zcrawl";
  // gzip level of each WARC record, 0-12 (1: ISA-L igzip, the fastest;
  // 2-12: libdeflate, 2-9 compare to zlib's levels, 10-12 are slower and a
  // little smaller; gzip_member.h). 1 costs ~0.2 CPU-ms per 100 KB of HTML
  // and stores it at under a third of its size, work the fetchers do when
  // fetcher_compression is on; 0 stores records uncompressed (still one
  // gzip member each, so files stay seekable), asks nothing of the fetchers
  // and leaves the writer copying and checksumming 3x the bytes: slower
  // than 1 once the fetchers compress (bench/RESULTS.md run P).
  int warc_gzip_level = 1;
  // Threads that build and compress WARC records while the sink thread
  // writes: -1 one per core; 0 none (the sink thread does it, one core).
  // More threads raise throughput until the cores or the disk are busy.
  int warc_threads = -1;
  // Ask the fetchers to compress each page's WARC record blocks themselves
  // (Heartbeat.writer_wants, warc/compressed_warc_blocks.h): the deflate and
  // SHA-1 of every body then run on the fetchers' cores, not the writer's.
  // Off: the writer compresses everything (fetchers it does not trust with
  // its WARC bytes, or to measure the difference). Not asked at level 0.
  bool fetcher_compression = true;
  // Include the body (base64) in JSON lines; off keeps the file small.
  bool jsonl_body = false;
  // A response whose payload this crawl (or a --dedup-index) already
  // stored becomes a WARC revisit record (payload_digest_index.h).
  bool warc_dedup = true;
  // CDXJ indexes of earlier crawls whose payloads count as stored.
  std::vector<std::string> dedup_indexes;
  // Memory of the payload digest index, whatever the crawl's size. Half is
  // its block cache, which holds the Bloom filters at 10 bits a payload:
  // past ~2.5x10^7 stored payloads (an estimate, not measured) they stop
  // fitting and a new payload's lookup starts reading the disk. Larger
  // crawls that want dedup at full speed raise it.
  uint32_t dedup_memory_mb = 64;
};

}  // namespace zcrawl::writer
