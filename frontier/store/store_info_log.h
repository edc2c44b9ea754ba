// StoreInfoLog: RocksDB's own info LOG (flushes, compactions, errors) for
// the frontier's store, written beside the data (DIR/frontier.db/LOG) by
// this class instead of by RocksDB's file writer, because a full disk must
// never end the frontier.
//
// Why: RocksDB 7.8's default info log writes through a WritableFileWriter,
// and once one of its appends fails (ENOSPC, EIO) the next line it logs
// trips `assert(sync_without_flush_called_)` in Debian's build, which keeps
// its assertions: the frontier aborted (exit 134) while RocksDB logged the
// very error it was recovering from (issue 47, point 3). Nothing in RocksDB
// resets that writer, so neither DB::Resume() nor any store error path can
// avoid it; only an info log that shrugs off a failed write can.
//
// Contract: a line that cannot be written is dropped (counted in
// dropped_lines()), never retried and never reported to RocksDB, so the
// store's health is decided by its data files alone. The file is opened
// lazily in append mode (a second frontier waiting for the store's lock
// only appends, never truncates the running one's LOG) and rotated at
// `max_bytes` to LOG.old.<microseconds>, the name RocksDB's own logger uses:
// RocksDB deletes all but keep_log_file_num of those itself.
//
// Thread-safety: RocksDB logs from any of its threads; every call is
// serialised by mu_.
#pragma once

#include <rocksdb/env.h>

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <mutex>
#include <string>

namespace zcrawl::frontier {

class StoreInfoLog : public rocksdb::Logger {
 public:
  // `db_path`: the database's folder (the LOG goes in it).
  StoreInfoLog(std::string db_path, uint64_t max_bytes);
  ~StoreInfoLog() override;

  using rocksdb::Logger::Logv;
  void Logv(const char* format, va_list ap) override;
  size_t GetLogFileSize() const override;

  uint64_t dropped_lines() const { return dropped_lines_.load(std::memory_order_relaxed); }

 private:
  rocksdb::Status CloseImpl() override;
  // Opens LOG if needed, rotating it first when it is full (mu_ held).
  // False: no file to write to now (the line is dropped).
  bool Ready(size_t line_bytes);

  const std::string path_;
  const uint64_t max_bytes_;
  mutable std::mutex mu_;
  int fd_ = -1;           // guarded by mu_
  uint64_t size_ = 0;     // guarded by mu_: bytes in the open LOG
  std::atomic<uint64_t> dropped_lines_{0};
};

}  // namespace zcrawl::frontier
