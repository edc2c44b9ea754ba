// SinkGroup tests: fake sinks that record what they were given, list what
// they hold and fail on demand.
#include "writer/sink_group.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace zcrawl::writer {
namespace {

// What one fake sink saw; outlives the sink (the group owns the sink).
struct FakeSinkLog {
  std::vector<std::string> written;   // URLs passed to Write, in order
  std::vector<std::string> bodies;    // the body each had when it came
  std::vector<const char*> body_data; // where each body's bytes were
  std::set<std::string> durable;      // URLs made durable by a Flush
  std::vector<std::string> pending;   // written since the last Flush
  std::vector<std::string> sealed;    // between BeginFlush and FinishFlush
  std::set<std::string> listed;       // what ForEachStoredKey reports
  bool can_list = true;
  bool fail_writes = false;
  bool fail_flush = false;
  bool fail_finish = false;  // the pipelined flush's second step fails
  int closes = 0;
};

class FakeSink : public Sink, public PipelinedFlush {
 public:
  FakeSink(std::string name, FakeSinkLog& log) : name_(std::move(name)), log_(log) {}
  Status Open() override { return Status::Ok(); }
  PipelinedFlush* pipelined() override { return this; }
  bool FlushReady() override { return true; }
  Status Flush() override {
    Status begun = BeginFlush();
    Status finished = FinishFlush();
    return begun.ok() ? finished : begun;
  }
  // Pipelined like the WARC sink: the window is set aside, made durable by
  // FinishFlush.
  Status BeginFlush() override {
    if (log_.fail_flush) {
      log_.pending.clear();  // cut back, as the real sinks do
      return UnavailableError(name_ + " flush failed");
    }
    log_.sealed.swap(log_.pending);
    log_.pending.clear();
    return Status::Ok();
  }
  Status FinishFlush() override {
    if (log_.fail_finish) {
      log_.sealed.clear();
      return UnavailableError(name_ + " sync failed");
    }
    log_.durable.insert(log_.sealed.begin(), log_.sealed.end());
    log_.sealed.clear();
    return Status::Ok();
  }
  Status Close() override {
    ++log_.closes;
    return Status::Ok();
  }
  std::string_view name() const override { return name_; }
  Status ForEachStoredKey(const std::function<void(const std::string&)>& visit) override {
    if (!log_.can_list) return NotFoundError(name_ + " cannot list");
    for (const std::string& key : log_.listed) visit(key);
    return Status::Ok();
  }

 private:
  // Keeps the body, as the WARC sink does (its encoding threads own it).
  Status Append(const v1::Page& page, PagePayload&& payload) override {
    if (log_.fail_writes) return UnavailableError(name_ + " write failed");
    log_.written.push_back(page.url());
    log_.bodies.push_back(payload.body);
    log_.body_data.push_back(payload.body.data());
    log_.pending.push_back(page.url());
    kept_.push_back(std::move(payload.body));
    return Status::Ok();
  }

  std::string name_;
  FakeSinkLog& log_;
  std::vector<std::string> kept_;
};

v1::Page PageFor(const std::string& url) {
  v1::Page page;
  page.set_url(url);
  page.set_body("body of " + url);
  return page;
}

class SinkGroupTest : public ::testing::Test {
 protected:
  std::unique_ptr<SinkGroup> MakeGroup() {
    std::vector<std::unique_ptr<Sink>> sinks;
    sinks.push_back(std::make_unique<FakeSink>("warc", a_));
    sinks.push_back(std::make_unique<FakeSink>("jsonl", b_));
    auto group = std::make_unique<SinkGroup>(std::move(sinks));
    EXPECT_TRUE(group->Open().ok());
    return group;
  }
  // Writes and asserts the group accepted it.
  void Write(SinkGroup& group, const std::string& url, bool expect_wrote = true) {
    bool wrote = false;
    ASSERT_TRUE(group.Write(url, PageFor(url), &wrote).ok()) << url;
    EXPECT_EQ(wrote, expect_wrote) << url;
  }

  FakeSinkLog a_;
  FakeSinkLog b_;
};

TEST_F(SinkGroupTest, PageIsStoredOnceEverySinkFlushedIt) {
  auto group = MakeGroup();
  Write(*group, "u1");
  EXPECT_FALSE(group->IsStored("u1"));  // written, not durable
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_EQ(a_.written, std::vector<std::string>{"u1"});
  EXPECT_EQ(b_.written, std::vector<std::string>{"u1"});
  EXPECT_EQ(group->stored_pages(), 1u);
  EXPECT_EQ(group->names(), "warc,jsonl");
}

TEST_F(SinkGroupTest, EverySinkGetsTheBodyAndOnlyTheLastOneNeedingItTakesTheCallersBytes) {
  b_.listed = {"held-by-b"};
  auto group = MakeGroup();
  bool wrote = false;
  // Bodies past the small-string buffer, so a move keeps the bytes in place.
  auto page_with_long_body = [](const std::string& url) {
    v1::Page page = PageFor(url);
    page.set_body(std::string(200, 'x') + url);
    return page;
  };
  v1::Page u1 = page_with_long_body("u1");
  PagePayload payload = TakePayload(u1);
  const char* u1_bytes = payload.body.data();
  ASSERT_TRUE(group->Write("u1", u1, std::move(payload), &wrote).ok());
  EXPECT_EQ(u1.url(), "u1") << "the caller's page stays whole";
  EXPECT_TRUE(u1.body().empty()) << "its bulk went to the sinks";
  // Only a needs it: a takes the bytes.
  v1::Page held = page_with_long_body("held-by-b");
  payload = TakePayload(held);
  const char* held_bytes = payload.body.data();
  ASSERT_TRUE(group->Write("held-by-b", held, std::move(payload), &wrote).ok());
  // The copying Write leaves the caller's page as it was.
  const v1::Page kept = page_with_long_body("u2");
  ASSERT_TRUE(group->Write("u2", kept, &wrote).ok());
  EXPECT_EQ(kept.body(), std::string(200, 'x') + "u2");

  EXPECT_EQ(a_.written, (std::vector<std::string>{"u1", "held-by-b", "u2"}));
  EXPECT_EQ(a_.bodies, (std::vector<std::string>{std::string(200, 'x') + "u1",
                                                  std::string(200, 'x') + "held-by-b",
                                                  std::string(200, 'x') + "u2"}));
  EXPECT_EQ(b_.written, (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(b_.bodies, a_.bodies.size() == 3
                           ? (std::vector<std::string>{a_.bodies[0], a_.bodies[2]})
                           : std::vector<std::string>{});
  EXPECT_NE(a_.body_data[0], u1_bytes) << "a copy for the first of two sinks";
  EXPECT_EQ(b_.body_data[0], u1_bytes) << "the last sink takes the caller's bytes";
  EXPECT_EQ(a_.body_data[1], held_bytes) << "a alone needed it: a takes them";
}

TEST_F(SinkGroupTest, PageRefusedByTheSecondSinkIsRedeliveredOnlyToIt) {
  auto group = MakeGroup();
  b_.fail_writes = true;
  bool wrote = false;
  EXPECT_FALSE(group->Write("u1", PageFor("u1"), &wrote).ok());
  ASSERT_TRUE(group->Flush().ok());  // the first sink made it durable
  EXPECT_FALSE(group->IsStored("u1"));
  b_.fail_writes = false;

  // The frontier retries the page: only the sink without it gets it.
  Write(*group, "u1");
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_EQ(a_.written, std::vector<std::string>{"u1"});  // not twice
  EXPECT_EQ(b_.written, std::vector<std::string>{"u1"});
}

TEST_F(SinkGroupTest, FailedFlushOfOneSinkGivesItTheWholeWindowAgain) {
  auto group = MakeGroup();
  Write(*group, "u1");
  Write(*group, "u2");
  b_.fail_flush = true;
  EXPECT_FALSE(group->Flush().ok());
  EXPECT_FALSE(group->IsStored("u1"));
  EXPECT_FALSE(group->IsStored("u2"));
  b_.fail_flush = false;

  Write(*group, "u2");
  Write(*group, "u1");
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_TRUE(group->IsStored("u2"));
  EXPECT_EQ(a_.written, (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(b_.written, (std::vector<std::string>{"u1", "u2", "u2", "u1"}));
  EXPECT_EQ(b_.durable, (std::set<std::string>{"u1", "u2"}));
}

TEST_F(SinkGroupTest, SamePageTwiceInOneWindowIsWrittenOnce) {
  auto group = MakeGroup();
  Write(*group, "u1");
  Write(*group, "u1", /*expect_wrote=*/false);
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_EQ(a_.written.size(), 1u);
  EXPECT_EQ(b_.written.size(), 1u);
}

TEST_F(SinkGroupTest, PipelinedWindowCountsOnlyOnceFinishedAndIsNotWrittenAgainMeanwhile) {
  auto group = MakeGroup();
  Write(*group, "u1");
  ASSERT_TRUE(group->BeginFlush().ok());
  EXPECT_FALSE(group->IsStored("u1"));  // syncing, not durable yet
  Write(*group, "u2");                   // the next window
  Write(*group, "u1", /*expect_wrote=*/false);  // a copy of a page in flight
  ASSERT_TRUE(group->FinishFlush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_FALSE(group->IsStored("u2"));
  ASSERT_TRUE(group->BeginFlush().ok());
  ASSERT_TRUE(group->FinishFlush().ok());
  EXPECT_TRUE(group->IsStored("u2"));
  EXPECT_EQ(a_.written, (std::vector<std::string>{"u1", "u2"}));
  EXPECT_EQ(a_.durable, (std::set<std::string>{"u1", "u2"}));
  EXPECT_EQ(b_.durable, (std::set<std::string>{"u1", "u2"}));
}

TEST_F(SinkGroupTest, FailedWindowInFlightIsNotCountedAndItsPagesComeAgain) {
  auto group = MakeGroup();
  Write(*group, "u1");
  ASSERT_TRUE(group->BeginFlush().ok());
  Write(*group, "u1", /*expect_wrote=*/false);  // redelivered while in flight
  b_.fail_finish = true;
  EXPECT_FALSE(group->FinishFlush().ok());
  b_.fail_finish = false;
  EXPECT_FALSE(group->IsStored("u1"));
  // The copy rode on the failed window: its window does not store it.
  ASSERT_TRUE(group->BeginFlush().ok());
  ASSERT_TRUE(group->FinishFlush().ok());
  EXPECT_FALSE(group->IsStored("u1"));
  // Sent again, it goes only to the sink that lost it.
  Write(*group, "u1");
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
  EXPECT_EQ(a_.written, std::vector<std::string>{"u1"});
  EXPECT_EQ(b_.written, (std::vector<std::string>{"u1", "u1"}));
}

TEST_F(SinkGroupTest, RestartLearnsWhatEachSinkHolds) {
  a_.listed = {"both", "only-a"};
  b_.listed = {"both"};
  auto group = MakeGroup();
  EXPECT_TRUE(group->IsStored("both"));
  EXPECT_FALSE(group->IsStored("only-a"));
  Write(*group, "only-a");
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("only-a"));
  EXPECT_TRUE(a_.written.empty());
  EXPECT_EQ(b_.written, std::vector<std::string>{"only-a"});
}

TEST_F(SinkGroupTest, SinkThatCannotListIsTakenToHoldWhatTheOthersHold) {
  a_.listed = {"old"};
  b_.can_list = false;
  auto group = MakeGroup();
  EXPECT_TRUE(group->IsStored("old"));
  EXPECT_FALSE(group->IsStored("new"));
}

TEST_F(SinkGroupTest, NothingIsKnownStoredWhenNoSinkCanList) {
  a_.can_list = false;
  b_.can_list = false;
  auto group = MakeGroup();
  EXPECT_EQ(group->stored_pages(), 0u);
  Write(*group, "u1");
  ASSERT_TRUE(group->Flush().ok());
  EXPECT_TRUE(group->IsStored("u1"));
}

TEST_F(SinkGroupTest, CloseClosesEverySinkOnce) {
  auto group = MakeGroup();
  ASSERT_TRUE(group->Close().ok());
  ASSERT_TRUE(group->Close().ok());
  group.reset();
  EXPECT_EQ(a_.closes, 1);
  EXPECT_EQ(b_.closes, 1);
}

TEST(SinkGroupLimitsTest, OpenRefusesNoSinks) {
  SinkGroup group({});
  EXPECT_EQ(group.Open().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace zcrawl::writer
