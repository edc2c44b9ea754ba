// NxdomainDnsServer: a DNS server over UDP for tests that answers every
// query "no such name" (RCODE 3, NXDOMAIN), so that a crawler's lookups of
// names that do not exist fail at once and locally, never on the internet.
// It records each name asked, so a test can show the lookups really came.
//
// Bind it inside the namespace whose resolv.conf names it (create it from a
// thread that entered that namespace, tests/support/netns.h).
// Thread-safety: the counters may be read from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace zcrawl::testing {

class NxdomainDnsServer {
 public:
  // Listens on ADDRESS:53 at once; throws std::runtime_error if it cannot.
  explicit NxdomainDnsServer(const std::string& address);
  ~NxdomainDnsServer();
  NxdomainDnsServer(const NxdomainDnsServer&) = delete;
  NxdomainDnsServer& operator=(const NxdomainDnsServer&) = delete;

  uint64_t queries() const { return queries_.load(); }
  // Datagrams that were not a DNS query with one question (dropped).
  uint64_t malformed() const { return malformed_.load(); }
  // Lower-cased names asked, without the final dot.
  std::set<std::string> names() const;

 private:
  void Serve();
  // The NXDOMAIN answer to `query` (its id and question), or "" if it is
  // not a query we can answer.
  std::string Answer(const std::string& query, std::string* name) const;

  int fd_ = -1;
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> queries_{0};
  std::atomic<uint64_t> malformed_{0};
  mutable std::mutex mutex_;
  std::set<std::string> names_;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace zcrawl::testing
