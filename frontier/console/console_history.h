// ConsoleHistory: the web console's chart, a sample of the crawl's running
// totals once a second for the last hour (kSamples); the page draws rates
// from the differences. Broker thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace zcrawl::frontier {

struct ConsoleSample {
  int64_t wall_ms = 0;
  uint64_t done = 0;
  uint64_t failed = 0;
  uint64_t admitted = 0;  // new URLs
  uint64_t bytes = 0;     // body bytes fetched
};

class ConsoleHistory {
 public:
  static constexpr size_t kSamples = 3600;

  void Add(const ConsoleSample& sample) {
    samples_.push_back(sample);
    if (samples_.size() > kSamples) samples_.pop_front();
  }
  // [{"t":..,"done":..,"failed":..,"admitted":..,"bytes":..}, ...]
  std::string Json() const;
  const std::deque<ConsoleSample>& samples() const { return samples_; }

 private:
  std::deque<ConsoleSample> samples_;
};

}  // namespace zcrawl::frontier
