#include "common/http_request_head.h"

#include <algorithm>
#include <cstring>

#include "common/ascii.h"

namespace zcrawl {
namespace {

using Verdict = HttpRequestHead::Verdict;

// request-line without its line end; false when it is not of the grammar.
bool ParseRequestLine(std::string_view line, HttpRequestHead& head) {
  const size_t method_end = line.find(' ');
  if (method_end == std::string_view::npos || method_end == 0) return false;
  const std::string_view method = line.substr(0, method_end);
  if (!std::all_of(method.begin(), method.end(), IsHttpTokenChar)) return false;
  const size_t target_begin = method_end + 1;
  const size_t target_end = line.find(' ', target_begin);
  if (target_end == std::string_view::npos || target_end == target_begin) return false;
  const std::string_view target = line.substr(target_begin, target_end - target_begin);
  for (char c : target) {
    if (c < 0x21 || c > 0x7e) return false;
  }
  const std::string_view version = line.substr(target_end + 1);
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || !IsAsciiDigit(version[5]) || version[6] != '.' ||
      !IsAsciiDigit(version[7])) {
    return false;
  }
  head.method = method;
  head.target = target;
  head.version_major = version[5] - '0';
  head.version_minor = version[7] - '0';
  return true;
}

// field-line without its line end. A line starting with whitespace is the
// obsolete folding of the previous field's value, which RFC 9112 lets a
// server refuse; we do.
bool IsFieldLine(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view name = line.substr(0, colon);
  return std::all_of(name.begin(), name.end(), IsHttpTokenChar);
}

}  // namespace

bool IsHttpTokenChar(char c) {
  if (IsAsciiAlpha(c) || IsAsciiDigit(c)) return true;
  return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

HttpRequestHead ParseHttpRequestHead(std::string_view bytes, size_t max_head_bytes) {
  HttpRequestHead head;
  // Only the first max_head_bytes can belong to an acceptable head, so the
  // verdict depends on them alone (and on whether more bytes came).
  const std::string_view window = bytes.substr(0, max_head_bytes);
  bool have_request_line = false;
  size_t pos = 0;
  while (true) {
    const size_t lf = window.find('\n', pos);
    if (lf == std::string_view::npos) {
      head.verdict = bytes.size() > max_head_bytes ? Verdict::kTooLarge : Verdict::kIncomplete;
      return head;
    }
    std::string_view line = window.substr(pos, lf - pos);
    pos = lf + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\r') != std::string_view::npos || line.find('\0') != std::string_view::npos) {
      head.verdict = Verdict::kMalformed;
      return head;
    }
    if (!have_request_line) {
      if (line.empty()) continue;  // empty lines before the request line are ignored
      if (!ParseRequestLine(line, head)) {
        head.verdict = Verdict::kMalformed;
        return head;
      }
      have_request_line = true;
      continue;
    }
    if (line.empty()) {
      head.verdict = Verdict::kComplete;
      head.head_size = pos;
      return head;
    }
    if (!IsFieldLine(line)) {
      head.verdict = Verdict::kMalformed;
      return head;
    }
  }
}

}  // namespace zcrawl
