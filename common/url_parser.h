// UrlParser: the URL Standard's basic URL parser (internal to
// common/url*.cc; Url::Parse is the way in). One object per parse, writing
// the href and the component offsets of one Url, which it may touch as
// Url's friend. Not thread-safe; one parse per object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/url.h"

namespace zcrawl {

namespace url_internal {
// The special schemes' default ports (http 80, https 443, ws, wss, ftp);
// -1 for any other scheme.
int DefaultPort(std::string_view scheme);
}  // namespace url_internal

// The basic URL parser. Each state method consumes input from position p and
// appends to the href being built, then tail-calls the next state. Path and
// query are always the last thing written, so "shorten" is a truncation.
class UrlParser {
 public:
  static constexpr int kEof = -1;  // At() past the end

  UrlParser(std::string_view input, const Url* base, Url* url)
      : in_(input), base_(base), url_(*url), out_(url->href_) {}

  bool Run();
  const char* error() const { return error_; }

 private:
  using SchemeType = Url::SchemeType;

  int At(size_t p) const {
    return p < in_.size() ? static_cast<uint8_t>(in_[p]) : kEof;
  }
  bool Fail(const char* why) {
    error_ = why;
    return false;
  }
  bool special() const { return url_.scheme_type_ != SchemeType::kNotSpecial; }
  bool file() const { return url_.scheme_type_ == SchemeType::kFile; }
  bool base_is_file() const {
    return base_ != nullptr && base_->scheme_type_ == SchemeType::kFile;
  }
  bool IsSlash(int c) const { return c == '/' || (c == '\\' && special()); }
  size_t SkipSlashes(size_t p) const {
    while (At(p) == '/' || At(p) == '\\') ++p;
    return p;
  }

  void SetScheme(std::string_view lower_scheme_with_colon);
  void MarkPathStart() {
    if (url_.pathname_start_ == Url::kNone) url_.pathname_start_ = Size();
  }
  uint32_t Size() const { return static_cast<uint32_t>(out_.size()); }
  void CopyBaseAuthority();
  void CopyBasePath();
  void CopyBaseQuery();
  void ShortenPath();
  // After the base URL's path was copied (relative and file states share
  // these steps): at the end, '?' or '#', takes the base's query as the
  // Standard says, sets *result to the parse's outcome and returns true;
  // for anything else returns false and the caller goes on.
  bool EndsWithBaseQuery(int c, size_t p, bool* result);

  bool NoSchemeState();
  bool RelativeState(size_t p);
  bool AuthorityState(size_t p);
  bool HostState(size_t p, size_t end);
  bool ParseHost(std::string_view input, bool is_opaque);
  bool PathStartState(size_t p);
  bool PathState(size_t p);
  bool OpaquePathState(size_t p);
  bool QueryState(size_t p);
  bool FragmentState(size_t p);
  bool FileState(size_t p);
  bool FileHostState(size_t p);
  bool Finish();

  std::string_view in_;
  const Url* base_;
  Url& url_;
  std::string& out_;
  const char* error_ = "unknown";
};

}  // namespace zcrawl
