#include "writer/payload_digest_index.h"

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "warc/cdxj.h"

namespace zcrawl::writer {
namespace {

constexpr std::string_view kLoadedPrefix = "\x01loaded:";  // not a base32 digest

std::string Encode(const StoredPayload& payload) {
  std::string value = payload.target_uri;
  value += '\0';
  value += payload.warc_date;
  value += '\0';
  value += payload.record_id;
  return value;
}

std::optional<StoredPayload> Decode(std::string_view value) {
  const size_t first = value.find('\0');
  const size_t second = first == std::string_view::npos ? first : value.find('\0', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  return StoredPayload{std::string(value.substr(0, first)), std::string(value.substr(first + 1, second - first - 1)),
                       std::string(value.substr(second + 1))};
}

}  // namespace

PayloadDigestIndex::PayloadDigestIndex(std::string path, std::shared_ptr<rocksdb::Cache> cache, rocksdb::DB* db)
    : path_(std::move(path)), cache_(std::move(cache)), db_(db) {}

PayloadDigestIndex::~PayloadDigestIndex() = default;

Result<std::unique_ptr<PayloadDigestIndex>> PayloadDigestIndex::Open(const std::string& path,
                                                                      uint64_t memory_bytes) {
  // Half the budget for the block cache (index and filter blocks charged
  // to it), a quarter for each of two write buffers.
  auto cache = rocksdb::NewLRUCache(std::max<uint64_t>(memory_bytes / 2, 4 << 20));
  rocksdb::BlockBasedTableOptions table;
  table.block_cache = cache;
  table.cache_index_and_filter_blocks = true;
  table.pin_l0_filter_and_index_blocks_in_cache = true;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  // Partitioned index and filters, as the frontier's store has them: a
  // whole file's filter is one block otherwise, larger than a cache shard
  // past ~10^6 payloads, so every lookup read and checksummed it again
  // (47% of the CPU, 10x slower lookups; bench/digest_index_bench.cc).
  table.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  table.partition_filters = true;
  table.format_version = 5;
  rocksdb::Options options;
  options.create_if_missing = true;
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  options.write_buffer_size = std::max<uint64_t>(memory_bytes / 4, 1 << 20);
  options.max_write_buffer_number = 2;
  options.max_open_files = 256;
  options.keep_log_file_num = 2;
  options.compression = rocksdb::kLZ4Compression;
  rocksdb::DB* db = nullptr;
  const rocksdb::Status s = rocksdb::DB::Open(options, path, &db);
  if (!s.ok()) {
    return UnavailableError("cannot open the payload digest index " + path + ": " + s.ToString() +
                            " (delete that folder to start deduplication afresh; nothing stored is lost)");
  }
  return std::unique_ptr<PayloadDigestIndex>(new PayloadDigestIndex(path, std::move(cache), db));
}

Result<std::optional<StoredPayload>> PayloadDigestIndex::Find(const std::string& digest) {
  if (auto it = pending_.find(digest); it != pending_.end()) return std::optional<StoredPayload>(it->second);
  if (auto it = sealed_.find(digest); it != sealed_.end()) return std::optional<StoredPayload>(it->second);
  std::string value;
  const rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), digest, &value);
  if (s.IsNotFound()) return std::optional<StoredPayload>();
  if (!s.ok()) return UnavailableError("payload digest index " + path_ + ": " + s.ToString());
  return Decode(value);
}

void PayloadDigestIndex::AddPending(const std::string& digest, StoredPayload payload) {
  pending_.emplace(digest, std::move(payload));
}

void PayloadDigestIndex::DropPending() { pending_.clear(); }

void PayloadDigestIndex::Seal() {
  sealed_.merge(pending_);
  pending_.clear();
}

Status PayloadDigestIndex::CommitSealed() {
  if (sealed_.empty()) return Status::Ok();
  rocksdb::WriteBatch batch;
  for (const auto& [digest, payload] : sealed_) batch.Put(digest, Encode(payload));
  const rocksdb::Status s = db_->Write(rocksdb::WriteOptions(), &batch);
  sealed_.clear();
  // The records are durable either way; a lost entry only costs dedup.
  if (!s.ok()) return UnavailableError("payload digest index " + path_ + ": " + s.ToString());
  return Status::Ok();
}

void PayloadDigestIndex::DropSealed() { sealed_.clear(); }

Status PayloadDigestIndex::LoadCdxj(const std::string& path, uint64_t* loaded, uint64_t* skipped) {
  *loaded = 0;
  *skipped = 0;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return InvalidArgumentError("--dedup-index " + path + ": " + ec.message());
  const auto mtime = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  const std::string marker = std::string(kLoadedPrefix) + std::filesystem::absolute(path).string() + ":" +
                             std::to_string(size) + ":" + std::to_string(mtime);
  std::string ignored;
  if (db_->Get(rocksdb::ReadOptions(), marker, &ignored).ok()) return Status::Ok();
  std::ifstream in(path);
  if (!in) return InvalidArgumentError("--dedup-index " + path + ": cannot read it");
  rocksdb::WriteBatch batch;
  std::string line;
  std::string existing;
  std::set<std::string> in_batch;
  while (std::getline(in, line)) {
    const size_t space = line.find(' ');
    const size_t brace = line.find('{');
    const auto json = brace == std::string::npos
                          ? nlohmann::json()
                          : nlohmann::json::parse(line.substr(brace), nullptr, /*allow_exceptions=*/false);
    const std::optional<std::string> date =
        space == std::string::npos ? std::nullopt
                                   : IsoTimeOfCdxjTimestamp(std::string_view(line).substr(space + 1));
    if (!json.is_object() || !date || !json.contains("digest") || !json["digest"].is_string() ||
        !json.contains("url") || !json["url"].is_string()) {
      ++*skipped;
      continue;
    }
    std::string digest = json["digest"].get<std::string>();
    if (digest.starts_with("sha1:")) digest.erase(0, 5);
    if (digest.size() != 32) {
      ++*skipped;
      continue;
    }
    // The first stays: one stored before, or one earlier in this batch.
    if (in_batch.contains(digest) || db_->Get(rocksdb::ReadOptions(), digest, &existing).ok()) continue;
    batch.Put(digest, Encode({json["url"].get<std::string>(), *date, ""}));
    in_batch.insert(digest);
    ++*loaded;
    if (batch.Count() >= 10000) {
      in_batch.clear();
      if (auto s = db_->Write(rocksdb::WriteOptions(), &batch); !s.ok()) {
        return UnavailableError("payload digest index " + path_ + ": " + s.ToString());
      }
      batch.Clear();
    }
  }
  batch.Put(marker, "");
  if (auto s = db_->Write(rocksdb::WriteOptions(), &batch); !s.ok()) {
    return UnavailableError("payload digest index " + path_ + ": " + s.ToString());
  }
  return Status::Ok();
}

}  // namespace zcrawl::writer
