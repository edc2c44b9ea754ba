// The parser's states, in the order the URL Standard lists them; the host
// helpers are in url_ip.cc and url_idna.cc.
// Over 500 lines on purpose: one state machine, read against the Standard's
// one list of states; split, one algorithm would be in several files.
#include "common/url_parser.h"

#include <array>

#include "common/ascii.h"
#include "common/percent_encoding.h"
#include "common/url_encode_sets.h"
#include "common/url_host.h"
#include "common/utf8.h"

namespace zcrawl {

// The host helpers (url_host.h) and the encode sets (url_encode_sets.h).
using namespace url_internal;

namespace {

// Windows drive letter: ASCII alpha then ':' or '|'.
bool IsWindowsDriveLetter(std::string_view s) {
  return s.size() == 2 && IsAsciiAlpha(static_cast<uint8_t>(s[0])) &&
         (s[1] == ':' || s[1] == '|');
}

bool StartsWithWindowsDriveLetter(std::string_view s) {
  if (s.size() < 2 || !IsWindowsDriveLetter(s.substr(0, 2))) return false;
  if (s.size() == 2) return true;
  const char c = s[2];
  return c == '/' || c == '\\' || c == '?' || c == '#';
}

bool IsSingleDot(std::string_view s) {
  return s == "." || EqualsIgnoreCaseAscii(s, "%2e");
}

bool IsDoubleDot(std::string_view s) {
  switch (s.size()) {
    case 2:
      return s == "..";
    case 4:
      return EqualsIgnoreCaseAscii(s, ".%2e") || EqualsIgnoreCaseAscii(s, "%2e.");
    case 6:
      return EqualsIgnoreCaseAscii(s, "%2e%2e");
    default:
      return false;
  }
}


}  // namespace

int url_internal::DefaultPort(std::string_view scheme) {
  if (scheme == "http" || scheme == "ws") return 80;
  if (scheme == "https" || scheme == "wss") return 443;
  if (scheme == "ftp") return 21;
  return -1;
}

void UrlParser::SetScheme(std::string_view scheme_with_colon) {
  out_.append(scheme_with_colon);
  url_.protocol_end_ = Size();
  // Until an authority is written, the host is null and sits at the colon.
  url_.username_end_ = url_.host_start_ = url_.host_end_ = url_.protocol_end_;
  const std::string_view s = scheme_with_colon.substr(0, scheme_with_colon.size() - 1);
  SchemeType type = SchemeType::kNotSpecial;
  if (s == "http") {
    type = SchemeType::kHttp;
  } else if (s == "https") {
    type = SchemeType::kHttps;
  } else if (s == "ws") {
    type = SchemeType::kWs;
  } else if (s == "wss") {
    type = SchemeType::kWss;
  } else if (s == "ftp") {
    type = SchemeType::kFtp;
  } else if (s == "file") {
    type = SchemeType::kFile;
  }
  url_.scheme_type_ = type;
}

void UrlParser::CopyBaseAuthority() {
  if (!base_->has_host_) return;
  const uint32_t from = base_->protocol_end_;
  const uint32_t to = url_.protocol_end_;
  out_.append(base_->href_, from, base_->authority_end() - from);
  url_.username_end_ = base_->username_end_ - from + to;
  url_.host_start_ = base_->host_start_ - from + to;
  url_.host_end_ = base_->host_end_ - from + to;
  url_.port_ = base_->port_;
  url_.has_host_ = true;
}

void UrlParser::CopyBasePath() {
  MarkPathStart();
  out_.append(base_->href_, base_->pathname_start_,
              base_->path_end() - base_->pathname_start_);
}

void UrlParser::CopyBaseQuery() {
  if (base_->search_start_ == Url::kNone) return;
  const uint32_t end =
      base_->hash_start_ == Url::kNone ? static_cast<uint32_t>(base_->href_.size())
                                       : base_->hash_start_;
  url_.search_start_ = Size();
  out_.append(base_->href_, base_->search_start_, end - base_->search_start_);
}

bool UrlParser::EndsWithBaseQuery(int c, size_t p, bool* result) {
  if (c == kEof) {
    CopyBaseQuery();
    *result = Finish();
  } else if (c == '?') {
    *result = QueryState(p + 1);
  } else if (c == '#') {
    CopyBaseQuery();
    *result = FragmentState(p + 1);
  } else {
    return false;
  }
  return true;
}

void UrlParser::ShortenPath() {
  const size_t start = url_.pathname_start_;
  const size_t len = out_.size() - start;
  if (len == 0) return;
  if (file() && len == 3 && IsAsciiAlpha(static_cast<uint8_t>(out_[start + 1])) &&
      out_[start + 2] == ':') {
    return;  // a lone normalized Windows drive letter stays
  }
  out_.resize(out_.rfind('/'));
}

bool UrlParser::Run() {
  const size_t n = in_.size();
  if (n > 0 && IsAsciiAlpha(At(0))) {
    size_t q = 1;
    while (q < n && Has(in_[q], kSchemeChar)) ++q;
    if (q < n && in_[q] == ':') {
      char buf[32];
      std::string lowered;
      std::string_view scheme;
      if (q + 1 <= sizeof(buf)) {
        for (size_t i = 0; i < q; ++i) buf[i] = ToLowerAscii(in_[i]);
        buf[q] = ':';
        scheme = std::string_view(buf, q + 1);
      } else {
        lowered.reserve(q + 1);
        for (size_t i = 0; i < q; ++i) lowered += ToLowerAscii(in_[i]);
        lowered += ':';
        scheme = lowered;
      }
      SetScheme(scheme);
      const size_t p = q + 1;
      if (file()) return FileState(p);
      if (special()) {
        if (base_ != nullptr && base_->protocol() == scheme) {
          // special relative or authority state
          if (At(p) == '/' && At(p + 1) == '/') {
            return AuthorityState(SkipSlashes(p + 2));
          }
          return RelativeState(p);
        }
        // special authority slashes, then ignore slashes
        return AuthorityState(SkipSlashes(p));
      }
      if (At(p) == '/') {
        if (At(p + 1) == '/') return AuthorityState(p + 2);
        return PathState(p + 1);
      }
      return OpaquePathState(p);
    }
  }
  return NoSchemeState();
}

bool UrlParser::NoSchemeState() {
  const int c = At(0);
  if (base_ == nullptr || (base_->has_opaque_path_ && c != '#')) {
    return Fail("missing scheme and no usable base URL");
  }
  if (base_->has_opaque_path_) {
    // Same URL as base, new fragment.
    const uint32_t end = base_->hash_start_ == Url::kNone
                             ? static_cast<uint32_t>(base_->href_.size())
                             : base_->hash_start_;
    out_.append(base_->href_, 0, end);
    url_.protocol_end_ = base_->protocol_end_;
    url_.username_end_ = base_->username_end_;
    url_.host_start_ = base_->host_start_;
    url_.host_end_ = base_->host_end_;
    url_.pathname_start_ = base_->pathname_start_;
    url_.search_start_ = base_->search_start_;
    url_.port_ = base_->port_;
    url_.scheme_type_ = base_->scheme_type_;
    url_.has_host_ = base_->has_host_;
    url_.has_opaque_path_ = true;
    return FragmentState(1);
  }
  SetScheme(base_->protocol());
  if (file()) return FileState(0);
  return RelativeState(0);
}

bool UrlParser::RelativeState(size_t p) {
  const int c = At(p);
  if (IsSlash(c)) {
    // relative slash state
    const int c2 = At(p + 1);
    if (special() && (c2 == '/' || c2 == '\\')) {
      return AuthorityState(SkipSlashes(p + 2));
    }
    if (!special() && c2 == '/') return AuthorityState(p + 2);
    CopyBaseAuthority();
    return PathState(p + 1);
  }
  CopyBaseAuthority();
  CopyBasePath();
  if (bool done = false; EndsWithBaseQuery(c, p, &done)) return done;
  ShortenPath();
  return PathState(p);
}

bool UrlParser::AuthorityState(size_t p) {
  const size_t n = in_.size();
  const uint16_t stop = special() ? kSpecialStop : kStop;
  size_t end = p;
  while (end < n && !Has(in_[end], stop)) ++end;
  out_ += "//";
  url_.has_host_ = true;
  size_t host_begin = p;
  const size_t at = in_.substr(p, end - p).rfind('@');
  const uint32_t userinfo_start = Size();
  if (at != kNpos) {
    if (p + at + 1 == end) return Fail("credentials without a host");
    const std::string_view userinfo = in_.substr(p, at);
    const size_t colon = userinfo.find(':');
    AppendPercentEncoded(out_, userinfo.substr(0, colon), kEncUserinfo);
    url_.username_end_ = Size();
    if (colon != kNpos) {
      out_ += ':';
      const size_t before = out_.size();
      AppendPercentEncoded(out_, userinfo.substr(colon + 1), kEncUserinfo);
      if (out_.size() == before) out_.pop_back();  // empty password
    }
    if (Size() != userinfo_start) out_ += '@';
    host_begin = p + at + 1;
  } else {
    url_.username_end_ = Size();
  }
  url_.host_start_ = Size();
  return HostState(host_begin, end);
}

bool UrlParser::HostState(size_t p, size_t end) {
  bool inside_brackets = false;
  size_t colon = kNpos;
  for (size_t i = p; i < end; ++i) {
    const char c = in_[i];
    if (c == '[') {
      inside_brackets = true;
    } else if (c == ']') {
      inside_brackets = false;
    } else if (c == ':' && !inside_brackets) {
      colon = i;
      break;
    }
  }
  const std::string_view host = in_.substr(p, (colon == kNpos ? end : colon) - p);
  if (host.empty() && (colon != kNpos || special())) {
    return Fail("missing host");
  }
  if (!ParseHost(host, !special())) return false;
  url_.host_end_ = Size();
  if (colon != kNpos) {
    // port state
    uint32_t port = 0;
    for (size_t i = colon + 1; i < end; ++i) {
      if (!IsAsciiDigit(At(i))) return Fail("invalid port");
      port = port * 10 + (in_[i] - '0');
      if (port > 65535) return Fail("port out of range");
    }
    if (colon + 1 < end && static_cast<int>(port) != DefaultPort(url_.scheme())) {
      out_ += ':';
      AppendDecimal(out_, port);
      url_.port_ = static_cast<int32_t>(port);
    }
  }
  return PathStartState(end);
}

bool UrlParser::ParseHost(std::string_view input, bool is_opaque) {
  if (!input.empty() && input[0] == '[') {
    if (input.size() < 2 || input.back() != ']') return Fail("unclosed IPv6 address");
    uint16_t address[8];
    if (!ParseIpv6(input.substr(1, input.size() - 2), address)) {
      return Fail("invalid IPv6 address");
    }
    AppendIpv6(out_, address);
    return true;
  }
  if (is_opaque) {
    for (char c : input) {
      if (Has(c, kForbiddenHost)) return Fail("forbidden host code point");
    }
    AppendPercentEncoded(out_, input, kEncC0);
    return true;
  }
  // Common case in one pass: append, lower-case, and check; fall back to the
  // general path on the first '%' or non-ASCII byte.
  const size_t start = out_.size();
  out_.append(input);
  bool simple = true;
  bool forbidden = false;  // decided only once the host is known to be ASCII
  for (size_t i = start; i < out_.size(); ++i) {
    const char c = out_[i];
    if (c == '%' || static_cast<uint8_t>(c) >= 0x80) {
      simple = false;
      break;
    }
    forbidden = forbidden || Has(c, kForbiddenDomain);
    out_[i] = ToLowerAscii(c);
  }
  if (simple && forbidden) return Fail("forbidden domain code point");
  if (!simple) {
    out_.resize(start);
    const std::string decoded = PercentDecode(input);
    if (IsAscii(decoded)) {
      // ASCII: lower-casing only, "xn--" labels included (see url.h).
      for (char c : decoded) {
        if (Has(c, kForbiddenDomain)) return Fail("forbidden domain code point");
        out_ += ToLowerAscii(c);
      }
    } else {
      if (!IsValidUtf8(decoded)) return Fail("invalid UTF-8 in host");
      if (!DomainToAsciiIdn(decoded, out_)) return Fail("domain to ASCII failed");
      for (size_t i = start; i < out_.size(); ++i) {
        if (Has(out_[i], kForbiddenDomain)) return Fail("forbidden domain code point");
      }
    }
  }
  if (out_.size() == start) return Fail("empty host");
  const std::string_view ascii(out_.data() + start, out_.size() - start);
  if (EndsInNumber(ascii)) {
    uint32_t address = 0;
    if (!ParseIpv4(ascii, &address)) return Fail("invalid IPv4 address");
    out_.resize(start);
    AppendIpv4(out_, address);
  }
  return true;
}

bool UrlParser::PathStartState(size_t p) {
  const int c = At(p);
  if (special()) return PathState(c == '/' || c == '\\' ? p + 1 : p);
  if (c == '?') return QueryState(p + 1);
  if (c == '#') return FragmentState(p + 1);
  if (c == kEof) return Finish();
  return PathState(c == '/' ? p + 1 : p);
}

bool UrlParser::PathState(size_t p) {
  MarkPathStart();
  const size_t n = in_.size();
  const bool special_url = special();
  const uint16_t stop = special_url ? kSpecialStop : kStop;
  while (true) {
    size_t q = p;
    while (q < n && !Has(in_[q], stop)) ++q;
    const std::string_view segment = in_.substr(p, q - p);
    const int c = At(q);
    const bool slash = c == '/' || (c == '\\' && special_url);
    if (IsDoubleDot(segment)) {
      ShortenPath();
      if (!slash) out_ += '/';
    } else if (IsSingleDot(segment)) {
      if (!slash) out_ += '/';
    } else {
      out_ += '/';
      if (file() && Size() == url_.pathname_start_ + 1 &&
          IsWindowsDriveLetter(segment)) {
        out_ += segment[0];
        out_ += ':';
      } else {
        AppendPercentEncoded(out_, segment, kEncPath);
      }
    }
    if (c == kEof) return Finish();
    if (c == '?') return QueryState(q + 1);
    if (c == '#') return FragmentState(q + 1);
    p = q + 1;
  }
}

bool UrlParser::OpaquePathState(size_t p) {
  MarkPathStart();
  url_.has_opaque_path_ = true;
  const size_t n = in_.size();
  size_t q = p;
  while (q < n && in_[q] != '?' && in_[q] != '#') ++q;
  AppendPercentEncoded(out_, in_.substr(p, q - p), kEncC0);
  if (q == n) return Finish();
  // A space right before '?' or '#' is encoded so it survives re-parsing.
  if (q > p && in_[q - 1] == ' ') {
    out_.pop_back();
    out_ += "%20";
  }
  return in_[q] == '?' ? QueryState(q + 1) : FragmentState(q + 1);
}

bool UrlParser::QueryState(size_t p) {
  MarkPathStart();
  size_t q = in_.find('#', p);
  if (q == kNpos) q = in_.size();
  url_.search_start_ = Size();
  out_ += '?';
  AppendPercentEncoded(out_, in_.substr(p, q - p),
                       special() ? kEncSpecialQuery : kEncQuery);
  if (q < in_.size()) return FragmentState(q + 1);
  return Finish();
}

bool UrlParser::FragmentState(size_t p) {
  MarkPathStart();
  url_.hash_start_ = Size();
  out_ += '#';
  if (p < in_.size()) AppendPercentEncoded(out_, in_.substr(p), kEncFragment);
  return Finish();
}

bool UrlParser::FileState(size_t p) {
  url_.has_host_ = true;  // a file URL's host is at least the empty host
  const int c = At(p);
  if (c == '/' || c == '\\') {
    const int c2 = At(p + 1);
    if (c2 == '/' || c2 == '\\') return FileHostState(p + 2);
    // file slash state
    out_ += "//";
    url_.username_end_ = url_.host_start_ = Size();
    if (base_is_file()) {
      out_.append(base_->hostname());
      url_.host_end_ = Size();
      const std::string_view base_path = base_->pathname();
      if (!StartsWithWindowsDriveLetter(in_.substr(p + 1)) &&
          base_path.size() >= 3 && base_path[0] == '/' &&
          IsAsciiAlpha(static_cast<uint8_t>(base_path[1])) && base_path[2] == ':' &&
          (base_path.size() == 3 || base_path[3] == '/')) {
        MarkPathStart();
        out_.append(base_path.substr(0, 3));
      }
    } else {
      url_.host_end_ = Size();
    }
    return PathState(p + 1);
  }
  out_ += "//";
  url_.username_end_ = url_.host_start_ = Size();
  if (base_is_file()) {
    out_.append(base_->hostname());
    url_.host_end_ = Size();
    CopyBasePath();
    if (bool done = false; EndsWithBaseQuery(c, p, &done)) return done;
    if (!StartsWithWindowsDriveLetter(in_.substr(p))) {
      ShortenPath();
    } else {
      out_.resize(url_.pathname_start_);
    }
    return PathState(p);
  }
  url_.host_end_ = Size();
  return PathState(p);
}

bool UrlParser::FileHostState(size_t p) {
  const size_t n = in_.size();
  size_t q = p;
  while (q < n && !Has(in_[q], kSpecialStop)) ++q;
  const std::string_view host = in_.substr(p, q - p);
  out_ += "//";
  url_.username_end_ = url_.host_start_ = Size();
  if (IsWindowsDriveLetter(host)) {
    // "file://C:/x": the drive letter is the first path segment.
    url_.host_end_ = Size();
    return PathState(p);
  }
  if (!host.empty()) {
    if (!ParseHost(host, false)) return false;
    if (std::string_view(out_).substr(url_.host_start_) == "localhost") {
      out_.resize(url_.host_start_);
    }
  }
  url_.host_end_ = Size();
  return PathStartState(q);
}

bool UrlParser::Finish() {
  MarkPathStart();
  const uint32_t ps = url_.pathname_start_;
  // A hostless, non-opaque path starting with an empty segment would read
  // back as an authority; the serializer prefixes "/." to keep it a path.
  if (!url_.has_host_ && !url_.has_opaque_path_ && out_.size() >= ps + 2 &&
      out_[ps] == '/' && out_[ps + 1] == '/') {
    out_.insert(ps, "/.");
    url_.pathname_start_ += 2;
    if (url_.search_start_ != Url::kNone) url_.search_start_ += 2;
    if (url_.hash_start_ != Url::kNone) url_.hash_start_ += 2;
    url_.has_dot_prefix_ = true;
  }
  return true;
}

}  // namespace zcrawl
