// A malicious party among honest `run_party` processes (threads on one board): it posts validly
// signed entries of any type in any round — early, late, duplicated, kept back, relabelled,
// replayed from another session, of the wrong type, or withheld — chosen at random from a seed,
// and more after the result. In every run no honest party is excluded or named, the released
// result is the auditor's recomputation over the counted parties, and parties, coordinator and
// auditor agree. GOPA_ADVERSARY_RUNS sets the number of seeds (default 6; `ctest -L long` 100).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/adversary.hpp"
#include "gopa/protocol/run.hpp"
#include "processes.hpp"

using namespace gopa;
using namespace gopa::protocol;
using bulletin::Entry;
using bulletin::MessageType;

namespace {

using processes::Deviate;
using processes::make_setup;
using processes::Outcome;
using processes::Setup;
using processes::check_promises;

// One session on a fresh board: the coordinator and every party in threads; `deviate` drives
// party `bad`; `after` posts more once everyone has finished; then the audit.
Outcome run(const Setup& s, const std::map<std::uint32_t, Deviate>& deviating,
            const std::function<void(bulletin::Board&)>& after = {}, Deviate coordinator = {},
            const std::map<std::uint32_t, CheatKind>& cheats = {}) {
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  return processes::run_on(*board, s, s.p, deviating, after, std::move(coordinator), cheats);
}


// Hidden noise across party processes: runs sessions with party u deviating (run_with(u)) until u
// is drawn into the committee of 3, then checks that it is excluded for `offence` (its detail
// containing `detail`), the four others counted and the result released, and nobody honest blamed.
// Each run's board has a fresh key, so the parties' secrets, and with them the joint randomness
// and the committee, are drawn anew in every run: u is a member with probability 3/5 (3 of 5
// drawn uniformly), independently of the other runs. Up to 4n = 20 runs (u cycling over the
// parties; 5/3 on average) all miss a member with probability (2/5)^20 = 1.1e-8, 2.2e-8 for the
// two sections that call this; one pass over the five parties missed it about once in a hundred.
void deviant_member(const Setup& s, const std::function<Outcome(std::uint32_t)>& run_with, Offence offence,
                    const std::string& detail) {
  bool member = false;
  for (std::uint32_t attempt = 0; attempt < 4 * s.p.parties && !member; ++attempt) {
    const std::uint32_t u = attempt % s.p.parties;
    const Outcome o = run_with(u);
    REQUIRE(o.coordinated->ok());
    const RunReport& r = o.coordinated->value();
    REQUIRE(r.committee.size() == 3);
    if (std::find(r.committee.begin(), r.committee.end(), u) == r.committee.end()) continue;  // not a member
    member = true;
    INFO("deviating member " << u);
    check_promises(s, {u}, o);
    REQUIRE(r.excluded.count(u) == 1);
    INFO("excluded: " << r.excluded.at(u).text());
    CHECK(r.excluded.at(u).offence == offence);
    CHECK(r.excluded.at(u).detail.find(detail) != std::string::npos);
    REQUIRE(o.audit.excluded.count(u) == 1);
    CHECK(o.audit.excluded.at(u) == r.excluded.at(u));
    CHECK(r.counted.size() == 4);
    CHECK(r.withheld.empty());
  }
  CHECK(member);
}

// Signs `e` as party `u` with a sequence number from a range the party itself never reaches.
Bytes sign_late(const Setup& s, std::uint32_t u, Entry e, std::uint64_t& seq) {
  e.sequence = (std::uint64_t{1} << 40) + seq++;
  return bulletin::sign_entry(e, bulletin::SigningKey::from_seed(s.keys[u].sign_seed));
}

int runs() {
  const char* v = std::getenv("GOPA_ADVERSARY_RUNS");
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : 6;
}

}  // namespace

TEST_CASE("The cheat matrix across party processes: each cheater is excluded for its deviation, nobody honest is blamed",
          "[protocol][adversary][cheat]") {
  // The same deviations as run_session's simulated cheaters (test_run.cpp), played by one
  // run_party among honest ones: the round logic is the one PartyRole of both drivers.
  struct Case {
    CheatKind kind;
    Offence offence;     // what every reader gives as the cheater's exclusion
    const char* detail;  // in its detail
  };
  const Case cases[] = {
      {CheatKind::range, Offence::range, "input outside the domain [0, M]"},
      {CheatKind::forge, Offence::range, "input outside the domain [0, M]"},
      {CheatKind::seed, Offence::noise, "noise not sampled from its committed seeds"},
      {CheatKind::noise, Offence::noise, "noise not sampled from its committed seeds"},
      {CheatKind::cancel, Offence::cancel, "edge {"},
      {CheatKind::output, Offence::output, "inconsistent with its commitments"},
      {CheatKind::replay, Offence::output, "inconsistent with its commitments"},
      {CheatKind::signature, Offence::no_masked, ""},  // the board refused it: nobody else saw it
      {CheatKind::missing, Offence::no_masked, ""},
      {CheatKind::withhold, Offence::reveal_withheld, "round 3 closed without it"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION("cheat " << cheat_name(c.kind)) {
      Setup s = make_setup(5, 900 + static_cast<std::uint64_t>(c.kind));
      s.p.min_round_ms = 300;
      const std::uint32_t bad = 2;
      const Outcome o = run(s, {}, {}, {}, {{bad, c.kind}});
      check_promises(s, {bad}, o);
      const RunReport& r = o.coordinated->value();
      REQUIRE(r.excluded.count(bad) == 1);
      INFO("excluded: " << r.excluded.at(bad).text());
      CHECK(r.excluded.at(bad).offence == c.offence);
      CHECK(r.excluded.at(bad).detail.find(c.detail) != std::string::npos);
      CHECK(o.audit.misbehaving.count(bad) == 1);
      REQUIRE(o.audit.excluded.count(bad) == 1);
      CHECK(o.audit.excluded.at(bad) == r.excluded.at(bad));
      CHECK(r.counted.size() == 4);
      if (c.kind == CheatKind::withhold) CHECK(r.randomness_restarts == 1);
      // The cheater's own process ends without error: it played its deviation to the end.
      REQUIRE(o.parties[bad].has_value());
      INFO((o.parties[bad]->ok() ? std::string() : o.parties[bad]->error().message));
      CHECK(o.parties[bad]->ok());
    }
  }
}

TEST_CASE("Hidden noise across party processes: every committee member computes with its own key and shares, the "
          "result is the recomputation, nobody honest is blamed",
          "[protocol][adversary][hidden][heavy]") {
  // Five run_party processes (threads) and run_coordinator on one board; a committee of 3 drawn
  // from the joint randomness; d = 3 (two calls of the committee). 704-bit Paillier keys: tests only.
  Setup s = make_setup(5, 4242);
  s.p.dim = 3;
  s.p.noise = NoiseMode::hidden;
  s.p.committee = 3;
  s.p.paillier_bits = 704;
  s.p.sampler = SamplerKind::box_muller;
  s.p.sampler_precision = 8;
  s.p.sigma_eta = 1.0;  // of the one hidden sample on the sum
  s.p.round_timeout_ms = 20'000;
  for (std::uint32_t u = 0; u < s.p.parties; ++u) s.inputs[u] = 10.0 + u;
  SECTION("honest") {
    const Outcome o = run(s, {});
    check_promises(s, {}, o);
    const RunReport& r = o.coordinated->value();
    CHECK(r.withheld.empty());
    CHECK(r.counted.size() == 5);
    bool hidden_pass = false;
    for (const auto& c : o.audit.checks) {
      if (c.name.find("hidden") != std::string::npos) {
        INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
        CHECK(c.status == CheckStatus::pass);
        hidden_pass = true;
      }
    }
    CHECK(hidden_pass);
  }
  SECTION("a member that stalls is named, the committee restarts without it") {
    // The party that stalls never posts a committee message (the others wait round_timeout_ms
    // once, then name it). Long enough that a loaded machine (two test processes on two cores)
    // does not make an honest party miss a round.
    s.p.round_timeout_ms = 8'000;
    s.p.min_round_ms = 300;
    const Deviate silent = [](const Entry& e) {
      return e.type == MessageType::committee ? std::vector<Entry>{} : std::vector<Entry>{e};
    };
    deviant_member(s, [&](std::uint32_t u) { return run(s, {{u, silent}}); }, Offence::committee_missing, "call 0");
  }
  SECTION("a member that cheats is named by every member, the committee restarts without it") {
    deviant_member(s, [&](std::uint32_t u) { return run(s, {}, {}, {}, {{u, CheatKind::committee}}); },
                   Offence::committee, "mul-opening");
  }
}

TEST_CASE("A withheld randomness reveal posted under a later round changes nothing", "[protocol][adversary]") {
  const Setup s = make_setup(6, 101);
  const std::uint32_t bad = 5;
  std::optional<Entry> reveal;
  std::uint64_t seq = 0;
  const Deviate withhold_reveal = [&](const Entry& planned) -> std::vector<Entry> {
    if (planned.type == MessageType::noise_seed_reveal) {
      reveal = planned;
      return {};
    }
    return {planned};
  };
  const Outcome o = run(
      s, {{bad, withhold_reveal}},
      [&](bulletin::Board& board) {
        // After the result: the reveal, labelled round 40 (no round has that number) and round 3
        // (closed long ago).
        REQUIRE(reveal.has_value());
        Entry e = *reveal;
        e.round = 40;
        REQUIRE(board.append(sign_late(s, bad, e, seq)).ok());
        e.round = 3;
        REQUIRE(board.append(sign_late(s, bad, e, seq)).ok());
      });
  check_promises(s, {bad}, o);
  const RunReport& r = o.coordinated->value();
  CHECK(r.counted.size() == 5);
  REQUIRE(r.excluded.count(bad) == 1);
  CHECK(r.excluded.at(bad).offence == Offence::reveal_withheld);
  CHECK(r.randomness_restarts == 1);  // the withheld reveal restarted the randomness without `bad`
  CHECK(o.audit.misbehaving.count(bad) == 1);
  REQUIRE(o.audit.named.count(bad) == 1);  // the reveal labelled round 40
  CHECK(o.audit.named.at(bad).offence == Offence::misplaced);
  bool randomness_failed = false, misplaced_failed = false;
  for (const auto& c : o.audit.checks) {
    if (c.name == "randomness commit-reveal") randomness_failed = c.status == CheckStatus::fail;
    if (c.name == "entries in their own rounds") misplaced_failed = c.status == CheckStatus::fail;
  }
  CHECK(randomness_failed);  // the withheld reveal is a failed commit–reveal of `bad`
  CHECK(misplaced_failed);   // the relabelled one is named
}

TEST_CASE("Late complaints under a later round blame nobody honest", "[protocol][adversary]") {
  const Setup s = make_setup(6, 102);
  const std::uint32_t bad = 2;
  std::uint64_t seq = 0;
  const Outcome o = run(s, {{bad, [](const Entry& planned) { return std::vector<Entry>{planned}; }}},
                        [&](bulletin::Board& board) {
                          // Bad-box complaints and seed reveals against every possible partner,
                          // labelled 12, 5, 7 and 9 after the result.
                          for (std::uint32_t w = 0; w < s.p.parties; ++w) {
                            if (w == bad) continue;
                            for (std::uint32_t round : {12u, 5u, 7u, 9u, 13u}) {
                              for (auto kind : {ComplaintKind::bad_box, ComplaintKind::seed_reveal}) {
                                Entry e;
                                e.session_id = s.p.session_id();
                                e.round = round;
                                e.type = MessageType::complaint;
                                e.payload = ComplaintMessage{kind, std::min(w, bad), std::max(w, bad), {}, {}}.encode();
                                REQUIRE(board.append(sign_late(s, bad, e, seq)).ok());
                              }
                            }
                          }
                        });
  check_promises(s, {bad}, o);
  CHECK(o.coordinated->value().counted.size() == 6);  // everyone counted: nothing changed
  CHECK(o.audit.misbehaving.count(bad) == 1);         // named for the misplaced and false ones
  REQUIRE(o.audit.named.count(bad) == 1);
  CHECK(o.audit.named.at(bad).offence == Offence::misplaced);
}

TEST_CASE("A randomized malicious party never gets an honest party excluded or named",
          "[protocol][adversary]") {
  const int n_runs = runs();
  for (int i = 0; i < n_runs; ++i) {
    const std::uint64_t seed = 1000 + static_cast<std::uint64_t>(i);
    DYNAMIC_SECTION("seed " << seed) {
      const Setup s = make_setup(6, seed);
      const std::uint32_t bad = static_cast<std::uint32_t>(seed % 6);
      auto adv = std::make_shared<RandomAdversary>(seed);
      std::uint64_t seq = 0;
      const Outcome o = run(s, {{bad, [adv](const Entry& e) { return (*adv)(e); }}}, [&](bulletin::Board& board) {
        // Whatever it kept back, and a few of its entries again under random rounds.
        for (const Entry& e : adv->leftovers(4)) (void)board.append(sign_late(s, bad, e, seq));
      });
      check_promises(s, {bad}, o);
    }
  }
}

TEST_CASE("A party that withholds the seed it owes ends the session without a result, and nothing honest is revealed",
          "[protocol][adversary]") {
  // Party 0 publishes a malformed masked value (excluded from round 8 on); party 1 does not reveal
  // its seed with 0 in the recovery round. Party 1's masked value is on the board, so excluding it
  // would mean revealing its other seeds: the session ends without a result, naming nobody honest.
  // The graph comes from the parties' random shares (a fresh board key every session): sessions
  // run until one makes 1 a neighbour of 0. Each does with probability 1 − (3/5)² = 0.64 (0 picks
  // 1 among its k = 2 of 5 others, or 1 picks 0), independently; at most 16, which all miss with
  // probability 0.36^16 = 7.9e-8 (1.6 sessions on average).
  int withheld_seen = 0;
  for (std::uint64_t seed = 201; seed < 217 && withheld_seen == 0; ++seed) {
    INFO("seed " << seed);
    const Setup s = make_setup(6, seed);
    std::map<std::uint32_t, Deviate> bad;
    bad[0] = [](const Entry& planned) {
      Entry e = planned;
      if (e.type == MessageType::masked_value) e.payload.assign(3, 0xee);
      if (planned.type == MessageType::complaint && planned.round != 5 && planned.round != 7) return std::vector<Entry>{};
      return std::vector<Entry>{e};
    };
    bad[1] = [](const Entry& planned) {
      if (planned.type == MessageType::complaint && planned.round != 5 && planned.round != 7) return std::vector<Entry>{};
      return std::vector<Entry>{planned};
    };
    const Outcome o = run(s, bad);
    check_promises(s, {0, 1}, o);
    const RunReport& r = o.coordinated->value();
    CHECK(r.excluded.count(0) == 1);
    CHECK(r.excluded.count(1) == 0);
    if (r.withheld.find("recovery round closed before the seed") != std::string::npos) ++withheld_seen;
  }
  CHECK(withheld_seen > 0);
}

TEST_CASE("A malicious coordinator: a false result is caught by every party and the auditor, nobody honest blamed",
          "[protocol][adversary][coordinator]") {
  const Setup s = make_setup(6, 301);
  for (int variant = 0; variant < 2; ++variant) {
    INFO("variant " << variant);
    const Deviate forge_result = [variant, &s](const Entry& planned) {
      Entry e = planned;
      if (e.type == MessageType::result) {
        auto r = ResultMessage::decode(e.payload, 1, s.p.parties);
        REQUIRE(r.has_value());
        if (variant == 0) r->sum[0] += Scalar::from_u64(std::uint64_t{1} << 20);  // the sum moved by 16
        else r->counted.erase(r->counted.begin());                                // an honest party dropped
        e.payload = r->encode(s.p.parties);
      }
      return std::vector<Entry>{e};
    };
    const Outcome o = run(s, {}, {}, forge_result);
    REQUIRE(o.coordinated.has_value());
    REQUIRE(o.coordinated->ok());
    for (std::uint32_t u = 0; u < s.p.parties; ++u) {
      INFO("party " << u);
      REQUIRE(o.parties[u].has_value());
      REQUIRE(o.parties[u]->ok());
      const PartyOutcome& po = o.parties[u]->value();
      CHECK(po.coordinator_problem.find("not the recomputation") != std::string::npos);
      CHECK(po.counted_me);             // its own recomputation counts it
      CHECK(po.counted.size() == 6);
      CHECK(po.excluded.empty());
      CHECK(o.audit.misbehaving.count(u) == 0);
    }
    CHECK_FALSE(o.audit.log_ok);  // the coordinator's fault: exit code 2 in `gopa audit`
    CHECK(o.audit.counted.size() == 6);
  }
}

TEST_CASE("A malicious coordinator closing rounds out of order, twice or early is refused by every reader",
          "[protocol][adversary][coordinator]") {
  // Before every close it also posts the close of a later round (2 → 5, …: those would make the
  // honest parties' entries of that round late) and repeats every close.
  const Setup s = make_setup(6, 302);
  const Deviate early_closes = [](const Entry& planned) {
    std::vector<Entry> out;
    if (planned.type == MessageType::round_cosignature) {
      Entry early = planned;
      const std::uint32_t later = planned.round == 9 ? 12 : planned.round + 3;
      early.round = later;
      early.payload = RoundMarker{later}.encode();
      out.push_back(early);
      out.push_back(planned);
      out.push_back(planned);
      return out;
    }
    out.push_back(planned);
    return out;
  };
  const Outcome o = run(s, {}, {}, early_closes);
  check_promises(s, {}, o);
  CHECK(o.coordinated->value().counted.size() == 6);
  CHECK_FALSE(o.audit.log_ok);  // the refused closes are the coordinator's log problem
  bool order_failed = false;
  for (const auto& c : o.audit.checks) {
    if (c.name == "coordinator: rounds closed in order") order_failed = c.status == CheckStatus::fail;
  }
  CHECK(order_failed);
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    CHECK(o.parties[u]->value().coordinator_problem.find("out of order") != std::string::npos);
  }
}

TEST_CASE("A randomness commitment posted after the honest reveals changes nothing", "[protocol][adversary][randomness]") {
  // The late-commit attack: `bad` keeps its round-2 commitment back, reads the honest reveals,
  // then posts commitment and reveal together. Round 2 is closed by then, so the commitment is
  // ignored by every reader: `bad` is excluded as missing and the draw does not restart.
  const Setup s = make_setup(6, 131);
  const std::uint32_t bad = 2;
  std::optional<Entry> commit;
  const Deviate late_commit = [&](const Entry& planned) -> std::vector<Entry> {
    if (planned.type == MessageType::noise_seed_commit && planned.round == 2) {
      commit = planned;
      return {};
    }
    if (planned.type == MessageType::noise_seed_reveal && commit) return {*commit, planned};
    return {planned};
  };
  const Outcome o = run(s, {{bad, late_commit}});
  check_promises(s, {bad}, o);
  const RunReport& r = o.coordinated->value();
  CHECK(r.randomness_restarts == 0);
  REQUIRE(r.excluded.count(bad) == 1);
  CHECK(r.excluded.at(bad).offence == Offence::randomness_missing);
  CHECK(r.excluded.at(bad).detail.find("round 2 closed without it") != std::string::npos);
  CHECK(r.counted.size() == 5);
}

namespace {
// What must hold whatever the coordinator does with round closes: nobody honest named, nothing
// of any honest input computable from the board, and every honest party either counted in a
// result that is the recomputation or told why not.
void check_private_under_any_closes(const Setup& s, const Outcome& o) {
  REQUIRE(o.coordinated.has_value());
  INFO((o.coordinated->ok() ? std::string() : o.coordinated->error().message));
  REQUIRE(o.coordinated->ok());
  const RunReport& r = o.coordinated->value();
  for (const auto& c : o.audit.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(r.named.empty());
  CHECK(o.audit.exposed.empty());
  for (const auto& c : o.audit.checks) {
    if (c.name == "no party's input computable from the board") CHECK(c.status == CheckStatus::pass);
    if (c.name == "released result matches the recomputation") CHECK(c.status == CheckStatus::pass);
  }
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    INFO("party " << u);
    REQUIRE(o.parties[u].has_value());
    REQUIRE(o.parties[u]->ok());
    const PartyOutcome& po = o.parties[u]->value();
    CHECK(po.named.count(u) == 0);
    if (!po.counted_me) CHECK((!po.stopped.empty() || !po.withheld.empty() || !r.withheld.empty() || po.excluded.count(u)));
  }
}

// A coordinator that closes round `early` as soon as it has closed the round before it.
Deviate closes_early(std::uint32_t early) {
  return [early](const Entry& planned) -> std::vector<Entry> {
    std::vector<Entry> out{planned};
    if (planned.type == MessageType::round_cosignature && planned.round + 1 == early) {
      Entry e = planned;
      e.round = early;
      e.payload = RoundMarker{early}.encode();
      out.push_back(e);
    }
    return out;
  };
}
}  // namespace

TEST_CASE("Across processes, rounds closed at once leave every honest input hidden; parties refuse them",
          "[protocol][adversary][coordinator]") {
  for (std::uint32_t early : {3u, 6u, 8u, 9u}) {
    DYNAMIC_SECTION("round " << early << " closed right after the one before it") {
      const Setup s = make_setup(6, 600 + early);
      const Outcome o = run(s, {}, {}, closes_early(early));
      check_private_under_any_closes(s, o);
      // Some party was cut off by the close and refused it, naming the coordinator, or saw the
      // round closed before it could post and stopped.
      bool refused = false;
      for (const auto& po : o.parties) {
        refused = refused || po->value().coordinator_problem.find("refused") != std::string::npos || !po->value().stopped.empty();
      }
      CHECK(refused);
    }
  }
}

TEST_CASE("The audit reports a party whose input the board gives away", "[protocol][adversary][audit]") {
  // `bad` keeps its masked value back; its neighbours reveal their seeds with it in the recovery
  // round; after the result it posts the masked value: x + η of `bad` is now computable, and the
  // audit says so (for a malicious party, which only exposes itself).
  const Setup s = make_setup(6, 141);
  const std::uint32_t bad = 4;
  std::optional<Entry> masked;
  std::uint64_t seq = 0;
  const Deviate keep_masked = [&](const Entry& planned) -> std::vector<Entry> {
    if (planned.type == MessageType::masked_value) {
      masked = planned;
      return {};
    }
    return {planned};
  };
  const Outcome o = run(s, {{bad, keep_masked}}, [&](bulletin::Board& board) {
    REQUIRE(masked.has_value());
    REQUIRE(board.append(sign_late(s, bad, *masked, seq)).ok());
  });
  check_promises(s, {bad}, o);
  REQUIRE(o.audit.exposed == std::vector<std::uint32_t>{bad});
  bool reported = false;
  for (const auto& c : o.audit.checks) {
    if (c.name == "no party's input computable from the board") {
      reported = c.status == CheckStatus::fail && c.detail.find("parties " + std::to_string(bad)) != std::string::npos;
    }
  }
  CHECK(reported);
  CHECK_FALSE(o.audit.all_passed());
}

TEST_CASE("A session that is not one harms no other: the coordinator posts none, and parties pass over one a stranger posts",
          "[protocol][adversary][board]") {
  // A roster that repeats a key makes a setup every reader refuses. The coordinator refuses it
  // before posting anything. Anyone can still post such a setup; a party looking for its session
  // (no session id given) passes over it and plays its own, and the audit of the good one passes.
  Setup s = make_setup(5, 4243);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  {
    CoordinatorOptions co;
    co.params = s.p;
    co.roster = s.roster;
    co.roster[2] = co.roster[0];
    co.sign_seed[0] = 0xc7;
    co.poll_ms = 5;
    const auto refused = run_coordinator(co, *board);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message.find("repeats a key") != std::string::npos);
    CHECK(list_sessions(*board).value().empty());
  }
  {
    // The stranger's setup: the same parties, one key twice, another nonce.
    SessionParams q = s.p;
    q.nonce[0] ^= 0x5a;
    std::vector<RosterEntry> roster = s.roster;
    roster[1] = roster[0];
    const auto entries = SetupMessage{q, roster}.encode_entries();
    const auto stranger = bulletin::SigningKey::from_seed(Key32{0x51});
    for (std::size_t i = 0; i < entries.size(); ++i) {
      Entry e;
      e.session_id = q.session_id();
      e.round = kRoundSetup;
      e.type = i == 0 ? MessageType::session_setup : MessageType::party_key;
      e.sequence = i;
      e.payload = entries[i];
      REQUIRE(board->append(bulletin::sign_entry(e, stranger)).ok());
    }
    REQUIRE(list_sessions(*board).value().size() == 1);
  }
  // The good session; parties given no session id.
  Outcome out;
  out.parties.resize(s.p.parties);
  CoordinatorOptions co;
  co.params = s.p;
  co.roster = s.roster;
  co.sign_seed[0] = 0xc7;
  co.poll_ms = 5;
  std::vector<std::thread> threads;
  threads.emplace_back([&] { out.coordinated = run_coordinator(co, *board); });
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    threads.emplace_back([&, u] {
      PartyOptions po;
      po.index = u;
      po.keys = s.keys[u];
      po.input.assign(s.p.dim, s.inputs[u]);
      po.poll_ms = 5;
      po.requirement = {1e6, 0.5, 1.0};
      out.parties[u] = run_party(po, *board);
    });
  }
  for (auto& t : threads) t.join();
  out.audit = audit_session(*board, s.p.session_id());
  REQUIRE(out.coordinated.has_value());
  REQUIRE(out.coordinated->ok());
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    INFO("party " << u);
    REQUIRE(out.parties[u].has_value());
    INFO((out.parties[u]->ok() ? std::string() : out.parties[u]->error().message));
    REQUIRE(out.parties[u]->ok());
    CHECK(out.parties[u]->value().counted_me);
  }
  check_promises(s, {}, out);
}
