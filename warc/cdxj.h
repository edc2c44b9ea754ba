// CDXJ: the index that replay tools (pywb, ReplayWeb.page) and WACZ read
// beside WARC files. One line per response (or revisit) record:
//   URLKEY TIMESTAMP {"url":..,"mime":..,"status":..,"digest":..,"length":..,"offset":..,"filename":..}
// URLKEY is the URL in SURT form, TIMESTAMP the record's WARC-Date as 14
// digits; length and offset locate the record's gzip member in `filename`.
// A file's lines are sorted bytewise (LC_ALL=C), which sorts by URLKEY then
// TIMESTAMP: what a reader binary-searches.
//
// The exact form is warcio's (the `warcio` npm package's cdx-index, which
// pywb's indexer matches): its SURT rules below, its field order, numbers as
// JSON strings, fields it has no value for left out, and JSON.stringify's
// escapes. tests/writer/cdxj_agreement_test.cc holds us to it on real WARCs.
//
// Pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zcrawl {

// The SURT key of `url`, as warcio computes it: for http(s) URLs, a leading
// "www", "www2", ... label dropped, the whole URL lower-cased, the host's
// labels reversed and joined with ',' (IP addresses too), ":port" when not
// the scheme's default, ')', the path, and the query's '&'-separated parts
// sorted; the fragment dropped. Any other URL, or one that does not parse,
// is its own key.
std::string SurtKey(std::string_view url);

// "2026-12-03T08:15:49.123Z" -> "20261203081549".
std::string CdxjTimestamp(std::string_view warc_date);

// The other way, to the second: "20261203081549..." -> "2026-12-03T08:15:49Z"
// (a WARC-Date and an RFC 3339 time); nullopt unless 14 digits lead.
std::optional<std::string> IsoTimeOfCdxjTimestamp(std::string_view stamp);

// The wall-clock ms of exactly a 14-digit CDXJ timestamp (UTC); nullopt
// for anything else.
std::optional<int64_t> MsOfCdxjTimestamp(std::string_view stamp);

// A Content-Type header's media type as the index keeps it: before the
// first ';', trimmed. Empty for an empty header.
std::string CdxjMime(std::string_view content_type);

// What a response record contributes to its line; where it is stored
// comes later (CdxjLine), when the record has an offset.
struct CdxjRecordFields {
  std::string url;        // WARC-Target-URI
  std::string warc_date;  // WARC-Date
  bool has_mime = false;  // the response had a Content-Type header
  std::string mime;       // CdxjMime of it
  uint32_t status = 0;    // HTTP status; 0: none (the field is left out)
  std::string digest;     // WARC-Payload-Digest without "sha1:"; empty: none
};

// "URLKEY TIMESTAMP {...}" without a line end.
std::string CdxjLine(const CdxjRecordFields& fields, uint64_t length, uint64_t offset, std::string_view filename);

// Appends `s` as JSON.stringify writes a string (\b \f \n \r \t, other
// control characters as lower-case \u00XX, everything else as is), so our
// lines match warcio's byte for byte. `s` is UTF-8 (ours: URLs are ASCII).
void AppendJsStringLiteral(std::string& out, std::string_view s);

}  // namespace zcrawl
