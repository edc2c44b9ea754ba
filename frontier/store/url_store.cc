// Over 500 lines on purpose: UrlStore is the one door to RocksDB, and each
// key family's reads and staged writes are a few lines over one batch.
#include "frontier/store/url_store.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/slice_transform.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <rocksdb/write_buffer_manager.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include "common/varint.h"
#include "frontier/store/retryable_io_file_system.h"
#include "frontier/store/store_info_log.h"
#include "frontier/store/store_lock.h"
#include "frontier/store/url_store_records.h"

namespace zcrawl::frontier {

// The records' encodings, shared with url_store_scan.cc.
using namespace store_records;

namespace {

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
  if (family == kQueue) {
    // Queues are read by prefix (one origin), never by point lookup: a
    // whole-key filter would be built in every compaction and never read.
    // The origin's prefix filter stays (a seek skips the L0 files
    // without the origin).
    table.whole_key_filtering = false;
  }
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.compression = rocksdb::kLZ4Compression;
  options.bottommost_compression = rocksdb::kZSTD;
  // ZSTD's level 1, not its default 3: on the synthetic web's files the
  // same size within 1-4% (queue 65.7 against 65.2 MB, seen 66.7 against
  // 64.4 MB for 64 MB of level-6 blocks, sst_dump --command=recompress),
  // ~20% less time recompressing; the bottom level is where compaction
  // writes most at scale.
  options.bottommost_compression_opts.level = 1;
  options.bottommost_compression_opts.enabled = true;
  options.level_compaction_dynamic_level_bytes = true;
  if (family == kSeen) {
    // Lookups that reach the disk are mostly for URLs that exist (the
    // resident filter answered "maybe"): the last level, where ~90% of the
    // keys are, needs no filter.
    options.optimize_filters_for_hits = true;
    // A lookup searches every memtable before the files. At scale nearly
    // every looked-up URL is in the files (the known URLs the cache
    // missed), and a memtable's whole-key Bloom filter (~13 bits per entry
    // at this ratio) answers "not here" without walking its skiplist: the
    // walk was ~5% of the broker thread at 8 x 10^7 URLs (bench/RESULTS.md
    // run Z).
    options.memtable_whole_key_filtering = true;
    options.memtable_prefix_bloom_size_ratio = 0.05;
  }
  if (family == kQueue) {
    // Queues are read by prefix (one origin), never by point lookup.
    options.prefix_extractor.reset(rocksdb::NewFixedPrefixTransform(4));
    // No memtable insert hint per origin (memtable_insert_with_hint_prefix_
    // extractor): its splice costs ~140 B of memtable per origin present,
    // so at 2 x 10^5 origins a queue memtable held 3.4x the bytes of its
    // entries and was flushed at ~414k entries instead of ~818k. Without
    // it (bench/RESULTS.md run AK, to 2 x 10^8 URLs): half the flushes,
    // 0.76x the bytes the queue's compactions wrote, 0.95x the frontier's
    // CPU. The hint saved insert time only while origins were few (22% at
    // 5 x 10^4, none at 2.5 x 10^5); batches are applied sorted by key, so
    // inserts reuse the skiplist's last splice anyway.
  }
  return options;
}

}  // namespace

// The rules the store keys URLs by: those it was created with, else (a
// new store, or one from before they were kept) the options', recorded.
UrlKeyRules UrlStore::KeptUrlKeyRules(UrlStore& store, const UrlStoreOptions& options) {
  const std::string wanted = UrlKeyRulesText(options.url_key_rules);
  const std::string kept = store.GetMeta(kUrlKeyRulesMeta);
  if (kept.empty()) {
    if (!options.read_only) store.SetMeta(kUrlKeyRulesMeta, wanted);
    return options.url_key_rules;
  }
  if (kept != wanted && !options.read_only) {
    spdlog::warn("{} keys URLs by the rules it was created with, which it keeps: --sort-query-params and "
                 "--drop-query-params as given apply only to a new crawl (--fresh)",
                 store.path_);
  }
  return ParseUrlKeyRules(kept);
}

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
  store->cache_bytes_ = std::max<uint64_t>(options.cache_bytes, 8 << 20);
  store->cache_ = rocksdb::NewLRUCache(store->cache_bytes_);
  // Memtables take a quarter of the cache, charged to it: one bound for both.
  const uint64_t write_buffer_bytes = std::max<uint64_t>(options.cache_bytes / 4, 4 << 20);
  store->write_buffer_bytes_ = write_buffer_bytes;
  store->write_buffers_ =
      std::make_shared<rocksdb::WriteBufferManager>(write_buffer_bytes, store->cache_);

  rocksdb::DBOptions db_options;
  // Every failed write to the store's files is retryable, so RocksDB's
  // own recovery resumes the database after an EIO as after an ENOSPC,
  // in this process (retryable_io_file_system.h).
  store->env_ = rocksdb::NewCompositeEnv(std::make_shared<RetryableIoFileSystem>(
      options.file_system ? options.file_system : rocksdb::FileSystem::Default()));
  db_options.env = store->env_.get();
  // That recovery, RocksDB's defaults stated: a resume attempt every
  // second for as long as the error lasts (StoreWriter's writes meanwhile
  // fail as Unavailable, and the broker retries them).
  db_options.max_bgerror_resume_count = std::numeric_limits<int>::max();
  // The WAL holds every write but StoreWriter's guard tombstone (written
  // without it, store_writer.cc): no flush on close for that one.
  db_options.avoid_flush_during_shutdown = true;
  db_options.bgerror_resume_retry_interval = 1000000;  // microseconds
  db_options.create_if_missing = !options.read_only;
  db_options.create_missing_column_families = !options.read_only;
  db_options.write_buffer_manager = store->write_buffers_;
  db_options.max_background_jobs = 2;
  db_options.bytes_per_sync = 1 << 20;
  db_options.max_open_files = 512;
  // A WAL file is kept until every family with changes in it is flushed;
  // the small families (meta, origins) fill their memtables slowly, so the
  // WAL grew to ~800 MB at 6 x 10^7 URLs, a third of the state's disk and
  // all of it replayed after a kill -9. Past this, the families holding the
  // oldest WAL are flushed.
  db_options.max_total_wal_size = std::max<uint64_t>(write_buffer_bytes, 16 << 20);
  // RocksDB's own info LOG (flushes, compactions) beside the data: capped,
  // so a crawl of weeks does not grow it without bound. Written by
  // StoreInfoLog, which drops a line it cannot write: RocksDB's own logger
  // aborts on the line after a failed one (store_info_log.h).
  db_options.keep_log_file_num = 2;
  // A read-only opener (./run status, inspect) logs there too: RocksDB's
  // own logger would rotate the running frontier's LOG away.
  if (!options.read_only) fs::create_directories(path, ec);  // the logger may write before RocksDB makes it
  db_options.info_log = std::make_shared<StoreInfoLog>(path, /*max_bytes=*/8 << 20);
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kPointInTimeRecovery;
  db_options.paranoid_checks = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> families;
  for (size_t f = kMeta; f <= kOrigins; ++f) {
    rocksdb::ColumnFamilyOptions cf = FamilyOptions(store->cache_, static_cast<Family>(f));
    // The two families that grow with the crawl get half the memtables'
    // bound each (the manager still bounds the sum), and L0 takes 8 flushes
    // before a compaction into the base level: each such compaction
    // rewrites the overlapping base level whole, so fewer, larger ones
    // write less. At 7 x 10^7 URLs (bench/RESULTS.md run AD): 1.11x the
    // URLs admitted in 300 s, 26 against 31-32 B of disk per URL.
    const bool grows = f == kSeen || f == kQueue;
    cf.write_buffer_size = std::max<uint64_t>(write_buffer_bytes / (grows ? 2 : 4), 1 << 20);
    if (grows) {
      cf.level0_file_num_compaction_trigger = 8;
      cf.level0_slowdown_writes_trigger = 24;
      cf.level0_stop_writes_trigger = 40;
    }
    families.emplace_back(kFamilyNames[f], cf);
  }
  rocksdb::DB* db = nullptr;
  rocksdb::Status s;
  // One frontier per state folder (RocksDB's LOCK file). One that is still
  // shutting down (a restart, or the launcher's SIGTERM) gets a moment.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.lock_wait_ms);
  bool said_waiting = false;
  bool retried_unheld = false;
  while (true) {
    s = options.read_only
            ? rocksdb::DB::OpenForReadOnly(db_options, path, families, &store->families_, &db)
            : rocksdb::DB::Open(db_options, path, families, &store->families_, &db);
    // Another frontier (process) or another store of this process holds
    // it: asked of the lock itself, not read from the error's text
    // (store_lock.h). A holder that let go between the failed open and the
    // question is seen by one more open at once. (RocksDB's info LOG, whose
    // rotation by a failed opener once raced a closing frontier's, is ours
    // now: store_info_log.h.)
    if (!s.IsIOError() || options.read_only) break;
    if (!StoreHeld(path)) {
      if (retried_unheld) break;
      retried_unheld = true;
      continue;
    }
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
  if (!options.read_only) {
    NoteStoreOpen(path);
    store->registered_open_ = true;
  }
  if (!options.read_only) {
    store->writer_ = std::make_unique<StoreWriter>(db, store->families_, options.temporary);
  }
  store->resumed_ = existed && !store->GetMeta("created_at_ms").empty();
  if (store->resumed_ && store->GetMeta(kFormatMeta) != kFormat) {
    return InvalidArgumentError(path + " was written by an older zcrawl (its seen keys lack the "
                                "site prefix of format " + std::string(kFormat) + "). Finish that "
                                "crawl with the older build, or start over with --fresh");
  }
  if (!store->resumed_ && !options.read_only) {
    store->SetMeta(kFormatMeta, kFormat);
    store->SetMeta(kOriginNamesMeta, "1");
  }
  store->origin_names_indexed_ = !store->resumed_ || store->GetMeta(kOriginNamesMeta) == "1";
  store->canonicalizer_ = UrlCanonicalizer(KeptUrlKeyRules(*store, options));
  return store;
}

UrlStore::~UrlStore() {
  writer_.reset();  // applies what is in flight
  if (db_) {
    for (auto* family : families_) db_->DestroyColumnFamilyHandle(family);
    db_->Close().PermitUncheckedError();
    db_.reset();
  }
  if (registered_open_) NoteStoreClosed(path_);
  if (temporary_) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);  // a folder made for this run
  }
}

void UrlStore::Contains(const std::vector<UrlKey>& keys, std::vector<bool>* present) {
  present->assign(keys.size(), false);
  std::vector<UrlKey> asked;
  std::vector<size_t> positions;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (Unwritten(keys[i].fingerprint)) {
      (*present)[i] = true;
    } else {
      asked.push_back(keys[i]);
      positions.push_back(i);
    }
  }
  if (asked.empty()) return;
  std::vector<bool> stored;
  StoredSeen(asked, &stored);
  for (size_t j = 0; j < asked.size(); ++j) (*present)[positions[j]] = stored[j];
}

void UrlStore::StoredSeen(const std::vector<UrlKey>& keys, std::vector<bool>* stored) const {
  stored->assign(keys.size(), false);
  if (keys.empty()) return;
  std::vector<std::string> asked;
  asked.reserve(keys.size());
  for (const UrlKey& key : keys) asked.push_back(SeenKey(key.site, key.fingerprint));
  // Sorted keys let MultiGet walk each file once, and one site's keys
  // share their blocks.
  std::vector<size_t> order(asked.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return asked[a] < asked[b]; });
  std::vector<rocksdb::Slice> slices;
  slices.reserve(asked.size());
  for (size_t i : order) slices.emplace_back(asked[i]);
  std::vector<rocksdb::PinnableSlice> values(asked.size());
  std::vector<rocksdb::Status> statuses(asked.size());
  db_->MultiGet(rocksdb::ReadOptions(), families_[kSeen], slices.size(), slices.data(),
                values.data(), statuses.data(), /*sorted_input=*/true);
  disk_lookups_.fetch_add(asked.size(), std::memory_order_relaxed);
  for (size_t j = 0; j < order.size(); ++j) {
    // Anything but a clean "not found" counts as present: an I/O error must
    // never admit a URL twice (at worst it skips one).
    (*stored)[order[j]] = !statuses[j].IsNotFound();
  }
}

void UrlStore::Stage(int family, bool remove, std::string key, std::string value) {
  staged_.push_back(StagedChange{static_cast<uint8_t>(family), remove, std::move(key), std::move(value)});
}

void UrlStore::StageSeen(const SeenEntry& entry) {
  std::string value(1, static_cast<char>(entry.state));
  if (entry.state == SeenState::kFailed) {
    PutVarint(entry.attempts, &value);
    PutVarint(entry.reason.size(), &value);
    value += entry.reason;
    value += entry.url;
  }
  Stage(kSeen, false, SeenKey(entry.site, entry.fingerprint), std::move(value));
  staged_seen_.Insert(entry.fingerprint);
}

void UrlStore::StageQueued(uint32_t origin_id, std::string_view origin, const QueuedUrl& url) {
  std::string value;
  AppendQueuedValue(origin, url.url, url.depth, url.attempts, url.redirect_hops, url.embed_hops, &value);
  Stage(kQueue, false, QueueKey(origin_id, url.seq), std::move(value));
}

void UrlStore::StageDequeued(uint32_t origin_id, uint64_t seq) {
  Stage(kQueue, true, QueueKey(origin_id, seq), {});
}


Status UrlStore::LoadQueue(uint32_t origin_id, std::string_view origin, uint64_t after_seq,
                           size_t max, std::vector<QueuedUrl>* out) {
  // An origin's seqs grow in staging order and batches are applied in that
  // order, so its queue is: what the database holds, then what is in
  // flight, then what is staged; whatever was applied meanwhile is skipped
  // by seq, and removals not applied yet are honoured. No wait for the
  // writer, and no write forced by a refill.
  const std::string prefix = OriginKey(origin_id);
  staged_queue_.CatchUp(staged_);
  const std::vector<StagedChange>* unwritten[] = {in_flight_.get(), &staged_};
  const QueueChangeIndex* indexes[] = {&in_flight_queue_, &staged_queue_};
  std::unordered_set<uint64_t> removed;
  for (int b = 0; b < 2; ++b) {
    if (unwritten[b] == nullptr) continue;
    indexes[b]->ForEach(origin_id, [&](size_t at) {
      const StagedChange& change = (*unwritten[b])[at];
      if (change.remove) removed.insert(GetBigEndian(change.key, 4, 8));
    });
  }
  const size_t first = out->size();
  uint64_t last = after_seq;
  {
    rocksdb::ReadOptions read;
    read.prefix_same_as_start = true;
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, families_[kQueue]));
    for (it->Seek(QueueKey(origin_id, after_seq + 1)); it->Valid() && out->size() - first < max;
         it->Next()) {
      const std::string_view key = it->key().ToStringView();
      if (key.size() != 12 || key.compare(0, 4, prefix) != 0) break;
      QueuedUrl url;
      if (!DecodeQueued(origin, key, it->value().ToStringView(), &url)) {
        return DataLossError(path_ + ": malformed queue entry of origin " + std::string(origin));
      }
      last = url.seq;
      if (!removed.count(url.seq)) out->push_back(std::move(url));
    }
    if (!it->status().ok()) return FromRocks(it->status(), "cannot read queue in " + path_);
  }
  Status status = Status::Ok();
  for (int b = 0; b < 2 && status.ok(); ++b) {
    if (unwritten[b] == nullptr) continue;
    indexes[b]->ForEach(origin_id, [&](size_t at) {
      const StagedChange& change = (*unwritten[b])[at];
      if (!status.ok() || out->size() - first >= max || change.remove) return;
      QueuedUrl url;
      if (!DecodeQueued(origin, change.key, change.value, &url)) {
        status = DataLossError(path_ + ": malformed staged queue entry of origin " + std::string(origin));
        return;
      }
      if (url.seq <= last) return;  // read from the database already
      last = url.seq;
      if (!removed.count(url.seq)) out->push_back(std::move(url));
    });
  }
  return status;
}

void UrlStore::StageOrigin(const StoredOrigin& origin) {
  Stage(kOrigins, false, OriginKey(origin.id), EncodeOrigin(origin));
}

namespace {

std::string OriginNameKey(std::string_view name) { return std::string(kOriginNamePrefix).append(name); }

}  // namespace

Status UrlStore::LoadOrigins(const std::function<void(StoredOrigin&&)>& visit) {
  if (Status settled = writer_ ? Settle() : Status::Ok(); !settled.ok()) return settled;  // reads see every write
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[kOrigins]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    StoredOrigin origin;
    if (!DecodeOrigin(it->key().ToStringView(), it->value().ToStringView(), &origin)) {
      return DataLossError(path_ + ": malformed origin record");
    }
    visit(std::move(origin));
  }
  return FromRocks(it->status(), "cannot read origins in " + path_);
}

Status UrlStore::GetOrigin(uint32_t origin_id, StoredOrigin* origin) {
  std::string value;
  const std::string key = OriginKey(origin_id);
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), families_[kOrigins], key, &value);
  if (s.IsNotFound()) return NotFoundError("no origin " + std::to_string(origin_id) + " in " + path_);
  if (!s.ok()) return FromRocks(s, "cannot read origin " + std::to_string(origin_id) + " in " + path_);
  if (!DecodeOrigin(key, value, origin)) {
    return DataLossError(path_ + ": malformed origin record " + std::to_string(origin_id));
  }
  return Status::Ok();
}

Status UrlStore::FindOrigin(std::string_view name, StoredOrigin* origin) {
  std::string id;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), families_[kMeta], OriginNameKey(name), &id);
  if (s.IsNotFound()) return NotFoundError(std::string(name) + " is not in " + path_);
  if (!s.ok()) return FromRocks(s, "cannot look up origin " + std::string(name) + " in " + path_);
  if (id.size() != 4) return DataLossError(path_ + ": malformed origin id of " + std::string(name));
  Status got = GetOrigin(static_cast<uint32_t>(GetBigEndian(id, 0, 4)), origin);
  if (got.ok() && origin->origin != name) {
    return DataLossError(path_ + ": the origin id of " + std::string(name) + " names " + origin->origin);
  }
  // An id without its record: the index is damaged, not the origin unknown.
  if (got.code() == StatusCode::kNotFound) return DataLossError(got.message());
  return got;
}

void UrlStore::MarkOriginNamesIndexed() {
  SetMeta(kOriginNamesMeta, "1");
  origin_names_indexed_ = true;
}

void UrlStore::StageOriginName(std::string_view name, uint32_t origin_id) {
  Stage(kMeta, false, OriginNameKey(name), OriginKey(origin_id));
}

void UrlStore::SetMeta(const std::string& key, const std::string& value) {
  Stage(kMeta, false, key, value);
}

void UrlStore::EraseMeta(const std::string& key) { Stage(kMeta, true, key, ""); }

Status UrlStore::ScanMeta(const std::string& from, const std::string& below,
                          const std::function<bool(std::string_view key, std::string_view value)>& visit) {
  rocksdb::ReadOptions read;
  const rocksdb::Slice upper(below);
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read, families_[kMeta]));
  for (it->Seek(from); it->Valid(); it->Next()) {
    if (!visit(it->key().ToStringView(), it->value().ToStringView())) break;
  }
  return FromRocks(it->status(), "cannot read " + path_);
}

namespace {
std::string ValidatorsKey(const UrlKey& key) { return "validators/" + SeenKey(key.site, key.fingerprint); }
}  // namespace

namespace {
std::string RobotsKey(uint32_t origin_id) { return "robots/" + OriginKey(origin_id); }
}  // namespace

void UrlStore::StageRobots(uint32_t origin_id, uint64_t run, int64_t fetched_ms, const std::string& rules) {
  std::string value;
  PutVarint(run, &value);
  PutVarint(static_cast<uint64_t>(fetched_ms), &value);
  value += rules;
  Stage(kMeta, false, RobotsKey(origin_id), std::move(value));
}

bool UrlStore::GetRobots(uint32_t origin_id, uint64_t* run, int64_t* fetched_ms, std::string* rules) {
  std::string value;
  if (!db_->Get(rocksdb::ReadOptions(), families_[kMeta], RobotsKey(origin_id), &value).ok()) return false;
  size_t offset = 0;
  uint64_t fetched = 0;
  if (!GetVarint(value, &offset, run) || !GetVarint(value, &offset, &fetched)) return false;
  *fetched_ms = static_cast<int64_t>(fetched);
  rules->assign(value, offset);
  return true;
}

void UrlStore::StageValidators(const UrlKey& key, std::string value) {
  Stage(kMeta, false, ValidatorsKey(key), std::move(value));
}

bool UrlStore::GetValidators(const UrlKey& key, std::string* value) {
  return db_->Get(rocksdb::ReadOptions(), families_[kMeta], ValidatorsKey(key), value).ok();
}

std::string UrlStore::GetMeta(const std::string& key) {
  std::string value;
  if (!db_->Get(rocksdb::ReadOptions(), families_[kMeta], key, &value).ok()) return "";
  return value;
}

Status UrlStore::Settle() {
  StoreWriter::Batch retry;
  Status s = writer_->Finish(&retry);
  if (!s.ok()) {
    if (retry) {
      // Staged again ahead of anything newer, so the order holds.
      staged_.insert(staged_.begin(), retry->begin(), retry->end());
      staged_queue_.Clear();  // positions moved: indexed again on the next refill
      in_flight_seen_.ForEach([&](uint64_t fingerprint) { staged_seen_.Insert(fingerprint); });
      in_flight_seen_.Clear();
    } else if (in_flight_) {
      CountSettled();  // only its fsync failed: the batch is in the database
    }
    in_flight_.reset();
    in_flight_queue_.Clear();
    return Status(s.code(), "cannot write " + path_ + ": " + s.message());
  }
  if (in_flight_) CountSettled();  // in_flight_seen_ is empty without one
  if (in_flight_ && in_flight_.use_count() == 1 && in_flight_->capacity() > spare_.capacity()) {
    spare_ = std::move(*in_flight_);
    spare_.clear();
  }
  in_flight_.reset();
  in_flight_queue_.Clear();
  return Status::Ok();
}

void UrlStore::CountSettled() {
  // The batch's fingerprints stay findable for one more batch: a link
  // thread's answer as of one batch before now is still decidable.
  std::swap(last_settled_seen_, in_flight_seen_);
  in_flight_seen_.Clear();
  settled_batches_.fetch_add(1, std::memory_order_release);
}

Status UrlStore::Write(bool sync) {
  Status settled = Settle();
  if (!settled.ok()) return settled;  // kept staged; the next Write retries
  if (staged_.empty() && !(sync && writer_->unsynced())) return Status::Ok();
  in_flight_ = std::make_shared<std::vector<StagedChange>>(std::move(staged_));
  staged_ = std::move(spare_);
  staged_.clear();
  spare_ = {};
  std::swap(in_flight_seen_, staged_seen_);
  // The staged index moves with its batch (cleared by Settle above).
  staged_queue_.CatchUp(*in_flight_);
  std::swap(in_flight_queue_, staged_queue_);
  writer_->Start(in_flight_, sync);
  return Status::Ok();
}

Status UrlStore::Flush() {
  Status s = Write(/*sync=*/true);
  return s.ok() ? Settle() : s;
}

uint64_t UrlStore::disk_bytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path_, ec)) {
    if (entry.is_regular_file(ec)) total += entry.file_size(ec);
  }
  return total;
}

uint64_t UrlStore::SetCacheCapacity(uint64_t bytes) {
  const uint64_t floor = std::min(write_buffer_bytes_ + (4 << 20), cache_bytes_);
  const uint64_t capacity = std::clamp(bytes, floor, cache_bytes_);
  if (capacity != cache_->GetCapacity()) cache_->SetCapacity(capacity);
  return capacity;
}

uint64_t UrlStore::cache_capacity() const { return cache_->GetCapacity(); }

uint64_t UrlStore::memory_bytes() const {
  uint64_t readers = 0;
  db_->GetAggregatedIntProperty(rocksdb::DB::Properties::kEstimateTableReadersMem, &readers);
  return cache_->GetUsage() + readers;
}

}  // namespace zcrawl::frontier
