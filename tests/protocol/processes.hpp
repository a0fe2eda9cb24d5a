// Test helper: a session played by a coordinator and every party as run_coordinator / run_party
// threads over one board, as separate processes would play it (test_adversary, test_chain).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/entry.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/random.hpp"

namespace gopa::protocol::processes {

struct Setup {
  SessionParams p;
  std::vector<PartyKeys> keys;
  std::vector<RosterEntry> roster;
  std::vector<double> inputs;
};

// n parties with keys from `seed`, inputs 10 + 7u, d = 1, k = 2, and σ's too small for privacy
// (these tests are about framing; each party states a requirement they meet).
inline Setup make_setup(std::uint32_t n, std::uint64_t seed) {
  Setup s;
  s.p = SessionParams::defaults(n, 1);
  s.p.input_max = std::uint64_t{100} << 16;
  s.p.neighbors = 2;
  s.p.sigma_eta = 0.05;  // certifies ε ≈ 10^5 for M = 100 (the requirement below)
  s.p.sigma_delta = 20.0;
  s.p.sampler = SamplerKind::clt;
  s.p.sampler_precision = 8;
  s.p.round_timeout_ms = 4'000;
  s.p.min_round_ms = 1'000;
  for (std::size_t i = 0; i < 8; ++i) s.p.nonce[i] = static_cast<std::uint8_t>(seed >> (8 * i));
  s.keys.resize(n);
  DeterministicRng rng(seed * 7919 + 1);
  for (std::uint32_t u = 0; u < n; ++u) {
    rng.fill(s.keys[u].sign_seed);
    rng.fill(s.keys[u].box_seed);
    s.roster.push_back(s.keys[u].public_entry());
    s.inputs.push_back(static_cast<double>(10 + 7 * u));
  }
  return s;
}

struct Outcome {
  std::optional<bulletin::Result<RunReport>> coordinated;
  std::vector<std::optional<bulletin::Result<PartyOutcome>>> parties;
  AuditReport audit;
};

using Deviate = std::function<std::vector<bulletin::Entry>(const bulletin::Entry&)>;

// Session `p` (s's parameters, or a variant) on `board`: the coordinator (`coordinator` may
// deviate) and every party of s's roster in threads, party u driven by deviating[u] or playing
// cheats[u]; then `after` posts more once everyone has finished, and the audit of the session.
inline Outcome run_on(bulletin::Board& board, const Setup& s, const SessionParams& p,
                      const std::map<std::uint32_t, Deviate>& deviating = {},
                      const std::function<void(bulletin::Board&)>& after = {}, Deviate coordinator = {},
                      const std::map<std::uint32_t, CheatKind>& cheats = {}) {
  Outcome out;
  out.parties.resize(p.parties);
  CoordinatorOptions co;
  co.params = p;
  co.roster = s.roster;
  co.sign_seed[0] = 0xc7;
  co.poll_ms = 5;
  co.deviate = std::move(coordinator);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { out.coordinated = run_coordinator(co, board); });
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    threads.emplace_back([&, u] {
      PartyOptions po;
      po.index = u;
      po.keys = s.keys[u];
      po.input.assign(p.dim, s.inputs[u]);
      po.poll_ms = 5;
      po.session = p.session_id();
      // These tests are about framing, not about the noise: a requirement the small σ's meet.
      po.requirement = {1e6, 0.5, 1.0};
      po.requirement.min_paillier_bits = 674;  // the hidden-noise tests' insecure test moduli
      if (auto d = deviating.find(u); d != deviating.end()) po.deviate = d->second;
      if (auto c = cheats.find(u); c != cheats.end()) po.cheat = c->second;
      out.parties[u] = run_party(po, board);
    });
  }
  for (auto& t : threads) t.join();
  if (after) after(board);
  out.audit = audit_session(board, p.session_id());
  return out;
}

// The promises of verifiable averaging, with `bad` the deviating parties: nobody honest is
// excluded or named; parties, coordinator and auditor agree; no honest input is computable from
// the board; and either the released result is the recomputation over the counted parties, or the
// session ended without one for a reason every reader gives alike.
inline void check_promises(const Setup& s, const std::set<std::uint32_t>& bad, const Outcome& o) {
  REQUIRE(o.coordinated.has_value());
  INFO((o.coordinated->ok() ? std::string() : o.coordinated->error().message));
  REQUIRE(o.coordinated->ok());
  const RunReport& r = o.coordinated->value();
  for (const auto& c : o.audit.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  INFO("withheld: " << r.withheld);
  for (const auto& [u, why] : o.audit.misbehaving) INFO("audit: party " << u << ": " << why.text());
  for (auto u : o.audit.exposed) CHECK(bad.count(u) == 1);
  for (std::uint32_t u = 0; u < s.p.parties; ++u) {
    if (bad.count(u)) continue;
    INFO("honest party " << u);
    CHECK(r.excluded.count(u) == 0);
    CHECK(r.named.count(u) == 0);
    CHECK(o.audit.misbehaving.count(u) == 0);
    REQUIRE(o.parties[u].has_value());
    INFO((o.parties[u]->ok() ? std::string() : o.parties[u]->error().message));
    REQUIRE(o.parties[u]->ok());
    const PartyOutcome& po = o.parties[u]->value();
    CHECK(po.withheld == r.withheld);
    CHECK(po.excluded.count(u) == 0);
    CHECK(po.named.count(u) == 0);
    if (!r.withheld.empty()) continue;
    CHECK(po.counted_me);
    CHECK(po.counted == r.counted);
    CHECK(po.estimate == r.estimate);
  }
  CHECK(o.audit.counted == r.counted);
  for (const auto& [u, why] : r.excluded) CHECK_FALSE(why.text().empty());
  if (!r.withheld.empty()) {
    bool said = false;
    for (const auto& c : o.audit.checks) {
      if (c.name == "result withheld") said = c.status == CheckStatus::pass && c.detail == r.withheld;
    }
    CHECK(said);
    CHECK(r.estimate.empty());
    return;
  }
  // The released result is the recomputation, and the auditor agrees with the coordinator.
  CHECK(o.audit.estimate == r.estimate);
  bool released = false;
  for (const auto& c : o.audit.checks) {
    if (c.name == "released result matches the recomputation") released = c.status == CheckStatus::pass;
    if (c.name == "excluded parties' pairwise terms removed") CHECK(c.status == CheckStatus::pass);
  }
  CHECK(released);
  // The estimate is the mean of the counted parties' inputs plus small noise, in every
  // coordinate (each party's input repeats its value).
  double mean = 0;
  for (auto u : r.counted) mean += s.inputs[u];
  REQUIRE_FALSE(r.counted.empty());
  mean /= static_cast<double>(r.counted.size());
  REQUIRE(r.estimate.size() == s.p.dim);
  // Private noise (σ_η = 0.05 per party, the CLT sampler at 8 bits: 12 uniforms, so |η_u| < 6σ_η +
  // 2^-8 = 0.31 whatever the draw): within 0.5 always. Hidden noise: one Box–Muller sample of σ_η
  // on the sum, so the estimate is within 6σ_η / count: a Gaussian tail of 2.0e-9 per coordinate,
  // 1.8e-8 for the 9 such checks of test_adversary (and the sampler's 12-bit seeds at 8 bits keep
  // |η| ≤ √(26 ln 2)·σ_η ≈ 4.25σ_η in any case).
  const double tolerance =
      s.p.noise == NoiseMode::hidden ? 6.0 * s.p.sigma_eta / static_cast<double>(r.counted.size()) : 0.5;
  for (const double e : r.estimate) CHECK(std::fabs(e - mean) < tolerance);
}

}  // namespace gopa::protocol::processes
