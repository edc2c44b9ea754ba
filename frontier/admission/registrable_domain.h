// RegistrableDomain: the part of a host name that one party registered
// ("example.co.uk" for "a.b.example.co.uk"), from the Public Suffix List via
// libpsl (the library curl uses for cookies). The per-domain crawl budget
// counts by it, so every subdomain of one site shares one budget while
// "a.github.io" and "b.github.io" (different owners under a public suffix)
// do not. IP addresses, single labels and public suffixes themselves are
// their own domain. Which list: the newest of Debian's publicsuffix
// package's file and the one libpsl was built with.
//
// Thread-safe (the list is loaded once and only read).
#pragma once

#include <string>
#include <string_view>

namespace zcrawl::frontier {

// `host`: lower-case ASCII (punycode) host name as Url::hostname() gives it.
std::string RegistrableDomain(std::string_view host);

}  // namespace zcrawl::frontier
