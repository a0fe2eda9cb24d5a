// LocalBoard: the sequencer, group commit, checkpoint signing and the startup audit.
#include "gopa/bulletin/board.hpp"

#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gopa/bytes.hpp"

namespace gopa::bulletin {

struct LocalBoard::Request {
  Bytes data;
  Entry entry;
  Hash leaf{};
  std::promise<Result<AppendReceipt>> done;
};

namespace {

std::int64_t now_unix() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

constexpr std::size_t kReadChunk = 4096;

// Makes a rename or creation in `path`'s directory durable (best effort: fsync of the directory).
void fsync_parent(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace

Status write_file_durably(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(Errc::io, "cannot create " + tmp);
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) {
      ::close(fd);
      return make_error(Errc::io, "cannot write " + tmp);
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    return make_error(Errc::io, "cannot fsync " + tmp);
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return make_error(Errc::io, "cannot rename " + tmp);
  fsync_parent(path);
  return {};
}

Result<std::optional<std::string>> read_small_file(const std::string& path, std::size_t max_size) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<std::string>{};
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return make_error(Errc::io, "cannot stat " + path);
  if (size > max_size) return make_error(Errc::too_large, path + " is larger than expected");
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(Errc::io, "cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return std::optional<std::string>{ss.str()};
}

namespace {

constexpr std::string_view kKeyFileTag = "gopa-board-key/v1 ";

Result<PublicKey> public_key_from_hex(const std::string& hex) {
  auto b = from_hex(hex);
  if (!b || b->size() != 32) return make_error(Errc::corrupted, "stored public key is not 32 bytes of hex");
  PublicKey k{};
  std::copy(b->begin(), b->end(), k.begin());
  return k;
}

Result<SigningKey> key_from_seed_hex(std::string& seed_hex) {
  auto seed = from_hex(seed_hex);
  sodium_memzero(seed_hex.data(), seed_hex.size());
  if (!seed || seed->size() != 32) return make_error(Errc::corrupted, "signing seed is not 32 bytes of hex");
  auto key = SigningKey::from_seed(std::span<const std::uint8_t, 32>(seed->data(), 32));
  sodium_memzero(seed->data(), seed->size());
  return key;
}

}  // namespace

Status write_key_file(const std::string& path, const SigningKey& key) {
  auto seed = key.seed();
  std::string hex = to_hex(seed);
  std::string text(kKeyFileTag);
  text += hex;
  text += "\n";
  sodium_memzero(hex.data(), hex.size());
  sodium_memzero(seed.data(), seed.size());
  // A name of this process alone; O_EXCL | O_NOFOLLOW: never an existing file or a link.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(randombytes_random());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    sodium_memzero(text.data(), text.size());
    return make_error(Errc::io, "cannot create " + tmp);
  }
  std::size_t off = 0;
  bool ok = ::fchmod(fd, 0600) == 0;
  while (ok && off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n <= 0) ok = false;
    else off += static_cast<std::size_t>(n);
  }
  sodium_memzero(text.data(), text.size());
  ok = ok && ::fsync(fd) == 0;
  ::close(fd);
  // link() fails if `path` exists: a key file is never replaced.
  if (ok && ::link(tmp.c_str(), path.c_str()) != 0) {
    const bool exists = errno == EEXIST;
    ::unlink(tmp.c_str());
    return make_error(Errc::io, "cannot create key file " + path + (exists ? ": it exists" : ""));
  }
  ::unlink(tmp.c_str());
  if (!ok) return make_error(Errc::io, "cannot write " + tmp);
  fsync_parent(path);
  return {};
}

Result<SigningKey> read_key_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return make_error(Errc::not_found, "the board's key file " + path + " does not exist");
    return make_error(Errc::io, "cannot open key file " + path);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return make_error(Errc::io, "key file " + path + " is not a regular file");
  }
  if ((st.st_mode & 077) != 0) {
    ::close(fd);
    return make_error(Errc::invalid_argument, "key file " + path + " is accessible by group or others (chmod 600 it)");
  }
  std::string text(kKeyFileTag.size() + 64 + 2, '\0');
  const ssize_t n = ::read(fd, text.data(), text.size());
  ::close(fd);
  const bool well_formed = n == static_cast<ssize_t>(kKeyFileTag.size() + 65) &&
                           std::string_view(text).starts_with(kKeyFileTag) &&
                           text[static_cast<std::size_t>(n) - 1] == '\n';
  if (!well_formed) {
    sodium_memzero(text.data(), text.size());
    return make_error(Errc::malformed, "key file " + path + " is not a gopa board key");
  }
  std::string hex = text.substr(kKeyFileTag.size(), 64);
  sodium_memzero(text.data(), text.size());
  auto key = key_from_seed_hex(hex);
  if (!key) return make_error(Errc::malformed, "key file " + path + ": " + key.error().message);
  return key;
}

Result<std::string> stored_vkey(Store& store) {
  auto origin = store.get_meta("origin");
  if (!origin) return origin.error();
  if (!origin.value() || !valid_key_name(*origin.value())) return make_error(Errc::corrupted, "database has no valid origin");
  auto pub = store.get_meta("public_key");
  if (!pub) return pub.error();
  if (pub.value()) {
    auto k = public_key_from_hex(*pub.value());
    if (!k) return k.error();
    return NoteVerifier::for_key(*origin.value(), k.value()).vkey();
  }
  auto seed = store.get_meta("signing_seed");
  if (!seed) return seed.error();
  if (!seed.value()) return make_error(Errc::corrupted, "database has no log key");
  auto key = key_from_seed_hex(*seed.value());
  if (!key) return key.error();
  return NoteVerifier::for_key(*origin.value(), key.value().public_key()).vkey();
}

LocalBoard::LocalBoard(std::unique_ptr<Store> store, LocalBoardOptions options, std::optional<NoteSigner> signer,
                       NoteVerifier verifier)
    : store_(std::move(store)),
      options_(std::move(options)),
      signer_(std::move(signer)),
      verifier_(std::move(verifier)) {}

Result<std::unique_ptr<LocalBoard>> LocalBoard::open(std::unique_ptr<Store> store, LocalBoardOptions options) {
  GOPA_CHECK(store != nullptr, "LocalBoard::open needs a store");
  const std::string key_path = options.key_path.empty() ? store->default_key_path() : options.key_path;
  auto schema = store->get_meta("schema_version");
  if (!schema) return schema.error();
  if (!schema.value()) {
    if (options.read_only) return make_error(Errc::not_found, store->describe() + " holds no board");
    // A new board: its key is created once, in its own file (or, for a store without a file, in
    // the store); the database keeps the origin and the public key.
    auto key = SigningKey::generate();
    std::string origin = options.origin;
    if (origin.empty()) origin = "gopa.board/" + to_hex(std::span(key.public_key()).first(4));
    if (!valid_key_name(origin)) return make_error(Errc::invalid_argument, "origin '" + origin + "' is not a valid key name");
    std::vector<std::pair<std::string, std::string>> meta{{"schema_version", std::to_string(kSchemaVersion)},
                                                          {"origin", origin},
                                                          {"public_key", to_hex(key.public_key())}};
    if (!key_path.empty()) {
      std::error_code ec;
      if (std::filesystem::exists(key_path, ec)) {
        return make_error(Errc::invalid_argument,
                          "key file " + key_path + " exists but the database holds no board; a key signs one log only "
                          "(remove the key file if no board signed with it was ever published)");
      }
      if (Status st = write_key_file(key_path, key); !st) return st.error();
    } else {
      auto seed = key.seed();
      meta.emplace_back("signing_seed", to_hex(seed));
      sodium_memzero(seed.data(), seed.size());
    }
    Status st = store->init_meta(meta);
    for (auto& [k, v] : meta) sodium_memzero(v.data(), v.size());
    if (!st) {
      if (!key_path.empty()) ::unlink(key_path.c_str());
      return st.error();
    }
    schema = store->get_meta("schema_version");
    if (!schema) return schema.error();
  }
  const bool version1 = *schema.value() == "1";
  if (!version1 && *schema.value() != std::to_string(kSchemaVersion)) {
    return make_error(Errc::unknown_type, "database schema version " + *schema.value() + " is not " +
                                              std::to_string(kSchemaVersion));
  }
  auto origin = store->get_meta("origin");
  auto pub_hex = store->get_meta("public_key");
  auto seed_hex = store->get_meta("signing_seed");
  if (!origin || !pub_hex || !seed_hex) return make_error(Errc::io, "cannot read the board's key from the database");
  if (!origin.value()) return make_error(Errc::corrupted, "database has no origin");
  if (!valid_key_name(*origin.value())) return make_error(Errc::corrupted, "stored origin is not a valid key name");
  std::optional<SigningKey> key;
  PublicKey pub{};
  if (seed_hex.value()) {
    // A database of an earlier version (or a store without a file) holds the seed.
    auto k = key_from_seed_hex(*seed_hex.value());
    if (!k) return k.error();
    pub = k.value().public_key();
    key.emplace(std::move(k).value());
    auto stored_pub = pub_hex.value() ? public_key_from_hex(*pub_hex.value()) : Result<PublicKey>(pub);
    if (!stored_pub || stored_pub.value() != pub) {
      return make_error(Errc::corrupted, "stored public key differs from the stored signing key");
    }
  } else if (pub_hex.value()) {
    auto k = public_key_from_hex(*pub_hex.value());
    if (!k) return k.error();
    pub = k.value();
  } else {
    return make_error(Errc::corrupted, "database has no log key");
  }
  if (!options.read_only && version1) {
    // Version 1 kept only the seed: the public key joins it before the seed may move out.
    if (Status st = store->init_meta({{"public_key", to_hex(pub)}}); !st) return st.error();
  }
  if (options.read_only) {
    key.reset();
  } else if (!key_path.empty()) {
    if (key) {
      // Migration: the key moves to its file (or the file already holds it), then leaves the database.
      auto existing = read_key_file(key_path);
      if (existing) {
        if (existing.value().public_key() != pub) {
          return make_error(Errc::invalid_argument, "key file " + key_path + " holds another key than the database");
        }
      } else if (existing.error().code == Errc::not_found) {
        if (Status st = write_key_file(key_path, *key); !st) return st.error();
      } else {
        return existing.error();
      }
      if (Status st = store->erase_meta("signing_seed"); !st) return st.error();
    } else {
      auto k = read_key_file(key_path);
      if (!k) return k.error();
      if (k.value().public_key() != pub) {
        return make_error(Errc::invalid_argument, "key file " + key_path + " is not the key of this board");
      }
      key.emplace(std::move(k).value());
    }
  } else if (!key) {
    return make_error(Errc::invalid_argument, "the database holds the public key only: name the key file");
  }
  if (!options.read_only && version1) {
    if (Status st = store->set_meta("schema_version", std::to_string(kSchemaVersion)); !st) return st.error();
  }
  std::optional<NoteSigner> signer;
  if (key) signer.emplace(*origin.value(), std::move(*key));
  NoteVerifier verifier = NoteVerifier::for_key(*origin.value(), pub);

  std::unique_ptr<LocalBoard> board(
      new LocalBoard(std::move(store), std::move(options), std::move(signer), std::move(verifier)));
  if (Status st = board->load(); !st) return st.error();
  if (!board->options_.read_only) board->sequencer_ = std::thread([b = board.get()] { b->sequencer_loop(); });
  return board;
}

LocalBoard::~LocalBoard() {
  {
    std::lock_guard lk(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (sequencer_.joinable()) sequencer_.join();
  for (Request* r : queue_) r->done.set_value(make_error(Errc::io, "board is shutting down"));
}

Status LocalBoard::sync_from_store() {
  // Reads rows past the in-memory tree, re-derives their leaf hashes and indexes them.
  auto size = store_->size();
  if (!size) return size.error();
  for (std::uint64_t begin = tree_.size(); begin < size.value(); begin += kReadChunk) {
    const std::uint64_t end = std::min<std::uint64_t>(size.value(), begin + kReadChunk);
    auto rows = store_->read_rows(begin, end);
    if (!rows) return rows.error();
    if (rows.value().size() != end - begin) return make_error(Errc::corrupted, "entry indices are not contiguous");
    for (std::size_t i = 0; i < rows.value().size(); ++i) {
      const StoredRow& row = rows.value()[i];
      const std::uint64_t index = begin + i;
      if (leaf_hash(row.data) != row.leaf) {
        return make_error(Errc::corrupted, "entry " + std::to_string(index) + " does not match its stored leaf hash");
      }
      auto e = decode_entry_unverified(row.data);
      if (!e) return make_error(Errc::corrupted, "stored entry " + std::to_string(index) + " is not canonical: " + e.error().message);
      tree_.append(row.leaf);
      index_entry(e.value(), row.leaf, index);
    }
  }
  return {};
}

void LocalBoard::index_entry(const Entry& e, const Hash& leaf, std::uint64_t index) {
  // Caller holds tree_mu_ (unique).
  by_leaf_.emplace(leaf, index);
  by_seq_.emplace(SeqKey{e.session_id, e.sender, e.sequence}, index);
  if (e.payload_kind == PayloadKind::blob_reference && e.payload.size() == kBlobReferenceSize) {
    Hash h{};
    std::copy(e.payload.begin(), e.payload.begin() + 32, h.begin());
    blob_refs_.emplace(h, ByteReader<ByteOrder::big>(std::span(e.payload).subspan(32)).u64());
  }
}

Status LocalBoard::load() {
  std::unique_lock lk(tree_mu_);
  // The checkpoint first, then the entries: they are committed in one transaction, so entries
  // read after the checkpoint include every entry it covers even while another server appends
  // (reading the entries first could miss a group committed in between, and report a sound log
  // as corrupted).
  auto latest = store_->latest_checkpoint();
  if (!latest) return latest.error();
  if (Status st = sync_from_store(); !st) return st;
  if (latest.value()) {
    const StoredCheckpoint& cp = *latest.value();
    auto opened = open_checkpoint(cp.note, verifier_);
    if (!opened) return make_error(Errc::corrupted, "stored checkpoint: " + opened.error().message);
    if (opened.value().size != cp.size || opened.value().root != cp.root) {
      return make_error(Errc::corrupted, "stored checkpoint columns differ from its signed note");
    }
    if (cp.size > tree_.size()) {
      return make_error(Errc::corrupted, "stored checkpoint of size " + std::to_string(cp.size) +
                                             " covers entries that are not in the database (" +
                                             std::to_string(tree_.size()) + ")");
    }
    if (tree_.root_at(cp.size) != cp.root) {
      return make_error(Errc::corrupted, "stored checkpoint root differs from the root re-derived from the entries");
    }
    latest_ = cp;
  }
  // The last checkpoint this server published, kept outside the database: a database copy
  // older than it (or from another log) is refused.
  if (!options_.state_path.empty()) {
    auto state = read_small_file(options_.state_path, kMaxNoteSize);
    if (!state) return state.error();
    if (state.value()) {
      auto prev = open_checkpoint(*state.value(), verifier_);
      if (!prev) return make_error(Errc::stale_database, "state file " + options_.state_path + " is not a checkpoint of this board: " + prev.error().message);
      if (prev.value().size > tree_.size()) {
        return make_error(Errc::stale_database, "database holds " + std::to_string(tree_.size()) +
                                                    " entries but this server already published a checkpoint of size " +
                                                    std::to_string(prev.value().size));
      }
      if (tree_.root_at(prev.value().size) != prev.value().root) {
        return make_error(Errc::stale_database, "database is not consistent with the last published checkpoint (size " +
                                                    std::to_string(prev.value().size) + ")");
      }
    }
  }
  if (options_.read_only) {
    if (!latest.value()) return make_error(Errc::corrupted, "database holds no checkpoint");
    return {};
  }
  if (!latest.value() || latest_.size != tree_.size()) {
    Checkpoint cp{signer_->name(), tree_.size(), tree_.root(), {}};
    StoredCheckpoint sc{cp.size, cp.root, signer_->sign(checkpoint_body(cp))};
    if (Status st = store_->put_checkpoint(sc); !st) return st;
    latest_ = sc;
  }
  return publish(latest_);
}

Status LocalBoard::refresh_shared() {
  // Caller holds store_mu_. Adopts the entries and checkpoint other servers committed; both are
  // committed in one transaction, but read here in two steps, so retry until they agree.
  {
    // Other servers may have stored cosignatures too: GET /checkpoint reads them again.
    std::lock_guard cl(cos_mu_);
    cos_size_ = UINT64_MAX;
  }
  std::unique_lock lk(tree_mu_);
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto latest = store_->latest_checkpoint();
    if (!latest) return latest.error();
    if (Status st = sync_from_store(); !st) return st;
    if (latest_.size == tree_.size()) return {};
    if (!latest.value() || latest.value()->size > tree_.size()) {
      return make_error(Errc::corrupted, "shared database checkpoint covers entries that are not stored");
    }
    if (latest.value()->size < tree_.size()) continue;  // a commit landed in between: read again
    auto opened = open_checkpoint(latest.value()->note, verifier_);
    if (!opened || opened.value().size != tree_.size() || opened.value().root != tree_.root()) {
      return make_error(Errc::corrupted, "shared database checkpoint does not match its entries");
    }
    latest_ = *latest.value();
    return publish(latest_);
  }
  return make_error(Errc::io, "shared log kept moving while catching up; retry");
}

Status LocalBoard::publish(const StoredCheckpoint& cp) {
  if (options_.state_path.empty() || options_.read_only) return {};
  return write_file_durably(options_.state_path, cp.note);
}

std::uint64_t LocalBoard::size() const {
  std::shared_lock lk(tree_mu_);
  return latest_.size;
}

Result<AppendReceipt> LocalBoard::append(std::span<const std::uint8_t> bytes) {
  // Decoding and signature verification run on the caller's thread, in parallel.
  if (options_.read_only) return make_error(Errc::invalid_argument, "the board is open read-only");
  auto decoded = decode_entry(bytes);
  if (!decoded) return decoded.error();
  auto req = std::make_unique<Request>();
  req->data.assign(bytes.begin(), bytes.end());
  req->entry = std::move(decoded).value();
  req->leaf = leaf_hash(bytes);
  {
    // Fast path for a replayed entry: its original receipt, nothing queued.
    std::shared_lock lk(tree_mu_);
    auto it = by_leaf_.find(req->leaf);
    if (it != by_leaf_.end() && it->second < latest_.size) return receipt_for(it->second);
  }
  auto fut = req->done.get_future();
  {
    std::lock_guard lk(queue_mu_);
    if (stopping_) return make_error(Errc::io, "board is shutting down");
    queue_.push_back(req.get());
  }
  queue_cv_.notify_one();
  return fut.get();
}

AppendReceipt LocalBoard::receipt_for(std::uint64_t index) const {
  // Caller holds tree_mu_ (shared or unique).
  AppendReceipt r;
  r.index = index;
  r.duplicate = true;
  r.proof = tree_.inclusion_proof(index, latest_.size);
  r.checkpoint = latest_.note;
  return r;
}

void LocalBoard::sequencer_loop() {
  for (;;) {
    std::vector<Request*> batch;
    {
      std::unique_lock lk(queue_mu_);
      const bool ready = queue_cv_.wait_for(lk, std::chrono::milliseconds(500),
                                            [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      if (!ready) {
        if (store_->shared()) {
          lk.unlock();
          std::lock_guard store_lk(store_mu_);
          (void)refresh_shared();  // best effort while idle; errors resurface on the next append
        }
        continue;
      }
      while (!queue_.empty() && batch.size() < options_.max_batch) {
        batch.push_back(queue_.front());
        queue_.pop_front();
      }
    }
    process_batch(batch);
  }
}

void LocalBoard::process_batch(std::vector<Request*>& batch, int attempt) {
  std::unique_lock store_lk(store_mu_);
  struct SequencerLock {
    Store& s;
    bool held = false;
    ~SequencerLock() {
      if (held) s.unlock_sequencer();
    }
  } seq_lock{*store_};
  if (store_->shared()) {
    // Another server may have appended: take the sequencer turn, then catch up before choosing
    // indices.
    Status st = store_->lock_sequencer();
    seq_lock.held = st.ok();
    if (st) st = refresh_shared();
    if (!st) {
      for (Request* r : batch) r->done.set_value(st.error());
      return;
    }
  }
  std::vector<PendingEntry> pending;
  std::vector<Request*> accepted;
  std::vector<EquivocationRecord> evidence;
  std::vector<std::pair<Request*, Error>> rejected;
  std::vector<std::pair<Request*, std::uint64_t>> duplicates;  // index, or first+k for in-batch
  std::unordered_map<Hash, std::size_t, HashHasher> batch_leaf;
  std::map<SeqKey, std::size_t> batch_seq;
  std::uint64_t first = 0;
  {
    std::shared_lock lk(tree_mu_);
    first = tree_.size();
    for (Request* r : batch) {
      const SeqKey key{r->entry.session_id, r->entry.sender, r->entry.sequence};
      if (auto it = by_leaf_.find(r->leaf); it != by_leaf_.end()) {
        duplicates.emplace_back(r, it->second);
        continue;
      }
      if (auto it = batch_leaf.find(r->leaf); it != batch_leaf.end()) {
        duplicates.emplace_back(r, first + it->second);
        continue;
      }
      std::optional<std::uint64_t> clash;
      if (auto it = by_seq_.find(key); it != by_seq_.end()) clash = it->second;
      if (auto it = batch_seq.find(key); it != batch_seq.end()) clash = first + it->second;
      if (clash) {
        evidence.push_back(EquivocationRecord{*clash, r->data, now_unix()});
        rejected.emplace_back(r, make_error(Errc::equivocation,
                                            "sender already signed a different entry with this session and sequence "
                                            "number (index " + std::to_string(*clash) + "); recorded as evidence"));
        continue;
      }
      batch_leaf.emplace(r->leaf, pending.size());
      batch_seq.emplace(key, pending.size());
      pending.push_back(PendingEntry{r->data, r->leaf, r->entry.session_id, r->entry.sender, r->entry.sequence});
      accepted.push_back(r);
    }
  }

  StoredCheckpoint sealed;
  Status committed;
  if (!pending.empty() || !evidence.empty()) {
    committed = store_->append_batch(
        first, pending, evidence, [&](std::span<const Hash> stored) -> Result<StoredCheckpoint> {
          // The checkpoint covers the leaf hashes re-derived from the rows as stored.
          if (stored.size() != pending.size()) return make_error(Errc::corrupted, "read back a different number of entries");
          for (std::size_t i = 0; i < stored.size(); ++i) {
            if (stored[i] != pending[i].leaf) return make_error(Errc::corrupted, "stored entry reads back differently");
          }
          std::unique_lock lk(tree_mu_);
          GOPA_CHECK(tree_.size() == first, "tree moved during a batch");
          for (const Hash& h : stored) tree_.append(h);
          Checkpoint cp{signer_->name(), tree_.size(), tree_.root(), {}};
          sealed = StoredCheckpoint{cp.size, cp.root, signer_->sign(checkpoint_body(cp))};
          return sealed;
        });
  }
  if (!committed) {
    {
      std::unique_lock lk(tree_mu_);
      if (tree_.size() > first) tree_.truncate(first);
    }
    if (store_->shared() && attempt < 8 && committed.error().message.starts_with(kLogMoved)) {
      // Another server committed first: catch up and sequence the same requests again.
      if (seq_lock.held) store_->unlock_sequencer();
      seq_lock.held = false;
      store_lk.unlock();
      process_batch(batch, attempt + 1);
      return;
    }
    for (Request* r : batch) r->done.set_value(committed.error());
    return;
  }
  if (!pending.empty()) {
    // Durable: publish the state, then acknowledge.
    Status pub = publish(sealed);
    std::unique_lock lk(tree_mu_);
    for (std::size_t i = 0; i < pending.size(); ++i) index_entry(accepted[i]->entry, pending[i].leaf, first + i);
    latest_ = sealed;
    if (!store_->shared()) cache_cosignatures(sealed.size, {});  // a new checkpoint: none yet
    if (!pub) {
      for (Request* r : batch) r->done.set_value(pub.error());
      return;
    }
  }
  if (options_.after_commit) options_.after_commit(first + pending.size());
  std::shared_lock lk(tree_mu_);
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    AppendReceipt rec = receipt_for(first + i);
    rec.duplicate = false;
    accepted[i]->done.set_value(std::move(rec));
  }
  for (auto& [r, index] : duplicates) r->done.set_value(receipt_for(index));
  for (auto& [r, err] : rejected) r->done.set_value(err);
}

Result<std::string> LocalBoard::checkpoint() {
  std::shared_lock lk(tree_mu_);
  return latest_.note;
}

Result<std::vector<Bytes>> LocalBoard::read(std::uint64_t begin, std::uint64_t end) {
  if (begin > end || end > size()) return make_error(Errc::invalid_argument, "read range outside the published log");
  std::lock_guard lk(store_mu_);
  auto rows = store_->read_rows(begin, end);
  if (!rows) return rows.error();
  std::vector<Bytes> out;
  out.reserve(rows.value().size());
  for (auto& r : rows.value()) out.push_back(std::move(r.data));
  if (out.size() != end - begin) return make_error(Errc::corrupted, "store returned a short range");
  return out;
}

Result<std::vector<Hash>> LocalBoard::inclusion_proof(std::uint64_t index, std::uint64_t size) {
  std::shared_lock lk(tree_mu_);
  if (index >= size || size > latest_.size) return make_error(Errc::invalid_argument, "inclusion proof needs index < size <= published size");
  return tree_.inclusion_proof(index, size);
}

Result<std::vector<Hash>> LocalBoard::consistency_proof(std::uint64_t size1, std::uint64_t size2) {
  std::shared_lock lk(tree_mu_);
  if (size1 == 0 || size1 > size2 || size2 > latest_.size) {
    return make_error(Errc::invalid_argument, "consistency proof needs 0 < size1 <= size2 <= published size");
  }
  return tree_.consistency_proof(size1, size2);
}

Status LocalBoard::add_cosignature(std::uint64_t size, const std::string& vkey, const NoteSignature& sig) {
  auto verifier = CosignatureVerifier::from_vkey(vkey);
  if (!verifier) return verifier.error();
  StoredCheckpoint cp;
  {
    std::shared_lock lk(tree_mu_);
    if (size > latest_.size) return make_error(Errc::not_found, "no checkpoint of that size yet");
    cp.size = size;
    cp.root = tree_.root_at(size);
  }
  const Checkpoint body{verifier_.name, cp.size, cp.root, {}};
  auto ts = verify_cosignature(checkpoint_body(body), sig, verifier.value());
  if (!ts) return ts.error();
  std::string line = format_signature_line(sig);
  line.pop_back();
  std::lock_guard lk(store_mu_);
  if (Status st = store_->add_cosignature(CosignatureRecord{size, vkey, line}); !st) return st;
  std::lock_guard cl(cos_mu_);
  cos_size_ = UINT64_MAX;  // re-read in the store's order
  return {};
}

void LocalBoard::cache_cosignatures(std::uint64_t size, std::vector<std::string> lines) {
  std::lock_guard cl(cos_mu_);
  cos_size_ = size;
  cos_lines_ = std::move(lines);
}

Result<std::string> LocalBoard::cosigned_checkpoint() {
  std::string note;
  std::uint64_t size = 0;
  {
    std::shared_lock lk(tree_mu_);
    note = latest_.note;
    size = latest_.size;
  }
  {
    std::lock_guard cl(cos_mu_);
    if (cos_size_ == size) {
      for (const auto& line : cos_lines_) note += line + "\n";
      return note;
    }
  }
  std::vector<std::string> lines;
  {
    std::lock_guard lk(store_mu_);
    auto r = store_->cosignatures(size);
    if (!r) return r.error();
    for (auto& c : r.value()) lines.push_back(std::move(c.line));
    // Under the store lock: an add_cosignature cannot slip between the read and the fill.
    cache_cosignatures(size, lines);
  }
  for (const auto& line : lines) note += line + "\n";
  return note;
}

Result<Bytes> LocalBoard::tile(unsigned level, std::uint64_t index, unsigned width) {
  if (level > 63 || width == 0 || width > 256) return make_error(Errc::invalid_argument, "tile level or width out of range");
  std::shared_lock lk(tree_mu_);
  // A level-L tile holds hashes of subtrees of 256^L leaves: tree level 8L (C2SP tlog-tiles).
  const unsigned tree_level = level * 8;
  const std::uint64_t published = latest_.size >> tree_level;  // complete subtrees within the checkpoint
  if (index > (published >> 8)) return make_error(Errc::not_found, "tile beyond the log");
  const std::uint64_t start = index * 256;
  if (start + width > published) return make_error(Errc::not_found, "tile beyond the log");
  Bytes out;
  out.reserve(static_cast<std::size_t>(width) * 32);
  for (unsigned i = 0; i < width; ++i) {
    const Hash& h = tree_.complete_subtree(tree_level, start + i);
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

Result<Bytes> LocalBoard::entry_bundle(std::uint64_t index, unsigned width) {
  if (width == 0 || width > 256) return make_error(Errc::invalid_argument, "bundle width out of range");
  const std::uint64_t published = size();
  if (index > (published >> 8)) return make_error(Errc::not_found, "entry bundle beyond the log");
  const std::uint64_t start = index * 256;
  if (start + width > published) return make_error(Errc::not_found, "entry bundle beyond the log");
  auto entries = read(start, start + width);
  if (!entries) return entries.error();
  Bytes out;
  for (const Bytes& e : entries.value()) {
    GOPA_CHECK(e.size() <= 0xffff, "stored entries fit a uint16 length");
    ByteWriter<ByteOrder::big>(out).u16(static_cast<std::uint16_t>(e.size())).bytes(e);
  }
  return out;
}

Result<std::vector<EquivocationRecord>> LocalBoard::equivocations() {
  std::lock_guard lk(store_mu_);
  return store_->equivocations();
}

Status LocalBoard::put_blob(std::span<const std::uint8_t> blob) {
  // Only blobs an entry of the log refers to (by hash and length) are stored: the entry's
  // signature authorizes the blob, and the total is bounded by a quota.
  if (options_.read_only) return make_error(Errc::invalid_argument, "the board is open read-only");
  if (blob.size() > kMaxBlobSize) return make_error(Errc::too_large, "blob over 64 MiB");
  const Hash hash = sha256(blob);
  auto referenced = [&] {
    std::shared_lock lk(tree_mu_);
    auto it = blob_refs_.find(hash);
    return it != blob_refs_.end() && it->second == blob.size();
  };
  std::lock_guard lk(store_mu_);
  if (!referenced() && store_->shared()) (void)refresh_shared();  // another server may hold the entry
  if (!referenced()) {
    return make_error(Errc::not_found, "no entry of the log refers to this blob; append the entry first");
  }
  auto total = store_->blob_bytes();
  if (!total) return total.error();
  if (total.value() + blob.size() > options_.blob_quota) {
    auto existing = store_->get_blob(hash);
    if (existing && existing.value()) return {};  // already stored: idempotent
    return make_error(Errc::too_large, "the board's blob quota of " + std::to_string(options_.blob_quota) +
                                           " bytes is used up");
  }
  return store_->put_blob(hash, blob);
}

Result<Bytes> LocalBoard::get_blob(const Hash& hash) {
  std::lock_guard lk(store_mu_);
  auto b = store_->get_blob(hash);
  if (!b) return b.error();
  if (!b.value()) return make_error(Errc::not_found, "no blob with that hash");
  if (sha256(*b.value()) != hash) return make_error(Errc::corrupted, "stored blob does not match its hash");
  return std::move(*b.value());
}

}  // namespace gopa::bulletin
