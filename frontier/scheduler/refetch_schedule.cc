#include "frontier/scheduler/refetch_schedule.h"

#include <algorithm>
#include <climits>

#include "common/varint.h"
#include "frontier/store/url_store_records.h"

namespace zcrawl::frontier {
namespace {

using store_records::GetBigEndian;
using store_records::PutBigEndian;

constexpr std::string_view kPrefix = "refetch/";
// The first key past the schedule's range ('/' + 1).
constexpr std::string_view kPrefixEnd = "refetch0";

std::string EntryKey(int64_t due_wall_ms, const UrlKey& key) {
  std::string out(kPrefix);
  PutBigEndian(out, static_cast<uint64_t>(std::max<int64_t>(due_wall_ms, 0)), 8);
  out += store_records::SeenKey(key.site, key.fingerprint);
  return out;
}

// The first key due after `wall_ms`.
std::string KeyAfter(int64_t wall_ms) {
  std::string out(kPrefix);
  PutBigEndian(out, static_cast<uint64_t>(std::max<int64_t>(wall_ms, 0)) + 1, 8);
  return out;
}

bool Decode(std::string_view key, std::string_view value, int64_t* due, ScheduledUrl* url) {
  if (key.size() != kPrefix.size() + 8 + store_records::kSeenKeySize) return false;
  *due = static_cast<int64_t>(GetBigEndian(key, kPrefix.size(), 8));
  size_t offset = 0;
  uint64_t depth = 0, redirect_hops = 0, embed_hops = 0;
  if (!GetVarint(value, &offset, &depth) || !GetVarint(value, &offset, &redirect_hops) ||
      !GetVarint(value, &offset, &embed_hops) || offset >= value.size()) {
    return false;
  }
  url->depth = static_cast<uint32_t>(depth);
  url->redirect_hops = static_cast<uint32_t>(redirect_hops);
  url->embed_hops = static_cast<uint32_t>(embed_hops);
  url->url = std::string(value.substr(offset));
  return true;
}

}  // namespace

void RefetchSchedule::Schedule(const ScheduledUrl& url, int64_t due_wall_ms, const v1::Validators& state) {
  const UrlKey key = store_.KeyOf(url.url);
  std::string value;
  PutVarint(url.depth, &value);
  PutVarint(url.redirect_hops, &value);
  PutVarint(url.embed_hops, &value);
  value += url.url;
  store_.SetMeta(EntryKey(due_wall_ms, key), value);
  v1::Validators with_round = state;
  with_round.set_round_due_ms(due_wall_ms);  // the writer key of the round (common/page_key.h)
  store_.StageValidators(key, with_round.SerializeAsString());
  next_due_wall_ms_ = std::min(next_due_wall_ms_, due_wall_ms);
}

Status RefetchSchedule::TakeDue(int64_t now_wall_ms, size_t max, std::vector<ScheduledUrl>* out) {
  // Everything staged goes to disk first: the scan then sees every entry
  // scheduled so far and none taken before.
  if (Status flushed = store_.Flush(); !flushed.ok()) return flushed;
  const std::string below = KeyAfter(now_wall_ms);
  size_t taken = 0;
  bool more_due = false;
  // Removals are staged only once both scans succeeded: a failed scan
  // leaves every entry scheduled (and the caller queues nothing).
  std::vector<std::string> taken_keys;
  std::vector<ScheduledUrl> due_urls;
  uint64_t malformed = 0;
  Status scanned = store_.ScanMeta(std::string(kPrefix), below, [&](std::string_view key, std::string_view value) {
    if (taken == max) {
      more_due = true;
      return false;
    }
    int64_t due = 0;
    ScheduledUrl url;
    taken_keys.emplace_back(key);
    if (!Decode(key, value, &due, &url)) {
      ++malformed;
      return true;
    }
    due_urls.push_back(std::move(url));
    ++taken;
    return true;
  });
  if (!scanned.ok()) return scanned;
  int64_t next = now_wall_ms;  // more are due now
  if (!more_due) {
    next = INT64_MAX;  // the first entry not yet due, if any
    Status peeked = store_.ScanMeta(below, std::string(kPrefixEnd), [&](std::string_view key, std::string_view) {
      next = static_cast<int64_t>(GetBigEndian(key, kPrefix.size(), 8));
      return false;
    });
    if (!peeked.ok()) return peeked;
  }
  for (const std::string& key : taken_keys) store_.EraseMeta(key);
  for (ScheduledUrl& url : due_urls) out->push_back(std::move(url));
  malformed_ += malformed;
  next_due_wall_ms_ = next;
  return Status::Ok();
}

Status RefetchSchedule::ForEach(UrlStore& store,
                                const std::function<bool(int64_t due_wall_ms, const ScheduledUrl& url)>& visit) {
  return store.ScanMeta(std::string(kPrefix), std::string(kPrefixEnd), [&](std::string_view key, std::string_view value) {
    int64_t due = 0;
    ScheduledUrl url;
    if (!Decode(key, value, &due, &url)) return true;
    return visit(due, url);
  });
}

}  // namespace zcrawl::frontier
