// StoreWriter: applies the UrlStore's staged changes on a thread of its own,
// so the broker thread goes on routing while a batch is inserted into the
// memtables and the WAL is fsynced. Measured at ~10^7 known URLs, that
// write (memtable inserts of random fingerprints, then the fsync the broker
// waited for) was about a third of the broker thread's time, and the broker
// thread is what bounds the frontier's rate.
//
// One job at a time, in order: Start() hands a batch over, Finish() waits
// until it is applied. Batches therefore reach the database in the order
// they were staged, each atomically, which keeps the store's crash rule (a
// crash recovers a prefix of the batches). A failed batch is handed back by
// Finish() whole, to be staged again before anything newer.
//
// Thread-safety: Start and Finish are called by the owner's thread only
// (the broker); the writer thread touches the job under mu_ and the
// database, which RocksDB lets several threads use.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "common/status.h"

namespace rocksdb {
class DB;
class ColumnFamilyHandle;
class WriteBatch;
}  // namespace rocksdb

namespace zcrawl::frontier {

// One staged change: a put, or the SingleDelete of a queue entry. family is
// an index into the store's column family handles.
struct StagedChange {
  uint8_t family = 0;
  bool remove = false;
  std::string key;
  std::string value;
};

class StoreWriter {
 public:
  // `families` outlive the writer; `temporary`: no WAL, so nothing to fsync.
  StoreWriter(rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> families, bool temporary);
  ~StoreWriter();  // applies the job in flight, then stops
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // A batch handed over: the writer only reads it, so its owner may read it
  // too while it is in flight.
  using Batch = std::shared_ptr<const std::vector<StagedChange>>;

  // Starts applying `changes` as one atomic batch (then fsyncs the WAL if
  // `sync`). Only when no job is in flight: call Finish() first.
  void Start(Batch changes, bool sync);
  // Waits for the job in flight, if any. If its batch failed, returns the
  // error and sets *retry to the batch (to be staged again); if only its
  // fsync failed, returns the error (unsynced() stays true, so the next
  // sync retries). Ok otherwise, also when idle.
  Status Finish(Batch* retry);

  // Applied since the last fsync (so a sync without new changes is due).
  bool unsynced() const { return unsynced_; }
  uint64_t writes() const { return writes_.load(std::memory_order_relaxed); }

 private:
  void Run();
  // *written: the changes are in the database (the fsync may still fail).
  Status Apply(const std::vector<StagedChange>& changes, bool sync, bool* written);
  Status ApplyOnce(const std::vector<StagedChange>& changes, bool sync, bool* written);

  rocksdb::DB* db_;
  std::vector<rocksdb::ColumnFamilyHandle*> families_;
  bool temporary_;
  std::unique_ptr<rocksdb::WriteBatch> batch_;  // writer thread only, reused
  bool needs_resume_ = false;  // writer thread only: the last write failed
  Status resume_cause_ = Status::Ok();  // writer thread only: how it failed

  Mutex mu_;
  std::condition_variable cv_;
  bool pending_ GUARDED_BY(mu_) = false;  // a job was started and not yet applied
  bool stop_ GUARDED_BY(mu_) = false;
  Batch job_ GUARDED_BY(mu_);
  bool job_sync_ GUARDED_BY(mu_) = false;
  Status job_status_ GUARDED_BY(mu_) = Status::Ok();

  bool unsynced_ = false;  // owner thread only (set by Finish from the job)
  bool job_unsynced_ GUARDED_BY(mu_) = false;  // the job applied without fsync
  std::atomic<uint64_t> writes_{0};
  std::thread thread_;
};

}  // namespace zcrawl::frontier
