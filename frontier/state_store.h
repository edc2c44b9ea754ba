// StateStore: the frontier's durable memory, an SQLite database in WAL mode
// (inspect it with the sqlite3 tool: tables `urls` and `meta`).
//
// The frontier decides everything in memory (who owns a URL, what is next);
// the store only records the outcome, so no decision ever rests on a
// snapshot read. Writes are buffered and applied by Commit() in one
// transaction (group commit): one fsync per commit, not per URL.
//
// What is recorded: every admitted URL (state waiting), and its final state
// (done / failed with reason). Leases are not recorded: after a crash every
// URL not final is waiting again and is fetched (again). The broker records a
// URL's final state only after the links it reported are admitted, so a crash
// can never keep a parent done while losing its children.
//
// Not thread-safe: owned by the broker thread.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "frontier/url_record.h"

namespace zcrawl::frontier {

struct StoredUrl {
  std::string url;
  std::string origin;
  uint32_t depth = 0;
  uint32_t attempts = 0;
  UrlState state = UrlState::kWaiting;
  std::string reason;
};

class StateStore {
 public:
  // Opens or creates DIR/frontier.sqlite. `fresh` deletes an existing one.
  static Result<std::unique_ptr<StateStore>> Open(const std::string& dir, bool fresh);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // True if the database held a crawl when opened.
  bool resumed() const { return resumed_; }

  void RecordAdmitted(const std::string& url, const std::string& origin, uint32_t depth);
  void RecordFinal(const std::string& url, UrlState state, const std::string& reason,
                   uint32_t attempts);
  void SetMeta(const std::string& key, const std::string& value);
  // Number of buffered changes.
  size_t pending() const { return admitted_.size() + finals_.size() + meta_.size(); }
  // Applies everything buffered in one transaction.
  Status Commit();

  // Calls `visit` for every stored URL (for resume).
  Status LoadAll(const std::function<void(StoredUrl&&)>& visit);
  // "" if unset.
  std::string GetMeta(const std::string& key);

  uint64_t commits() const { return commits_; }

 private:
  explicit StateStore(sqlite3* db) : db_(db) {}
  Status Prepare();
  Status Exec(const char* sql);

  struct Admitted {
    std::string url, origin;
    uint32_t depth;
  };
  struct Final {
    std::string url;
    UrlState state;
    std::string reason;
    uint32_t attempts;
  };

  sqlite3* db_;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* update_ = nullptr;
  sqlite3_stmt* meta_set_ = nullptr;
  std::vector<Admitted> admitted_;
  std::vector<Final> finals_;
  std::vector<std::pair<std::string, std::string>> meta_;
  bool resumed_ = false;
  uint64_t commits_ = 0;
};

}  // namespace zcrawl::frontier
