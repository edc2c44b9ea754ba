#include "fetcher/tls_session_shares.h"

#include <curl/curl.h>

namespace zcrawl::fetcher {

namespace {

CURLSH* NewSessionShare() {
  CURLSH* share = curl_share_init();
  if (share) curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  return share;
}

}  // namespace

TlsSessionShares::TlsSessionShares(size_t max_origins) : max_origins_(max_origins), common_(NewSessionShare()) {}

TlsSessionShares::~TlsSessionShares() {
  for (auto& [origin, entry] : by_origin_) curl_share_cleanup(entry.share);
  if (common_) curl_share_cleanup(common_);
}

std::string_view TlsSessionShares::HttpsOrigin(std::string_view url) {
  constexpr std::string_view kScheme = "https://";
  if (url.size() < kScheme.size() || url.substr(0, kScheme.size()) != kScheme) return {};
  const size_t end = url.find_first_of("/?#", kScheme.size());
  return url.substr(0, end);
}

CURLSH* TlsSessionShares::Acquire(std::string_view url) {
  const std::string_view origin = HttpsOrigin(url);
  if (origin.empty() || max_origins_ == 0) return common_;
  auto it = by_origin_.find(std::string(origin));
  if (it == by_origin_.end()) {
    CURLSH* share = NewSessionShare();
    if (!share) return common_;
    recent_.emplace_front(origin);
    it = by_origin_.emplace(recent_.front(), Entry{share, 0, recent_.begin()}).first;
    origin_of_.emplace(share, recent_.front());
    EvictPastLimit();
  } else {
    recent_.splice(recent_.begin(), recent_, it->second.recent);
  }
  ++it->second.holders;
  return it->second.share;
}

void TlsSessionShares::Release(CURLSH* share) {
  if (!share || share == common_) return;
  auto origin = origin_of_.find(share);
  if (origin == origin_of_.end()) return;
  auto it = by_origin_.find(origin->second);
  if (it != by_origin_.end() && it->second.holders > 0) --it->second.holders;
}

void TlsSessionShares::EvictPastLimit() {
  // From the least recent; shares some transfer holds are passed over (at
  // most the transfers in flight).
  for (auto victim = recent_.end(); by_origin_.size() > max_origins_;) {
    --victim;
    if (victim == recent_.begin()) break;  // the origin being acquired
    auto it = by_origin_.find(*victim);
    if (it->second.holders > 0) continue;
    curl_share_cleanup(it->second.share);
    origin_of_.erase(it->second.share);
    by_origin_.erase(it);
    victim = recent_.erase(victim);
  }
}

}  // namespace zcrawl::fetcher
