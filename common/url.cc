#include "common/url.h"

#include <cstring>
#include <string>
#include <string_view>

#include "common/url_parser.h"

namespace zcrawl {
namespace {

// Offsets are 32-bit; anything near that long is not a URL worth crawling.
constexpr size_t kMaxInputBytes = size_t{1} << 30;

}  // namespace

// ---------------------------------------------------------------------------
// Url.

Result<Url> Url::Parse(std::string_view input, const Url* base) {
  // Strip leading and trailing C0 controls and spaces.
  size_t begin = 0;
  size_t end = input.size();
  while (begin < end && static_cast<uint8_t>(input[begin]) <= 0x20) ++begin;
  while (end > begin && static_cast<uint8_t>(input[end - 1]) <= 0x20) --end;
  std::string_view view = input.substr(begin, end - begin);
  if (view.size() > kMaxInputBytes) return InvalidArgumentError("URL too long");

  // Remove ASCII tab and newline anywhere (rare: copy only when present).
  std::string cleaned;
  const auto contains = [&](char c) {
    return std::memchr(view.data(), c, view.size()) != nullptr;
  };
  if (!view.empty() && (contains('\n') || contains('\t') || contains('\r'))) {
    cleaned.reserve(view.size());
    for (char c : view) {
      if (c != '\t' && c != '\n' && c != '\r') cleaned += c;
    }
    view = cleaned;
  }

  Url url;
  url.pathname_start_ = kNone;
  url.href_.reserve(view.size() + (base != nullptr ? base->href_.size() : 0) + 8);
  UrlParser parser(view, base, &url);
  if (!parser.Run()) {
    return InvalidArgumentError(std::string("invalid URL: ") + parser.error());
  }
  return url;
}

uint32_t Url::path_end() const {
  if (search_start_ != kNone) return search_start_;
  if (hash_start_ != kNone) return hash_start_;
  return static_cast<uint32_t>(href_.size());
}

std::string_view Url::username() const {
  return has_host_ ? Slice(protocol_end_ + 2, username_end_) : std::string_view();
}

std::string_view Url::password() const {
  if (!has_host_ || host_start_ <= username_end_ + 1) return {};
  return Slice(username_end_ + 1, host_start_ - 1);
}

bool Url::has_credentials() const {
  return has_host_ && host_start_ > protocol_end_ + 2;
}

std::string_view Url::host() const {
  return has_host_ ? Slice(host_start_, authority_end()) : std::string_view();
}

std::string_view Url::hostname() const {
  return has_host_ ? Slice(host_start_, host_end_) : std::string_view();
}

std::string_view Url::port() const {
  return port_ >= 0 ? Slice(host_end_ + 1, authority_end()) : std::string_view();
}

int Url::effective_port() const {
  if (port_ >= 0) return port_;
  return url_internal::DefaultPort(scheme());
}

std::string_view Url::pathname() const { return Slice(pathname_start_, path_end()); }

std::string_view Url::search() const {
  if (search_start_ == kNone) return {};
  const uint32_t end =
      hash_start_ == kNone ? static_cast<uint32_t>(href_.size()) : hash_start_;
  if (end - search_start_ <= 1) return {};
  return Slice(search_start_, end);
}

std::string_view Url::hash() const {
  if (hash_start_ == kNone || href_.size() - hash_start_ <= 1) return {};
  return Slice(hash_start_, static_cast<uint32_t>(href_.size()));
}

std::string_view Url::href_without_fragment() const {
  return hash_start_ == kNone ? std::string_view(href_) : Slice(0, hash_start_);
}

void Url::ClearFragment() {
  if (hash_start_ == kNone) return;
  href_.resize(hash_start_);
  hash_start_ = kNone;
}

std::string Url::origin_key() const {
  if (!is_special()) return {};
  const std::string_view h = host();
  std::string key;
  key.reserve(protocol_end_ + 2 + h.size());
  key.append(href_, 0, protocol_end_);
  key += "//";
  key += h;
  return key;
}

std::string_view HostOfOrigin(std::string_view origin) {
  const size_t scheme_end = origin.find("://");
  std::string_view rest = scheme_end == std::string_view::npos ? origin : origin.substr(scheme_end + 3);
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    return close == std::string_view::npos ? rest : rest.substr(0, close + 1);
  }
  return rest.substr(0, rest.find(':'));
}

}  // namespace zcrawl
