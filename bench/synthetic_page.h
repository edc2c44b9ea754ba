// SyntheticPage: an ~18 KB HTML page shaped like the pages of the crawl
// benchmark site (bench/gen_site.py) for the microbenchmarks: a head with
// style and script, a nav list, paragraphs with about 30 links of every kind
// (same folder, "./", "#fragment", "../", "../../", root-relative, absolute
// same host, absolute and scheme-relative other hosts, mailto:,
// javascript:), a table, a list, and filler text. Deterministic for a given
// page number; header-only so each benchmark stays one file.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace zcrawl::bench {

// The page's URL on the benchmark site: http://127.0.0.3:18080/s3/t2/p1620.html
inline std::string SyntheticPageUrl(uint32_t page) {
  return "http://127.0.0.3:18080/s" + std::to_string(page / 500 % 10) + "/t" +
         std::to_string(page / 50 % 10) + "/p" + std::to_string(page) + ".html";
}

// The page's hrefs as written in it, in document order.
inline std::vector<std::string> SyntheticPageHrefs(uint32_t page) {
  uint64_t state = 0x9E3779B97F4A7C15ULL ^ page;
  auto next = [&state](uint32_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((state >> 33) % bound);
  };
  // Appends the pieces to one string (no temporaries: "a" + std::string&&
  // makes GCC 12 warn falsely under -O2).
  auto cat = [](std::initializer_list<std::string_view> parts) {
    std::string out;
    for (std::string_view part : parts) out.append(part);
    return out;
  };
  auto path = [&cat](uint32_t p) {
    return cat({"/s", std::to_string(p / 500 % 10), "/t", std::to_string(p / 50 % 10), "/p",
                std::to_string(p), ".html"});
  };
  auto file = [&cat](uint32_t p) { return cat({"p", std::to_string(p), ".html"}); };
  const uint32_t folder = page / 50 * 50;
  const uint32_t section = page / 500 * 500;
  std::vector<std::string> hrefs;
  for (int k = 0; k < 5; ++k) hrefs.push_back(file(folder + next(50)));
  hrefs.push_back(cat({"./", file(folder + next(50))}));
  hrefs.push_back(cat({file(folder + next(50)), "#s2"}));
  for (int k = 0; k < 3; ++k) {
    const uint32_t p = section + next(500);
    hrefs.push_back(cat({"../t", std::to_string(p / 50 % 10), "/", file(p)}));
  }
  hrefs.push_back("../../");
  for (int k = 0; k < 3; ++k) hrefs.push_back(cat({"../..", path(next(5000))}));
  for (int k = 0; k < 5; ++k) hrefs.push_back(path(next(5000)));
  hrefs.push_back("/");
  for (int k = 0; k < 4; ++k) hrefs.push_back(cat({"http://127.0.0.3:18080", path(next(5000))}));
  for (int k = 0; k < 5; ++k) {
    hrefs.push_back(cat({"http://127.0.0.", std::to_string(2 + next(4)), ":18080", path(next(5000))}));
  }
  hrefs.push_back(cat({"//127.0.0.4:18080", path(next(5000))}));
  hrefs.push_back("mailto:bench@example.invalid");
  hrefs.push_back("javascript:void(0)");
  return hrefs;
}

// The page itself, about `bytes` long (never shorter than its links need).
inline std::string SyntheticPage(uint32_t page, size_t bytes = 18000) {
  static const char* const kWords[] = {
      "crawler", "frontier", "fetcher", "writer",  "queue",  "politeness", "latency", "request",
      "response", "header",  "body",    "archive", "record", "index",      "link",    "anchor",
      "document", "parser",  "token",   "stream",  "buffer", "socket",     "thread",  "process"};
  uint64_t state = 0xD1B54A32D192ED03ULL ^ page;
  auto words = [&state](int n) {
    std::string out;
    for (int i = 0; i < n; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      if (i > 0) out += ' ';
      out += kWords[(state >> 33) % (sizeof kWords / sizeof kWords[0])];
    }
    return out;
  };
  const std::vector<std::string> hrefs = SyntheticPageHrefs(page);
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Page " +
      std::to_string(page) +
      "</title>\n<style>body { font-family: sans-serif; max-width: 60em; }\n"
      "nav ul { list-style: none; } td, th { border: 1px solid #ccc; }</style>\n"
      "<script>var page = 1; function noop() { return page > 0 && 1 < 2; }</script>\n"
      "</head>\n<body>\n<nav><ul>\n";
  for (size_t k = 0; k < 6; ++k) html += "<li><a href=\"" + hrefs[k] + "\">nav " + std::to_string(k) + "</a></li>\n";
  html += "</ul></nav>\n<article>\n<h1>Page " + std::to_string(page) + "</h1>\n";
  for (size_t k = 6; k < hrefs.size(); ++k) {
    html += "<p>" + words(25) + " <a href=\"" + hrefs[k] + "\" class=\"l" + std::to_string(k % 3) +
            "\">link " + std::to_string(k) + "</a> " + words(20) + ".</p>\n";
    if (k == 14) {
      html += "<table>\n<tr><th>n</th><th>term</th></tr>\n";
      for (int r = 0; r < 8; ++r) html += "<tr><td>" + std::to_string(r) + "</td><td>" + words(3) + "</td></tr>\n";
      html += "</table>\n";
    }
    if (k == 22) {
      html += "<div class=\"note\"><ul>\n";
      for (int r = 0; r < 6; ++r) html += "<li>" + words(4) + " &amp; " + words(3) + "</li>\n";
      html += "</ul></div>\n";
    }
  }
  const std::string tail =
      "</article>\n<footer><p>Generated page &middot; <a href=\"/\">top</a></p></footer>\n"
      "</body>\n</html>\n";
  while (html.size() + tail.size() + 200 < bytes) html += "<p>" + words(25) + "</p>\n";
  return html + tail;
}

}  // namespace zcrawl::bench
