// SinkOptions: the settings every sink reads. Filled from WriterOptions by
// the writer's main; sinks keep a copy.
#pragma once

#include <cstdint>
#include <string>

namespace zcrawl::writer {

struct SinkOptions {
  // Output folder; created if missing. Each sink writes inside it only.
  std::string out_dir = "crawl-out";
  // WARC files rotate once they reach this size. Larger files mean fewer
  // files but slower seeks for tools that scan whole files.
  uint64_t warc_max_bytes = 1ull << 30;
  // WARC file names: PREFIX-YYYYmmddHHMMSS-SERIAL.warc.gz
  std::string warc_prefix = "zcrawl";
  // gzip level of each WARC record (0-9). 1 costs ~1 CPU-ms per 100 KB and
  // halves the size; 0 stores records uncompressed (still one gzip member
  // each, so files stay seekable) and writes at disk speed.
  int warc_gzip_level = 1;
  // Include the body (base64) in JSON lines; off keeps the file small.
  bool jsonl_body = false;
};

}  // namespace zcrawl::writer
