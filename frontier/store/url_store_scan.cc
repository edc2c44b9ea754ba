// UrlStore's scans: the seen filter's rebuild (SeenScan) and the
// inspection of a stopped crawl's URL states (ForEachSeen). Split from
// url_store.cc, which keeps the crawl's own reads and writes.
#include <rocksdb/db.h>

#include <unordered_set>

#include "frontier/store/url_fingerprint.h"
#include "frontier/store/url_store.h"
#include "frontier/store/url_store_records.h"

namespace zcrawl::frontier {

using namespace store_records;

SeenScan::SeenScan(std::unique_ptr<rocksdb::Iterator> iterator) : iterator_(std::move(iterator)) {}
SeenScan::~SeenScan() = default;

Status SeenScan::ForEach(const std::function<bool(uint64_t)>& visit) {
  for (iterator_->SeekToFirst(); iterator_->Valid(); iterator_->Next()) {
    const std::string_view key = iterator_->key().ToStringView();
    if (key.size() != kSeenKeySize) return DataLossError("malformed seen key");
    if (!visit(SeenKeyFingerprint(key))) break;
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

Status UrlStore::QueuedFingerprints(std::unordered_set<uint64_t>* out) {
  std::vector<std::string> origins;
  Status loaded = LoadOrigins([&](StoredOrigin&& origin) {
    if (origin.id >= origins.size()) origins.resize(origin.id + 1);
    origins[origin.id] = std::move(origin.origin);
  });
  if (!loaded.ok()) return loaded;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[kQueue]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    const uint64_t id = key.size() == 12 ? GetBigEndian(key, 0, 4) : origins.size();
    QueuedUrl url;
    if (id >= origins.size() || !DecodeQueued(origins[id], key, it->value().ToStringView(), &url)) {
      return DataLossError(path_ + ": malformed queue entry");
    }
    out->insert(KeyOf(url.url).fingerprint);
  }
  return FromRocks(it->status(), "cannot read queue in " + path_);
}

Status UrlStore::ForEachSeen(const std::function<bool(const SeenEntry&)>& visit) {
  if (Status settled = writer_ ? Settle() : Status::Ok(); !settled.ok()) return settled;  // reads see every write
  std::unordered_set<uint64_t> queued;
  if (Status s = QueuedFingerprints(&queued); !s.ok()) return s;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(rocksdb::ReadOptions(), families_[kSeen]));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView();
    const std::string_view value = it->value().ToStringView();
    if (key.size() != kSeenKeySize || value.empty()) return DataLossError(path_ + ": malformed seen entry");
    SeenEntry entry;
    entry.fingerprint = SeenKeyFingerprint(key);
    entry.site = static_cast<uint32_t>(GetBigEndian(key, 0, 4));
    entry.state = static_cast<SeenState>(value[0]);
    if (entry.state == SeenState::kAdmitted) {
      entry.state = queued.count(entry.fingerprint) ? SeenState::kWaiting : SeenState::kDone;
    }
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

}  // namespace zcrawl::frontier
