// Clock: the one seam for time, so tests can drive politeness, leases and
// heartbeats with a fake clock. Both readings are milliseconds.
// RealClock is stateless and thread-safe; FakeClock is thread-safe too.
#pragma once

#include <atomic>
#include <cstdint>

namespace zcrawl {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time for deadlines and intervals.
  virtual int64_t NowMs() const = 0;
  // Wall-clock time since the Unix epoch, for records and logs.
  virtual int64_t WallMs() const = 0;
};

class RealClock final : public Clock {
 public:
  int64_t NowMs() const override;
  int64_t WallMs() const override;
  // A shared instance for production code.
  static const Clock& Get();
  // Monotonic microseconds, for pacing real CPU work (not crawl logic, which
  // goes through a Clock so tests can fake it).
  static int64_t SteadyNowUs();
};

class FakeClock final : public Clock {
 public:
  explicit FakeClock(int64_t start_ms = 1'000'000) : now_ms_(start_ms) {}
  int64_t NowMs() const override { return now_ms_.load(); }
  int64_t WallMs() const override { return now_ms_.load() + kWallOffsetMs; }
  void Advance(int64_t ms) { now_ms_.fetch_add(ms); }

 private:
  static constexpr int64_t kWallOffsetMs = 1'700'000'000'000;
  std::atomic<int64_t> now_ms_;
};

}  // namespace zcrawl
