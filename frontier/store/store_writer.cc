#include "frontier/store/store_writer.h"

#include <pthread.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>

namespace zcrawl::frontier {
namespace {

// A change's place in its batch's key order, from integers: keys of up to
// 16 bytes (seen: 8, queue: 12, origins: 4) compare like their bytes do as
// two big-endian, zero-padded halves, then their length (a prefix sorts
// first); memcmp per comparison was the sort's cost. Longer keys (meta
// names) compare as strings.
struct SortKey {
  uint64_t head = 0;  // bytes 0-7
  uint64_t tail = 0;  // bytes 8-15
  uint32_t index = 0;
  uint8_t family = 0;
  uint8_t length = 0;  // 17: longer than 16, compare the strings
};

SortKey MakeSortKey(const StagedChange& change, uint32_t index) {
  SortKey key;
  key.index = index;
  key.family = change.family;
  const std::string& bytes = change.key;
  key.length = static_cast<uint8_t>(std::min<size_t>(bytes.size(), 17));
  for (size_t i = 0; i < 16; ++i) {
    const uint64_t byte = i < bytes.size() ? static_cast<uint8_t>(bytes[i]) : 0;
    (i < 8 ? key.head : key.tail) = (i < 8 ? key.head : key.tail) << 8 | byte;
  }
  return key;
}

// In the meta family (families_[0]); never written, only deleted (ApplyOnce).
constexpr char kWalGuardKey[] = "store-writer/wal-guard";

// No space (ENOSPC, or a database stopped by it) is ResourceExhausted: the
// broker waits for space. Anything else is Unavailable: retried.
Status ToStoreStatus(const rocksdb::Status& s, const std::string& what) {
  return s.IsNoSpace() ? ResourceExhaustedError(what + s.ToString()) : UnavailableError(what + s.ToString());
}

}  // namespace

StoreWriter::StoreWriter(rocksdb::DB* db, std::vector<rocksdb::ColumnFamilyHandle*> families,
                         bool temporary)
    : db_(db),
      families_(std::move(families)),
      temporary_(temporary),
      batch_(std::make_unique<rocksdb::WriteBatch>()),
      thread_([this] { Run(); }) {}

StoreWriter::~StoreWriter() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();  // Run applies a job in flight before it returns
}

void StoreWriter::Start(Batch changes, bool sync) {
  {
    MutexLock lock(mu_);
    job_ = std::move(changes);
    job_sync_ = sync;
    pending_ = true;
  }
  cv_.notify_all();
}

Status StoreWriter::Finish(Batch* retry) {
  MutexLock lock(mu_);
  while (pending_) cv_.wait(lock.native());
  unsynced_ = job_unsynced_;
  if (job_status_.ok()) return Status::Ok();
  Status failed = job_status_;
  job_status_ = Status::Ok();
  *retry = std::move(job_);  // none when only the fsync failed
  job_.reset();
  return failed;
}

void StoreWriter::Run() {
  pthread_setname_np(pthread_self(), "store-writer");  // names what top -H and perf show
  MutexLock lock(mu_);
  while (true) {
    while (!pending_ && !stop_) cv_.wait(lock.native());
    if (!pending_) return;  // stopping, nothing in flight
    // The owner waits in Finish() before it touches job_ again, and never
    // changes the batch (shared, const), so it is applied without the lock.
    const Batch job = job_;
    const bool sync = job_sync_;
    lock.Unlock();
    bool written = false;
    const Status s = Apply(job ? *job : std::vector<StagedChange>(), sync, &written);
    lock.Lock();
    job_status_ = s;
    if (written) {
      // Applied (even if its fsync failed: the next sync retries that, and
      // applying the changes twice would repeat a queue entry's removal).
      job_unsynced_ = !temporary_ && (!s.ok() || (!job_sync_ && (job_unsynced_ || (job && !job->empty()))));
      job_.reset();
    }
    pending_ = false;
    cv_.notify_all();
  }
}

Status StoreWriter::Apply(const std::vector<StagedChange>& changes, bool sync, bool* written) {
  *written = changes.empty();
  if (needs_resume_) {
    // After a failed write RocksDB stays read-only (a background error,
    // e.g. no space in its log) until Resume succeeds, which it does once
    // the cause is gone. Until then nothing else touches the database: a
    // sync of a log that failed is what RocksDB must never be asked for.
    // Busy: RocksDB's own recovery is under way (for no space, its
    // SstFileManager polls the free space and resumes the database itself);
    // the failure is still the one that stopped the writes.
    if (rocksdb::Status r = db_->Resume(); !r.ok()) {
      return r.IsBusy() ? resume_cause_ : ToStoreStatus(r, "");
    }
    needs_resume_ = false;
  }
  Status applied = ApplyOnce(changes, sync, written);
  if (!applied.ok()) {
    needs_resume_ = true;
    resume_cause_ = applied;
  }
  return applied;
}

Status StoreWriter::ApplyOnce(const std::vector<StagedChange>& changes, bool sync, bool* written) {
  if (!changes.empty()) {
    // One batch is atomic, so its order is free: sorted by family and key,
    // each memtable insert starts from where the previous one ended
    // (RocksDB's skiplist keeps that splice) instead of searching from the
    // top. Changes to one key (a queue entry's put and its removal) keep
    // their staging order.
    // Kept by the writer thread from batch to batch: its pages stay mapped.
    thread_local std::vector<SortKey> order;
    order.clear();
    order.reserve(changes.size());
    for (uint32_t i = 0; i < changes.size(); ++i) order.push_back(MakeSortKey(changes[i], i));
    std::sort(order.begin(), order.end(), [&](const SortKey& x, const SortKey& y) {
      if (x.family != y.family) return x.family < y.family;
      if (x.head != y.head) return x.head < y.head;
      if (x.tail != y.tail) return x.tail < y.tail;
      if (x.length == 17 && y.length == 17) {
        const int c = changes[x.index].key.compare(changes[y.index].key);
        if (c != 0) return c < 0;
      } else if (x.length != y.length) {
        return x.length < y.length;
      }
      return x.index < y.index;  // the same key: staging order
    });
    batch_->Clear();
    for (const SortKey& sorted : order) {
      const StagedChange& change = changes[sorted.index];
      rocksdb::ColumnFamilyHandle* family = families_[change.family];
      // Each queue key is put exactly once (seqs are never reused), which
      // is what SingleDelete needs: its tombstone vanishes with the put it
      // meets instead of travelling down to the last level.
      (change.remove ? batch_->SingleDelete(family, change.key)
                     : batch_->Put(family, change.key, change.value))
          .PermitUncheckedError();
    }
    if (!temporary_) {
      // A mutable memtable that is never empty when a batch's WAL write
      // fails: the tombstone of a key no one writes, without the WAL (no
      // reader sees it, and losing it loses nothing). RocksDB 7.8 moves its
      // writes to a new WAL, after one failed, only in the resume's flush,
      // and only for a family with something in its mutable memtable
      // (DBImpl::FlushMemTable calls SwitchMemtable only then). With every
      // memtable empty (a store just opened or just resumed) it resumed onto
      // the failed WAL, whose next append aborts on an assertion in Debian's
      // build (WritableFileWriter's sync_without_flush_called_). Left open:
      // the batch whose own preprocessing switches every memtable at once
      // (WAL or memory bound crossed at that write) and then fails.
      rocksdb::WriteOptions no_wal;
      no_wal.disableWAL = true;
      if (rocksdb::Status s = db_->Delete(no_wal, families_[0], kWalGuardKey); !s.ok()) {
        return ToStoreStatus(s, "");
      }
    }
    rocksdb::WriteOptions write;
    write.disableWAL = temporary_;
    if (rocksdb::Status s = db_->Write(write, batch_.get()); !s.ok()) return ToStoreStatus(s, "");
    writes_.fetch_add(1, std::memory_order_relaxed);
    *written = true;
  }
  if (sync && !temporary_) {
    if (rocksdb::Status s = db_->SyncWAL(); !s.ok()) return ToStoreStatus(s, "fsync: ");
  }
  return Status::Ok();
}

}  // namespace zcrawl::frontier
