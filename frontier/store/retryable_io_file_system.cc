#include "frontier/store/retryable_io_file_system.h"

#include <utility>

namespace zcrawl::frontier {
namespace {

using rocksdb::IODebugContext;
using rocksdb::IOOptions;
using rocksdb::IOStatus;

// A writable file whose failed writes, syncs and close are retryable.
class RetryableWritableFile : public rocksdb::FSWritableFileOwnerWrapper {
 public:
  explicit RetryableWritableFile(std::unique_ptr<rocksdb::FSWritableFile> file)
      : FSWritableFileOwnerWrapper(std::move(file)) {}

  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Append(data, options, dbg));
  }
  IOStatus Append(const rocksdb::Slice& data, const IOOptions& options,
                  const rocksdb::DataVerificationInfo& verification, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Append(data, options, verification, dbg));
  }
  IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const IOOptions& options,
                            IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->PositionedAppend(data, offset, options, dbg));
  }
  IOStatus PositionedAppend(const rocksdb::Slice& data, uint64_t offset, const IOOptions& options,
                            const rocksdb::DataVerificationInfo& verification,
                            IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(
        target()->PositionedAppend(data, offset, options, verification, dbg));
  }
  IOStatus Truncate(uint64_t size, const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Truncate(size, options, dbg));
  }
  IOStatus Close(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Close(options, dbg));
  }
  IOStatus Flush(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Flush(options, dbg));
  }
  IOStatus Sync(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Sync(options, dbg));
  }
  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Fsync(options, dbg));
  }
  IOStatus RangeSync(uint64_t offset, uint64_t bytes, const IOOptions& options,
                     IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->RangeSync(offset, bytes, options, dbg));
  }
  IOStatus Allocate(uint64_t offset, uint64_t bytes, const IOOptions& options,
                    IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(target()->Allocate(offset, bytes, options, dbg));
  }
};

// A directory whose failed fsync (a new table's or WAL's name made durable)
// is retryable.
class RetryableDirectory : public rocksdb::FSDirectoryWrapper {
 public:
  explicit RetryableDirectory(std::unique_ptr<rocksdb::FSDirectory> directory)
      : FSDirectoryWrapper(std::move(directory)) {}

  IOStatus Fsync(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(FSDirectoryWrapper::Fsync(options, dbg));
  }
  IOStatus FsyncWithDirOptions(const IOOptions& options, IODebugContext* dbg,
                               const rocksdb::DirFsyncOptions& dir_options) override {
    return RetryableIoFileSystem::Retryable(FSDirectoryWrapper::FsyncWithDirOptions(options, dbg, dir_options));
  }
  IOStatus Close(const IOOptions& options, IODebugContext* dbg) override {
    return RetryableIoFileSystem::Retryable(FSDirectoryWrapper::Close(options, dbg));
  }
};

// Wraps a file just opened for writing; an error opening it is retryable too
// (a flush that cannot create its table file is retried like one that
// cannot write it).
IOStatus WrapWritable(IOStatus opened, std::unique_ptr<rocksdb::FSWritableFile>* file) {
  if (opened.ok() && *file) *file = std::make_unique<RetryableWritableFile>(std::move(*file));
  return RetryableIoFileSystem::Retryable(std::move(opened));
}

}  // namespace

RetryableIoFileSystem::RetryableIoFileSystem(const std::shared_ptr<rocksdb::FileSystem>& base)
    : FileSystemWrapper(base) {}

IOStatus RetryableIoFileSystem::Retryable(IOStatus status) {
  if (status.IsIOError() && !status.IsNoSpace() && !status.IsIOFenced()) status.SetRetryable(true);
  return status;
}

IOStatus RetryableIoFileSystem::NewWritableFile(const std::string& name, const rocksdb::FileOptions& options,
                                                std::unique_ptr<rocksdb::FSWritableFile>* file,
                                                IODebugContext* dbg) {
  return WrapWritable(target()->NewWritableFile(name, options, file, dbg), file);
}

IOStatus RetryableIoFileSystem::ReopenWritableFile(const std::string& name,
                                                   const rocksdb::FileOptions& options,
                                                   std::unique_ptr<rocksdb::FSWritableFile>* file,
                                                   IODebugContext* dbg) {
  return WrapWritable(target()->ReopenWritableFile(name, options, file, dbg), file);
}

IOStatus RetryableIoFileSystem::ReuseWritableFile(const std::string& name, const std::string& old_name,
                                                  const rocksdb::FileOptions& options,
                                                  std::unique_ptr<rocksdb::FSWritableFile>* file,
                                                  IODebugContext* dbg) {
  return WrapWritable(target()->ReuseWritableFile(name, old_name, options, file, dbg), file);
}

IOStatus RetryableIoFileSystem::NewDirectory(const std::string& name, const IOOptions& options,
                                             std::unique_ptr<rocksdb::FSDirectory>* directory,
                                             IODebugContext* dbg) {
  IOStatus opened = target()->NewDirectory(name, options, directory, dbg);
  if (opened.ok() && *directory) *directory = std::make_unique<RetryableDirectory>(std::move(*directory));
  return opened;
}

}  // namespace zcrawl::frontier
