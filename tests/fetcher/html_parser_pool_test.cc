// HtmlParserPool tests: a parser is reused once returned, concurrent
// parses get distinct parsers, the pool holds only as many as were ever
// busy at once, and a lease may outlive the pool.
#include "fetcher/html_parser_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace zcrawl::fetcher {
namespace {

HtmlParserPool::Factory MyHtml() {
  return [] { return MakeHtmlParser("myhtml"); };
}

TEST(HtmlParserPoolTest, ParserReturnedIsLentAgain) {
  HtmlParserPool pool(MyHtml());
  const HtmlParser* first = nullptr;
  {
    auto lease = pool.Acquire();
    first = &*lease;
    EXPECT_EQ(pool.idle(), 0u);
  }
  EXPECT_EQ(pool.idle(), 1u);
  auto again = pool.Acquire();
  EXPECT_EQ(&*again, first);
  EXPECT_EQ(pool.created(), 1u);
}

TEST(HtmlParserPoolTest, LeasesHeldAtOnceGetDistinctParsers) {
  HtmlParserPool pool(MyHtml());
  std::vector<HtmlParserPool::Lease> leases;
  std::set<const HtmlParser*> parsers;
  for (int i = 0; i < 5; ++i) {
    leases.push_back(pool.Acquire());
    parsers.insert(&*leases.back());
  }
  EXPECT_EQ(parsers.size(), 5u);
  EXPECT_EQ(pool.created(), 5u);
  leases.clear();
  EXPECT_EQ(pool.idle(), 5u);
}

TEST(HtmlParserPoolTest, ManyWorkersShareFewParsersAndEveryParseIsRight) {
  HtmlParserPool pool(MyHtml());
  constexpr int kThreads = 16;
  constexpr int kPagesEach = 300;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPagesEach; ++i) {
        const std::string href = "/t" + std::to_string(t) + "/p" + std::to_string(i);
        const std::string html = "<title>T" + std::to_string(i) + "</title><a href=\"" + href + "\">x</a>";
        ParsedHtml parsed = pool.Acquire()->Parse(html);
        if (parsed.links.size() != 1 || parsed.links[0].href != href ||
            parsed.title != "T" + std::to_string(i)) {
          ++wrong;
        }
        // A worker mostly waits on the network; parsing is the short part.
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  // Never more parsers than workers, and all of them back.
  EXPECT_LE(pool.created(), static_cast<size_t>(kThreads));
  EXPECT_GE(pool.created(), 1u);
  EXPECT_EQ(pool.idle(), pool.created());
}

TEST(HtmlParserPoolTest, LeaseMayOutliveThePool) {
  auto pool = std::make_unique<HtmlParserPool>(MyHtml());
  auto lease = pool->Acquire();
  pool.reset();
  // The parser still works and goes back to the (kept alive) state.
  EXPECT_EQ(lease->Parse("<a href=/x>x</a>").links.size(), 1u);
}

}  // namespace
}  // namespace zcrawl::fetcher
