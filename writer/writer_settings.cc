#include "writer/writer_settings.h"

#include "common/free_space_flag.h"

namespace zcrawl::writer {

void DeclareWriterSettings(SettingsDeclarer& d, WriterOptions& o) {
  d.Option("--bind", o.bind, "Endpoint to bind for fetchers (several: comma-separated)")->capture_default_str();
  d.Option("--frontier", o.frontier, "Frontier endpoint, to learn when the crawl ends");
  d.Option("--out", o.sink.out_dir, "Output folder")->capture_default_str();
  d.Option("--summary-file", o.summary_file, "Write the writer's counts here as JSON when it exits");
  d.Option("--format", o.format, "Sinks, comma-separated: files, jsonl, warc, wacz (WARC that ./run crawl packs into OUT/crawl.wacz at the end); or exec:CMD (one JSON line per page to CMD's stdin)")
      ->capture_default_str();
  d.Option("--max-batch-pages", o.max_batch_pages, "Pages per group commit")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  AddMinFreeSpaceFlag(d, o.min_free_mb);
  d.Option("--warc-max-bytes", o.sink.warc_max_bytes, "Rotate WARC files at this size")
      ->capture_default_str();
  d.Option("--warc-prefix", o.sink.warc_prefix, "WARC file name prefix")->capture_default_str();
  d.Option("--warc-gzip-level", o.sink.warc_gzip_level,
                 "gzip level of WARC records, 0-12 (0: stored, ~3x the bytes; 1: igzip, the fastest compression; 2-12: libdeflate, smaller; 1-12 compressed by the fetchers unless --no-fetcher-compression)")
      ->capture_default_str()->check(CLI::Range(0, 12));
  d.Option("--warc-threads", o.sink.warc_threads,
                 "Threads compressing WARC records (-1: one per core, 0: none)")
      ->capture_default_str()->check(CLI::Range(-1, 64));
  d.Flag("!--no-fetcher-compression", o.sink.fetcher_compression,
               "Compress WARC records here instead of asking the fetchers to compress their blocks");
  d.Flag("--jsonl-body", o.sink.jsonl_body, "Include bodies (base64) in JSON lines");
  d.Flag("!--no-warc-dedup", o.sink.warc_dedup,
         "Store a payload seen before in full instead of as a WARC revisit record");
  d.Option("--dedup-index", o.sink.dedup_indexes,
           "CDXJ index of an earlier crawl (./run index): its payloads become revisits here (repeatable)");
  d.Option("--dedup-memory-mb", o.sink.dedup_memory_mb, "Memory of the WARC payload digest index")
      ->capture_default_str()->check(CLI::Range(8u, 65536u));
  d.Option("--metrics-port", o.metrics_port, "Serve Prometheus metrics here (0: off)")
      ->capture_default_str();
  d.Option("--metrics-bind", o.metrics_bind, "Address for the metrics endpoint")
      ->capture_default_str();
  AddLivenessFlags(d, o.link, /*reconnects=*/true);
  AddSecurityFlags(d, o.security, /*server=*/true, /*frontier_client=*/true, false);
  d.Option("--log-level", o.logging.level, "trace|debug|info|warn|error|off")
      ->capture_default_str();
  d.Flag("--log-json", o.logging.json, "Log one JSON object per line");
}

}  // namespace zcrawl::writer
