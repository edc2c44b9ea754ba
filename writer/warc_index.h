// WarcIndex: the sidecar index a WarcSink keeps next to its WARC files, so
// a restarted writer knows which pages its WARC files durably hold without
// reading them (Sink::ForEachStoredKey).
//
// out_dir/PREFIX-index.jsonl, appended across runs, one JSON line per
// stored page, in write order:
//   {"url":KEY,"file":"PREFIX-...-00003.warc.gz","offset":N,"length":M,"cdxj":LINE,
//    "depth":D,"title":T}
// KEY is the page's dedup key (the leased URL); [offset, offset + length)
// is the page's records (response, request, metadata: gzip members) in that
// file, so a reader can seek to it. LINE is the CDXJ line of the page's
// response record (warc/cdxj.h): the durable source of each WARC file's
// sorted CDXJ index (warc_file_cdxj.h), so that index never needs a pass
// over the WARC file, even after a crash. D and T (the page's link hops
// from a seed and its title) make a WACZ's page lists (wacz_pack.h). Lines
// written before zcrawl wrote CDXJ have none of the last three members.
//
// Durability: the sink adds lines while writing and calls Flush only after
// the WARC bytes they point at were fsynced, so a line never names bytes
// that are not durable. A crash between the two leaves durable pages that
// no line names; they were never acknowledged and come again, so the sink
// cuts them out of the WARC files at its next Open (warc_recovery.h): the
// index is the files' commit record. Open cuts a torn last line left by a
// crash; ForEachKey also skips lines that are not complete JSON objects and
// lines whose range is not within their WARC file (deleted or cut files).
// After a failed write the file is cut back to its last durable size.
//
// Thread-safety: owned by the WarcSink. Add, DropPending, Seal, Flush, Open,
// Close and ForEachKey run on the sink thread. FlushSealed may run on
// another thread (the sink's flush in flight) while the sink thread Adds
// and Drops the next window's lines: it touches only the sealed lines and
// the file, which the sink thread leaves alone until that flush is over.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "writer/page_validators.h"

#include "common/status.h"
#include "writer/durable_file.h"

namespace zcrawl::writer {

inline constexpr std::string_view kWarcIndexSuffix = "-index.jsonl";

// One complete line of an index, whose range lies within its WARC file.
struct WarcIndexLine {
  std::string key;
  std::string file;  // a name in the index's folder
  uint64_t offset = 0;
  uint64_t length = 0;
  std::string cdxj;  // empty in lines from before CDXJ
  int64_t depth = -1;  // -1 in lines from before CDXJ
  std::string title;
  PageValidators validators;  // "etag", "last_modified": absent in older lines
};

// Calls `visit` with every such line of the index at `path` (WARC files in
// `dir`) from byte `from` on; lines that are torn, not JSON, or point past
// the end of their file (deleted or cut files) are skipped. A missing index
// has no lines.
Status ForEachWarcIndexLine(const std::string& path, const std::string& dir, uint64_t from,
                            const std::function<void(const WarcIndexLine&)>& visit);

class WarcIndex {
 public:
  // `dir`: the folder of the WARC files and of the index; `prefix`: their
  // name prefix.
  WarcIndex(std::string dir, std::string_view prefix);
  ~WarcIndex();  // Close()
  WarcIndex(const WarcIndex&) = delete;
  WarcIndex& operator=(const WarcIndex&) = delete;

  // Cuts a torn last line left by a crash. Creates no file.
  Status Open();
  // Buffers one line: the page `key` is at [offset, offset + length) of the
  // WARC file named `file` (a name in dir, not a path); `cdxj` is its
  // response record's CDXJ line; `depth` and `title` the page's.
  void Add(std::string_view key, std::string_view file, uint64_t offset, uint64_t length, std::string_view cdxj,
           uint32_t depth, std::string_view title, const PageValidators& validators = {});
  // Forgets the lines added since the last Flush (their pages were not made
  // durable).
  void DropPending();
  // Appends the buffered lines and fsyncs. The first Flush with lines
  // creates the file and sets *created, so the caller fsyncs the folder.
  // Same as Seal then FlushSealed.
  Status Flush(bool* created);
  // Sets the lines added so far aside for FlushSealed; later Adds and
  // DropPending concern the next lines only.
  void Seal();
  // Lines are sealed and not yet flushed.
  bool has_sealed() const { return !sealed_.empty(); }
  // Flush of the sealed lines only (they are dropped when it fails).
  Status FlushSealed(bool* created);
  void Close();

  // Calls `visit` with the key of every complete line whose range lies
  // within its WARC file. A missing index lists nothing.
  Status ForEachKey(const std::function<void(const std::string&)>& visit) const;

  const std::string& path() const { return path_; }
  // Bytes of the index known durable; read it only while no FlushSealed
  // runs. Lines added later are written after this offset.
  uint64_t durable_size() const { return file_.durable_size(); }

 private:
  // After a failed write: cuts the file back to its durable size and closes it.
  void AbandonWrites();

  std::string dir_;
  std::string path_;
  DurableFile file_;           // opened by the first FlushSealed
  std::string pending_;        // lines not yet written (sink thread)
  std::string sealed_;         // lines FlushSealed writes next
};

}  // namespace zcrawl::writer
