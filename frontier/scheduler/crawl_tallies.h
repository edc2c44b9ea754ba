// CrawlTallies: the crawl's counts by cause (failures, retries, status
// classes), kept in the state so a resumed crawl's summary still adds up.
//
// The per-origin done/failed counts come back with the origin records
// (CrawlScheduler::RestoreOrigin); these maps must come back with them, or
// a summary after a restart shows failed URLs with no cause. They are staged
// in the same batch as the dirty origin records (Broker::CommitState), so
// both describe the same moment.
//
// Stored as one meta entry of text lines "<kind> <count> <name>": kind is
// f (failure), r (retry) or s (status class). A line that does not parse is
// skipped and counted; the rest is kept.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace zcrawl::frontier {

class CrawlTallies {
 public:
  using Counts = std::map<std::string, uint64_t>;

  // The meta key the tallies are stored under.
  static constexpr const char* kMetaKey = "tallies";

  void CountFailure(const std::string& reason) { Bump(failures_, reason); }
  void CountRetry(const std::string& reason) { Bump(retries_, reason); }
  void CountStatusClass(const std::string& status_class) { Bump(status_classes_, status_class); }

  const Counts& failures() const { return failures_; }
  const Counts& retries() const { return retries_; }
  const Counts& status_classes() const { return status_classes_; }

  // Changed since the last Encode (nothing to stage otherwise).
  bool dirty() const { return dirty_; }
  std::string Encode();
  // Adds what `text` holds; returns the lines it skipped.
  size_t Restore(std::string_view text);

 private:
  void Bump(Counts& counts, const std::string& name) {
    ++counts[name];
    dirty_ = true;
  }

  Counts failures_;
  Counts retries_;
  Counts status_classes_;
  bool dirty_ = false;
};

}  // namespace zcrawl::frontier
