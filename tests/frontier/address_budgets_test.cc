// AddressBudgets alone and through the scheduler, on a fake clock: origins
// on one server address share --per-ip and --ip-delay-ms; an origin's
// address is learned from its answers and kept in its record.
#include "frontier/scheduler/address_budgets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <map>
#include <string>

#include "frontier/scheduler/crawl_scheduler.h"
#include "tests/frontier/scheduler_test_support.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

TEST(AddressBudgetsTest, RoomDelayWaitersAndNoStateWhenIdle) {
  PolitenessOptions options;
  options.per_ip = 2;
  options.ip_delay_ms = 100;
  AddressBudgets budgets(options);
  const uint32_t key = AddressBudgets::KeyOf("192.0.2.7");
  EXPECT_NE(key, 0u);
  EXPECT_EQ(AddressBudgets::KeyOf(""), 0u);
  EXPECT_NE(AddressBudgets::KeyOf("192.0.2.8"), key);
  EXPECT_EQ(budgets.ReadyMs(key, 1'000), 1'000);
  EXPECT_EQ(budgets.ReadyMs(0, 1'000), 1'000) << "an unknown address has no budget";
  budgets.Leased(key, 1'000);
  EXPECT_EQ(budgets.ReadyMs(key, 1'000), 1'100) << "the address's delay";
  budgets.Leased(key, 1'100);
  EXPECT_EQ(budgets.ReadyMs(key, 1'300), INT64_MAX) << "two in flight: no room";
  budgets.Wait(key, 7);
  budgets.Wait(key, 9);
  EXPECT_EQ(budgets.Returned(key, 1'300), (std::vector<uint32_t>{7, 9}));
  EXPECT_EQ(budgets.ReadyMs(key, 1'300), 1'300);
  EXPECT_TRUE(budgets.Returned(key, 1'300).empty());
  EXPECT_EQ(budgets.tracked(), 0u) << "nothing in flight, nobody waiting, no delay: no state";

  options.per_ip = 0;
  budgets.Leased(key, 2'000);
  budgets.Leased(key, 2'000);
  budgets.Leased(key, 2'000);
  EXPECT_EQ(budgets.ReadyMs(key, 2'000), 2'000) << "--per-ip 0: no limit";
  EXPECT_EQ(budgets.tracked(), 0u);
}

TEST(AddressBudgetsTest, RowsNameTrackedAddressesBusiestFirst) {
  PolitenessOptions options;
  options.per_ip = 8;
  AddressBudgets budgets(options);
  const uint32_t a = AddressBudgets::KeyOf("192.0.2.1");
  const uint32_t b = AddressBudgets::KeyOf("2001:db8::1");
  budgets.Name(a, "192.0.2.1");
  EXPECT_EQ(budgets.tracked(), 0u) << "a name alone makes no state";
  budgets.Leased(a, 0);
  for (int i = 0; i < 3; ++i) budgets.Leased(b, 0);
  budgets.Name(b, "2001:db8::1");
  const auto rows = budgets.Busiest(1, 0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].address, "2001:db8::1");
  EXPECT_EQ(rows[0].in_flight, 3u);
  EXPECT_EQ(budgets.Busiest(10, 0).back().address, "") << "not named yet: a's answer has not come";
}

TEST(AddressBudgetsTest, SweepDropsWhatADelayLeftBehind) {
  PolitenessOptions options;
  options.per_ip = 4;
  options.ip_delay_ms = 500;
  AddressBudgets budgets(options);
  for (int i = 0; i < 100; ++i) {
    const uint32_t key = AddressBudgets::KeyOf("10.0.0." + std::to_string(i));
    budgets.Leased(key, 0);
    budgets.Returned(key, 10);
  }
  EXPECT_EQ(budgets.tracked(), 100u) << "each delay still runs";
  budgets.Sweep(499);
  EXPECT_EQ(budgets.tracked(), 100u);
  budgets.Sweep(500);
  EXPECT_EQ(budgets.tracked(), 0u);
}

class SchedulerAddressTest : public ::testing::Test {
 protected:
  SchedulerOptions Options() {
    SchedulerOptions o;
    o.politeness.delay_ms = 0;
    o.politeness.per_host = 2;
    o.politeness.per_ip = 4;
    o.politeness.obey_robots = false;
    o.politeness.delay_factor = 0;
    return o;
  }
  static std::string Host(int h) { return "http://h" + std::to_string(h) + ".test"; }
  static v1::FetchReport From(const v1::WorkItem& item, const std::string& address) {
    v1::FetchReport r = Report(item);
    r.set_server_address(address);
    return r;
  }
  FakeClock clock_;
};

TEST_F(SchedulerAddressTest, OriginsOnOneAddressShareItsBudget) {
  CrawlScheduler s(Options(), clock_);
  for (int h = 0; h < 50; ++h) {
    for (int i = 0; i < 4; ++i) s.Enqueue(Host(h) + "/" + std::to_string(i), Host(h), 0);
  }
  // Each origin's first answer tells its address: all the same.
  std::map<std::string, int> in_flight_by_origin;
  auto first = s.Lease("f", 1000);
  ASSERT_EQ(first.size(), 100u) << "addresses unknown: only --per-host bounds the first requests";
  for (const auto& item : first) s.Complete("f", From(item, "192.0.2.7"));
  // From now on never more than --per-ip in flight, however many origins.
  int in_flight = 0;
  int max_in_flight = 0;
  int done = 100;
  std::vector<v1::WorkItem> held;
  for (int round = 0; round < 1000 && done < 200; ++round) {
    for (auto& item : s.Lease("f", 1000)) held.push_back(std::move(item));
    in_flight = static_cast<int>(held.size());
    max_in_flight = std::max(max_in_flight, in_flight);
    if (round == 0) {
      // What `./run status` shows of the address: named by the answers,
      // its requests in flight and the origins waiting for room.
      const auto rows = s.addresses().Busiest(10, clock_.NowMs());
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0].address, "192.0.2.7");
      EXPECT_EQ(rows[0].in_flight, 4u);
      EXPECT_GT(rows[0].origins_waiting, 0u);
    }
    ASSERT_FALSE(held.empty()) << "an origin that waited for room was woken";
    s.Complete("f", From(held.front(), "192.0.2.7"));
    held.erase(held.begin());
    ++done;
  }
  for (const auto& item : held) s.Complete("f", From(item, "192.0.2.7"));
  EXPECT_TRUE(s.Drained());
  EXPECT_EQ(max_in_flight, 4);
  EXPECT_GT(s.addresses().waits(), 0u);
  EXPECT_EQ(s.addresses().tracked(), 0u) << "idle again: no state left";
}

TEST_F(SchedulerAddressTest, OriginsOnDistinctAddressesKeepTheirOwnBudget) {
  CrawlScheduler s(Options(), clock_);
  for (int h = 0; h < 10; ++h) {
    for (int i = 0; i < 4; ++i) s.Enqueue(Host(h) + "/" + std::to_string(i), Host(h), 0);
  }
  auto first = s.Lease("f", 1000);
  for (const auto& item : first) {
    const std::string host = item.url().substr(0, item.url().find('/', 8));
    s.Complete("f", From(item, "198.51.100." + host.substr(8, host.find('.') - 8)));
  }
  EXPECT_EQ(s.Lease("f", 1000).size(), 20u) << "2 per host on 10 addresses: --per-ip does not bind";
}

TEST_F(SchedulerAddressTest, TheAddressDelaySpacesRequestStartsAcrossOrigins) {
  SchedulerOptions o = Options();
  o.politeness.ip_delay_ms = 100;
  CrawlScheduler s(o, clock_);
  for (int h = 0; h < 5; ++h) s.Enqueue(Host(h) + "/a", Host(h), 0), s.Enqueue(Host(h) + "/b", Host(h), 0);
  for (const auto& item : s.Lease("f", 5)) s.Complete("f", From(item, "192.0.2.9"));
  int leased = 0;
  for (int ms = 0; ms < 500; ms += 10) {
    const auto items = s.Lease("f", 100);
    EXPECT_LE(items.size(), 1u) << "one start per 100 ms at the address, at " << ms;
    for (const auto& item : items) s.Complete("f", From(item, "192.0.2.9"));
    leased += static_cast<int>(items.size());
    clock_.Advance(10);
  }
  EXPECT_EQ(leased, 5);
}

TEST_F(SchedulerAddressTest, TheAddressIsKeptInTheOriginsRecord) {
  const std::string dir = zcrawl::testing::MakeTempDir("address_record");
  {
    auto store = OpenStore(dir);
    ASSERT_TRUE(store);
    CrawlScheduler s(Options(), clock_, store.get());
    for (int h = 0; h < 6; ++h) s.Enqueue(Host(h) + "/", Host(h), 0), s.Enqueue(Host(h) + "/2", Host(h), 0);
    for (const auto& item : s.Lease("f", 6)) s.Complete("f", From(item, "192.0.2.7"));
    for (int i = 0; i < 3; ++i) {
      s.StageDirtyOrigins();
      ASSERT_TRUE(store->Flush().ok());
    }
  }
  auto store = OpenStore(dir);
  ASSERT_TRUE(store);
  CrawlScheduler s(Options(), clock_, store.get());
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& origin) { ASSERT_TRUE(s.RestoreOrigin(origin).ok()); }).ok());
  EXPECT_EQ(s.Lease("f", 100).size(), 4u) << "after a restart the six origins still share one address";
}

}  // namespace
}  // namespace zcrawl::frontier
