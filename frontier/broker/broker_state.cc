// What the Broker records, split from broker.cc (which routes messages):
// opening or resuming the crawl state, the admission of reported links
// through the seen set and the limits, the final state of each URL, and
// the cadence at which the staged changes are committed. The order rule
// lives here: a parent's final state is staged only after its links are,
// so a crash never keeps the parent done while losing its children.
// Called on the broker thread, like the rest of Broker.
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "frontier/broker/broker.h"
#include "frontier/store/url_fingerprint.h"

namespace zcrawl::frontier {
namespace {

SchedulerOptions ToSchedulerOptions(const FrontierOptions& o) {
  SchedulerOptions s;
  s.politeness = o.politeness;
  s.leases = o.leases;
  s.heads.max_head_bytes = MemoryBudget::ForMb(o.memory_mb).head_bytes;
  s.max_active_origins = MemoryBudget::ForMb(o.memory_mb).active_origins;
  s.recrawl = !o.recrawl_list.empty() || o.continuous;
  s.report_validators = o.continuous;
  return s;
}

}  // namespace

Status Broker::OpenState() {
  UrlStoreOptions store_options;
  store_options.dir = options_.state_dir;
  store_options.fresh = options_.fresh;
  store_options.cache_bytes = budget_.store_bytes;
  store_options.url_key_rules = options_.url_key;
  if (options_.state_dir.empty()) {
    // Memory-only crawl: the same store in a folder of its own, deleted on
    // exit, so RAM stays within --memory-mb either way.
    std::string pattern = (getenv("TMPDIR") ? std::string(getenv("TMPDIR")) : "/tmp") +
                          "/zcrawl-frontier-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      return UnavailableError("cannot make a temporary folder " + pattern + ": " + strerror(errno));
    }
    store_options.dir = pattern;
    store_options.temporary = true;
    spdlog::warn("no --state folder: the crawl is not saved (working files in {})", pattern);
  }
  auto store = UrlStore::Open(store_options);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  state_space_ = std::make_unique<FreeSpaceGuard>(store_options.dir, options_.min_free_mb, clock_);
  seen_ = std::make_unique<SeenSet>(*store_, known_, budget_.filter_bytes, store_->resumed(),
                                    std::strtoull(store_->GetMeta("seen_urls").c_str(), nullptr, 10));
  scheduler_ = std::make_unique<CrawlScheduler>(ToSchedulerOptions(options_), clock_, store_.get());
  scheduler_->UseControls(&controls_.blocks(), &controls_.overrides());
  if (options_.continuous) refetch_ = std::make_unique<RefetchSchedule>(*store_);
  scheduler_->set_final_state_handler(
      [this](const UrlRecord& record, UrlState state, const std::string& reason) {
        RecordFinal(record.url, record.origin, record.seq, state, reason, record.attempts);
        // A continuous crawl looks at it again later (broker_refetch.cc).
        if (refetch_ && state == UrlState::kFailed) {
          const RefetchPlan plan =
              PlanAfterFailure({record.url, record.depth, record.redirect_hops, record.embed_hops});
          refetch_->Schedule(plan.url, plan.due_wall_ms, plan.state);
        }
      });
  if (!store_->resumed()) {
    store_->SetMeta("created_at_ms", std::to_string(clock_.WallMs()));
    std::string seeds;
    for (const auto& seed : options_.seeds) seeds += seed + "\n";
    store_->SetMeta("seeds", seeds);
    return store_->Flush();
  }
  // Resume: the origin records only (one per origin, not per URL); their
  // queues stay on disk until leased.
  Status restored = Status::Ok();
  Status loaded = store_->LoadOrigins([&](StoredOrigin&& origin) {
    if (!restored.ok()) return;
    restored = scheduler_->RestoreOrigin(origin);
    limits_->RestoreOrigin(origin.origin, origin.admitted());
  });
  if (!loaded.ok()) return loaded;
  if (!restored.ok()) return DataLossError(store_->path() + ": " + restored.message());
  // A state from before the origin name index: RestoreOrigin staged every
  // name. What it staged (names, corrected records) is written now, before
  // any read of a parked origin.
  if (!store_->origin_names_indexed()) store_->MarkOriginNamesIndexed();
  if (store_->staged() > 0) {
    if (Status s = store_->Flush(); !s.ok()) return s;
  }
  counters_.admitted = limits_->admitted();
  if (const size_t skipped = scheduler_->tallies().Restore(store_->GetMeta(CrawlTallies::kMetaKey)); skipped > 0) {
    spdlog::warn("the state's tallies had {} lines that do not parse: the summary's causes may count short", skipped);
  }
  RestoreControls();
  const auto& counts = scheduler_->counts();
  if (store_->GetMeta("finished") == "1") {
    already_finished_ = true;
    finished_ = true;
    spdlog::info("this crawl already finished (state in {}): done={} failed={}; use --fresh to start over",
                 options_.state_dir, counts.done, counts.failed);
    return Status::Ok();
  }
  spdlog::info("resuming crawl from {}: done={} failed={} waiting={} origins={}", options_.state_dir,
               counts.done, counts.failed, counts.waiting, scheduler_->origins().known());
  return Status::Ok();
}

void Broker::RecordFinal(const std::string& url, uint32_t origin_index, uint64_t seq,
                         UrlState state, const std::string& reason, uint32_t attempts) {
  // A queued URL that is done needs no seen write: it was stored as
  // admitted, and its queue entry's removal records that it is done
  // (url_store.h). A failure rewrites it with its reason.
  if (state != UrlState::kDone || seq == 0) {
    SeenEntry entry;
    const UrlKey key = store_->KeyOf(url);
    entry.fingerprint = key.fingerprint;
    entry.site = key.site;
    entry.state = state == UrlState::kDone ? SeenState::kDone : SeenState::kFailed;
    entry.attempts = attempts;
    if (entry.state == SeenState::kFailed) {
      entry.reason = reason;
      entry.url = url;
    }
    store_->StageSeen(entry);
  }
  if (seq != 0) store_->StageDequeued(origin_index, seq);
  scheduler_->RecordedFinal(origin_index, state);
}

void Broker::RecordParent(const std::optional<ParentOutcome>& parent) {
  if (parent) {
    RecordFinal(parent->url, parent->origin_index, parent->seq, parent->state, parent->reason,
                parent->attempts);
    // In the same batch as its queue entry's removal (refetch_schedule.h).
    if (parent->refetch && refetch_) {
      refetch_->Schedule(parent->refetch->url, parent->refetch->due_wall_ms, parent->refetch->state);
    }
  }
}

void Broker::MarkSeen(const std::string& url) {
  const UrlKey key = store_->KeyOf(url);
  std::vector<bool> is_new;
  seen_->ClaimNew({key}, &is_new);
  // Fetched already (it was the target of a redirect): known, never queued.
  if (is_new[0]) store_->StageSeen(SeenEntry{key.fingerprint, key.site, SeenState::kDone, 0, {}, {}});
}

void Broker::CommitState(bool force) {
  // Staged changes are written (and the WAL fsynced) every commit interval,
  // or sooner when the batch grows large; until then the store answers from
  // the batch (seen checks; a queue read writes it first). A write every
  // broker turn measured a few % more frontier CPU per page.
  constexpr size_t kMaxStaged = 50000;
  const int64_t now = clock_.NowMs();
  const bool sync = force || now - last_commit_ms_ >= options_.commit_interval_ms;
  if (!sync && store_->staged() < kMaxStaged) return;
  // Below the free-space floor nothing is written (the end's forced commit
  // still tries): RocksDB's log must not meet ENOSPC. The wait ends with
  // the first write that succeeds, not with the floor alone.
  state_space_->Wrote(store_->staged() * 128);  // a change's key, value and log record, about
  if (const std::string& shortage = state_space_->Shortage(); !shortage.empty()) {
    SetSpaceWait(SpaceWait::Source::kState, shortage);
    if (!force) return;
  }
  if (!controls_.blocks().empty()) StageControls();  // the blocks' counts go on after a restart
  scheduler_->StageDirtyOrigins();
  // With the origins' counts, so the causes add up to them after a restart.
  if (scheduler_->tallies().dirty()) store_->SetMeta(CrawlTallies::kMetaKey, scheduler_->tallies().Encode());
  if (sync) {
    last_commit_ms_ = now;
    // Sizes the seen filter of a resumed run (an estimate is enough).
    if (store_->staged() > 0) store_->SetMeta("seen_urls", std::to_string(seen_->size()));
  }
  // Forced (the end, a stop): wait until it is on disk; otherwise the
  // store's writer thread applies it while the broker goes on.
  if (Status s = force ? store_->Flush() : store_->Write(sync); !s.ok()) {
    ++state_write_errors_;
    if (s.code() == StatusCode::kResourceExhausted) {
      // Full: the batch is kept and written again at the next commit;
      // meanwhile no work goes out, so the state stays what the disk holds
      // plus what is staged (SpaceWait says so, once).
      SetSpaceWait(SpaceWait::Source::kState, options_.state_dir + ": " + s.message());
    } else if (now - last_state_error_ms_ >= 5000) {
      last_state_error_ms_ = now;
      spdlog::error("cannot save crawl state (will retry): {}", s.message());
    }
  } else if (sync || force) {
    SetSpaceWait(SpaceWait::Source::kState, "");
  }
}

void Broker::AdmitResult(AdmissionResult& result) {
  counters_.links_invalid += result.invalid;
  counters_.links_out_of_scope += result.out_of_scope;
  counters_.links_url_length += result.url_length;
  counters_.links_path_repeat += result.path_repeat;
  counters_.links_canonicalized += result.canonicalized;
  counters_.links_query_params += result.query_params;
  counters_.links_duplicate += result.duplicates;
  seen_->CountLinkCacheHits(result.cache_hits);
  known_.Insert(result.refresh);  // keeps URLs linked all the time past a rotation
  RefuseControlled(result);
  std::vector<UrlKey> keys;
  keys.reserve(result.candidates.size());
  for (const CandidateUrl& url : result.candidates) keys.push_back(url.key);
  std::vector<bool> is_new;
  seen_->ClaimNew(keys, &is_new, result.not_stored_as_of);
  for (size_t i = 0; i < result.candidates.size(); ++i) {
    CandidateUrl& url = result.candidates[i];
    if (!is_new[i]) {
      ++counters_.links_duplicate;
      continue;
    }
    const auto origin_admitted = [&] { return scheduler_->Admitted(url.origin); };
    if (std::string_view why = limits_->Admit(url.url, url.origin, origin_admitted); !why.empty()) {
      ++counters_.links_over_limit;
      if (why == AdmissionLimits::kQueryVariants) ++counters_.links_query_variants;
      spdlog::debug("over limit url={} reason={}", url.url, why);
      // Seen, so never reconsidered, but not queued.
      store_->StageSeen(SeenEntry{url.key.fingerprint, url.key.site, SeenState::kRefused, 0, {}, {}});
      continue;
    }
    ++counters_.admitted;
    spdlog::debug("admitted url={} depth={}", url.url, url.depth);
    scheduler_->Enqueue(std::move(url.url), url.origin, url.depth, /*attempts=*/0, url.redirect_hops, url.embed_hops,
                        /*soon=*/url.embed);
  }
  RecordParent(result.parent);
}

void Broker::RefuseControlled(AdmissionResult& result) {
  if (controls_.draining()) {
    counters_.links_draining += result.candidates.size();
    result.candidates.clear();
    return;
  }
  if (controls_.blocks().empty()) return;
  std::erase_if(result.candidates, [&](const CandidateUrl& url) {
    if (controls_.blocks().Match(url.url, url.origin) == nullptr) return false;
    ++counters_.links_blocked;
    return true;
  });
}

void Broker::DrainAdmissions() {
  std::vector<AdmissionResult> results;
  admitter_->results().Drain(results);
  for (auto& result : results) {
    AdmitResult(result);
    --pending_admissions_;
  }
}

}  // namespace zcrawl::frontier
