#include "common/counter_registry.h"

#include <cassert>
#include <cstdio>
#include <utility>

#include "common/metrics_server.h"

namespace zcrawl {
namespace {

bool Shown(const std::function<bool()>& shown) { return !shown || shown(); }

std::string_view TypeName(CounterKind kind) { return kind == CounterKind::kGauge ? "gauge" : "counter"; }

void WriteValue(JsonWriter& json, const CounterValue& value) {
  if (const auto* u = std::get_if<uint64_t>(&value)) {
    json.Uint(*u);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    json.Int(*i);
  } else if (const auto* b = std::get_if<bool>(&value)) {
    json.Bool(*b);
  } else {
    char buf[32];
    snprintf(buf, sizeof buf, "%.17g", std::get<double>(value));
    json.Raw(buf);
  }
}

double AsDouble(const CounterValue& value) {
  return std::visit([](auto v) { return static_cast<double>(v); }, value);
}

// "links.reported" -> "links" (the object) and "reported" (the key in it).
std::pair<std::string_view, std::string_view> SplitKey(std::string_view key) {
  const size_t dot = key.find('.');
  if (dot == std::string_view::npos) return {{}, key};
  return {key.substr(0, dot), key.substr(dot + 1)};
}

}  // namespace

bool CounterRegistry::SummaryKeyFits(std::string_view key) const {
  if (key.empty()) return true;
  const std::string_view object = SplitKey(key).first;
  std::string_view last_object;
  for (const Entry& e : entries_) {
    if (e.counter.summary_key.empty()) continue;
    if (e.counter.summary_key == key) return false;
    last_object = SplitKey(e.counter.summary_key).first;
  }
  if (object.empty() || object == last_object) return true;
  // A new object: none of its keys came before.
  for (const Entry& e : entries_) {
    if (SplitKey(e.counter.summary_key).first == object) return false;
  }
  return true;
}

void CounterRegistry::Add(CounterDefinition definition) {
  assert(definition.read);
  assert(SummaryKeyFits(definition.summary_key));
#ifndef NDEBUG
  for (const Entry& e : entries_) assert(definition.metric.empty() || e.counter.metric != definition.metric);
#endif
  entries_.push_back(Entry{std::move(definition), nullptr});
}

void CounterRegistry::AddSummarySection(std::string key, std::function<void(JsonWriter&)> write,
                                        std::function<bool()> shown) {
  CounterDefinition definition;
  definition.summary_key = std::move(key);
  definition.shown = std::move(shown);
  assert(!definition.summary_key.empty() && SummaryKeyFits(definition.summary_key));
  entries_.push_back(Entry{std::move(definition), std::move(write)});
}

std::string CounterRegistry::SummaryJson() const {
  JsonWriter json;
  json.BeginObject();
  std::string_view open;  // the nested object being written, if any
  for (const Entry& e : entries_) {
    if (e.counter.summary_key.empty() || !Shown(e.counter.shown)) continue;
    const auto [object, key] = SplitKey(e.counter.summary_key);
    if (object != open) {
      if (!open.empty()) json.EndObject();
      if (!object.empty()) json.Key(object).BeginObject();
      open = object;
    }
    json.Key(key);
    if (e.section) {
      e.section(json);
    } else {
      WriteValue(json, e.counter.read());
    }
  }
  if (!open.empty()) json.EndObject();
  json.EndObject();
  return json.str();
}

std::string CounterRegistry::MetricsText() const {
  std::string out;
  for (const Entry& e : entries_) {
    if (e.counter.metric.empty() || !Shown(e.counter.shown)) continue;
    AppendMetric(out, e.counter.metric, TypeName(e.counter.kind), e.counter.help, AsDouble(e.counter.read()));
  }
  return out;
}

void CounterRegistry::FillStatus(v1::StatusReply& reply) const {
  for (const Entry& e : entries_) {
    if (e.counter.status && Shown(e.counter.shown)) e.counter.status(reply, e.counter.read());
  }
}

}  // namespace zcrawl
