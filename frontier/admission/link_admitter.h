// LinkAdmitter: the frontier's link threads. The broker hands them the links
// of each fetch report; they parse and normalise each link (WHATWG URL rules,
// fragment dropped), apply the ScopePolicy, key it (the UrlCanonicalizer's
// key: session ids left out), and drop the ones
// the shared KnownUrlCache knows, then those the store holds (SeenSet::
// LookUpStored, one batched multi-get per report). The rest are
// candidates: the broker's SeenSet decides exactly which are new (one
// thread decides, so two reports of one new URL can never both admit it).
// Results go back to the broker through a NotifyingQueue it polls next to
// its socket.
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
#include "frontier/admission/scope_policy.h"
#include "frontier/store/url_canonicalizer.h"
#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_record.h"
#include "frontier/seen/known_url_cache.h"
#include "frontier/scheduler/refetch_schedule.h"
#include "frontier/seen/seen_set.h"

namespace zcrawl::frontier {

// The final state of the page whose links a job carries. The broker records
// it durably only after the links are admitted, so a crash never keeps the
// parent final while losing its children.
struct ParentOutcome {
  std::string url;
  uint32_t origin_index = 0;  // its slot and queue entry
  uint64_t seq = 0;
  UrlState state = UrlState::kDone;
  std::string reason;
  uint32_t attempts = 0;
  // A continuous crawl's next fetch of it, scheduled with its final state.
  std::optional<RefetchPlan> refetch;
};

// A link as reported (absolute, untrusted). A redirect's target carries the
// redirects taken to reach it (v1::Link.redirect_hops), kept with its URL.
struct ReportedLink {
  // Implicit: a plain link (a string) converts.
  ReportedLink(std::string u, uint32_t hops = 0, bool is_embed = false)  // NOLINT
      : url(std::move(u)), redirect_hops(hops), embed(is_embed) {}
  ReportedLink(const char* u) : url(u) {}  // NOLINT
  std::string url;
  uint32_t redirect_hops = 0;
  bool embed = false;  // a page requisite (v1::Link.embed)
};

struct AdmissionJob {
  uint32_t depth = 0;              // depth the links get
  uint32_t parent_embed_hops = 0;  // the reporting URL's (UrlRecord::embed_hops)
  std::vector<ReportedLink> links;
  std::optional<ParentOutcome> parent;
};

struct CandidateUrl {
  std::string url;     // normalised
  std::string origin;  // politeness key
  uint32_t depth = 0;
  UrlKey key;  // UrlCanonicalizer::KeyOf(url)
  uint32_t redirect_hops = 0;
  uint32_t embed_hops = 0;  // ScopePolicy::RejectEmbed
  bool embed = false;       // a requisite: queued soon (CrawlScheduler::Enqueue)
};

struct AdmissionResult {
  std::vector<CandidateUrl> candidates;  // in scope, not in the cache
  uint64_t invalid = 0;       // did not parse
  uint64_t out_of_scope = 0;
  // Of out_of_scope, the trap guards' refusals by reason (ScopePolicy).
  uint64_t url_length = 0;
  uint64_t path_repeat = 0;
  uint64_t query_params = 0;
  // In scope, keyed by a canonical form other than their text (session
  // ids removed: UrlCanonicalizer), new or not.
  uint64_t canonicalized = 0;
  uint64_t duplicates = 0;    // known to the KnownUrlCache or the store
  uint64_t cache_hits = 0;    // of duplicates, those the cache knew
  // Duplicates to put in the cache again: found in its older generation,
  // or in the store.
  std::vector<uint64_t> refresh;
  // No candidate is stored, as of this count of settled batches
  // (SeenSet::ClaimNew); kNotLookedUp without a SeenSet.
  uint64_t not_stored_as_of = SeenSet::kNotLookedUp;
  std::optional<ParentOutcome> parent;  // passed through from the job
};

class LinkAdmitter {
 public:
  // `seen` (may be null: candidates are then only what the cache does not
  // know) and `canonical` (the store's: UrlStore::canonicalizer) must
  // outlive the admitter.
  LinkAdmitter(const ScopePolicy& scope, const UrlCanonicalizer& canonical, const KnownUrlCache& known,
               const SeenSet* seen, uint32_t threads);
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
  const UrlCanonicalizer& canonical_;
  const KnownUrlCache& known_;
  const SeenSet* seen_;
  BoundedQueue<AdmissionJob> jobs_;
  NotifyingQueue<AdmissionResult> results_;
  std::vector<std::thread> threads_;
};

}  // namespace zcrawl::frontier
