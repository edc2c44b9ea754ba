// The web console (frontier/console/console_server.h): started with
// --console-port, fed a snapshot once a second while someone looks (the
// console's requests never reach the crawl's data: one snapshot serves
// every viewer), and its controls applied as `./run control`'s are.
#include <spdlog/spdlog.h>

#include "common/json_writer.h"
#include "common/status_reply_json.h"
#include "frontier/broker/broker.h"

namespace zcrawl::frontier {

// A snapshot a second; none once no viewer asked for kConsoleIdleMs.
constexpr int64_t kConsolePublishMs = 1000;
constexpr int64_t kConsoleIdleMs = 10000;
// Host rows in a snapshot: the page sorts and filters them itself.
constexpr size_t kConsoleHostRows = 200;

Status Broker::StartConsole() {
  if (options_.console_port == 0) return Status::Ok();
  const std::string token_file = options_.state_dir.empty() ? "" : options_.state_dir + "/console.token";
  auto console = ConsoleServer::Start(options_.console_bind, options_.console_port, token_file, clock_);
  if (!console.ok()) return console.status();
  console_ = std::move(*console);
  // The one place the token is shown: the address with it.
  spdlog::info("console on {}", console_->url(/*with_token=*/true));
  return Status::Ok();
}

void Broker::MaintainConsole(bool controls_waiting) {
  if (!console_) return;
  std::vector<ConsoleControl> controls;
  if (controls_waiting) console_->inbox().Drain(controls);
  for (auto& item : controls) item.answer->set_value(ApplyControl(item.client, item.control));
  const int64_t now = clock_.NowMs();
  if (now - console_published_ms_ < kConsolePublishMs && controls.empty()) return;
  console_published_ms_ = now;
  console_history_.Add({clock_.WallMs(), scheduler_->counts().done, scheduler_->counts().failed, counters_.admitted,
                        counters_.bytes_fetched});
  // The metrics text is small: always fresh for a scraper of /metrics.
  console_->PublishMetrics(registry_.MetricsText());
  // Nobody looked lately: the history goes on, the snapshot waits.
  if (controls.empty() && now - console_->last_request_ms() > kConsoleIdleMs) return;
  v1::StatusReply status;
  FillStatus(status);
  JsonWriter json;
  json.BeginObject().Key("status").Raw(StatusReplyJson(status, options_.bind));
  json.Key("history").Raw(console_history_.Json());
  json.Key("failure_reasons").BeginObject();
  for (const auto& [reason, n] : scheduler_->failure_reasons()) json.Key(reason).Uint(n);
  json.EndObject().Key("hosts").BeginArray();
  const int64_t wall_ms = clock_.WallMs();
  for (const auto& q : scheduler_->TopOrigins(kConsoleHostRows)) {
    json.BeginObject()
        .Key("host").String(q.host())
        .Key("waiting").Uint(q.waiting())
        .Key("in_flight").Uint(q.in_flight())
        .Key("done").Uint(q.done())
        .Key("failed").Uint(q.failed())
        .Key("gap_ms").Uint(q.gap_ms())
        .Key("concurrency").Uint(q.concurrency())
        .Key("pushbacks").Uint(q.pushbacks())
        .Key("backing_off_s").Int(q.backoff_since_ms() == 0 ? 0 : (wall_ms - static_cast<int64_t>(q.backoff_since_ms())) / 1000)
        .Key("override").Bool(controls_.overrides().For(q.host()) != nullptr)
        .Key("blocked").Bool(controls_.blocks().BlocksOrigin(q.host()))
        .Key("last_failure").String(q.last_failure())
        .EndObject();
  }
  json.EndArray().EndObject();
  ++counters_.console_snapshots;
  console_->PublishSnapshot(json.Take());
}

}  // namespace zcrawl::frontier
