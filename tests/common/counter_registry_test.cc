// CounterRegistry: a count defined once is in each export it names, once,
// read at the time of the export; the summary nests dotted keys.
#include "common/counter_registry.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace zcrawl {
namespace {

// Each sample line of a Prometheus text, by metric name: how often it
// appears and its last value; and each name's TYPE.
struct ParsedMetrics {
  std::map<std::string, int> samples;
  std::map<std::string, double> values;
  std::map<std::string, std::string> types;
};

ParsedMetrics ParseMetrics(const std::string& text) {
  ParsedMetrics parsed;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string first, name, type;
    words >> first;
    if (first == "#") {
      words >> type >> name;
      if (type == "TYPE") words >> parsed.types[name];
      continue;
    }
    ++parsed.samples[first];
    words >> parsed.values[first];
  }
  return parsed;
}

TEST(CounterRegistryTest, ACountDefinedOnceIsInAllThreeExportsOnce) {
  CounterRegistry registry;
  uint64_t done = 7;
  registry.Add({.summary_key = "done",
                .metric = "zcrawl_test_done_total",
                .kind = CounterKind::kCounter,
                .help = "URLs done",
                .status = StatusField(&v1::StatusReply::set_done),
                .read = [&] { return CounterValue(done); }});
  done = 9;  // read when exported, not when defined

  const auto summary = nlohmann::json::parse(registry.SummaryJson());
  EXPECT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary["done"].get<uint64_t>(), 9u);

  const ParsedMetrics metrics = ParseMetrics(registry.MetricsText());
  EXPECT_EQ(metrics.samples.size(), 1u);
  EXPECT_EQ(metrics.samples.at("zcrawl_test_done_total"), 1);
  EXPECT_EQ(metrics.values.at("zcrawl_test_done_total"), 9.0);
  EXPECT_EQ(metrics.types.at("zcrawl_test_done_total"), "counter");

  v1::StatusReply reply;
  registry.FillStatus(reply);
  v1::StatusReply expected;
  expected.set_done(9);
  EXPECT_EQ(reply.SerializeAsString(), expected.SerializeAsString()) << "no other field set";
}

TEST(CounterRegistryTest, EachExportHoldsEachOfItsCountsExactlyOnceInDefinitionOrder) {
  CounterRegistry registry;
  registry.Add({.summary_key = "waiting", .metric = "t_waiting", .kind = CounterKind::kGauge, .help = "w",
                .status = StatusField(&v1::StatusReply::set_waiting), .read = [] { return CounterValue(uint64_t{3}); }});
  registry.Add({.summary_key = "", .metric = "t_rate", .kind = CounterKind::kGauge, .help = "r",
                .status = StatusField(&v1::StatusReply::set_pages_per_second),
                .read = [] { return CounterValue(2.5); }});
  registry.Add({.summary_key = "finished", .metric = "", .help = "f",
                .status = StatusField(&v1::StatusReply::set_finished), .read = [] { return CounterValue(true); }});
  registry.Add({.summary_key = "waited_ms", .metric = "t_waited_ms", .help = "m",
                .read = [] { return CounterValue(int64_t{-4}); }});

  EXPECT_EQ(registry.SummaryJson(), R"({"waiting":3,"finished":true,"waited_ms":-4})");
  const ParsedMetrics metrics = ParseMetrics(registry.MetricsText());
  EXPECT_EQ(metrics.samples, (std::map<std::string, int>{{"t_waiting", 1}, {"t_rate", 1}, {"t_waited_ms", 1}}));
  EXPECT_EQ(metrics.types.at("t_waiting"), "gauge");
  EXPECT_EQ(metrics.values.at("t_rate"), 2.5);
  EXPECT_LT(registry.MetricsText().find("t_waiting"), registry.MetricsText().find("t_rate"));

  v1::StatusReply reply;
  registry.FillStatus(reply);
  EXPECT_EQ(reply.waiting(), 3u);
  EXPECT_EQ(reply.pages_per_second(), 2.5);
  EXPECT_TRUE(reply.finished());
}

TEST(CounterRegistryTest, DottedKeysNestAndSectionsKeepTheirPlace) {
  CounterRegistry registry;
  registry.Add({.summary_key = "seen", .read = [] { return CounterValue(uint64_t{1}); }});
  registry.AddSummarySection("reasons", [](JsonWriter& json) { json.BeginObject().Key("dns").Uint(2).EndObject(); });
  registry.Add({.summary_key = "links.reported", .metric = "t_links_total", .read = [] { return CounterValue(uint64_t{5}); }});
  registry.Add({.summary_key = "links.invalid", .read = [] { return CounterValue(uint64_t{6}); }});
  registry.Add({.summary_key = "stalls", .read = [] { return CounterValue(uint64_t{0}); }});
  EXPECT_EQ(registry.SummaryJson(),
            R"({"seen":1,"reasons":{"dns":2},"links":{"reported":5,"invalid":6},"stalls":0})");
  EXPECT_EQ(ParseMetrics(registry.MetricsText()).samples.size(), 1u) << "a section is no metric";
}

TEST(CounterRegistryTest, ACountNotShownIsInNoExport) {
  CounterRegistry registry;
  bool continuous = false;
  registry.Add({.summary_key = "done", .read = [] { return CounterValue(uint64_t{1}); }});
  registry.Add({.summary_key = "refetches.queued", .metric = "t_refetches_total", .help = "q",
                .status = StatusField(&v1::StatusReply::set_leased), .read = [] { return CounterValue(uint64_t{4}); },
                .shown = [&] { return continuous; }});
  EXPECT_EQ(registry.SummaryJson(), R"({"done":1})");
  EXPECT_EQ(registry.MetricsText(), "");
  v1::StatusReply reply;
  registry.FillStatus(reply);
  EXPECT_FALSE(reply.leased());

  continuous = true;
  EXPECT_EQ(registry.SummaryJson(), R"({"done":1,"refetches":{"queued":4}})");
  EXPECT_EQ(ParseMetrics(registry.MetricsText()).samples.at("t_refetches_total"), 1);
  registry.FillStatus(reply);
  EXPECT_EQ(reply.leased(), 4u);
}

}  // namespace
}  // namespace zcrawl
