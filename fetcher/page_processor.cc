#include "fetcher/page_processor.h"

#include <spdlog/spdlog.h>

#include "common/ascii.h"
#include "common/encoding.h"
#include "common/page_key.h"
#include "warc/compressed_warc_blocks.h"
#include "common/sha1.h"
#include "common/url.h"
#include "fetcher/charset.h"
#include "fetcher/link_resolver.h"
#include "fetcher/sitemap_links.h"

#include <unordered_set>

namespace zcrawl::fetcher {
namespace {

constexpr uint64_t kMaxRobotsBytes = 512000;  // RFC 9309: parse at least 500 KiB

// The target of a redirect that was not followed, as a link like the ones
// parsed from HTML: absolute http(s), no fragment, listed once. A redirect
// is the server's answer, not a link the page marked nofollow.
// `hops` counts this redirect and those before it (WorkItem.redirect_hops).
void AddRedirectTarget(std::string_view location, uint32_t hops, bool embed, v1::Page& page) {
  auto target = Url::Parse(location);
  if (!target.ok() || (target->scheme() != "http" && target->scheme() != "https")) return;
  target->ClearFragment();
  for (v1::Link& link : *page.mutable_links()) {
    if (link.url() == target->href()) {
      link.set_nofollow(false);
      link.set_redirect_hops(hops);
      return;
    }
  }
  v1::Link& link = *page.add_links();
  link.set_url(target->href());
  link.set_redirect_hops(hops);
  link.set_embed(embed);
}

// A recrawl's lease that asks whether the earlier capture still stands.
bool AsksConditionally(const v1::WorkItem& item) {
  return item.has_previous() && (!item.previous().etag().empty() || !item.previous().last_modified().empty());
}

// What a continuous crawl's frontier keeps of this fetch to tell next time
// whether the URL changed and to ask conditionally (WorkItem.report_validators).
// A 304 keeps the earlier capture's body hash, size and time: its body is
// the earlier one, which a later 304's revisit names (WARC-Refers-To-Date).
v1::Validators CapturedValidators(const v1::WorkItem& item, const HttpResponse& response, bool not_modified,
                                  std::string_view body_sha1, int64_t fetched_at_ms) {
  v1::Validators captured;
  if (not_modified) {
    captured = item.previous();
    captured.clear_refetch_interval_ms();
    captured.clear_round_due_ms();
  }
  // RFC 9110 15.4.5: a 304 sends the validators a 200 would have sent.
  if (std::string_view etag = FindHeader(response.headers, "etag"); !etag.empty()) captured.set_etag(std::string(etag));
  if (std::string_view modified = FindHeader(response.headers, "last-modified"); !modified.empty()) {
    captured.set_last_modified(std::string(modified));
  }
  if (!not_modified) {
    captured.set_fetched_at_ms(fetched_at_ms);
    const std::string sha1 = body_sha1.size() == 20 ? std::string(body_sha1) : Sha1(response.body);
    uint64_t hash = 0;
    for (int i = 0; i < 8; ++i) hash = (hash << 8) | static_cast<uint8_t>(sha1[i]);
    captured.set_body_hash(hash);
    captured.set_body_bytes(response.body.size());
    // Named in the WARC revisit of a later 304 (the writer wants digests
    // exactly when it writes WARC).
    if (body_sha1.size() == 20) captured.set_payload_digest("sha1:" + Base32Encode(body_sha1));
  }
  return captured;
}

// A continuous crawl's later rounds of a URL are captures of their own
// (common/page_key.h); a recrawl's first round is not.
std::string DedupKeyOf(const v1::WorkItem& item) {
  return PageKey(item.url(), item.report_validators() ? item.previous().round_due_ms() : 0);
}

}  // namespace

std::string MediaType(std::string_view content_type_header) {
  std::string_view type = content_type_header.substr(0, content_type_header.find(';'));
  while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
  while (!type.empty() && type.front() == ' ') type.remove_prefix(1);
  return AsciiLower(type);
}

bool IsHtmlContentType(std::string_view media_type) {
  return media_type == "text/html" || media_type == "application/xhtml+xml";
}

bool IsCssContentType(std::string_view media_type) { return media_type == "text/css"; }

PageProcessor::PageProcessor(const FetcherOptions& options, std::unique_ptr<HttpClient> http,
                             std::shared_ptr<HtmlParserPool> parsers, const Clock& clock,
                             const WriterWantsCell* writer_wants)
    : options_(options),
      http_(std::move(http)),
      parsers_(std::move(parsers)),
      clock_(clock),
      writer_wants_(writer_wants) {}

HttpRequest PageProcessor::RequestFor(const v1::WorkItem& item) {
  HttpRequest request;
  request.url = item.url();
  request.redirects_before = item.redirect_hops();
  // A recrawl asks whether the earlier capture still stands (RFC 9110
  // 13.1: a server that knows the ETag answers by it and ignores the date).
  if (AsksConditionally(item)) {
    if (!item.previous().etag().empty()) request.headers.push_back("If-None-Match: " + item.previous().etag());
    if (!item.previous().last_modified().empty()) {
      request.headers.push_back("If-Modified-Since: " + item.previous().last_modified());
    }
  }
  if (item.robots_only()) {
    request.follow_any_redirect = true;
    request.max_body_bytes = kMaxRobotsBytes;
    request.truncate_body = true;
  }
  return request;
}

FetchOutcome PageProcessor::Process(const v1::WorkItem& item, const std::string& sender_id) {
  const int64_t started = clock_.NowMs();
  HttpResponse response = http_->Fetch(RequestFor(item));
  return Complete(item, sender_id, std::move(response),
                  static_cast<uint32_t>(clock_.NowMs() - started));
}

void PageProcessor::CompleteRobots(HttpResponse& response, v1::FetchReport& report) {
  const bool found = response.status == v1::FETCH_STATUS_OK && response.http_status >= 200 &&
                     response.http_status < 300;
  if (found) report.set_robots_txt(std::move(response.body));
}

FetchOutcome PageProcessor::Complete(const v1::WorkItem& item, const std::string& sender_id,
                                     HttpResponse response, uint32_t fetch_ms) {
  FetchOutcome outcome;
  outcome.lease_id = item.lease_id();
  v1::FetchReport& report = outcome.report;
  report.set_lease_id(item.lease_id());
  report.set_url(item.url());
  report.set_status(response.status);
  report.set_http_status(response.http_status);
  report.set_error(response.error);
  report.set_cause(response.cause);
  report.set_final_url(response.final_url);
  report.set_fetch_ms(fetch_ms);
  report.set_server_address(response.ip_address);
  if (item.robots_only()) {
    CompleteRobots(response, report);
    return outcome;
  }
  report.set_retry_after_ms(response.retry_after_ms);
  report.set_body_bytes(response.body.size());
  if (response.status != v1::FETCH_STATUS_OK) return outcome;
  // Retryable answers are not stored: the frontier will ask again.
  if (response.http_status == 429 || response.http_status >= 500) return outcome;

  const std::string media_type = MediaType(FindHeader(response.headers, "content-type"));
  const bool html = IsHtmlContentType(media_type);
  // A requisite outside the scope is stored whatever its type, and yields
  // nothing but a stylesheet's own references: it is never followed.
  const bool outside_embed = item.embed_hops() > 0;
  const bool css = options_.page_requisites && IsCssContentType(media_type);
  // "Not modified" to a recrawl's conditional request: the earlier capture
  // stands, and this answer is stored as saying so (Page.not_modified_since).
  const bool not_modified = response.http_status == 304 && AsksConditionally(item);
  // Neither yields links of its own (a stylesheet outside the scope still
  // yields its references, below).
  const bool yields_links = !outside_embed && !not_modified;
  // A redirect is kept whatever its body's type: its target is a link.
  const bool redirect =
      response.http_status >= 300 && response.http_status < 400 && !response.location.empty();
  if (!html && !options_.store_non_html && !outside_embed && !not_modified && !redirect) {
    report.set_status(v1::FETCH_STATUS_SKIPPED_CONTENT);
    report.set_error("content type " + media_type);
    return outcome;
  }

  // Any non-HTML body may be a sitemap (e.g. announced in robots.txt),
  // gzipped or not. Gzip that does not inflate is still stored as the
  // server sent it (an archive keeps what was served), but yields no URLs:
  // logged and counted, never silently.
  SitemapContent sitemap;
  if (!html && !css && yields_links) {
    sitemap = ReadSitemap(response.body);
    if (!sitemap.gzip_error.empty()) {
      outcome.sitemap_gzip_error = true;
      spdlog::warn("corrupt gzip url={} sitemap={} error={}: stored as sent, no URLs taken",
                   item.url(), sitemap.is_sitemap, sitemap.gzip_error);
      sitemap.is_sitemap = false;
    }
  }

  v1::Page& page = outcome.page.emplace();
  page.set_page_id(sender_id + "/" + std::to_string(item.lease_id()));
  page.set_url(item.url());
  page.set_dedup_key(DedupKeyOf(item));
  page.set_final_url(response.final_url);
  page.set_http_status(response.http_status);
  page.set_content_type(media_type);
  page.set_fetched_at_ms(clock_.WallMs());
  if (not_modified) *page.mutable_not_modified_since() = item.previous();
  page.set_depth(item.depth());
  page.set_ip_address(response.ip_address);
  page.set_http_version(response.http_version);
  page.set_request_headers(response.request_headers);
  page.set_body_truncated(response.body_truncated);
  *page.mutable_timings() = response.timings;
  // What the writer wants of this page, read once: every decision below
  // follows the same wishes (writer_wants_cell.h). Without a writer's word
  // (tools, tests): the digest, the body, no blocks.
  const WriterWishes wishes =
      writer_wants_ ? writer_wants_->Load() : WriterWishes{.payload_digest = true};
  // The WARC payload digest, when the writer asks for it (1-3% of a
  // fetcher's CPU otherwise spent on every body).
  if (wishes.payload_digest) {
    page.set_body_sha1(Sha1(response.body));
  }
  if (item.report_validators()) {
    *report.mutable_captured() =
        CapturedValidators(item, response, not_modified, page.body_sha1(), page.fetched_at_ms());
  }
  // Before the headers move into the page: the charset may come from them.
  if (css) {
    if (auto sheet_url = Url::Parse(response.final_url); sheet_url.ok()) {
      for (auto& embed : ResolveCssReferences(response.body, *sheet_url).embeds) *page.add_links() = std::move(embed);
    }
  } else if (html && yields_links) {
    ParseHtml(response, page);
  } else if (sitemap.is_sitemap) {
    // Sitemaps feed their <loc> URLs to the frontier like links; scope
    // still decides.
    if (sitemap.cut()) {
      outcome.sitemap_cut = true;
      spdlog::warn(
          "sitemap cut at the protocol limits url={} gzipped={} urls_kept={} urls_cut={} "
          "bytes_read={} size_cut={} bytes_cut={} compressed_bytes_unread={}",
          item.url(), sitemap.gzipped, sitemap.locations.size(), sitemap.urls_cut, sitemap.bytes_read,
          sitemap.size_cut, sitemap.bytes_cut, sitemap.compressed_bytes_unread);
    }
    std::unordered_set<std::string> seen;
    for (auto& loc : sitemap.locations) {
      auto url = Url::Parse(loc);
      if (!url.ok() || (url->scheme() != "http" && url->scheme() != "https")) continue;
      url->ClearFragment();
      if (seen.insert(url->href()).second) page.add_links()->set_url(url->href());
    }
  }
  for (auto& header : response.headers) *page.add_headers() = std::move(header);
  // A redirect ends here; its target is a link for the frontier to judge
  // and claim (curl_transfer.h).
  if (redirect) {
    AddRedirectTarget(response.location, item.redirect_hops() + 1, outside_embed, page);
  }
  page.set_body_length(response.body.size());
  page.set_body(std::move(response.body));
  AddWarcBlockIfWanted(page, wishes);
  if (options_.page_links) {
    *report.mutable_links() = page.links();
  } else {
    report.mutable_links()->Swap(page.mutable_links());
  }
  return outcome;
}

void PageProcessor::AddWarcBlockIfWanted(v1::Page& page, const WriterWishes& wishes) {
  const uint32_t level = wishes.warc_block_level;
  if (level > 0) {
    if (!warc_compressor_ || warc_compressor_level_ != level) {
      warc_compressor_ = std::make_unique<GzipMemberCompressor>(static_cast<int>(level));
      warc_compressor_level_ = level;
    }
    // Without the blocks the writer compresses the page itself: the body
    // must go then.
    if (Status s = AddWarcBlocks(page, *warc_compressor_); !s.ok()) {
      spdlog::warn("no WARC block for url={}: {}", page.url(), s.message());
      return;
    }
  }
  // body_length stays, and with a block the writer can inflate the body
  // back should it need it after all.
  if (wishes.omit_body) page.clear_body();
}

void PageProcessor::ParseHtml(const HttpResponse& response, v1::Page& page) {
  const std::string charset =
      DetectCharset(FindHeader(response.headers, "content-type"), response.body);
  page.set_charset(charset);
  // UTF-8 (most of the web) is parsed in place: the parser drops a BOM and
  // repairs bad sequences itself, exactly as DecodeToUtf8 would, so copying
  // the body first would only cost an allocation and a pass over it.
  std::string decoded;
  std::string_view utf8 = response.body;
  if (charset != "UTF-8") {
    auto converted = DecodeToUtf8(response.body, charset);
    decoded = converted.ok() ? std::move(*converted) : SanitizeUtf8(response.body);
    utf8 = decoded;
  }
  ParsedHtml parsed = parsers_->Acquire()->Parse(utf8);  // the parser goes back at once
  auto page_url = Url::Parse(response.final_url);
  if (!page_url.ok()) return;
  ResolvedLinks resolved = ResolveLinks(parsed, *page_url, options_.ignore_nofollow);
  page.set_title(std::move(parsed.title));
  page.set_text(std::move(parsed.text));
  for (auto& link : resolved.links) *page.add_links() = std::move(link);
  for (auto& embed : resolved.embeds) *page.add_links() = std::move(embed);
}

}  // namespace zcrawl::fetcher
