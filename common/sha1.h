// SHA-1 of a byte string, raw (20 bytes), through OpenSSL's EVP interface
// (SHA-NI where the CPU has it). The fetcher digests each body it sends so
// the writer can use it as the WARC payload digest (Page.body_sha1).
//
// SHA-1 is used only because WARC names it; it is not a security check.
// Thread-safe: no shared state.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

namespace zcrawl {

inline constexpr size_t kSha1Bytes = 20;

// The 20-byte digest of `data`; empty only when OpenSSL fails.
std::string Sha1(std::string_view data);
// The digest of the pieces' concatenation, without concatenating them.
std::string Sha1(std::initializer_list<std::string_view> pieces);

}  // namespace zcrawl
