// Fuzz target of the URL parser (common/url.h): any bytes, as an absolute
// URL and relative to a base. It must never crash, and what it accepts must
// be stable: parsing its own serialisation gives the same URL.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/url.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const zcrawl::Url base = *zcrawl::Url::Parse("http://user@example.com:8080/a/b/c?q=1#f");
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const zcrawl::Url* against : {static_cast<const zcrawl::Url*>(nullptr), &base}) {
    auto url = zcrawl::Url::Parse(input, against);
    if (!url.ok()) continue;
    auto again = zcrawl::Url::Parse(url->href());
    if (!again.ok() || again->href() != url->href()) abort();
  }
  return 0;
}
