#include "common/process_identity.h"

#include <unistd.h>

#include <random>

namespace zcrawl {

std::string LocalHostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string RandomHex(int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device device;
  std::string out;
  uint32_t bits = 0;
  for (int i = 0; i < digits; ++i) {
    if (i % 8 == 0) bits = device();
    out += kHex[bits & 15];
    bits >>= 4;
  }
  return out;
}

std::string MakeRunId(std::string_view role) {
  return std::string(role) + "-" + std::to_string(getpid()) + "-" + RandomHex(8);
}

}  // namespace zcrawl
