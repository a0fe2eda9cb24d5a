// PostgreSQL store (libpq): several board servers may share one database. Every append runs in
// one transaction under an advisory lock (the single sequencer across servers); COMMIT returns
// once the WAL is flushed (synchronous_commit=on, the default, is enforced per session).
// Schema: docs/board.md §6. All parameters and results use libpq's binary format.
#include <libpq-fe.h>

#include <cstring>
#include <memory>

#include "gopa/bulletin/merkle.hpp"
#include "gopa/bulletin/store.hpp"

namespace gopa::bulletin {

namespace {

constexpr const char* kPgSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries(
  idx BIGINT PRIMARY KEY, data BYTEA NOT NULL, leaf BYTEA NOT NULL UNIQUE,
  session BYTEA NOT NULL, sender BYTEA NOT NULL, seq BIGINT NOT NULL,
  UNIQUE(session, sender, seq));
CREATE TABLE IF NOT EXISTS checkpoints(size BIGINT PRIMARY KEY, root BYTEA NOT NULL, note TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS equivocations(
  id BIGSERIAL PRIMARY KEY, existing_idx BIGINT NOT NULL, conflicting BYTEA NOT NULL, received BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS cosignatures(
  size BIGINT NOT NULL, vkey TEXT NOT NULL, line TEXT NOT NULL, PRIMARY KEY(size, vkey, line));
CREATE TABLE IF NOT EXISTS blobs(hash BYTEA PRIMARY KEY, data BYTEA NOT NULL);
)sql";

// Advisory lock keys: schema creation and the sequencer.
constexpr const char* kSchemaLock = "SELECT pg_advisory_lock(4242001)";
constexpr const char* kSchemaUnlock = "SELECT pg_advisory_unlock(4242001)";
constexpr const char* kSequencerLock = "SELECT pg_advisory_xact_lock(4242002)";

constexpr unsigned kInt8Oid = 20;
constexpr unsigned kByteaOid = 17;
constexpr unsigned kTextOid = 25;

struct ResultDeleter {
  void operator()(PGresult* r) const { PQclear(r); }
};
using PgResult = std::unique_ptr<PGresult, ResultDeleter>;

// Binary parameters for one statement.
class Params {
 public:
  Params& u64(std::uint64_t v) {
    Bytes b(8);
    for (int i = 0; i < 8; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (56 - 8 * i));
    return add(kInt8Oid, std::move(b));
  }
  Params& bytea(std::span<const std::uint8_t> b) { return add(kByteaOid, Bytes(b.begin(), b.end())); }
  Params& text(std::string_view t) { return add(kTextOid, Bytes(t.begin(), t.end())); }
  int count() const { return static_cast<int>(values_.size()); }
  const unsigned* types() const { return types_.data(); }
  const char* const* values() {
    ptrs_.clear();
    for (const auto& v : values_) ptrs_.push_back(reinterpret_cast<const char*>(v.data()));
    return ptrs_.data();
  }
  const int* lengths() {
    lens_.clear();
    for (const auto& v : values_) lens_.push_back(static_cast<int>(v.size()));
    return lens_.data();
  }
  const int* formats() {
    fmts_.assign(values_.size(), 1);
    return fmts_.data();
  }

 private:
  Params& add(unsigned oid, Bytes b) {
    types_.push_back(oid);
    values_.push_back(std::move(b));
    return *this;
  }
  std::vector<unsigned> types_;
  std::vector<Bytes> values_;
  std::vector<const char*> ptrs_;
  std::vector<int> lens_;
  std::vector<int> fmts_;
};

Bytes cell(const PGresult* r, int row, int col) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r, row, col));
  const int n = PQgetlength(r, row, col);
  return Bytes(p, p + n);
}
std::string cell_text(const PGresult* r, int row, int col) {
  return std::string(PQgetvalue(r, row, col), static_cast<std::size_t>(PQgetlength(r, row, col)));
}
std::optional<std::uint64_t> cell_u64(const PGresult* r, int row, int col) {
  if (PQgetlength(r, row, col) != 8) return std::nullopt;
  const auto* p = reinterpret_cast<const std::uint8_t*>(PQgetvalue(r, row, col));
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}
bool cell_hash(const PGresult* r, int row, int col, Hash& out) {
  if (PQgetlength(r, row, col) != 32) return false;
  std::memcpy(out.data(), PQgetvalue(r, row, col), 32);
  return true;
}

class PostgresStore final : public Store {
 public:
  explicit PostgresStore(std::string url) : url_(std::move(url)) {}
  ~PostgresStore() override {
    if (conn_) PQfinish(conn_);
  }

  Status open(const StoreOptions& opt) {
    conn_ = PQconnectdb(url_.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      return make_error(Errc::io, std::string("cannot connect to PostgreSQL: ") + PQerrorMessage(conn_));
    }
    if (Status st = exec("SET synchronous_commit = on"); !st) return st;
    if (Status st = exec("SET client_min_messages = warning"); !st) return st;
    if (opt.read_only) return exec("SET default_transaction_read_only = on");
    if (Status st = exec(kSchemaLock); !st) return st;
    // Another application's tables in the schema the board would use: refused, not extended.
    Params none;
    auto foreign = query("SELECT count(*)::bigint, count(*) FILTER (WHERE table_name = 'meta')::bigint "
                         "FROM information_schema.tables WHERE table_schema = current_schema()", none);
    if (!foreign) {
      (void)exec(kSchemaUnlock);
      return foreign.error();
    }
    if (cell_u64(foreign.value().get(), 0, 0).value_or(0) > 0 && cell_u64(foreign.value().get(), 0, 1).value_or(0) == 0) {
      (void)exec(kSchemaUnlock);
      return make_error(Errc::invalid_argument, "the database holds tables but is not a gopa board; refusing to add the board's tables");
    }
    Status created = exec(kPgSchema);
    (void)exec(kSchemaUnlock);
    return created;
  }

  std::string describe() const override {
    // The URL without credentials.
    const auto at = url_.find('@');
    const auto scheme = url_.find("://");
    if (at == std::string::npos || scheme == std::string::npos) return url_;
    return url_.substr(0, scheme + 3) + url_.substr(at + 1);
  }
  bool shared() const noexcept override { return true; }
  Status lock_sequencer() override { return exec("SELECT pg_advisory_lock(4242002)"); }
  void unlock_sequencer() override { (void)exec("SELECT pg_advisory_unlock(4242002)"); }

  Result<std::optional<std::string>> get_meta(const std::string& key) override {
    Params p;
    p.text(key);
    auto r = query("SELECT value FROM meta WHERE key = $1", p);
    if (!r) return r.error();
    if (PQntuples(r.value().get()) == 0) return std::optional<std::string>{};
    return std::optional<std::string>(cell_text(r.value().get(), 0, 0));
  }

  Status init_meta(const std::vector<std::pair<std::string, std::string>>& kv) override {
    if (Status st = exec("BEGIN"); !st) return st;
    for (const auto& [k, v] : kv) {
      Params p;
      p.text(k).text(v);
      if (auto r = query("INSERT INTO meta(key, value) VALUES($1, $2) ON CONFLICT (key) DO NOTHING", p); !r) {
        return abort(r.error());
      }
    }
    return exec("COMMIT");
  }

  Status set_meta(const std::string& key, const std::string& value) override {
    Params p;
    p.text(key).text(value);
    auto r = query("INSERT INTO meta(key, value) VALUES($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", p);
    if (!r) return r.error();
    return {};
  }

  Status erase_meta(const std::string& key) override {
    Params p;
    p.text(key);
    auto r = query("DELETE FROM meta WHERE key = $1", p);
    if (!r) return r.error();
    // The deleted row version stays in the table's pages until they are rewritten.
    return exec("VACUUM FULL meta");
  }

  Result<std::uint64_t> size() override {
    Params p;
    auto r = query("SELECT coalesce(max(idx) + 1, 0)::bigint, count(*)::bigint FROM entries", p);
    if (!r) return r.error();
    const auto next = cell_u64(r.value().get(), 0, 0);
    const auto count = cell_u64(r.value().get(), 0, 1);
    if (!next || !count) return make_error(Errc::corrupted, "size query returned non-integers");
    if (*next != *count) return make_error(Errc::corrupted, "entry indices have gaps");
    return *next;
  }

  Result<std::vector<StoredRow>> read_rows(std::uint64_t begin, std::uint64_t end) override {
    Params p;
    p.u64(begin).u64(end);
    auto r = query("SELECT idx, data, leaf FROM entries WHERE idx >= $1 AND idx < $2 ORDER BY idx", p);
    if (!r) return r.error();
    std::vector<StoredRow> out;
    const PGresult* res = r.value().get();
    for (int i = 0; i < PQntuples(res); ++i) {
      if (cell_u64(res, i, 0) != begin + out.size()) return make_error(Errc::corrupted, "entry indices are not contiguous");
      StoredRow row;
      row.data = cell(res, i, 1);
      if (!cell_hash(res, i, 2, row.leaf)) return make_error(Errc::corrupted, "stored leaf hash is not 32 bytes");
      out.push_back(std::move(row));
    }
    return out;
  }

  Status append_batch(std::uint64_t first, std::span<const PendingEntry> entries,
                      std::span<const EquivocationRecord> evidence, const SealFn& seal) override {
    if (Status st = exec("BEGIN"); !st) return st;
    if (Status st = exec(kSequencerLock); !st) return abort(st.error());
    auto sz = size();
    if (!sz) return abort(sz.error());
    if (sz.value() != first) {
      return abort(make_error(Errc::io, std::string(kLogMoved) + ": stored size " + std::to_string(sz.value()) + ", expected " +
                                            std::to_string(first)));
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const PendingEntry& e = entries[i];
      Params p;
      p.u64(first + i).bytea(e.data).bytea(e.leaf).bytea(e.session).bytea(e.sender).u64(e.sequence);
      if (auto r = query("INSERT INTO entries(idx, data, leaf, session, sender, seq) VALUES($1, $2, $3, $4, $5, $6)", p); !r) {
        return abort(r.error());
      }
    }
    for (const auto& ev : evidence) {
      Params p;
      p.u64(ev.existing_index).bytea(ev.conflicting).u64(static_cast<std::uint64_t>(ev.received_unix));
      if (auto r = query("INSERT INTO equivocations(existing_idx, conflicting, received) SELECT $1, $2, $3 "
                         "WHERE NOT EXISTS (SELECT 1 FROM equivocations WHERE existing_idx = $1)", p); !r) {
        return abort(r.error());
      }
    }
    if (!entries.empty()) {
      auto rows = read_rows(first, first + entries.size());
      if (!rows) return abort(rows.error());
      std::vector<Hash> leaves;
      for (const auto& r : rows.value()) leaves.push_back(leaf_hash(r.data));
      auto cp = seal(leaves);
      if (!cp) return abort(cp.error());
      if (Status st = insert_checkpoint(cp.value()); !st) return abort(st.error());
    }
    return exec("COMMIT");
  }

  Status put_checkpoint(const StoredCheckpoint& cp) override { return insert_checkpoint(cp); }

  Result<std::optional<StoredCheckpoint>> latest_checkpoint() override {
    auto all = read_checkpoints("SELECT size, root, note FROM checkpoints ORDER BY size DESC LIMIT 1");
    if (!all) return all.error();
    if (all.value().empty()) return std::optional<StoredCheckpoint>{};
    return std::optional<StoredCheckpoint>(std::move(all.value()[0]));
  }

  Result<std::vector<StoredCheckpoint>> checkpoints() override {
    return read_checkpoints("SELECT size, root, note FROM checkpoints ORDER BY size");
  }

  Result<std::vector<EquivocationRecord>> equivocations() override {
    Params p;
    auto r = query("SELECT existing_idx, conflicting, received FROM equivocations ORDER BY id", p);
    if (!r) return r.error();
    std::vector<EquivocationRecord> out;
    const PGresult* res = r.value().get();
    for (int i = 0; i < PQntuples(res); ++i) {
      out.push_back(EquivocationRecord{cell_u64(res, i, 0).value_or(UINT64_MAX), cell(res, i, 1),
                                       static_cast<std::int64_t>(cell_u64(res, i, 2).value_or(0))});
    }
    return out;
  }

  Status add_cosignature(const CosignatureRecord& rec) override {
    Params p;
    p.u64(rec.size).text(rec.cosigner_vkey).text(rec.line);
    auto r = query("INSERT INTO cosignatures(size, vkey, line) VALUES($1, $2, $3) ON CONFLICT DO NOTHING", p);
    if (!r) return r.error();
    return {};
  }

  Result<std::vector<CosignatureRecord>> cosignatures(std::uint64_t size) override {
    Params p;
    p.u64(size);
    auto r = query("SELECT vkey, line FROM cosignatures WHERE size = $1 ORDER BY vkey, line", p);
    if (!r) return r.error();
    std::vector<CosignatureRecord> out;
    for (int i = 0; i < PQntuples(r.value().get()); ++i) {
      out.push_back(CosignatureRecord{size, cell_text(r.value().get(), i, 0), cell_text(r.value().get(), i, 1)});
    }
    return out;
  }

  Status put_blob(const Hash& hash, std::span<const std::uint8_t> data) override {
    Params p;
    p.bytea(hash).bytea(data);
    auto r = query("INSERT INTO blobs(hash, data) VALUES($1, $2) ON CONFLICT DO NOTHING", p);
    if (!r) return r.error();
    return {};
  }

  Result<std::optional<Bytes>> get_blob(const Hash& hash) override {
    Params p;
    p.bytea(hash);
    auto r = query("SELECT data FROM blobs WHERE hash = $1", p);
    if (!r) return r.error();
    if (PQntuples(r.value().get()) == 0) return std::optional<Bytes>{};
    return std::optional<Bytes>(cell(r.value().get(), 0, 0));
  }

  Result<std::uint64_t> blob_bytes() override {
    Params p;
    auto r = query("SELECT coalesce(sum(length(data)), 0)::bigint FROM blobs", p);
    if (!r) return r.error();
    const auto n = cell_u64(r.value().get(), 0, 0);
    if (!n) return make_error(Errc::corrupted, "blob total is not an integer");
    return *n;
  }

 private:
  Result<PgResult> query(const char* sql, Params& p) {
    PgResult r(PQexecParams(conn_, sql, p.count(), p.types(), p.values(), p.lengths(), p.formats(), 1));
    const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      if (PQstatus(conn_) == CONNECTION_BAD) PQreset(conn_);
      return make_error(Errc::io, std::string("PostgreSQL: ") + PQerrorMessage(conn_));
    }
    return r;
  }
  Status exec(const char* sql) {
    PgResult r(PQexec(conn_, sql));
    const auto st = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
      std::string msg = std::string("PostgreSQL: ") + PQerrorMessage(conn_);
      if (PQstatus(conn_) == CONNECTION_BAD) PQreset(conn_);
      return make_error(Errc::io, msg);
    }
    return {};
  }
  Status abort(const Error& e) {
    (void)exec("ROLLBACK");
    return e;
  }
  Status insert_checkpoint(const StoredCheckpoint& cp) {
    Params p;
    p.u64(cp.size).bytea(cp.root).text(cp.note);
    auto r = query("INSERT INTO checkpoints(size, root, note) VALUES($1, $2, $3) ON CONFLICT (size) DO NOTHING", p);
    if (!r) return r.error();
    return {};
  }
  Result<std::vector<StoredCheckpoint>> read_checkpoints(const char* sql) {
    Params p;
    auto r = query(sql, p);
    if (!r) return r.error();
    std::vector<StoredCheckpoint> out;
    const PGresult* res = r.value().get();
    for (int i = 0; i < PQntuples(res); ++i) {
      StoredCheckpoint cp;
      const auto size = cell_u64(res, i, 0);
      if (!size || !cell_hash(res, i, 1, cp.root)) return make_error(Errc::corrupted, "malformed stored checkpoint");
      cp.size = *size;
      cp.note = cell_text(res, i, 2);
      out.push_back(std::move(cp));
    }
    return out;
  }

  std::string url_;
  PGconn* conn_ = nullptr;
};

}  // namespace

Result<std::unique_ptr<Store>> open_postgres_store(const std::string& url, StoreOptions options) {
  auto store = std::make_unique<PostgresStore>(url);
  if (Status st = store->open(options); !st) return st.error();
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace gopa::bulletin
