// gopa/bulletin/store.hpp — persistence of the board: entries, checkpoints, evidence, blobs.
//
//   auto store = open_store("board.db");                       // SQLite (WAL, synchronous=FULL)
//   auto store = open_store("postgresql://127.0.0.1:5432/db");  // PostgreSQL
//   auto mem   = make_memory_store();                          // tests and `gopa run`
//
// A store holds bytes; the board (board.hpp) owns the meaning. The one write path,
// append_batch(), is a single transaction: entries, equivocation evidence and the checkpoint that
// covers them become durable together or not at all, and the checkpoint is computed (by the
// caller's `seal`) from the leaf hashes re-derived from the rows as stored.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gopa/bulletin/keys.hpp"
#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

// 2: meta holds the log's public key, and its signing key only where the board has no key file.
// A version 1 database (the key in meta) is upgraded on its first writable open.
inline constexpr int kSchemaVersion = 2;
// Message prefix of the Errc::io error append_batch returns when another server appended first.
inline constexpr std::string_view kLogMoved = "log moved";

struct PendingEntry {
  Bytes data;
  Hash leaf{};
  Hash session{};
  PublicKey sender{};
  std::uint64_t sequence = 0;
};

struct StoredRow {
  Bytes data;
  Hash leaf{};
};

struct StoredCheckpoint {
  std::uint64_t size = 0;
  Hash root{};
  std::string note;  // the signed note as served
};

struct EquivocationRecord {
  std::uint64_t existing_index = 0;  // the entry already in the log
  Bytes conflicting;                 // the other signed entry, same (session, sender, sequence)
  std::int64_t received_unix = 0;
};

struct CosignatureRecord {
  std::uint64_t size = 0;
  std::string cosigner_vkey;
  std::string line;  // "— name base64" without the newline
};

using SealFn = std::function<Result<StoredCheckpoint>(std::span<const Hash> stored_leaves)>;

class Store {
 public:
  virtual ~Store() = default;
  [[nodiscard]] virtual std::string describe() const = 0;
  // True for stores several board servers may share (the sequencer then re-reads the size).
  [[nodiscard]] virtual bool shared() const noexcept { return false; }
  // Shared stores: held by one server while it catches up, sequences and commits a group, so
  // servers take turns instead of racing (PostgreSQL session advisory lock). No-ops elsewhere.
  [[nodiscard]] virtual Status lock_sequencer() { return {}; }
  virtual void unlock_sequencer() {}

  [[nodiscard]] virtual Result<std::optional<std::string>> get_meta(const std::string& key) = 0;
  // Inserts the pairs whose key is absent, in one transaction.
  [[nodiscard]] virtual Status init_meta(const std::vector<std::pair<std::string, std::string>>& kv) = 0;
  // Inserts or replaces one pair.
  [[nodiscard]] virtual Status set_meta(const std::string& key, const std::string& value) = 0;

  [[nodiscard]] virtual Result<std::uint64_t> size() = 0;
  [[nodiscard]] virtual Result<std::vector<StoredRow>> read_rows(std::uint64_t begin, std::uint64_t end) = 0;

  // Deletes a meta row so that its value stays neither in free pages nor in the journal (used to
  // move the signing key out of a database created by an earlier version).
  [[nodiscard]] virtual Status erase_meta(const std::string& key) = 0;
  // Where the log's signing key is kept by default: next to a database file ("<path>.key"); ""
  // where the store is not a file (the caller names the key file, or keeps the key in memory).
  [[nodiscard]] virtual std::string default_key_path() const { return {}; }

  // Appends entries at indices first, first+1, ...; fails with Errc::io "log moved" if the stored
  // size is not `first`. With entries, `seal` must return the checkpoint to store with them.
  // Evidence is kept once per entry of the log: a record whose existing_index already has one is
  // skipped (one signed pair proves the equivocation; more would let one sender grow the store).
  [[nodiscard]] virtual Status append_batch(std::uint64_t first, std::span<const PendingEntry> entries,
                                            std::span<const EquivocationRecord> evidence,
                                            const SealFn& seal) = 0;
  [[nodiscard]] virtual Status put_checkpoint(const StoredCheckpoint& cp) = 0;
  [[nodiscard]] virtual Result<std::optional<StoredCheckpoint>> latest_checkpoint() = 0;
  [[nodiscard]] virtual Result<std::vector<StoredCheckpoint>> checkpoints() = 0;
  [[nodiscard]] virtual Result<std::vector<EquivocationRecord>> equivocations() = 0;

  [[nodiscard]] virtual Status add_cosignature(const CosignatureRecord& rec) = 0;
  [[nodiscard]] virtual Result<std::vector<CosignatureRecord>> cosignatures(std::uint64_t size) = 0;

  [[nodiscard]] virtual Status put_blob(const Hash& hash, std::span<const std::uint8_t> data) = 0;
  [[nodiscard]] virtual Result<std::optional<Bytes>> get_blob(const Hash& hash) = 0;
  // Total size of the stored blobs, in bytes.
  [[nodiscard]] virtual Result<std::uint64_t> blob_bytes() = 0;
};

struct StoreOptions {
  bool create = true;      // create the schema if the database is empty
  // Audits: nothing is written. A SQLite file without a -wal file is opened immutable, so no
  // -wal/-shm file is created and a file without write permission can be read.
  bool read_only = false;
};

// `location` is a file path (SQLite) or a postgresql:// / postgres:// URL. A database that holds
// tables but no board (another application's) is refused with Errc::invalid_argument, never
// extended with the board's tables.
[[nodiscard]] Result<std::unique_ptr<Store>> open_store(const std::string& location, StoreOptions options = {});
[[nodiscard]] Result<std::unique_ptr<Store>> open_sqlite_store(const std::string& path, StoreOptions options);
[[nodiscard]] Result<std::unique_ptr<Store>> open_postgres_store(const std::string& url, StoreOptions options);
[[nodiscard]] std::unique_ptr<Store> make_memory_store();

}  // namespace gopa::bulletin
