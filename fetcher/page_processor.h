// PageProcessor: the work of one fetch worker for one leased URL: fetch it,
// and for HTML decode the charset, parse, extract title, text and links.
// Produces the report for the frontier and, when there is something to
// store, the page for the writer.
//
// When the writer asks for it, the worker also compresses the page's WARC
// record blocks (warc/compressed_warc_blocks.h): spread over the fetchers,
// that work no longer bounds the single writer.
//
// Thread-safety: one processor per worker thread (it owns that thread's
// HttpClient, which may be null when an event loop does the fetching and
// only Complete is called); parsers are borrowed from a pool the workers
// share, for the parse only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/clock.h"
#include "warc/gzip_member.h"
#include "fetcher/fetcher_options.h"
#include "fetcher/html_parser.h"
#include "fetcher/html_parser_pool.h"
#include "fetcher/http_client.h"
#include "fetcher/writer_wants_cell.h"
#include "zcrawl.pb.h"

namespace zcrawl::fetcher {

struct FetchOutcome {
  uint64_t lease_id = 0;
  v1::FetchReport report;         // to the frontier, once the page is durable
  std::optional<v1::Page> page;   // to the writer first, if set
  // For the node's counters; already logged (sitemap_links.h).
  bool sitemap_cut = false;         // a sitemap past the protocol's limits
  bool sitemap_gzip_error = false;  // a gzip body that did not inflate
};

class PageProcessor {
 public:
  // `writer_wants`, when given, is read once for each page (and must
  // outlive the processor); without it a page has its digest, its body and
  // no WARC blocks.
  PageProcessor(const FetcherOptions& options, std::unique_ptr<HttpClient> http,
                std::shared_ptr<HtmlParserPool> parsers, const Clock& clock,
                const WriterWantsCell* writer_wants = nullptr);

  // Fetches the item with this processor's client, then Complete.
  FetchOutcome Process(const v1::WorkItem& item, const std::string& sender_id);

  // The request a work item needs: its robots.txt (any redirect followed,
  // body cut at 500 KiB) or its page.
  static HttpRequest RequestFor(const v1::WorkItem& item);
  // Everything after the fetch: the report and, for a page to store, its
  // parse. `response` answers RequestFor(item), fetched by whoever fetched
  // it (Process, or the fetch event loop), which took fetch_ms.
  FetchOutcome Complete(const v1::WorkItem& item, const std::string& sender_id,
                        HttpResponse response, uint32_t fetch_ms);

 private:
  static void CompleteRobots(HttpResponse& response, v1::FetchReport& report);
  void ParseHtml(const HttpResponse& response, v1::Page& page);
  // Adds the WARC blocks at the level `wishes` ask for, if any, and drops
  // the body if they say it may go (after a block was made, when blocks
  // are asked for).
  void AddWarcBlockIfWanted(v1::Page& page, const WriterWishes& wishes);

  const FetcherOptions& options_;
  std::unique_ptr<HttpClient> http_;
  std::shared_ptr<HtmlParserPool> parsers_;
  const Clock& clock_;
  const WriterWantsCell* writer_wants_;
  std::unique_ptr<GzipMemberCompressor> warc_compressor_;  // at warc_compressor_level_
  uint32_t warc_compressor_level_ = 0;
};

// True for media types we parse as HTML.
bool IsHtmlContentType(std::string_view media_type);
// "text/html; charset=UTF-8" -> "text/html".
std::string MediaType(std::string_view content_type_header);

}  // namespace zcrawl::fetcher
