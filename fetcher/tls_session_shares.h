// TlsSessionShares: a TLS session cache per origin for the fetch loop.
//
// libcurl (7.88) keeps TLS sessions per easy handle, five at most, and the
// loop's handles rotate over every origin of the crawl, so a second
// connection to an origin almost never found the session of the first and
// paid a full handshake again (issue 51's web bench: 13 of 5,039
// connections resumed). A curl share holding only SSL sessions, one per
// origin, gives every handle that fetches from an origin the sessions its
// earlier connections got. One share per origin, not one for all: a
// share's session cache has 8 entries in libcurl 7.88.
//
// At most `max_origins` shares are kept; past it the least recently used
// one that no transfer holds is freed. Not thread-safe: the fetch loop's
// thread alone uses it (the shares have no lock callbacks for that reason).
#pragma once

#include <cstddef>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>

typedef void CURLSH;

namespace zcrawl::fetcher {

class TlsSessionShares {
 public:
  explicit TlsSessionShares(size_t max_origins);
  ~TlsSessionShares();
  TlsSessionShares(const TlsSessionShares&) = delete;
  TlsSessionShares& operator=(const TlsSessionShares&) = delete;

  // The share for the origin of `url`, held until Release; for plain http
  // (and with max_origins 0) one share common to all. Every transfer must
  // have one attached (CURLOPT_SHARE) before it starts and detached after:
  // a handle that starts with none makes its own session cache, which
  // libcurl 7.88 drops without freeing when a share is attached later.
  // Null only if libcurl cannot make a share.
  CURLSH* Acquire(std::string_view url);
  void Release(CURLSH* share);

  size_t size() const { return by_origin_.size(); }

  // "https://host:port" of an https URL; empty for any other.
  static std::string_view HttpsOrigin(std::string_view url);

 private:
  struct Entry {
    CURLSH* share = nullptr;
    size_t holders = 0;
    std::list<std::string>::iterator recent;  // in recent_, most recent first
  };
  void EvictPastLimit();

  size_t max_origins_;
  CURLSH* common_ = nullptr;  // plain http's, and https's when no more are kept
  std::list<std::string> recent_;
  std::unordered_map<std::string, Entry> by_origin_;
  std::unordered_map<CURLSH*, std::string> origin_of_;
};

}  // namespace zcrawl::fetcher
