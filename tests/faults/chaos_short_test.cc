// Chaos, short: `./run crawl` over 600 generated pages while four SIGKILLs
// hit the frontier, the writer and a fetcher (each at least once) at random
// moments; the launcher restarts them. The crawl must still end with every
// page stored exactly once and every URL final in the frontier's state.
// bench/chaos/chaos_test.cc is the long version (thousands of pages, 12+
// kills). ZCRAWL_CHAOS_SEED picks another schedule.
#include <gtest/gtest.h>

#include <iostream>

#include "tests/faults/chaos_harness.h"

namespace zcrawl::testing {
namespace {

void RunShortChaos(const std::string& format, uint32_t seed) {
  ChaosOptions defaults;
  defaults.pages = 600;
  defaults.kills = 4;
  defaults.delay_ms = 10;
  defaults.timeout_ms = 150000;
  defaults.format = format;
  defaults.seed = seed;
  const ChaosOptions options = ChaosOptionsFromEnv(defaults);
  const ChaosReport report = ChaosCrawl(options).Run();
  std::cout << "chaos: format=" << format << " seed=" << options.seed << " pages=" << options.pages << " "
            << report.Figures() << "\n";
  ExpectCrawlSurvivedChaos(options, report);
}

TEST(ChaosShortTest, KilledComponentsAreRestartedAndTheCrawlLosesAndDuplicatesNothing) {
  RunShortChaos("files", 1);
}

// The same with WARC beside the files: WARC's group commit is pipelined (a
// batch syncs on its own thread while the next is written), so a writer
// killed mid-flight leaves a window half synced; the index must still name
// every page once.
TEST(ChaosShortTest, WarcOutputSurvivesTheKillsToo) { RunShortChaos("warc,files", 2); }

}  // namespace
}  // namespace zcrawl::testing
