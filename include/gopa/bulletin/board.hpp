// gopa/bulletin/board.hpp — the board interface the protocol roles use, and the local board.
//
//   auto board = LocalBoard::open(make_memory_store(), {}).value();   // in-memory
//   auto board = LocalBoard::open(open_store("b.db").value(), {.state_path = "b.db.state"});  // key: b.db.key
//   Result<AppendReceipt> r = board->append(sign_entry(entry, party_key));
//   // r.value().index, .proof (inclusion in r.value().checkpoint), .checkpoint (signed note)
//   auto audit = LocalBoard::open(open_store("b.db", {.create = false, .read_only = true}).value(),
//                                 {.read_only = true});                  // writes nothing, no key
//
// Security: the log's signing key lives in its own file (mode 0600), never in the database, so a
// database can be handed to auditors.
//
// Roles never see sockets: LocalBoard (in process, over a Store) and HttpBoard (client.hpp) both
// implement Board. LocalBoard runs one sequencer thread that commits concurrent appends in groups
// (one transaction and one fsync per group), acknowledges an entry only after its group is
// durable, and signs a checkpoint only over leaf hashes re-derived from the stored rows.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <optional>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/merkle.hpp"
#include "gopa/bulletin/note.hpp"
#include "gopa/bulletin/store.hpp"

namespace gopa::bulletin {

struct AppendReceipt {
  std::uint64_t index = 0;
  bool duplicate = false;    // the same signed entry was already in the log
  std::vector<Hash> proof;   // inclusion of leaf_hash(entry) in `checkpoint`
  std::string checkpoint;    // signed checkpoint note
};

class Board {
 public:
  virtual ~Board() = default;
  // Appends one signed entry (encode_entry bytes); returns once it is durable.
  [[nodiscard]] virtual Result<AppendReceipt> append(std::span<const std::uint8_t> entry) = 0;
  // The latest signed checkpoint note.
  [[nodiscard]] virtual Result<std::string> checkpoint() = 0;
  // Entries [begin, end), end <= the size of the latest checkpoint.
  [[nodiscard]] virtual Result<std::vector<Bytes>> read(std::uint64_t begin, std::uint64_t end) = 0;
  [[nodiscard]] virtual Result<std::vector<Hash>> inclusion_proof(std::uint64_t index, std::uint64_t size) = 0;
  [[nodiscard]] virtual Result<std::vector<Hash>> consistency_proof(std::uint64_t size1, std::uint64_t size2) = 0;
  // Adds a cosignature line (tlog-cosignature) on the checkpoint of `size`, by the cosigner `vkey`.
  [[nodiscard]] virtual Status add_cosignature(std::uint64_t size, const std::string& vkey,
                                               const NoteSignature& sig) = 0;
  // The log's checkpoint verifier.
  [[nodiscard]] virtual const NoteVerifier& verifier() const = 0;
};

struct LocalBoardOptions {
  std::string origin;       // checkpoint origin / key name, used when the store is created
  std::string state_path;   // last published checkpoint, kept outside the database ("" = none)
  std::size_t max_batch = 512;
  // Tests: a hook called after a group is durable and before it is acknowledged.
  std::function<void(std::uint64_t size)> after_commit;
  // The log's signing key lives in its own file (write_key_file below, mode 0600, created once and
  // never overwritten), not in the database. "" = the store's default (`<db>.key` next to a SQLite
  // file); a store without a file (memory, or PostgreSQL without a key path) keeps the key in its
  // meta table. A database of an earlier version that holds the key is migrated on the first
  // writable open: the key is written to the key file, then erased from the database.
  std::string key_path{};
  // Audits: nothing is written, no sequencer runs, append() is refused, and no key file is read
  // (the database holds the public key).
  bool read_only = false;
  // Blobs (POST /blob): only those an entry of the log refers to, up to this many bytes in total.
  std::uint64_t blob_quota = 1ull << 30;
};

// The signing-key file: one line "gopa-board-key/v1 <64 hex digits of the Ed25519 seed>".
// Written with mode 0600 under a temporary name and linked into place, so an existing file is
// never replaced; read only if neither group nor others may access it.
[[nodiscard]] Status write_key_file(const std::string& path, const SigningKey& key);
[[nodiscard]] Result<SigningKey> read_key_file(const std::string& path);
// The vkey of the board stored in `store` (from its public key, or from the key of a database of
// an earlier version), without reading any key file.
[[nodiscard]] Result<std::string> stored_vkey(Store& store);

class LocalBoard final : public Board {
 public:
  // Loads and verifies the whole stored log (leaf hashes, checkpoint signature and root, state
  // file); refuses a corrupted or stale database.
  [[nodiscard]] static Result<std::unique_ptr<LocalBoard>> open(std::unique_ptr<Store> store,
                                                                LocalBoardOptions options);
  ~LocalBoard() override;
  LocalBoard(const LocalBoard&) = delete;
  LocalBoard& operator=(const LocalBoard&) = delete;

  Result<AppendReceipt> append(std::span<const std::uint8_t> entry) override;
  Result<std::string> checkpoint() override;
  Result<std::vector<Bytes>> read(std::uint64_t begin, std::uint64_t end) override;
  Result<std::vector<Hash>> inclusion_proof(std::uint64_t index, std::uint64_t size) override;
  Result<std::vector<Hash>> consistency_proof(std::uint64_t size1, std::uint64_t size2) override;
  Status add_cosignature(std::uint64_t size, const std::string& vkey, const NoteSignature& sig) override;
  const NoteVerifier& verifier() const override { return verifier_; }

  [[nodiscard]] std::string vkey() const { return verifier_.vkey(); }
  [[nodiscard]] std::uint64_t size() const;
  // C2SP tlog-tiles resources; width 256 is a full tile, 1..255 a partial one.
  [[nodiscard]] Result<Bytes> tile(unsigned level, std::uint64_t index, unsigned width);
  [[nodiscard]] Result<Bytes> entry_bundle(std::uint64_t index, unsigned width);
  // The latest checkpoint with the cosignatures collected for it.
  [[nodiscard]] Result<std::string> cosigned_checkpoint();
  [[nodiscard]] Status put_blob(std::span<const std::uint8_t> blob);
  [[nodiscard]] Result<Bytes> get_blob(const Hash& hash);
  [[nodiscard]] Result<std::vector<EquivocationRecord>> equivocations();

 private:
  struct Request;
  struct SeqKey {
    Hash session;
    PublicKey sender;
    std::uint64_t sequence;
    bool operator<(const SeqKey& o) const {
      return std::tie(session, sender, sequence) < std::tie(o.session, o.sender, o.sequence);
    }
  };

  LocalBoard(std::unique_ptr<Store> store, LocalBoardOptions options, std::optional<NoteSigner> signer,
             NoteVerifier verifier);
  Status load();
  Status sync_from_store();
  Status refresh_shared();
  Status publish(const StoredCheckpoint& cp);
  void sequencer_loop();
  void process_batch(std::vector<Request*>& batch, int attempt = 0);
  AppendReceipt receipt_for(std::uint64_t index) const;
  void index_entry(const Entry& e, const Hash& leaf, std::uint64_t index);

  std::unique_ptr<Store> store_;
  LocalBoardOptions options_;
  std::optional<NoteSigner> signer_;  // absent on a read-only board
  NoteVerifier verifier_;

  mutable std::shared_mutex tree_mu_;  // guards tree_, by_leaf_, by_seq_, blob_refs_, latest_
  MerkleTree tree_;
  struct HashHasher {
    std::size_t operator()(const Hash& h) const noexcept {
      std::size_t v = 0;
      for (std::size_t i = 0; i < sizeof(v); ++i) v = (v << 8) | h[i];
      return v;
    }
  };
  std::unordered_map<Hash, std::uint64_t, HashHasher> by_leaf_;
  std::map<SeqKey, std::uint64_t> by_seq_;
  std::unordered_map<Hash, std::uint64_t, HashHasher> blob_refs_;  // blob hash → length, from entries
  StoredCheckpoint latest_;

  // Cosignature lines of the checkpoint of size cos_size_, so GET /checkpoint does not wait for
  // the store while a group commits. A server of a shared store re-reads them after catching up.
  std::mutex cos_mu_;
  std::uint64_t cos_size_ = UINT64_MAX;
  std::vector<std::string> cos_lines_;
  void cache_cosignatures(std::uint64_t size, std::vector<std::string> lines);

  std::mutex store_mu_;  // one user of the store connection at a time
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<Request*> queue_;
  bool stopping_ = false;
  std::thread sequencer_;
};

// Atomically replaces `path` with `text` (write, fsync, rename, fsync directory).
[[nodiscard]] Status write_file_durably(const std::string& path, std::string_view text);
[[nodiscard]] Result<std::optional<std::string>> read_small_file(const std::string& path, std::size_t max_size);

}  // namespace gopa::bulletin
