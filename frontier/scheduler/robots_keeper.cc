#include "frontier/scheduler/robots_keeper.h"

#include <algorithm>
#include <memory>

#include <spdlog/spdlog.h>

namespace zcrawl::frontier {
namespace {

// A Crawl-delay is obeyed up to this (a longer one would stall the origin
// for the whole crawl).
constexpr int64_t kMaxCrawlDelayMs = 60 * 1000;

}  // namespace

RobotsKeeper::RobotsKeeper(RobotsKeeperOptions options, UrlStore* store, const Clock& clock,
                           OriginMemory& memory, uint64_t run_token)
    : options_(std::move(options)), store_(store), clock_(clock), memory_(memory), run_token_(run_token) {}

void RobotsKeeper::PrepareForLease(HostSlot& slot) {
  if (slot.robots_state != RobotsState::kKnown) return;
  if (clock_.NowMs() - slot.robots_fetched_ms > options_.ttl_ms) {
    slot.robots_state = RobotsState::kNeeded;  // cached rules are too old
    slot.robots_attempts = 0;
    return;
  }
  if (slot.robots || ReadStored(slot, slot.robots_fetched_ms)) return;
  // Not written (a failed commit) or damaged: ask robots.txt again.
  ++reload_misses_;
  spdlog::debug("robots rules of {} not in the store: asking robots.txt again", slot.origin);
  slot.robots_state = RobotsState::kNeeded;
  slot.robots_attempts = 0;
}

RobotsKeeper::Answer RobotsKeeper::Learn(HostSlot& slot, const v1::FetchReport& report,
                                         std::vector<std::string>* sitemaps) {
  const uint32_t http = report.http_status();
  const bool got_response = report.status() == v1::FETCH_STATUS_OK;
  if (report.status() == v1::FETCH_STATUS_PRIVATE_ADDRESS) return Answer::kPrivateAddress;
  if (got_response && http >= 200 && http < 300) {
    memory_.Change(slot, [&] {
      slot.robots = std::make_unique<RobotsRules>(RobotsRules::Parse(report.robots_txt(), options_.agent));
    });
    if (sitemaps) *sitemaps = slot.robots->sitemaps();
  } else if (got_response && http >= 400 && http < 500 && http != 429) {
    // RFC 9309 2.3.1.3: unavailable, allow all.
    memory_.Change(slot, [&] { slot.robots = std::make_unique<RobotsRules>(RobotsRules::AllowAll()); });
  } else {
    // 5xx, 429 or unreachable: RFC 9309 says assume complete disallow for
    // now; the scheduler waits and asks again before deciding.
    return Answer::kUnanswered;
  }
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = clock_.NowMs();
  ApplyCrawlDelay(slot);
  Keep(slot);
  return Answer::kLearned;
}

void RobotsKeeper::GiveUp(HostSlot& slot) {
  memory_.Change(slot, [&] { slot.robots = std::make_unique<RobotsRules>(RobotsRules::DisallowAll()); });
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = clock_.NowMs();
  Keep(slot);
}

bool RobotsKeeper::Allows(const HostSlot& slot, std::string_view url) {
  return !slot.robots || slot.robots->IsAllowed(RobotsTarget(url, scratch_));
}

void RobotsKeeper::Keep(HostSlot& slot) {
  if (!store_ || !slot.robots) return;
  store_->StageRobots(slot.id, run_token_, slot.robots_fetched_ms, slot.robots->Serialize());
  slot.robots_written_at = store_->settled_when_staged_is_written();
}

void RobotsKeeper::MaybeSpill(HostSlot& slot) {
  // Nothing of it in RAM or in flight, and no refill coming: idle, or
  // yielding with its URLs on disk (it parks once the rules are out).
  if (!store_ || !slot.robots || slot.robots_state != RobotsState::kKnown || slot.in_flight > 0 ||
      !slot.waiting.empty() || (slot.backlog > 0 && !slot.yielding)) {
    return;
  }
  if (store_->settled_batches() < slot.robots_written_at) {
    spill_candidates_.push_back(slot.id);
    return;
  }
  memory_.Change(slot, [&] { slot.robots.reset(); });
  ++spilled_;
}

std::vector<uint32_t> RobotsKeeper::TakeSpillCandidates() {
  std::vector<uint32_t> candidates;
  candidates.swap(spill_candidates_);
  return candidates;
}

bool RobotsKeeper::ReadStored(HostSlot& slot, std::optional<int64_t> learned_ms) {
  uint64_t run = 0;
  int64_t fetched_ms = 0;
  std::string bytes;
  if (!store_ || !store_->GetRobots(slot.id, &run, &fetched_ms, &bytes) || run != run_token_ ||
      (learned_ms && fetched_ms != *learned_ms)) {
    return false;
  }
  auto rules = RobotsRules::Deserialize(bytes);
  if (!rules.ok()) return false;
  memory_.Change(slot, [&] { slot.robots = std::make_unique<RobotsRules>(std::move(*rules)); });
  slot.robots_state = RobotsState::kKnown;
  slot.robots_fetched_ms = fetched_ms;
  slot.robots_written_at = 0;  // read from the store: it holds them
  ApplyCrawlDelay(slot);
  ++reloaded_;
  return true;
}

void RobotsKeeper::ApplyCrawlDelay(HostSlot& slot) {
  if (auto delay = slot.robots->crawl_delay_seconds()) {
    const auto delay_ms = std::min<int64_t>(static_cast<int64_t>(*delay * 1000), kMaxCrawlDelayMs);
    slot.delay_ms = std::max(slot.delay_ms, delay_ms);
  }
}

}  // namespace zcrawl::frontier
