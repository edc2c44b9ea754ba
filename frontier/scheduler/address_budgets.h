// AddressBudgets: politeness per server address. Origins that resolve to
// one address (a thousand subdomains of a blog platform, sites on one
// shared host) share one budget: at most --per-ip requests in flight and
// --ip-delay-ms between request starts, on top of each origin's own
// (BUbiNG enforces per-host and per-IP delays at once; Heritrix users ask
// for it as "queue groups").
//
// An origin's address is what its fetches connected to (FetchReport
// server_address, libcurl's CURLINFO_PRIMARY_IP), kept as a 32-bit key in
// its slot and record; unknown (0) until its first answer, so an origin's
// first request (its robots.txt, usually) is bounded by its own budget
// only. Two addresses whose keys collide share a budget: politer than
// asked, never faster; with n addresses busy at once the chance of any
// collision is about n^2 / 2^33.
//
// State exists only for addresses with a request in flight, an origin
// waiting for room, or a delay still running: a crawl of 10^8 URLs on
// 10^6 parked origins holds nothing here for them. Sweep() drops idle
// entries. Not thread-safe (the broker thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "frontier/frontier_options.h"

namespace zcrawl::frontier {

class AddressBudgets {
 public:
  explicit AddressBudgets(const PolitenessOptions& options) : options_(options) {}

  // The key of an address's text ("192.0.2.7", "2001:db8::1"); 0 for none.
  static uint32_t KeyOf(std::string_view address);

  bool enabled() const { return options_.per_ip > 0; }
  // When a request to `key` may start: `now_ms` if it may now, a later
  // time for a delay, INT64_MAX while --per-ip are in flight (the origin
  // then waits: Wait, and comes back through Returned).
  int64_t ReadyMs(uint32_t key, int64_t now_ms) const;
  // A request to `key` started.
  void Leased(uint32_t key, int64_t now_ms);
  // Origin `origin_id` waits for room at `key`.
  void Wait(uint32_t key, uint32_t origin_id);
  // A request to `key` ended: the origins that waited for room, to be
  // scheduled again.
  std::vector<uint32_t> Returned(uint32_t key, int64_t now_ms);
  // Drops entries with nothing in flight, nobody waiting and no delay
  // running.
  void Sweep(int64_t now_ms);

  // The text of `key`, for status rows: kept while it has state.
  void Name(uint32_t key, std::string_view address);
  // An origin's address was learned: its text is remembered (at most
  // kMaxNames, then forgotten all at once) to name its entry when one is
  // made.
  void Learn(uint32_t key, std::string_view address);
  // A tracked address, for `./run status`.
  struct Row {
    std::string address;  // empty until a report named it
    uint32_t in_flight = 0;
    uint32_t origins_waiting = 0;
    int64_t delay_left_ms = 0;
  };
  // The `limit` addresses with the most in flight and waiting.
  std::vector<Row> Busiest(size_t limit, int64_t now_ms) const;

  size_t tracked() const { return budgets_.size(); }
  uint64_t waits() const { return waits_; }

 private:
  struct Budget {
    uint32_t in_flight = 0;
    int64_t next_start_ms = 0;
    std::vector<uint32_t> waiting;  // origin ids
    std::string address;
  };
  bool Idle(const Budget& b, int64_t now_ms) const { return b.in_flight == 0 && b.waiting.empty() && b.next_start_ms <= now_ms; }

  static constexpr size_t kMaxNames = 4096;

  const PolitenessOptions& options_;
  std::unordered_map<uint32_t, Budget> budgets_;
  std::unordered_map<uint32_t, std::string> names_;  // Learn's
  uint64_t waits_ = 0;
};

}  // namespace zcrawl::frontier
