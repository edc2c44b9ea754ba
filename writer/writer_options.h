// WriterOptions: every setting of the writer process, with its default and
// trade-off. docs/CONFIG.md lists the same keys.
#pragma once

#include <cstdint>
#include <string>

#include "common/free_space.h"
#include "common/logging.h"
#include "net/liveness_options.h"
#include "net/security_options.h"
#include "writer/sink_options.h"

namespace zcrawl::writer {

struct WriterOptions {
  // Where fetchers send pages (ROUTER).
  std::string bind = "tcp://127.0.0.1:5571";
  // Optional: the frontier, to learn when the crawl is over. Without it the
  // writer runs until SIGINT/SIGTERM.
  std::string frontier;
  // Comma-separated sink names: files, jsonl, warc.
  std::string format = "files";
  // Most pages written between two flushes. Larger amortises fsync over
  // more pages but delays acknowledgements.
  uint32_t max_batch_pages = 512;
  // Out of space before ENOSPC: the writer waits (stores nothing new) while
  // the output's filesystem has less free space than this (the frontier
  // has the same floor for its state; one setting in ./run crawl). 0: only
  // ENOSPC stops it.
  uint64_t min_free_mb = kDefaultMinFreeMb;
  // Prometheus metrics over HTTP on this port (0: off).
  uint16_t metrics_port = 0;
  std::string metrics_bind = "127.0.0.1";
  // Where to write the writer's counts as JSON when it exits (stored,
  // duplicates, bytes, revisits and the bytes they saved); "": nowhere.
  // ./run crawl prints them in its summary.
  std::string summary_file;
  // Heartbeats, and how the writer notices a lost frontier and reconnects.
  LivenessOptions link;
  SinkOptions sink;
  SecurityOptions security;
  LoggingOptions logging;
};

}  // namespace zcrawl::writer
