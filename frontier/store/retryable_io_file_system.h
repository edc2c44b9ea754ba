// RetryableIoFileSystem: the file system under the frontier's store
// (UrlStore), which marks every I/O error of a write as retryable, so that
// RocksDB recovers from EIO by itself, in the same process, as it does from
// ENOSPC: an EIO in the store's files must never stop the crawl for good.
//
// Why: RocksDB 7.8 classes a background error by its reason, its code and
// paranoid_checks (on in the store), in db/error_handler.cc at v7.8.3
// (ErrorHandler::SetBGError and the severity maps above it). A plain
// IOError, which is what its POSIX files return for EIO, on a WAL write or
// sync (reason kWriteCallback), in a flush's table or MANIFEST (kFlush,
// kFlushNoWAL, kManifestWrite*) or in a compaction is kFatalError, and
// DBImpl::ResumeImpl refuses anything above kHardError: every write failed
// until the frontier was restarted. The same error with its retryable flag
// set takes SetBGError's branch for retryable IO errors instead:
//   - WAL write or sync, a flush whose WAL sync failed, a MANIFEST write:
//     kHardError. Writes fail until RocksDB's own auto-resume (a thread that
//     calls ResumeImpl every bgerror_resume_retry_interval, up to
//     max_bgerror_resume_count times) succeeds, or DB::Resume() does; the
//     resume flushes the memtables, which moves the writes to a new WAL
//     (only if a mutable memtable holds something: StoreWriter sees to
//     that, store_writer.cc).
//   - a flush's table file or directory (kFlushNoWAL): kSoftError with
//     background work stopped. Writes go on into the memtables, until their
//     limit stops them, while auto-resume retries the flush.
//   - compaction: no background error at all; the compaction is picked
//     again later.
// That holds because RocksDB never writes to a file again after one of its
// writes failed: a flush writes a new table, a resume a new WAL and
// MANIFEST. No space keeps its own path (SetBGError skips the retryable
// branch for kNoSpace: SstFileManager polls the free space, then resumes),
// so ENOSPC is passed on unmarked, as are IOFenced (another writer owns the
// database: fatal on purpose) and every error that is not an IOError.
//
// Only writes are marked: a failed read returns its error to the reader,
// and the store treats an unreadable key as present (url_store.cc).
//
// Thread-safety: stateless beyond the wrapped file system; RocksDB calls it
// from any of its threads, and each file it returns from one at a time.
#pragma once

#include <rocksdb/file_system.h>

#include <memory>
#include <string>

namespace zcrawl::frontier {

class RetryableIoFileSystem : public rocksdb::FileSystemWrapper {
 public:
  explicit RetryableIoFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base);

  static const char* kClassName() { return "RetryableIoFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // An I/O error of a write, marked retryable as described above; any other
  // status unchanged.
  static rocksdb::IOStatus Retryable(rocksdb::IOStatus status);

  rocksdb::IOStatus NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                    std::unique_ptr<rocksdb::FSWritableFile>* file,
                                    rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReopenWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                       std::unique_ptr<rocksdb::FSWritableFile>* file,
                                       rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus ReuseWritableFile(const std::string& name, const std::string& old_name,
                                      const rocksdb::FileOptions& options,
                                      std::unique_ptr<rocksdb::FSWritableFile>* file,
                                      rocksdb::IODebugContext* dbg) override;
  rocksdb::IOStatus NewDirectory(const std::string& name, const rocksdb::IOOptions& options,
                                 std::unique_ptr<rocksdb::FSDirectory>* directory,
                                 rocksdb::IODebugContext* dbg) override;
};

}  // namespace zcrawl::frontier
