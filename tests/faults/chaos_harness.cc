#include "tests/faults/chaos_harness.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "frontier/store/url_fingerprint.h"
#include "tests/faults/fault_support.h"
#include "tests/support/crawl_output.h"
#include "tests/support/frontier_state.h"
#include "tests/support/generated_site.h"
#include "tests/support/test_http_server.h"
#include "tests/support/test_process.h"
#include "tests/support/warc_checker.h"

namespace zcrawl::testing {
namespace {

const char* const kKinds[] = {"frontier", "writer", "fetcher"};

std::string CommOf(const std::string& kind) { return "zcrawl-" + kind; }

int EnvInt(const char* name, int fallback) {
  const char* value = std::getenv(name);
  if (!value || !*value) return fallback;
  return std::atoi(value);
}

// The kinds to kill, in order: each kind once, the rest random among
// `extra`, shuffled.
std::vector<std::string> KillKinds(int kills, const std::vector<std::string>& extra, std::mt19937& random) {
  std::vector<std::string> kinds(std::begin(kKinds), std::end(kKinds));
  while (static_cast<int>(kinds.size()) < kills) kinds.push_back(extra[random() % extra.size()]);
  kinds.resize(static_cast<size_t>(std::max(kills, 0)));
  std::shuffle(kinds.begin(), kinds.end(), random);
  return kinds;
}

// When to kill, as a share of the expected pages requested: one moment in
// each of `kills` equal slots of [3%, 85%], so kills spread over the crawl
// and each one lands after some progress since the one before.
std::vector<double> KillMoments(int kills, std::mt19937& random) {
  std::uniform_real_distribution<double> within(0.1, 0.9);
  std::vector<double> moments;
  const double slot = 0.82 / std::max(kills, 1);
  for (int i = 0; i < kills; ++i) moments.push_back(0.03 + slot * (i + within(random)));
  return moments;
}

std::string Tail(const std::string& text, size_t bytes) {
  return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

}  // namespace

std::string ChaosReport::Figures() const {
  std::ostringstream out;
  out << "expected_pages=" << expected_pages << " kills=" << kills.size() << " (";
  for (const char* kind : kKinds) {
    auto it = kills_by_kind.find(kind);
    out << kind << "=" << (it == kills_by_kind.end() ? 0 : it->second)
        << (std::string(kind) == "fetcher" ? "" : " ");
  }
  out << ") duration_s=" << duration_ms / 1000.0 << " exit=" << exit_code
      << " stored=" << stored_urls << " missing=" << missing << " duplicates=" << duplicates
      << " server_requests=" << server_requests << " distinct_paths=" << distinct_paths
      << " refetches=" << refetches() << " db_states={";
  for (const auto& [state, n] : db_states) out << state << ":" << n << " ";
  out << "}";
  if (warc) {
    out << " warc_missing=" << warc_missing << " warc_duplicates=" << warc_duplicates
        << " warc_file_captures=" << warc_file_captures << " warc_file_duplicates=" << warc_file_duplicates;
  }
  return out.str();
}

ChaosOptions ChaosOptionsFromEnv(ChaosOptions defaults) {
  defaults.pages = EnvInt("ZCRAWL_CHAOS_PAGES", defaults.pages);
  defaults.kills = EnvInt("ZCRAWL_CHAOS_KILLS", defaults.kills);
  defaults.seed = static_cast<uint32_t>(EnvInt("ZCRAWL_CHAOS_SEED", static_cast<int>(defaults.seed)));
  defaults.delay_ms = EnvInt("ZCRAWL_CHAOS_DELAY_MS", defaults.delay_ms);
  if (const char* kinds = std::getenv("ZCRAWL_CHAOS_KINDS"); kinds != nullptr && *kinds != '\0') {
    defaults.kinds.clear();
    std::istringstream list(kinds);
    for (std::string kind; std::getline(list, kind, ',');) {
      if (std::find(std::begin(kKinds), std::end(kKinds), kind) != std::end(kKinds)) defaults.kinds.push_back(kind);
    }
    if (defaults.kinds.empty()) defaults.kinds.assign(std::begin(kKinds), std::end(kKinds));
  }
  if (const char* format = std::getenv("ZCRAWL_CHAOS_FORMAT"); format != nullptr && *format != '\0') {
    defaults.format = format;
  }
  return defaults;
}

ChaosReport ChaosCrawl::Run() {
  ChaosReport report;
  const std::string dir = MakeTempDir("chaos");
  report.out_dir = dir + "/out";
  report.log_path = dir + "/crawl.log";

  TestHttpServer foreign("127.0.0.2", [](const TestRequest&) { return TestResponse{}; });
  foreign.Start();
  std::unique_ptr<GeneratedSite> site;
  TestHttpServer server("127.0.0.1", [&site](const TestRequest& r) { return site->Serve(r); });
  server.Start();
  site = std::make_unique<GeneratedSite>(options_.pages, server.origin(), foreign.origin());
  const std::set<std::string> ok = site->ExpectedOk();
  const std::set<std::string> not_found = site->ExpectedNotFound();
  report.expected_pages = ok.size() + not_found.size();

  std::mt19937 random(options_.seed);
  const std::vector<std::string> kinds = KillKinds(options_.kills, options_.kinds, random);
  const std::vector<double> moments = KillMoments(options_.kills, random);

  TestProcess crawl;
  crawl.Start({SourceDir() + "/run", "crawl", server.origin() + "/", "--out", report.out_dir,
               "--fetchers", std::to_string(options_.fetchers), "--threads",
               std::to_string(options_.threads), "--delay-ms", std::to_string(options_.delay_ms),
               "--per-host", std::to_string(options_.per_host), "--format", options_.format,
               "--log-level", "info"},
              report.log_path, {"ZCRAWL_NO_BUILD=1", "ZCRAWL_BIN_DIR=" + BinDir()});
  const int64_t started = SteadyNowMs();
  const int64_t deadline = started + options_.timeout_ms;
  auto distinct_paths = [&server] { return static_cast<uint64_t>(server.request_counts().size()); };

  std::set<pid_t> killed;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const std::string& kind = kinds[i];
    const auto threshold = static_cast<uint64_t>(moments[i] * static_cast<double>(report.expected_pages));
    // Progress first, then a live victim of the chosen kind (restarted
    // after an earlier kill), then a random extra moment.
    pid_t victim = 0;
    while (crawl.running() && SteadyNowMs() < deadline) {
      if (distinct_paths() >= threshold) {
        std::vector<pid_t> pids;
        for (pid_t pid : ChildPids(crawl.pid(), CommOf(kind))) {
          if (!killed.count(pid)) pids.push_back(pid);
        }
        const size_t want = kind == "fetcher" ? static_cast<size_t>(options_.fetchers) : 1;
        if (pids.size() >= want) {
          victim = pids[random() % pids.size()];
          break;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (victim == 0) break;  // the crawl ended (or timed out) first
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 200));
    if (!crawl.running()) break;
    ChaosKill kill{kind, victim, SteadyNowMs() - started, distinct_paths()};
    if (::kill(victim, SIGKILL) != 0) break;
    killed.insert(victim);
    report.kills.push_back(kill);
    ++report.kills_by_kind[kind];
  }

  const int64_t left = std::max<int64_t>(deadline - SteadyNowMs(), 1000);
  report.exit_code = crawl.Wait(static_cast<int>(left)).value_or(-1);
  report.duration_ms = SteadyNowMs() - started;
  if (report.exit_code == -1) {
    crawl.Signal(SIGTERM);
    if (!crawl.Wait(20000)) crawl.Signal(SIGKILL);
    crawl.Wait(5000);
  }

  report.server_requests = server.total_requests();
  const auto counts = server.request_counts();
  report.distinct_paths = counts.size();
  for (const auto& [target, n] : counts) {
    if (site->IsForbiddenPath(target)) report.forbidden_requests += n;
  }
  report.forbidden_requests += foreign.total_requests();

  const auto index = ReadIndex(report.out_dir);
  report.stored_urls = index.size();
  for (const auto& [url, entries] : index) {
    report.duplicates += entries.size() - 1;
    if (!ok.count(url) && !not_found.count(url)) ++report.unexpected;
  }
  for (const auto* expected : {&ok, &not_found}) {
    for (const auto& url : *expected) {
      if (!index.count(url)) ++report.missing;
    }
  }
  report.warc = options_.format.find("warc") != std::string::npos;
  if (report.warc) {
    const auto warc_index = ReadIndex(report.out_dir, "zcrawl-index.jsonl");
    for (const auto& [url, entries] : warc_index) report.warc_duplicates += entries.size() - 1;
    const WarcCheckResult counted = CountWarcCaptures(report.out_dir);
    if (counted.exit_code != 0) {
      report.warc_file_error = counted.summary.dump();
    } else {
      report.warc_file_captures = counted.summary["captures"].get<uint64_t>();
      for (const auto& uri : counted.summary["duplicated"]) {
        report.warc_file_duplicates += uri["count"].get<uint64_t>() - 1;
      }
    }
    for (const auto* expected : {&ok, &not_found}) {
      for (const auto& url : *expected) {
        if (!warc_index.count(url)) ++report.warc_missing;
      }
    }
  }

  std::map<uint64_t, int> states;
  report.db_error = ReadUrlStates(report.out_dir + "/.zcrawl", &states);
  for (const auto& [fingerprint, state] : states) ++report.db_states[state];
  for (const auto& url : ok) {
    auto it = states.find(zcrawl::frontier::UrlFingerprint(url));
    if (it == states.end() || it->second != 2) ++report.db_ok_not_done;
  }
  return report;
}

void ExpectCrawlSurvivedChaos(const ChaosOptions& options, const ChaosReport& report) {
  const std::string log = Tail(ReadFile(report.log_path), 4000);
  EXPECT_EQ(report.exit_code, 0) << "./run crawl did not finish cleanly:\n" << log;
  EXPECT_EQ(static_cast<int>(report.kills.size()), options.kills)
      << "the crawl ended before every kill; slow it down (ZCRAWL_CHAOS_DELAY_MS)";
  for (const char* kind : kKinds) {
    auto it = report.kills_by_kind.find(kind);
    EXPECT_TRUE(it != report.kills_by_kind.end() && it->second >= 1) << "never killed a " << kind;
  }
  EXPECT_EQ(report.missing, 0u) << "coverage below 100%";
  EXPECT_EQ(report.stored_urls, report.expected_pages);
  EXPECT_EQ(report.duplicates, 0u) << "a URL stored twice";
  EXPECT_EQ(report.unexpected, 0u) << "stored URLs that are not part of the site";
  EXPECT_EQ(report.forbidden_requests, 0u) << "requested out-of-scope or robots-disallowed URLs";
  EXPECT_TRUE(report.db_error.empty()) << report.db_error;
  EXPECT_FALSE(report.db_states.empty()) << "no URL in the frontier's state";
  for (const auto& [state, n] : report.db_states) {
    EXPECT_TRUE(state == 2 || state == 3) << n << " URLs left in state " << state;
  }
  EXPECT_EQ(report.db_ok_not_done, 0u) << "pages not recorded done in the frontier's state";
  if (report.warc) {
    EXPECT_EQ(report.warc_missing, 0u) << "pages missing from the WARC index";
    EXPECT_EQ(report.warc_duplicates, 0u) << "a URL indexed twice in the WARC output";
    EXPECT_TRUE(report.warc_file_error.empty()) << report.warc_file_error;
    EXPECT_EQ(report.warc_file_duplicates, 0u) << "a page captured twice in the WARC files";
    EXPECT_EQ(report.warc_file_captures, report.expected_pages) << "captures in the WARC files";
  }
  // The launcher saw each kill and restarted the process.
  const std::string full_log = ReadFile(report.log_path);
  for (const auto& [kind, n] : report.kills_by_kind) {
    EXPECT_NE(full_log.find("restarting " + std::string(kind == "fetcher" ? "fetcher-" : kind)),
              std::string::npos)
        << "no restart of a " << kind << " in the log";
  }
}

}  // namespace zcrawl::testing
