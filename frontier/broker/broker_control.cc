// The operator's controls of a running crawl (issue 50 point 2; the verbs
// are defined once, in zcrawl.proto's Control): each applied on the broker
// thread, made durable in the frontier's state before it is answered, and
// recorded with its time and its sender in the log and in
// STATE/control.log. Each is idempotent: asked twice, the second changes
// nothing and says so. The state verbs are CrawlControls'
// (frontier/control/crawl_controls.h); add-seeds and stop act here.
#include <algorithm>
#include <fstream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "common/crawl_beacon.h"
#include "common/seed_list.h"
#include "frontier/broker/broker.h"

namespace zcrawl::frontier {

// The store's meta key of the controls in force (a v1::ControlState).
constexpr const char* kControlsMeta = "controls";
// Hosts add-seeds --widen added to the scope, one a line.
constexpr const char* kWidenedMeta = "widened_hosts";
// Where a pause was kept before the other controls existed (read only).
constexpr const char* kPausedMeta = "paused";

namespace {

std::string VerbName(const v1::Control& control) {
  switch (control.verb_case()) {
    case v1::Control::kPause: return "pause";
    case v1::Control::kResume: return "resume";
    case v1::Control::kAddSeeds: return "add-seeds";
    case v1::Control::kBlock: return "block " + DescribeTarget(control.block().target());
    case v1::Control::kUnblock: return "unblock " + DescribeTarget(control.unblock().target());
    case v1::Control::kListBlocks: return "blocks";
    case v1::Control::kPoliteness: return "politeness " + DescribeTarget(control.politeness().target());
    case v1::Control::kThreads: return "threads " + std::to_string(control.threads().threads());
    case v1::Control::kDrain: return "drain";
    case v1::Control::kStop: return "stop";
    case v1::Control::VERB_NOT_SET: break;
  }
  return "(no verb)";
}

}  // namespace

std::string Broker::ApplyControl(const std::string& sender, const v1::Control& control) {
  std::string result;
  bool changes_state = true;
  switch (control.verb_case()) {
    case v1::Control::kAddSeeds:
      result = AddSeeds(control.add_seeds());
      changes_state = false;  // the admitted URLs are staged; Flush below makes them durable
      break;
    case v1::Control::kStop:
      result = "stopping, as on Ctrl-C: the state is saved and the next run resumes";
      stop_requested_ = true;
      changes_state = false;
      break;
    case v1::Control::kListBlocks:
      result = *controls_.Apply(control, clock_.WallMs());
      changes_state = false;
      break;
    default: {
      auto applied = controls_.Apply(control, clock_.WallMs());
      result = applied.ok() ? *applied : "refused: " + applied.status().message();
      changes_state = applied.ok();
      break;
    }
  }
  if (changes_state) {
    StageControls();
    if (control.verb_case() == v1::Control::kThreads) SendThreads(controls_.threads(), "");
    scheduler_->ControlsChanged();
  }
  if (changes_state || control.verb_case() == v1::Control::kAddSeeds) {
    // With the origins' records the admitted URLs and failed ones changed,
    // as a commit writes them (CommitState), so the state is consistent.
    scheduler_->StageDirtyOrigins();
    if (Status s = store_->Flush(); !s.ok()) {
      // Not durable, so not acknowledged as done: the state is as asked in
      // RAM and will be written at the next commit.
      result = "applied but not yet saved (" + s.message() + "): it may not survive a restart; " + result;
    }
  }
  std::string one_line = result;  // the log keeps a control to a line
  std::replace(one_line.begin(), one_line.end(), '\n', ';');
  std::string note = control.note();
  std::replace(note.begin(), note.end(), '\n', ' ');
  const std::string line = FormatUtc(clock_.WallMs()) + " from=" + sender + " " + VerbName(control) +
                           (note.empty() ? "" : " note=\"" + note + "\"") + ": " + one_line;
  spdlog::info("operator control {}", line);
  if (!options_.state_dir.empty()) {
    std::ofstream log(options_.state_dir + "/control.log", std::ios::app);
    log << line << "\n";
  }
  return result;
}

std::string Broker::AddSeeds(const v1::AddSeeds& request) {
  if (controls_.draining()) return "refused: the crawl is draining (it admits no new URLs)";
  if (request.urls().empty()) return "refused: no URLs given";
  std::vector<std::string> refused;
  AdmissionJob job;
  std::vector<std::string> hosts;
  for (int i = 0; i < request.urls_size(); ++i) {
    const std::string& text = request.urls(i);
    const std::string where = i < request.line_numbers_size() ? "line " + std::to_string(request.line_numbers(i))
                                                              : "#" + std::to_string(i + 1);
    if (Status s = CheckSeedUrl(text); !s.ok()) {
      refused.push_back(where + ": " + s.message());
      continue;
    }
    auto url = Url::Parse(text);
    url->ClearFragment();
    if (request.widen()) {
      hosts.emplace_back(url->hostname());
    } else if (std::string_view why = scope_->Reject(*url, 0); !why.empty()) {
      refused.push_back(where + ": " + url->href() + " is out of the crawl's scope (" + std::string(why) +
                        "; --widen adds its host)");
      continue;
    }
    job.links.push_back(url->href());
  }
  if (!hosts.empty()) {
    scope_->AddHosts(hosts);
    std::string kept = store_->GetMeta(kWidenedMeta);
    for (const auto& host : hosts) kept += host + "\n";
    store_->SetMeta(kWidenedMeta, kept);
  }
  const uint64_t admitted_before = counters_.admitted;
  if (!job.links.empty()) {
    AdmissionResult result = admitter_->Admit(job);
    AdmitResult(result);
  }
  const uint64_t admitted = counters_.admitted - admitted_before;
  std::string answer = std::to_string(admitted) + " of " + std::to_string(request.urls_size()) + " URLs admitted";
  if (job.links.size() > admitted) {
    answer += ", " + std::to_string(job.links.size() - admitted) + " already known (or over a limit)";
  }
  if (!hosts.empty()) answer += "; scope widened to their hosts";
  for (const auto& r : refused) answer += "\nrefused " + r;
  return answer;
}

void Broker::SendThreads(uint32_t threads, const std::string& fetcher_id) {
  for (auto& [id, fetcher] : peers_) {
    if (fetcher.role != v1::PEER_ROLE_FETCHER) continue;
    if (!fetcher_id.empty() && fetcher.sender_id != fetcher_id) continue;
    v1::Envelope resize;
    resize.mutable_set_threads()->set_threads(threads);
    Send(fetcher, resize);
    spdlog::info("operator resizes fetcher={} threads={}", fetcher.sender_id, threads);
  }
}

void Broker::StageControls() { store_->SetMeta(kControlsMeta, controls_.State().SerializeAsString()); }

void Broker::RestoreControls() {
  const std::string saved = store_->GetMeta(kControlsMeta);
  v1::ControlState state;
  if (!saved.empty() && !state.ParseFromString(saved)) {
    spdlog::error("the state's controls do not parse: starting without blocks, overrides or a pause");
    state.Clear();
  } else if (saved.empty()) {
    state.set_paused(store_->GetMeta(kPausedMeta) == "1");  // a state from before the other controls
  }
  for (const auto& warning : controls_.Restore(state)) spdlog::warn("{}", warning);
  std::vector<std::string> widened;
  std::istringstream lines(store_->GetMeta(kWidenedMeta));
  for (std::string host; std::getline(lines, host);) {
    if (!host.empty()) widened.push_back(host);
  }
  if (!widened.empty()) scope_->AddHosts(widened);
  if (controls_.paused()) spdlog::warn("this crawl is paused (by an operator, before the restart): ./run control resume");
  if (controls_.draining()) spdlog::warn("this crawl is draining (by an operator, before the restart)");
  if (!controls_.blocks().empty()) spdlog::info("{} blocks in force", controls_.blocks().Rules().size());
}

}  // namespace zcrawl::frontier
