// The UrlStore's on-disk records (url_store.h has the table): column family
// indexes and names, key encodings, the queue record codec, and RocksDB
// status translation. Internal to url_store*.cc; one definition for the
// store and its inspection scans.
#pragma once

#include <rocksdb/status.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/varint.h"
#include "frontier/queued_url_codec.h"
#include "frontier/url_store.h"

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

}  // namespace zcrawl::frontier::store_records
