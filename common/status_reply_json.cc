#include "common/status_reply_json.h"

#include <cmath>
#include <cstdio>

#include "common/json_writer.h"

namespace zcrawl {

std::string FormatRate(double rate) {
  if (!std::isfinite(rate) || rate < 0) rate = 0;
  char text[64];
  std::snprintf(text, sizeof text, "%.1f", rate);
  return text;
}

namespace {

// A control's target as the message has it: {"origin": ...}, {"domain": ...}
// or {"url_regex": ...}.
void Target(JsonWriter& json, const v1::Target& target) {
  json.BeginObject();
  if (target.what_case() == v1::Target::kOrigin) json.Key("origin").String(target.origin());
  if (target.what_case() == v1::Target::kDomain) json.Key("domain").String(target.domain());
  if (target.what_case() == v1::Target::kUrlRegex) json.Key("url_regex").String(target.url_regex());
  json.EndObject();
}

}  // namespace

std::string StatusReplyJson(const v1::StatusReply& r, const std::string& endpoint) {
  JsonWriter json;
  json.BeginObject()
      .Key("frontier").String(endpoint)
      .Key("finished").Bool(r.finished())
      .Key("uptime_ms").Uint(r.uptime_ms())
      .Key("counts").BeginObject()
      .Key("waiting").Uint(r.waiting())
      .Key("leased").Uint(r.leased())
      .Key("done").Uint(r.done())
      .Key("failed").Uint(r.failed())
      .Key("seen").Uint(r.seen())
      .EndObject()
      .Key("max_pages").Uint(r.max_pages())
      .Key("pages_per_second").Raw(FormatRate(r.pages_per_second()))
      .Key("hosts").Uint(r.hosts())
      .Key("pages_stored").Uint(r.pages_stored())
      .Key("bytes_stored").Uint(r.bytes_stored())
      .Key("duplicates").Uint(r.duplicates())
      .Key("malformed_messages").Uint(r.malformed_messages())
      .Key("waiting_for_space").String(r.waiting_for_space())
      .Key("paused").Bool(r.paused())
      .Key("draining").Bool(r.draining())
      .Key("blocks").Uint(static_cast<uint64_t>(r.blocks_size()))
      .Key("overrides").Uint(static_cast<uint64_t>(r.overrides_size()))
      .Key("top_hosts").BeginArray();
  for (const auto& host : r.top_hosts()) {
    json.BeginObject()
        .Key("origin").String(host.host())
        .Key("waiting").Uint(host.waiting())
        .Key("in_flight").Uint(host.in_flight())
        .Key("done").Uint(host.done())
        .Key("failed").Uint(host.failed())
        .EndObject();
  }
  json.EndArray().Key("failing_hosts").BeginArray();
  for (const auto& host : r.failing_hosts()) {
    json.BeginObject()
        .Key("origin").String(host.host())
        .Key("done").Uint(host.done())
        .Key("failed").Uint(host.failed())
        .Key("last_failure").String(host.last_failure())
        .EndObject();
  }
  json.EndArray().Key("pushbacks").Uint(r.pushbacks())
      .Key("origins_backing_off").Uint(r.origins_backing_off())
      .Key("held_by_server").Uint(r.held_by_server())
      .Key("slowed_hosts").BeginArray();
  for (const auto& host : r.slowed_hosts()) {
    json.BeginObject()
        .Key("origin").String(host.host())
        .Key("pushbacks").Uint(host.pushbacks())
        .Key("gap_ms").Uint(host.gap_ms())
        .Key("concurrency").Uint(host.concurrency())
        .Key("backoff_since_ms").Uint(host.backoff_since_ms())
        .Key("last_failure").String(host.last_failure())
        .EndObject();
  }
  json.EndArray().Key("addresses_busy").Uint(r.addresses_busy()).Key("addresses").BeginArray();
  for (const auto& a : r.addresses()) {
    json.BeginObject()
        .Key("address").String(a.address())
        .Key("in_flight").Uint(a.in_flight())
        .Key("origins_waiting").Uint(a.origins_waiting())
        .Key("delay_left_ms").Uint(a.delay_left_ms())
        .EndObject();
  }
  json.EndArray().Key("fetchers").BeginArray();
  for (const auto& f : r.fetchers()) {
    json.BeginObject()
        .Key("id").String(f.sender_id())
        .Key("leased").Uint(f.leased())
        .Key("target_workers").Uint(f.load().target_workers())
        .Key("live_workers").Uint(f.load().live_workers())
        .Key("idle_workers").Uint(f.load().idle_workers())
        .Key("transfers").Uint(f.load().transfers())
        .Key("queued").Uint(f.load().queued())
        .Key("in_flight").Uint(f.load().in_flight())
        .Key("last_seen_ms_ago").Uint(f.last_seen_ms_ago())
        .Key("hostname").String(f.hostname())
        .Key("pid").Uint(f.pid())
        .Key("completed").Uint(f.completed())
        .EndObject();
  }
  json.EndArray().Key("block_rules").BeginArray();
  for (const auto& rule : r.blocks()) {
    json.BeginObject().Key("target");
    Target(json, rule.target());
    json.Key("note").String(rule.note()).Key("since_ms").Uint(rule.since_ms()).Key("blocked_urls").Uint(rule.blocked_urls());
    json.EndObject();
  }
  json.EndArray().Key("override_rules").BeginArray();
  for (const auto& rule : r.overrides()) {
    json.BeginObject().Key("target");
    Target(json, rule.target());
    if (rule.has_delay_ms()) json.Key("delay_ms").Uint(rule.delay_ms());
    if (rule.has_per_host()) json.Key("per_host").Uint(rule.per_host());
    json.Key("note").String(rule.note()).Key("since_ms").Uint(rule.since_ms());
    json.EndObject();
  }
  json.EndArray();
  if (r.has_writer()) {
    json.Key("writer").BeginObject()
        .Key("pages_stored").Uint(r.writer().pages_stored())
        .Key("bytes_stored").Uint(r.writer().bytes_stored())
        .Key("duplicates").Uint(r.writer().duplicates())
        .Key("free_disk_bytes").Uint(r.writer().free_disk_bytes())
        .Key("waiting_for_space").String(r.writer().waiting_for_space())
        .Key("last_seen_ms_ago").Uint(r.writer_last_seen_ms_ago())
        .EndObject();
  }
  json.EndObject();
  return json.Take();
}

}  // namespace zcrawl
