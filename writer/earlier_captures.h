// EarlierCaptures: what a crawl's output says it captured, for a recrawl
// (./run crawl --recrawl OLD): each URL with its depth and what revalidates
// it (ETag, Last-Modified, capture time, payload digest), read from every
// index OLD holds: the files sink's index.jsonl, the WARC sidecars
// (PREFIX-index.jsonl, with each record's CDXJ line) and pages.jsonl. A
// recrawl of a recrawl works too: an "unchanged" line of index.jsonl or
// pages.jsonl names the capture that still stands; a WARC revisit names
// itself (its date, and the payload digest it stands for). Lines that do
// not parse are counted and skipped. Thread-compatible.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

struct EarlierCapture {
  std::string url;
  uint32_t depth = 0;
  v1::Validators validators;  // fields empty or 0 when the index lacks them
};

struct EarlierCaptureCounts {
  uint64_t indexes = 0;  // index files read; 0: `dir` holds no crawl output
  uint64_t captures = 0;
  uint64_t bad_lines = 0;
};

// Calls `visit` with each capture the indexes in `dir` list, in file order
// (a URL in several indexes comes more than once).
Result<EarlierCaptureCounts> ForEachEarlierCapture(const std::string& dir,
                                                   const std::function<void(const EarlierCapture&)>& visit);

}  // namespace zcrawl::writer
