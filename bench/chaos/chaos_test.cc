// Chaos, long (not part of the test suite: minutes on a small machine):
// `./run crawl` over a generated site of thousands of pages while SIGKILLs
// hit random components at random moments (every kind at least once); the
// launcher restarts each. Asserts coverage 100%, no duplicates in the
// output, every URL final in the frontier's store, and prints the
// figures (kills by kind, duration, refetches).
//
//   ZCRAWL_CHAOS_PAGES=3000 ZCRAWL_CHAOS_KILLS=12 ZCRAWL_CHAOS_SEED=1 build/bin/chaos_test
// ZCRAWL_CHAOS_DELAY_MS sets the politeness delay that stretches the crawl.
// tests/faults/chaos_short_test.cc is the short variant in the suite.
#include <gtest/gtest.h>

#include <iostream>

#include "tests/faults/chaos_harness.h"

namespace zcrawl::testing {
namespace {

TEST(ChaosTest, ThousandsOfPagesSurviveRandomKillsOfEveryComponent) {
  ChaosOptions defaults;  // 3000 pages, 12 kills, seed 1
  const ChaosOptions options = ChaosOptionsFromEnv(defaults);
  const ChaosReport report = ChaosCrawl(options).Run();
  std::cout << "chaos: seed=" << options.seed << " pages=" << options.pages << " "
            << report.Figures() << "\n";
  for (const auto& kill : report.kills) {
    std::cout << "  kill " << kill.kind << " pid=" << kill.pid << " at_ms=" << kill.at_ms
              << " pages_requested_before=" << kill.pages_before << "\n";
  }
  std::cout << "  output: " << report.out_dir << "  log: " << report.log_path << "\n";
  ExpectCrawlSurvivedChaos(options, report);
}

}  // namespace
}  // namespace zcrawl::testing
