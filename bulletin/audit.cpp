// `gopa board check`: the log-level audit (docs/board.md §7).
#include "gopa/bulletin/audit.hpp"

#include <httplib.h>
#include <sodium.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

namespace gopa::bulletin {

namespace {

using nlohmann::json;

bool is_url(const std::string& s) { return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0; }

class Auditor {
 public:
  Auditor(AuditReport& report, const AuditOptions& options) : r_(report), opt_(options) {}

  void add(std::string name, CheckStatus st, std::string detail) {
    r_.checks.push_back(CheckResult{std::move(name), st, std::move(detail)});
  }

  // Decodes and verifies every entry on `threads` workers; fills leaves_. Returns false on failure.
  // `available`, when given, counts the entries already filled in by a concurrent fetcher: the
  // workers verify behind it, so downloading and verifying overlap. `aborted` stops them.
  void check_entries(const std::vector<Bytes>& entries, const std::atomic<std::size_t>* available = nullptr,
                     const std::atomic<bool>* aborted = nullptr) {
    leaves_.assign(entries.size(), Hash{});
    std::atomic<std::uint64_t> first_bad{UINT64_MAX};
    std::vector<std::string> why(1);
    std::mutex why_mu;
    const unsigned n = std::max(1u, opt_.threads);
    std::vector<std::thread> workers;
    for (unsigned w = 0; w < n; ++w) {
      workers.emplace_back([&, w] {
        for (std::size_t i = w; i < entries.size(); i += n) {
          if (available != nullptr) {
            while (available->load(std::memory_order_acquire) <= i) {
              if (aborted != nullptr && aborted->load()) return;
              std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
          }
          leaves_[i] = leaf_hash(entries[i]);
          auto e = decode_entry(entries[i]);
          if (!e) {
            std::lock_guard lk(why_mu);
            if (i < first_bad.load()) {
              first_bad = i;
              why[0] = e.error().message;
            }
          }
        }
      });
    }
    for (auto& t : workers) t.join();
    if (aborted != nullptr && aborted->load()) return;
    if (first_bad.load() != UINT64_MAX) {
      add("entries canonical and signed", CheckStatus::fail,
          "entry " + std::to_string(first_bad.load()) + ": " + why[0]);
    } else {
      add("entries canonical and signed", CheckStatus::pass, std::to_string(entries.size()) + " entries");
    }
    for (const Hash& h : leaves_) tree_.append(h);
  }

  void check_root(const Checkpoint& cp) {
    if (cp.size > tree_.size()) {
      add("merkle root re-derived", CheckStatus::fail,
          "checkpoint covers " + std::to_string(cp.size) + " entries, only " + std::to_string(tree_.size()) + " available");
      return;
    }
    if (tree_.root_at(cp.size) != cp.root) {
      add("merkle root re-derived", CheckStatus::fail, "root of the entries differs from the checkpoint root");
      return;
    }
    add("merkle root re-derived", CheckStatus::pass, "size " + std::to_string(cp.size) + ", root " + to_base64(cp.root));
  }

  void check_equivocations(const std::vector<EquivocationRecord>& records, const std::vector<Bytes>& entries) {
    if (records.empty()) {
      add("equivocation evidence", CheckStatus::pass, "none recorded");
      return;
    }
    std::set<std::string> senders;
    for (const auto& rec : records) {
      if (rec.existing_index >= entries.size()) {
        add("equivocation evidence", CheckStatus::fail, "evidence refers to a missing entry");
        return;
      }
      auto a = decode_entry(entries[static_cast<std::size_t>(rec.existing_index)]);
      auto b = decode_entry(rec.conflicting);
      if (!a || !b || a.value().sender != b.value().sender || a.value().session_id != b.value().session_id ||
          a.value().sequence != b.value().sequence || a.value() == b.value()) {
        add("equivocation evidence", CheckStatus::fail, "a recorded equivocation is not a valid pair of signed entries");
        return;
      }
      senders.insert(to_hex(a.value().sender));
    }
    r_.equivocating_senders.assign(senders.begin(), senders.end());
    add("equivocation evidence", CheckStatus::pass,
        std::to_string(records.size()) + " valid record(s); equivocating sender(s): " + [&] {
          std::string s;
          for (const auto& x : senders) s += (s.empty() ? "" : ", ") + x;
          return s;
        }());
  }

  // Compares with the checkpoint of the previous audit; writes evidence on a fork.
  void check_state(const NoteVerifier& v, const std::string& note, const Checkpoint& cp) {
    if (opt_.state_path.empty()) {
      add("consistency with previous audit", CheckStatus::skip, "no --state file given");
      return;
    }
    auto prev_text = read_small_file(opt_.state_path, kMaxNoteSize);
    if (!prev_text) {
      add("consistency with previous audit", CheckStatus::skip, prev_text.error().message);
      r_.io_error = true;
      return;
    }
    if (!prev_text.value()) {
      add("consistency with previous audit", CheckStatus::skip, "first audit: recording the checkpoint");
    } else {
      auto prev = open_checkpoint(*prev_text.value(), v);
      if (!prev) {
        add("consistency with previous audit", CheckStatus::fail,
            "stored checkpoint is not signed by this log's key: " + prev.error().message);
        return;
      }
      const Checkpoint& p = prev.value();
      ForkEvidence ev{v.vkey(), "", *prev_text.value(), note, {}};
      if (p.size > cp.size) {
        ev.reason = "log shrank: previously saw size " + std::to_string(p.size) + ", now " + std::to_string(cp.size);
        if (p.size <= tree_.size()) {
          // The log's own data shows a different history: include the proof.
          ev.proof = tree_.consistency_proof(cp.size, p.size);
        }
        r_.fork = ev;
        add("consistency with previous audit", CheckStatus::fail, ev.reason);
        return;
      }
      if (p.size > 0 && tree_.root_at(p.size) != p.root) {
        if (p.size == cp.size) {
          ev.reason = "two signed checkpoints of size " + std::to_string(p.size) + " with different roots";
        } else {
          ev.reason = "checkpoint of size " + std::to_string(p.size) + " is not a prefix of the current log; the "
                      "consistency proof below, from the log's own entries, verifies checkpoint_b against a "
                      "different root at that size";
          ev.proof = tree_.consistency_proof(p.size, cp.size);
        }
        r_.fork = ev;
        add("consistency with previous audit", CheckStatus::fail, ev.reason);
        return;
      }
      add("consistency with previous audit", CheckStatus::pass,
          "previous size " + std::to_string(p.size) + " is a prefix of size " + std::to_string(cp.size));
    }
    state_ok_ = true;
  }

  void finish_state(const std::string& note) {
    // Recorded only when every check passed, so a bad view never becomes the reference.
    if (!state_ok_) return;
    for (const auto& c : r_.checks) {
      if (c.status == CheckStatus::fail) return;
    }
    if (Status st = write_file_durably(opt_.state_path, note); !st) {
      add("record checkpoint", CheckStatus::fail, st.error().message);
      r_.io_error = true;
    }
  }

  void check_cosignatures(const std::string& note_text, const Checkpoint& cp) {
    auto note = parse_note(note_text);
    if (!note) return;
    const std::string body = checkpoint_body(cp);
    std::size_t others = 0;
    for (const auto& s : note.value().signatures) others += (s.name != cp.origin) ? 1u : 0u;
    if (opt_.cosigners.empty()) {
      add("cosignatures", CheckStatus::skip,
          std::to_string(others) + " cosignature line(s) present; no --cosigner keys given");
      return;
    }
    for (const auto& vk : opt_.cosigners) {
      auto v = CosignatureVerifier::from_vkey(vk);
      if (!v) {
        add("cosignatures", CheckStatus::fail, "bad cosigner vkey: " + v.error().message);
        r_.usage_error = true;
        return;
      }
      bool found = false;
      for (const auto& s : note.value().signatures) {
        if (s.name != v.value().name || s.id != v.value().id) continue;
        found = true;
        if (auto ts = verify_cosignature(body, s, v.value()); !ts) {
          add("cosignatures", CheckStatus::fail, ts.error().message);
          return;
        }
      }
      if (!found) {
        add("cosignatures", CheckStatus::fail, "no cosignature by " + v.value().name + " on the checkpoint");
        return;
      }
    }
    add("cosignatures", CheckStatus::pass, std::to_string(opt_.cosigners.size()) + " cosigner(s) verified");
  }

  MerkleTree& tree() { return tree_; }
  const std::vector<Hash>& leaves() const { return leaves_; }

 private:
  AuditReport& r_;
  const AuditOptions& opt_;
  MerkleTree tree_;
  std::vector<Hash> leaves_;
  bool state_ok_ = false;
};

Result<NoteVerifier> pinned_or(const AuditOptions& opt, const std::string& board_vkey, Auditor& a) {
  if (!opt.vkey.empty()) {
    auto v = NoteVerifier::from_vkey(opt.vkey);
    if (!v) return v.error();
    if (!board_vkey.empty() && v.value().vkey() != board_vkey) {
      a.add("log key", CheckStatus::fail, "the board's key is not the pinned --key");
    } else {
      a.add("log key", CheckStatus::pass, "pinned: " + v.value().vkey());
    }
    return v;
  }
  auto v = NoteVerifier::from_vkey(board_vkey);
  if (!v) return v.error();
  a.add("log key", CheckStatus::skip, "not pinned (pass --key); using the board's own key " + board_vkey);
  return v;
}

void audit_local(const std::string& location, const AuditOptions& opt, AuditReport& r, Auditor& a) {
  auto store = open_store(location, StoreOptions{false, !is_url(location) && location.find("://") == std::string::npos});
  if (!store) {
    a.add("open database", CheckStatus::fail, store.error().message);
    if (store.error().code == Errc::io) r.io_error = true;
    return;
  }
  a.add("open database", CheckStatus::pass, store.value()->describe());
  Store& s = *store.value();
  // The database's public key (or, for a database of an earlier version, the key it holds).
  auto stored = stored_vkey(s);
  if (!stored) {
    a.add("log key", CheckStatus::fail, "database has no valid board key: " + stored.error().message);
    return;
  }
  const std::string board_vkey = stored.value();
  auto v = pinned_or(opt, board_vkey, a);
  if (!v) {
    a.add("log key", CheckStatus::fail, v.error().message);
    r.usage_error = true;
    return;
  }
  auto size = s.size();
  if (!size) {
    a.add("read entries", CheckStatus::fail, size.error().message);
    return;
  }
  std::vector<Bytes> entries;
  std::vector<Hash> stored_leaves;
  entries.reserve(static_cast<std::size_t>(size.value()));
  for (std::uint64_t b = 0; b < size.value(); b += 8192) {
    auto rows = s.read_rows(b, std::min<std::uint64_t>(size.value(), b + 8192));
    if (!rows) {
      a.add("read entries", CheckStatus::fail, rows.error().message);
      return;
    }
    for (auto& row : rows.value()) {
      entries.push_back(std::move(row.data));
      stored_leaves.push_back(row.leaf);
    }
  }
  a.check_entries(entries);
  std::uint64_t bad_leaf = UINT64_MAX;
  for (std::size_t i = 0; i < stored_leaves.size(); ++i) {
    if (stored_leaves[i] != a.leaves()[i]) {
      bad_leaf = i;
      break;
    }
  }
  if (bad_leaf != UINT64_MAX) {
    a.add("stored leaf hashes", CheckStatus::fail, "entry " + std::to_string(bad_leaf) + " differs from its stored leaf hash");
  } else {
    a.add("stored leaf hashes", CheckStatus::pass, std::to_string(stored_leaves.size()) + " match");
  }
  auto cps = s.checkpoints();
  if (!cps || cps.value().empty()) {
    a.add("checkpoint signature", CheckStatus::fail, cps ? "no checkpoint stored" : cps.error().message);
    return;
  }
  const StoredCheckpoint& latest = cps.value().back();
  auto cp = open_checkpoint(latest.note, v.value());
  if (!cp) {
    a.add("checkpoint signature", CheckStatus::fail, cp.error().message);
    return;
  }
  a.add("checkpoint signature", CheckStatus::pass, "latest checkpoint signed by " + v.value().name);
  r.size = cp.value().size;
  r.checkpoint = latest.note;
  a.check_root(cp.value());
  std::size_t bad = 0;
  std::string why;
  for (const auto& c : cps.value()) {
    auto o = open_checkpoint(c.note, v.value());
    if (!o || o.value().size != c.size || o.value().root != c.root || c.size > a.tree().size() ||
        a.tree().root_at(c.size) != c.root) {
      if (bad++ == 0) why = "checkpoint of size " + std::to_string(c.size) + " does not match the entries";
    }
  }
  a.add("every stored checkpoint", bad == 0 ? CheckStatus::pass : CheckStatus::fail,
        bad == 0 ? std::to_string(cps.value().size()) + " checkpoints consistent with the entries" : why);
  auto eq = s.equivocations();
  if (!eq) {
    a.add("equivocation evidence", CheckStatus::fail, eq.error().message);
  } else {
    a.check_equivocations(eq.value(), entries);
  }
  // Cosignatures collected for the latest checkpoint.
  auto cos = s.cosignatures(cp.value().size);
  std::string note = latest.note;
  if (cos) {
    for (const auto& c : cos.value()) note += c.line + "\n";
  }
  a.check_cosignatures(note, cp.value());
  a.check_state(v.value(), latest.note, cp.value());
  a.finish_state(latest.note);
}

void audit_remote(const std::string& url, const AuditOptions& opt, AuditReport& r, Auditor& a) {
  // Bootstrap a client with the pinned key, or with the board's own key (reported as SKIP).
  std::string board_vkey;
  std::string vkey = opt.vkey;
  if (vkey.empty()) {
    httplib::Client c(url);
    c.set_connection_timeout(10, 0);
    c.set_read_timeout(30, 0);
    auto res = c.Get("/key");
    if (!res || res->status != 200) {
      a.add("fetch log key", CheckStatus::fail, "GET /key failed");
      r.io_error = true;
      return;
    }
    board_vkey = res->body;
    while (!board_vkey.empty() && board_vkey.back() == '\n') board_vkey.pop_back();
  }
  auto v = pinned_or(opt, board_vkey, a);
  if (!v) {
    a.add("log key", CheckStatus::fail, v.error().message);
    r.usage_error = !opt.vkey.empty();
    return;
  }
  auto client = HttpBoard::connect({url, v.value().vkey(), "", "", 30});
  if (!client) {
    a.add("connect", CheckStatus::fail, client.error().message);
    r.usage_error = true;
    return;
  }
  HttpBoard& hb = *client.value();
  auto note_bytes = hb.fetch("/checkpoint");
  if (!note_bytes) {
    a.add("fetch checkpoint", CheckStatus::fail, note_bytes.error().message);
    r.io_error = note_bytes.error().code == Errc::io;
    return;
  }
  const std::string full_note(note_bytes.value().begin(), note_bytes.value().end());
  auto cp = open_checkpoint(full_note, v.value());
  if (!cp) {
    a.add("checkpoint signature", CheckStatus::fail, cp.error().message);
    return;
  }
  a.add("checkpoint signature", CheckStatus::pass, "signed by " + v.value().name);
  // The note without cosignature lines: the log's own signed checkpoint.
  Note log_only = parse_note(full_note).value();
  std::erase_if(log_only.signatures, [&](const NoteSignature& s) { return s.name != v.value().name || s.id != v.value().id; });
  const std::string note = format_note(log_only);
  r.size = cp.value().size;
  r.checkpoint = note;
  const std::uint64_t size = cp.value().size;
  // One thread downloads entry bundles then tiles while the workers verify what has arrived.
  std::vector<Bytes> entries(static_cast<std::size_t>(size));
  std::atomic<std::size_t> available{0};
  std::atomic<bool> aborted{false};
  std::string fetch_problem;
  bool fetch_io = false;
  struct TileFetch {
    unsigned level;
    std::uint64_t index;
    unsigned width;
    Bytes data;
  };
  std::vector<TileFetch> tiles;
  std::thread fetcher([&] {
    for (std::uint64_t t = 0; t * 256 < size; ++t) {
      const auto width = static_cast<unsigned>(std::min<std::uint64_t>(256, size - t * 256));
      auto bundle = hb.fetch(entry_bundle_path(t, width));
      if (!bundle) {
        fetch_problem = bundle.error().message;
        fetch_io = bundle.error().code == Errc::io;
        aborted = true;
        return;
      }
      auto es = split_entry_bundle(bundle.value());
      if (!es || es.value().size() != width) {
        fetch_problem = "bundle " + std::to_string(t) + " is malformed or has the wrong width";
        aborted = true;
        return;
      }
      for (std::size_t i = 0; i < width; ++i) {
        entries[static_cast<std::size_t>(t * 256 + i)] = std::move(es.value()[i]);
      }
      available.store(static_cast<std::size_t>(t * 256 + width), std::memory_order_release);
    }
    for (unsigned level = 0; level < 8; ++level) {
      const std::uint64_t count = size >> (8 * level);
      if (count == 0) break;
      for (std::uint64_t t = 0; t * 256 < count; ++t) {
        const auto width = static_cast<unsigned>(std::min<std::uint64_t>(256, count - t * 256));
        auto tile = hb.fetch(tile_path(level, t, width));
        tiles.push_back(TileFetch{level, t, width, tile ? std::move(tile).value() : Bytes{}});
      }
    }
  });
  a.check_entries(entries, &available, &aborted);
  fetcher.join();
  if (aborted) {
    a.add("fetch entry bundles", CheckStatus::fail, fetch_problem);
    r.io_error = fetch_io;
    return;
  }
  a.add("fetch entry bundles", CheckStatus::pass, std::to_string((size + 255) / 256) + " bundles");
  a.check_root(cp.value());
  // Every tile (all levels) must hold the hashes re-derived from the entries.
  std::string tile_problem;
  for (const auto& tile : tiles) {
    if (tile.data.size() != static_cast<std::size_t>(tile.width) * 32) {
      tile_problem = "tile " + tile_path(tile.level, tile.index, tile.width) + " is missing or has the wrong size";
      break;
    }
    for (unsigned i = 0; i < tile.width; ++i) {
      const Hash& want = a.tree().complete_subtree(tile.level * 8, tile.index * 256 + i);
      if (!std::equal(want.begin(), want.end(), tile.data.begin() + static_cast<std::ptrdiff_t>(i) * 32)) {
        tile_problem = "tile " + tile_path(tile.level, tile.index, tile.width) + " differs from the entries";
        break;
      }
    }
    if (!tile_problem.empty()) break;
  }
  a.add("tiles match entries", tile_problem.empty() ? CheckStatus::pass : CheckStatus::fail,
        tile_problem.empty() ? std::to_string(tiles.size()) + " tiles" : tile_problem);
  auto eq_bytes = hb.fetch("/equivocations");
  if (!eq_bytes) {
    a.add("equivocation evidence", CheckStatus::skip, "not served: " + eq_bytes.error().message);
  } else {
    const json j = json::parse(std::string(eq_bytes.value().begin(), eq_bytes.value().end()), nullptr, false);
    std::vector<EquivocationRecord> recs;
    bool ok = j.is_array();
    if (ok) {
      for (const auto& x : j) {
        if (!x.is_object() || !x.contains("existing_index") || !x["existing_index"].is_number_unsigned() ||
            !x.contains("conflicting") || !x["conflicting"].is_string()) {
          ok = false;
          break;
        }
        auto b = from_base64(x["conflicting"].get<std::string>());
        if (!b) {
          ok = false;
          break;
        }
        recs.push_back(EquivocationRecord{x["existing_index"].get<std::uint64_t>(), *b, 0});
      }
    }
    if (!ok) {
      a.add("equivocation evidence", CheckStatus::fail, "malformed /equivocations response");
    } else {
      a.check_equivocations(recs, entries);
    }
  }
  a.check_cosignatures(full_note, cp.value());
  a.check_state(v.value(), note, cp.value());
  a.finish_state(note);
}

}  // namespace

const char* check_status_name(CheckStatus s) noexcept {
  switch (s) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::skip: return "SKIP";
  }
  return "?";
}

int AuditReport::exit_code() const {
  if (usage_error) return 3;
  bool failed = false;
  for (const auto& c : checks) failed = failed || c.status == CheckStatus::fail;
  if (io_error) return 4;
  if (failed || fork) return 2;
  if (!equivocating_senders.empty()) return 1;
  return 0;
}

std::string AuditReport::to_text() const {
  std::ostringstream out;
  out << "board " << board << " (size " << size << ")\n";
  for (const auto& c : checks) out << "  " << check_status_name(c.status) << "  " << c.name << ": " << c.detail << "\n";
  if (fork) out << "  FORK: " << fork->reason << "\n";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", seconds);
  out << "verdict: "
      << (exit_code() == 0 ? "verified" : exit_code() == 1 ? "a party equivocated (named above)"
                                        : exit_code() == 2 ? "the log misbehaved"
                                        : exit_code() == 3 ? "usage error" : "I/O error")
      << " in " << buf << " s\n";
  return out.str();
}

std::string AuditReport::to_json() const {
  json checks_j = json::array();
  for (const auto& c : checks) checks_j.push_back({{"name", c.name}, {"status", check_status_name(c.status)}, {"detail", c.detail}});
  // The report of `gopa board check --json` (docs/cli-json.md).
  json j{{"schema", "gopa-board-check/v1"},
         {"board", board},
         {"size", size},
         {"checkpoint", checkpoint},
         {"checks", checks_j},
         {"equivocating_senders", equivocating_senders},
         {"exit_code", exit_code()},
         {"seconds", seconds}};
  if (fork) j["fork"] = json::parse(fork->to_json());
  return j.dump(2) + "\n";
}

AuditReport audit_board(const std::string& location, const AuditOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  AuditReport r;
  r.board = location;
  Auditor a(r, options);
  if (is_url(location)) {
    audit_remote(location, options, r, a);
  } else {
    audit_local(location, options, r, a);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gopa::bulletin
