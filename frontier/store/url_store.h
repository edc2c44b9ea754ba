// UrlStore: the frontier's durable memory, one embedded RocksDB database in
// STATE/frontier.db. Everything that grows with the crawl lives here, so the
// frontier's RAM stays within its budget whatever the number of known URLs:
//
//   column family  key                          value
//   seen           site (4) + fingerprint (8)   state byte [+ attempts, reason, URL if failed]
//   queue          origin id (4) + seq (8)      depth, attempts, flags, URL (minus its origin)
//   origins        origin id (4)                next seq, done, failed [, tagged parts], origin
//   default        meta key (text)              meta value (format, created_at_ms, seeds, finished)
//
// Keys are big-endian, so RocksDB's order is numeric. `seen` keys start
// with the URL's site hash (url_fingerprint.h): the lookups of one page's
// links, mostly to its own site, fall in a few neighbouring blocks. With
// fingerprint-only keys every lookup was its own block at 6 x 10^7 URLs,
// 62% of the broker thread.
//
// `seen` is the exact seen set and the per-URL state in one: a key per URL
// ever admitted. An admitted URL is written once, as kAdmitted, and is not
// written again when it is done: its queue entry's removal is what records
// that (one random write per URL instead of two, measured as the LSM's main
// cost at scale), so "done" is derived: admitted and no longer queued. A
// failed one is rewritten with its URL and reason, which an operator wants
// listed. `queue` holds every admitted URL that is not final yet (waiting,
// leased, or waiting for a retry), per origin in admission order, so a
// host's queue is one prefix scan. An origin's waiting count is
// derived (next seq - 1 - done - failed), so resuming reads the `origins`
// family only, never a scan of the URLs.
//
// Durability: changes are staged and applied by Write() as one atomic batch
// each, batches in order; a crash recovers a prefix of the batches (RocksDB's WAL point-in-time
// recovery), which keeps the broker's rule that a parent's final state is
// recorded only after its links were admitted. Write(sync=true) also fsyncs
// the WAL: the group commit.
//
// Not thread-safe: owned by the broker thread (the read-only dump may run in
// another process).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "common/status.h"
#include "frontier/store/fingerprint_table.h"
#include "frontier/store/queue_change_index.h"
#include "frontier/store/queued_url_codec.h"
#include "frontier/store/store_writer.h"
#include "frontier/store/url_canonicalizer.h"
#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_record.h"

namespace rocksdb {
class DB;
class Iterator;
class ColumnFamilyHandle;
class Cache;
class Env;
class FileSystem;
class WriteBufferManager;
}  // namespace rocksdb

namespace zcrawl::frontier {

// What `seen` records per URL. Stored: kAdmitted (queued when written: done
// once its queue entry is gone), kDone (known without being queued: a
// redirect's target), kFailed, kRefused (seen but over an admission limit,
// never fetched). ForEachSeen reports an admitted URL as kWaiting (leased
// and retrying included: a lease is not recorded, after a crash every URL
// not final is waiting) or kDone.
enum class SeenState : uint8_t { kAdmitted = 0, kWaiting = 1, kDone = 2, kFailed = 3, kRefused = 4 };

// A back-off in force, or remembered, when an origin's record was staged
// (OriginTrouble, origin_backoff.h), so it holds after the origin parks
// and across a restart. Times in wall ms since the epoch (a restart
// resets the monotonic clock); all 0: none.
struct StoredBackoff {
  int64_t since_ms = 0;
  int64_t last_pushback_ms = 0;
  int64_t limited_since_ms = 0;
  int64_t hold_until_ms = 0;  // no request before (a Retry-After, the gap)
  uint32_t gap_ms = 0;
  uint32_t floor_ms = 0;
  uint32_t pushbacks = 0;
  bool any() const { return since_ms != 0 || pushbacks != 0; }
};

struct StoredOrigin {
  uint32_t id = 0;
  std::string origin;
  uint64_t next_seq = 1;  // the seq the next admitted URL of it gets
  uint64_t done = 0;
  uint64_t failed = 0;
  uint64_t refetched = 0;  // queue entries that were refetches (HostSlot::refetched)
  // Every queue entry with a seq up to this was final when the record was
  // staged (HostSlot::loaded_seq, written only where that holds): where a
  // parked origin's queue read may start, past the tombstones of its done
  // URLs. 0: from the start (what a resume uses).
  uint64_t loaded_seq = 0;
  // Parked with URLs queued and in the scheduler's line for a turn (true
  // exactly while it is: CrawlScheduler keeps it so within a run; a resume
  // builds the line afresh).
  bool in_line = false;
  // Its latest failed fetch, reason and detail (HostSlot::last_failure),
  // for the status and the summary after a resume. Empty: none, or a
  // record written before it was kept.
  std::string last_failure = {};
  StoredBackoff backoff = {};
  // Its server address's key (AddressBudgets::KeyOf), 0: not known.
  uint32_t address_key = 0;
  uint64_t admitted() const { return next_seq - 1 - refetched; }
  uint64_t queued() const { return next_seq - 1 - done - failed; }
};

struct QueuedUrl {
  uint64_t seq = 0;
  std::string url;
  uint32_t depth = 0;
  uint32_t attempts = 0;
  uint32_t redirect_hops = 0;  // at most kMaxStoredRedirectHops is kept
  uint32_t embed_hops = 0;     // at most kMaxStoredEmbedHops is kept
};

struct SeenEntry {
  uint64_t fingerprint = 0;
  uint32_t site = 0;  // UrlSite of the URL: part of its key
  SeenState state = SeenState::kAdmitted;
  uint32_t attempts = 0;
  std::string reason;  // failed only
  std::string url;     // failed only
};

struct UrlStoreOptions {
  std::string dir;           // the state folder; the database is DIR/frontier.db
  bool fresh = false;        // delete an existing database first
  bool read_only = false;    // inspect a stopped crawl's state
  bool temporary = false;    // memory-only crawl: no WAL, no fsync, deleted on close
  uint64_t cache_bytes = 64 << 20;  // block cache, memtables charged to it
  // How long to wait for another process holding the database to let go.
  int64_t lock_wait_ms = 15000;
  // The rules of a new store's keys. A store keeps the rules it was
  // created with (meta "url_key_rules"): reopened with others, it warns and
  // keeps its own, so one store never mixes keys made two ways. A store
  // from before the rules existed takes these.
  UrlKeyRules url_key_rules = {};
  // The files under the store; none: the machine's. Tests give one that
  // injects faults. Either way the store's own RetryableIoFileSystem wraps
  // it (retryable_io_file_system.h).
  std::shared_ptr<rocksdb::FileSystem> file_system = nullptr;
};

// A scan of the seen family's fingerprints as of the moment it was started
// (RocksDB's iterator pins a snapshot), runnable on another thread while
// the owner keeps writing. Destroy it before its store.
class SeenScan {
 public:
  explicit SeenScan(std::unique_ptr<rocksdb::Iterator> iterator);
  ~SeenScan();
  // Calls `visit` per fingerprint, in order, until it returns false.
  Status ForEach(const std::function<bool(uint64_t)>& visit);

 private:
  std::unique_ptr<rocksdb::Iterator> iterator_;
};

class UrlStore {
 public:
  static Result<std::unique_ptr<UrlStore>> Open(const UrlStoreOptions& options);
  ~UrlStore();
  UrlStore(const UrlStore&) = delete;
  UrlStore& operator=(const UrlStore&) = delete;

  // True if the database held a crawl when opened.
  bool resumed() const { return resumed_; }
  const std::string& path() const { return path_; }

  // How this store keys URLs (UrlStoreOptions::url_key_rules), and the key
  // of a URL as found. Safe from any thread.
  const UrlCanonicalizer& canonicalizer() const { return canonicalizer_; }
  UrlKey KeyOf(std::string_view url) const { return canonicalizer_.KeyOf(url); }

  // --- seen set ---
  // For each key, whether it is stored or staged (one batched multi-get for
  // all of them; staged ones never reach the disk).
  void Contains(const std::vector<UrlKey>& keys, std::vector<bool>* present);
  // For each key, whether the database holds it: one batched multi-get,
  // staged and in-flight changes not seen. Safe from any thread (the link
  // threads ask it before the broker decides): a seen key is never
  // removed, so "stored" is final. "Not stored" holds for every batch
  // settled when settled_batches() was read before the call; the batches
  // after it are still in the staged or in-flight sets (Unwritten) until
  // settled_batches() moves on, and the one that moved it last is in
  // InLastSettled.
  void StoredSeen(const std::vector<UrlKey>& keys, std::vector<bool>* stored) const;
  // Staged or in the write in flight (broker thread).
  bool Unwritten(uint64_t fingerprint) const {
    return staged_seen_.Contains(fingerprint) || in_flight_seen_.Contains(fingerprint);
  }
  // In the batch whose Settle moved settled_batches() last (broker thread):
  // what a multi-get made one batch before now may have missed.
  bool InLastSettled(uint64_t fingerprint) const { return last_settled_seen_.Contains(fingerprint); }
  // Written batches whose fingerprints left the in-flight set (Settle).
  // Safe from any thread.
  uint64_t settled_batches() const { return settled_batches_.load(std::memory_order_acquire); }
  // The count settled_batches() reaches once what is staged now is in the
  // database (the next batch, after the one in flight if any; with nothing
  // staged, the one in flight, or now: an idle crawl stages nothing, and a
  // wait for a write that never comes would never end).
  uint64_t settled_when_staged_is_written() const {
    const uint64_t in_flight = in_flight_ ? 1 : 0;
    return settled_batches() + in_flight + (staged_.empty() ? 0 : 1);
  }
  void StageSeen(const SeenEntry& entry);
  // Starts a scan of every written seen entry; with staged_fingerprints()
  // taken at the same moment it covers every fingerprint seen so far.
  std::unique_ptr<SeenScan> StartSeenScan();
  std::vector<uint64_t> staged_fingerprints() const {
    std::vector<uint64_t> out;
    out.reserve(staged_seen_.size() + in_flight_seen_.size());
    staged_seen_.ForEach([&](uint64_t fingerprint) { out.push_back(fingerprint); });
    in_flight_seen_.ForEach([&](uint64_t fingerprint) { out.push_back(fingerprint); });
    return out;
  }

  // --- per-origin queues ---
  void StageQueued(uint32_t origin_id, std::string_view origin, const QueuedUrl& url);
  void StageDequeued(uint32_t origin_id, uint64_t seq);
  // Up to `max` queued URLs of an origin with seq > after_seq, in seq order.
  Status LoadQueue(uint32_t origin_id, std::string_view origin, uint64_t after_seq, size_t max,
                   std::vector<QueuedUrl>* out);

  // --- origins ---
  void StageOrigin(const StoredOrigin& origin);
  // Every origin, in id order.
  Status LoadOrigins(const std::function<void(StoredOrigin&&)>& visit);
  // An origin's record by id, or by name through the name index (the meta
  // family's "origin-id/" + name -> id, staged with StageOriginName):
  // point reads of written records (staged ones are not seen), for the
  // scheduler's parked origins. NotFound when there is none.
  Status GetOrigin(uint32_t origin_id, StoredOrigin* origin);
  Status FindOrigin(std::string_view name, StoredOrigin* origin);
  void StageOriginName(std::string_view name, uint32_t origin_id);
  // Whether every origin's name is in the index: true for a state created
  // since the index exists. A resumed older state gets its names staged by
  // the restore (Broker::LoadState), which then calls MarkOriginNamesIndexed.
  bool origin_names_indexed() const { return origin_names_indexed_; }
  void MarkOriginNamesIndexed();

  // --- meta ---
  void SetMeta(const std::string& key, const std::string& value);
  std::string GetMeta(const std::string& key);
  void EraseMeta(const std::string& key);
  // Meta entries with from <= key < below, in key order, as written (staged
  // and in-flight changes are not seen), until `visit` returns false.
  Status ScanMeta(const std::string& from, const std::string& below,
                  const std::function<bool(std::string_view key, std::string_view value)>& visit);

  // --- an origin's robots.txt rules, while it has nothing in RAM ---
  // In the meta family under "robots/" + the origin id: `run` and
  // `fetched_ms` say which learning of the rules they are (a reader checks
  // both), `rules` is RobotsRules::Serialize(). Staged like every change;
  // GetRobots sees written ones only.
  void StageRobots(uint32_t origin_id, uint64_t run, int64_t fetched_ms, const std::string& rules);
  bool GetRobots(uint32_t origin_id, uint64_t* run, int64_t* fetched_ms, std::string* rules);

  // --- a recrawl's validators (frontier_options.h recrawl_list) ---
  // In the meta family under "validators/" + the URL's seen key: a recrawl
  // is rare, and a family of its own would make every older state fail to
  // open read-only. `value` is a serialised v1::Validators.
  void StageValidators(const UrlKey& key, std::string value);
  // The validators of `key` as last written (staged ones are not seen:
  // the recrawl list is flushed before any lease); false when none.
  bool GetValidators(const UrlKey& key, std::string* value);

  // Hands everything staged to the store's writer thread (store_writer.h),
  // which applies it as one atomic batch after the previous one; `sync`
  // also fsyncs the WAL. Returns at once: an error is that of the previous
  // write, whose changes are then staged again for the next Write. Reads
  // see staged and in-flight changes (Contains) or wait for them
  // (LoadOrigins, ForEachSeen) or read them too (LoadQueue).
  Status Write(bool sync);
  // Write(sync=true), and waits until it is applied and fsynced.
  Status Flush();
  size_t staged() const { return staged_.size(); }

  // Every seen entry (for inspection and tests), in fingerprint order, an
  // admitted URL as kWaiting or kDone by whether it is still queued (this
  // reads the whole queue first: a tool's cost, never the crawl's).
  Status ForEachSeen(const std::function<bool(const SeenEntry&)>& visit);  // false: stop
  // Safe to call from another thread while the owner writes (RocksDB's
  // iterator reads a snapshot); nothing else is.

  // Bytes of the database on disk (SST files and WAL).
  uint64_t disk_bytes() const;
  // Bytes of RAM the engine holds (block cache incl. memtables, table readers).
  uint64_t memory_bytes() const;
  // Sets the block cache's capacity (what HeapGovernor leaves the store),
  // never below the memtables' bound plus 4 MB nor above the opening's
  // cache_bytes; blocks past it are evicted at once. Returns what was set.
  uint64_t SetCacheCapacity(uint64_t bytes);
  uint64_t cache_capacity() const;
  uint64_t writes() const { return writer_ ? writer_->writes() : 0; }
  uint64_t disk_lookups() const { return disk_lookups_.load(std::memory_order_relaxed); }

 private:
  UrlStore() = default;
  static UrlKeyRules KeptUrlKeyRules(UrlStore& store, const UrlStoreOptions& options);
  // The fingerprint of every queued URL (ForEachSeen's "still waiting").
  Status QueuedFingerprints(std::unordered_set<uint64_t>* out);

  std::string dir_;
  std::string path_;
  bool registered_open_ = false;  // in store_lock.h's registry
  bool temporary_ = false;
  bool resumed_ = false;
  bool origin_names_indexed_ = false;
  UrlCanonicalizer canonicalizer_;
  std::shared_ptr<rocksdb::Cache> cache_;
  uint64_t cache_bytes_ = 0;         // the cache's capacity as opened
  uint64_t write_buffer_bytes_ = 0;  // the memtables' bound, charged to it
  std::shared_ptr<rocksdb::WriteBufferManager> write_buffers_;
  // The Env over a RetryableIoFileSystem the database runs on: declared
  // before db_, so it outlives it.
  std::unique_ptr<rocksdb::Env> env_;
  std::unique_ptr<rocksdb::DB> db_;
  std::vector<rocksdb::ColumnFamilyHandle*> families_;  // default, seen, queue, origins
  // Changes since the last Write, in the order they were made.
  void Stage(int family, bool remove, std::string key, std::string value);
  // Waits for the write in flight; if it failed, stages its changes again.
  Status Settle();
  // The in-flight batch is in the database: its fingerprints become the
  // last settled, and settled_batches() moves on.
  void CountSettled();
  std::vector<StagedChange> staged_;
  // Fingerprints in staged_ and in the write in flight: flat tables (a
  // node-based set cost an allocation per admitted URL, ~9% of the broker
  // thread on the endless web).
  FingerprintTable staged_seen_;
  // The write in flight, until settled; then, emptied, the next staged_'s
  // buffer: a vector grown afresh by doubling for every commit touched
  // fresh pages each time (page faults were ~30% of the broker thread's
  // time on the endless web, bench/RESULTS.md run X).
  std::shared_ptr<std::vector<StagedChange>> in_flight_;
  std::vector<StagedChange> spare_;
  FingerprintTable in_flight_seen_;  // its fingerprints
  // The fingerprints of the last settled batch (InLastSettled); emptied,
  // the next in_flight_seen_ (three tables rotate, keeping their capacity).
  FingerprintTable last_settled_seen_;
  // Each origin's queue changes in staged_ and in the write in flight
  // (LoadQueue's reads of them).
  QueueChangeIndex staged_queue_;
  QueueChangeIndex in_flight_queue_;
  std::unique_ptr<StoreWriter> writer_;          // none when read-only
  mutable std::atomic<uint64_t> disk_lookups_{0};
  std::atomic<uint64_t> settled_batches_{0};
};

}  // namespace zcrawl::frontier
