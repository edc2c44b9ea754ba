// The operator's controls of a running crawl (issue 50 point 2; the verbs
// are defined once, in zcrawl.proto's Control): each applied on the broker
// thread, made durable in the frontier's state before it is answered, and
// recorded with its time and its sender in the log and in
// STATE/control.log. Each is idempotent: asked twice, the second changes
// nothing and says so.
#include <fstream>

#include <spdlog/spdlog.h>

#include "common/crawl_beacon.h"
#include "frontier/broker/broker.h"

namespace zcrawl::frontier {

// The store's meta key of a pause: kept with the rest of the state, so a
// paused crawl stays paused across a restart of the frontier.
constexpr const char* kPausedMeta = "paused";

std::string Broker::ApplyControl(Peer& peer, const v1::Control& control) {
  std::string verb;
  std::string result;
  switch (control.verb_case()) {
    case v1::Control::kPause:
      verb = "pause";
      result = paused_ ? "already paused" : "paused: no new leases; what is in flight finishes";
      paused_ = true;
      break;
    case v1::Control::kResume:
      verb = "resume";
      result = paused_ ? "resumed" : "not paused";
      paused_ = false;
      break;
    case v1::Control::VERB_NOT_SET:
      return "refused: no control verb (a newer tool?)";
  }
  store_->SetMeta(kPausedMeta, paused_ ? "1" : "0");
  if (Status s = store_->Flush(); !s.ok()) {
    // Not durable, so not acknowledged as done: the state is as asked in
    // RAM and will be written at the next commit.
    result = "applied but not yet saved (" + s.message() + "): it may not survive a restart";
  }
  const std::string line = FormatUtc(clock_.WallMs()) + " from=" + peer.sender_id + " " + verb +
                           (control.note().empty() ? "" : " note=\"" + control.note() + "\"") + ": " + result;
  spdlog::info("operator control {}", line);
  if (!options_.state_dir.empty()) {
    std::ofstream log(options_.state_dir + "/control.log", std::ios::app);
    log << line << "\n";
  }
  return result;
}

void Broker::RestoreControls() {
  paused_ = store_->GetMeta(kPausedMeta) == "1";
  if (paused_) spdlog::warn("this crawl is paused (by an operator, before the restart): ./run control resume");
}

}  // namespace zcrawl::frontier
