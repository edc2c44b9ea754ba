// Fuzz target of the metrics endpoint's request reading
// (common/http_request_head.h, common/metrics_server.h): any bytes, as a
// client on the metrics port sends them. What must hold:
// - no crash, and every answer is one of the endpoint's status lines;
// - a complete head's parts are of the grammar, and the request line built
//   again from them parses to the same parts;
// - streaming: a strict prefix of a complete head is incomplete, and a
//   prefix found malformed or too large is so for the whole input too, so
//   reading in pieces never changes the answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/http_request_head.h"
#include "common/metrics_server.h"

namespace {

using zcrawl::HttpRequestHead;
using Verdict = HttpRequestHead::Verdict;

// Small enough that the fuzzer reaches the size limit often.
constexpr size_t kMaxHead = 64;

void CheckComplete(const HttpRequestHead& head, std::string_view bytes) {
  if (head.head_size == 0 || head.head_size > bytes.size() || head.head_size > kMaxHead) abort();
  if (head.method.empty() || head.target.empty()) abort();
  for (char c : head.method) {
    if (!zcrawl::IsHttpTokenChar(c)) abort();
  }
  for (char c : head.target) {
    if (c < 0x21 || c > 0x7e) abort();
  }
  if (head.version_major < 0 || head.version_major > 9 || head.version_minor < 0 || head.version_minor > 9) abort();
  const std::string again = std::string(head.method) + " " + std::string(head.target) + " HTTP/" +
                            std::to_string(head.version_major) + "." + std::to_string(head.version_minor) +
                            "\r\n\r\n";
  const HttpRequestHead reparsed = zcrawl::ParseHttpRequestHead(again, again.size());
  if (reparsed.verdict != Verdict::kComplete || reparsed.method != head.method || reparsed.target != head.target ||
      reparsed.version_major != head.version_major || reparsed.version_minor != head.version_minor ||
      reparsed.head_size != again.size()) {
    abort();
  }
}

void CheckPrefix(std::string_view bytes, size_t cut, const HttpRequestHead& whole) {
  const HttpRequestHead part = zcrawl::ParseHttpRequestHead(bytes.substr(0, cut), kMaxHead);
  switch (part.verdict) {
    case Verdict::kIncomplete:
      break;
    case Verdict::kComplete:
      // A complete head in the prefix is the whole input's head.
      if (whole.verdict != Verdict::kComplete || part.head_size != whole.head_size) abort();
      break;
    case Verdict::kMalformed:
    case Verdict::kTooLarge:
      if (whole.verdict != part.verdict) abort();
      break;
  }
  if (whole.verdict == Verdict::kComplete && cut < whole.head_size && part.verdict != Verdict::kIncomplete) abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const HttpRequestHead whole = zcrawl::ParseHttpRequestHead(bytes, kMaxHead);
  if (whole.verdict == Verdict::kComplete) CheckComplete(whole, bytes);
  // Every prefix of a short input, a few of a long one.
  if (size <= 2 * kMaxHead) {
    for (size_t cut = 0; cut < size; ++cut) CheckPrefix(bytes, cut, whole);
  } else {
    for (size_t cut : {size_t{0}, kMaxHead - 1, kMaxHead, kMaxHead + 1, size / 2, size - 1}) {
      CheckPrefix(bytes, cut, whole);
    }
  }
  // The endpoint's answer, with its real size limit.
  const std::string answer = zcrawl::AnswerMetricsRequest(bytes, "m 1\n");
  static constexpr std::string_view kStatusLines[] = {
      "HTTP/1.1 200 ", "HTTP/1.1 400 ", "HTTP/1.1 405 ", "HTTP/1.1 431 ", "HTTP/1.1 505 "};
  bool known = false;
  for (std::string_view status : kStatusLines) known = known || answer.compare(0, status.size(), status) == 0;
  if (!known || answer.find("\r\n\r\n") == std::string::npos) abort();
  return 0;
}
