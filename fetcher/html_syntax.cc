#include "fetcher/html_syntax.h"

#include <string_view>

#include "common/ascii.h"

namespace zcrawl::fetcher {

size_t FindTextEndTag(std::string_view html, size_t from, std::string_view name, bool* control_after_name) {
  const size_t n = html.size();
  for (size_t p = html.find("</", from); p != std::string_view::npos; p = html.find("</", p + 1)) {
    const size_t after = p + 2 + name.size();
    if (after >= n) return std::string_view::npos;
    if (!EqualsIgnoreCaseAscii(html.substr(p + 2, name.size()), name)) continue;
    const char c = html[after];
    if (EndsTagName(c)) return p;
    if (control_after_name != nullptr && IsControl(c)) {
      *control_after_name = true;
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

}  // namespace zcrawl::fetcher
