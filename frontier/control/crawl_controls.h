// CrawlControls: the operator's controls in force on a running crawl
// (issue 50; the verbs are defined once, in zcrawl.proto's Control):
// pause, drain, the fetchers' thread count, blocks and politeness
// overrides. Apply() changes them and says what changed, idempotently (a
// verb asked twice changes nothing the second time, and says so); the
// broker saves State() in the frontier's state before it answers, and
// Restore() brings them back after a restart. The verbs that act rather
// than set (add-seeds, stop) are the broker's (broker_control.cc).
// Not thread-safe: the broker thread owns it.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "frontier/control/block_list.h"
#include "frontier/control/pace_overrides.h"
#include "zcrawl.pb.h"

namespace zcrawl::frontier {

class CrawlControls {
 public:
  // Applies a state verb at `wall_ms` (for the rules' since_ms). Returns
  // what changed ("already paused" when nothing did), or an error naming
  // what is wrong with the request; changes nothing then.
  Result<std::string> Apply(const v1::Control& control, int64_t wall_ms);

  bool paused() const { return paused_; }
  bool draining() const { return draining_; }
  uint32_t threads() const { return threads_; }
  BlockList& blocks() { return blocks_; }
  const BlockList& blocks() const { return blocks_; }
  const PaceOverrides& overrides() const { return overrides_; }

  v1::ControlState State() const;
  // Takes back a saved State (rules that no longer parse are dropped, and
  // said so in the returned list of warnings).
  std::vector<std::string> Restore(const v1::ControlState& state);

 private:
  Result<std::string> ApplyPoliteness(const v1::PolitenessOverride& request, const std::string& note,
                                      int64_t wall_ms);

  bool paused_ = false;
  bool draining_ = false;
  uint32_t threads_ = 0;
  BlockList blocks_;
  PaceOverrides overrides_;
};

}  // namespace zcrawl::frontier
