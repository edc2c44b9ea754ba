// CounterRegistry: every count a process reports, each defined once (its
// summary key, metric name and status field, its help text, whether it is a
// counter or a gauge, and how to read it), and the three exports that read
// the definitions: the JSON summary (--summary-file), the Prometheus text
// (--metrics-port) and the StatusReply (`./run status`). A definition that
// names all three exports is in all three; an empty name (or no status
// field) leaves it out of that one. Each export lists the definitions in the
// order they were added, each once (Add refuses a name used before).
//
// The summary may also hold a few structured values that are not counts
// (tables of origins, counts by reason): AddSummarySection places one in the
// summary's order. A dotted summary key ("links.reported") nests the value
// in an object ("links"); definitions of one object are added one after the
// other.
//
// Not thread-safe: owned by a node's loop thread, which defines the counts
// at start-up and calls the exports; the readers run on that thread and read
// the node's data without locks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/json_writer.h"
#include "zcrawl.pb.h"

namespace zcrawl {

enum class CounterKind {
  kCounter,  // only grows (Prometheus "counter"; names end in _total)
  kGauge,    // goes up and down
};

// A count's value as read now. Its type chooses the summary's JSON form.
using CounterValue = std::variant<uint64_t, int64_t, double, bool>;

// Sets one StatusReply field from a value (StatusField makes one).
using StatusSetter = std::function<void(v1::StatusReply&, const CounterValue&)>;

// Every field has a default, so a definition names only what it uses
// (designated initializers).
struct CounterDefinition {
  std::string summary_key = {};  // "" = not in the summary
  std::string metric = {};       // "" = not a metric
  CounterKind kind = CounterKind::kCounter;
  std::string help = {};         // the metric's HELP line
  StatusSetter status = nullptr;  // null = not in the status reply
  std::function<CounterValue()> read = nullptr;
  // Null = always. When false, left out of every export (a part the
  // process does not run, a figure not measured yet).
  std::function<bool()> shown = nullptr;
};

// The setter of a StatusReply field, e.g. StatusField(&v1::StatusReply::set_done).
template <typename Field>
StatusSetter StatusField(void (v1::StatusReply::*set)(Field)) {
  return [set](v1::StatusReply& reply, const CounterValue& value) {
    (reply.*set)(std::visit([](auto v) { return static_cast<Field>(v); }, value));
  };
}

class CounterRegistry {
 public:
  CounterRegistry() = default;
  CounterRegistry(const CounterRegistry&) = delete;
  CounterRegistry& operator=(const CounterRegistry&) = delete;

  // Defines a count. A summary key or metric name used before is a
  // programming error (asserted): each count has one definition.
  void Add(CounterDefinition definition);
  // A summary value that is not a count: `write` emits the value of `key`.
  void AddSummarySection(std::string key, std::function<void(JsonWriter&)> write,
                         std::function<bool()> shown = nullptr);

  // The summary as one JSON object.
  std::string SummaryJson() const;
  // The Prometheus text exposition of the metrics.
  std::string MetricsText() const;
  // Sets the status reply's fields of the counts that have one.
  void FillStatus(v1::StatusReply& reply) const;

  size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    CounterDefinition counter;
    std::function<void(JsonWriter&)> section;  // set for a summary section
  };

  // Whether `key` is new, and, if nested, its object is the last one
  // written or a new one (so each object is written once).
  bool SummaryKeyFits(std::string_view key) const;

  std::vector<Entry> entries_;
};

}  // namespace zcrawl
