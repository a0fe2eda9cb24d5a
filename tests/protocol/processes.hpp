// Test helper: a session played by a coordinator and every party as run_coordinator / run_party
// threads over one board, as separate processes would play it (test_adversary, test_chain).
#pragma once

#include <functional>
#include <map>
#include <optional>
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

}  // namespace gopa::protocol::processes
