#include "frontier/link_admitter.h"

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {

LinkAdmitter::LinkAdmitter(const ScopePolicy& scope, VisitedSet& visited, uint32_t threads)
    : scope_(scope), visited_(visited), jobs_(1024) {
  if (threads == 0) threads = 1;
  for (uint32_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
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
  for (const std::string& link : job.links) {
    auto parsed = Url::Parse(link);
    if (!parsed.ok()) {
      ++result.invalid;
      spdlog::debug("invalid link url={} error={}", link, parsed.status().message());
      continue;
    }
    Url& url = *parsed;
    url.ClearFragment();
    if (!scope_.Reject(url, job.depth).empty()) {
      ++result.out_of_scope;
      continue;
    }
    if (!visited_.InsertIfNew(url.href())) {
      ++result.duplicates;
      continue;
    }
    result.admitted.push_back(AdmittedUrl{url.href(), url.origin_key(), job.depth});
  }
  return result;
}

}  // namespace zcrawl::frontier
