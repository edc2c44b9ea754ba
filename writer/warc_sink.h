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
// offset (what CDX indexes point at). The zlib level is a constructor
// argument, default kDefaultWarcGzipLevel = 1 (Z_BEST_SPEED). Measured on the
// 2-core dev VM, 20,000 pages of 18 KB of HTML: level 1 takes in about
// 80 MB/s of pages (4,300 pages/s) and writes files 0.42x that size; level 6
// manages 36 MB/s for 0.36x; level 0 (stored blocks, still one member per
// record) 230-310 MB/s for 1.15x. Deflate is ~80% of the sink's CPU, so
// level 1 is the cheapest real compression; it stays well above what the
// fetchers deliver. Use level 0 when disk space is cheaper than CPU.
//
// A file never grows past warc_max_bytes, except when it holds a single page
// larger than that: before appending a page that would cross the limit, the
// sink closes the file and starts the next one. A page's records always stay
// in one file. Open never touches existing files: it picks the serial after
// the highest one in out_dir, creates files with O_EXCL and skips any serial
// already taken, so nothing is ever overwritten. The first file is created
// at the first Write, so an Open/Close without pages leaves no file.
//
// Durability: Write buffers in memory and writes in chunks of
// kWarcWriteChunkBytes; Flush writes the rest and fsyncs the file (and the
// folder after a file was created). A file finished by rotation is fsynced
// then, too. After a failed write or fsync the sink cuts the current file
// back to what the last successful Flush made durable (so no torn gzip
// member stays behind) and continues in a new file; the unacknowledged pages
// come again. Pages already moved into an earlier file by rotation in the
// same Flush window stay there and may then appear twice: the Sink contract
// allows that, and readers take the later copy or either.
//
// Thread-safety: none; the writer's sink thread owns the sink (sink.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"
#include "writer/sink.h"
#include "writer/sink_options.h"
#include "writer/warc_record.h"
#include "zcrawl.pb.h"

namespace zcrawl::writer {

// zlib level of every record's gzip member (Z_BEST_SPEED); see above.
inline constexpr int kDefaultWarcGzipLevel = 1;
// Write() hands buffered bytes to the kernel once this many are pending.
inline constexpr size_t kWarcWriteChunkBytes = 4u << 20;

class WarcSink : public Sink {
 public:
  // `clock` (wall time for file names, warcinfo dates and pages without a
  // fetch time) must outlive the sink.
  explicit WarcSink(SinkOptions options, int gzip_level = kDefaultWarcGzipLevel,
                    const Clock& clock = RealClock::Get());
  ~WarcSink() override;  // Close(), error ignored: call Close to see it
  WarcSink(const WarcSink&) = delete;
  WarcSink& operator=(const WarcSink&) = delete;

  // Creates out_dir if missing and finds the next free serial. Creates no
  // file yet. Opening an open sink does nothing.
  Status Open() override;
  Status Write(const v1::Page& page) override;
  Status Flush() override;
  Status Close() override;
  std::string_view name() const override { return "warc"; }

  // Path of the file being written; empty when none is open.
  const std::string& current_path() const { return path_; }

 private:
  // Appends the page's records, each gzip-compressed, to `out`.
  Status AppendPageRecords(const v1::Page& page, std::string& out);
  // Compresses one record into `out`.
  Status AppendCompressed(const WarcRecord& record, std::string& out);
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

  SinkOptions options_;
  GzipMemberCompressor gzip_;
  const Clock* clock_;
  bool open_ = false;
  int fd_ = -1;                  // current file, -1 when none
  std::string path_;             // current file's path
  uint64_t next_serial_ = 0;
  uint64_t file_bytes_ = 0;      // current file: written + buffered
  uint64_t synced_bytes_ = 0;    // current file: durable prefix
  uint64_t pages_in_file_ = 0;
  bool dir_sync_needed_ = false;  // a file was created since the last folder fsync
  std::string buffer_;           // compressed records not yet written
  std::string page_bytes_;       // scratch: one page's compressed records
  std::string record_bytes_;     // scratch: one uncompressed record
};

}  // namespace zcrawl::writer
