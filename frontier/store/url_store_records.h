// The UrlStore's on-disk records (url_store.h has the table): column family
// indexes and names, key encodings, the queue and origin record codecs,
// and RocksDB status translation. Internal to url_store*.cc (and their
// tests); one definition for the store and its inspection scans.
#pragma once

#include <rocksdb/status.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/varint.h"
#include "frontier/store/queued_url_codec.h"
#include "frontier/store/url_store.h"

namespace zcrawl::frontier::store_records {

enum Family : size_t { kMeta = 0, kSeen = 1, kQueue = 2, kOrigins = 3 };
inline const char* const kFamilyNames[] = {"default", "seen", "queue", "origins"};

// Keys are big-endian so that RocksDB's byte order is numeric order: an
// origin's queue is one contiguous, seq-ordered range.
inline void PutBigEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}
inline uint64_t GetBigEndian(std::string_view in, size_t offset, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value = (value << 8) | static_cast<uint8_t>(in[offset + i]);
  return value;
}

// A seen key: site (4 bytes), then fingerprint (8): one site's URLs are one
// range (url_fingerprint.h says why).
constexpr size_t kSeenKeySize = 12;
inline std::string SeenKey(uint32_t site, uint64_t fingerprint) {
  std::string key;
  key.reserve(kSeenKeySize);
  PutBigEndian(key, site, 4);
  PutBigEndian(key, fingerprint, 8);
  return key;
}
inline uint64_t SeenKeyFingerprint(std::string_view key) { return GetBigEndian(key, 4, 8); }

// The meta entry naming the layout of the keys above; a state without it
// (or with another value) was written by an older build.
inline constexpr const char* kFormatMeta = "format";
inline constexpr const char* kFormat = "site-keys-1";
// The meta entries of the origin name index (UrlStore::FindOrigin), and the
// meta entry saying the state has one for every origin (states written
// before it do not: the scheduler adds them when it resumes one).
inline constexpr const char* kOriginNamePrefix = "origin-id/";
inline constexpr const char* kOriginNamesMeta = "origin-names";
// The rules the seen keys were made by (UrlKeyRulesText): kept from the
// store's creation (UrlStoreOptions::url_key_rules).
inline constexpr const char* kUrlKeyRulesMeta = "url_key_rules";
inline std::string OriginKey(uint32_t origin_id) {
  std::string key;
  PutBigEndian(key, origin_id, 4);
  return key;
}
inline std::string QueueKey(uint32_t origin_id, uint64_t seq) {
  std::string key = OriginKey(origin_id);
  PutBigEndian(key, seq, 8);
  return key;
}

inline Status FromRocks(const rocksdb::Status& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  if (s.IsCorruption()) return DataLossError(what + ": corrupted: " + s.ToString());
  if (s.IsNoSpace()) return ResourceExhaustedError(what + ": " + s.ToString());
  return UnavailableError(what + ": " + s.ToString());
}

// The inverse of StageQueued's record (key: origin id + seq; value:
// queued_url_codec.h).
inline bool DecodeQueued(std::string_view origin, std::string_view key, std::string_view value,
                         QueuedUrl* url) {
  QueuedValueView view;
  if (key.size() != 12 || !ParseQueuedValue(value, &view)) return false;
  url->seq = GetBigEndian(key, 4, 8);
  url->url = view.Url(origin);
  url->depth = view.depth;
  url->attempts = view.attempts;
  url->redirect_hops = view.redirect_hops;
  url->embed_hops = view.embed_hops;
  return true;
}

// An origin record's value (key: OriginKey): next seq, done, failed as
// varints, then the optional parts, each behind its tag byte and in tag
// order, then the origin's name to the end. No origin's name starts with a
// tag byte (it starts with its scheme), and a part absent is not written,
// so a record of an older build, without the later parts, reads as it did:
//   0  refetched (varint), when > 0
//   1  loaded_seq (varint), when > 0
//   2  in_line, when true
//   3  last_failure (varint length, bytes), when not empty
//   4  backoff (StoredBackoff: its four times, then gap, floor and push
//      backs, varints), when any
//   5  address_key (varint), when known
inline std::string EncodeOrigin(const StoredOrigin& origin) {
  std::string value;
  PutVarint(origin.next_seq, &value);
  PutVarint(origin.done, &value);
  PutVarint(origin.failed, &value);
  if (origin.refetched > 0) {
    value.push_back('\0');
    PutVarint(origin.refetched, &value);
  }
  if (origin.loaded_seq > 0) {
    value.push_back('\1');
    PutVarint(origin.loaded_seq, &value);
  }
  if (origin.in_line) value.push_back('\2');
  if (!origin.last_failure.empty()) {
    value.push_back('\3');
    PutVarint(origin.last_failure.size(), &value);
    value += origin.last_failure;
  }
  if (origin.backoff.any()) {
    const StoredBackoff& b = origin.backoff;
    value.push_back('\4');
    for (int64_t ms : {b.since_ms, b.last_pushback_ms, b.limited_since_ms, b.hold_until_ms}) {
      PutVarint(static_cast<uint64_t>(std::max<int64_t>(ms, 0)), &value);
    }
    for (uint32_t n : {b.gap_ms, b.floor_ms, b.pushbacks}) PutVarint(n, &value);
  }
  if (origin.address_key != 0) {
    value.push_back('\5');
    PutVarint(origin.address_key, &value);
  }
  value += origin.origin;
  return value;
}

// The inverse of EncodeOrigin; false when malformed.
inline bool DecodeOrigin(std::string_view key, std::string_view value, StoredOrigin* origin) {
  size_t offset = 0;
  if (key.size() != 4 || !GetVarint(value, &offset, &origin->next_seq) ||
      !GetVarint(value, &offset, &origin->done) || !GetVarint(value, &offset, &origin->failed) ||
      origin->done + origin->failed >= origin->next_seq + 1) {
    return false;
  }
  origin->refetched = 0;
  if (offset < value.size() && value[offset] == '\0' &&
      (!GetVarint(value, &++offset, &origin->refetched) || origin->refetched >= origin->next_seq)) {
    return false;
  }
  origin->loaded_seq = 0;
  if (offset < value.size() && value[offset] == '\1' &&
      (!GetVarint(value, &++offset, &origin->loaded_seq) || origin->loaded_seq >= origin->next_seq)) {
    return false;
  }
  origin->in_line = offset < value.size() && value[offset] == '\2';
  if (origin->in_line) ++offset;
  origin->last_failure.clear();
  if (offset < value.size() && value[offset] == '\3') {
    uint64_t size = 0;
    if (!GetVarint(value, &++offset, &size) || size > value.size() - offset) return false;
    origin->last_failure = std::string(value.substr(offset, size));
    offset += size;
  }
  origin->backoff = StoredBackoff{};
  if (offset < value.size() && value[offset] == '\4') {
    ++offset;
    StoredBackoff& b = origin->backoff;
    uint64_t n[7];
    for (uint64_t& v : n) {
      if (!GetVarint(value, &offset, &v)) return false;
    }
    // Times beyond any clock, or counts beyond 32 bits, are damage.
    for (int i = 0; i < 4; ++i) {
      if (n[i] > uint64_t{INT64_MAX}) return false;
    }
    for (int i = 4; i < 7; ++i) {
      if (n[i] > UINT32_MAX) return false;
    }
    b.since_ms = static_cast<int64_t>(n[0]);
    b.last_pushback_ms = static_cast<int64_t>(n[1]);
    b.limited_since_ms = static_cast<int64_t>(n[2]);
    b.hold_until_ms = static_cast<int64_t>(n[3]);
    b.gap_ms = static_cast<uint32_t>(n[4]);
    b.floor_ms = static_cast<uint32_t>(n[5]);
    b.pushbacks = static_cast<uint32_t>(n[6]);
  }
  origin->address_key = 0;
  if (offset < value.size() && value[offset] == '\5') {
    uint64_t key = 0;
    if (!GetVarint(value, &++offset, &key) || key > UINT32_MAX) return false;
    origin->address_key = static_cast<uint32_t>(key);
  }
  origin->id = static_cast<uint32_t>(GetBigEndian(key, 0, 4));
  origin->origin = std::string(value.substr(offset));
  return true;
}

}  // namespace zcrawl::frontier::store_records
