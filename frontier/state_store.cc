#include "frontier/state_store.h"

#include <filesystem>

#include "frontier/url_fingerprint.h"

namespace zcrawl::frontier {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS urls (
  fp       INTEGER PRIMARY KEY,   -- UrlFingerprint, as a signed 64-bit integer
  url      TEXT NOT NULL,
  origin   TEXT NOT NULL,
  depth    INTEGER NOT NULL,
  state    INTEGER NOT NULL,      -- 0 waiting, 2 done, 3 failed (see url_record.h)
  attempts INTEGER NOT NULL DEFAULT 0,
  reason   TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql";

int64_t Key(const std::string& url) { return static_cast<int64_t>(UrlFingerprint(url)); }

}  // namespace

Result<std::unique_ptr<StateStore>> StateStore::Open(const std::string& dir, bool fresh) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return PermissionDeniedError("cannot create state folder " + dir + ": " + ec.message());
  const std::string path = dir + "/frontier.sqlite";
  if (fresh) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix, ec);
  }
  const bool existed = std::filesystem::exists(path);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return UnavailableError("cannot open " + path + ": " + message);
  }
  std::unique_ptr<StateStore> store(new StateStore(db));
  // WAL: a reader (the sqlite3 tool) never blocks the frontier.
  // synchronous=FULL fsyncs the WAL at every commit, which is what makes a
  // state change durable; group commit keeps that to one fsync per batch.
  if (Status s = store->Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"); !s.ok()) return s;
  if (Status s = store->Exec(kSchema); !s.ok()) return s;
  if (Status s = store->Prepare(); !s.ok()) return s;
  store->resumed_ = existed && !store->GetMeta("created_at_ms").empty();
  return store;
}

StateStore::~StateStore() {
  sqlite3_finalize(insert_);
  sqlite3_finalize(update_);
  sqlite3_finalize(meta_set_);
  sqlite3_close(db_);
}

Status StateStore::Exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    return UnavailableError("sqlite: " + message);
  }
  return Status::Ok();
}

Status StateStore::Prepare() {
  auto prepare = [&](const char* sql, sqlite3_stmt** stmt) -> Status {
    if (sqlite3_prepare_v2(db_, sql, -1, stmt, nullptr) != SQLITE_OK) {
      return InternalError(std::string("sqlite prepare: ") + sqlite3_errmsg(db_));
    }
    return Status::Ok();
  };
  if (Status s = prepare("INSERT OR IGNORE INTO urls(fp,url,origin,depth,state) VALUES(?,?,?,?,0)", &insert_); !s.ok()) return s;
  if (Status s = prepare("UPDATE urls SET state=?, reason=?, attempts=? WHERE fp=?", &update_); !s.ok()) return s;
  return prepare("INSERT OR REPLACE INTO meta(key,value) VALUES(?,?)", &meta_set_);
}

void StateStore::RecordAdmitted(const std::string& url, const std::string& origin, uint32_t depth) {
  admitted_.push_back({url, origin, depth});
}

void StateStore::RecordFinal(const std::string& url, UrlState state, const std::string& reason,
                             uint32_t attempts) {
  finals_.push_back({url, state, reason, attempts});
}

void StateStore::SetMeta(const std::string& key, const std::string& value) {
  meta_.emplace_back(key, value);
}

Status StateStore::Commit() {
  if (pending() == 0) return Status::Ok();
  if (Status s = Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  auto step = [&](sqlite3_stmt* stmt) -> Status {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    if (rc != SQLITE_DONE) return UnavailableError(std::string("sqlite: ") + sqlite3_errmsg(db_));
    return Status::Ok();
  };
  Status result = Status::Ok();
  for (const Admitted& a : admitted_) {
    sqlite3_bind_int64(insert_, 1, Key(a.url));
    sqlite3_bind_text(insert_, 2, a.url.data(), static_cast<int>(a.url.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert_, 3, a.origin.data(), static_cast<int>(a.origin.size()), SQLITE_STATIC);
    sqlite3_bind_int(insert_, 4, static_cast<int>(a.depth));
    if (result = step(insert_); !result.ok()) break;
  }
  for (const Final& f : finals_) {
    if (!result.ok()) break;
    sqlite3_bind_int(update_, 1, static_cast<int>(f.state));
    sqlite3_bind_text(update_, 2, f.reason.data(), static_cast<int>(f.reason.size()), SQLITE_STATIC);
    sqlite3_bind_int(update_, 3, static_cast<int>(f.attempts));
    sqlite3_bind_int64(update_, 4, Key(f.url));
    result = step(update_);
  }
  for (const auto& [key, value] : meta_) {
    if (!result.ok()) break;
    sqlite3_bind_text(meta_set_, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    sqlite3_bind_text(meta_set_, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    result = step(meta_set_);
  }
  if (!result.ok()) {
    Exec("ROLLBACK").IgnoreError();
    return result;  // buffers kept: the next Commit retries them
  }
  if (Status s = Exec("COMMIT"); !s.ok()) {
    Exec("ROLLBACK").IgnoreError();
    return s;
  }
  admitted_.clear();
  finals_.clear();
  meta_.clear();
  ++commits_;
  return Status::Ok();
}

Status StateStore::LoadAll(const std::function<void(StoredUrl&&)>& visit) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT url, origin, depth, attempts, state, reason FROM urls", -1,
                         &stmt, nullptr) != SQLITE_OK) {
    return InternalError(std::string("sqlite: ") + sqlite3_errmsg(db_));
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    StoredUrl u;
    u.url = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    u.origin = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    u.depth = static_cast<uint32_t>(sqlite3_column_int(stmt, 2));
    u.attempts = static_cast<uint32_t>(sqlite3_column_int(stmt, 3));
    u.state = static_cast<UrlState>(sqlite3_column_int(stmt, 4));
    if (const unsigned char* r = sqlite3_column_text(stmt, 5)) u.reason = reinterpret_cast<const char*>(r);
    visit(std::move(u));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return DataLossError(std::string("sqlite read: ") + sqlite3_errmsg(db_));
  return Status::Ok();
}

std::string StateStore::GetMeta(const std::string& key) {
  sqlite3_stmt* stmt = nullptr;
  std::string value;
  if (sqlite3_prepare_v2(db_, "SELECT value FROM meta WHERE key=?", -1, &stmt, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(stmt, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
    if (sqlite3_step(stmt) == SQLITE_ROW) value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  return value;
}

}  // namespace zcrawl::frontier
