// PayloadDigestIndex: which payloads a WARC crawl has already stored, so a
// response whose payload was stored before is written as a `revisit`
// record (identical-payload-digest profile) instead of the body again.
//
// Key: the payload's SHA-1 in base32 (the WARC-Payload-Digest and CDXJ
// "digest" form); value: the first record stored with it (target URI,
// WARC-Date, WARC-Record-ID; the id is unknown for entries loaded from an
// earlier crawl's CDXJ). The durable part lives in RocksDB, the engine the
// frontier already uses, at OUT/PREFIX-digests/: memory stays within
// `memory_bytes` (block cache with the index and filter blocks charged to
// it, plus the write buffer) however many payloads the crawl stores; a
// lookup of a new payload is answered by a Bloom filter block, one of a
// known payload by one block read. A compact in-RAM table was the
// alternative: exact needs the 20-byte digest plus a pointer, ~40 B a page
// with its load factor, 4 GB at 10^8 pages.
//
// Exactness: an entry names a record only once that record is durable. A
// Flush window's new entries stay pending (still found, so a duplicate in
// the same window becomes a revisit too), are sealed when the window's
// flush starts, and are written to the store when it succeeded; a failed
// window drops its entries, and the revisits that named them fail with it
// (they are in the same window or the one after, which fails too:
// warc_sink.h). Losing the store's last writes in a crash only costs
// dedup: a later duplicate is then stored whole.
//
// Thread-safety: none; the WARC sink's thread owns it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace rocksdb {
class DB;
class Cache;
}  // namespace rocksdb

namespace zcrawl::writer {

// What a revisit record refers to.
struct StoredPayload {
  std::string target_uri;
  std::string warc_date;  // WARC-Date form
  std::string record_id;  // "<urn:uuid:...>"; empty when not known
};

class PayloadDigestIndex {
 public:
  // Opens (creates) the store at `path`. A store that cannot be opened
  // (corrupted) is refused with an error naming it.
  static Result<std::unique_ptr<PayloadDigestIndex>> Open(const std::string& path, uint64_t memory_bytes);
  ~PayloadDigestIndex();
  PayloadDigestIndex(const PayloadDigestIndex&) = delete;
  PayloadDigestIndex& operator=(const PayloadDigestIndex&) = delete;

  // The first stored record with this payload digest (base32 SHA-1).
  Result<std::optional<StoredPayload>> Find(const std::string& digest);
  // Records that the current window stores a first record with `digest`.
  void AddPending(const std::string& digest, StoredPayload payload);
  void DropPending();
  // The current window's flush begins: its entries wait for its outcome.
  void Seal();
  // That flush succeeded: its entries go to the store.
  Status CommitSealed();
  // That flush failed.
  void DropSealed();

  // Adds the lines of a CDXJ index of earlier crawls (`--dedup-index`):
  // every line with a digest, unless that digest is known. A file already
  // loaded (same path, size and modification time) is skipped. Bad lines
  // are counted in *skipped.
  Status LoadCdxj(const std::string& path, uint64_t* loaded, uint64_t* skipped);

  const std::string& path() const { return path_; }

 private:
  PayloadDigestIndex(std::string path, std::shared_ptr<rocksdb::Cache> cache, rocksdb::DB* db);

  std::string path_;
  std::shared_ptr<rocksdb::Cache> cache_;
  std::unique_ptr<rocksdb::DB> db_;
  std::map<std::string, StoredPayload> pending_;
  std::map<std::string, StoredPayload> sealed_;
};

}  // namespace zcrawl::writer
