// RequestLog: what a test server saw, request by request: the Host header,
// the target, and when the request arrived and when its answer began to
// go out (steady clock, ms). For politeness tests judged from the server's
// side: how many requests were in progress at once, how far apart they
// started.
//
// Thread-safety: Add may be called from concurrent handler threads; read
// Entries once the crawl is over (or at any time: it copies).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace zcrawl::testing {

struct LoggedRequest {
  std::string host;
  std::string target;
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // 0 when the handler does not record it
};

class RequestLog {
 public:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void Add(LoggedRequest request) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_.push_back(std::move(request));
  }

  std::vector<LoggedRequest> Entries() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return entries_;
  }

  // Most of the requests `counted` keeps that were in progress at one
  // moment. A request ending in the millisecond another starts is not
  // counted with it: the client sends the next only after the answer.
  static int PeakInProgress(const std::vector<LoggedRequest>& requests,
                            const std::function<bool(const LoggedRequest&)>& counted) {
    std::vector<std::pair<int64_t, int>> events;  // (time, +1 start / -1 end)
    for (const LoggedRequest& r : requests) {
      if (!counted(r)) continue;
      events.push_back({r.start_ms, +1});
      events.push_back({r.end_ms, -1});
    }
    std::sort(events.begin(), events.end());  // ends before starts at one time
    int now = 0;
    int peak = 0;
    for (const auto& [time, change] : events) peak = std::max(peak, now += change);
    return peak;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<LoggedRequest> entries_;
};

}  // namespace zcrawl::testing
