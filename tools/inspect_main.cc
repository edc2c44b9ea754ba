// zcrawl-inspect: `./run inspect url|robots|links|embeds|schedule`, the
// debugging tools that answer "why did the crawler fetch (or skip) that?"
// with the crawler's own code paths.
//   url:    stdin lines "BASE<TAB>HREF" (or a URL) -> the absolute URL fetched and,
//           after a tab, its canonical form (its key in the seen set), or "invalid"
//   robots: --agent UA FILE; stdin URLs -> "allow" / "disallow"
//   links:  BASE_URL; stdin HTML -> the absolute http(s) links, one per line
//   embeds: BASE_URL; stdin HTML (or a stylesheet, --css) -> the page
//           requisites the fetcher reports, absolute, one per line
//   schedule: STATE_DIR of a stopped continuous crawl -> "DUE<TAB>INTERVAL<TAB>URL"
//           per scheduled URL, earliest first
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "common/cli_config.h"
#include "common/encoding.h"

#include "common/robots_inspect.h"
#include "common/settings_declarer.h"
#include "common/url.h"
#include "fetcher/charset.h"
#include "fetcher/html_parser.h"
#include "fetcher/link_resolver.h"
#include "frontier/frontier_settings.h"
#include "frontier/scheduler/refetch_schedule.h"
#include "frontier/store/url_canonicalizer.h"
#include "frontier/store/url_store.h"

namespace zcrawl {
namespace {

// `canonical`: the rules of the URLs' keys, the flags' or a crawl's.
int InspectUrl(const frontier::UrlCanonicalizer& canonical) {
  std::string line;
  std::string out;
  std::string scratch;
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t tab = line.find('\t');
    Result<Url> url = InvalidArgumentError("no input");
    if (tab == std::string::npos) {
      url = Url::Parse(line);
    } else {
      auto base = Url::Parse(std::string_view(line).substr(0, tab));
      url = base.ok() ? Url::Parse(std::string_view(line).substr(tab + 1), &*base)
                      : Result<Url>(base.status());
    }
    if (url.ok()) {
      url->ClearFragment();
      out += url->href();
      out += '\t';
      out += canonical.Canonical(url->href(), &scratch);
    } else {
      out += "invalid";
    }
    out += '\n';
  }
  std::cout << out;
  return 0;
}

int InspectUrl(const std::string& state_dir, const frontier::UrlKeyRules& rules) {
  if (state_dir.empty()) return InspectUrl(frontier::UrlCanonicalizer(rules));
  frontier::UrlStoreOptions options;
  options.dir = state_dir;
  options.read_only = true;
  auto store = frontier::UrlStore::Open(options);
  if (!store.ok()) {
    std::cerr << "inspect url: " << store.status().message() << "\n";
    return 1;
  }
  return InspectUrl((*store)->canonicalizer());
}

int InspectRobots(const std::string& agent, const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << "inspect robots: cannot read " << file << "\n";
    return 2;
  }
  std::stringstream body;
  body << in.rdbuf();
  return RunInspectRobots(body.str(), agent, std::cin, std::cout);
}

// `links` or `embeds` of stdin, a page at `base_url` (or a stylesheet).
int InspectLinks(const std::string& base_url, const std::string& parser_name, bool embeds, bool css) {
  const char* const command = embeds ? "inspect embeds" : "inspect links";
  auto base = Url::Parse(base_url);
  if (!base.ok()) {
    std::cerr << command << ": bad base URL: " << base.status().message() << "\n";
    return 2;
  }
  std::stringstream html;
  html << std::cin.rdbuf();
  auto parser = fetcher::MakeHtmlParser(parser_name, fetcher::HtmlParserOptions{.extract_embeds = embeds});
  if (!parser) {
    std::cerr << command << ": unknown parser " << parser_name << "\n";
    return 2;
  }
  if (css) {
    std::string out;
    for (const auto& embed : fetcher::ResolveCssReferences(html.str(), *base).embeds) {
      out += embed.url();
      out += '\n';
    }
    std::cout << out;
    return 0;
  }
  std::string text = html.str();
  const std::string charset = fetcher::DetectCharset("", text);
  auto decoded = fetcher::DecodeToUtf8(text, charset);
  std::string utf8 = decoded.ok() ? std::move(*decoded) : fetcher::SanitizeUtf8(std::move(text));
  fetcher::ParsedHtml parsed = parser->Parse(utf8);
  auto resolved = fetcher::ResolveLinks(parsed, *base, /*ignore_nofollow=*/true);
  std::string out;
  for (const auto& link : embeds ? resolved.embeds : resolved.links) {
    out += link.url();
    out += '\n';
  }
  std::cout << out;
  return 0;
}

// A stopped continuous crawl's refetch schedule (frontier/scheduler/refetch_schedule.h),
// earliest first: when each URL is due, the interval it was given, the URL.
int InspectSchedule(const std::string& state_dir) {
  frontier::UrlStoreOptions options;
  options.dir = state_dir;
  options.read_only = true;
  auto store = frontier::UrlStore::Open(options);
  if (!store.ok()) {
    std::cerr << "inspect schedule: " << store.status().message() << "\n";
    return 1;
  }
  uint64_t scheduled = 0;
  std::string out;
  Status s = frontier::RefetchSchedule::ForEach(**store, [&](int64_t due_ms, const frontier::ScheduledUrl& url) {
    std::string stored;
    v1::Validators state;
    const bool known = (*store)->GetValidators((*store)->KeyOf(url.url), &stored) && state.ParseFromString(stored);
    out += FormatRfc3339Millis(due_ms) + '\t' + (known ? std::to_string(state.refetch_interval_ms() / 1000) + "s" : "?") +
           '\t' + url.url + '\n';
    ++scheduled;
    return true;
  });
  std::cout << out;
  if (!s.ok()) {
    std::cerr << "inspect schedule: " << s.message() << "\n";
    return 1;
  }
  std::cerr << scheduled << " URLs scheduled\n";
  return 0;
}

int Main(int argc, char** argv) {
  CLI::App app{"zcrawl inspect: see what the crawler makes of URLs, robots.txt, HTML and CSS"};
  app.require_subcommand(1);
  auto* url = app.add_subcommand(
      "url", "stdin: BASE<TAB>HREF lines; prints the URL fetched, a tab and its canonical form (its seen-set key), "
             "or 'invalid'");
  frontier::UrlKeyRules url_key;
  SettingsDeclarer url_settings(*url);
  frontier::DeclareUrlKeySettings(url_settings, url_key);
  std::string url_state_dir;
  url->add_option("--state", url_state_dir,
                  "Key URLs by the rules of this crawl's state folder (OUT/.zcrawl) instead of the flags");
  std::string agent = "zcrawl";
  std::string robots_file;
  auto* robots = app.add_subcommand("robots", "stdin: URLs; prints allow or disallow per line");
  robots->add_option("--agent", agent, "Product token / user agent")->capture_default_str();
  robots->add_option("file", robots_file, "robots.txt body")->required();
  std::string base;
  std::string parser = "gumbo";
  auto* links = app.add_subcommand("links", "stdin: an HTML document; prints its absolute links");
  links->add_option("base_url", base, "URL of the document")->required();
  links->add_option("--parser", parser, "gumbo, myhtml or scan")->capture_default_str();
  bool css = false;
  auto* embeds = app.add_subcommand("embeds", "stdin: an HTML document; prints the page requisites it embeds");
  embeds->add_option("base_url", base, "URL of the document")->required();
  embeds->add_option("--parser", parser, "gumbo, myhtml or scan")->capture_default_str();
  embeds->add_flag("--css", css, "stdin is a stylesheet: prints its url() and @import references");
  std::string state_dir;
  auto* schedule = app.add_subcommand(
      "schedule", "a stopped continuous crawl's refetch schedule: due time, interval, URL (earliest first)");
  schedule->add_option("state_dir", state_dir, "the crawl's state folder (OUT/.zcrawl)")->required();
  if (auto exit = zcrawl::ParseSettings(app, "inspect", [&] { app.parse(argc, argv); })) return *exit;
  std::ios::sync_with_stdio(false);
  if (*url) return InspectUrl(url_state_dir, url_key);
  if (*robots) return InspectRobots(agent, robots_file);
  if (*links) return InspectLinks(base, parser, /*embeds=*/false, /*css=*/false);
  if (*embeds) return InspectLinks(base, parser, /*embeds=*/true, css);
  if (*schedule) return InspectSchedule(state_dir);
  return 2;
}

}  // namespace
}  // namespace zcrawl

int main(int argc, char** argv) { return zcrawl::Main(argc, argv); }
