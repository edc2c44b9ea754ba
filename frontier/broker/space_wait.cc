#include "frontier/broker/space_wait.h"

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

bool SpaceWait::Set(Source source, const std::string& detail, int64_t now_ms) {
  std::string& current = source == Source::kWriter ? writer_ : state_;
  if (current == detail) return false;
  const bool was_waiting = waiting();
  const char* what = source == Source::kWriter ? "the writer's output" : "the frontier's state";
  if (current.empty()) {
    spdlog::error("waiting for space on {}: {}; no work is handed out and no lease expires until "
                  "there is room again (nothing is lost)",
                  what, detail);
  } else if (detail.empty()) {
    spdlog::warn("space is back on {}", what);
  }
  current = detail;
  if (!was_waiting && waiting()) {
    ++waits_;
    since_ms_ = now_ms;
  }
  if (was_waiting && !waiting()) {
    waited_ms_ += now_ms - since_ms_;
    spdlog::warn("the crawl goes on after {} ms waiting for space", now_ms - since_ms_);
    return true;
  }
  return false;
}

std::string SpaceWait::Describe(int64_t now_ms) const {
  if (!waiting()) return "";
  std::string out;
  if (!writer_.empty()) out += "writer: " + writer_;
  if (!state_.empty()) out += std::string(out.empty() ? "" : "; ") + "frontier state: " + state_;
  return out + " (for " + std::to_string((now_ms - since_ms_) / 1000) + " s)";
}

}  // namespace zcrawl::frontier
