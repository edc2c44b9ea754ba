// Fuzz target of the page-requisite grammars (fetcher/css_references.h,
// fetcher/srcset.h), which read what servers send: no crash or hang on any
// bytes, and
//   - every CSS reference is non-empty and, written back as url("...")
//     with CSS escapes, reads back as itself alone (the tokenizer's
//     escapes and its url/string rules agree with each other);
//   - every srcset URL is a non-empty run of the input without ASCII
//     whitespace, not starting with a comma (the standard's splitting).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fetcher/css_references.h"
#include "fetcher/srcset.h"

namespace {

// `url` as a CSS string's content: quote, backslash, newlines and other
// controls as hex escapes (a space ends each).
std::string CssStringEscape(std::string_view url) {
  std::string out;
  for (char c : url) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || u < 0x20 || u == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\%x ", u);
      out += escape;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool IsAsciiWhitespace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<zcrawl::fetcher::CssReference> references;
  zcrawl::fetcher::FindCssReferences(input, &references);
  for (const auto& reference : references) {
    if (reference.url.empty()) abort();
    std::vector<zcrawl::fetcher::CssReference> again;
    zcrawl::fetcher::FindCssReferences("a{b:url(\"" + CssStringEscape(reference.url) + "\")}", &again);
    if (again.size() != 1 || again[0].url != reference.url || again[0].import) abort();
  }
  std::vector<std::string> urls;
  zcrawl::fetcher::ParseSrcset(input, &urls);
  for (const std::string& url : urls) {
    if (url.empty() || url.front() == ',' || input.find(url) == std::string_view::npos) abort();
    for (char c : url) {
      if (IsAsciiWhitespace(c)) abort();
    }
  }
  return 0;
}
