// A party whose run stops mid-session (run_party returns after posting round R, as a killed process
// would) and is started again with the same keys resumes from the board: it re-derives its
// secrets, posts nothing twice and nothing different, and is counted; the audit passes and the
// board records no equivocation (docs/protocol.md § Restarts).
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;
using bulletin::Entry;
using bulletin::MessageType;

namespace {

constexpr std::uint32_t kParties = 4;
constexpr std::uint32_t kCommitteeMember = 1;  // hidden noise: every party is a member
constexpr double kHiddenSigmaEta = 1.0;         // hidden noise: σ of the one hidden sample on the sum

SessionParams params(std::uint8_t nonce, bool hidden = false) {
  SessionParams p = SessionParams::defaults(kParties, 1);
  if (hidden) {
    // Every party is a committee member of the hidden sample; 704-bit Paillier keys (tests only).
    p.noise = NoiseMode::hidden;
    p.committee = kParties;
    p.paillier_bits = 704;
    p.sampler = SamplerKind::box_muller;
    p.sampler_precision = 8;
    p.sigma_eta = kHiddenSigmaEta;
    p.sigma_delta = 20.0;
    p.input_max = std::uint64_t{100} << 16;
    p.neighbors = kParties - 1;
    p.round_timeout_ms = 20'000;
    p.min_round_ms = 1'000;
    p.nonce[0] = nonce;
    return p;
  }
  p.input_max = std::uint64_t{100} << 16;
  p.neighbors = 2;
  p.sigma_eta = 0.05;  // these tests are about restarts, not the noise: a requirement that accepts it below
  p.sigma_delta = 20.0;
  p.sampler = SamplerKind::clt;
  p.sampler_precision = 8;
  p.round_timeout_ms = 10'000;
  p.min_round_ms = 1'000;
  p.nonce[0] = nonce;
  return p;
}

PartyKeys keys_of(std::uint32_t u, std::uint8_t nonce) {
  PartyKeys k;
  k.sign_seed[0] = static_cast<std::uint8_t>(u + 1);
  k.sign_seed[1] = nonce;
  k.box_seed[0] = static_cast<std::uint8_t>(u + 1);
  k.box_seed[31] = 0x5a;
  return k;
}

double input_of(std::uint32_t u) { return 10.0 + 7.0 * u; }

// Polls the board until the coordinator `coordinator` has closed `round` (its round marker); false
// if it does not within 20 s. (No Catch assertions here: it runs in a party's thread.)
bool wait_for_close(bulletin::LocalBoard& board, const bulletin::PublicKey& coordinator, std::uint32_t round) {
  for (int tries = 0; tries < 4000; ++tries) {
    const auto raw = board.read(0, board.size());
    if (raw.ok()) {
      for (const auto& bytes : raw.value()) {
        const auto e = bulletin::decode_entry(bytes);
        if (e.ok() && e.value().sender == coordinator && e.value().type == MessageType::round_cosignature &&
            e.value().round == round) {
          return true;
        }
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

struct Restarted {
  std::unique_ptr<bulletin::LocalBoard> board;
  std::vector<RosterEntry> roster;
  std::optional<bulletin::Result<RunReport>> coordinated;
  std::vector<std::optional<bulletin::Result<PartyOutcome>>> outcomes;  // the last run of each party
  std::optional<bulletin::Result<PartyOutcome>> stopped;                 // the restarted party's first run
  std::optional<bulletin::Result<PartyOutcome>> refused;                 // its run with another input, if asked
  bool closed_while_away = false;  // the round it stopped after was closed before it ran again
  std::optional<std::uint32_t> committee_messages;  // it stopped after this many committee messages
  Bytes32 sid{};                                    // the session with the restart
};

// One session: the coordinator and every party in threads on one board; party `who` stops after
// posting round `round` and runs again. With `other_input`, a run with a different input comes
// in between (it must be refused before it posts anything). With `committee_messages`, the
// session has hidden noise and `who`, a committee member, stops instead in the middle of round 11,
// after posting that many committee messages, and runs again at once (the others wait for it).
// With `chained`, the session is the second of a chain whose base runs first, undisturbed, on
// the same board: the restarted party takes its seeds from the base again.
Restarted run_with_restart(std::uint32_t who, std::uint32_t round, std::uint8_t nonce, bool other_input = false,
                           std::optional<std::uint32_t> committee_messages = std::nullopt, bool chained = false) {
  Restarted t;
  t.committee_messages = committee_messages;
  SessionParams p = params(nonce, committee_messages.has_value());
  for (std::uint32_t u = 0; u < kParties; ++u) t.roster.push_back(keys_of(u, nonce).public_entry());
  t.board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  CoordinatorOptions co;
  co.roster = t.roster;
  co.sign_seed[0] = 0xc5;
  co.poll_ms = 5;
  auto options = [&](std::uint32_t u) {
    PartyOptions po;
    po.index = u;
    po.keys = keys_of(u, nonce);
    po.input = {input_of(u)};
    po.poll_ms = 5;
    po.session = p.session_id();
    po.requirement = {1e6, 0.5, 1.0};
    po.requirement.min_paillier_bits = 674;  // insecure test moduli (hidden noise at 704 bits)
    return po;
  };
  if (chained) {
    p.chain_rounds = 2;
    co.params = p;
    std::vector<std::thread> base;
    base.emplace_back([&] { (void)run_coordinator(co, *t.board); });
    for (std::uint32_t u = 0; u < kParties; ++u) base.emplace_back([&, u] { (void)run_party(options(u), *t.board); });
    for (auto& th : base) th.join();
    p.chain_base = p.session_id();
    p.chain_index = 1;
    p.nonce[1] = 1;
  }
  co.params = p;
  t.sid = p.session_id();
  t.outcomes.resize(kParties);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { t.coordinated = run_coordinator(co, *t.board); });
  for (std::uint32_t u = 0; u < kParties; ++u) {
    threads.emplace_back([&, u] {
      if (u != who) {
        t.outcomes[u] = run_party(options(u), *t.board);
        return;
      }
      PartyOptions first = options(u);
      if (committee_messages) {
        first.stop_after_committee_messages = committee_messages;
      } else {
        first.stop_after_round = round;
      }
      t.stopped = run_party(first, *t.board);
      // Back only once the coordinator has closed the round: the restart finds it closed. (Round
      // 11 does not close without the member that stopped in it.)
      if (!committee_messages) {
        t.closed_while_away = wait_for_close(*t.board, bulletin::SigningKey::from_seed(co.sign_seed).public_key(), round);
      }
      if (other_input) {
        PartyOptions changed = options(u);
        changed.input = {input_of(u) + 1.0};
        t.refused = run_party(changed, *t.board);
      }
      t.outcomes[u] = run_party(options(u), *t.board);
    });
  }
  for (auto& th : threads) th.join();
  return t;
}

// The restarted party's entries: one per (round, type, recipient, complaint edge), distinct
// sequence numbers.
void check_no_second_entries(const Restarted& t, std::uint32_t who) {
  const auto raw = t.board->read(0, t.board->size());
  REQUIRE(raw.ok());
  std::set<std::uint64_t> sequences;
  std::set<std::tuple<std::uint32_t, int, bulletin::PublicKey, std::uint32_t, std::uint32_t, int>> slots;
  std::size_t mine = 0, committee = 0;
  for (const auto& bytes : raw.value()) {
    const auto e = bulletin::decode_entry(bytes);
    REQUIRE(e.ok());
    if (!(e.value().sender == t.roster[who].sign_key) || e.value().session_id != t.sid) continue;
    ++mine;
    const Entry& en = e.value();
    CHECK(sequences.insert(en.sequence).second);
    std::uint32_t lo = 0, hi = 0;
    int kind = 0;
    if (en.type == MessageType::complaint) {
      const auto c = ComplaintMessage::decode(en.payload);
      REQUIRE(c.has_value());
      lo = c->lo;
      hi = c->hi;
      kind = static_cast<int>(c->kind);
    }
    if (en.type == MessageType::committee) {  // one per call, attempt and sequence number
      const auto c = CommitteeMessage::decode(en.payload);
      REQUIRE(c.has_value());
      lo = c->call;
      hi = c->attempt;
      kind = static_cast<int>(c->message.seq);
      ++committee;
    }
    INFO("round " << en.round << " type " << message_type_name(en.type));
    CHECK(slots.insert({en.round, static_cast<int>(en.type), en.recipient, lo, hi, kind}).second);
  }
  CHECK(mine > 0);
  if (t.committee_messages) CHECK(committee > *t.committee_messages);  // it went on after the restart
  const auto equivocations = t.board->equivocations();
  REQUIRE(equivocations.ok());
  CHECK(equivocations.value().empty());
}

void check_everyone_counted(const Restarted& t, std::uint32_t who) {
  REQUIRE(t.coordinated.has_value());
  INFO((t.coordinated->ok() ? std::string() : t.coordinated->error().message));
  REQUIRE(t.coordinated->ok());
  const RunReport& r = t.coordinated->value();
  INFO("withheld: " << r.withheld);
  for (const auto& [u, why] : r.excluded) INFO("excluded " << u << ": " << why.text());
  CHECK(r.withheld.empty());
  CHECK(r.excluded.empty());
  CHECK(r.named.empty());
  CHECK(r.counted.size() == kParties);
  REQUIRE(t.stopped.has_value());
  REQUIRE(t.stopped->ok());
  CHECK_FALSE(t.stopped->value().stopped.empty());
  CHECK(t.closed_while_away != t.committee_messages.has_value());
  for (std::uint32_t u = 0; u < kParties; ++u) {
    INFO("party " << u);
    REQUIRE(t.outcomes[u].has_value());
    INFO((t.outcomes[u]->ok() ? std::string() : t.outcomes[u]->error().message));
    REQUIRE(t.outcomes[u]->ok());
    const PartyOutcome& po = t.outcomes[u]->value();
    CHECK(po.stopped.empty());
    CHECK(po.coordinator_problem.empty());
    CHECK(po.counted_me);
    CHECK(po.estimate == r.estimate);
  }
  double mean = 0;
  for (std::uint32_t u = 0; u < kParties; ++u) mean += input_of(u) / kParties;
  REQUIRE(r.estimate.size() == 1);
  // The estimate is the mean plus the noise on the sum divided by the 4 counted parties (the
  // pairwise terms cancel exactly). Private noise: each η_u comes from the CLT sampler at 8 bits,
  // 12 uniforms, so |η_u| < 6σ_η + 2^-8 = 0.31 for σ_η = 0.05 whatever the draw: within 0.5
  // always. Hidden noise: one Box–Muller sample of σ_η = 1 on the sum, σ = 0.25 on the estimate;
  // the 2 hidden sessions of this program each check |error| < 5.1σ, two-sided Gaussian tail
  // 3.4e-7, 6.8e-7 for both (and the sampler's 12-bit seeds keep |η| ≤ √(26 ln 2)·σ_η ≈ 4.25σ_η
  // in any case).
  const double tolerance = t.committee_messages ? 5.1 * kHiddenSigmaEta / kParties : 0.5;
  CHECK(std::fabs(r.estimate[0] - mean) < tolerance);
  const AuditReport a = audit_session(*t.board, t.sid);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.all_passed());
  CHECK(a.misbehaving.empty());
  CHECK(a.counted == r.counted);
  check_no_second_entries(t, who);
}

}  // namespace

TEST_CASE("A party stopped after a round resumes from the board and its keys; it is counted, nobody equivocates",
          "[protocol][restart]") {
  // After the randomness commitment (2), its reveal (3), the sealed seeds (4: party 0 is the lower
  // end of its edges and sends them), the commitments to X, Δ, η (6) and the masked value (8).
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> cases = {{1, 2}, {2, 3}, {0, 4}, {3, 6}, {1, 8}};
  std::uint8_t nonce = 1;
  for (const auto& [who, round] : cases) {
    INFO("party " << who << " stopped after round " << round);
    const Restarted t = run_with_restart(who, round, nonce++);
    check_everyone_counted(t, who);
  }
}

TEST_CASE("A party stopped in a chain's later session resumes: it takes its seeds from the base again", "[protocol][restart][chain]") {
  // After its randomness reveal (3), its commitments (6) and its masked value (8).
  std::uint8_t nonce = 40;
  for (const auto& [who, round] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1, 3}, {0, 6}, {2, 8}}) {
    INFO("party " << who << " stopped after round " << round << " of session 1");
    const Restarted t = run_with_restart(who, round, nonce++, false, std::nullopt, true);
    check_everyone_counted(t, who);
  }
}

TEST_CASE("A restarted party with another input refuses to post a second, different commitment", "[protocol][restart]") {
  // Stopped after its commitments (round 6): the run with a changed input derives other
  // commitments, finds its own on the board and refuses before signing anything; the run with
  // the right input then completes the session.
  const Restarted t = run_with_restart(2, 6, 40, /*other_input=*/true);
  REQUIRE(t.refused.has_value());
  REQUIRE_FALSE(t.refused->ok());
  CHECK(t.refused->error().code == bulletin::Errc::equivocation);
  CHECK(t.refused->error().message.find("already posted a different commitment") != std::string::npos);
  check_everyone_counted(t, 2);
}

TEST_CASE("A committee member stopped in the middle of the hidden noise resumes: it re-derives its key and messages, "
          "posts nothing twice, and nobody is named",
          "[protocol][restart][hidden]") {
  // Hidden noise, every one of the 4 parties a committee member. Member 1 stops after its first committee
  // message (its Paillier key) or half-way through, and runs again at once: it re-derives
  // every message from its key file and the board, finds those it posted, and goes on; the others
  // wait for it within the round's time-out.
  std::uint8_t nonce = 60;
  for (const std::uint32_t messages : {1U, 220U}) {  // of its 440 (d = 1)
    INFO("stopped after " << messages << " committee messages");
    const Restarted t = run_with_restart(kCommitteeMember, kRoundCommittee, nonce++, false, messages);
    REQUIRE(t.stopped.has_value());
    INFO((t.stopped->ok() ? std::string() : t.stopped->error().message));
    REQUIRE(t.stopped->ok());
    INFO("first run: " << t.stopped->value().stopped);
    CHECK(t.stopped->value().stopped.find("committee messages (test)") != std::string::npos);
    check_everyone_counted(t, kCommitteeMember);
  }
}
