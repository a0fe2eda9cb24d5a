// The joint randomness and the recovery under attack (docs/protocol.md § Joint randomness,
// § Recovery; docs/privacy.md § 10):
//   - colluders that withhold their randomness reveals after reading the honest ones restart the
//     draw, at most randomness_restarts times, and are excluded; past that the session ends
//     without a result, and the accountant counts every draw they could pick from;
//   - a coordinator that closes any round at the worst moment for an honest party leaves that
//     party at worst excluded as a drop-out, with nothing of its input computable from the board.
#include <catch2/catch.hpp>

#include <set>

#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/requirements.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;

namespace {

RunConfig small_config(std::uint32_t n, std::uint64_t seed) {
  RunConfig cfg;
  cfg.params = SessionParams::defaults(n, 1);
  cfg.params.neighbors = 3;
  cfg.params.sigma_eta = 0.01;
  cfg.params.sigma_delta = 50.0;
  cfg.params.input_max = std::uint64_t{100} << 16;
  cfg.params.sampler = SamplerKind::clt;
  cfg.params.sampler_precision = 8;
  cfg.params.randomness_restarts = 3;
  cfg.params.nonce[0] = static_cast<std::uint8_t>(seed);
  cfg.params.nonce[1] = static_cast<std::uint8_t>(seed >> 8);
  cfg.seed = seed;
  DeterministicRng rng(seed);
  for (std::uint32_t u = 0; u < n; ++u) cfg.inputs.push_back({rng.uniform(std::uint64_t{100} << 16)});
  return cfg;
}

const AuditCheck* find_check(const AuditReport& a, const std::string& name) {
  for (const auto& c : a.checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Nobody honest named; every exclusion of an honest party is a drop-out's or a late party's; no
// honest input computable; the audit agrees with the run.
void check_nothing_honest_lost(const RunReport& r, const AuditReport& a) {
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  INFO("withheld: " << r.withheld);
  for (const auto& [u, why] : r.named) CHECK(r.deviating.count(u) == 1);
  for (const auto& [u, why] : r.excluded) {
    if (r.deviating.count(u)) continue;
    INFO("honest party " << u << " excluded: " << why.text());
    const bool as_dropout = why.offence == Offence::randomness_missing || why.offence == Offence::reveal_withheld ||
                            why.offence == Offence::seed_missing || why.offence == Offence::dropout ||
                            why.offence == Offence::no_masked;
    CHECK(as_dropout);
    CHECK_FALSE(attested(why.offence));
  }
  for (auto u : a.exposed) CHECK(r.deviating.count(u) == 1);
  const AuditCheck* exposure = find_check(a, "no party's input computable from the board");
  REQUIRE(exposure != nullptr);
  CHECK(exposure->status == CheckStatus::pass);
  CHECK(a.counted == r.counted);
  if (r.withheld.empty()) {
    CHECK(a.estimate == r.estimate);
  } else {
    const AuditCheck* w = find_check(a, "result withheld");
    REQUIRE(w != nullptr);
    CHECK(w->status == CheckStatus::pass);
    CHECK(w->detail == r.withheld);
  }
}

}  // namespace

TEST_CASE("Withheld randomness reveals restart the draw without the withholders, at most R times",
          "[protocol][randomness]") {
  const std::uint32_t n = 10;
  const std::uint8_t restarts = 3;
  for (std::uint32_t withholders = 0; withholders <= restarts + 1u; ++withholders) {
    DYNAMIC_SECTION(withholders << " colluders withhold, one per attempt") {
      RunConfig cfg = small_config(n, 400 + withholders);
      if (withholders > 0) cfg.cheats = {{CheatKind::withhold, withholders}};
      auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
      auto rep = run_session(cfg, *board);
      REQUIRE(rep.ok());
      const RunReport& r = rep.value();
      const AuditReport a = audit_session(*board);
      check_nothing_honest_lost(r, a);
      for (const auto& [u, kind] : r.deviating) {
        REQUIRE(r.excluded.count(u) == 1);
        CHECK(r.excluded.at(u).offence == Offence::reveal_withheld);
      }
      if (withholders <= restarts) {
        // Each withheld reveal cost the colluders one party and bought one more draw.
        CHECK(r.randomness_restarts == withholders);
        CHECK(r.withheld.empty());
        CHECK(r.counted.size() == n - withholders);
        REQUIRE(r.estimate.size() == 1);
      } else {
        // Past the last allowed restart there is no result, and nobody honest is blamed.
        CHECK(r.randomness_restarts == restarts);
        CHECK(r.withheld.find("lost a reveal in each of its 4 allowed attempts") != std::string::npos);
        CHECK(r.estimate.empty());
      }
      const AuditCheck* c = find_check(a, "randomness commit-reveal");
      REQUIRE(c != nullptr);
      CHECK(c->status == (withholders == 0 ? CheckStatus::pass : CheckStatus::fail));
    }
  }
}

TEST_CASE("The accountant counts every draw the colluders could pick from", "[protocol][randomness][privacy]") {
  SessionParams p = SessionParams::defaults(1000, 1);
  p.neighbors = 16;
  p.sigma_eta = 0.2;
  p.sigma_delta = 20.0;
  p.input_max = std::uint64_t{1} << 16;
  p.randomness_restarts = 0;
  const Certificate once = certify_session(p, 0.5, 1e-5, 4);
  p.randomness_restarts = 3;
  const Certificate four = certify_session(p, 0.5, 1e-5, 4);
  const double bound = disconnect_probability_bound(1000, four.malicious, 16);
  CHECK(once.randomness_candidates == 1);
  CHECK(four.randomness_candidates == 4);
  CHECK(once.graph_failure == Approx(bound));
  CHECK(four.graph_failure == Approx(4 * bound));
  CHECK(four.delta_accountant == Approx(1e-5 - 4 * bound));
}

TEST_CASE("A coordinator closing a round at the worst moment for one honest party exposes nothing of its input",
          "[protocol][recovery][coordinator]") {
  const std::uint32_t n = 8;
  // Each round alone, then every round at once; with two drop-outs so that the recovery round
  // has seeds to reveal.
  std::vector<std::set<std::uint32_t>> schedules;
  for (std::uint32_t r = 2; r <= 9; ++r) schedules.push_back({r});
  schedules.push_back({2, 3, 4, 5, 6, 7, 8, 9, 12, 13});
  for (const auto& rounds : schedules) {
    for (std::uint32_t dropouts : {0u, 2u}) {
      DYNAMIC_SECTION("rounds closed early: " << *rounds.begin() << (rounds.size() > 1 ? "…" : "") << ", drop-outs "
                                              << dropouts) {
        RunConfig cfg = small_config(n, 500 + *rounds.begin() + 20 * dropouts + rounds.size());
        cfg.dropouts = dropouts;
        auto probe_board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
        auto probe = run_session(cfg, *probe_board);
        REQUIRE(probe.ok());
        // The victim: an honest party (not a drop-out).
        std::uint32_t victim = 0;
        while (probe.value().deviating.count(victim)) ++victim;
        cfg.early_close = RunConfig::EarlyClose{victim, rounds};
        auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
        auto rep = run_session(cfg, *board);
        REQUIRE(rep.ok());
        const RunReport& r = rep.value();
        const AuditReport a = audit_session(*board);
        check_nothing_honest_lost(r, a);
        CHECK(r.named.count(victim) == 0);
        if (rounds == std::set<std::uint32_t>{8}) {
          // Its masked value landed after the close: nothing is revealed, and no result.
          CHECK(r.withheld.find("after its round closed") != std::string::npos);
          REQUIRE(r.excluded.count(victim) == 1);
          CHECK(r.excluded.at(victim).offence == Offence::no_masked);
        }
        if (rounds == std::set<std::uint32_t>{3}) {
          CHECK(r.randomness_restarts == 1);  // its late reveal restarted the draw without it
          REQUIRE(r.excluded.count(victim) == 1);
          CHECK(r.excluded.at(victim).offence == Offence::reveal_withheld);
        }
      }
    }
  }
}

TEST_CASE("Two sessions on one board: each is read and audited by its id", "[protocol][sessions]") {
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  const RunConfig first = small_config(6, 701);
  const RunConfig second = small_config(6, 702);
  auto r1 = run_session(first, *board);
  REQUIRE(r1.ok());
  auto r2 = run_session(second, *board);
  REQUIRE(r2.ok());
  CHECK(r1.value().session_id != r2.value().session_id);
  CHECK(r2.value().counted.size() == 6);
  auto ids = list_sessions(*board);
  REQUIRE(ids.ok());
  CHECK(ids.value() == std::vector<Bytes32>{r1.value().session_id, r2.value().session_id});
  for (const auto* r : {&r1.value(), &r2.value()}) {
    const AuditReport a = audit_session(*board, r->session_id);
    for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
    CHECK(a.all_passed());
    CHECK(a.estimate == r->estimate);
    REQUIRE(a.params.has_value());
    CHECK(a.params->session_id() == r->session_id);
  }
  // Without an id the audit does not guess.
  const AuditReport unsure = audit_session(*board);
  CHECK_FALSE(unsure.all_passed());
  CHECK(unsure.sessions.size() == 2);
}
