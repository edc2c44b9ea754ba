// UrlStore: the frontier's RocksDB state. Round trips of every family,
// reopening, and clear refusals of damaged or foreign state.
// Over 500 lines on purpose: one case per key family and per refused state,
// each a store opened in a temporary folder and read back.
#include "frontier/store/url_store.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "frontier/store/store_lock.h"
#include "frontier/store/url_canonicalizer.h"
#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_store_records.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

using zcrawl::testing::MakeTempDir;

std::unique_ptr<UrlStore> OpenOrDie(const std::string& dir, bool fresh = false) {
  UrlStoreOptions options;
  options.dir = dir;
  options.fresh = fresh;
  auto store = UrlStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

// The flags byte holds redirect hops and embed hops side by side: the
// largest of each survives, and neither leaks into the other.
TEST(UrlStoreTest, RedirectAndEmbedHopsShareTheFlagsByte) {
  const std::string dir = MakeTempDir("url_store_hops");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    store->StageQueued(0, "http://a.test", {1, "http://a.test/r", 0, 0, 21, 0});
    store->StageQueued(0, "http://a.test", {2, "http://cdn.test/f.woff2", 1, 0, 0, 2});
    store->StageQueued(0, "http://a.test", {3, "http://a.test/both", 1, 0, kMaxStoredRedirectHops, kMaxStoredEmbedHops});
    store->StageOrigin({0, "http://a.test", 4, 0, 0});
    ASSERT_TRUE(store->Write(/*sync=*/true).ok());
  }
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  std::vector<QueuedUrl> queue;
  ASSERT_TRUE(store->LoadQueue(0, "http://a.test", 0, 10, &queue).ok());
  ASSERT_EQ(queue.size(), 3u);
  EXPECT_EQ(queue[0].redirect_hops, 21u);
  EXPECT_EQ(queue[0].embed_hops, 0u);
  EXPECT_EQ(queue[1].redirect_hops, 0u);
  EXPECT_EQ(queue[1].embed_hops, 2u);
  EXPECT_EQ(queue[1].url, "http://cdn.test/f.woff2");
  EXPECT_EQ(queue[2].redirect_hops, kMaxStoredRedirectHops);
  EXPECT_EQ(queue[2].embed_hops, kMaxStoredEmbedHops);
}

TEST(UrlStoreTest, QueuesSeenEntriesOriginsAndMetaSurviveReopening) {
  const std::string dir = MakeTempDir("url_store");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    EXPECT_FALSE(store->resumed());
    store->SetMeta("created_at_ms", "1");
    store->StageSeen({11, 7, SeenState::kWaiting, 0, {}, {}});
    store->StageSeen({12, 3, SeenState::kFailed, 3, "http_404", "http://a.test/gone"});
    store->StageQueued(0, "http://a.test", {1, "http://a.test/x", 2, 0});
    store->StageQueued(0, "http://a.test", {2, "http://b.test/elsewhere", 1, 1, 4});
    store->StageQueued(1, "http://c.test", {1, "http://c.test/", 0, 0});
    store->StageOrigin({0, "http://a.test", 3, 0, 0});
    store->StageOrigin({1, "http://c.test", 2, 0, 0});
    std::vector<bool> present;
    store->Contains({{11, 7}, {13, 7}}, &present);  // staged counts as present
    EXPECT_EQ(present, (std::vector<bool>{true, false}));
    ASSERT_TRUE(store->Write(/*sync=*/true).ok());
    EXPECT_EQ(store->staged(), 0u);
  }
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  EXPECT_TRUE(store->resumed());
  std::vector<bool> present;
  store->Contains({{12, 3}, {11, 7}, {99, 7}, {11, 8}}, &present);
  // A fingerprint under another site is another key.
  EXPECT_EQ(present, (std::vector<bool>{true, true, false, false}));
  std::vector<QueuedUrl> queue;
  ASSERT_TRUE(store->LoadQueue(0, "http://a.test", 0, 10, &queue).ok());
  ASSERT_EQ(queue.size(), 2u);
  EXPECT_EQ(queue[0].url, "http://a.test/x");
  EXPECT_EQ(queue[0].depth, 2u);
  EXPECT_EQ(queue[0].redirect_hops, 0u);
  EXPECT_EQ(queue[1].url, "http://b.test/elsewhere");  // not under its origin: kept whole
  EXPECT_EQ(queue[1].attempts, 1u);
  EXPECT_EQ(queue[1].redirect_hops, 4u);  // a redirect's target keeps its count
  queue.clear();
  ASSERT_TRUE(store->LoadQueue(0, "http://a.test", 1, 10, &queue).ok());  // after seq 1
  ASSERT_EQ(queue.size(), 1u);
  EXPECT_EQ(queue[0].seq, 2u);
  std::vector<StoredOrigin> origins;
  ASSERT_TRUE(store->LoadOrigins([&](StoredOrigin&& o) { origins.push_back(o); }).ok());
  ASSERT_EQ(origins.size(), 2u);
  EXPECT_EQ(origins[1].origin, "http://c.test");
  EXPECT_EQ(origins[0].queued(), 2u);
  std::vector<SeenEntry> seen;
  ASSERT_TRUE(store->ForEachSeen([&](const SeenEntry& e) { seen.push_back(e); return true; }).ok());
  ASSERT_EQ(seen.size(), 2u);  // in key order: site 3 first
  EXPECT_EQ(seen[0].site, 3u);
  EXPECT_EQ(seen[0].reason, "http_404");
  EXPECT_EQ(seen[0].url, "http://a.test/gone");
  EXPECT_EQ(seen[0].attempts, 3u);
  EXPECT_EQ(seen[1].fingerprint, 11u);
  EXPECT_EQ(seen[1].site, 7u);
}

TEST(UrlStoreTest, DequeuedEntriesAreGoneAndQueuesStayApart) {
  const std::string dir = MakeTempDir("url_store_dequeue");
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  for (uint64_t seq = 1; seq <= 100; ++seq) {
    store->StageQueued(7, "http://a.test", {seq, "http://a.test/" + std::to_string(seq), 0, 0});
    store->StageQueued(8, "http://b.test", {seq, "http://b.test/" + std::to_string(seq), 0, 0});
  }
  ASSERT_TRUE(store->Write(false).ok());
  for (uint64_t seq = 1; seq <= 50; ++seq) store->StageDequeued(7, seq);
  ASSERT_TRUE(store->Write(false).ok());
  std::vector<QueuedUrl> queue;
  ASSERT_TRUE(store->LoadQueue(7, "http://a.test", 0, 1000, &queue).ok());
  ASSERT_EQ(queue.size(), 50u);  // the other origin's entries never leak in
  EXPECT_EQ(queue.front().seq, 51u);
  EXPECT_EQ(queue.back().url, "http://a.test/100");
}

TEST(UrlStoreTest, AQueueReadSeesWhatIsStagedOrInFlightOnceAndInOrder) {
  const std::string dir = MakeTempDir("url_store_unwritten");
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  auto stage = [&](uint64_t first, uint64_t last) {
    for (uint64_t seq = first; seq <= last; ++seq) {
      store->StageQueued(3, "http://a.test", {seq, "http://a.test/" + std::to_string(seq), 0, 0});
      store->StageQueued(4, "http://b.test", {seq, "http://b.test/" + std::to_string(seq), 0, 0});
    }
  };
  stage(1, 10);
  ASSERT_TRUE(store->Write(true).ok());
  ASSERT_TRUE(store->Flush().ok());  // 1-10 on disk
  stage(11, 20);
  ASSERT_TRUE(store->Write(false).ok());  // 11-20 handed to the writer thread
  stage(21, 30);                          // 21-30 staged only
  for (const auto& [after, max] : std::vector<std::pair<uint64_t, size_t>>{{0, 100}, {5, 12}, {15, 100}, {25, 3}}) {
    std::vector<QueuedUrl> queue;
    ASSERT_TRUE(store->LoadQueue(3, "http://a.test", after, max, &queue).ok());
    const uint64_t expected = std::min<uint64_t>(30 - after, max);
    ASSERT_EQ(queue.size(), expected) << "after " << after;
    for (size_t i = 0; i < queue.size(); ++i) {
      EXPECT_EQ(queue[i].seq, after + 1 + i);  // each once, in seq order
      EXPECT_EQ(queue[i].url, "http://a.test/" + std::to_string(after + 1 + i));
    }
  }
  // The same answer once everything is on disk.
  ASSERT_TRUE(store->Flush().ok());
  EXPECT_EQ(store->staged(), 0u);
  std::vector<QueuedUrl> queue;
  ASSERT_TRUE(store->LoadQueue(3, "http://a.test", 0, 100, &queue).ok());
  EXPECT_EQ(queue.size(), 30u);
}

// Refills read the unwritten changes through per-origin indexes that grow
// with the staged batch and move with it to the writer: against a model,
// random enqueues, dequeues, writes and refills of a few origins always
// read exactly the live URLs after the asked seq, in order.
TEST(UrlStoreTest, QueueReadsMatchAModelAcrossInterleavedWritesAndRefills) {
  const std::string dir = MakeTempDir("url_store_queue_model");
  auto store = OpenOrDie(dir);
  ASSERT_TRUE(store);
  constexpr uint32_t kOrigins = 5;
  std::vector<std::map<uint64_t, std::string>> live(kOrigins);
  std::vector<uint64_t> next_seq(kOrigins, 1);
  auto origin_name = [](uint32_t o) { return "http://o" + std::to_string(o) + ".test"; };
  std::mt19937_64 random(17);
  size_t reads = 0, reads_with_unwritten = 0;
  for (int step = 0; step < 20000; ++step) {
    const uint32_t o = static_cast<uint32_t>(random() % kOrigins);
    const int action = static_cast<int>(random() % 100);
    if (action < 50) {
      const uint64_t seq = next_seq[o]++;
      const std::string url = origin_name(o) + "/" + std::to_string(seq);
      store->StageQueued(o, origin_name(o), {seq, url, 0, 0});
      live[o][seq] = url;
    } else if (action < 70 && !live[o].empty()) {
      // Leased: usually the head, sometimes any (a requisite loaded ahead).
      auto it = live[o].begin();
      if (random() % 4 == 0) std::advance(it, random() % live[o].size());
      store->StageDequeued(o, it->first);
      live[o].erase(it);
    } else if (action < 75) {
      ASSERT_TRUE(store->Write(random() % 8 == 0).ok());
    } else if (action < 76) {
      ASSERT_TRUE(store->Flush().ok());
    } else {
      const uint64_t after = next_seq[o] > 1 ? random() % next_seq[o] : 0;
      const size_t max = 1 + random() % 8;
      std::vector<QueuedUrl> loaded;
      ASSERT_TRUE(store->LoadQueue(o, origin_name(o), after, max, &loaded).ok());
      std::vector<uint64_t> expected;
      for (auto it = live[o].upper_bound(after); it != live[o].end() && expected.size() < max; ++it) {
        expected.push_back(it->first);
      }
      std::vector<uint64_t> got;
      for (const QueuedUrl& url : loaded) {
        got.push_back(url.seq);
        EXPECT_EQ(url.url, live[o][url.seq]);
      }
      ASSERT_EQ(got, expected) << "step " << step << ", origin " << o << ", after " << after;
      ++reads;
      if (store->staged() > 0) ++reads_with_unwritten;
    }
  }
  // The reads did meet unwritten changes, and plenty of them.
  EXPECT_GT(reads, 3000u);
  EXPECT_GT(reads_with_unwritten, reads / 2);
}

TEST(UrlStoreTest, TheLastChangeToAKeyWinsWithinABatchAndDoneIsDerivedFromTheQueue) {
  const std::string dir = MakeTempDir("url_store_order");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    store->StageOrigin({0, "http://a.test", 4, 0, 0});
    store->StageQueued(0, "http://a.test", {1, "http://a.test/1", 0, 0});
    store->StageQueued(0, "http://a.test", {2, "http://a.test/2", 0, 0});
    store->StageQueued(0, "http://a.test", {3, "http://a.test/3", 0, 0});
    for (const char* path : {"/1", "/2", "/3"}) {
      const UrlKey key = UrlCanonicalizer().KeyOf(std::string("http://a.test") + path);
      store->StageSeen({key.fingerprint, key.site, SeenState::kAdmitted, 0, {}, {}});
    }
    // In the same batch: /1 is done (its queue entry removed), /2 failed
    // (rewritten after its admission), /3 still waits.
    store->StageDequeued(0, 1);
    const UrlKey failed = UrlCanonicalizer().KeyOf("http://a.test/2");
    store->StageSeen({failed.fingerprint, failed.site, SeenState::kFailed, 1, "http_404", "http://a.test/2"});
    store->StageDequeued(0, 2);
    store->StageOrigin({0, "http://a.test", 4, 1, 1});
    ASSERT_TRUE(store->Flush().ok());
  }
  UrlStoreOptions options;
  options.dir = dir;
  options.read_only = true;
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::map<uint64_t, SeenState> states;
  ASSERT_TRUE((*store)->ForEachSeen([&](const SeenEntry& e) { states[e.fingerprint] = e.state; return true; }).ok());
  EXPECT_EQ(states[UrlFingerprint("http://a.test/1")], SeenState::kDone);
  EXPECT_EQ(states[UrlFingerprint("http://a.test/2")], SeenState::kFailed);
  EXPECT_EQ(states[UrlFingerprint("http://a.test/3")], SeenState::kWaiting);
  std::vector<StoredOrigin> origins;
  ASSERT_TRUE((*store)->LoadOrigins([&](StoredOrigin&& o) { origins.push_back(o); }).ok());
  ASSERT_EQ(origins.size(), 1u);
  EXPECT_EQ(origins[0].done, 1u);  // the later record of the origin won
  EXPECT_EQ(origins[0].queued(), 1u);
}

// HeapGovernor lowers the block cache while the heap is past the budget:
// the blocks go at once, and the memtables' room (charged to the cache)
// stays.
TEST(UrlStoreTest, ALoweredCacheCapacityEvictsBlocksAtOnceAndStopsAtItsFloor) {
  const std::string dir = MakeTempDir("url_store_cache_capacity");
  UrlStoreOptions options;
  options.dir = dir;
  options.cache_bytes = 64 << 20;  // memtables 16 MB
  constexpr uint64_t kUrls = 500000;
  {
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok()) << store.status().message();
    for (uint64_t seq = 1; seq <= kUrls; ++seq) {
      (*store)->StageQueued(0, "http://a.test",
                            {seq, "http://a.test/" + std::to_string(seq * 2654435761u) + "/a-longer-page-name-" + std::to_string(seq), 0, 0, 0, 0});
    }
    ASSERT_TRUE((*store)->Flush().ok());
  }
  auto store = UrlStore::Open(options);  // the reopening writes the memtable to a table
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<QueuedUrl> loaded;
  ASSERT_TRUE((*store)->LoadQueue(0, "http://a.test", 0, kUrls, &loaded).ok());
  ASSERT_EQ(loaded.size(), kUrls);
  const uint64_t full = (*store)->memory_bytes();
  ASSERT_GT(full, 24u << 20) << "the blocks read are in the cache";
  EXPECT_EQ((*store)->SetCacheCapacity(0), (16u << 20) + (4u << 20)) << "the floor";
  EXPECT_LE((*store)->memory_bytes(), (20u << 20) + (2u << 20)) << "evicted at once";
  EXPECT_EQ((*store)->cache_capacity(), (20u << 20));
  EXPECT_EQ((*store)->SetCacheCapacity(UINT64_MAX), 64u << 20) << "never above the opening's";
  loaded.clear();
  ASSERT_TRUE((*store)->LoadQueue(0, "http://a.test", 0, kUrls, &loaded).ok());
  EXPECT_EQ(loaded.size(), kUrls) << "nothing lost";
  EXPECT_GT((*store)->memory_bytes(), 24u << 20) << "and it fills again";
}

TEST(UrlStoreTest, AnOlderSqliteStateIsRefusedByName) {
  const std::string dir = MakeTempDir("url_store_legacy");
  std::ofstream(dir + "/frontier.sqlite") << "SQLite format 3";
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(dir + "/frontier.sqlite"), std::string::npos)
      << store.status().message();
  options.fresh = true;  // --fresh starts over
  EXPECT_TRUE(UrlStore::Open(options).ok());
}

TEST(UrlStoreTest, AStateOfAnOlderKeyFormatIsRefusedByName) {
  const std::string dir = MakeTempDir("url_store_format");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    store->SetMeta("created_at_ms", "1");
    store->SetMeta("format", "");  // what a state of the fingerprint-only keys lacks
    ASSERT_TRUE(store->Flush().ok());
  }
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find(dir + "/frontier.db"), std::string::npos)
      << store.status().message();
  EXPECT_NE(store.status().message().find("--fresh"), std::string::npos) << store.status().message();
  options.fresh = true;
  auto fresh = UrlStore::Open(options);
  ASSERT_TRUE(fresh.ok());
  (*fresh)->SetMeta("created_at_ms", "2");
  ASSERT_TRUE((*fresh)->Flush().ok());
  fresh->reset();
  options.fresh = false;
  EXPECT_TRUE(UrlStore::Open(options).ok()) << "a state this build wrote resumes";
}

TEST(UrlStoreTest, AMissingOrCorruptedDatabaseIsAClearErrorNotAFreshStart) {
  const std::string dir = MakeTempDir("url_store_damage");
  {
    auto store = OpenOrDie(dir);
    ASSERT_TRUE(store);
    store->SetMeta("created_at_ms", "1");
    for (uint64_t i = 1; i <= 20000; ++i) store->StageSeen({i * 7919, 1, SeenState::kDone, 0, {}, {}});
    ASSERT_TRUE(store->Write(true).ok());
  }
  // CURRENT names the live manifest; without it RocksDB would start empty.
  const std::string current = dir + "/frontier.db/CURRENT";
  std::filesystem::rename(current, current + ".moved");
  UrlStoreOptions options;
  options.dir = dir;
  auto missing = UrlStore::Open(options);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(current), std::string::npos) << missing.status().message();
  std::filesystem::rename(current + ".moved", current);

  // Garbage over the manifest: refused, naming the database.
  std::string manifest;
  std::getline(std::ifstream(current), manifest);
  const std::string manifest_path = dir + "/frontier.db/" + manifest;
  ASSERT_TRUE(std::filesystem::exists(manifest_path)) << manifest_path;
  {
    std::fstream f(manifest_path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f << std::string(64, '\xff');
  }
  auto corrupted = UrlStore::Open(options);
  ASSERT_FALSE(corrupted.ok());
  EXPECT_NE(corrupted.status().message().find(dir + "/frontier.db"), std::string::npos)
      << corrupted.status().message();
}

TEST(UrlStoreTest, ASecondFrontierOnTheSameStateWaitsThenIsRefused) {
  const std::string dir = MakeTempDir("url_store_lock");
  auto first = OpenOrDie(dir);
  ASSERT_TRUE(first);
  UrlStoreOptions options;
  options.dir = dir;
  options.lock_wait_ms = 300;
  const auto start = std::chrono::steady_clock::now();
  auto second = UrlStore::Open(options);
  ASSERT_FALSE(second.ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
  EXPECT_NE(second.status().message().find("in use by another frontier"), std::string::npos)
      << second.status().message();
  // Once the first lets go, the wait ends in success.
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    first.reset();
  });
  options.lock_wait_ms = 5000;
  auto third = UrlStore::Open(options);
  release.join();
  EXPECT_TRUE(third.ok()) << third.status().message();
}

// The same, with the other frontier in another process: the store asks
// RocksDB's lock itself (store_lock.h), not the error's text.
TEST(UrlStoreTest, AFrontierInAnotherProcessIsWaitedForThenRefused) {
  const std::string dir = MakeTempDir("url_store_lock_process");
  EXPECT_FALSE(StoreHeld(dir + "/frontier.db")) << "no store yet";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto held = OpenOrDie(dir);
    const char byte = held ? 'y' : 'n';
    (void)!::write(ready[1], &byte, 1);
    ::pause();  // until killed
    _exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ASSERT_EQ(byte, 'y') << "the child could not open the store";
  EXPECT_TRUE(StoreHeld(dir + "/frontier.db"));
  UrlStoreOptions options;
  options.dir = dir;
  options.lock_wait_ms = 300;
  auto second = UrlStore::Open(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(second.status().message().find("in use by another frontier"), std::string::npos)
      << second.status().message();
  ::kill(child, SIGKILL);  // a kill -9 leaves the LOCK file, but not its lock
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(StoreHeld(dir + "/frontier.db"));
  options.lock_wait_ms = 5000;
  auto third = UrlStore::Open(options);
  EXPECT_TRUE(third.ok()) << third.status().message();
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST(UrlStoreTest, ReadOnlyOpenOfNoStateSaysSo) {
  UrlStoreOptions options;
  options.dir = MakeTempDir("url_store_none");
  options.read_only = true;
  auto store = UrlStore::Open(options);
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("no crawl state"), std::string::npos);
}

TEST(UrlStoreTest, ATemporaryStoreDeletesItsFolder) {
  const std::string dir = MakeTempDir("url_store_temp") + "/run";
  UrlStoreOptions options;
  options.dir = dir;
  options.temporary = true;
  {
    auto store = UrlStore::Open(options);
    ASSERT_TRUE(store.ok());
    (*store)->StageSeen({5, 1, SeenState::kWaiting, 0, {}, {}});
    ASSERT_TRUE((*store)->Write(true).ok());
    EXPECT_TRUE(std::filesystem::exists(dir + "/frontier.db"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace zcrawl::frontier

namespace zcrawl::frontier {
namespace {

// Every optional part of an origin record (refetched, where its queue
// starts, in line, its last failure) reads back as written, alone and
// together, by id and by name, and a record without them reads as zeros.
TEST(UrlStoreTest, OriginRecordsKeepTheirOptionalPartsByIdAndByName) {
  const std::string dir = zcrawl::testing::MakeTempDir("store_origin_records");
  UrlStoreOptions options;
  options.dir = dir;
  auto store = UrlStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<StoredOrigin> written;
  for (uint32_t id = 0; id < 16; ++id) {
    StoredOrigin origin{id, "http://h" + std::to_string(id) + ".test", 100, 10, 5, 0};
    if (id & 1) origin.refetched = 7;
    if (id & 2) origin.loaded_seq = 42;
    if (id & 4) origin.in_line = true;
    if (id & 8) {
      origin.last_failure = "connection_refused (Failed to connect to h" + std::to_string(id) + ".test port 80)";
    }
    (*store)->StageOrigin(origin);
    (*store)->StageOriginName(origin.origin, id);
    written.push_back(origin);
  }
  ASSERT_TRUE((*store)->Flush().ok());
  auto same = [](const StoredOrigin& a, const StoredOrigin& b) {
    return a.id == b.id && a.origin == b.origin && a.next_seq == b.next_seq && a.done == b.done &&
           a.failed == b.failed && a.refetched == b.refetched && a.loaded_seq == b.loaded_seq &&
           a.in_line == b.in_line && a.last_failure == b.last_failure;
  };
  for (const StoredOrigin& origin : written) {
    StoredOrigin by_id, by_name;
    ASSERT_TRUE((*store)->GetOrigin(origin.id, &by_id).ok());
    ASSERT_TRUE((*store)->FindOrigin(origin.origin, &by_name).ok());
    EXPECT_TRUE(same(by_id, origin)) << origin.origin;
    EXPECT_TRUE(same(by_name, origin)) << origin.origin;
  }
  size_t loaded = 0;
  ASSERT_TRUE((*store)->LoadOrigins([&](StoredOrigin&& origin) {
    EXPECT_TRUE(same(origin, written.at(origin.id))) << origin.origin;
    ++loaded;
  }).ok());
  EXPECT_EQ(loaded, written.size());
  StoredOrigin none;
  EXPECT_EQ((*store)->GetOrigin(99, &none).code(), StatusCode::kNotFound);
}

// An origin record as builds before the last failure was kept wrote it
// (the bytes spelled out here, not made by today's encoder): it reads as
// it did, with no last failure. A last failure that claims more bytes than
// the record holds is damage, not a name.
TEST(UrlStoreTest, AnOriginRecordOfAnOlderBuildReadsWithNoLastFailure) {
  using store_records::DecodeOrigin;
  using store_records::OriginKey;
  // next seq 300, done 200, failed 80, refetched 5, loaded seq 250, in line.
  std::string value;
  for (uint64_t n : {300, 200, 80}) PutVarint(n, &value);
  value += '\0';
  PutVarint(5, &value);
  value += '\1';
  PutVarint(250, &value);
  value += '\2';
  value += "http://127.0.0.2:8173";
  StoredOrigin origin;
  origin.last_failure = "left over from an earlier read";
  ASSERT_TRUE(DecodeOrigin(OriginKey(3), value, &origin));
  EXPECT_EQ(origin.id, 3u);
  EXPECT_EQ(origin.origin, "http://127.0.0.2:8173");
  EXPECT_EQ(origin.next_seq, 300u);
  EXPECT_EQ(origin.done, 200u);
  EXPECT_EQ(origin.failed, 80u);
  EXPECT_EQ(origin.refetched, 5u);
  EXPECT_EQ(origin.loaded_seq, 250u);
  EXPECT_TRUE(origin.in_line);
  EXPECT_EQ(origin.last_failure, "");

  // The plainest older record: counts and name only.
  std::string plain;
  for (uint64_t n : {3, 1, 1}) PutVarint(n, &plain);
  plain += "https://a.test";
  ASSERT_TRUE(DecodeOrigin(OriginKey(0), plain, &origin));
  EXPECT_EQ(origin.origin, "https://a.test");
  EXPECT_EQ(origin.failed, 1u);
  EXPECT_EQ(origin.last_failure, "");

  // Today's record of the same origin, with its last failure, and the
  // same cut short inside the failure.
  origin.last_failure = "http_404";
  const std::string current = store_records::EncodeOrigin(origin);
  StoredOrigin back;
  ASSERT_TRUE(DecodeOrigin(OriginKey(0), current, &back));
  EXPECT_EQ(back.last_failure, "http_404");
  EXPECT_EQ(back.origin, "https://a.test");
  const std::string cut = current.substr(0, current.find("http_404") + 3);
  EXPECT_FALSE(DecodeOrigin(OriginKey(0), cut, &back));
  EXPECT_FALSE(back.backoff.any()) << "an older record has no back-off";
}

TEST(UrlStoreRecordsTest, AnOriginRecordKeepsItsBackoff) {
  using store_records::DecodeOrigin;
  using store_records::OriginKey;
  StoredOrigin origin;
  origin.next_seq = 10;
  origin.origin = "https://a.test";
  origin.last_failure = "http_429";
  origin.backoff = StoredBackoff{1'700'000'000'000, 1'700'000'005'000, 1'700'000'001'000, 1'700'000'035'000,
                                 4'000, 500, 7};
  const std::string value = store_records::EncodeOrigin(origin);
  StoredOrigin back;
  ASSERT_TRUE(DecodeOrigin(OriginKey(3), value, &back));
  EXPECT_EQ(back.origin, "https://a.test");
  EXPECT_EQ(back.last_failure, "http_429");
  EXPECT_EQ(back.backoff.since_ms, 1'700'000'000'000);
  EXPECT_EQ(back.backoff.last_pushback_ms, 1'700'000'005'000);
  EXPECT_EQ(back.backoff.limited_since_ms, 1'700'000'001'000);
  EXPECT_EQ(back.backoff.hold_until_ms, 1'700'000'035'000);
  EXPECT_EQ(back.backoff.gap_ms, 4'000u);
  EXPECT_EQ(back.backoff.floor_ms, 500u);
  EXPECT_EQ(back.backoff.pushbacks, 7u);
  // Cut inside the back-off: refused, not read as a name.
  const size_t tag = value.find('\4');
  ASSERT_NE(tag, std::string::npos);
  EXPECT_FALSE(DecodeOrigin(OriginKey(3), value.substr(0, tag + 3), &back));
}

}  // namespace
}  // namespace zcrawl::frontier
