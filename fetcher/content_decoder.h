// ContentDecoder: undoes a response's Content-Encoding (RFC 9110 8.4) as
// its body arrives, so the fetcher stores and parses the body decoded.
//
// Why not libcurl's own decoding: libcurl 7.88 inflates gzip and deflate
// with zlib, which was 10% of the whole crawl's CPU on issue 51's web-like
// site (every HTML page gzipped). Here gzip and deflate go through ISA-L's
// igzip inflater (libisal, already the WARC writer's compressor), 2-3x
// zlib's speed (bench/RESULTS.md, content_decode_bench); br and zstd through
// their reference libraries, as libcurl would. The transfer turns libcurl's
// decoding off (CURLOPT_HTTP_CONTENT_DECODING 0) and advertises exactly
// what is decoded here (kAcceptEncoding).
//
// Rules (libcurl 7.88's where it has one):
//   - codings apply in the order listed ("gzip, br": br was applied last,
//     so it is undone first); "identity" and "none" are nothing; at most
//     kMaxCodings; an unknown coding is an error (bad_content_encoding;
//     libcurl fails it too, browsers show the bytes undecoded);
//   - corrupt data (bad header, checksum, symbol) is an error;
//   - gzip: further members after the first are decoded too (as the gzip
//     tool and Firefox do); what follows a whole member and is not a valid
//     member is ignored; "deflate" is zlib-wrapped, or raw DEFLATE from
//     servers that get it wrong;
//   - a stream cut short keeps what was decoded (the transfer itself knows
//     whether the body arrived whole);
//   - output is bounded: a small body that inflates past the limit stops
//     there (kFull) after at most one chunk of extra work, a bomb costs
//     no more than the limit. An intermediate stage's output is held to
//     twice the limit (normally it is smaller than the body).
//   - memory: ~150 KB for gzip or deflate (ISA-L's state and a 64 KiB
//     chunk); br's window is the stream's, up to 16 MiB (as in libcurl);
//     zstd frames asking for a window over 8 MiB are refused (RFC 8878's
//     recommended bound). Two codings at most keep a hostile response
//     under ~32 MiB; the transfer frees its decoder when it ends.
//
// Thread-safety: one decoder per response, used by one thread.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::fetcher {

class ContentDecoder {
 public:
  // The Accept-Encoding the fetcher sends: every coding decoded here.
  static constexpr const char* kAcceptEncoding = "gzip, deflate, br, zstd";
  // Real servers send one; libcurl allows 5, each with its own window.
  static constexpr size_t kMaxCodings = 2;

  enum class Result { kOk, kFull, kError };

  // For a response whose Content-Encoding headers, joined with ", ", say
  // `codings`. Null with *error set when a coding is unknown or there are
  // too many; a decoder with no stages (identity) when there is none.
  static std::unique_ptr<ContentDecoder> ForCodings(std::string_view codings, std::string* error);

  ~ContentDecoder();
  ContentDecoder(const ContentDecoder&) = delete;
  ContentDecoder& operator=(const ContentDecoder&) = delete;

  // True when there is nothing to undo: bytes are appended as they come.
  bool identity() const { return stages_.empty(); }

  // Decodes the next bytes of the body, appending to *out while out->size()
  // stays within `limit`. kFull: the decoded body would pass `limit` (out
  // holds its first `limit` bytes); kError: see error().
  Result Decode(std::string_view in, std::string* out, size_t limit);
  const std::string& error() const { return error_; }

  // One coding's decoder (content_decoder.cc has gzip/deflate, br, zstd).
  class Stage;

 private:
  ContentDecoder();
  Result Feed(size_t stage, std::string_view in, std::string* out, size_t limit);

  std::vector<std::unique_ptr<Stage>> stages_;  // in the order they undo codings
  std::string error_;
};

}  // namespace zcrawl::fetcher
