// `gopa keys`, `gopa coordinate` and `gopa party`: GOPA with every party in its own process,
// over a board served by `gopa board serve` (protocol/run.hpp, run_party / run_coordinator).
#include <sys/stat.h>

#include <cerrno>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <sodium.h>

#include "commands.hpp"
#include "gopa/bulletin/http.hpp"
#include "gopa/protocol/adversary.hpp"
#include "gopa/protocol/run.hpp"
#include "report.hpp"
#include "session_args.hpp"

namespace gopa::cli {

namespace {

namespace bb = gopa::bulletin;
namespace gp = gopa::protocol;
using json = nlohmann::json;

gp::Key32 key_from_hex(const json& j, const char* field, const std::string& file) {
  if (!j.contains(field) || !j[field].is_string()) throw UsageError(file + ": missing \"" + field + "\"");
  auto bytes = from_hex(j[field].get<std::string>());
  if (!bytes || bytes->size() != 32) throw UsageError(file + ": \"" + field + "\" must be 64 hex digits");
  gp::Key32 k{};
  std::copy(bytes->begin(), bytes->end(), k.begin());
  sodium_memzero(bytes->data(), bytes->size());
  return k;
}

json public_json(const gp::RosterEntry& e) {
  return {{"sign_key", to_hex(e.sign_key)}, {"box_key", to_hex(e.box_key)}};
}

// Writes `text` to `path` through a temporary file and a rename, with the given mode; never
// overwrites.
void write_new_file(const std::string& path, const std::string& text, mode_t mode) {
  if (std::filesystem::exists(path)) throw UsageError("'" + path + "' already exists; not overwritten");
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wx");
  if (!f) throw UsageError("cannot create '" + tmp + "': " + std::strerror(errno));
  ::chmod(tmp.c_str(), mode);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0 && ::fsync(fileno(f)) == 0;
  std::fclose(f);
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw UsageError("cannot write '" + path + "'");
  }
}

gp::PartyKeys read_keys(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--keys: cannot open '" + path + "'");
  json j;
  try {
    in >> j;
  } catch (const json::exception&) {
    throw UsageError("--keys: '" + path + "' is not a JSON key file (make one with `gopa keys --out FILE`)");
  }
  gp::PartyKeys k;
  k.sign_seed = key_from_hex(j, "sign_seed", path);
  k.box_seed = key_from_hex(j, "box_seed", path);
  return k;
}

// One public key object per line (the .pub files of `gopa keys`, concatenated in party order).
std::vector<gp::RosterEntry> read_roster(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--roster: cannot open '" + path + "'");
  std::vector<gp::RosterEntry> roster;
  std::string line;
  std::size_t lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + " line " + std::to_string(lineno);
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception&) {
      throw UsageError("--roster: " + where + " is not a JSON object");
    }
    roster.push_back({key_from_hex(j, "sign_key", where), key_from_hex(j, "box_key", where)});
  }
  return roster;
}

std::unique_ptr<bb::HttpBoard> connect(const std::string& url, const std::string& board_key, const char* cmd) {
  const std::string vkey = resolve_vkey(board_key, "--board-key");
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    throw UsageError("--board: expected the URL of a served board (http://HOST:PORT), got '" + url + "'");
  }
  if (vkey.empty()) {
    throw UsageError("--board-key: the board's verifier key is required (printed by `gopa board serve` and `gopa board key`)");
  }
  bb::HttpBoardOptions opt;
  opt.url = url;
  opt.vkey = vkey;
  auto board = bb::HttpBoard::connect(opt);
  if (!board) {
    std::fprintf(stderr, "gopa %s: cannot reach the board at %s: %s\n", cmd, url.c_str(), board.error().message.c_str());
    return nullptr;
  }
  return std::move(board).value();
}

std::function<void(const std::string&)> stderr_log(std::string who) {
  return [who = std::move(who)](const std::string& line) { std::fprintf(stderr, "%s: %s\n", who.c_str(), line.c_str()); };
}

int run_keys(const std::string& out) {
  if (out.empty()) throw UsageError("--out: required");
  gp::PartyKeys k;
  randombytes_buf(k.sign_seed.data(), k.sign_seed.size());
  randombytes_buf(k.box_seed.data(), k.box_seed.size());
  const json pub = public_json(k.public_entry());
  json secret = pub;
  secret["sign_seed"] = to_hex(k.sign_seed);
  secret["box_seed"] = to_hex(k.box_seed);
  if (std::filesystem::exists(out + ".pub")) throw UsageError("'" + out + ".pub' already exists; not overwritten");
  std::string text = secret.dump(2) + "\n";
  write_new_file(out, text, 0600);
  sodium_memzero(text.data(), text.size());
  write_new_file(out + ".pub", pub.dump() + "\n", 0644);
  sodium_memzero(k.sign_seed.data(), k.sign_seed.size());
  sodium_memzero(k.box_seed.data(), k.box_seed.size());
  std::printf("%s\n", pub.dump().c_str());
  return kExitOk;
}

struct CoordinateArgs : SessionArgs {
  std::string board, board_key, roster;
  std::string keys;            // the coordinator's key file (gopa keys); default: a fresh key
  std::uint32_t chain_rounds = 0;
  std::string chain_base;      // hex id (or unique prefix) of the chain's base
  std::optional<std::uint32_t> chain_index;
  unsigned threads = 0;
  bool json_out = false;
  bool progress = false;  // round lines on stderr even with --json
};

int run_coordinate(const CoordinateArgs& args) {
  CoordinateArgs a = args;
  gp::set_verify_threads(a.threads);
  check_session_options(a);
  (void)resolve_vkey(a.board_key, "--board-key");  // a bad key is refused before the roster is read
  const auto roster = read_roster(a.roster);
  if (a.parties_set && roster.size() != a.parties) {
    throw UsageError("--roster: " + std::to_string(roster.size()) + " parties listed but --parties is " +
                     std::to_string(a.parties));
  }
  if (roster.size() < 2 || roster.size() > gp::SessionParams::kMaxParties) {
    throw UsageError("--roster: " + std::to_string(roster.size()) + " parties listed; a session has 2.." +
                     std::to_string(gp::SessionParams::kMaxParties));
  }
  a.parties = static_cast<std::uint32_t>(roster.size());
  // A chain (docs/protocol.md § Chains of sessions): a base of --chain-rounds sessions, or session
  // --chain-index of the chain whose base is --chain-base; one coordinator key (--keys) for all.
  const bool later = !a.chain_base.empty();
  if (a.chain_index.has_value() != later) {
    throw UsageError(later ? "--chain-base: give the session's --chain-index too" : "--chain-index: give the chain's --chain-base too");
  }
  if (later && a.chain_rounds != 0) throw UsageError("--chain-rounds: a later session of a chain takes the base's");
  if (a.chain_rounds == 1 || a.chain_rounds > gp::SessionParams::kMaxChainRounds) {
    throw UsageError("--chain-rounds: must be in 2.." + std::to_string(gp::SessionParams::kMaxChainRounds));
  }
  if ((later || a.chain_rounds != 0) && a.keys.empty()) {
    throw UsageError("--keys: a chain's sessions are set up under one coordinator key; give its key file (gopa keys)");
  }
  PlannedSession planned = plan_session(a);
  auto board = connect(a.board, a.board_key, "coordinate");
  if (!board) return kExitIo;
  if (a.chain_rounds != 0) planned.params.chain_rounds = a.chain_rounds;
  if (later) {
    auto base = session_by_prefix(*board, a.chain_base, "--chain-base");
    if (!base) {
      std::fprintf(stderr, "gopa coordinate: cannot read the board: %s\n", base.error().message.c_str());
      return kExitIo;
    }
    auto bp = gp::session_params(*board, base.value());
    if (!bp) throw UsageError("--chain-base " + a.chain_base + ": " + bp.error().message);
    if (!bp.value().chained() || bp.value().linked()) {
      throw UsageError("--chain-base " + a.chain_base + ": that session is not the base of a chain (gopa coordinate --chain-rounds T)");
    }
    if (*a.chain_index < 1 || *a.chain_index >= bp.value().chain_rounds) {
      throw UsageError("--chain-index: must be in 1.." + std::to_string(bp.value().chain_rounds - 1) + " for that chain");
    }
    planned.params.chain_rounds = bp.value().chain_rounds;
    planned.params.chain_index = *a.chain_index;
    planned.params.chain_base = base.value();
  }
  const gp::SessionParams& p = planned.params;
  const std::string& privacy = planned.privacy;
  gp::CoordinatorOptions o;
  o.params = p;
  o.roster = roster;
  if (!a.keys.empty()) {
    gp::PartyKeys k = read_keys(a.keys);
    o.sign_seed = k.sign_seed;
    sodium_memzero(k.sign_seed.data(), k.sign_seed.size());
    sodium_memzero(k.box_seed.data(), k.box_seed.size());
  } else {
    randombytes_buf(o.sign_seed.data(), o.sign_seed.size());
  }
  if (!a.json_out || a.progress) o.log = stderr_log("coordinator");
  auto r = gp::run_coordinator(o, *board);
  sodium_memzero(o.sign_seed.data(), o.sign_seed.size());
  if (!r) {
    std::fprintf(stderr, "gopa coordinate: %s\n", r.error().message.c_str());
    return r.error().code == bb::Errc::invalid_argument ? kExitUsage : kExitIo;
  }
  const gp::RunReport& rep = r.value();
  if (a.json_out) {
    json j = json_report("coordinate");
    j["session_id"] = to_hex(rep.session_id);
    j["board"] = a.board;
    put_params(j, p);
    j["privacy"] = privacy;
    j["privacy_claim"] = certificate_json(planned.certificate);
    j["estimate"] = rep.estimate;
    j["counted"] = rep.counted.size();
    if (!rep.withheld.empty()) j["withheld"] = rep.withheld;
    put_blamed(j, "excluded", rep.excluded);
    put_blamed(j, "named", rep.named);  // misbehaved without being excluded for it
    j["proof_bytes_per_party"] = rep.proof_bytes_per_party;
    for (const auto& ph : rep.phases) j["seconds"][ph.name] = ph.seconds;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("session %s\nprivacy: %s\n", to_hex(rep.session_id).substr(0, 16).c_str(), privacy.c_str());
    for (std::size_t j = 0; j < rep.estimate.size() && j < 8; ++j) std::printf("estimate[%zu] = %.6f\n", j, rep.estimate[j]);
    if (rep.estimate.size() > 8) std::printf("… (first 8 of %zu shown; --json for all)\n", rep.estimate.size());
    if (!rep.withheld.empty()) std::printf("no result: %s\n", rep.withheld.c_str());
    std::printf("counted %zu/%u parties\n", rep.counted.size(), a.parties);
    for (const auto& [u, why] : rep.excluded) std::printf("  party %u excluded: %s\n", u, why.text().c_str());
  }
  return anyone_misbehaved(rep.excluded) || !rep.withheld.empty() ? kExitMisbehaved : kExitOk;
}

struct PartyArgs {
  std::string board, board_key, keys, input;
  std::uint32_t id = 0;
  gp::PrivacyRequirement requirement;
  bool json_out = false;
  bool progress = false;  // round lines on stderr even with --json
  std::optional<std::uint64_t> adversary;  // test only: a randomized malicious party
  std::string cheat;                       // test only: a cheater of this kind (gopa run --cheat)
  std::string session;                     // hex id of the session to join (empty: the only open one)
  std::uint64_t wait_ms = 0;               // how long to wait for the session (0: forever)
  unsigned threads = 0;                    // 0: every core
};

int run_party_cmd(const PartyArgs& a) {
  gp::PartyOptions o;
  o.threads = a.threads;
  gp::set_verify_threads(a.threads);
  // --session: the whole id (64 hex digits; the party may start before it is posted), or a
  // prefix of it such as the 16 digits gopa coordinate prints (resolved once the board holds it).
  std::string session_prefix;
  if (!a.session.empty()) {
    if (a.session.size() > 64 || a.session.size() < 8 ||
        a.session.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      throw UsageError("--session: expected the session id, or a prefix of at least 8 of its 64 hex digits");
    }
    if (a.session.size() == 64) {
      auto id = from_hex(a.session);
      if (!id || id->size() != 32) throw UsageError("--session: expected the session id, 64 hex digits");
      Bytes32 sid{};
      std::copy(id->begin(), id->end(), sid.begin());
      o.session = sid;
    } else {
      session_prefix = a.session;
      for (char& ch : session_prefix) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
  }
  o.wait_ms = a.wait_ms;
  o.index = a.id;
  if (auto why = a.requirement.validate()) throw UsageError("--" + *why);
  o.requirement = a.requirement;
  o.keys = read_keys(a.keys);
  {
    std::stringstream ss(a.input);
    std::string cell;
    while (std::getline(ss, cell, ',')) {
      try {
        std::size_t used = 0;
        o.input.push_back(std::stod(cell, &used));
        if (cell.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument(cell);
      } catch (const std::exception&) {
        throw UsageError("--input: '" + cell + "' is not a number");
      }
    }
    if (o.input.empty()) throw UsageError("--input: give the party's value(s), comma-separated");
  }
  if (!a.cheat.empty()) {
    const auto kind = gp::cheat_from_name(a.cheat);
    if (!kind) {
      throw UsageError("--cheat: '" + a.cheat + "' is not a cheat a party process plays (range, forge, seed, cancel, noise, "
                       "output, signature, replay, missing, withhold, committee)");
    }
    o.cheat = kind;
  }
  auto board = connect(a.board, a.board_key, "party");
  if (!board) return kExitIo;
  if (!session_prefix.empty()) {
    // Waits (up to --wait-ms) for a session with that prefix, as for a whole id.
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      auto found = sessions_with_prefix(*board, session_prefix);
      if (!found) {
        std::fprintf(stderr, "gopa party: %s\n", found.error().message.c_str());
        return kExitIo;
      }
      const std::vector<Bytes32>& matches = found.value();
      if (matches.size() > 1) throw UsageError("--session " + a.session + ": more than one session on the board starts so");
      if (matches.size() == 1) {
        o.session = matches.front();
        break;
      }
      const auto waited = std::chrono::steady_clock::now() - start;
      if (a.wait_ms != 0 && waited >= std::chrono::milliseconds(a.wait_ms)) {
        std::fprintf(stderr, "gopa party: no session starting with %s appeared on the board within %llu ms\n",
                     a.session.c_str(), static_cast<unsigned long long>(a.wait_ms));
        return kExitIo;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  if (!a.json_out || a.progress) o.log = stderr_log("party " + std::to_string(a.id));
  std::optional<gp::Certificate> accepted;
  o.accepted = [&accepted](const gp::Certificate& c) { accepted = c; };
  std::shared_ptr<gp::RandomAdversary> adv;
  if (a.adversary) {
    adv = std::make_shared<gp::RandomAdversary>(*a.adversary);
    o.deviate = [adv](const bb::Entry& e) { return (*adv)(e); };
  }
  auto r = gp::run_party(o, *board);
  if (adv) {
    // After its run: what it kept back and a few of its entries again, under random rounds.
    std::uint64_t seq = std::uint64_t{1} << 40;
    for (auto& e : adv->leftovers(4)) (void)board->append(gp::sign_as(o.keys, std::move(e), seq++));
  }
  sodium_memzero(o.keys.sign_seed.data(), o.keys.sign_seed.size());
  sodium_memzero(o.keys.box_seed.data(), o.keys.box_seed.size());
  if (!r) {
    std::fprintf(stderr, "gopa party: %s\n", r.error().message.c_str());
    // A restart with another input than the one already committed is refused like bad input.
    const bool refused = r.error().code == bb::Errc::invalid_argument || r.error().code == bb::Errc::equivocation;
    return refused ? kExitUsage : kExitIo;
  }
  const gp::PartyOutcome& out = r.value();
  if (a.json_out) {
    json j = json_report("party");
    j["session_id"] = to_hex(out.session_id);
    j["board"] = a.board;
    j["id"] = a.id;
    j["estimate"] = out.estimate;
    j["counted"] = out.counted.size();
    j["counted_me"] = out.counted_me;
    put_blamed(j, "excluded", out.excluded);
    put_blamed(j, "named", out.named);
    if (!out.coordinator_problem.empty()) j["coordinator_problem"] = out.coordinator_problem;
    if (!out.withheld.empty()) j["withheld"] = out.withheld;
    if (!out.stopped.empty()) j["stopped"] = out.stopped;
    if (accepted) {
      j["privacy"] = privacy_sentence(*accepted);
      j["privacy_claim"] = certificate_json(*accepted);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    if (accepted) std::printf("privacy: %s\n", privacy_sentence(*accepted).c_str());
    for (std::size_t j = 0; j < out.estimate.size() && j < 8; ++j) std::printf("estimate[%zu] = %.6f\n", j, out.estimate[j]);
    if (out.estimate.size() > 8) std::printf("… (first 8 of %zu shown; --json for all)\n", out.estimate.size());
    if (!out.stopped.empty()) {
      std::printf("stopped: %s\n", out.stopped.c_str());
    } else if (!out.withheld.empty()) {
      std::printf("no result: %s\n", out.withheld.c_str());
    } else {
      std::printf("counted %zu parties%s\n", out.counted.size(), out.counted_me ? " (this party included)" : " (this party excluded)");
    }
  }
  if (!out.coordinator_problem.empty()) {
    std::fprintf(stderr, "gopa party: %s\n", out.coordinator_problem.c_str());
    return kExitLogMisbehaved;
  }
  return out.counted_me ? kExitOk : kExitMisbehaved;
}

}  // namespace

void add_party_commands(CLI::App& app, Context& ctx) {
  auto out = std::make_shared<std::string>();
  CLI::App* keys = app.add_subcommand(
      "keys", "Make a party's key pair: FILE (secret seeds, mode 0600) and FILE.pub (public keys, one JSON line;\n"
              "concatenate the .pub files in party order to make the roster of `gopa coordinate`).");
  keys->add_option("--out", *out, "secret key file to create")->required();
  keys->callback([&ctx, out] { ctx.run = [out] { return guarded("keys", [&] { return run_keys(*out); }); }; });

  auto c = std::make_shared<CoordinateArgs>();
  CLI::App* coord = app.add_subcommand(
      "coordinate",
      "Start a GOPA session on a served board and coordinate it: post the parameters and the roster,\n"
      "close each round when every party has finished it (or after --round-timeout-ms), and release\n"
      "the result. Parties run `gopa party` against the same board. Exit: 0 everyone counted,\n"
      "1 some party was excluded (named), 3 bad input, 4 I/O error.");
  add_session_options(coord, *c);
  coord->add_option("--board", c->board, "URL of the board (gopa board serve); default $GOPA_BOARD")
      ->envname("GOPA_BOARD")
      ->required();
  coord->add_option("--board-key", c->board_key, "the board's verifier key (vkey), or @FILE to read it from FILE; default $GOPA_BOARD_KEY")
      ->envname("GOPA_BOARD_KEY")
      ->required();
  coord->add_option("--roster", c->roster,
                    "file with one public-key JSON line per party (the .pub files of `gopa keys`); it fixes --parties")
      ->required();
  coord->get_option("--noise")->description(
      "private: every party samples and proves its own noise (default); hidden: a committee drawn from the joint "
      "randomness computes one hidden sample per coordinate, each member in its own gopa party process (round 11; "
      "the round may take --round-timeout-ms for each call and restart)");
  coord->add_option("--round-timeout-ms", c->round_timeout_ms, "close a round after this long even if parties are missing (default 60000)")
      ->check(CLI::Range(100u, 86'400'000u));
  coord->add_option("--min-round-ms", c->min_round_ms,
                    "the least time a round stays open while a party that finished the previous round is missing "
                    "(default min(5000, --round-timeout-ms)); parties refuse a round closed sooner")
      ->check(CLI::Range(1u, 3'600'000u));
  coord->add_option("--keys", c->keys,
                    "the coordinator's key file (gopa keys --out FILE) to sign the session with (default: a fresh key); "
                    "a chain's sessions need one key");
  coord->add_option("--chain-rounds", c->chain_rounds,
                    "start a chain of T sessions (2..65536) over this session's graph and sealed pairwise seeds; the "
                    "later ones reuse them with their index (docs/protocol.md § Chains of sessions)");
  coord->add_option("--chain-base", c->chain_base,
                    "continue the chain whose base session has this id (hex; a unique prefix will do): no seed exchange");
  coord->add_option("--chain-index", c->chain_index, "with --chain-base: this session's index in the chain, 1..T−1 (each used once)");
  coord->add_option("--seed", c->seed, "seed of the planner's sampled graphs (default 1)");
  coord->add_option("--threads", c->threads, "threads for checking the parties' proofs (default 0: every core)");
  coord->add_flag("--json", c->json_out, "machine-readable output (docs/cli-json.md); stderr stays quiet");
  coord->add_flag("--progress", c->progress, "a line per round on stderr with --json too (without --json: on by default)");
  coord->callback([&ctx, c] { ctx.run = [c] { return guarded("coordinate", [&] { return run_coordinate(*c); }); }; });

  auto p = std::make_shared<PartyArgs>();
  CLI::App* party = app.add_subcommand(
      "party",
      "Run one GOPA party against a served board: waits for the session, checks with the exact accountant\n"
      "that its parameters meet this party's (ε, δ) at its honest fraction (otherwise refuses, posting\n"
      "nothing, and says why), then plays every round (commitments, proofs, pairwise seeds, masked value)\n"
      "and prints the released average.\n"
      "Restarts: a party process that stops (killed, crashed, the machine restarted) is started again with\n"
      "the same command (same --keys, --id and --input; --session if the session may be over by then, or\n"
      "if the board holds several open sessions with these keys): it reads its own entries back from the board, re-derives every secret from the key\n"
      "file, the board and the session (nothing is kept elsewhere), posts only what it still owes, and\n"
      "refuses (exit 3) to post anything that differs from an entry it already posted, e.g. another input\n"
      "after its commitments. A round that closed while it was away may exclude it, as for a late party.\n"
      "Exit: 0 counted, 1 this party was excluded, 2 the coordinator misbehaved (its result is not the\n"
      "recomputation, or a round was closed out of order; the recomputation is printed), 3 bad input or\n"
      "parameters refused, 4 I/O error or timeout.");
  party->add_option("--board", p->board, "URL of the board (gopa board serve); default $GOPA_BOARD")
      ->envname("GOPA_BOARD")
      ->required();
  party->add_option("--board-key", p->board_key, "the board's verifier key (vkey), or @FILE to read it from FILE; default $GOPA_BOARD_KEY")
      ->envname("GOPA_BOARD_KEY")
      ->required();
  party->add_option("--id", p->id, "this party's index in the roster (0-based)")->required();
  party->add_option("--keys", p->keys, "secret key file from `gopa keys`")->required();
  party->add_option("--input", p->input, "the private value(s), comma-separated: each in [0, M] (box), or signed with L2 norm at most the radius C "
                    "(l2-ball); the session's --input-max is M or C")->required();
  party->add_option("--epsilon", p->requirement.epsilon,
                    "refuse a session whose parameters do not certify this ε for this party's whole input (default 1)");
  party->add_option("--delta", p->requirement.delta,
                    "... and this δ, graph failure included (default 1e-5)");
  party->add_option("--honest-fraction", p->requirement.honest_fraction,
                    "... against ⌊(1 − ρ)n⌋ colluders: the honest fraction ρ this party assumes (default 0.5)");
  party->add_option("--session", p->session,
                    "the session to join, by its id (64 hex digits) or a prefix of at least 8 digits, such as the 16 "
                    "that gopa coordinate prints; default: the only well-formed session on the board that is not over "
                    "and holds this party's keys");
  party->add_option("--wait-ms", p->wait_ms, "give up when no such session appears within this long (default 0: wait)");
  party->add_option("--threads", p->threads,
                    "threads for this party's proofs (their blocks are proven in parallel) and its checks of the others' "
                    "(default 0: every core; the proofs do not depend on it)");
  party->add_flag("--json", p->json_out, "machine-readable output (docs/cli-json.md); stderr stays quiet");
  party->add_flag("--progress", p->progress, "a line per round on stderr with --json too (without --json: on by default)");
  // Test only, hidden from --help: this process plays a randomized malicious party
  // (gopa/protocol/adversary.hpp) among honest ones.
  party->add_option("--adversary", p->adversary, "TEST ONLY: deviate at random from this seed")->group("");
  // Test only, hidden from --help: this process cheats as `gopa run --cheat KIND` cheaters do.
  party->add_option("--cheat", p->cheat, "TEST ONLY: deviate as a cheater of this kind")->group("");
  party->callback([&ctx, p] { ctx.run = [p] { return guarded("party", [&] { return run_party_cmd(*p); }); }; });
}

}  // namespace gopa::cli
