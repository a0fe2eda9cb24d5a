// LocalBoard over the memory and SQLite stores: receipts, idempotency, equivocation evidence,
// durability rules (corrupted, stale and truncated databases are refused).
#include <catch2/catch.hpp>

#include <sqlite3.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <thread>

#include "board_fixtures.hpp"
#include "testdata.hpp"
#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/board.hpp"

using namespace gopa::bulletin;
using gopa::test::Party;
using gopa::test::TempDir;

namespace {

std::unique_ptr<LocalBoard> open_sqlite(const std::string& db, const std::string& state = "") {
  auto store = open_store(db, {});
  REQUIRE(store.ok());
  LocalBoardOptions opt;
  opt.origin = "test.example/board";
  opt.state_path = state;
  auto b = LocalBoard::open(std::move(store).value(), opt);
  if (!b) FAIL(b.error().message);
  return std::move(b).value();
}

void check_receipt(const LocalBoard& board, const Bytes& entry, const AppendReceipt& r) {
  auto cp = open_checkpoint(r.checkpoint, board.verifier());
  REQUIRE(cp.ok());
  CHECK(verify_inclusion(leaf_hash(entry), r.index, cp.value().size, r.proof, cp.value().root).ok());
}

void sql(const std::string& db, const std::string& statement) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(h, statement.c_str(), nullptr, nullptr, &err);
  INFO((err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(h);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("board: append, receipts, duplicates and equivocation (memory)", "[bulletin][board]") {
  auto b = LocalBoard::open(make_memory_store(), {});
  REQUIRE(b.ok());
  LocalBoard& board = *b.value();
  Party alice(1), bob(2);
  std::vector<Bytes> sent;
  for (int i = 0; i < 10; ++i) {
    Bytes e = (i % 2 ? alice : bob).next(gopa::test::label("payload ", static_cast<std::uint64_t>(i)));
    auto r = board.append(e);
    REQUIRE(r.ok());
    CHECK(r.value().index == static_cast<std::uint64_t>(i));
    CHECK_FALSE(r.value().duplicate);
    check_receipt(board, e, r.value());
    sent.push_back(e);
  }
  CHECK(board.size() == 10);
  // The same signed entry again: its original index, nothing stored.
  auto again = board.append(sent[3]);
  REQUIRE(again.ok());
  CHECK(again.value().index == 3);
  CHECK(again.value().duplicate);
  CHECK(board.size() == 10);
  // The same (session, sender, sequence) with other bytes: rejected and recorded.
  auto eq = board.append(alice.at(0, "a different story"));
  REQUIRE_FALSE(eq.ok());
  CHECK(eq.error().code == Errc::equivocation);
  CHECK(board.size() == 10);
  auto ev = board.equivocations();
  REQUIRE(ev.ok());
  REQUIRE(ev.value().size() == 1);
  CHECK(ev.value()[0].existing_index == 1);
  // Rejected input stores nothing.
  Bytes bad = alice.next("x");
  bad[bad.size() - 1] ^= 1;
  CHECK(board.append(bad).error().code == Errc::bad_signature);
  CHECK(board.size() == 10);
  auto read = board.read(0, 10);
  REQUIRE(read.ok());
  CHECK(read.value() == sent);
  // Consistency between every pair of published sizes.
  auto cp = open_checkpoint(board.checkpoint().value(), board.verifier());
  REQUIRE(cp.ok());
  auto proof = board.consistency_proof(4, 10);
  REQUIRE(proof.ok());
  MerkleTree t;
  for (const auto& e : sent) t.append(leaf_hash(e));
  CHECK(verify_consistency(4, 10, proof.value(), t.root_at(4), cp.value().root).ok());
}

TEST_CASE("board: concurrent appenders on SQLite lose and duplicate nothing", "[bulletin][board][tsan]") {
  TempDir dir;
  const std::string db = dir.file("b.db");
  std::vector<std::vector<Bytes>> sent(16);
  std::vector<std::vector<std::uint64_t>> acked(16);
  {
    auto board = open_sqlite(db, dir.file("b.state"));
    std::vector<std::thread> ts;
    for (int t = 0; t < 16; ++t) {
      ts.emplace_back([&, t] {
        Party p(static_cast<std::uint8_t>(10 + t));
        for (int i = 0; i < 25; ++i) {
          std::string payload = "t";
          payload += std::to_string(t);
          payload += " i";
          payload += std::to_string(i);
          Bytes e = p.next(payload);
          auto r = board->append(e);
          if (r.ok()) {
            sent[static_cast<std::size_t>(t)].push_back(e);
            acked[static_cast<std::size_t>(t)].push_back(r.value().index);
          }
        }
      });
    }
    for (auto& t : ts) t.join();
    CHECK(board->size() == 400);
  }
  // Reopen: every acknowledged entry at its index, root verified at startup.
  auto board = open_sqlite(db, dir.file("b.state"));
  REQUIRE(board->size() == 400);
  auto all = board->read(0, 400);
  REQUIRE(all.ok());
  std::set<std::uint64_t> seen;
  for (std::size_t t = 0; t < 16; ++t) {
    REQUIRE(acked[t].size() == 25);
    for (std::size_t i = 0; i < acked[t].size(); ++i) {
      CHECK(seen.insert(acked[t][i]).second);
      CHECK(all.value()[static_cast<std::size_t>(acked[t][i])] == sent[t][i]);
    }
  }
  const AuditReport report = audit_board(db, {});
  INFO(report.to_text());
  CHECK(report.exit_code() == 0);
}

TEST_CASE("board: an old copy of the database is refused", "[bulletin][board][durability]") {
  TempDir dir;
  const std::string db = dir.file("b.db");
  const std::string state = dir.file("b.state");
  Party p(3);
  {
    auto board = open_sqlite(db, state);
    for (int i = 0; i < 5; ++i) REQUIRE(board->append(p.next(gopa::test::label("e", static_cast<std::uint64_t>(i)))).ok());
  }
  std::filesystem::copy_file(db, dir.file("old.db"));
  {
    auto board = open_sqlite(db, state);
    for (int i = 0; i < 5; ++i) REQUIRE(board->append(p.next(gopa::test::label("f", static_cast<std::uint64_t>(i)))).ok());
  }
  std::filesystem::copy_file(dir.file("old.db"), db, std::filesystem::copy_options::overwrite_existing);
  auto store = open_store(db, {});
  REQUIRE(store.ok());
  LocalBoardOptions opt;
  opt.state_path = state;
  auto reopened = LocalBoard::open(std::move(store).value(), opt);
  REQUIRE_FALSE(reopened.ok());
  CHECK(reopened.error().code == Errc::stale_database);
}

TEST_CASE("board: a flipped byte in the database is detected", "[bulletin][board][durability]") {
  TempDir dir;
  const std::string db = dir.file("b.db");
  Party p(4);
  {
    auto board = open_sqlite(db);
    for (int i = 0; i < 20; ++i) REQUIRE(board->append(p.next("MARKER-" + std::to_string(1000 + i))).ok());
  }
  // Flip one byte inside the stored payload of one entry.
  std::string bytes = gopa::test::read_file(db);
  const auto at = bytes.find("MARKER-1007");
  REQUIRE(at != std::string::npos);
  bytes[at + 8] ^= 0x01;
  {
    std::ofstream out(db, std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  auto store = open_store(db, {});
  if (store.ok()) {
    auto board = LocalBoard::open(std::move(store).value(), {});
    REQUIRE_FALSE(board.ok());
    CHECK(board.error().code == Errc::corrupted);
  } else {
    CHECK(store.error().code == Errc::corrupted);
  }
  const AuditReport report = audit_board(db, {});
  INFO(report.to_text());
  CHECK(report.exit_code() == 2);
}

TEST_CASE("board: a checkpoint over missing entries is refused", "[bulletin][board][durability]") {
  TempDir dir;
  const std::string db = dir.file("b.db");
  Party p(5);
  {
    auto board = open_sqlite(db);
    for (int i = 0; i < 8; ++i) REQUIRE(board->append(p.next(gopa::test::label("e", static_cast<std::uint64_t>(i)))).ok());
  }
  sql(db, "DELETE FROM entries WHERE idx = 7");
  auto store = open_store(db, {});
  REQUIRE(store.ok());
  auto board = LocalBoard::open(std::move(store).value(), {});
  REQUIRE_FALSE(board.ok());
  CHECK(board.error().code == Errc::corrupted);
  CHECK(audit_board(db, {}).exit_code() == 2);
}

TEST_CASE("board: a database from a newer schema is refused", "[bulletin][board][durability]") {
  TempDir dir;
  const std::string db = dir.file("b.db");
  { (void)open_sqlite(db); }
  sql(db, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  auto store = open_store(db, {});
  REQUIRE(store.ok());
  auto board = LocalBoard::open(std::move(store).value(), {});
  REQUIRE_FALSE(board.ok());
  CHECK(board.error().code == Errc::unknown_type);
}

TEST_CASE("board: cosignatures are verified and served with the checkpoint", "[bulletin][board][note]") {
  auto b = LocalBoard::open(make_memory_store(), {});
  REQUIRE(b.ok());
  LocalBoard& board = *b.value();
  Party p(6);
  REQUIRE(board.append(p.next("round 1")).ok());
  auto cp = open_checkpoint(board.checkpoint().value(), board.verifier());
  REQUIRE(cp.ok());
  std::array<std::uint8_t, 32> seed{};
  seed.fill(9);
  Cosigner witness("party.example/9", SigningKey::from_seed(seed));
  const NoteSignature sig = witness.cosign(checkpoint_body(cp.value()), 1700000000);
  CHECK(board.add_cosignature(cp.value().size, witness.vkey(), sig).ok());
  NoteSignature forged = sig;
  forged.signature[20] ^= 1;
  CHECK_FALSE(board.add_cosignature(cp.value().size, witness.vkey(), forged).ok());
  auto served = board.cosigned_checkpoint();
  REQUIRE(served.ok());
  auto note = parse_note(served.value());
  REQUIRE(note.ok());
  REQUIRE(note.value().signatures.size() == 2);
  CHECK(verify_note(note.value(), board.verifier()).ok());
  auto v = CosignatureVerifier::from_vkey(witness.vkey());
  REQUIRE(v.ok());
  CHECK(verify_cosignature(note.value().text, note.value().signatures[1], v.value()).value() == 1700000000);
}

TEST_CASE("board: tiles and entry bundles follow C2SP tlog-tiles", "[bulletin][board]") {
  auto b = LocalBoard::open(make_memory_store(), {});
  REQUIRE(b.ok());
  LocalBoard& board = *b.value();
  Party p(7);
  std::vector<Bytes> sent;
  for (int i = 0; i < 300; ++i) {
    sent.push_back(p.next(std::to_string(i)));
    REQUIRE(board.append(sent.back()).ok());
  }
  auto full = board.tile(0, 0, 256);
  REQUIRE(full.ok());
  CHECK(full.value().size() == 256 * 32);
  for (std::size_t i = 0; i < 256; ++i) {
    const Hash h = leaf_hash(sent[i]);
    CHECK(std::equal(h.begin(), h.end(), full.value().begin() + static_cast<std::ptrdiff_t>(i * 32)));
  }
  CHECK(board.tile(0, 1, 44).ok());
  CHECK_FALSE(board.tile(0, 1, 45).ok());
  CHECK_FALSE(board.tile(0, 1, 256).ok());
  auto l1 = board.tile(1, 0, 1);
  REQUIRE(l1.ok());
  MerkleTree t;
  for (std::size_t i = 0; i < 256; ++i) t.append(leaf_hash(sent[i]));
  const Hash r256 = t.root();
  CHECK(std::equal(r256.begin(), r256.end(), l1.value().begin()));
  auto bundle = board.entry_bundle(1, 44);
  REQUIRE(bundle.ok());
  auto split = split_entry_bundle(bundle.value());
  REQUIRE(split.ok());
  REQUIRE(split.value().size() == 44);
  CHECK(split.value()[0] == sent[256]);
}

TEST_CASE("board: the SQLite WAL is checkpointed while the board is open and read", "[bulletin][board][durability]") {
  // A statement left active after a read keeps a read transaction open and blocks every WAL
  // checkpoint, so the -wal file would grow with every append (hundreds of MB for a large run).
  TempDir dir;
  const std::string db = dir.file("w.db");
  auto board = open_sqlite(db, dir.file("w.state"));
  Party p(9);
  const std::string payload(30'000, 'x');
  for (int i = 0; i < 400; ++i) {  // ≈ 12 MB of entries, plus their tiles
    REQUIRE(board->append(p.next(payload + gopa::test::label("#", static_cast<std::uint64_t>(i)))).ok());
    if (i % 10 == 0) {
      REQUIRE(board->checkpoint().ok());
      REQUIRE(board->read(0, 1).ok());
    }
  }
  const auto wal = std::filesystem::file_size(db + "-wal");
  const auto main = std::filesystem::file_size(db);
  INFO("wal " << wal << " bytes, database " << main << " bytes");
  CHECK(main > 10'000'000);  // the entries reached the database file
  CHECK(wal < 8'000'000);    // the WAL restarted instead of holding every page written
}

TEST_CASE("board: evidence is kept once per entry however often an equivocation is posted", "[bulletin][board]") {
  TempDir dir;
  auto board = open_sqlite(dir.file("e.db"));
  Party alice(1);
  REQUIRE(board->append(alice.next("first")).ok());
  REQUIRE(board->append(alice.next("second")).ok());
  const Bytes twin = alice.at(0, "another first");
  for (int i = 0; i < 20; ++i) CHECK(board->append(twin).error().code == Errc::equivocation);
  // A second conflicting entry for the same index adds nothing: one signed pair proves it.
  CHECK(board->append(alice.at(0, "a third first")).error().code == Errc::equivocation);
  // Concurrent posts land in one group: still one record.
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t) ts.emplace_back([&] { (void)board->append(alice.at(1, "another second")); });
  for (auto& t : ts) t.join();
  auto ev = board->equivocations();
  REQUIRE(ev.ok());
  REQUIRE(ev.value().size() == 2);
  CHECK(ev.value()[0].existing_index == 0);
  CHECK(ev.value()[0].conflicting == twin);
  CHECK(ev.value()[1].existing_index == 1);
}

TEST_CASE("board: the signing key lives in its own file, mode 0600, never in the database", "[bulletin][board][key]") {
  TempDir dir;
  const std::string db = dir.file("k.db");
  std::string vkey;
  {
    auto board = open_sqlite(db, dir.file("k.state"));
    vkey = board->vkey();
    REQUIRE(board->append(Party(2).next("x")).ok());
  }
  struct stat st {};
  REQUIRE(::stat((db + ".key").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto key = read_key_file(db + ".key");
  REQUIRE(key.ok());
  auto seed = key.value().seed();
  const std::string seed_hex = to_hex(seed);
  const std::string contents = gopa::test::read_file(db);
  CHECK(contents.find(seed_hex) == std::string::npos);
  CHECK(contents.find(std::string(seed.begin(), seed.end())) == std::string::npos);
  {
    auto store = open_store(db, {});
    REQUIRE(store.ok());
    CHECK_FALSE(store.value()->get_meta("signing_seed").value().has_value());
    CHECK(stored_vkey(*store.value()).value() == vkey);
  }
  CHECK(open_sqlite(db, dir.file("k.state"))->vkey() == vkey);
  // The key file is never overwritten, and a new database does not adopt an existing key.
  CHECK_FALSE(write_key_file(db + ".key", SigningKey::generate()).ok());
  CHECK(read_key_file(db + ".key").value().public_key() == key.value().public_key());
  std::filesystem::copy_file(db + ".key", dir.file("new.db.key"));
  {
    auto store = open_store(dir.file("new.db"), {});
    REQUIRE(store.ok());
    auto fresh = LocalBoard::open(std::move(store).value(), {});
    REQUIRE_FALSE(fresh.ok());
    CHECK(fresh.error().code == Errc::invalid_argument);
  }
  // A key file others can read is refused; without its key file the board does not start.
  REQUIRE(::chmod((db + ".key").c_str(), 0644) == 0);
  CHECK(read_key_file(db + ".key").error().code == Errc::invalid_argument);
  std::filesystem::remove(db + ".key");
  auto store = open_store(db, {});
  REQUIRE(store.ok());
  auto keyless = LocalBoard::open(std::move(store).value(), {});
  REQUIRE_FALSE(keyless.ok());
  CHECK(keyless.error().code == Errc::not_found);
}

TEST_CASE("board: a database that holds its key gives it to a key file on first start", "[bulletin][board][key]") {
  // The layout of earlier versions: the seed in meta.signing_seed, no public_key row.
  TempDir dir;
  const std::string db = dir.file("old.db");
  auto legacy = SigningKey::generate();
  auto seed = legacy.seed();
  const std::string seed_hex = to_hex(seed);
  {
    auto store = open_store(db, {});
    REQUIRE(store.ok());
    REQUIRE(store.value()->init_meta({{"schema_version", "1"}, {"origin", "legacy.example/board"},
                                      {"signing_seed", seed_hex}}).ok());
  }
  REQUIRE(gopa::test::read_file(db).find(seed_hex) != std::string::npos);
  const std::string expected = NoteVerifier::for_key("legacy.example/board", legacy.public_key()).vkey();
  {
    auto board = open_sqlite(db, dir.file("old.state"));
    CHECK(board->vkey() == expected);
    REQUIRE(board->append(Party(3).next("after the move")).ok());
  }
  auto moved = read_key_file(db + ".key");
  REQUIRE(moved.ok());
  CHECK(moved.value().public_key() == legacy.public_key());
  CHECK(gopa::test::read_file(db).find(seed_hex) == std::string::npos);
  {
    auto store = open_store(db, {});
    REQUIRE(store.ok());
    CHECK(store.value()->get_meta("schema_version").value() == std::optional<std::string>("2"));
    CHECK_FALSE(store.value()->get_meta("signing_seed").value().has_value());
  }
  if (std::filesystem::exists(db + "-wal")) CHECK(gopa::test::read_file(db + "-wal").find(seed_hex) == std::string::npos);
  CHECK(open_sqlite(db, dir.file("old.state"))->vkey() == expected);
  CHECK(audit_board(db, {}).exit_code() == 0);
}

TEST_CASE("board: a read-only copy is audited and nothing is left behind", "[bulletin][board][audit]") {
  TempDir dir;
  const std::string db = dir.file("a.db");
  std::string vkey;
  {
    auto board = open_sqlite(db, dir.file("a.state"));
    vkey = board->vkey();
    Party p(4);
    for (int i = 0; i < 30; ++i) REQUIRE(board->append(p.next(gopa::test::label("e", static_cast<std::uint64_t>(i)))).ok());
  }
  // A copy of the database alone, read-only, in a read-only directory.
  const std::filesystem::path copy_dir = dir.path() / "copy";
  std::filesystem::create_directory(copy_dir);
  const std::string copy = (copy_dir / "a.db").string();
  std::filesystem::copy_file(db, copy);
  REQUIRE(::chmod(copy.c_str(), 0444) == 0);
  REQUIRE(::chmod(copy_dir.c_str(), 0555) == 0);
  auto listing = [&](const std::filesystem::path& d) {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(d)) names.insert(e.path().filename().string());
    return names;
  };
  const auto before_copy = listing(copy_dir);
  const auto before_own = listing(dir.path());
  AuditOptions opt;
  opt.vkey = vkey;
  for (const std::string& path : {copy, db}) {
    const AuditReport r = audit_board(path, opt);
    INFO(path << "\n" << r.to_text());
    CHECK(r.exit_code() == 0);
    // The read-only board `gopa audit` reads the session from.
    auto store = open_store(path, {false, true});
    REQUIRE(store.ok());
    LocalBoardOptions ro;
    ro.read_only = true;
    auto board = LocalBoard::open(std::move(store).value(), ro);
    if (!board) FAIL(board.error().message);
    CHECK(board.value()->size() == 30);
    CHECK(board.value()->vkey() == vkey);
    CHECK(board.value()->read(0, 30).ok());
    CHECK(board.value()->append(Party(5).next("no")).error().code == Errc::invalid_argument);
  }
  CHECK(listing(copy_dir) == before_copy);
  CHECK(listing(dir.path()) == before_own);
  REQUIRE(::chmod(copy_dir.c_str(), 0755) == 0);
}

TEST_CASE("board: blobs are stored only when an entry refers to them, within a quota", "[bulletin][board][blob]") {
  TempDir dir;
  auto store = open_store(dir.file("blob.db"), {});
  REQUIRE(store.ok());
  LocalBoardOptions opt;
  opt.blob_quota = 3 * (kMaxInlinePayload + 100);
  auto b = LocalBoard::open(std::move(store).value(), opt);
  REQUIRE(b.ok());
  LocalBoard& board = *b.value();
  auto blob = [](char c) { return Bytes(kMaxInlinePayload + 100, static_cast<std::uint8_t>(c)); };
  auto refer = [&](const Bytes& data, std::uint64_t seq) {
    Entry e;
    e.session_id.fill(0x5e);
    e.round = 1;
    e.type = MessageType::proof;
    e.sequence = seq;
    e.payload_kind = PayloadKind::blob_reference;
    e.payload = blob_reference(data);
    return sign_entry(e, Party(6).key());
  };
  // Nobody refers to it: refused, nothing stored.
  CHECK(board.put_blob(blob('a')).error().code == Errc::not_found);
  CHECK(board.get_blob(sha256(blob('a'))).error().code == Errc::not_found);
  // The signed entry first, then its blob.
  for (std::uint64_t i = 0; i < 4; ++i) REQUIRE(board.append(refer(blob(static_cast<char>('a' + i)), i)).ok());
  REQUIRE(board.put_blob(blob('a')).ok());
  CHECK(board.get_blob(sha256(blob('a'))).value() == blob('a'));
  REQUIRE(board.put_blob(blob('a')).ok());  // again: idempotent
  // A blob of another length under the same hash prefix is not the referenced one.
  Bytes longer = blob('b');
  longer.push_back(0);
  CHECK(board.put_blob(longer).error().code == Errc::not_found);
  REQUIRE(board.put_blob(blob('b')).ok());
  REQUIRE(board.put_blob(blob('c')).ok());
  // The quota holds three.
  CHECK(board.put_blob(blob('d')).error().code == Errc::too_large);
  CHECK(board.put_blob(blob('c')).ok());
}

TEST_CASE("store: another application's SQLite file is not made into a board", "[bulletin][board]") {
  TempDir dir;
  const std::string db = dir.file("other.db");
  sql(db, "CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT)");
  auto store = open_store(db, {});
  REQUIRE_FALSE(store.ok());
  CHECK(store.error().code == Errc::invalid_argument);
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_schema", -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(sqlite3_column_int(s, 0) == 1);
  sqlite3_finalize(s);
  sqlite3_close(h);
}
