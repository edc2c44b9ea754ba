// Url: a parsed URL per the WHATWG URL Standard (https://url.spec.whatwg.org/).
//
// Url::Parse runs the standard's basic URL parser (no encoding override, no
// state override) over a UTF-8 input, optionally against a base URL, and keeps
// the result the way a "URL aggregator" does: one serialised href string plus
// offsets of its components. Every accessor is therefore a view into href();
// a successful Parse costs one allocation in the common case (more only for
// inputs with tabs/newlines, percent-encoded or non-ASCII hosts).
//
// Hosts of special URLs are percent-decoded and go through "domain to ASCII",
// then are checked for forbidden code points and IPv4 syntax:
//  - Pure-ASCII hosts are only lower-cased, without libidn2. This includes
//    labels starting with "xn--", whose Punycode is not validated (the WPT
//    data we test against expects "https://xn--/" and "xn--a" to parse).
//  - Hosts with non-ASCII code points go to libidn2 (UTS #46 non-transitional,
//    no STD3 rules). Where libidn2's IDNA2008 rules or older Unicode table are
//    stricter than UTS #46 as the URL Standard uses it (symbols like U+2603,
//    hyphen placement, label length), url.cc falls back to label-by-label
//    processing; see "Domain to ASCII" there for the exact rules and limits.
// Invalid UTF-8 in the input is treated as U+FFFD: a host containing it fails;
// elsewhere it is percent-encoded as %EF%BF%BD.
//
// Thread safety: a Url is a value type. Const methods are safe to call from
// many threads at once; ClearFragment() needs exclusive access. Parse itself
// keeps no state between calls and may run concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zcrawl {

class Url {
 public:
  // Parses `input` (UTF-8) against `base` (may be null). Fails with
  // kInvalidArgument when the standard's parser returns failure.
  static Result<Url> Parse(std::string_view input, const Url* base = nullptr);

  // The serialisation ("https://user@example.com:8080/a/b?q#f").
  const std::string& href() const { return href_; }
  // Scheme without the colon ("https").
  std::string_view scheme() const { return Slice(0, protocol_end_ - 1); }
  // Scheme with the colon ("https:").
  std::string_view protocol() const { return Slice(0, protocol_end_); }
  std::string_view username() const;
  std::string_view password() const;
  // hostname[:port]; "" when the host is null or empty.
  std::string_view host() const;
  // Serialised host: domain (punycode for IDN), IPv4 dotted quad, "[v6]",
  // opaque host, or "" when null/empty.
  std::string_view hostname() const;
  // Explicit non-default port as digits, "" when absent or default.
  std::string_view port() const;
  // The port, else the scheme's default (http/ws 80, https/wss 443, ftp 21),
  // else -1.
  int effective_port() const;
  // Path as serialised; "" for a non-special URL with an empty path.
  std::string_view pathname() const;
  // "?query", or "" when the query is null or empty (as in the JS API).
  std::string_view search() const;
  // "#fragment", or "" when the fragment is null or empty.
  std::string_view hash() const;

  bool is_special() const { return scheme_type_ != SchemeType::kNotSpecial; }
  bool has_opaque_path() const { return has_opaque_path_; }
  // True when the URL has a (possibly empty) host, i.e. "scheme://...".
  bool has_host() const { return has_host_; }
  bool has_credentials() const;

  // href() without "#fragment"; a trailing "?" of an empty query is kept.
  std::string_view href_without_fragment() const;
  // Drops the fragment (sets it to null): href "a#b" becomes "a".
  void ClearFragment();

  // "scheme://host[:port]" for special schemes (the port only when it is not
  // the default), used as the politeness key; "" for non-special URLs.
  std::string origin_key() const;

 private:
  // Which special scheme, if any; decides path/host rules and default ports.
  enum class SchemeType : uint8_t {
    kNotSpecial,
    kHttp,
    kHttps,
    kWs,
    kWss,
    kFtp,
    kFile,
  };
  static constexpr uint32_t kNone = UINT32_MAX;
  friend class UrlParser;

  Url() = default;
  std::string_view Slice(uint32_t begin, uint32_t end) const {
    return std::string_view(href_).substr(begin, end - begin);
  }
  // End of "host[:port]" (start of the path, before any "/." prefix).
  uint32_t authority_end() const {
    return pathname_start_ - (has_dot_prefix_ ? 2 : 0);
  }
  uint32_t path_end() const;

  // Layout: scheme ":" ["//" [user [":" pass] "@"] host [":" port]]
  //         ["/."] path ["?" query] ["#" fragment]
  std::string href_;
  uint32_t protocol_end_ = 0;    // index just past ':'
  uint32_t username_end_ = 0;    // end of username (== host_start_ if none)
  uint32_t host_start_ = 0;      // first byte of the host ("//" precedes it)
  uint32_t host_end_ = 0;        // end of the host; ':' follows if a port
  uint32_t pathname_start_ = 0;  // first byte of the path
  uint32_t search_start_ = kNone;  // index of '?', or kNone for null query
  uint32_t hash_start_ = kNone;    // index of '#', or kNone for null fragment
  int32_t port_ = -1;              // explicit non-default port, or -1
  SchemeType scheme_type_ = SchemeType::kNotSpecial;
  bool has_host_ = false;
  bool has_opaque_path_ = false;
  bool has_dot_prefix_ = false;  // "/." inserted before a path starting "//"
};

// The host of an origin key (Url::origin_key): "https://a.example:8443"
// -> "a.example", "http://[::1]:80" -> "[::1]".
std::string_view HostOfOrigin(std::string_view origin);

}  // namespace zcrawl
