// SQLite store: WAL journal, synchronous=FULL, one connection used by one sequencer.
// Schema: docs/board.md §6.
#include <sqlite3.h>

#include <bit>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "gopa/bulletin/merkle.hpp"
#include "gopa/bulletin/store.hpp"

namespace gopa::bulletin {

namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries(
  idx INTEGER PRIMARY KEY, data BLOB NOT NULL, leaf BLOB NOT NULL UNIQUE,
  session BLOB NOT NULL, sender BLOB NOT NULL, seq INTEGER NOT NULL,
  UNIQUE(session, sender, seq));
CREATE TABLE IF NOT EXISTS checkpoints(size INTEGER PRIMARY KEY, root BLOB NOT NULL, note TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS equivocations(
  id INTEGER PRIMARY KEY AUTOINCREMENT, existing_idx INTEGER NOT NULL,
  conflicting BLOB NOT NULL, received INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS cosignatures(
  size INTEGER NOT NULL, vkey TEXT NOT NULL, line TEXT NOT NULL, PRIMARY KEY(size, vkey, line));
CREATE TABLE IF NOT EXISTS blobs(hash BLOB PRIMARY KEY, data BLOB NOT NULL);
)sql";

Errc classify(int rc) {
  const int primary = rc & 0xff;
  return (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) ? Errc::corrupted : Errc::io;
}

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt() { sqlite3_finalize(s_); }
  int prepare(sqlite3* db, const char* sql) { return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s_, nullptr); }
  sqlite3_stmt* get() { return s_; }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  void bind(int i, std::span<const std::uint8_t> b) {
    sqlite3_bind_blob(s_, i, b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
  }
  void bind(int i, std::string_view t) { sqlite3_bind_text(s_, i, t.data(), static_cast<int>(t.size()), SQLITE_STATIC); }
  void bind_u64(int i, std::uint64_t v) { sqlite3_bind_int64(s_, i, std::bit_cast<std::int64_t>(v)); }
  void bind_i64(int i, std::int64_t v) { sqlite3_bind_int64(s_, i, v); }
  Bytes blob(int col) {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(s_, col));
    const int n = sqlite3_column_bytes(s_, col);
    return p ? Bytes(p, p + n) : Bytes{};
  }
  std::string text(int col) {
    const auto* p = sqlite3_column_text(s_, col);
    const int n = sqlite3_column_bytes(s_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string{};
  }
  std::uint64_t u64(int col) { return std::bit_cast<std::uint64_t>(sqlite3_column_int64(s_, col)); }
  std::int64_t i64(int col) { return sqlite3_column_int64(s_, col); }

 private:
  sqlite3_stmt* s_ = nullptr;
};

bool to_hash(const Bytes& b, Hash& out) {
  if (b.size() != out.size()) return false;
  std::memcpy(out.data(), b.data(), out.size());
  return true;
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(std::string path) : path_(std::move(path)) {}
  // sqlite3_close_v2 defers the close until the member statements are finalized, right after.
  ~SqliteStore() override { sqlite3_close_v2(db_); }

  Status open(const StoreOptions& opt) {
    int rc = 0;
    if (opt.read_only) {
      // Read-only: without a -wal file (no server has the database open and no commit is waiting
      // in a journal) the file is opened immutable: no lock, no -wal/-shm file created, and a file
      // or directory without write permission is readable. With a -wal file the committed state
      // is partly in it, so the database is opened read-only through the WAL (its files exist).
      std::error_code ec;
      const bool has_wal = std::filesystem::exists(path_ + "-wal", ec);
      if (!std::filesystem::exists(path_, ec)) return make_error(Errc::io, "no database file " + path_);
      const std::string uri = "file:" + uri_path(path_) + (has_wal ? "?mode=ro" : "?mode=ro&immutable=1");
      rc = sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    } else {
      const int flags = SQLITE_OPEN_READWRITE | (opt.create ? SQLITE_OPEN_CREATE : 0);
      rc = sqlite3_open_v2(path_.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    }
    if (rc != SQLITE_OK) return fail(rc, "cannot open SQLite database " + path_);
    sqlite3_busy_timeout(db_, 10000);
    // Integrity first: a flipped byte in a page is refused before anything else reads it.
    if (Status st = exec_check("PRAGMA quick_check"); !st) return st;
    if (!opt.read_only) {
      // Another application's database is never extended with the board's tables.
      auto foreign = holds_other_tables();
      if (!foreign) return foreign.error();
      if (foreign.value()) {
        return make_error(Errc::invalid_argument, path_ + " holds tables but is not a gopa board; refusing to add the board's tables");
      }
      if (Status st = exec("PRAGMA journal_mode=WAL"); !st) return st;
      if (Status st = exec("PRAGMA synchronous=FULL"); !st) return st;
      if (Status st = exec(kSchema); !st) return st;
    }
    struct P { Stmt* s; const char* sql; };
    const P stmts[] = {
        {&get_meta_, "SELECT value FROM meta WHERE key=?1"},
        {&put_meta_, "INSERT OR IGNORE INTO meta(key, value) VALUES(?1, ?2)"},
        {&size_, "SELECT coalesce(max(idx) + 1, 0), count(*) FROM entries"},
        {&read_rows_, "SELECT idx, data, leaf FROM entries WHERE idx >= ?1 AND idx < ?2 ORDER BY idx"},
        {&insert_entry_, "INSERT INTO entries(idx, data, leaf, session, sender, seq) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"},
        {&insert_cp_, "INSERT OR IGNORE INTO checkpoints(size, root, note) VALUES(?1, ?2, ?3)"},
        {&latest_cp_, "SELECT size, root, note FROM checkpoints ORDER BY size DESC LIMIT 1"},
        {&all_cp_, "SELECT size, root, note FROM checkpoints ORDER BY size"},
        {&insert_eq_, "INSERT INTO equivocations(existing_idx, conflicting, received) SELECT ?1, ?2, ?3 "
                      "WHERE NOT EXISTS (SELECT 1 FROM equivocations WHERE existing_idx=?1)"},
        {&all_eq_, "SELECT existing_idx, conflicting, received FROM equivocations ORDER BY id"},
        {&insert_cos_, "INSERT OR IGNORE INTO cosignatures(size, vkey, line) VALUES(?1, ?2, ?3)"},
        {&cos_, "SELECT vkey, line FROM cosignatures WHERE size=?1 ORDER BY vkey, line"},
        {&put_blob_, "INSERT OR IGNORE INTO blobs(hash, data) VALUES(?1, ?2)"},
        {&get_blob_, "SELECT data FROM blobs WHERE hash=?1"},
        {&blob_bytes_, "SELECT coalesce(sum(length(data)), 0) FROM blobs"},
    };
    for (const auto& p : stmts) {
      rc = p.s->prepare(db_, p.sql);
      if (rc != SQLITE_OK) {
        return fail(rc, std::string("database schema is not a gopa board (") + sqlite3_errmsg(db_) + ")");
      }
    }
    return {};
  }

  std::string describe() const override { return "sqlite:" + path_; }

  Result<std::optional<std::string>> get_meta(const std::string& key) override {
    get_meta_.reset();
    get_meta_.bind(1, key);
    // Every statement is reset before returning: an unreset SELECT keeps its read transaction
    // open, which stops WAL checkpoints and lets the WAL file grow without bound.
    const int rc = sqlite3_step(get_meta_.get());
    std::optional<std::string> value;
    if (rc == SQLITE_ROW) value = get_meta_.text(0);
    get_meta_.reset();
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return value;
    return fail(rc, "reading meta");
  }

  Status init_meta(const std::vector<std::pair<std::string, std::string>>& kv) override {
    if (Status st = exec("BEGIN IMMEDIATE"); !st) return st;
    for (const auto& [k, v] : kv) {
      put_meta_.reset();
      put_meta_.bind(1, k);
      put_meta_.bind(2, v);
      if (int rc = sqlite3_step(put_meta_.get()); rc != SQLITE_DONE) return rollback(rc, "writing meta");
    }
    put_meta_.reset();
    return commit();
  }

  Status set_meta(const std::string& key, const std::string& value) override {
    Stmt up;
    int rc = up.prepare(db_, "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
    if (rc != SQLITE_OK) return fail(rc, "writing meta");
    up.bind(1, key);
    up.bind(2, value);
    rc = sqlite3_step(up.get());
    up.reset();
    if (rc != SQLITE_DONE) return fail(rc, "writing meta");
    return {};
  }

  Status erase_meta(const std::string& key) override {
    // secure_delete overwrites the freed cells; the checkpoint copies the pages into the database
    // file and truncates the WAL, so no earlier page version holding the value remains in it.
    if (Status st = exec("PRAGMA secure_delete=ON"); !st) return st;
    if (Status st = exec("BEGIN IMMEDIATE"); !st) return st;
    Stmt del;
    if (int rc = del.prepare(db_, "DELETE FROM meta WHERE key=?1"); rc != SQLITE_OK) return rollback(rc, "erasing meta");
    del.bind(1, key);
    if (int rc = sqlite3_step(del.get()); rc != SQLITE_DONE) return rollback(rc, "erasing meta");
    del.reset();
    if (Status st = commit(); !st) return st;
    if (Status st = exec("PRAGMA wal_checkpoint(TRUNCATE)"); !st) return st;
    return exec("PRAGMA secure_delete=OFF");
  }

  std::string default_key_path() const override { return path_ + ".key"; }

  Result<std::uint64_t> size() override {
    size_.reset();
    const int rc = sqlite3_step(size_.get());
    if (rc != SQLITE_ROW) {
      size_.reset();
      return fail(rc, "reading the log size");
    }
    const std::uint64_t next = size_.u64(0);
    const std::uint64_t count = size_.u64(1);
    size_.reset();
    if (next != count) return make_error(Errc::corrupted, "entry indices have gaps");
    return next;
  }

  Result<std::vector<StoredRow>> read_rows(std::uint64_t begin, std::uint64_t end) override {
    read_rows_.reset();
    read_rows_.bind_u64(1, begin);
    read_rows_.bind_u64(2, end);
    std::vector<StoredRow> out;
    int rc = 0;
    while ((rc = sqlite3_step(read_rows_.get())) == SQLITE_ROW) {
      if (read_rows_.u64(0) != begin + out.size()) {
        read_rows_.reset();
        return make_error(Errc::corrupted, "entry indices are not contiguous");
      }
      StoredRow row;
      row.data = read_rows_.blob(1);
      if (!to_hash(read_rows_.blob(2), row.leaf)) {
        read_rows_.reset();
        return make_error(Errc::corrupted, "stored leaf hash is not 32 bytes");
      }
      out.push_back(std::move(row));
    }
    read_rows_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "reading entries");
    return out;
  }

  Status append_batch(std::uint64_t first, std::span<const PendingEntry> entries,
                      std::span<const EquivocationRecord> evidence, const SealFn& seal) override {
    if (Status st = exec("BEGIN IMMEDIATE"); !st) return st;
    auto sz = size();
    if (!sz) {
      (void)exec("ROLLBACK");
      return sz.error();
    }
    if (sz.value() != first) {
      (void)exec("ROLLBACK");
      return make_error(Errc::io, std::string(kLogMoved) + ": stored size " + std::to_string(sz.value()) + ", expected " + std::to_string(first));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const PendingEntry& e = entries[i];
      insert_entry_.reset();
      insert_entry_.bind_u64(1, first + i);
      insert_entry_.bind(2, e.data);
      insert_entry_.bind(3, e.leaf);
      insert_entry_.bind(4, e.session);
      insert_entry_.bind(5, e.sender);
      insert_entry_.bind_u64(6, e.sequence);
      if (int rc = sqlite3_step(insert_entry_.get()); rc != SQLITE_DONE) return rollback(rc, "inserting an entry");
    }
    insert_entry_.reset();
    for (const auto& ev : evidence) {
      insert_eq_.reset();
      insert_eq_.bind_u64(1, ev.existing_index);
      insert_eq_.bind(2, ev.conflicting);
      insert_eq_.bind_i64(3, ev.received_unix);
      if (int rc = sqlite3_step(insert_eq_.get()); rc != SQLITE_DONE) return rollback(rc, "recording equivocation");
    }
    insert_eq_.reset();
    if (!entries.empty()) {
      // Read the rows back and re-derive their leaf hashes from the stored bytes.
      auto rows = read_rows(first, first + entries.size());
      if (!rows) {
        (void)exec("ROLLBACK");
        return rows.error();
      }
      std::vector<Hash> leaves;
      leaves.reserve(rows.value().size());
      for (const auto& r : rows.value()) leaves.push_back(leaf_hash(r.data));
      auto cp = seal(leaves);
      if (!cp) {
        (void)exec("ROLLBACK");
        return cp.error();
      }
      if (Status st = insert_checkpoint(cp.value()); !st) {
        (void)exec("ROLLBACK");
        return st;
      }
    }
    return commit();
  }

  Status put_checkpoint(const StoredCheckpoint& cp) override {
    if (Status st = exec("BEGIN IMMEDIATE"); !st) return st;
    if (Status st = insert_checkpoint(cp); !st) {
      (void)exec("ROLLBACK");
      return st;
    }
    return commit();
  }

  Result<std::optional<StoredCheckpoint>> latest_checkpoint() override {
    latest_cp_.reset();
    const int rc = sqlite3_step(latest_cp_.get());
    if (rc != SQLITE_ROW) {
      latest_cp_.reset();
      if (rc == SQLITE_DONE) return std::optional<StoredCheckpoint>{};
      return fail(rc, "reading checkpoints");
    }
    StoredCheckpoint cp;
    cp.size = latest_cp_.u64(0);
    const bool root_ok = to_hash(latest_cp_.blob(1), cp.root);
    cp.note = latest_cp_.text(2);
    latest_cp_.reset();
    if (!root_ok) return make_error(Errc::corrupted, "stored checkpoint root is not 32 bytes");
    return std::optional<StoredCheckpoint>(std::move(cp));
  }

  Result<std::vector<StoredCheckpoint>> checkpoints() override {
    all_cp_.reset();
    std::vector<StoredCheckpoint> out;
    int rc = 0;
    while ((rc = sqlite3_step(all_cp_.get())) == SQLITE_ROW) {
      StoredCheckpoint cp;
      cp.size = all_cp_.u64(0);
      if (!to_hash(all_cp_.blob(1), cp.root)) {
        all_cp_.reset();
        return make_error(Errc::corrupted, "stored checkpoint root is not 32 bytes");
      }
      cp.note = all_cp_.text(2);
      out.push_back(std::move(cp));
    }
    all_cp_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "reading checkpoints");
    return out;
  }

  Result<std::vector<EquivocationRecord>> equivocations() override {
    all_eq_.reset();
    std::vector<EquivocationRecord> out;
    int rc = 0;
    while ((rc = sqlite3_step(all_eq_.get())) == SQLITE_ROW) {
      out.push_back(EquivocationRecord{all_eq_.u64(0), all_eq_.blob(1), all_eq_.i64(2)});
    }
    all_eq_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "reading equivocations");
    return out;
  }

  Status add_cosignature(const CosignatureRecord& rec) override {
    insert_cos_.reset();
    insert_cos_.bind_u64(1, rec.size);
    insert_cos_.bind(2, rec.cosigner_vkey);
    insert_cos_.bind(3, rec.line);
    const int rc = sqlite3_step(insert_cos_.get());
    insert_cos_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "storing a cosignature");
    return {};
  }

  Result<std::vector<CosignatureRecord>> cosignatures(std::uint64_t size) override {
    cos_.reset();
    cos_.bind_u64(1, size);
    std::vector<CosignatureRecord> out;
    int rc = 0;
    while ((rc = sqlite3_step(cos_.get())) == SQLITE_ROW) out.push_back(CosignatureRecord{size, cos_.text(0), cos_.text(1)});
    cos_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "reading cosignatures");
    return out;
  }

  Status put_blob(const Hash& hash, std::span<const std::uint8_t> data) override {
    put_blob_.reset();
    put_blob_.bind(1, hash);
    put_blob_.bind(2, data);
    const int rc = sqlite3_step(put_blob_.get());
    put_blob_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "storing a blob");
    return {};
  }

  Result<std::optional<Bytes>> get_blob(const Hash& hash) override {
    get_blob_.reset();
    get_blob_.bind(1, hash);
    const int rc = sqlite3_step(get_blob_.get());
    if (rc != SQLITE_ROW) {
      get_blob_.reset();
      if (rc == SQLITE_DONE) return std::optional<Bytes>{};
      return fail(rc, "reading a blob");
    }
    Bytes b = get_blob_.blob(0);
    get_blob_.reset();
    return std::optional<Bytes>(std::move(b));
  }

  Result<std::uint64_t> blob_bytes() override {
    blob_bytes_.reset();
    const int rc = sqlite3_step(blob_bytes_.get());
    const std::uint64_t n = rc == SQLITE_ROW ? blob_bytes_.u64(0) : 0;
    blob_bytes_.reset();
    if (rc != SQLITE_ROW) return fail(rc, "reading the blob total");
    return n;
  }

 private:
  Error fail(int rc, const std::string& what) {
    return make_error(classify(rc), what + ": " + (db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc)));
  }
  Status rollback(int rc, const std::string& what) {
    Error e = fail(rc, what);
    (void)exec("ROLLBACK");
    return e;
  }
  Status commit() {
    // synchronous=FULL: COMMIT returns after the WAL is fsynced.
    return exec("COMMIT");
  }
  Status exec(const char* sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
      std::string msg = err ? err : sqlite3_errstr(rc);
      sqlite3_free(err);
      return make_error(classify(rc), std::string("SQLite: ") + msg);
    }
    return {};
  }
  Status exec_check(const char* sql) {
    Stmt s;
    int rc = s.prepare(db_, sql);
    if (rc != SQLITE_OK) return fail(rc, "database is not readable");
    rc = sqlite3_step(s.get());
    if (rc != SQLITE_ROW) return fail(rc, "integrity check failed");
    const std::string res = s.text(0);
    if (res != "ok") return make_error(Errc::corrupted, "SQLite integrity check: " + res);
    return {};
  }
  // True when the database has tables and none of them is the board's `meta`.
  Result<bool> holds_other_tables() {
    Stmt s;
    int rc = s.prepare(db_, "SELECT count(*), coalesce(sum(name = 'meta'), 0) FROM sqlite_schema WHERE type = 'table'");
    if (rc != SQLITE_OK) return fail(rc, "reading the schema");
    rc = sqlite3_step(s.get());
    if (rc != SQLITE_ROW) return fail(rc, "reading the schema");
    return s.i64(0) > 0 && s.i64(1) == 0;
  }
  // A path as the file part of an SQLite URI: '%', '?' and '#' percent-encoded.
  static std::string uri_path(const std::string& path) {
    std::string out;
    for (char c : path) {
      if (c == '%' || c == '?' || c == '#') {
        char buf[4];
        std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
        out += buf;
      } else {
        out += c;
      }
    }
    return out;
  }
  Status insert_checkpoint(const StoredCheckpoint& cp) {
    insert_cp_.reset();
    insert_cp_.bind_u64(1, cp.size);
    insert_cp_.bind(2, cp.root);
    insert_cp_.bind(3, cp.note);
    const int rc = sqlite3_step(insert_cp_.get());
    insert_cp_.reset();
    if (rc != SQLITE_DONE) return fail(rc, "storing a checkpoint");
    return {};
  }

  std::string path_;
  sqlite3* db_ = nullptr;
  Stmt get_meta_, put_meta_, size_, read_rows_, insert_entry_, insert_cp_, latest_cp_, all_cp_, insert_eq_,
      all_eq_, insert_cos_, cos_, put_blob_, get_blob_, blob_bytes_;
};

}  // namespace

Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path, StoreOptions options) {
  auto store = std::make_unique<SqliteStore>(path);
  if (Status st = store->open(options); !st) return st.error();
  return std::unique_ptr<Store>(std::move(store));
}

Result<std::unique_ptr<Store>> open_store(const std::string& location, StoreOptions options) {
  if (location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0) {
    return open_postgres_store(location, options);
  }
  return open_sqlite_store(location, options);
}

}  // namespace gopa::bulletin
