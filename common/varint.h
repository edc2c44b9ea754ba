// Little-endian base-128 varints (protobuf's encoding): the compact
// integers of the robots rules cache and of the frontier's store records.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl {

inline void PutVarint(std::uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Reads one varint at *offset of `in` and advances *offset past it; false
// if it is truncated or longer than 10 bytes.
inline bool GetVarint(std::string_view in, std::size_t* offset, std::uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *offset < in.size(); shift += 7) {
    const auto byte = static_cast<std::uint8_t>(in[(*offset)++]);
    *v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace zcrawl
