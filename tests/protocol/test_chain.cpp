// Chains of sessions (docs/protocol.md § Chains of sessions): one graph and one exchange of
// sealed pairwise seeds serve T sessions, session t deriving its pairwise terms from the edge's
// round key t. The round keys and their commitment, the parameters' encoding, whole chains of
// party processes (threads over one board), a drop-out whose edges' round keys are revealed
// without exposing any other round, a party that plays the seed exchange's messages again in a
// later session, and the chains readers refuse.
#include <catch2/catch.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/bulletin/note.hpp"
#include "gopa/protocol/edges.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/run.hpp"
#include "processes.hpp"

using namespace gopa;
using namespace gopa::protocol;
using bulletin::Entry;
using bulletin::MessageType;

namespace {

Seed32 seed_of(std::uint8_t b) {
  Seed32 s{};
  s.fill(b);
  return s;
}

TEST_CASE("Round keys: each opens only its own round under the base's root", "[protocol][chain]") {
  const Seed32 seed = seed_of(7);
  const Bytes32 base = seed_of(9);
  for (std::uint32_t rounds : {1u, 2u, 3u, 5u, 8u, 13u}) {
    const Bytes32 root = edge_key_root(seed, base, 2, 5, rounds);
    for (std::uint32_t t = 0; t < rounds; ++t) {
      INFO("rounds " << rounds << ", round " << t);
      const Bytes32 key = edge_round_key(seed, base, 2, 5, t);
      const std::vector<Bytes32> path = edge_key_path(seed, base, 2, 5, rounds, t);
      CHECK(edge_key_opens(root, rounds, t, key, path));
      // Not at another index, nor under another length, nor with the path cut or extended.
      for (std::uint32_t other = 0; other < rounds; ++other) {
        if (other != t) CHECK_FALSE(edge_key_opens(root, rounds, other, key, path));
      }
      CHECK_FALSE(edge_key_opens(root, rounds, rounds, key, path));
      if (!path.empty()) {
        CHECK_FALSE(edge_key_opens(root, rounds, t, key, std::span(path).first(path.size() - 1)));
        std::vector<Bytes32> bent = path;
        bent.back()[0] ^= 1;
        CHECK_FALSE(edge_key_opens(root, rounds, t, key, bent));
      }
      std::vector<Bytes32> longer = path;
      longer.push_back(key);
      CHECK_FALSE(edge_key_opens(root, rounds, t, key, longer));
      Bytes32 flipped = key;
      flipped[31] ^= 0x80;
      CHECK_FALSE(edge_key_opens(root, rounds, t, flipped, path));
      // The round key is bound to the seed, the base, the edge and the round.
      CHECK(key != edge_round_key(seed_of(8), base, 2, 5, t));
      CHECK(key != edge_round_key(seed, seed_of(10), 2, 5, t));
      CHECK(key != edge_round_key(seed, base, 2, 6, t));
      CHECK(key != edge_round_key(seed, base, 2, 5, t + 1));
      CHECK(key != seed);
    }
  }
  // A one-leaf tree's root is the leaf hash (RFC 6962) and its path is empty.
  CHECK(edge_key_path(seed, base, 2, 5, 1, 0).empty());
  CHECK(edge_key_root(seed, base, 2, 5, 3) != edge_key_root(seed, base, 2, 5, 4));
}

TEST_CASE("Chain parameters: version 6, strict and canonical", "[protocol][chain]") {
  SessionParams p = SessionParams::defaults(6, 2);
  REQUIRE(p.encode().size() == SessionParams::kEncodedBytes);  // outside a chain: version 5, unchanged
  p.chain_rounds = 4;
  const Bytes base = p.encode();
  REQUIRE(base.size() == SessionParams::kChainEncodedBytes);
  CHECK(base[0] == SessionParams::kChainVersion);
  auto back = SessionParams::decode(base);
  REQUIRE(back);
  CHECK(*back == p);
  CHECK(back->session_id() == p.session_id());

  SessionParams later = p;
  later.chain_index = 3;
  later.chain_base = p.session_id();
  auto later_back = SessionParams::decode(later.encode());
  REQUIRE(later_back);
  CHECK(*later_back == later);

  std::string why;
  SessionParams bad = later;
  bad.chain_index = 4;  // past the chain's end
  CHECK(bad.validate());
  bad = later;
  bad.chain_base = {};  // a later session names its base
  CHECK(bad.validate());
  bad = p;
  bad.chain_base[0] = 1;  // a base names none
  CHECK(bad.validate());
  bad = p;
  bad.chain_rounds = SessionParams::kMaxChainRounds + 1;
  CHECK(bad.validate());
  // Version 6 with one round is not canonical (a session outside any chain is version 5).
  Bytes one = later.encode();
  one[SessionParams::kEncodedBytes + 3] = 1;  // chain_rounds = 1 (BE)
  one[SessionParams::kEncodedBytes + 7] = 0;  // chain_index = 0
  std::fill(one.begin() + SessionParams::kEncodedBytes + 8, one.end(), 0);
  CHECK_FALSE(SessionParams::decode(one, &why));
  // Every truncation and one byte more are refused.
  for (std::size_t cut = 0; cut < base.size(); ++cut) CHECK_FALSE(SessionParams::decode(std::span(base).first(cut)));
  Bytes longer = base;
  longer.push_back(0);
  CHECK_FALSE(SessionParams::decode(longer));
}

TEST_CASE("Key reveals: encoding, strict decoding", "[protocol][chain]") {
  const Seed32 seed = seed_of(3);
  const Bytes32 base = seed_of(4);
  ComplaintMessage m{ComplaintKind::key_reveal, 1, 4, edge_round_key(seed, base, 1, 4, 2), edge_key_path(seed, base, 1, 4, 5, 2)};
  const Bytes enc = m.encode();
  CHECK(enc.size() == 1 + 1 + 4 + 4 + 32 + 1 + 32 * m.path.size());
  auto back = ComplaintMessage::decode(enc);
  REQUIRE(back);
  CHECK(back->kind == ComplaintKind::key_reveal);
  CHECK(back->seed == m.seed);
  CHECK(back->path == m.path);
  for (std::size_t cut = 0; cut < enc.size(); ++cut) CHECK_FALSE(ComplaintMessage::decode(std::span(enc).first(cut)));
  Bytes longer = enc;
  longer.push_back(0);
  CHECK_FALSE(ComplaintMessage::decode(longer));
  ComplaintMessage deep = m;
  deep.path.assign(17, seed);
  std::string why;
  CHECK_FALSE(ComplaintMessage::decode(deep.encode(), &why));
  CHECK(why.find("16") != std::string::npos);
}

// ---- Whole chains: a coordinator and party processes (threads) over one board.

using processes::Deviate;
using processes::Outcome;
using processes::Setup;

// n parties, the base of a chain of `rounds` sessions.
Setup make_setup(std::uint32_t n, std::uint32_t rounds) {
  Setup s = processes::make_setup(n, 4242);
  s.p.chain_rounds = rounds;
  return s;
}

// Session t of the chain whose base is `base` (t = 0: the base).
SessionParams chain_params(const Setup& s, std::uint32_t t, const Bytes32& base) {
  SessionParams p = s.p;
  p.chain_index = t;
  if (t > 0) p.chain_base = base;
  p.nonce[0] = static_cast<std::uint8_t>(t + 1);
  return p;
}

Outcome run(bulletin::Board& board, const Setup& s, const SessionParams& p, const std::map<std::uint32_t, Deviate>& deviating = {}) {
  return processes::run_on(board, s, p, deviating);
}

// The promises of test_adversary (nobody outside `bad` excluded or named, every reader agrees,
// the result is the recomputation, no honest input exposed), a released result over `counted`
// parties, and every audit check passed when nobody deviated.
void check(const Setup& s, const Outcome& o, const std::set<std::uint32_t>& bad, std::size_t counted) {
  processes::check_promises(s, bad, o);
  REQUIRE(o.coordinated->ok());
  CHECK(o.coordinated->value().withheld.empty());
  CHECK(o.coordinated->value().counted.size() == counted);
  CHECK(o.audit.exposed.empty());
  if (bad.empty()) CHECK(o.audit.all_passed());
}

// The entries of one session on the board.
std::vector<Entry> entries_of(bulletin::Board& board, const Bytes32& sid) {
  const auto size = bulletin::open_checkpoint(board.checkpoint().value(), board.verifier()).value().size;
  auto all = board.read(0, size).value();
  std::vector<Entry> out;
  for (const auto& raw : all) {
    auto e = bulletin::decode_entry(raw);
    if (e && e.value().session_id == sid) out.push_back(e.value());
  }
  return out;
}

// Opens the base's sealed seed of edge {lo, hi} with lo's box key.
Seed32 base_seed(bulletin::Board& board, const Setup& s, const Bytes32& base, std::uint32_t lo, std::uint32_t hi) {
  for (const Entry& e : entries_of(board, base)) {
    if (e.type != MessageType::edge_seed) continue;
    auto m = EdgeSeedMessage::decode(e.payload);
    if (!m || m->lo != lo || m->hi != hi) continue;
    auto seed = open_edge_seed(m->sealed, base, lo, hi, BoxKey::from_seed(s.keys[lo].box_seed), s.roster[hi].box_key);
    REQUIRE(seed);
    return *seed;
  }
  FAIL("no sealed seed for the edge");
  return {};
}

}  // namespace

TEST_CASE("A chain of three sessions runs on one seed exchange", "[protocol][chain]") {
  const Setup s = make_setup(6, 3);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const SessionParams p0 = chain_params(s, 0, {});
  const Bytes32 base = p0.session_id();
  const Outcome o0 = run(*board, s, p0);
  check(s, o0, {}, 6);
  std::size_t seed_entries = 0;
  for (const Entry& e : entries_of(*board, base)) seed_entries += e.type == MessageType::edge_seed;
  CHECK(seed_entries > 0);
  const double mean = 27.5;  // inputs 10, 17, …, 45
  for (double x : o0.coordinated->value().estimate) CHECK(std::abs(x - mean) < 1.0);

  std::vector<Bytes> commitments;  // party 0's commitment message in each later session
  for (std::uint32_t t = 1; t < 3; ++t) {
    INFO("chain session " << t);
    const SessionParams p = chain_params(s, t, base);
    const Outcome o = run(*board, s, p);
    check(s, o, {}, 6);
    for (double x : o.coordinated->value().estimate) CHECK(std::abs(x - mean) < 1.0);
    // No seed exchange: nobody posts in rounds 4 and 5, and the audit takes the base's graph.
    for (const Entry& e : entries_of(*board, p.session_id())) {
      CHECK(e.round != kRoundEdgeSeed);
      CHECK(e.round != kRoundBoxComplaint);
      if (e.type == MessageType::commitment && e.sender == s.roster[0].sign_key) commitments.push_back(e.payload);
    }
  }
  // Fresh pairwise terms every session (the round keys differ), not the base's again.
  REQUIRE(commitments.size() == 2);
  CHECK(commitments[0] != commitments[1]);
}

TEST_CASE("A drop-out in a chain: its edges' round keys are revealed, no other round's, and it comes back",
          "[protocol][chain]") {
  const Setup s = make_setup(6, 3);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const SessionParams p0 = chain_params(s, 0, {});
  const Bytes32 base = p0.session_id();
  check(s, run(*board, s, p0), {}, 6);

  // Session 1: party 3 posts nothing from its commitments on (a drop-out).
  const std::uint32_t gone = 3;
  const SessionParams p1 = chain_params(s, 1, base);
  const Outcome o1 = run(*board, s, p1, {{gone, [](const Entry& e) {
                                            return e.round >= kRoundCommit && e.round <= kRoundResult ? std::vector<Entry>{}
                                                                                                     : std::vector<Entry>{e};
                                          }}});
  check(s, o1, {gone}, 5);
  REQUIRE(o1.coordinated->value().excluded.count(gone) == 1);
  CHECK(o1.coordinated->value().excluded.at(gone).offence == Offence::dropout);
  // Its neighbours revealed session 1's round keys of their edges with it: each opens under the
  // base's root at index 1 only, and is neither the seed nor the key of round 0 or 2.
  std::size_t reveals = 0;
  for (const Entry& e : entries_of(*board, p1.session_id())) {
    if (e.type != MessageType::complaint) continue;
    auto c = ComplaintMessage::decode(e.payload);
    REQUIRE(c);
    REQUIRE(c->kind == ComplaintKind::key_reveal);
    CHECK((c->lo == gone || c->hi == gone));
    const Seed32 seed = base_seed(*board, s, base, c->lo, c->hi);
    CHECK(c->seed == edge_round_key(seed, base, c->lo, c->hi, 1));
    const Bytes32 root = edge_key_root(seed, base, c->lo, c->hi, 3);
    CHECK(edge_key_opens(root, 3, 1, c->seed, c->path));
    CHECK_FALSE(edge_key_opens(root, 3, 0, c->seed, c->path));
    CHECK_FALSE(edge_key_opens(root, 3, 2, c->seed, c->path));
    CHECK(c->seed != seed);
    CHECK(c->seed != edge_round_key(seed, base, c->lo, c->hi, 0));
    CHECK(c->seed != edge_round_key(seed, base, c->lo, c->hi, 2));
    ++reveals;
  }
  CHECK(reveals >= 2);  // k = 2: at least its own two picks
  // The base session still exposes nobody (its audit, with the later reveals on the board).
  const AuditReport a0 = audit_session(*board, base);
  CHECK(a0.all_passed());
  CHECK(a0.exposed.empty());

  // Session 2: the drop-out is back and counted; its edges were not used up.
  check(s, run(*board, s, chain_params(s, 2, base)), {}, 6);
}

TEST_CASE("A party that replays the seed exchange, or reveals the wrong secret, in a chain's later session blames only itself",
          "[protocol][chain][adversary]") {
  const Setup s = make_setup(6, 3);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const SessionParams p0 = chain_params(s, 0, {});
  const Bytes32 base = p0.session_id();
  check(s, run(*board, s, p0), {}, 6);
  // The base's sealed seeds of party `bad` (as lo), to replay and to reveal.
  const std::uint32_t bad = 1;
  std::vector<Entry> sealed;
  for (const Entry& e : entries_of(*board, base)) {
    if (e.type == MessageType::edge_seed && e.sender == s.roster[bad].sign_key) sealed.push_back(e);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (const Entry& e : sealed) {
    auto m = EdgeSeedMessage::decode(e.payload);
    REQUIRE(m);
    edges.emplace_back(m->lo, m->hi);
  }
  const SessionParams p1 = chain_params(s, 1, base);
  const Bytes32 sid = p1.session_id();

  SECTION("the base's sealed seeds and bad-box complaints posted again in session 1") {
    const Outcome o = run(*board, s, p1, {{bad, [&](const Entry& e) {
                                             std::vector<Entry> out{e};
                                             if (e.type != MessageType::noise_seed_reveal) return out;
                                             for (Entry x : sealed) {  // after the reveal: rounds 4 and 5 are "next"
                                               x.session_id = sid;
                                               out.push_back(x);
                                             }
                                             for (std::uint32_t w = 0; w < s.p.parties; ++w) {
                                               if (w == bad) continue;
                                               Entry c = e;
                                               c.round = kRoundBoxComplaint;
                                               c.type = MessageType::complaint;
                                               c.payload = ComplaintMessage{ComplaintKind::bad_box, std::min(w, bad), std::max(w, bad), {}, {}}.encode();
                                               out.push_back(c);
                                             }
                                             return out;
                                           }}});
    // Nothing is dropped: every edge stays and everyone is counted; `bad` is named for entries
    // outside the session's rounds.
    check(s, o, {bad}, 6);
    REQUIRE(o.audit.named.count(bad) == 1);
    CHECK(o.audit.named.at(bad).offence == Offence::misplaced);
  }
  SECTION("in round 7, the raw seed, or the round key of another session") {
    REQUIRE(!edges.empty());
    const auto [lo, hi] = edges.front();
    const Seed32 seed = base_seed(*board, s, base, lo, hi);
    const bool raw = GENERATE(true, false);
    INFO((raw ? "raw seed" : "round key of session 2"));
    const ComplaintMessage c = raw ? ComplaintMessage{ComplaintKind::seed_reveal, lo, hi, seed, {}}
                                   : ComplaintMessage{ComplaintKind::key_reveal, lo, hi, edge_round_key(seed, base, lo, hi, 2),
                                                      edge_key_path(seed, base, lo, hi, 3, 2)};
    const Outcome o = run(*board, s, p1, {{bad, [&](const Entry& e) {
                                             std::vector<Entry> out{e};
                                             if (e.type != MessageType::commitment) return out;
                                             Entry x = e;
                                             x.round = kRoundCancelComplaint;
                                             x.type = MessageType::complaint;
                                             x.payload = c.encode();
                                             out.push_back(x);
                                             return out;
                                           }}});
    // A reveal that does not open session 1's key is false: its sender is excluded for it, and
    // its neighbours' recovery reveals their keys of session 1 only.
    check(s, o, {bad}, 5);
    REQUIRE(o.coordinated->value().excluded.count(bad) == 1);
    CHECK(o.coordinated->value().excluded.at(bad).offence == Offence::false_seed);
  }
}

TEST_CASE("Readers refuse a chain session without its base, with another roster, or twice at one index",
          "[protocol][chain]") {
  const Setup s = make_setup(4, 3);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const SessionParams p0 = chain_params(s, 0, {});
  const Bytes32 base = p0.session_id();
  auto refused = [&](const SessionParams& p, const std::vector<RosterEntry>& roster, const std::string& what) {
    CoordinatorOptions co;
    co.params = p;
    co.roster = roster;
    co.sign_seed[0] = 0xc7;
    co.poll_ms = 5;
    auto r = run_coordinator(co, *board);
    INFO((r.ok() ? std::string("accepted") : r.error().message));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find(what) != std::string::npos);
    const AuditReport a = audit_session(*board, p.session_id());
    CHECK_FALSE(a.all_passed());
  };
  // The base is not on the board yet.
  SessionParams early = chain_params(s, 1, base);
  early.nonce[3] = 7;
  refused(early, s.roster, "base session is not on the board");
  check(s, run(*board, s, p0), {}, 4);
  // Another roster than the base's.
  std::vector<RosterEntry> other = s.roster;
  std::swap(other[0], other[1]);
  SessionParams p = chain_params(s, 1, base);
  p.nonce[1] = 1;
  refused(p, other, "another roster");
  // Another chain length than the base's.
  p = chain_params(s, 1, base);
  p.chain_rounds = 4;
  refused(p, s.roster, "not the base of a chain of 4");
  // Index 1 once, then again.
  check(s, run(*board, s, chain_params(s, 1, base)), {}, 4);
  p = chain_params(s, 1, base);
  p.nonce[2] = 9;
  refused(p, s.roster, "has this index");
}

TEST_CASE("A chain in one process (run_session), private and hidden noise: fresh randomness, one roster", "[protocol][chain][hidden]") {
  const bool hidden = GENERATE(false, true);
  INFO((hidden ? "hidden noise" : "private noise"));
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  RunConfig cfg;
  cfg.params = SessionParams::defaults(6, 2);
  cfg.params.neighbors = 2;
  cfg.params.sigma_eta = hidden ? 1.0 : 0.01;
  cfg.params.sigma_delta = 50.0;
  cfg.params.input_max = std::uint64_t{100} << 16;
  cfg.params.sampler = hidden ? SamplerKind::box_muller : SamplerKind::clt;
  cfg.params.sampler_precision = 8;
  if (hidden) {
    cfg.params.noise = NoiseMode::hidden;
    cfg.params.committee = 3;
    cfg.params.paillier_bits = 704;  // insecure test moduli: fast
  }
  cfg.params.chain_rounds = 2;
  cfg.key_seed = 77;  // one roster over the chain
  double mean = 0;
  for (std::uint32_t u = 0; u < 6; ++u) {
    cfg.inputs.push_back({std::uint64_t{10 + 7 * u} << 16, std::uint64_t{50} << 16});
    mean += (10.0 + 7.0 * u) / 6.0;
  }
  Bytes32 base{};
  for (std::uint32_t t = 0; t < 2; ++t) {
    INFO("chain session " << t);
    cfg.params.chain_index = t;
    if (t == 1) cfg.params.chain_base = base;
    cfg.params.nonce[0] = static_cast<std::uint8_t>(t + 1);
    cfg.seed = 100 + t;  // fresh randomness every session
    auto report = run_session(cfg, *board);
    INFO((report.ok() ? std::string() : report.error().message));
    REQUIRE(report.ok());
    const RunReport& r = report.value();
    CHECK(r.withheld.empty());
    CHECK(r.counted.size() == 6);
    CHECK(r.seeds_exchanged == (t == 0));  // session 1 has no rounds 4–5
    REQUIRE(r.estimate.size() == 2);
    const double tolerance = hidden ? 6.0 / 6.0 : 0.1;  // η ~ N(0, 1) once (hidden) or per party (σ 0.01)
    CHECK(std::fabs(r.estimate[0] - mean) < tolerance);
    CHECK(std::fabs(r.estimate[1] - 50.0) < tolerance);
    const AuditReport a = audit_session(*board, r.session_id);
    for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
    CHECK(a.all_passed());
    if (t == 0) base = r.session_id;
  }
}

TEST_CASE("A chain edge the base left in but its ends cannot open: they sit the session out, blamed for nothing else",
          "[protocol][chain][adversary]") {
  const Setup s = make_setup(6, 2);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const SessionParams p0 = chain_params(s, 0, {});
  // In the base, lo seals a box to hi that does not open, and hi's bad-box complaint never makes
  // it (as when the coordinator closed round 5 before it arrived): the edge stays in.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> edge;
  std::mutex mu;
  Deviate corrupt = [&](const Entry& e) {
    Entry x = e;
    if (e.type == MessageType::edge_seed) {
      auto m = EdgeSeedMessage::decode(e.payload);
      std::lock_guard<std::mutex> lock(mu);
      if (m && !edge) {
        edge = std::make_pair(m->lo, m->hi);
        m->sealed[40] ^= 1;
        x.payload = m->encode();
      }
    }
    return std::vector<Entry>{x};
  };
  std::map<std::uint32_t, Deviate> base_dev;
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    base_dev[u] = [&, u](const Entry& e) {
      if (e.type == MessageType::complaint && e.round == kRoundBoxComplaint) {
        std::lock_guard<std::mutex> lock(mu);
        if (edge && edge->second == u) return std::vector<Entry>{};  // hi's complaint is lost
      }
      return corrupt(e);
    };
  }
  (void)run(*board, s, p0, base_dev);
  REQUIRE(edge);
  // Session 1, everyone following the protocol: neither end can open the edge's box (lo sealed
  // it wrong), so both stay out as drop-outs, and nobody is blamed for a deviation.
  const Outcome o = run(*board, s, chain_params(s, 1, p0.session_id()));
  REQUIRE(o.coordinated->ok());
  const RunReport& r = o.coordinated->value();
  std::string excluded;
  for (const auto& [u, b] : r.excluded) excluded += std::to_string(u) + ": " + b.text() + "; ";
  INFO("excluded " << excluded);
  // A party whose every edge goes to those two keeps no hidden edge to a counted party and
  // keeps its masked value back (docs/privacy.md §10): excluded for no masked value, nothing more.
  for (const auto& [u, b] : r.excluded) {
    if (u == edge->first || u == edge->second) continue;
    INFO("party " << u);
    CHECK(b.offence == Offence::no_masked);
    REQUIRE(o.parties[u].has_value());
    REQUIRE(o.parties[u]->ok());
    CHECK(o.parties[u]->value().stopped.find("no edge to a party still counted is hidden") != std::string::npos);
  }
  for (const std::uint32_t end : {edge->first, edge->second}) {
    INFO("end " << end);
    REQUIRE(r.excluded.count(end) == 1);
    CHECK(r.excluded.at(end).offence == Offence::dropout);
    REQUIRE(o.parties[end].has_value());
    REQUIRE(o.parties[end]->ok());
    CHECK(o.parties[end]->value().stopped.find("does not open") != std::string::npos);
  }
  CHECK(r.named.empty());
  CHECK(r.withheld.empty());
  CHECK(r.counted.size() == 6 - r.excluded.size());
  CHECK(o.audit.exposed.empty());
}
