// Fuzz target of robots.txt (common/robots_rules.h): the first byte picks a
// path length, the rest is split into a path and a body. Parsing and
// matching must never crash, and the rules must survive their own encoding
// (Deserialize(Serialize(x)) == x, what the frontier stores and sends).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "common/robots_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t path_length = std::min<size_t>(data[0], size - 1);
  const std::string_view path(reinterpret_cast<const char*>(data + 1), path_length);
  const std::string_view body(reinterpret_cast<const char*>(data + 1 + path_length), size - 1 - path_length);
  const zcrawl::RobotsRules rules = zcrawl::RobotsRules::Parse(body, "zcrawl");
  (void)rules.IsAllowed(path);
  auto decoded = zcrawl::RobotsRules::Deserialize(rules.Serialize());
  if (!decoded.ok() || !(*decoded == rules)) abort();
  (void)zcrawl::RobotsRules::Deserialize(body);  // bad encodings are refused, never crash
  return 0;
}
