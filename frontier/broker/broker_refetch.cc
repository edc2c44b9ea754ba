// The Broker's continuous crawl (frontier_options.h continuous): each URL
// a fetch finished (done, or failed) is planned its next fetch from its
// report (RefetchPolicy; a failed one after the longest interval), scheduled
// with its final state (RecordParent), and put back in its origin's queue
// when due, where politeness and robots.txt rule it as any URL; the scope
// is judged again then (a restart may have narrowed it).
#include <spdlog/spdlog.h>

#include <climits>

#include "frontier/broker/broker.h"
#include "frontier/scheduler/refetch_policy.h"

namespace zcrawl::frontier {
namespace {

// The schedule is read at most this often: a scan writes what is staged
// first (one fsync), and a refetch a second late matters to nobody.
constexpr int64_t kRefetchScanIntervalMs = 1000;
constexpr size_t kRefetchesPerScan = 10000;

}  // namespace

std::optional<RefetchPlan> Broker::PlanRefetch(const Completion& completion, const v1::FetchReport& report) {
  if (!refetch_ || completion.final_state == UrlState::kWaiting) return std::nullopt;
  v1::Validators previous;
  std::string stored;
  const bool known = store_->GetValidators(store_->KeyOf(completion.url), &stored) && previous.ParseFromString(stored);
  const ScheduledUrl url{completion.url, completion.depth, completion.redirect_hops, completion.embed_hops};
  if (completion.final_state == UrlState::kFailed || report.status() != v1::FETCH_STATUS_OK) {
    return PlanAfterFailure(url);
  }
  RefetchPlan plan;
  plan.url = url;
  const bool changed = RefetchPolicy::Changed(known ? &previous : nullptr, report);
  ++(changed ? counters_.refetches_changed : counters_.refetches_unchanged);
  const RefetchPolicy policy{options_.refetch_min_s * 1000, options_.refetch_max_s * 1000};
  plan.state = report.captured();
  // A 304 may omit what the earlier capture had (RFC 9110 15.4.5 asks
  // only for what a 200 would send); keep those.
  if (report.http_status() == 304 && known) {
    if (plan.state.etag().empty()) plan.state.set_etag(previous.etag());
    if (plan.state.last_modified().empty()) plan.state.set_last_modified(previous.last_modified());
    if (plan.state.body_hash() == 0) plan.state.set_body_hash(previous.body_hash());
    if (plan.state.body_bytes() == 0) plan.state.set_body_bytes(previous.body_bytes());
  }
  plan.state.set_refetch_interval_ms(policy.NextIntervalMs(known ? &previous : nullptr, changed));
  plan.due_wall_ms = clock_.WallMs() + plan.state.refetch_interval_ms();
  return plan;
}

RefetchPlan Broker::PlanAfterFailure(const ScheduledUrl& url) {
  // Gone (404, 410), refused, unreachable after the retries, or its site's
  // robots.txt unanswered: looked at again after the longest interval, as
  // Nutch does, with what revalidated its last capture; a page that comes
  // back rejoins the adaptive schedule.
  ++counters_.refetches_failed;
  RefetchPlan plan;
  plan.url = url;
  std::string stored;
  if (store_->GetValidators(store_->KeyOf(url.url), &stored) && !plan.state.ParseFromString(stored)) plan.state.Clear();
  plan.state.set_refetch_interval_ms(options_.refetch_max_s * 1000);
  plan.due_wall_ms = clock_.WallMs() + plan.state.refetch_interval_ms();
  return plan;
}

void Broker::QueueDueRefetches() {
  if (!refetch_ || space_wait_.waiting()) return;
  const int64_t now = clock_.NowMs();
  if (clock_.WallMs() < refetch_->next_due_wall_ms() || now - last_refetch_scan_ms_ < kRefetchScanIntervalMs) return;
  last_refetch_scan_ms_ = now;
  std::vector<ScheduledUrl> due;
  // TakeDue writes what is staged: with the origin records it changed, as
  // every commit does (a queue entry on disk past its origin's next seq
  // would be overwritten after a crash).
  scheduler_->StageDirtyOrigins();
  if (Status s = refetch_->TakeDue(clock_.WallMs(), kRefetchesPerScan, &due); !s.ok()) {
    ++counters_.refetch_errors;
    spdlog::error("cannot read the refetch schedule (will retry): {}", s.message());
    return;
  }
  for (ScheduledUrl& url : due) {
    auto parsed = Url::Parse(url.url);
    uint32_t embed_hops = 0;
    // Depth is not judged again: it bounds how far links lead, not how
    // often a page already in the crawl is looked at.
    const std::string_view rejected =
        !parsed.ok() ? std::string_view("invalid")
        : url.embed_hops > 0 ? scope_->RejectEmbed(*parsed, url.embed_hops - 1, &embed_hops)
                             : scope_->Reject(*parsed, 0);
    if (!rejected.empty()) {
      ++counters_.refetches_out_of_scope;
      spdlog::debug("refetch dropped url={} reason={}", url.url, rejected);
      continue;
    }
    ++counters_.refetches_queued;
    // Admitted again: a URL recorded failed before is not failed while it
    // waits, and done once its queue entry goes (url_store.h).
    const UrlKey key = store_->KeyOf(url.url);
    store_->StageSeen(SeenEntry{key.fingerprint, key.site, SeenState::kAdmitted, 0, {}, {}});
    scheduler_->EnqueueRefetch(std::move(url.url), parsed->origin_key(), url.depth, url.redirect_hops,
                               url.embed_hops);
  }
  if (!due.empty()) spdlog::debug("refetches queued: {}", due.size());
}

int64_t Broker::NextRefetchMs() const {
  if (!refetch_) return INT64_MAX;
  const int64_t due = refetch_->next_due_wall_ms();
  if (due == INT64_MAX) return INT64_MAX;
  const int64_t now = clock_.NowMs();
  return std::max(now + (due - clock_.WallMs()), last_refetch_scan_ms_ + kRefetchScanIntervalMs);
}

}  // namespace zcrawl::frontier
