// WarcRecord: one WARC/1.1 record (ISO 28500:2017) and the pieces to build
// it: record ids, sha1 digests in the "sha1:BASE32" form, serialisation to
// bytes, and gzip of one record as its own gzip member (the per-record
// compression readers rely on to seek to any record by offset).
//
// This file knows the WARC format only, nothing about crawled pages or files;
// warc_sink.h decides which records a page becomes.
//
// Free functions are safe from any thread. A GzipMemberCompressor owns zlib
// state: one per thread, not safe for concurrent use.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

struct z_stream_s;

namespace zcrawl::writer {

inline constexpr std::string_view kWarcVersionLine = "WARC/1.1";

struct WarcRecord {
  std::string type;       // WARC-Type: "warcinfo", "request", "response", ...
  std::string record_id;  // WARC-Record-ID, "<urn:uuid:...>"
  std::string date;       // WARC-Date, see FormatWarcDate in common/encoding.h
  // Further named fields, written in this order after the three above.
  // Content-Length is computed from `block`; do not add it here.
  std::vector<std::pair<std::string, std::string>> fields;
  std::string block;

  void AddField(std::string name, std::string value) {
    fields.emplace_back(std::move(name), std::move(value));
  }
};

// A new "<urn:uuid:...>" from a random version-4 UUID (OpenSSL RAND_bytes).
// Fails only when the system's random source does.
Result<std::string> NewWarcRecordId();

// "sha1:" followed by the base32 SHA-1 of `data` (OpenSSL EVP).
Result<std::string> WarcSha1Digest(std::string_view data);

// Appends the record's bytes to `out`: version line, WARC-Type,
// WARC-Record-ID, WARC-Date, the fields, Content-Length, a blank line, the
// block and the two CRLFs that end a record. Field names and values have any
// CR, LF or other control character replaced by a space, so a hostile URL
// cannot inject a field or end the header early.
void AppendWarcRecord(const WarcRecord& record, std::string& out);

// Compresses each input as one complete gzip member (RFC 1952), reusing one
// zlib state between members. A file made of such members is a valid
// multi-member gzip file that `gzip -d` reads whole.
class GzipMemberCompressor {
 public:
  // `level` is a zlib level, 0 (stored) to 9; see WarcSink for the default.
  explicit GzipMemberCompressor(int level);
  ~GzipMemberCompressor();
  GzipMemberCompressor(const GzipMemberCompressor&) = delete;
  GzipMemberCompressor& operator=(const GzipMemberCompressor&) = delete;

  // Appends `data` as one gzip member to `out`.
  Status AppendMember(std::string_view data, std::string& out);

 private:
  int level_;
  z_stream_s* stream_ = nullptr;  // created on first use
};

}  // namespace zcrawl::writer
