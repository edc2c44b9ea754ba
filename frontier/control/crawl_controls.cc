#include "frontier/control/crawl_controls.h"

namespace zcrawl::frontier {
namespace {

// Beyond this a thread count is a typo: the fetcher's own cap is lower.
constexpr uint32_t kMaxThreads = 4096;

std::string PaceText(const v1::PolitenessRule& rule) {
  std::string text;
  if (rule.has_delay_ms()) text += " delay " + std::to_string(rule.delay_ms()) + " ms";
  if (rule.has_per_host()) text += std::string(text.empty() ? "" : ",") + " " + std::to_string(rule.per_host()) + " at once";
  return text;
}

}  // namespace

Result<std::string> CrawlControls::Apply(const v1::Control& control, int64_t wall_ms) {
  switch (control.verb_case()) {
    case v1::Control::kPause: {
      const bool was = paused_;
      paused_ = true;
      return std::string(was ? "already paused" : "paused: no new leases; what is in flight finishes");
    }
    case v1::Control::kResume: {
      const bool was = paused_;
      paused_ = false;
      return std::string(was ? "resumed" : "not paused");
    }
    case v1::Control::kDrain: {
      const bool was = draining_;
      draining_ = true;
      return std::string(was ? "already draining"
                             : "draining: no new URLs are admitted; the crawl ends when what is known is done");
    }
    case v1::Control::kThreads: {
      const uint32_t n = control.threads().threads();
      if (n == 0 || n > kMaxThreads) {
        return InvalidArgumentError("threads must be 1.." + std::to_string(kMaxThreads) + ", not " + std::to_string(n));
      }
      const uint32_t was = threads_;
      threads_ = n;
      return was == n ? "fetchers already asked for " + std::to_string(n) + " threads"
                      : "fetchers asked for " + std::to_string(n) + " threads each";
    }
    case v1::Control::kBlock: {
      v1::BlockRule rule;
      *rule.mutable_target() = control.block().target();
      rule.set_note(control.note());
      rule.set_since_ms(static_cast<uint64_t>(wall_ms));
      auto added = blocks_.Add(std::move(rule));
      if (!added.ok()) return added.status();
      const std::string what = DescribeTarget(*NormaliseTarget(control.block().target(), true));
      return *added ? "blocked " + what + ": its queued URLs end as blocked, new links to it are refused"
                    : what + " was already blocked";
    }
    case v1::Control::kUnblock: {
      auto target = NormaliseTarget(control.unblock().target(), /*allow_regex=*/true);
      if (!target.ok()) return target.status();
      return blocks_.Remove(*target) ? "unblocked " + DescribeTarget(*target) + " (URLs it failed stay failed)"
                                     : DescribeTarget(*target) + " was not blocked";
    }
    case v1::Control::kListBlocks:
      return std::to_string(blocks_.Rules().size()) + " blocks, " + std::to_string(overrides_.Rules().size()) +
             " politeness overrides";
    case v1::Control::kPoliteness:
      return ApplyPoliteness(control.politeness(), control.note(), wall_ms);
    case v1::Control::kAddSeeds:
    case v1::Control::kStop:
      return InvalidArgumentError("not a state verb (the broker's)");
    case v1::Control::VERB_NOT_SET:
      break;
  }
  return InvalidArgumentError("no control verb (a newer tool?)");
}

Result<std::string> CrawlControls::ApplyPoliteness(const v1::PolitenessOverride& request, const std::string& note,
                                                   int64_t wall_ms) {
  auto target = NormaliseTarget(request.target(), /*allow_regex=*/false);
  if (!target.ok()) return target.status();
  const std::string what = DescribeTarget(*target);
  if (request.clear()) {
    return overrides_.Clear(*target) ? "override of " + what + " cleared: back to the crawl's settings"
                                     : what + " had no override";
  }
  v1::PolitenessRule rule;
  *rule.mutable_target() = *target;
  if (request.has_delay_ms()) rule.set_delay_ms(request.delay_ms());
  if (request.has_per_host()) rule.set_per_host(request.per_host());
  rule.set_note(note);
  rule.set_since_ms(static_cast<uint64_t>(wall_ms));
  if (const v1::PolitenessRule* old = overrides_.Of(*target); old != nullptr && PaceText(*old) == PaceText(rule)) {
    return what + " already has" + PaceText(rule);
  }
  if (Status s = overrides_.Set(rule); !s.ok()) return s;
  return what + ":" + PaceText(rule) + " (overrides --delay-ms, Crawl-delay and --per-host)";
}

v1::ControlState CrawlControls::State() const {
  v1::ControlState state;
  state.set_paused(paused_);
  state.set_draining(draining_);
  state.set_threads(threads_);
  for (auto& rule : blocks_.Rules()) *state.add_blocks() = std::move(rule);
  for (auto& rule : overrides_.Rules()) *state.add_overrides() = std::move(rule);
  return state;
}

std::vector<std::string> CrawlControls::Restore(const v1::ControlState& state) {
  std::vector<std::string> warnings;
  paused_ = state.paused();
  draining_ = state.draining();
  threads_ = state.threads();
  for (const auto& rule : state.blocks()) {
    if (auto added = blocks_.Add(rule); !added.ok()) warnings.push_back("block dropped: " + added.status().message());
  }
  for (const auto& rule : state.overrides()) {
    if (Status s = overrides_.Set(rule); !s.ok()) warnings.push_back("override dropped: " + s.message());
  }
  return warnings;
}

}  // namespace zcrawl::frontier
