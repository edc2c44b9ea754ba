// Exactly once in the WARC files: cuts each WARC file back to the pages its
// sidecar index acknowledges (warc_index.h), like a write-ahead log's
// recovery cuts the log back to its last commit.
//
// Why it is needed: the sink makes a window durable in two steps, the WARC
// bytes first, then the index lines naming them, and acknowledges the
// window's pages only after both. Bytes written after the last durable
// index line (a writer killed between the two fsyncs, or in the middle of
// a window; a window that failed after rotation moved some of its pages
// into a file already closed) belong to pages that were never
// acknowledged: they come again and are stored again, so left in place
// they would be a second capture in the files, seen by every reader of
// `*.warc.gz` even though the index lists the page once.
//
// What it does, for each file: the end of the last record an index line
// names is its acknowledged end.
//   - A file longer than that is truncated to it (and fsynced). Those bytes
//     were written by this sink after its own last commit; nothing else can
//     be in them.
//   - A file no index line names holds no acknowledged page at all. It is
//     renamed to NAME.unacknowledged (warc_file_name.h) rather than
//     deleted: a rename needs no free space, and a file of the folder we did
//     not write (another tool's, with our prefix) is never destroyed.
// Files are matched by the sink's own name pattern only.
//
// Who calls it: WarcSink::Open over the whole folder (a previous run's
// tails), and WarcSink after a failed window over the files that window
// finished. Not thread-safe against a sink writing the same folder: call it
// while no flush is in flight.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl::writer {

struct WarcRecoveryCounts {
  uint64_t files_cut = 0;         // truncated to their acknowledged end
  uint64_t bytes_cut = 0;         // bytes removed by those cuts
  uint64_t files_set_aside = 0;   // renamed to NAME.unacknowledged
  bool changed() const { return files_cut > 0 || files_set_aside > 0; }
};

// Cuts the WARC files named PREFIX-*.warc.gz in `dir` back to what the
// index at `index_path` acknowledges. `only`: when non-null, just these
// file names (they must all have their index lines at or after byte
// `from`); when null, every such file of the folder (`from` must be 0).
// Errors: the folder cannot be listed, or a cut or rename failed (the
// files before it are done; a later call does the rest).
Status CutWarcFilesToIndex(const std::string& dir, std::string_view prefix, const std::string& index_path,
                           uint64_t from, const std::set<std::string>* only, WarcRecoveryCounts* counts);

}  // namespace zcrawl::writer
