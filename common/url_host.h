// The URL parser's host helpers (internal to common/url*.cc): IPv4 and IPv6
// addresses as the URL Standard parses and serialises them (url_ip.cc), and
// the domain-to-ASCII step for hosts with non-ASCII code points, IDNA/UTS #46
// through libidn2 with Punycode of our own where the Standard is more lenient
// (url_idna.cc). Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zcrawl::url_internal {

// "Not found", as std::string_view's searches say it; for the url*.cc files.
inline constexpr size_t kNpos = std::string_view::npos;

// The IPv4 parser of the URL Standard (decimal, octal and hex parts, fewer
// than four parts allowed); false if `s` is not a valid IPv4 host.
bool ParseIpv4(std::string_view s, uint32_t* address);
// True if the last label of `s` is a number: then `s` must parse as IPv4.
bool EndsInNumber(std::string_view s);
void AppendIpv4(std::string& out, uint32_t address);
// `v` in decimal (ports, IPv4 parts), without std::to_string's allocation.
void AppendDecimal(std::string& out, uint32_t v);

// The IPv6 parser, over the text between the brackets.
bool ParseIpv6(std::string_view in, uint16_t address[8]);
// The compressed, lower-case form, with its brackets.
void AppendIpv6(std::string& out, const uint16_t address[8]);

// Appends the ASCII form of a valid-UTF-8, non-ASCII `domain` to `out`.
bool DomainToAsciiIdn(std::string_view domain, std::string& out);

}  // namespace zcrawl::url_internal
