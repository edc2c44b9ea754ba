#include "frontier/url_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "common/varint.h"

namespace zcrawl::frontier {
namespace {

enum Family : size_t { kMeta = 0, kSeen = 1, kQueue = 2, kOrigins = 3 };
const char* const kFamilyNames[] = {"default", "seen", "queue", "origins"};

// Keys are big-endian so that RocksDB's byte order is numeric order: an
// origin's queue is one contiguous, seq-ordered range.
void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
uint64_t GetBigEndian(std::string_view in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<uint8_t>(in[offset + i]);
  return value;
}

std::string SeenKey(uint64_t fingerprint) {
  std::string key;
  PutBigEndian(key, fingerprint, 8);
  return key;
}
std::string OriginKey(uint32_t origin_id) {
  std::string key;
  PutBigEndian(key, origin_id, 4);
  return key;
}
std::string QueueKey(uint32_t origin_id, uint64_t seq) {
  std::string key = OriginKey(origin_id);
  PutBigEndian(key, seq, 8);
  return key;
}

Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption()) return DataLossError(what + ": corrupted: " + s.ToString());
  if (s.IsNoSpace()) return ResourceExhaustedError(what + ": " + s.ToString());
  return UnavailableError(what + ": " + s.ToString());
}

// One table configuration for every family: blocks and their index and
// filter blocks all live in the one block cache, so the budget holds.
rocksdb::ColumnFamilyOptions FamilyOptions(const std::shared_ptr<rocksdb::Cache>& cache,
                                           Family family) {
  rocksdb::ColumnFamilyOptions options;
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.format_version = 5;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Partitioned indexes: a huge file's index is paged through the cache
  // instead of held whole.
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.compression = rocksdb::kLZ4Compression;
  options.bottommost_compression = rocksdb::kZSTD;
  options.level_compaction_dynamic_level_bytes = true;
  if (family == kSeen) {
    // Lookups that reach the disk are mostly for URLs that exist (the
    // resident filter answered "maybe"): the last level, where ~90% of the
    // keys are, needs no filter.
    options.optimize_filters_for_hits = true;
  }
  if (family == kQueue) {
    // Queues are read by prefix (one origin), never by point lookup.
    options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
  }
  return options;
}

}  // namespace

Result<std::unique_ptr<UrlStore>> UrlStore::Open(const UrlStoreOptions& options) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!options.read_only) {
    fs::create_directories(options.dir, ec);
    if (ec) return PermissionDeniedError("cannot create state folder " + options.dir + ": " + ec.message());
  }
  const std::string path = options.dir + "/frontier.db";
  const std::string legacy = options.dir + "/frontier.sqlite";
  if (options.fresh) {
    fs::remove_all(path, ec);
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(legacy + suffix, ec);
  }
  const bool existed = fs::exists(path + "/CURRENT");
  if (!existed && fs::exists(legacy)) {
    return InvalidArgumentError(legacy + " is the state of an older zcrawl (SQLite); this one keeps "
                                   "its state in " + path + ". Finish that crawl with the older "
                                   "build, or start over with --fresh");
  }
  if (!existed && fs::exists(path) && !fs::is_empty(path, ec)) {
    return DataLossError(path + "/CURRENT is missing: the state database is damaged (restore it, or "
                         "start over with --fresh)");
  }
  if (options.read_only && !existed) return NotFoundError("no crawl state in " + path);

  std::unique_ptr<UrlStore> store(new UrlStore());
  store->dir_ = options.dir;
  store->path_ = path;
  store->temporary_ = options.temporary;
  store->cache_ = rocksdb::NewLRUCache(std::max<uint64_t>(options.cache_bytes, 8 << 20));
  // Memtables take a quarter of the cache, charged to it: one bound for both.
  const uint64_t write_buffer_bytes = std::max<uint64_t>(options.cache_bytes / 4, 4 << 20);
  store->write_buffers_ =
      std::make_shared<rocksdb::WriteBufferManager>(write_buffer_bytes, store->cache_);

  rocksdb::DBOptions db_options;
  db_options.create_if_missing = !options.read_only;
  db_options.create_missing_column_families = !options.read_only;
  db_options.write_buffer_manager = store->write_buffers_;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;
  db_options.max_open_files = 512;
  // RocksDB's own info LOG (flushes, compactions) beside the data: capped,
  // so a crawl of weeks does not grow it without bound.
  db_options.keep_log_file_num = 2;
  db_options.max_log_file_size = 8 << 20;
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  db_options.paranoid_checks = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (size_t f = kMeta; f <= kOrigins; ++f) {
    rocksdb::ColumnFamilyOptions cf = FamilyOptions(store->cache_, static_cast<Family>(f));
    cf.write_buffer_size = std::max<uint64_t>(write_buffer_bytes / 4, 1 << 20);
    families.emplace_back(kFamilyNames[f], cf);
  }
  rocksdb::DB* db = nullptr;
  rocksdb::Status s;
  // One frontier per state folder (RocksDB's LOCK file). One that is still
  // shutting down (a restart, or the launcher's SIGTERM) gets a moment.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.lock_wait_ms);
  bool said_waiting = false;
  while (true) {
    s = options.read_only
            ? rocksdb::DB::OpenForReadOnly(db_options, path, families, &store->families_, &db)
            : rocksdb::DB::Open(db_options, path, families, &store->families_, &db);
    // "While lock file: .../LOCK" (another process) or "lock hold by current
    // process ... /LOCK" (this one).
    const bool locked = s.IsIOError() && s.ToString().find("/LOCK") != std::string::npos;
    if (!locked) break;
    if (std::chrono::steady_clock::now() >= give_up) {
      return UnavailableError(path + " is in use by another frontier (" + s.ToString() + ")");
    }
    if (!said_waiting) {
      spdlog::warn("{} is in use by another frontier; waiting up to {} ms for it to exit", path,
                   options.lock_wait_ms);
      said_waiting = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!s.ok()) return FromRocks(s, "cannot open " + path);
  store->db_.reset(db);
  store->batch_ = std::make_unique<rocksdb::WriteBatch>();
  store->resumed_ = existed && !store->GetMeta("created_at_ms").empty();
  return store;
}

UrlStore::~UrlStore() {
  if (db_) {
    for (auto* family : families_) db_->DestroyColumnFamilyHandle(family);
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  if (temporary_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);  // a folder made for this run
  }
}

void UrlStore::Contains(const std::vector<uint64_t>& fingerprints, std::vector<bool>* present) {
  present->assign(fingerprints.size(), false);
  std::vector<std::string> keys;
  std::vector<size_t> positions;
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    if (staged_seen_.count(fingerprints[i])) {
      (*present)[i] = true;
    } else {
      keys.push_back(SeenKey(fingerprints[i]));
      positions.push_back(i);
    }
  }
  if (keys.empty()) return;
  // Sorted keys let MultiGet walk each file once.
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<rocksdb::Slice> slices;
  slices.reserve(keys.size());
  for (size_t i : order) slices.emplace_back(keys[i]);
  std::vector<rocksdb::PinnableSlice> values(keys.size());
  std::vector<rocksdb::Status> statuses(keys.size());
  db_->MultiGet(rocksdb::ReadOptions(), families_[kSeen], slices.size(), slices.data(),
                values.data(), statuses.data(), /*sorted_input=*/true);
  disk_lookups_ += keys.size();
  for (size_t j = 0; j < order.size(); ++j) {
    // Anything but a clean "not found" counts as present: an I/O error must
    // never admit a URL twice (at worst it skips one, and says so).
    (*present)[positions[order[j]]] = !statuses[j].IsNotFound();
  }
}

void UrlStore::StageSeen(const SeenEntry& entry) {
  std::string value(1, static_cast<char>(entry.state));
  if (entry.state == SeenState::kFailed) {
    PutVarint(entry.attempts, &value);
    PutVarint(entry.reason.size(), &value);
    value += entry.reason;
    value += entry.url;
  }
  batch_->Put(families_[kSeen], SeenKey(entry.fingerprint), value).PermitUncheckedError();
  staged_seen_.insert(entry.fingerprint);
  ++staged_count_;
}

void UrlStore::StageQueued(uint32_t origin_id, std::string_view origin, const QueuedUrl& url) {
  std::string value;
  PutVarint(url.depth, &value);
  PutVarint(url.attempts, &value);
  // The origin is implied by the key: store only what follows it.
  const bool under_origin = url.url.compare(0, origin.size(), origin) == 0;
  value.push_back(under_origin ? 0 : 1);
  value.append(under_origin ? std::string_view(url.url).substr(origin.size()) : std::string_view(url.url));
  batch_->Put(families_[kQueue], QueueKey(origin_id, url.seq), value).PermitUncheckedError();
  ++staged_count_;
}

void UrlStore::StageDequeued(uint32_t origin_id, uint64_t seq) {
  batch_->Delete(families_[kQueue], QueueKey(origin_id, seq)).PermitUncheckedError();
  ++staged_count_;
}

Status UrlStore::LoadQueue(uint32_t origin_id, std::string_view origin, uint64_t after_seq,
                           size_t max, std::vector<QueuedUrl>* out) {
  const std::string prefix = OriginKey(origin_id);
  rocksdb::ReadOptions read;
  read.prefix_same_as_start = true;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, families_[kQueue]));
  size_t loaded = 0;
  for (it->Seek(QueueKey(origin_id, after_seq + 1)); it->Valid() && loaded < max; it->Next()) {
    const std::string_view key = it->key().ToStringView();
    if (key.size() != 12 || key.compare(0, 4, prefix) != 0) break;
    const std::string_view value = it->value().ToStringView();
    QueuedUrl url;
    url.seq = GetBigEndian(key, 4, 8);
    size_t offset = 0;
    uint64_t depth = 0, attempts = 0;
    if (!GetVarint(value, &offset, &depth) || !GetVarint(value, &offset, &attempts) ||
        offset >= value.size()) {
      return DataLossError(path_ + ": malformed queue entry of origin " + std::string(origin));
    }
    const bool under_origin = value[offset++] == 0;
    url.url = under_origin ? std::string(origin) : std::string();
    url.url.append(value.substr(offset));
    url.depth = static_cast<uint32_t>(depth);
    url.attempts = static_cast<uint32_t>(attempts);
    out->push_back(std::move(url));
    ++loaded;
  }
  return FromRocks(it->status(), "cannot read queue in " + path_);
}

void UrlStore::StageOrigin(const StoredOrigin& origin) {
  std::string value;
  PutVarint(origin.next_seq, &value);
  PutVarint(origin.done, &value);
  PutVarint(origin.failed, &value);
  value += origin.origin;
  batch_->Put(families_[kOrigins], OriginKey(origin.id), value).PermitUncheckedError();
  ++staged_count_;
}

Status UrlStore::LoadOrigins(const std::function<void(StoredOrigin&&)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[kOrigins]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    const std::string_view value = it->value().ToStringView();
    StoredOrigin origin;
    size_t offset = 0;
    if (key.size() != 4 || !GetVarint(value, &offset, &origin.next_seq) ||
        !GetVarint(value, &offset, &origin.done) || !GetVarint(value, &offset, &origin.failed) ||
        origin.done + origin.failed >= origin.next_seq + 1) {
      return DataLossError(path_ + ": malformed origin record");
    }
    origin.id = static_cast<uint32_t>(GetBigEndian(key, 0, 4));
    origin.origin = std::string(value.substr(offset));
    visit(std::move(origin));
  }
  return FromRocks(it->status(), "cannot read origins in " + path_);
}

void UrlStore::SetMeta(const std::string& key, const std::string& value) {
  batch_->Put(families_[kMeta], key, value).PermitUncheckedError();
  ++staged_count_;
}

std::string UrlStore::GetMeta(const std::string& key) {
  std::string value;
  if (!db_->Get(rocksdb::ReadOptions(), families_[kMeta], key, &value).ok()) return "";
  return value;
}

Status UrlStore::Write(bool sync) {
  if (staged_count_ > 0) {
    rocksdb::WriteOptions write;
    write.disableWAL = temporary_;
    rocksdb::Status s = db_->Write(write, batch_.get());
    if (!s.ok()) return FromRocks(s, "cannot write " + path_);
    batch_->Clear();
    staged_seen_.clear();
    staged_count_ = 0;
    ++writes_;
    unsynced_ = true;
  }
  if (sync && unsynced_ && !temporary_) {
    if (rocksdb::Status s = db_->SyncWAL(); !s.ok()) return FromRocks(s, "cannot sync " + path_);
    unsynced_ = false;
  }
  return Status::Ok();
}

SeenScan::SeenScan(std::unique_ptr<rocksdb::Iterator> iterator) : iterator_(std::move(iterator)) {}
SeenScan::~SeenScan() = default;

Status SeenScan::ForEach(const std::function<bool(uint64_t)>& visit) {
  for (iterator_->SeekToFirst(); iterator_->Valid(); iterator_->Next()) {
    const std::string_view key = iterator_->key().ToStringView();
    if (key.size() != 8) return DataLossError("malformed seen key");
    if (!visit(GetBigEndian(key, 0, 8))) break;
  }
  return FromRocks(iterator_->status(), "cannot scan the seen set");
}

std::unique_ptr<SeenScan> UrlStore::StartSeenScan() {
  rocksdb::ReadOptions read;
  read.fill_cache = false;  // a one-off sequential pass: keep the cache for lookups
  read.readahead_size = 2 << 20;
  return std::make_unique<SeenScan>(
      std::unique_ptr<rocksdb::Iterator>(db_->NewIterator(read, families_[kSeen])));
}

Status UrlStore::ForEachSeen(const std::function<bool(const SeenEntry&)>& visit) {
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[kSeen]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    const std::string_view value = it->value().ToStringView();
    if (key.size() != 8 || value.empty()) return DataLossError(path_ + ": malformed seen entry");
    SeenEntry entry;
    entry.fingerprint = GetBigEndian(key, 0, 8);
    entry.state = static_cast<SeenState>(value[0]);
    if (entry.state == SeenState::kFailed) {
      size_t offset = 1;
      uint64_t attempts = 0, reason_size = 0;
      if (!GetVarint(value, &offset, &attempts) || !GetVarint(value, &offset, &reason_size) ||
          offset + reason_size > value.size()) {
        return DataLossError(path_ + ": malformed failed entry");
      }
      entry.attempts = static_cast<uint32_t>(attempts);
      entry.reason = std::string(value.substr(offset, reason_size));
      entry.url = std::string(value.substr(offset + reason_size));
    }
    if (!visit(entry)) break;
  }
  return FromRocks(it->status(), "cannot read " + path_);
}

uint64_t UrlStore::disk_bytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) {
    if (entry.is_regular_file(ec)) total += entry.file_size(ec);
  }
  return total;
}

uint64_t UrlStore::memory_bytes() const {
  uint64_t readers = 0;
  db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem, &readers);
  return cache_->GetUsage() + readers;
}

}  // namespace zcrawl::frontier
