#include "frontier/admission/link_admitter.h"

#include <pthread.h>
#include <spdlog/spdlog.h>

#include "frontier/store/url_fingerprint.h"

namespace zcrawl::frontier {

LinkAdmitter::LinkAdmitter(const ScopePolicy& scope, const UrlCanonicalizer& canonical, const KnownUrlCache& known,
                           const SeenSet* seen, uint32_t threads)
    : scope_(scope), canonical_(canonical), known_(known), seen_(seen), jobs_(1024) {
  if (threads == 0) threads = 1;
  for (uint32_t i = 0; i < threads; ++i) threads_.emplace_back([this] {
    pthread_setname_np(pthread_self(), "link-admitter");  // names what top -H and perf show
    Run();
  });
}

LinkAdmitter::~LinkAdmitter() { Stop(); }

void LinkAdmitter::Submit(AdmissionJob job) { jobs_.Push(std::move(job)); }

void LinkAdmitter::Stop() {
  jobs_.Close();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void LinkAdmitter::Run() {
  while (true) {
    auto job = jobs_.PopFor(std::chrono::milliseconds(200));
    if (!job) {
      if (jobs_.closed()) return;
      continue;
    }
    results_.Push(Admit(*job));
  }
}

AdmissionResult LinkAdmitter::Admit(const AdmissionJob& job) const {
  AdmissionResult result;
  result.parent = job.parent;
  // Parsed and in scope, then looked up in the cache all at once.
  struct InScope {
    Url url;
    UrlKey key;
    uint32_t embed_hops;
    const ReportedLink* link;
  };
  std::vector<InScope> in_scope;
  std::vector<uint64_t> fingerprints;
  in_scope.reserve(job.links.size());
  fingerprints.reserve(job.links.size());
  for (const ReportedLink& link : job.links) {
    auto parsed = Url::Parse(link.url);
    if (!parsed.ok()) {
      ++result.invalid;
      spdlog::debug("invalid link url={} error={}", link.url, parsed.status().message());
      continue;
    }
    Url& url = *parsed;
    url.ClearFragment();
    uint32_t embed_hops = 0;
    const std::string_view rejected = link.embed ? scope_.RejectEmbed(url, job.parent_embed_hops, &embed_hops)
                                                 : scope_.Reject(url, job.depth);
    if (!rejected.empty()) {
      ++result.out_of_scope;
      if (rejected == ScopePolicy::kUrlLength) ++result.url_length;
      if (rejected == ScopePolicy::kPathRepeat) ++result.path_repeat;
      if (rejected == ScopePolicy::kQueryParams) ++result.query_params;
      continue;
    }
    bool canonicalized = false;
    const UrlKey key = canonical_.KeyOf(url.href(), &canonicalized);
    result.canonicalized += canonicalized;
    fingerprints.push_back(key.fingerprint);
    in_scope.push_back(InScope{std::move(url), key, embed_hops, &link});
  }
  std::vector<KnownUrlCache::Found> found;
  known_.Lookup(fingerprints, &found);
  std::vector<InScope*> unknown;
  std::vector<UrlKey> unknown_keys;
  for (size_t i = 0; i < in_scope.size(); ++i) {
    InScope& link = in_scope[i];
    if (found[i] != KnownUrlCache::kUnknown) {
      ++result.duplicates;
      ++result.cache_hits;
      if (found[i] == KnownUrlCache::kKnownInOlder) result.refresh.push_back(link.key.fingerprint);
      continue;
    }
    unknown.push_back(&link);
    unknown_keys.push_back(link.key);
  }
  std::vector<bool> stored(unknown.size(), false);
  if (seen_ != nullptr && !unknown.empty()) seen_->LookUpStored(unknown_keys, &stored, &result.not_stored_as_of);
  for (size_t i = 0; i < unknown.size(); ++i) {
    InScope& link = *unknown[i];
    if (stored[i]) {
      ++result.duplicates;
      result.refresh.push_back(link.key.fingerprint);  // a link seen twice is likely seen again
      continue;
    }
    result.candidates.push_back(CandidateUrl{link.url.href(), link.url.origin_key(), job.depth, link.key,
                                             link.link->redirect_hops, link.embed_hops, link.link->embed});
  }
  return result;
}

}  // namespace zcrawl::frontier
