// WarcSink: stores pages as WARC/1.1 files (ISO 28500:2017), the format web
// archives and replay tools (pywb, warcio, ReplayWeb.page) read.
//
// Files are out_dir/PREFIX-YYYYmmddHHMMSS-NNNNN.warc.gz (UTC creation time,
// serial counting up across the folder). Every file starts with a warcinfo
// record (software, format, conformsTo, hostname). Each page becomes:
//   - a `response` record (application/http;msgtype=response): status line
//     (Page.http_version, default HTTP/1.1), headers, blank line, body, with
//     WARC-Target-URI (final_url, else url), WARC-Date (fetched_at_ms),
//     WARC-IP-Address when known, WARC-Payload-Digest (sha1 of the body),
//     WARC-Block-Digest (sha1 of the block), WARC-Truncated: length when the
//     fetcher cut the body;
//   - a `request` record (application/http;msgtype=request): the request as
//     sent (Page.request_headers) or, when the fetcher gave none, a
//     synthesised "GET path HTTP/1.1" with a Host header; the request and
//     response name each other in WARC-Concurrent-To;
//   - a `metadata` record (application/warc-fields) with one "outlink: URL"
//     line per link and WARC-Refers-To naming the response; left out when
//     the page has no links.
//
// We archive the DECODED payload. Page.body arrives with content-encoding
// (gzip, br, ...) already removed and without chunking, so the stored HTTP
// headers are rewritten to match it: Transfer-Encoding and the server's
// Content-Length are dropped, Content-Encoding is kept only as
// X-Zcrawl-Orig-Content-Encoding, and Content-Length is the stored body's
// length. The record is thus self-consistent and replay tools serve it as
// is; what is lost is the exact bytes on the wire.
//
// Each record is its own gzip member, so any record can be read from its
// offset (what CDX indexes point at). The gzip level (0 stored to 12;
// gzip_member.h says which compressor) is a constructor argument, default
// kDefaultWarcGzipLevel = 1. Compressing and digesting the records' blocks
// was most of the sink's CPU, so at levels 1-12 the sink asks the fetchers
// to do it (needs(); warc/compressed_warc_blocks.h): a page then comes
// with its blocks compressed and digested, and the sink only puts each
// record's WARC header in front (stored blocks) and the gzip framing around
// it. A page without them (fetchers that do not answer WriterWants, the
// writer's --no-fetcher-compression, a block that is not usable) is encoded
// here: SHA-1 of each block, deflate; the payload digest comes from the
// fetcher in Page.body_sha1, else it is a second SHA-1 pass. That runs on a
// WarcEncodePool of `threads` workers (default one per core; 0: on the sink
// thread), while the sink thread writes earlier results in order. Measured
// on the 2-core dev VM with bench/sink_throughput_bench (18 KB HTML pages,
// a commit every 512; bench/RESULTS.md run P): level 1 with the fetchers'
// blocks 1,650 MB/s of page bodies (78% of what dd writes), 535 MB/s when
// the writer compresses, files 0.36x (0.35x) the bodies' size; level 0
// (stored blocks, still one member per record, nothing asked of the
// fetchers) 520 MB/s for 1.14x the bytes.
//
// A file never grows past warc_max_bytes, except when it holds a single page
// larger than that: before appending a page that would cross the limit, the
// sink closes the file and starts the next one. A page's records always stay
// in one file. Open never overwrites a file: beyond the recovery below, which
// only cuts bytes no index line names, it picks the serial after the highest
// one in out_dir, creates files with O_EXCL and skips any serial already
// taken. The first file is created
// when the first page leaves the pool (in a Write with 0 threads, else in a
// later Write or the Flush), so an Open/Close without pages leaves no file.
//
// Exactly once in the files, not only in the index: no page's records are
// in the WARC files twice, whatever instant the writer dies at or whichever
// write fails. The sidecar index (warc_index.h) is the commit record: a page
// is acknowledged only after its index line is durable, and every byte a
// file holds past the last record an index line names belongs to pages
// that were never acknowledged and will come again. So those bytes are cut,
// as a write-ahead log is cut back to its last commit (warc_recovery.h):
// Open cuts every file of the folder back to its indexed end (a file no
// line names is set aside as NAME.unacknowledged, never deleted), and a
// failed window cuts the files rotation closed during it. We chose cutting
// over moving the tail elsewhere because a cut needs no free space (the
// failure is often a full disk) and the tail's pages are fetched again
// anyway; `recovered()` counts what was cut.
//
// Durability: Write hands the page to the pool and appends finished results
// to a buffer written in chunks of kWarcWriteChunkBytes; Flush waits for
// every page, writes the rest and fsyncs the file (and the folder after a
// file was created), then appends one line per page to the sidecar index
// (warc_index.h) and fsyncs that. A file finished by rotation is fsynced
// then, too. Pipelined (sink.h): BeginFlush does the waiting and writing and
// leaves the fsyncs to a thread of its own, so the next window's pages are
// encoded and written while the disk syncs; FinishFlush waits for it. Only
// rotation and failures wait for a flush in flight before touching the
// file. After a failed write or fsync, or a failed encoding, the sink
// cuts the current file back to what the last successful Flush made durable
// (so no torn gzip member stays behind), cuts the files rotation finished
// in the window back to their indexed end, refuses further Writes of that
// Flush window and fails its Flush, so none of the window's pages is
// acknowledged; the next window starts a new file. When the window in
// flight fails, the one being written after it fails too (its bytes were
// behind the cut).
//
// Revisits (options.warc_dedup, on by default): a page whose payload (its
// fetcher's SHA-1 of the body, non-empty) was stored before in this crawl,
// or is in a --dedup-index of earlier ones, is written as a `revisit` record
// (WARC-Profile identical-payload-digest, WARC-Refers-To-Target-URI,
// WARC-Refers-To-Date, and WARC-Refers-To when the first record's id is
// known) holding the HTTP head only, followed by its request and metadata
// records as usual. The decision is made in Append, in page order, against
// the PayloadDigestIndex (payload_digest_index.h), whose entries follow the
// windows' outcome as the index lines do. Close logs the revisits made
// durable and the payload bytes they saved.
//
// CDXJ: each index line carries the CDXJ line of its page's response
// record (warc/cdxj.h; its fields come out of the encoding, its offset and
// file from AppendPage). A file written to for the last time (rotation,
// Close, or kept after a failed write) is queued; the flush that makes its
// last index lines durable then writes its sorted CDXJ on the flush thread
// (warc_file_cdxj.h), and Close writes the last file's. A CDXJ that cannot
// be written is logged, never a failed flush: the pages are durable, and
// Open writes every missing CDXJ from the index at the next start.
//
// Restarts: ForEachStoredKey lists the dedup keys in the sidecar index, so
// a writer run with only the WARC sink knows what it stored before. WARC
// files written before the index existed are not listed.
//
// Thread-safety: none; the writer's sink thread owns the sink (sink.h).
// The pool's workers see only WarcPageParts copied out of each page; the
// flush thread only the descriptor it syncs, the folder and the index's
// sealed lines.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "writer/durable_file.h"
#include "writer/sink.h"
#include "warc/gzip_member.h"
#include "writer/sink_options.h"
#include "writer/warc_encode_pool.h"
#include "writer/payload_digest_index.h"
#include "writer/warc_index.h"
#include "writer/warc_recovery.h"
#include "warc/warc_record.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

// The payload digest index's folder: out_dir/PREFIX-digests.
inline constexpr std::string_view kDigestIndexSuffix = "-digests";

// gzip level of every record's member (the fastest, igzip's); see above.
inline constexpr int kDefaultWarcGzipLevel = 1;
// `threads` value meaning one encoding worker per core.
inline constexpr int kWarcThreadsPerCore = -1;
// Write() hands buffered bytes to the kernel once this many are pending.
inline constexpr size_t kWarcWriteChunkBytes = 1u << 20;
// Write() waits for the oldest page in the pool while more than this many
// pages, or body bytes, are being encoded: bounded memory.
inline constexpr size_t kWarcMaxPagesInFlightPerThread = 16;
inline constexpr size_t kWarcMaxBytesInFlight = 64u << 20;

class WarcSink : public Sink, public PipelinedFlush {
 public:
  // `clock` (wall time for file names, warcinfo dates and pages without a
  // fetch time) must outlive the sink.
  // `threads`: encoding workers, kWarcThreadsPerCore for one per core, 0
  // to encode on the sink thread.
  explicit WarcSink(SinkOptions options, int gzip_level = kDefaultWarcGzipLevel,
                    const Clock& clock = RealClock::Get(), int threads = kWarcThreadsPerCore);
  ~WarcSink() override;  // Close(), error ignored: call Close to see it
  WarcSink(const WarcSink&) = delete;
  WarcSink& operator=(const WarcSink&) = delete;

  // Creates out_dir if missing, finds the next free serial and cuts a torn
  // index line. Creates no file yet. Opening an open sink does nothing.
  Status Open() override;
  // BeginFlush then FinishFlush.
  Status Flush() override;
  // Writes what is buffered and starts fsync (file, folder, index) on a
  // thread of its own; Writes meanwhile go on into the same file.
  Status BeginFlush() override;
  Status FinishFlush() override;
  bool FlushReady() override;
  PipelinedFlush* pipelined() override { return this; }
  Status Close() override;
  std::string_view name() const override { return "warc"; }
  // With options.fetcher_compression and a level of 1 or more: response
  // blocks compressed at this sink's level, and no body (a page with a
  // usable block is stored from the block; the writer restores the body
  // of one without).
  SinkNeeds needs() const override;
  // The keys in the sidecar index (warc_index.h).
  Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) override;

  // Path of the file being written; empty when none is open.
  const std::string& current_path() const { return path_; }
  // Path of the sidecar index.
  const std::string& index_path() const { return index_.path(); }
  // Revisit records made durable since Open, and the payload bytes they
  // did not store again.
  DedupCounts dedup_counts() const override { return {revisits_, bytes_saved_}; }
  uint64_t revisits() const { return revisits_; }
  // Unacknowledged bytes and files cut since construction (Open's recovery
  // of an earlier run and failed windows; warc_recovery.h).
  const WarcRecoveryCounts& recovered() const { return recovered_; }
  uint64_t bytes_saved() const { return bytes_saved_; }

 private:
  // Fails when an earlier page of this Flush window failed (see above); the
  // payload goes to the encoding threads.
  Status Append(const v1::Page& page, PagePayload&& payload) override;
  // Takes finished pages from the pool in order and appends them; with
  // `wait_for_all` until the pool is empty, else until it is within its
  // bounds.
  void Drain(bool wait_for_all);
  // With dedup: makes `parts` a revisit when its payload was stored before,
  // else records it as the first (payload_digest_index.h).
  Status Deduplicate(const v1::Page& page, WarcPageParts& parts);
  // Appends one encoded page to the current file, rotating first if needed.
  Status AppendPage(EncodedWarcPage& page);
  // Records the first error of this Flush window and cuts the file back.
  void FailWindow(Status error);
  // Cuts the files in finished_files_ back to their indexed end.
  void CutFinishedFilesToIndex();
  // Waits for the flush in flight, if any; its success moves the file's durable size
  // on, its failure fails the window being written too (sync_error_).
  void CompleteSync();
  // Creates the next file and buffers its warcinfo record.
  Status StartFile();
  // Writes the buffer, fsyncs and closes the current file.
  Status FinishFile();
  // Hands buffer_ to the kernel (no fsync).
  Status WriteBuffer();
  // After an I/O error: drops the buffer, cuts the file back to its durable
  // size (removing it when nothing in it was durable) and closes it.
  void AbandonFile();
  Status SyncDirIfNeeded();
  // A WARC file written to for the last time, and the index byte its
  // lines start at or after.
  struct FinishedFile {
    std::string name;
    uint64_t index_from = 0;
  };
  // The files' names, and the index byte all their lines start at or after.
  static std::pair<std::set<std::string>, uint64_t> NamesAndIndexStart(const std::vector<FinishedFile>& files);
  // Writes the files' CDXJ (warc_file_cdxj.h) from their durable index
  // lines; a failure is logged, not returned (see there).
  void WriteCdxjOf(const std::vector<FinishedFile>& files) const;

  SinkOptions options_;
  int gzip_level_;
  int threads_;
  GzipMemberCompressor gzip_;    // warcinfo records
  const Clock* clock_;
  std::unique_ptr<WarcEncodePool> pool_;  // while open
  WarcIndex index_;
  Status window_error_;          // first failure since the last Flush
  bool open_ = false;
  DurableFile file_;             // current file; closed when none
  std::string path_;             // current file's path
  std::string file_name_;        // its name in out_dir
  uint64_t next_serial_ = 0;
  uint64_t file_bytes_ = 0;      // current file: written + buffered
  uint64_t pages_in_file_ = 0;
  uint64_t index_durable_floor_ = 0;  // the index's durable size at the last completed flush
  uint64_t file_index_from_ = 0;      // current file: its index lines start at or after this
  std::vector<FinishedFile> finished_files_;       // awaiting their CDXJ
  std::vector<FinishedFile> sync_finished_files_;  // the flush in flight writes their CDXJ
  std::unique_ptr<PayloadDigestIndex> digests_;  // while open, with dedup
  // Revisits and payload bytes they saved: this window's, the flush in
  // flight's, and the durable ones (what Close reports).
  uint64_t window_revisits_ = 0;
  uint64_t window_bytes_saved_ = 0;
  uint64_t sync_revisits_ = 0;
  uint64_t sync_bytes_saved_ = 0;
  uint64_t revisits_ = 0;
  uint64_t bytes_saved_ = 0;
  bool dedup_error_logged_ = false;
  WarcRecoveryCounts recovered_;
  bool dir_sync_needed_ = false;  // a file was created since the last folder fsync
  std::string buffer_;           // compressed records not yet written
  // The flush in flight (valid between BeginFlush and CompleteSync): the
  // file and size it makes durable, whether it syncs the folder, and the
  // outcome FinishFlush reports.
  std::future<Status> sync_;
  uint64_t files_started_ = 0;  // StartFile calls; names the current file
  uint64_t sync_file_ = 0;      // files_started_ of the file synced; 0: none
  uint64_t sync_bytes_ = 0;
  bool sync_dir_pending_ = false;
  Status sync_error_;
};

}  // namespace zcrawl::writer
