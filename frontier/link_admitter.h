// LinkAdmitter: the frontier's link threads. The broker hands them the links
// of each fetch report; they parse and normalise each link (WHATWG URL rules,
// fragment dropped), apply the ScopePolicy, and keep the ones the shared
// VisitedSet has never seen. Results go back to the broker through a
// NotifyingQueue it polls next to its socket.
//
// Thread-safety: Submit and Stop from the broker thread only; results() is
// drained by the broker. Admit() is a synchronous variant (seeds, tests),
// safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/bounded_queue.h"
#include "common/notifying_queue.h"
#include "frontier/scope_policy.h"
#include "frontier/url_record.h"
#include "frontier/visited_set.h"

namespace zcrawl::frontier {

// The final state of the page whose links a job carries. The broker records
// it durably only after the links are admitted, so a crash never keeps the
// parent final while losing its children.
struct ParentOutcome {
  std::string url;
  UrlState state = UrlState::kDone;
  std::string reason;
  uint32_t attempts = 0;
};

struct AdmissionJob {
  uint32_t depth = 0;              // depth the links get
  std::vector<std::string> links;  // as reported (absolute, untrusted)
  std::optional<ParentOutcome> parent;
};

struct AdmittedUrl {
  std::string url;     // normalised
  std::string origin;  // politeness key
  uint32_t depth = 0;
};

struct AdmissionResult {
  std::vector<AdmittedUrl> admitted;
  uint64_t invalid = 0;       // did not parse
  uint64_t out_of_scope = 0;
  uint64_t duplicates = 0;    // already in the visited set
  std::optional<ParentOutcome> parent;  // passed through from the job
};

class LinkAdmitter {
 public:
  LinkAdmitter(const ScopePolicy& scope, VisitedSet& visited, uint32_t threads);
  ~LinkAdmitter();
  LinkAdmitter(const LinkAdmitter&) = delete;
  LinkAdmitter& operator=(const LinkAdmitter&) = delete;

  // Queues a job; blocks only while the job queue is full (back-pressure).
  void Submit(AdmissionJob job);
  NotifyingQueue<AdmissionResult>& results() { return results_; }

  AdmissionResult Admit(const AdmissionJob& job) const;

  // Finishes queued jobs and joins the threads.
  void Stop();

 private:
  void Run();

  const ScopePolicy& scope_;
  VisitedSet& visited_;
  BoundedQueue<AdmissionJob> jobs_;
  NotifyingQueue<AdmissionResult> results_;
  std::vector<std::thread> threads_;
};

}  // namespace zcrawl::frontier
