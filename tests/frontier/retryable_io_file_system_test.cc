// RetryableIoFileSystem under a real UrlStore (issue 47, point 3): EIO in
// the store's WAL, in its fsync, or in a flush's table file is recovered by
// RocksDB itself while the store stays open. The faults are injected below
// the store's file system, as the machine's would be (a plain IOError, what
// RocksDB's POSIX files return for EIO); writes go through UrlStore::Flush,
// the broker's path (a batch to the store's writer thread, then the WAL's
// fsync). Every test checks that the fault happened and was reported, that
// a retry on the same store succeeds once the fault is gone, and that a
// reopened store holds every acknowledged write.
#include "frontier/store/retryable_io_file_system.h"

#include <gtest/gtest.h>
#include <rocksdb/file_system.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "frontier/store/url_store.h"
#include "tests/support/test_process.h"

namespace zcrawl::frontier {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

// What an armed EioFileSystem fails.
enum class Fault { kNone, kWalWrite, kWalSync, kTableWrite };

// Fails, while armed, the writes (Append, PositionedAppend, Flush) or the
// syncs (Sync, Fsync, RangeSync) of the WAL (*.log) or of table files
// (*.sst) with the IOError that RocksDB's POSIX files return for EIO: not
// retryable, no scope, no data loss. Counts the failures.
class EioFileSystem : public rocksdb::FileSystemWrapper {
 public:
  EioFileSystem() : FileSystemWrapper(rocksdb::FileSystem::Default()) {}
  const char* Name() const override { return "EioFileSystem"; }

  void Arm(Fault fault) { fault_.store(fault); }
  int failures() const { return failures_.load(); }

  // The injected error, if this operation on `name` is armed to fail.
  IOStatus Inject(const std::string& name, bool sync) {
    const Fault fault = fault_.load();
    const bool wal = name.size() > 4 && name.compare(name.size() - 4, 4, ".log") == 0;
    const bool table = name.size() > 4 && name.compare(name.size() - 4, 4, ".sst") == 0;
    const bool fails = (fault == Fault::kWalWrite && wal && !sync) ||
                       (fault == Fault::kWalSync && wal && sync) ||
                       (fault == Fault::kTableWrite && table);
    if (!fails) return IOStatus::OK();
    failures_.fetch_add(1);
    return IOStatus::IOError(sync ? "While fsync: a file with path " + name : "While appending to file: " + name,
                             "Input/output error");
  }

  IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                           std::unique_ptr<rocksdb::FSWritableFile>* file, IODebugContext* dbg) override;

 private:
  std::atomic<Fault> fault_{Fault::kNone};
  std::atomic<int> failures_{0};
};

class EioWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  EioWritableFile(EioFileSystem* fs, std::string name, std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)), fs_(fs), name_(std::move(name)) {}

  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, false);
    return s.ok() ? target()->Append(data, options, dbg) : s;
  }
  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, false);
    return s.ok() ? target()->Append(data, options, info, dbg) : s;
  }
  IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, false);
    return s.ok() ? target()->PositionedAppend(data, offset, options, dbg) : s;
  }
  IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const IOOptions& options,
                            const rocksdb::DataVerificationInfo& info, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, false);
    return s.ok() ? target()->PositionedAppend(data, offset, options, info, dbg) : s;
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, false);
    return s.ok() ? target()->Flush(options, dbg) : s;
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, true);
    return s.ok() ? target()->Sync(options, dbg) : s;
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, true);
    return s.ok() ? target()->Fsync(options, dbg) : s;
  }
  IOStatus RangeSync(uint64_t offset, uint64_t bytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    IOStatus s = fs_->Inject(name_, true);
    return s.ok() ? target()->RangeSync(offset, bytes, options, dbg) : s;
  }

 private:
  EioFileSystem* fs_;
  const std::string name_;
};

IOStatus EioFileSystem::NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                        std::unique_ptr<rocksdb::FSWritableFile>* file,
                                        IODebugContext* dbg) {
  IOStatus s = target()->NewWritableFile(name, options, file, dbg);
  if (s.ok()) *file = std::make_unique<EioWritableFile>(this, name, std::move(*file));
  return s;
}

constexpr uint32_t kOrigin = 0;
constexpr char kOriginName[] = "http://a.test";
constexpr uint64_t kBatchUrls = 1000;

// A crawl's writes in miniature, with the model of what an acknowledged
// write leaves in the store: each batch admits kBatchUrls URLs (seen entry,
// queue entry, origin record) and marks half of the previous batch's done
// (their queue entries removed), as the broker does.
class Crawl {
 public:
  explicit Crawl(UrlStore* store) : store_(store) {}

  // Stages the next batch.
  void Stage() {
    const uint64_t first = next_seq_;
    for (uint64_t seq = first; seq < first + kBatchUrls; ++seq) {
      // ~110 bytes per URL: a flush comes every few dozen batches.
      const std::string url = std::string(kOriginName) + "/page/" + std::to_string(seq) + "/" +
                              std::string(80, 'x');
      store_->StageSeen({seq, 1, SeenState::kAdmitted, 0, {}, {}});
      store_->StageQueued(kOrigin, kOriginName, {seq, url, 1, 0});
      staged_queue_[seq] = url;
    }
    for (uint64_t seq : previous_) {
      if (seq % 2 == 0) {
        store_->StageDequeued(kOrigin, seq);
        staged_removed_.insert(seq);
      }
    }
    previous_.clear();
    for (uint64_t seq = first; seq < first + kBatchUrls; ++seq) previous_.push_back(seq);
    next_seq_ = first + kBatchUrls;
    store_->StageOrigin({kOrigin, kOriginName, next_seq_, done_ + staged_removed_.size(), 0});
  }
  // UrlStore::Flush: written and fsynced, or an error (the batch stays
  // staged and the next Flush retries it).
  Status Flush() {
    Status s = store_->Flush();
    if (s.ok()) Acknowledge();
    return s;
  }
  // Flush until it succeeds; false after `timeout`.
  bool FlushUntilOk(std::chrono::seconds timeout, std::string* last_error) {
    const auto give_up = std::chrono::steady_clock::now() + timeout;
    while (true) {
      Status s = Flush();
      if (s.ok()) return true;
      *last_error = s.message();
      if (std::chrono::steady_clock::now() >= give_up) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  uint64_t acknowledged_batches() const { return acknowledged_batches_; }

  // The reopened store at `dir` holds exactly the acknowledged writes.
  static void ExpectStoreHolds(const std::string& dir, const Crawl& crawl) {
    UrlStoreOptions options;
    options.dir = dir;
    auto reopened = UrlStore::Open(options);
    ASSERT_TRUE(reopened.ok()) << reopened.status().message();
    UrlStore& store = **reopened;
    std::vector<QueuedUrl> queue;
    ASSERT_TRUE(store.LoadQueue(kOrigin, kOriginName, 0, 1 << 30, &queue).ok());
    std::map<uint64_t, std::string> stored;
    for (const QueuedUrl& url : queue) stored[url.seq] = url.url;
    EXPECT_EQ(stored.size(), crawl.queue_.size());
    EXPECT_TRUE(stored == crawl.queue_) << "the queue differs from the acknowledged writes";
    std::set<uint64_t> seen;
    ASSERT_TRUE(store.ForEachSeen([&](const SeenEntry& entry) {
      seen.insert(entry.fingerprint);
      return true;
    }).ok());
    EXPECT_EQ(seen.size(), crawl.next_acknowledged_seq_ - 1);
    EXPECT_EQ(*seen.begin(), 1u);
    EXPECT_EQ(*seen.rbegin(), crawl.next_acknowledged_seq_ - 1);
    std::vector<StoredOrigin> origins;
    ASSERT_TRUE(store.LoadOrigins([&](StoredOrigin&& origin) { origins.push_back(origin); }).ok());
    ASSERT_EQ(origins.size(), 1u);
    EXPECT_EQ(origins[0].next_seq, crawl.next_acknowledged_seq_);
    EXPECT_EQ(origins[0].queued(), crawl.queue_.size());
  }

 private:
  void Acknowledge() {
    for (auto& [seq, url] : staged_queue_) queue_[seq] = std::move(url);
    for (uint64_t seq : staged_removed_) queue_.erase(seq);
    done_ += staged_removed_.size();
    staged_queue_.clear();
    staged_removed_.clear();
    next_acknowledged_seq_ = next_seq_;
    ++acknowledged_batches_;
  }

  UrlStore* store_;
  uint64_t next_seq_ = 1;
  uint64_t done_ = 0;
  std::vector<uint64_t> previous_;
  std::map<uint64_t, std::string> staged_queue_;
  std::set<uint64_t> staged_removed_;
  // Acknowledged: what a reopened store must hold.
  std::map<uint64_t, std::string> queue_;
  uint64_t next_acknowledged_seq_ = 1;
  uint64_t acknowledged_batches_ = 0;
};

std::unique_ptr<UrlStore> OpenOn(const std::string& dir, std::shared_ptr<EioFileSystem> fs) {
  UrlStoreOptions options;
  options.dir = dir;
  // The smallest cache: 4 MB of memtables, so a flush comes soon.
  options.cache_bytes = 8 << 20;
  options.file_system = std::move(fs);
  auto store = UrlStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

size_t TableFiles(const std::string& dir) {
  size_t tables = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/frontier.db")) {
    tables += entry.path().extension() == ".sst";
  }
  return tables;
}

// RocksDB's auto-resume tries once a second; a few tries at most.
constexpr std::chrono::seconds kRecoveryBound{20};

// The fault ends: the same store takes the failed batch within the bound,
// then three more.
void EndFaultAndExpectRecovery(EioFileSystem& fs, Crawl& crawl) {
  fs.Arm(Fault::kNone);
  std::string last_error;
  ASSERT_TRUE(crawl.FlushUntilOk(kRecoveryBound, &last_error))
      << "the store did not recover from EIO in place: " << last_error;
  for (int i = 0; i < 3; ++i) {
    crawl.Stage();
    ASSERT_TRUE(crawl.Flush().ok());
  }
}

// The WAL fault (write or fsync) while the store holds earlier batches:
// the batch's Flush fails, the same store takes it once the fault is gone.
void ExpectRecoveryFromWalFault(Fault fault, const std::string& dir, int batches_before) {
  auto fs = std::make_shared<EioFileSystem>();
  {
    auto store = OpenOn(dir, fs);
    ASSERT_TRUE(store);
    Crawl crawl(store.get());
    for (int i = 0; i < batches_before; ++i) {
      crawl.Stage();
      ASSERT_TRUE(crawl.Flush().ok());
    }
    fs->Arm(fault);
    crawl.Stage();
    Status failed = crawl.Flush();
    EXPECT_FALSE(failed.ok()) << "a write with its WAL failing was acknowledged";
    EXPECT_GT(fs->failures(), 0);
    // Still failing while the fault lasts.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    EXPECT_FALSE(crawl.Flush().ok());
    ASSERT_NO_FATAL_FAILURE(EndFaultAndExpectRecovery(*fs, crawl));
    EXPECT_EQ(crawl.acknowledged_batches(), static_cast<uint64_t>(batches_before) + 4);
    store.reset();
    Crawl::ExpectStoreHolds(dir, crawl);
  }
}

TEST(RetryableIoFileSystemTest, EioMarkedRetryableAndOtherStatusesUnchanged) {
  IOStatus eio = RetryableIoFileSystem::Retryable(IOStatus::IOError("append", "Input/output error"));
  EXPECT_TRUE(eio.IsIOError());
  EXPECT_TRUE(eio.GetRetryable());
  // No space keeps RocksDB's own path (SstFileManager), fencing stays fatal.
  EXPECT_FALSE(RetryableIoFileSystem::Retryable(IOStatus::NoSpace("append")).GetRetryable());
  EXPECT_FALSE(RetryableIoFileSystem::Retryable(IOStatus::IOFenced("append")).GetRetryable());
  EXPECT_FALSE(RetryableIoFileSystem::Retryable(IOStatus::Corruption("x")).GetRetryable());
  EXPECT_TRUE(RetryableIoFileSystem::Retryable(IOStatus::OK()).ok());
}

TEST(RetryableIoFileSystemTest, AStoreRecoversInPlaceFromEioWritingItsWal) {
  ExpectRecoveryFromWalFault(Fault::kWalWrite, zcrawl::testing::MakeTempDir("eio_wal_write"), 3);
}

TEST(RetryableIoFileSystemTest, AStoreRecoversInPlaceFromEioSyncingItsWal) {
  ExpectRecoveryFromWalFault(Fault::kWalSync, zcrawl::testing::MakeTempDir("eio_wal_sync"), 3);
}

// The first write of a store just opened (every memtable empty, so the
// resume's flush has nothing to flush).
TEST(RetryableIoFileSystemTest, AStoreRecoversInPlaceFromEioInItsFirstWalWrite) {
  ExpectRecoveryFromWalFault(Fault::kWalWrite, zcrawl::testing::MakeTempDir("eio_wal_first"), 0);
}

// A flush's table file fails: writes go on into the memtables until their
// bound stops them, then fail; once the fault is gone RocksDB flushes again
// and the same store takes the write.
TEST(RetryableIoFileSystemTest, AStoreRecoversInPlaceFromEioWritingATable) {
  const std::string dir = zcrawl::testing::MakeTempDir("eio_table");
  auto fs = std::make_shared<EioFileSystem>();
  auto store = OpenOn(dir, fs);
  ASSERT_TRUE(store);
  Crawl crawl(store.get());
  crawl.Stage();
  ASSERT_TRUE(crawl.Flush().ok());
  ASSERT_EQ(TableFiles(dir), 0u);
  fs->Arm(Fault::kTableWrite);
  Status failed = Status::Ok();
  for (int i = 0; i < 300 && failed.ok(); ++i) {
    crawl.Stage();
    failed = crawl.Flush();
  }
  ASSERT_GT(fs->failures(), 0) << "no flush was tried";
  EXPECT_FALSE(failed.ok()) << "writes never stopped while no table could be written";
  EXPECT_EQ(TableFiles(dir), 0u);
  ASSERT_NO_FATAL_FAILURE(EndFaultAndExpectRecovery(*fs, crawl));
  EXPECT_GT(TableFiles(dir), 0u) << "no flush succeeded after the fault";
  store.reset();
  Crawl::ExpectStoreHolds(dir, crawl);
}

}  // namespace
}  // namespace zcrawl::frontier
