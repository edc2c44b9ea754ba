// A continuous crawl's broker under a fake clock: a done URL is leased again
// exactly when its interval is up (never a millisecond early), carrying what
// revalidates it; the interval grows x1.4 on a 304 or the same body and
// shrinks x0.8 on a change; the crawl does not end while anything is
// scheduled; a restarted frontier keeps the schedule.
#include <gtest/gtest.h>

#include <optional>
#include <zmq.hpp>

#include "common/clock.h"
#include "frontier/broker/broker.h"
#include "net/envelope_codec.h"
#include "tests/support/inproc_peers.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

constexpr const char* kSeed = "http://a.test/1";
constexpr int64_t kMinMs = 10'000;
constexpr int64_t kScanIntervalMs = 1000;  // broker_refetch.cc

class ContinuousCrawlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.seeds = {kSeed};
    options_.politeness.obey_robots = false;
    options_.politeness.delay_ms = 0;
    options_.link.heartbeat_ms = 1000;
    options_.link.liveness = 1000;  // the test's fetcher is silent for long
    options_.leases.lease_ms = 3'600'000;
    options_.state_dir = zcrawl::testing::MakeTempDir("continuous_crawl") + "/state";
    options_.memory_mb = 16;
    options_.link_threads = 1;
    options_.exit_when_done = false;
    options_.continuous = true;
    options_.refetch_min_s = kMinMs / 1000;
    options_.refetch_max_s = 100;
    StartBroker();
  }

  void StartBroker() {
    fetcher_.reset();
    broker_.reset();
    options_.bind = zcrawl::testing::UniqueInprocEndpoint("continuous-test");
    broker_.emplace(options_, context_, clock_);
    ASSERT_TRUE(broker_->Start().ok());
    fetcher_.emplace(context_, zmq::socket_type::dealer);
    fetcher_->set(zmq::sockopt::routing_id, std::string("fetcher-1"));
    fetcher_->set(zmq::sockopt::linger, 0);
    fetcher_->connect(options_.bind);
    v1::Envelope ready;
    ready.mutable_ready()->set_role(v1::PEER_ROLE_FETCHER);
    Send(ready);
    AskForWork();
  }

  void Send(v1::Envelope envelope) {
    fetcher_->send(zmq::buffer(codec_.Encode(envelope)), zmq::send_flags::none);
  }
  void AskForWork() {
    v1::Envelope request;
    request.mutable_work_request()->set_credit(1);
    Send(request);
  }

  // Steps the broker `turns` times; the first WorkItem that arrived, if any.
  std::optional<v1::WorkItem> Lease(int turns = 100) {
    for (int turn = 0; turn < turns; ++turn) {
      bool done = false;
      EXPECT_TRUE(broker_->Step(2, &done).ok());
      EXPECT_FALSE(done);
      zmq::message_t message;
      while (fetcher_->recv(message, zmq::recv_flags::dontwait)) {
        auto envelope = EnvelopeCodec::Decode(message.to_string_view());
        if (envelope.ok() && envelope->has_work_batch() && envelope->work_batch().items_size() > 0) {
          return envelope->work_batch().items(0);
        }
      }
    }
    return std::nullopt;
  }

  // Reports the lease as fetched with `http_status` and, for a 200, a body
  // of hash `body_hash` served with `etag`; then asks for the next.
  void Report(const v1::WorkItem& item, uint32_t http_status, uint64_t body_hash, const std::string& etag) {
    v1::Envelope envelope;
    v1::FetchReport& report = *envelope.mutable_fetch_report();
    report.set_lease_id(item.lease_id());
    report.set_url(item.url());
    report.set_status(v1::FETCH_STATUS_OK);
    report.set_http_status(http_status);
    report.mutable_captured()->set_etag(etag);
    report.mutable_captured()->set_fetched_at_ms(clock_.WallMs());
    if (http_status == 200) report.mutable_captured()->set_body_hash(body_hash);
    const uint64_t reports = broker_->counters().reports;
    Send(envelope);
    AskForWork();
    for (int turn = 0; turn < 100 && broker_->counters().reports == reports; ++turn) {
      bool done = false;
      ASSERT_TRUE(broker_->Step(2, &done).ok());
    }
    ASSERT_EQ(broker_->counters().reports, reports + 1);
  }

  // The URL is not leased a millisecond before `interval_ms` from now, and
  // is within the schedule's scan interval after it (a scan writes the
  // state first, so the broker looks at most once a second).
  v1::WorkItem LeasedAfter(int64_t interval_ms) {
    clock_.Advance(interval_ms - 1);
    auto early = Lease(30);
    EXPECT_FALSE(early.has_value()) << "leased before its interval of " << interval_ms
                                    << " ms: " << (early ? early->ShortDebugString() : "");
    clock_.Advance(1);
    auto item = Lease(30);
    if (!item) {
      clock_.Advance(kScanIntervalMs - 1);
      item = Lease();
    }
    EXPECT_TRUE(item.has_value()) << "not leased within a scan interval of its interval of " << interval_ms << " ms";
    return item.value_or(v1::WorkItem());
  }

  FrontierOptions options_;
  zmq::context_t context_{1};
  FakeClock clock_;
  EnvelopeCodec codec_{"fetcher-1"};
  std::optional<Broker> broker_;
  std::optional<zmq::socket_t> fetcher_;
};

TEST_F(ContinuousCrawlTest, AnUnchangedPageIsAskedLessOftenAndAChangedOneMoreOftenWithinTheBounds) {
  auto first = Lease();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->url(), kSeed);
  EXPECT_TRUE(first->report_validators());
  EXPECT_FALSE(first->has_previous());
  Report(*first, 200, 11, "\"v1\"");
  EXPECT_EQ(broker_->scheduler().counts().done, 1u);
  EXPECT_TRUE(broker_->scheduler().Drained());
  EXPECT_FALSE(broker_->finished()) << "a continuous crawl goes on while a refetch is scheduled";

  // A first capture comes back after the shortest interval, conditionally.
  v1::WorkItem second = LeasedAfter(kMinMs);
  EXPECT_EQ(second.url(), kSeed);
  EXPECT_EQ(second.attempt(), 1u);
  EXPECT_EQ(second.previous().etag(), "\"v1\"");
  EXPECT_EQ(second.previous().body_hash(), 11u);
  EXPECT_EQ(second.previous().refetch_interval_ms(), kMinMs);
  Report(second, 304, 0, "");
  EXPECT_EQ(broker_->counters().refetches_unchanged, 1u);

  // Unchanged (304): x1.4. The same body without a 304: x1.4 again.
  v1::WorkItem third = LeasedAfter(14'000);
  EXPECT_EQ(third.previous().etag(), "\"v1\"") << "a 304 without an ETag keeps the one before";
  EXPECT_EQ(third.previous().refetch_interval_ms(), 14'000);
  Report(third, 200, 11, "\"v1\"");
  v1::WorkItem fourth = LeasedAfter(19'600);
  EXPECT_EQ(fourth.previous().refetch_interval_ms(), 19'600);
  // Changed: x0.8, and the new validators go out with the next lease.
  Report(fourth, 200, 12, "\"v2\"");
  EXPECT_EQ(broker_->counters().refetches_changed, 2u);  // the first capture and this
  v1::WorkItem fifth = LeasedAfter(15'680);
  EXPECT_EQ(fifth.previous().etag(), "\"v2\"");
  EXPECT_EQ(fifth.previous().body_hash(), 12u);
  EXPECT_EQ(fifth.previous().refetch_interval_ms(), 15'680);
  EXPECT_EQ(broker_->counters().refetches_queued, 4u);
  EXPECT_EQ(broker_->scheduler().counts().done, 4u);
}

TEST_F(ContinuousCrawlTest, ARestartedFrontierKeepsTheSchedule) {
  auto first = Lease();
  ASSERT_TRUE(first.has_value());
  Report(*first, 200, 11, "\"v1\"");
  auto second = LeasedAfter(kMinMs);
  Report(second, 304, 0, "\"v1\"");
  // Half-way through the next interval (14 s) the state is committed (a
  // turn after the commit interval), the frontier stopped and started again.
  clock_.Advance(7'000);
  EXPECT_FALSE(Lease(1).has_value());
  StartBroker();
  EXPECT_FALSE(broker_->already_finished());
  v1::WorkItem third = LeasedAfter(7'000);
  EXPECT_EQ(third.url(), kSeed);
  EXPECT_EQ(third.previous().etag(), "\"v1\"");
  Report(third, 304, 0, "\"v1\"");
  EXPECT_EQ(LeasedAfter(19'600).previous().refetch_interval_ms(), 19'600);
}

TEST_F(ContinuousCrawlTest, AFailedPageIsLookedAtAgainAfterTheLongestIntervalAndCanComeBack) {
  auto first = Lease();
  ASSERT_TRUE(first.has_value());
  Report(*first, 200, 11, "\"v1\"");
  auto second = LeasedAfter(kMinMs);
  Report(second, 404, 0, "");
  EXPECT_EQ(broker_->scheduler().counts().failed, 1u);
  EXPECT_EQ(broker_->counters().refetches_failed, 1u);
  EXPECT_TRUE(broker_->scheduler().Drained());
  // Gone, not forgotten: asked again after --refetch-max, with what
  // revalidated its last capture; the crawl goes on meanwhile.
  v1::WorkItem third = LeasedAfter(options_.refetch_max_s * 1000);
  EXPECT_FALSE(broker_->finished());
  // Its own round, so its page gets a writer key of its own (page_key.h).
  EXPECT_NE(third.previous().round_due_ms(), 0);
  EXPECT_NE(third.previous().round_due_ms(), second.previous().round_due_ms());
  EXPECT_EQ(third.url(), kSeed);
  EXPECT_EQ(third.previous().etag(), "\"v1\"");
  EXPECT_EQ(third.previous().refetch_interval_ms(), options_.refetch_max_s * 1000);
  // Back, and changed: the adaptive schedule again, from the longest interval.
  Report(third, 200, 12, "\"v2\"");
  EXPECT_EQ(broker_->scheduler().counts().done, 2u);
  EXPECT_EQ(LeasedAfter(80'000).previous().refetch_interval_ms(), 80'000);
}

// A URL failed by the scheduler rather than by a report (here its leases
// expired past --retries; robots.txt unanswered takes the same path) is
// looked at again too.
TEST_F(ContinuousCrawlTest, AUrlFailedByItsExpiredLeasesIsLookedAtAgain) {
  options_.leases.lease_ms = 5'000;
  options_.leases.retries = 0;
  StartBroker();
  auto first = Lease();
  ASSERT_TRUE(first.has_value());
  clock_.Advance(options_.leases.lease_ms + 1);
  for (int turn = 0; turn < 20 && broker_->scheduler().counts().failed == 0; ++turn) Lease(1);
  ASSERT_EQ(broker_->scheduler().counts().failed, 1u);
  EXPECT_EQ(broker_->counters().refetches_failed, 1u);
  AskForWork();  // the fetcher's one credit went with the expired lease
  EXPECT_EQ(LeasedAfter(options_.refetch_max_s * 1000).url(), kSeed);
}

}  // namespace
}  // namespace zcrawl::frontier
