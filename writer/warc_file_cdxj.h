// The CDXJ index beside each WARC file: PREFIX-...-00003.warc.gz gets
// PREFIX-...-00003.cdxj, its response records' lines (warc/cdxj.h) sorted
// bytewise, as pywb and WACZ want them.
//
// The lines come from the sink's sidecar index (warc_index.h), never from
// reading the WARC file again: a WarcSink writes a file's CDXJ once the file
// is finished and its index lines are durable, and a crash in between is
// made good by the next writer's Open, or by `./run index`, which write the
// CDXJ of every finished file that has none. A file's CDXJ is written to a
// temporary name, fsynced and renamed, so a reader never sees half of one.
// It holds the pages the sidecar index holds: those acknowledged. A page
// whose records reached the file but whose acknowledgement was lost to a
// crash is in the file, not in its CDXJ (it is stored again later, and
// indexed there).
//
// Thread-safety: functions of their arguments and the files named; do not
// run two on one folder at once.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"

namespace zcrawl::writer {

inline constexpr std::string_view kCdxjSuffix = ".cdxj";

// "dir/PREFIX-...-00003.cdxj" for the WARC file "PREFIX-...-00003.warc.gz".
std::string CdxjPathFor(const std::string& dir, const std::string& warc_name);

struct CdxjFileCounts {
  uint64_t files_written = 0;
  uint64_t lines_written = 0;
  // WARC files whose index lines predate CDXJ: no CDXJ can be made for them
  // from the index.
  uint64_t files_without_cdxj_lines = 0;
};

// Writes the CDXJ of WARC files in `dir` from the lines of the sidecar index
// at `index_path` from byte `from` on (ForEachWarcIndexLine): of the files in
// `warc_names`, or, when it is null, of every file the index names that
// exists and has no CDXJ yet. A named file without lines gets an empty CDXJ
// (all its pages failed before they were acknowledged).
Status WriteWarcFileCdxj(const std::string& dir, const std::string& index_path, uint64_t from,
                         const std::set<std::string>* warc_names, CdxjFileCounts* counts);

// The whole crawl's index: merges the sorted CDXJ files `inputs` into one
// sorted file `output` (written to a temporary name, fsynced, renamed),
// streaming: memory does not grow with their size. Sets *lines.
Status MergeCdxjFiles(const std::vector<std::string>& inputs, const std::string& output, uint64_t* lines);

// `./run index`: the CDXJ of every finished WARC file in `dir` that has
// none (from each sidecar index in it, warc_index.h), then their merge into
// `output`. Run it when no writer writes to `dir`.
struct CrawlIndexCounts {
  CdxjFileCounts files;   // CDXJ written for files that had none
  uint64_t inputs = 0;    // CDXJ files merged
  uint64_t lines = 0;     // lines in `output`
};
Status WriteCrawlIndex(const std::string& dir, const std::string& output, CrawlIndexCounts* counts);

}  // namespace zcrawl::writer
