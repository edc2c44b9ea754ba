#include "fetcher/html_parser.h"

#include <memory>
#include <string>
#include <string_view>

#include "fetcher/charset.h"
#include "fetcher/gumbo_html_parser.h"
#include "fetcher/html_depth_limit.h"
#include "fetcher/myhtml_html_parser.h"
#include "fetcher/scan_html_parser.h"

namespace zcrawl::fetcher {

std::string_view EmbedSourceName(EmbedSource source) {
  switch (source) {
    case EmbedSource::kLink: return "link";
    case EmbedSource::kScript: return "script";
    case EmbedSource::kImage: return "image";
    case EmbedSource::kSource: return "source";
    case EmbedSource::kMedia: return "media";
    case EmbedSource::kObject: return "object";
    case EmbedSource::kCss: return "css";
  }
  return "unknown";
}

ParsedHtml HtmlParser::Parse(std::string_view utf8_html) {
  // A byte order mark is not content (DecodeToUtf8 drops it too).
  if (utf8_html.starts_with("\xEF\xBB\xBF")) utf8_html.remove_prefix(3);
  ParsedHtml quick;
  if (ParseWithoutTree(utf8_html, &quick)) return quick;
  // Both backends see the same clean input, so they cannot disagree about
  // how to repair it, and every string they hand back is valid UTF-8.
  std::string repaired;
  if (!IsCleanUtf8(utf8_html)) {
    repaired = SanitizeUtf8(std::string(utf8_html));
    utf8_html = repaired;
  }
  ParsedHtml out;
  const size_t length =
      DepthLimitedLength(utf8_html, options_.max_nesting_depth);
  if (length < utf8_html.size()) {
    out.truncated = true;
    utf8_html = utf8_html.substr(0, length);
  }
  ParseCleanUtf8(utf8_html, &out);
  return out;
}

std::unique_ptr<HtmlParser> MakeHtmlParser(std::string_view name,
                                           const HtmlParserOptions& options) {
  if (name == "gumbo") return std::make_unique<GumboHtmlParser>(options);
  if (name == "myhtml") return std::make_unique<MyHtmlHtmlParser>(options);
  if (name == "scan") return std::make_unique<ScanHtmlParser>(options);
  return nullptr;
}

}  // namespace zcrawl::fetcher
