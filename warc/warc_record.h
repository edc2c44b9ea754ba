// WarcRecord: one WARC/1.1 record (ISO 28500:2017) and the pieces to build
// it: record ids, sha1 digests in the "sha1:BASE32" form and serialisation
// to bytes. Each record is then compressed as its own gzip member
// (gzip_member.h).
//
// This file knows the WARC format only, nothing about crawled pages or files;
// warc_sink.h decides which records a page becomes.
//
// Free functions are safe from any thread. A WarcSha1 owns library state: one per thread, not safe for concurrent use.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "warc/warc_blocks.h"  // kWarcRecordEnd

struct evp_md_ctx_st;
struct evp_md_st;

namespace zcrawl {

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

// The same digest over data that arrives in pieces (a block made of an HTTP
// head and a body that live in different buffers), reusing one OpenSSL
// context between digests. Always 37 characters: "sha1:" + 32.
class WarcSha1 {
 public:
  WarcSha1();
  ~WarcSha1();
  WarcSha1(const WarcSha1&) = delete;
  WarcSha1& operator=(const WarcSha1&) = delete;

  // Adds `data` to the digest being computed.
  void Update(std::string_view data);
  // "sha1:BASE32" of everything added since the last Finish; starts over.
  Result<std::string> Finish();

 private:
  Status Begin();

  evp_md_st* md_ = nullptr;       // fetched once
  evp_md_ctx_st* ctx_ = nullptr;
  bool started_ = false;
  bool failed_ = false;           // an Update failed; Finish reports it
};

// Appends the record's bytes to `out`: version line, WARC-Type,
// WARC-Record-ID, WARC-Date, the fields, Content-Length, a blank line, the
// block and the two CRLFs that end a record. Field names and values have any
// CR, LF or other control character replaced by a space, so a hostile URL
// cannot inject a field or end the header early.
void AppendWarcRecord(const WarcRecord& record, std::string& out);

// Appends one "name: value" CRLF line of WARC fields (a record's header,
// or an application/warc-fields block such as warcinfo's), with control
// characters replaced by spaces as in AppendWarcRecord.
void AppendWarcField(std::string& out, std::string_view name, std::string_view value);

// Appends only the record's header (through the blank line), with
// Content-Length `block_size` instead of record.block's size; the caller
// appends the block, possibly in pieces, then kWarcRecordEnd.
void AppendWarcHeader(const WarcRecord& record, size_t block_size, std::string& out);

}  // namespace zcrawl
