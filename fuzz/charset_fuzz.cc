// Fuzz target of charset detection and decoding (fetcher/charset.h): the
// first byte picks a label from a list (or, odd, takes the next bytes up to
// a NUL as a Content-Type header), the rest is a body. Sniffing and
// decoding must never crash; whatever DecodeToUtf8 returns, SanitizeUtf8 of
// it must be clean UTF-8, and SanitizeUtf8 must leave clean text as it is.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fetcher/charset.h"

namespace {

constexpr std::string_view kLabels[] = {
    "utf-8",     "windows-1252", "iso-8859-2", "shift_jis", "euc-jp",      "iso-2022-jp", "gb18030",
    "gbk",       "big5",         "euc-kr",     "utf-16le",  "utf-16be",    "koi8-r",      "x-user-defined",
    "replacement", "macintosh",  "windows-874", "ibm866",   "no-such-label"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data + 1), size - 1);
  std::string header;
  std::string label;
  if (data[0] & 1) {
    const size_t nul = rest.find('\0');
    header = std::string(rest.substr(0, nul));
    rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
    label = zcrawl::fetcher::DetectCharset(header, rest);
  } else {
    label = std::string(kLabels[(data[0] >> 1) % std::size(kLabels)]);
    (void)zcrawl::fetcher::DetectCharset("text/html; charset=" + label, rest);
  }
  (void)zcrawl::fetcher::NormalizeCharsetLabel(label);
  (void)zcrawl::fetcher::CharsetFromMetaContent(rest.substr(0, 256));
  auto decoded = zcrawl::fetcher::DecodeToUtf8(std::string(rest), label);
  const std::string text = zcrawl::fetcher::SanitizeUtf8(decoded.ok() ? std::move(*decoded) : std::string(rest));
  if (!zcrawl::fetcher::IsCleanUtf8(text)) abort();
  if (zcrawl::fetcher::SanitizeUtf8(text) != text) abort();
  return 0;
}
