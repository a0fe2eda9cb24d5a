#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <thread>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;

namespace {
RunConfig config(std::uint32_t n, std::uint32_t d, std::uint64_t seed) {
  RunConfig cfg;
  cfg.params = SessionParams::defaults(n, d);
  cfg.params.neighbors = 3;
  cfg.params.sigma_eta = 0.01;
  cfg.params.sigma_delta = 50.0;
  cfg.params.input_bits = 32;
  cfg.params.frac_bits = 16;
  cfg.params.input_max = std::uint64_t{100} << 16;  // the domain [0, 100]
  // The cheapest proven sampler keeps these tests fast (also under sanitizers); Box–Muller is
  // exercised by tests/circuits and by `gopa run`.
  cfg.params.sampler = SamplerKind::clt;
  cfg.params.sampler_precision = 8;
  cfg.params.nonce[0] = static_cast<std::uint8_t>(seed);
  cfg.seed = seed;
  DeterministicRng rng(seed);
  for (std::uint32_t u = 0; u < n; ++u) {
    std::vector<std::uint64_t> row;
    for (std::uint32_t j = 0; j < d; ++j) row.push_back(rng.uniform(std::uint64_t{100} << 16));  // [0, 100)
    cfg.inputs.push_back(row);
  }
  return cfg;
}

double true_mean(const RunConfig& cfg, std::uint32_t j) {
  double s = 0;
  for (const auto& row : cfg.inputs) s += cfg.params.from_fixed(static_cast<std::int64_t>(row[j]));
  return s / static_cast<double>(cfg.inputs.size());
}
}  // namespace

TEST_CASE("GOPA end to end in one process: the estimate is the mean plus small noise, the audit passes",
          "[protocol][run][tsan]") {
  const RunConfig cfg = config(12, 2, 5);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  CHECK(r.counted.size() == 12);
  REQUIRE(r.estimate.size() == 2);
  for (std::uint32_t j = 0; j < 2; ++j) {
    // The pairwise terms (σ_Δ = 50) cancel exactly; only η remains: sd of the mean = σ_η/√n.
    CHECK(std::fabs(r.estimate[j] - true_mean(cfg, j)) < 6 * 0.01 / std::sqrt(12.0) + 1e-4);
  }
  CHECK(r.proof_bytes_per_party > 64);
  // setup + 12 seed commits + 12 reveals + edge seeds + 12 commitments + 12 masked + result
  CHECK(r.board_entries > 1 + 4 * 12 + 1);

  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.all_passed());
  CHECK(a.misbehaving.empty());
  CHECK(a.counted == r.counted);
  CHECK(a.estimate == r.estimate);
  // Every party's noise proof was checked.
  bool noise_checked = false;
  for (const auto& c : a.checks) {
    if (c.name.find("noise") != std::string::npos) {
      noise_checked = c.status == CheckStatus::pass && c.detail.find("12/12 valid") != std::string::npos;
    }
  }
  CHECK(noise_checked);
}

TEST_CASE("run_session refuses bad inputs with a message", "[protocol][run]") {
  RunConfig cfg = config(4, 1, 6);
  cfg.inputs[2][0] = std::uint64_t{1} << 40;  // beyond 32 input bits
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto r = run_session(cfg, *board);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("party 2") != std::string::npos);
  cfg = config(4, 1, 6);
  cfg.inputs[1][0] = cfg.params.input_max + 1;  // within 32 bits, one ulp above M
  r = run_session(cfg, *board);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("party 1") != std::string::npos);
  CHECK(r.error().message.find("above the domain") != std::string::npos);
  cfg.inputs[1][0] = cfg.params.input_max;  // M itself is in the domain
  CHECK(run_session(cfg, *board).ok());
  cfg = config(4, 1, 6);
  cfg.inputs.pop_back();
  CHECK_FALSE(run_session(cfg, *board).ok());
}

TEST_CASE("A board with no session fails the audit", "[protocol][run]") {
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  AuditReport a = audit_session(*board);
  CHECK_FALSE(a.all_passed());
  CHECK_FALSE(a.log_ok);
}

namespace {
// Runs with deviations and checks that exactly the deviating parties are excluded, each for the
// check its deviation breaks, that the audit agrees, and that the estimate is the mean of the
// counted parties' inputs plus small noise (the excluded parties' pairwise terms removed).
RunReport run_and_check(std::map<CheatKind, std::uint32_t> cheats, std::uint32_t dropouts, std::uint64_t seed) {
  RunConfig cfg = config(16, 2, seed);
  cfg.cheats = cheats;
  cfg.dropouts = dropouts;
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  std::uint32_t expected = dropouts;
  for (const auto& [k, c] : cheats) expected += c;
  REQUIRE(r.deviating.size() == expected);
  // Nobody honest is blamed, every deviating party is.
  for (const auto& [u, why] : r.excluded) {
    INFO("party " << u << " excluded: " << why.text());
    CHECK(r.deviating.count(u) == 1);
  }
  // The offence each deviation is excluded for, and what its detail says.
  const std::map<std::string, std::pair<Offence, std::string>> blames = {
      {"range", {Offence::range, "input outside the domain [0, M]"}},
      {"forge", {Offence::range, "input outside the domain [0, M]"}},
      {"seed", {Offence::noise, "noise not sampled from its committed seeds"}},
      {"noise", {Offence::noise, "noise not sampled from its committed seeds"}},
      {"cancel", {Offence::cancel, "edge {"}},
      {"output", {Offence::output, "inconsistent with its commitments"}},
      {"replay", {Offence::output, "inconsistent with its commitments"}},
      {"signature", {Offence::no_masked, "the board refused it"}},
      {"missing", {Offence::no_masked, ""}},
      {"dropout", {Offence::dropout, ""}},
  };
  for (const auto& [u, kind] : r.deviating) {
    INFO("party " << u << " deviated: " << kind);
    REQUIRE(r.excluded.count(u) == 1);
    const Blame& why = r.excluded.at(u);
    INFO("excluded: " << why.text());
    REQUIRE(blames.count(kind) == 1);
    CHECK(why.offence == blames.at(kind).first);
    CHECK(why.detail.find(blames.at(kind).second) != std::string::npos);
    if (kind == "missing" || kind == "dropout") CHECK(why.detail.empty());
  }
  CHECK(r.counted.size() == 16 - expected);
  for (std::uint32_t j = 0; j < 2; ++j) {
    double mean = 0;
    for (auto u : r.counted) mean += cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[u][j]));
    mean /= static_cast<double>(r.counted.size());
    CHECK(std::fabs(r.estimate[j] - mean) < 6 * 0.01 / std::sqrt(static_cast<double>(r.counted.size())) + 1e-4);
  }
  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.counted == r.counted);
  CHECK(a.estimate == r.estimate);
  for (const auto& [u, why] : a.misbehaving) CHECK(r.deviating.count(u) == 1);
  bool result_pass = false, removal_pass = false;
  for (const auto& c : a.checks) {
    if (c.name.find("released result") != std::string::npos) result_pass = c.status == CheckStatus::pass;
    if (c.name.find("pairwise terms removed") != std::string::npos) removal_pass = c.status == CheckStatus::pass;
  }
  CHECK(result_pass);
  CHECK(removal_pass);
  return r;
}
}  // namespace

TEST_CASE("Every kind of cheating is caught and named, and nobody honest is blamed", "[protocol][run][cheat]") {
  for (auto kind : {CheatKind::range, CheatKind::forge, CheatKind::seed, CheatKind::cancel, CheatKind::noise,
                    CheatKind::output, CheatKind::signature, CheatKind::replay, CheatKind::missing}) {
    DYNAMIC_SECTION("cheat " << cheat_name(kind)) { run_and_check({{kind, 2}}, 0, 20 + static_cast<std::uint64_t>(kind)); }
  }
}

TEST_CASE("Drop-outs after the pairwise-seed round are removed exactly", "[protocol][run][cheat]") {
  run_and_check({}, 3, 31);
}

TEST_CASE("Mixtures of cheats and drop-outs", "[protocol][run][cheat][heavy]") {
  run_and_check({{CheatKind::range, 1}, {CheatKind::cancel, 1}, {CheatKind::output, 1}, {CheatKind::missing, 1}}, 1, 41);
  // A cancel cheater whose shifted term is on its edge to a drop-out: there is no cancellation to
  // check, only the revealed seed of that edge can name it. Its masked value is on the board, so
  // excluding it would mean revealing its other seeds: the session ends without a result, naming
  // it and nobody honest. The first seed from 42 on that gives this layout (the layout depends on
  // the session id, hence on the parameters' encoding).
  const std::map<CheatKind, std::uint32_t> mix = {{CheatKind::cancel, 3}, {CheatKind::replay, 1}, {CheatKind::signature, 1}};
  auto names_edge_to_dropout = [](const RunReport& r) {
    return std::any_of(r.named.begin(), r.named.end(), [](const auto& e) {
      return e.second.offence == Offence::cancel && e.second.detail.find("to excluded party") != std::string::npos;
    });
  };
  bool layout_seen = false;
  for (std::uint64_t s = 42; s < 142 && !layout_seen; ++s) {
    RunConfig cfg = config(16, 2, s);
    cfg.cheats = mix;
    cfg.dropouts = 2;
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto rep = run_session(cfg, *board);
    REQUIRE(rep.ok());
    const RunReport& r = rep.value();
    if (!names_edge_to_dropout(r)) continue;
    layout_seen = true;
    for (const auto& [u, why] : r.named) {
      INFO("party " << u << " named: " << why.text());
      CHECK(r.deviating.count(u) == 1);
    }
    for (const auto& [u, why] : r.excluded) {
      INFO("party " << u << " excluded: " << why.text());
      CHECK(r.deviating.count(u) == 1);
    }
    CHECK(r.withheld.find("does not follow from the revealed seed") != std::string::npos);
    CHECK(r.estimate.empty());
    AuditReport a = audit_session(*board);
    for (const auto& c : a.checks) {
      INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
      if (c.name == "result withheld") CHECK(c.status == CheckStatus::pass);
      if (c.name == "no party's input computable from the board") CHECK(c.status == CheckStatus::pass);
    }
    for (const auto& [u, why] : a.misbehaving) CHECK(r.deviating.count(u) == 1);
  }
  CHECK(layout_seen);
  run_and_check({{CheatKind::noise, 2}, {CheatKind::output, 1}, {CheatKind::range, 1}}, 1, 43);
}

TEST_CASE("Every offence has its own name, which parses back, and a sentence", "[protocol][run][blame]") {
  std::set<std::string> names;
  for (std::size_t i = 0; i < kOffences.size(); ++i) {
    const Offence o = kOffences[i];
    CHECK(static_cast<std::size_t>(o) == i);  // every value of the enum, in order
    const std::string name = offence_name(o);
    INFO(name);
    CHECK_FALSE(name.empty());
    CHECK(name != "?");
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz-") == std::string::npos);
    CHECK(names.insert(name).second);
    CHECK(offence_from_name(name) == o);
    const Blame bare{o, ""};
    CHECK_FALSE(bare.text().empty());
    CHECK(bare.text() != "?");
    const Blame detailed{o, "round 7"};
    CHECK(detailed.text() == bare.text() + ": round 7");
  }
  CHECK(static_cast<std::size_t>(Offence::no_masked) + 1 == kOffences.size());  // the last value
  CHECK_FALSE(offence_from_name("").has_value());
  CHECK_FALSE(offence_from_name("Range").has_value());
  // Only offences for a message missing at a close are not attested by the board.
  for (const Offence o : {Offence::randomness_missing, Offence::reveal_withheld, Offence::seed_missing, Offence::unsettled,
                          Offence::committee_missing, Offence::dropout, Offence::no_masked}) {
    CHECK_FALSE(attested(o));
  }
  for (const Offence o : {Offence::malformed, Offence::misplaced, Offence::false_randomness, Offence::false_seed,
                          Offence::neighbours, Offence::range, Offence::cancel, Offence::noise, Offence::noise_share,
                          Offence::committee, Offence::output}) {
    CHECK(attested(o));
  }
}

TEST_CASE("Cheat names parse", "[protocol][run]") {
  CHECK(cheat_from_name("cancel") == CheatKind::cancel);
  CHECK_FALSE(cheat_from_name("bogus").has_value());
  RunConfig cfg = config(4, 1, 50);
  cfg.cheats[CheatKind::output] = 4;  // nobody honest would remain
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  CHECK_FALSE(run_session(cfg, *board).ok());
}

TEST_CASE("A roster longer than one board entry: the setup spans several entries and every party finds its keys",
          "[protocol][run][roster][large-session]") {
  // 1,001 parties: the setup entry carries keys 0..999, one party_key entry carries key 1000.
  // Only parties 0 and 1000 run; the others never appear, so the first round closes on its
  // timeout and they are excluded as missing (later rounds wait for parties 0 and 1000 only).
  // The timeout must leave the two running parties time for their first round even in a
  // sanitizer build on a loaded machine, or they are excluded too: it costs one wait.
  const std::uint32_t n = 1001;
  SessionParams p = config(n, 1, 7).params;
  p.round_timeout_ms = 5'000;
  std::vector<PartyKeys> keys(n);
  std::vector<RosterEntry> roster;
  for (std::uint32_t u = 0; u < n; ++u) {
    for (std::size_t i = 0; i < 4; ++i) {
      keys[u].sign_seed[i] = static_cast<std::uint8_t>(u >> (8 * i));
      keys[u].box_seed[i] = static_cast<std::uint8_t>(u >> (8 * i));
    }
    keys[u].box_seed[31] = 1;
    roster.push_back(keys[u].public_entry());
  }
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  CoordinatorOptions co;
  co.params = p;
  co.roster = roster;
  co.sign_seed[0] = 0xc0;
  co.poll_ms = 10;
  std::optional<bulletin::Result<RunReport>> coordinated;
  std::map<std::uint32_t, std::optional<bulletin::Result<PartyOutcome>>> outcomes;
  for (std::uint32_t u : {0u, n - 1}) outcomes[u];
  std::vector<std::thread> threads;
  threads.emplace_back([&] { coordinated = run_coordinator(co, *board); });
  for (auto& [u, slot] : outcomes) {
    threads.emplace_back([&, u = u] {
      PartyOptions po;
      po.index = u;
      po.keys = keys[u];
      po.input = {u == 0 ? 10.0 : 30.0};
      // These parameters (σ_η = 0.01 for inputs in [0, 100]) certify ε ≈ 10^4 only: the parties
      // say they accept it, assuming no colluders.
      po.requirement = {1e5, 1e-5, 1.0};
      po.poll_ms = 10;
      outcomes[u] = run_party(po, *board);
    });
  }
  for (auto& t : threads) t.join();
  REQUIRE(coordinated.has_value());
  REQUIRE(coordinated->ok());
  // Both found their keys and took part up to round 7. With the 999 others excluded, a party
  // counts only if it is the other's neighbour; otherwise every edge it has leads to an excluded
  // party, its masked value would give its input away, and it posts none.
  for (auto& [u, o] : outcomes) {
    INFO("party " << u);
    REQUIRE(o.has_value());
    REQUIRE(o->ok());
    const PartyOutcome& po = o->value();
    if (po.counted_me) {
      REQUIRE(po.estimate.size() == 1);
      CHECK(std::fabs(po.estimate[0] - 20.0) < 0.1);
    } else {
      CHECK((po.stopped.find("would give the input away") != std::string::npos || !po.withheld.empty()));
    }
  }
  CHECK(coordinated->value().excluded.size() + coordinated->value().counted.size() == n);
  AuditReport a = audit_session(*board);
  CHECK(a.log_ok);
  for (const auto& c : a.checks) {
    INFO(c.name << ": " << c.detail);
    if (c.name == "no party's input computable from the board") CHECK(c.status == CheckStatus::pass);
    if (c.name == "released result matches the recomputation") CHECK(c.status == CheckStatus::pass);
  }
}

namespace {
// Three parties and the coordinator in threads on one board; `configure` sets each party's input
// and requirement. Party 2 is expected to refuse before posting: checks that nothing on the
// board is signed by it and that the others are counted without it.
struct ThreeParties {
  std::unique_ptr<bulletin::LocalBoard> board;
  std::vector<RosterEntry> roster;
  std::optional<bulletin::Result<RunReport>> coordinated;
  std::vector<std::optional<bulletin::Result<PartyOutcome>>> outcomes;
};

ThreeParties run_three(const SessionParams& p, std::uint8_t key_base,
                       const std::function<void(std::uint32_t, PartyOptions&)>& configure) {
  const std::uint32_t n = 3;
  ThreeParties t;
  std::vector<PartyKeys> keys(n);
  for (std::uint32_t u = 0; u < n; ++u) {
    keys[u].sign_seed[0] = static_cast<std::uint8_t>(u + key_base);
    keys[u].box_seed[0] = static_cast<std::uint8_t>(u + key_base);
    keys[u].box_seed[31] = key_base;
    t.roster.push_back(keys[u].public_entry());
  }
  t.board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  CoordinatorOptions co;
  co.params = p;
  co.roster = t.roster;
  co.sign_seed[0] = static_cast<std::uint8_t>(0xc0 + key_base);
  co.poll_ms = 10;
  t.outcomes.resize(n);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { t.coordinated = run_coordinator(co, *t.board); });
  for (std::uint32_t u = 0; u < n; ++u) {
    threads.emplace_back([&, u] {
      PartyOptions po;
      po.index = u;
      po.keys = keys[u];
      po.poll_ms = 10;
      configure(u, po);
      t.outcomes[u] = run_party(po, *t.board);
    });
  }
  for (auto& th : threads) th.join();
  return t;
}

void check_party_2_refused_silently(const ThreeParties& t) {
  const auto entries = t.board->read(0, t.board->size());
  REQUIRE(entries.ok());
  for (const auto& bytes : entries.value()) {
    const auto e = bulletin::decode_entry(bytes);
    REQUIRE(e.ok());
    CHECK_FALSE(e.value().sender == t.roster[2].sign_key);
  }
  REQUIRE(t.coordinated.has_value());
  REQUIRE(t.coordinated->ok());
  CHECK(t.coordinated->value().counted == std::vector<std::uint32_t>{0, 1});
  CHECK(t.coordinated->value().excluded.count(2) == 1);
}
}  // namespace

TEST_CASE("A party refuses an input outside the session's domain [0, M] before it posts anything",
          "[protocol][run][domain]") {
  // M = 1 (the coordinator's --input-max 1): inputs 0.5, 0.5 and 60000. The third party refuses
  // at once and posts nothing; the others finish without it.
  SessionParams p = config(3, 1, 8).params;
  p.input_max = std::uint64_t{1} << 16;
  // k = 2 of 3 parties: parties 0 and 1 always share an edge (with k = 1 both may pick party 2,
  // one session in four, and then neither may post its masked value).
  p.neighbors = 2;
  p.round_timeout_ms = 3'000;
  p.min_round_ms = 1'000;
  const ThreeParties t = run_three(p, 1, [](std::uint32_t u, PartyOptions& po) {
    po.input = {u == 2 ? 60000.0 : 0.5};
    po.requirement = {1e5, 1e-5, 1.0};  // σ_η = 0.01 certifies ε ≈ 10^3 here
  });
  REQUIRE(t.outcomes[2].has_value());
  REQUIRE_FALSE(t.outcomes[2]->ok());
  CHECK(t.outcomes[2]->error().message.find("outside this session's input domain [0, 1") != std::string::npos);
  check_party_2_refused_silently(t);
}

TEST_CASE("A party refuses parameters that do not meet its privacy requirement before it posts anything",
          "[protocol][run][requirement]") {
  // σ_η = 0.1 for inputs in [0, 1] among 3 parties certifies ε ≈ 40 only. Parties 0 and 1 accept
  // that (ε ≤ 1000, no colluders); party 2 asks for ε ≤ 1 and refuses at once, saying why, and
  // posts nothing; the others finish without it.
  SessionParams p = config(3, 1, 10).params;
  p.input_max = std::uint64_t{1} << 16;
  p.neighbors = 2;
  p.sigma_eta = 0.1;
  p.sigma_delta = 20.0;
  p.round_timeout_ms = 3'000;
  p.min_round_ms = 1'000;
  const ThreeParties t = run_three(p, 11, [](std::uint32_t u, PartyOptions& po) {
    po.input = {0.5};
    po.requirement = u == 2 ? PrivacyRequirement{1.0, 1e-5, 1.0} : PrivacyRequirement{1e3, 1e-5, 1.0};
  });
  REQUIRE(t.outcomes[2].has_value());
  REQUIRE_FALSE(t.outcomes[2]->ok());
  CHECK(t.outcomes[2]->error().code == bulletin::Errc::invalid_argument);
  const std::string why = t.outcomes[2]->error().message;
  INFO(why);
  CHECK(why.find("certified epsilon = ") != std::string::npos);
  CHECK(why.find("> required 1 ") != std::string::npos);
  CHECK(why.find("sigma_eta = 0.1") != std::string::npos);
  const Certificate c = certify_session(p, 1.0, 1e-5);
  CHECK(c.certified);
  CHECK(c.epsilon > 1.0);
  CHECK(c.epsilon <= 1e3);
  for (std::uint32_t u : {0u, 1u}) {
    REQUIRE(t.outcomes[u].has_value());
    REQUIRE(t.outcomes[u]->ok());
    CHECK(t.outcomes[u]->value().counted_me);
  }
  check_party_2_refused_silently(t);
}

TEST_CASE("An incomplete or tampered roster is no session", "[protocol][run][roster]") {
  SessionParams p = config(1001, 1, 9).params;
  SetupMessage setup{p, {}};
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    PartyKeys k;
    for (std::size_t i = 0; i < 4; ++i) k.sign_seed[i] = k.box_seed[i] = static_cast<std::uint8_t>(u >> (8 * i));
    k.box_seed[31] = 1;
    setup.roster.push_back(k.public_entry());
  }
  auto entries = setup.encode_entries();
  REQUIRE(entries.size() == 2);
  auto post_all = [&](bulletin::Board& board, const std::vector<Bytes>& payloads) {
    const Key32 seed{0xc0};
    const auto key = bulletin::SigningKey::from_seed(seed);
    for (std::size_t i = 0; i < payloads.size(); ++i) {
      bulletin::Entry e;
      e.session_id = p.session_id();
      e.round = 1;
      e.type = i == 0 ? bulletin::MessageType::session_setup : bulletin::MessageType::party_key;
      e.sequence = i;
      e.payload = payloads[i];
      REQUIRE(board.append(bulletin::sign_entry(e, key)).ok());
    }
  };
  auto detail_of_setup_check = [](const AuditReport& a) {
    std::string all;
    for (const auto& c : a.checks) all += c.name + ": " + c.detail + "\n";
    return all;
  };
  SECTION("only the setup entry: incomplete") {
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    post_all(*board, {entries[0]});
    AuditReport a = audit_session(*board);
    CHECK_FALSE(a.all_passed());
    CHECK(detail_of_setup_check(a).find("1000 of 1001 roster keys") != std::string::npos);
  }
  SECTION("a key changed in the party_key entry: refused by the digest") {
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    entries[1][20] ^= 1;
    post_all(*board, entries);
    AuditReport a = audit_session(*board);
    CHECK_FALSE(a.all_passed());
    CHECK_FALSE(a.log_ok);
    CHECK(detail_of_setup_check(a).find("does not match the digest") != std::string::npos);
  }
}

namespace {
// A hidden-noise session: one Box–Muller sample per coordinate from a committee of c, with the
// insecure 704-bit test moduli (fast) and 8 fractional bits.
RunConfig hidden_config(std::uint32_t n, std::uint32_t d, std::uint32_t c, std::uint64_t seed) {
  RunConfig cfg = config(n, d, seed);
  cfg.params.noise = NoiseMode::hidden;
  cfg.params.committee = static_cast<std::uint8_t>(c);
  cfg.params.paillier_bits = 704;
  cfg.params.sampler = SamplerKind::box_muller;
  cfg.params.sampler_precision = 8;
  cfg.params.sigma_eta = 1.0;  // σ of the single hidden sample
  return cfg;
}

// Committee members among the parties that deviated (cheat or drop-out).
std::size_t deviating_members(const RunReport& r) {
  std::size_t count = 0;
  for (auto m : r.committee) count += r.deviating.count(m);
  return count;
}

std::string check_detail(const AuditReport& a, std::string_view name) {
  for (const auto& c : a.checks) {
    if (c.name.find(name) != std::string::npos) return std::string(check_status_name(c.status)) + ": " + c.detail;
  }
  return "(no such check)";
}
}  // namespace

TEST_CASE("Hidden noise end to end: the committee's shares carry η once, every log verifies", "[protocol][run][hidden]") {
  RunConfig cfg = hidden_config(10, 3, 3, 21);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  for (const auto& [u, why] : r.excluded) UNSCOPED_INFO("party " << u << " excluded: " << why.text());
  CHECK(r.withheld.empty());
  CHECK(r.committee.size() == 3);
  CHECK(r.committee_attempts == 2);  // ⌈3/2⌉ calls, no abort
  CHECK(r.committee_bytes > 10'000);
  CHECK(r.counted.size() == 10);
  REQUIRE(r.estimate.size() == 3);
  for (std::uint32_t j = 0; j < 3; ++j) {
    // The average carries η_j/n with η_j ~ N(0, 1): within 6σ/n of the mean.
    CHECK(std::fabs(r.estimate[j] - true_mean(cfg, j)) < 6.0 / 10.0);
    CHECK(r.estimate[j] != true_mean(cfg, j));
  }
  // A member's published X̂ carries a uniform share of η: far from any input.
  const std::uint32_t member = r.committee[0];
  bool far = false;
  for (std::uint32_t j = 0; j < 3; ++j) far = far || std::isnan(r.published.at(member)[j]) || std::fabs(r.published.at(member)[j]) > 1e6;
  CHECK(far);
  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.all_passed());
  CHECK(a.misbehaving.empty());
  CHECK(a.estimate == r.estimate);
  CHECK(check_detail(a, "committee logs verified").rfind("PASS", 0) == 0);
  CHECK(check_detail(a, "carried exactly once").rfind("PASS", 0) == 0);
}

TEST_CASE("Hidden noise: a deviating committee member is named, the committee restarts without it",
          "[protocol][run][hidden][cheat]") {
  RunConfig cfg = hidden_config(10, 1, 4, 23);
  cfg.cheats[CheatKind::committee] = 1;
  cfg.cheats[CheatKind::noise] = 1;
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  REQUIRE(r.deviating.size() == 2);
  CHECK(r.committee_attempts == 2);
  for (const auto& [u, kind] : r.deviating) {
    INFO("party " << u << " (" << kind << ")");
    REQUIRE(r.excluded.count(u) == 1);
    const Blame& why = r.excluded.at(u);
    INFO("excluded: " << why.text());
    if (kind == "committee") {
      CHECK(why.offence == Offence::committee);
      CHECK(why.detail.rfind("call 0, attempt 0, ", 0) == 0);
    }
    if (kind == "noise") CHECK(why.offence == Offence::noise_share);
  }
  for (const auto& [u, why] : r.excluded) CHECK(r.deviating.count(u) == 1);
  CHECK(r.withheld.empty());
  REQUIRE(r.estimate.size() == 1);
  AuditReport a = audit_session(*board);
  CHECK(a.misbehaving.size() == 2);
  for (const auto& [u, why] : a.misbehaving) CHECK(r.deviating.count(u) == 1);
  CHECK(a.estimate == r.estimate);
  CHECK(check_detail(a, "released result").rfind("PASS", 0) == 0);
}

TEST_CASE("Hidden noise: members excluded for a deviation open their shares; a missing member's share withholds the result",
          "[protocol][run][hidden][cheat][heavy]") {
  SECTION("excluded for a bad range proof: its share is opened, the result still carries η once") {
    RunConfig cfg = hidden_config(10, 1, 3, 34);  // a layout with 1 or 2 cheating members
    cfg.cheats[CheatKind::range] = 7;
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto report = run_session(cfg, *board);
    REQUIRE(report.ok());
    const RunReport& r = report.value();
    const std::size_t cheating_members = deviating_members(r);
    REQUIRE(cheating_members >= 1);
    REQUIRE(cheating_members < 3);
    CHECK(r.withheld.empty());
    CHECK(r.counted.size() == 3);
    AuditReport a = audit_session(*board);
    const std::string once = check_detail(a, "carried exactly once");
    INFO(once);
    CHECK(once.rfind("PASS: " + std::to_string(cheating_members) + " uncounted member(s) opened", 0) == 0);
    CHECK(check_detail(a, "released result").rfind("PASS", 0) == 0);
    REQUIRE(r.estimate.size() == 1);
    double mean = 0;
    for (auto u : r.counted) mean += cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[u][0]));
    mean /= 3.0;
    CHECK(std::fabs(r.estimate[0] - mean) < 6.0 / 3.0);
  }
  SECTION("a member excluded only for a missing message keeps its share: no result is released") {
    // It may be an honest member that a coordinator cut off; its opened share would hand η to
    // the counted holders, who may all collude.
    RunConfig cfg = hidden_config(10, 1, 3, 29);
    cfg.cheats[CheatKind::missing] = 7;
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto report = run_session(cfg, *board);
    REQUIRE(report.ok());
    const RunReport& r = report.value();
    REQUIRE(deviating_members(r) >= 1);
    INFO(r.withheld);
    CHECK(r.withheld.find("must not open its share of the hidden noise") != std::string::npos);
    CHECK(r.estimate.empty());
    std::size_t shares = 0;
    auto cp = board->checkpoint();
    REQUIRE(cp.ok());
    auto entries = board->read(0, bulletin::open_checkpoint(cp.value(), board->verifier()).value().size);
    REQUIRE(entries.ok());
    for (const auto& raw : entries.value()) {
      auto e = bulletin::decode_entry(raw);
      REQUIRE(e.ok());
      shares += e.value().type == bulletin::MessageType::noise_share;
    }
    CHECK(shares == 0);
    AuditReport a = audit_session(*board);
    CHECK(check_detail(a, "result withheld").rfind("PASS", 0) == 0);
    CHECK(check_detail(a, "carried exactly once").rfind("FAIL", 0) == 0);
    CHECK(a.estimate.empty());
  }
  SECTION("a member drops out after the committee ran: no result is released, the audit says why") {
    RunConfig cfg = hidden_config(10, 1, 3, 27);
    cfg.dropouts = 7;
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto report = run_session(cfg, *board);
    REQUIRE(report.ok());
    const RunReport& r = report.value();
    const std::size_t dropped_members = deviating_members(r);
    REQUIRE(dropped_members >= 1);
    CHECK(r.withheld.find("must not open its share of the hidden noise") != std::string::npos);
    CHECK(r.estimate.empty());
    AuditReport a = audit_session(*board);
    CHECK(check_detail(a, "result withheld").rfind("PASS", 0) == 0);
    CHECK(check_detail(a, "carried exactly once").rfind("FAIL", 0) == 0);
    CHECK(a.estimate.empty());  // no estimate: the sum lacks a share of η
  }
}

TEST_CASE("Hidden noise: a committee message out of place names only its sender, the result is released",
          "[protocol][run][hidden][misplaced][heavy]") {
  // A committee of 3; the messages of call 0, attempt 0 are rewritten before they are posted.
  // The committee is drawn from the joint randomness, which the test learns from the first log.
  struct Case {
    const char* name;
    bool outsider;  // the message comes from a party off the committee (else from member 2)
    int where;      // 0: before member 1's turn, 1: after the end of the log
  };
  const Case cases[] = {
      {"a non-member's message before member 1's turn", true, 0},
      {"member 2's next message posted before a message of the phase before (its turn had not come)", false, 0},
      {"a non-member's message after the end of the log", true, 1},
      {"a member's surplus message after the end of the log", false, 1},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      RunConfig cfg = hidden_config(10, 1, 3, 31);
      std::uint32_t sender = 0;
      cfg.committee_posts = [&](std::uint32_t call, std::uint32_t attempt, std::vector<sampling::HiddenMessage>& log) {
        if (call != 0 || attempt != 0) return;
        std::vector<std::uint32_t> members;
        for (const auto& m : log)
          if (std::find(members.begin(), members.end(), m.member) == members.end()) members.push_back(m.member);
        REQUIRE(members.size() == 3);
        const auto at = [](std::size_t k) { return static_cast<std::ptrdiff_t>(k); };
        // Member 1's first triple-products message, and member 2's.
        std::size_t turn = 0, next = 0;
        while (!(log[turn].member == members[1] && log[turn].kind == sampling::HiddenKind::kTripleProducts)) ++turn;
        while (!(log[next].member == members[2] && log[next].kind == sampling::HiddenKind::kTripleProducts)) ++next;
        sampling::HiddenMessage m = log[next];
        if (c.outsider) {
          sender = 0;
          while (std::find(members.begin(), members.end(), sender) != members.end()) ++sender;
          m.member = sender;
          m.seq = 0;
        } else {
          sender = members[2];
          if (c.where == 1) m = log.back();  // a copy of member 2's last message
        }
        if (c.where == 0) {
          if (!c.outsider) {
            // Before the last triple-replies message, which member 2 had to read first (within a
            // phase the members post in any order: before member 1's products names nobody).
            log.erase(log.begin() + at(next));
            std::size_t first = 0;
            while (log[first].kind != sampling::HiddenKind::kTripleProducts) ++first;
            REQUIRE(log[first - 1].kind == sampling::HiddenKind::kTripleReplies);
            turn = first - 1;
          }
          log.insert(log.begin() + at(turn), m);
        } else {
          log.push_back(m);
        }
      };
      auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
      auto report = run_session(cfg, *board);
      REQUIRE(report.ok());
      const RunReport& r = report.value();
      for (const auto& [u, why] : r.excluded) UNSCOPED_INFO("party " << u << " excluded: " << why.text());
      for (const auto& [u, why] : r.named) UNSCOPED_INFO("party " << u << " named: " << why.text());
      CHECK(r.excluded.empty());
      CHECK(r.committee_attempts == 1);
      REQUIRE(r.named.size() == 1);
      REQUIRE(r.named.count(sender) == 1);
      CHECK(r.named.at(sender).offence == Offence::misplaced);
      CHECK(r.withheld.empty());
      CHECK(r.counted.size() == 10);
      REQUIRE(r.estimate.size() == 1);
      AuditReport a = audit_session(*board);
      for (const auto& ch : a.checks) INFO(ch.name << ": " << check_status_name(ch.status) << " " << ch.detail);
      REQUIRE(a.misbehaving.size() == 1);
      CHECK(a.misbehaving.count(sender) == 1);
      CHECK(a.estimate == r.estimate);
      CHECK(check_detail(a, "released result").rfind("PASS", 0) == 0);
    }
  }
}

namespace {
// The L2 ball ‖x‖₂ ≤ C = 10 at d = 8: signed inputs, each row scaled to a norm in [0, C]
// (two's complement in RunConfig::inputs), one row exactly on the sphere.
RunConfig ball_config(std::uint32_t n, std::uint64_t seed) {
  const std::uint32_t d = 8;
  RunConfig cfg = config(n, d, seed);
  cfg.params.input_domain = InputDomain::l2_ball;
  cfg.params.input_max = std::uint64_t{10} << 16;
  cfg.inputs.clear();
  DeterministicRng rng(seed);
  for (std::uint32_t u = 0; u < n; ++u) {
    std::vector<double> x(d);
    for (double& v : x) v = static_cast<double>(rng.uniform(2001)) - 1000.0;
    double n2 = 0;
    for (double v : x) n2 += v * v;
    const double radius = u == 0 ? 10.0 : 10.0 * static_cast<double>(rng.uniform(1001)) / 1000.0;
    for (double& v : x) v *= n2 > 0 ? radius / std::sqrt(n2) : 0.0;
    const auto fx = cfg.params.fixed_ball_input(x);
    REQUIRE(fx.has_value());
    std::vector<std::uint64_t> row;
    for (std::int64_t v : *fx) row.push_back(static_cast<std::uint64_t>(v));
    cfg.inputs.push_back(row);
  }
  return cfg;
}

double ball_mean(const RunConfig& cfg, const std::vector<std::uint32_t>& counted, std::uint32_t j) {
  double s = 0;
  for (auto u : counted) s += cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[u][j]));
  return s / static_cast<double>(counted.size());
}
}  // namespace

TEST_CASE("The L2 ball end to end (d = 8): every honest party counted, the average correct, the audit passes",
          "[protocol][run][ball][tsan]") {
  const RunConfig cfg = ball_config(10, 71);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  CHECK(r.counted.size() == 10);
  CHECK(r.excluded.empty());
  REQUIRE(r.estimate.size() == 8);
  bool some_negative = false;
  for (std::uint32_t j = 0; j < 8; ++j) {
    const double mean = ball_mean(cfg, r.counted, j);
    some_negative = some_negative || mean < 0;
    CHECK(std::fabs(r.estimate[j] - mean) < 6 * 0.01 / std::sqrt(10.0) + 1e-4);
  }
  CHECK(some_negative);  // signed inputs survive the Z_ℓ embedding
  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.all_passed());
  CHECK(a.estimate == r.estimate);
  bool domain_checked = false;
  for (const auto& c : a.checks) {
    if (c.name == "input domain proofs") {
      domain_checked = c.status == CheckStatus::pass && c.detail.find("10/10 valid") != std::string::npos &&
                       c.detail.find("L2 ball") != std::string::npos;
    }
  }
  CHECK(domain_checked);
}

TEST_CASE("The L2 ball: a party with ‖x‖₂ > C, or a forged proof, is excluded and named", "[protocol][run][ball][cheat]") {
  for (auto kind : {CheatKind::range, CheatKind::forge}) {
    DYNAMIC_SECTION("cheat " << cheat_name(kind)) {
      RunConfig cfg = ball_config(10, 80 + static_cast<std::uint64_t>(kind));
      cfg.cheats = {{kind, 2}};
      auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
      auto report = run_session(cfg, *board);
      REQUIRE(report.ok());
      const RunReport& r = report.value();
      REQUIRE(r.deviating.size() == 2);
      CHECK(r.excluded.size() == 2);
      for (const auto& [u, why] : r.deviating) {
        REQUIRE(r.excluded.count(u) == 1);
        CHECK(r.excluded.at(u).offence == Offence::range);
        CHECK(r.excluded.at(u).detail.find("input outside the L2 ball of radius C = 10") != std::string::npos);
      }
      CHECK(r.counted.size() == 8);
      for (std::uint32_t j = 0; j < 8; ++j) {
        CHECK(std::fabs(r.estimate[j] - ball_mean(cfg, r.counted, j)) < 6 * 0.01 / std::sqrt(8.0) + 1e-4);
      }
      AuditReport a = audit_session(*board);
      CHECK(a.counted == r.counted);
      CHECK(a.estimate == r.estimate);
      CHECK(a.misbehaving.size() == 2);
      for (const auto& [u, why] : a.misbehaving) CHECK(r.deviating.count(u) == 1);
    }
  }
}

TEST_CASE("The L2 ball: run_session and a party refuse inputs outside the ball before posting",
          "[protocol][run][ball][domain]") {
  RunConfig cfg = ball_config(4, 72);
  cfg.inputs[3][0] = (std::uint64_t{10} << 16) + 1;  // one ulp above C on one axis
  for (std::uint32_t j = 1; j < 8; ++j) cfg.inputs[3][j] = 0;
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto r = run_session(cfg, *board);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("party 3") != std::string::npos);
  CHECK(r.error().message.find("exceeds the ball's radius") != std::string::npos);
  cfg.inputs[3][0] = static_cast<std::uint64_t>(-(std::int64_t{10} << 16));  // −C is in the ball
  CHECK(run_session(cfg, *board).ok());

  // Separate processes: party 2's vector (0.6, 0.85) has norm 1.04 > C = 1; it posts nothing.
  SessionParams p = config(3, 2, 9).params;
  p.input_domain = InputDomain::l2_ball;
  p.input_max = std::uint64_t{1} << 16;
  p.neighbors = 2;  // parties 0 and 1 always share an edge (above)
  p.round_timeout_ms = 3'000;
  p.min_round_ms = 1'000;
  const ThreeParties t = run_three(p, 11, [](std::uint32_t u, PartyOptions& po) {
    po.input = u == 2 ? std::vector<double>{0.6, 0.85} : std::vector<double>{-0.6, 0.8};
    po.requirement = {1e5, 1e-5, 1.0};  // σ_η = 0.01 certifies ε ≈ 10^3 at 2C = 2
  });
  REQUIRE(t.outcomes[2].has_value());
  REQUIRE_FALSE(t.outcomes[2]->ok());
  INFO(t.outcomes[2]->error().message);
  CHECK(t.outcomes[2]->error().message.find("‖x‖₂ = 1.04") != std::string::npos);
  CHECK(t.outcomes[2]->error().message.find("L2 ball of radius 1") != std::string::npos);
  check_party_2_refused_silently(t);
  REQUIRE(t.outcomes[0].has_value());
  REQUIRE(t.outcomes[0]->ok());
  REQUIRE(t.outcomes[0]->value().estimate.size() == 2);
  CHECK(std::fabs(t.outcomes[0]->value().estimate[0] + 0.6) < 0.1);
  CHECK(std::fabs(t.outcomes[0]->value().estimate[1] - 0.8) < 0.1);
}

TEST_CASE("Chunked messages end to end: reordered chunks count, withheld or spliced ones exclude only their sender, a round closed between chunks makes a drop-out",
          "[protocol][run][chunks][coordinator][large-session]") {
  // d = 1200: a party's commitment message (two points per coordinate, about 35 bytes of noise
  // proof and sample commitment per sample, the input-domain proof) passes one board entry and
  // travels in two chunks. Party 0 posts its chunks in reverse order, party 1
  // withholds its last one, party 2 splices in a chunk of another message of its own; party 3 is
  // honest throughout. Party 4 is honest too, but the coordinator closes round 6 after its first
  // chunk: its message is incomplete when the round closes and its other chunks land late.
  RunConfig cfg = config(5, 1200, 61);
  cfg.early_close = RunConfig::EarlyClose{4, {6}, 1};  // round 6: commitments
  cfg.chunk_posts = [](std::uint32_t u, bulletin::MessageType type, std::uint32_t, std::vector<Bytes>& chunks) {
    if (type != bulletin::MessageType::commitment) return;
    REQUIRE(chunks.size() >= 2);  // party 4's close falls between two chunks
    if (u == 0) std::reverse(chunks.begin(), chunks.end());
    if (u == 1) chunks.pop_back();
    if (u == 2) {
      // The same message with one byte changed, chunked again: its chunk 1 has another digest.
      const auto h = decode_chunk(chunks[0]);
      REQUIRE(h.has_value());
      Bytes other;
      for (const Bytes& c : chunks) other.insert(other.end(), c.begin() + kChunkHeader, c.end());
      other.back() ^= 1;
      chunks[1] = chunk_payloads(other)[1];
    }
  };
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  INFO(r.withheld);
  CHECK(r.counted == std::vector<std::uint32_t>{0, 3});
  REQUIRE(r.excluded.count(1) == 1);
  REQUIRE(r.excluded.count(2) == 1);
  INFO(r.excluded.at(1).text());
  INFO(r.excluded.at(2).text());
  CHECK(r.excluded.at(1).offence == Offence::dropout);  // withheld: missing, as a drop-out
  CHECK(r.excluded.at(2).offence == Offence::malformed);
  CHECK(r.excluded.at(2).detail.find("chunks of two different messages") != std::string::npos);
  // Party 4 is a drop-out (no complete commitment before the close), neither malformed nor named.
  REQUIRE(r.excluded.count(4) == 1);
  INFO(r.excluded.at(4).text());
  CHECK(r.excluded.at(4).offence == Offence::dropout);
  CHECK(r.excluded.at(4).text().find("chunk") == std::string::npos);
  CHECK(r.named.count(4) == 0);
  REQUIRE(r.estimate.size() == 1200);
  for (std::uint32_t j : {0U, 511U, 512U, 1199U}) {
    const double mean = (cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[0][j])) +
                         cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[3][j]))) / 2;
    CHECK(std::fabs(r.estimate[j] - mean) < 1.0);
  }
  AuditReport a = audit_session(*board);
  CHECK(a.estimate == r.estimate);
  CHECK(check_detail(a, "released result").rfind("PASS", 0) == 0);
  CHECK(a.misbehaving.count(0) == 0);
  CHECK(a.misbehaving.count(3) == 0);
  REQUIRE(a.excluded.count(4) == 1);
  CHECK(a.excluded.at(4).offence == Offence::dropout);
  CHECK(a.excluded.at(4).text() == "no commitments published (dropped out)");
  CHECK(a.named.count(4) == 0);
  CHECK(std::find(a.exposed.begin(), a.exposed.end(), 4U) == a.exposed.end());
  CHECK(check_detail(a, "no party's input computable from the board").rfind("PASS", 0) == 0);
}
