// GOPA in one process: every party and the coordinator play their rounds in lockstep on a board.
#include "party.hpp"
#include "run_internal.hpp"

namespace gopa::protocol {

using namespace detail;

const char* cheat_name(CheatKind k) noexcept {
  switch (k) {
    case CheatKind::range: return "range";
    case CheatKind::forge: return "forge";
    case CheatKind::seed: return "seed";
    case CheatKind::noise: return "noise";
    case CheatKind::cancel: return "cancel";
    case CheatKind::output: return "output";
    case CheatKind::signature: return "signature";
    case CheatKind::replay: return "replay";
    case CheatKind::missing: return "missing";
    case CheatKind::committee: return "committee";
    case CheatKind::withhold: return "withhold";
  }
  return "?";
}

std::optional<CheatKind> cheat_from_name(std::string_view name) noexcept {
  for (auto k : {CheatKind::range, CheatKind::forge, CheatKind::seed, CheatKind::cancel, CheatKind::noise, CheatKind::output, CheatKind::signature, CheatKind::replay,
                 CheatKind::missing, CheatKind::committee, CheatKind::withhold}) {
    if (name == cheat_name(k)) return k;
  }
  return std::nullopt;
}


bulletin::Result<RunReport> run_session(const RunConfig& cfg, bulletin::Board& board) {
  const SessionParams& p = cfg.params;
  if (auto why = p.validate()) return make_error(Errc::invalid_argument, *why);
  if (cfg.inputs.size() != p.parties) return make_error(Errc::invalid_argument, "one input row per party is needed");
  for (std::size_t u = 0; u < cfg.inputs.size(); ++u) {
    if (cfg.inputs[u].size() != p.dim) {
      return make_error(Errc::invalid_argument, "input row " + std::to_string(u) + " has the wrong dimension");
    }
    if (p.input_domain == InputDomain::l2_ball) {
      std::vector<std::int64_t> x;
      for (const std::uint64_t v : cfg.inputs[u]) x.push_back(static_cast<std::int64_t>(v));
      if (!p.in_ball(x)) {
        long double n2 = 0;
        for (const std::int64_t v : x) n2 += static_cast<long double>(v) * static_cast<long double>(v);
        return make_error(Errc::invalid_argument, "input of party " + std::to_string(u) + ": ‖x‖₂ = " +
                                                      fmt_real(static_cast<double>(std::sqrt(n2))) +
                                                      " exceeds the ball's radius C = " + std::to_string(p.input_max) +
                                                      " (fixed point)");
      }
      continue;
    }
    for (std::size_t j = 0; j < p.dim; ++j) {
      if (cfg.inputs[u][j] > p.input_max) {
        return make_error(Errc::invalid_argument, "input of party " + std::to_string(u) + ", coordinate " + std::to_string(j) +
                                                      ": " + std::to_string(cfg.inputs[u][j]) + " is above the domain's M = " +
                                                      std::to_string(p.input_max) + " (fixed point)");
      }
    }
  }
  std::uint64_t deviating = cfg.dropouts;
  for (const auto& [k, c] : cfg.cheats) deviating += c;
  if (deviating + 1 > p.parties) {
    return make_error(Errc::invalid_argument, "cheaters and drop-outs must leave at least one honest party");
  }
  if (auto c = cfg.cheats.find(CheatKind::committee); c != cfg.cheats.end() && c->second > 0) {
    if (p.noise != NoiseMode::hidden) return make_error(Errc::invalid_argument, "committee cheats need hidden noise");
    if (c->second + 2 > p.committee) {
      return make_error(Errc::invalid_argument, "committee cheats must leave at least two committee members");
    }
  }
  if (auto c = cfg.cheats.find(CheatKind::seed); c != cfg.cheats.end() && c->second > 0 && p.noise != NoiseMode::private_samples) {
    return make_error(Errc::invalid_argument, "seed cheats change a private noise seed: they need private noise");
  }

  RunReport report;
  const Bytes32 sid = p.session_id();
  report.session_id = sid;
  auto progress = [&](const std::string& phase, std::size_t done, std::size_t total) {
    if (cfg.progress) cfg.progress(phase, done, total);
  };
  double t0 = now_seconds();
  auto phase_done = [&](const char* name) {
    const double t1 = now_seconds();
    report.phases.push_back({name, t1 - t0});
    t0 = t1;
  };

  // The parties, and who deviates (a seeded shuffle). Each deviation is injected into its party's
  // role; the round logic is the honest one (party_role.cpp).
  std::vector<Deviation> deviations(p.parties);
  {
    std::vector<std::uint32_t> order(p.parties);
    for (std::uint32_t u = 0; u < p.parties; ++u) order[u] = u;
    DeterministicRng pick(derive_key(cfg.seed, "gopa/sim/cheaters", 0));
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[pick.uniform(i)]);
    std::size_t next = 0;
    for (const auto& [kind, count] : cfg.cheats) {
      if (kind == CheatKind::committee) continue;  // among the committee, once it is drawn
      for (std::uint32_t c = 0; c < count; ++c) {
        deviations[order[next]].cheat = kind;
        report.deviating[order[next]] = cheat_name(kind);
        ++next;
      }
    }
    for (std::uint32_t c = 0; c < cfg.dropouts; ++c) {
      deviations[order[next]].dropout = true;
      report.deviating[order[next]] = "dropout";
      ++next;
    }
    // A `withhold` cheater keeps its reveal back in one attempt (the i-th cheater in attempt i),
    // as colluders that have read the honest reveals would.
    std::uint32_t i = 0;
    for (auto& d : deviations) {
      if (d.cheat == CheatKind::withhold) d.withhold_attempt = i++;
    }
  }
  SetupMessage setup{p, {}};
  std::vector<std::unique_ptr<Party>> made;
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    made.push_back(std::make_unique<Party>(u, cfg.key_seed.value_or(cfg.seed), cfg.seed, cfg.inputs[u]));
    made.back()->chunk_posts = cfg.chunk_posts;
    setup.roster.push_back(made.back()->roster_entry());
  }
  auto shared = std::make_shared<SessionShared>(setup);  // one setup, y and graph for every role
  std::vector<std::unique_ptr<PartyRole>> roles;
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    roles.push_back(std::make_unique<PartyRole>(std::move(made[u]), shared, deviations[u]));
  }

  // Round 1: setup.
  CoordinatorRole coordinator(board, setup,
                              SigningKey::from_seed(cfg.coordinator_sign_seed ? *cfg.coordinator_sign_seed
                                                                              : derive_key(cfg.key_seed.value_or(cfg.seed), "gopa/sim/coordinator", 0)));
  if (auto st = coordinator.post_setup(); !st) return st.error();
  phase_done("setup");

  // Appends one round's entries, then the coordinator's close. A coordinator under test
  // (cfg.early_close) closes the victim's rounds after everyone else's entries (and the victim's
  // first victim_entries_before) and before the victim's others, which land late.
  using Posts = std::vector<std::pair<std::uint32_t, Bytes>>;
  auto post_round = [&](std::uint32_t r, Posts entries) -> bulletin::Status {
    const bool early = cfg.early_close && cfg.early_close->rounds.count(r) > 0;
    std::vector<Bytes> now, late;
    std::size_t victim_posted = 0;
    for (auto& [u, e] : entries) {
      const bool cut = early && u == cfg.early_close->victim && victim_posted++ >= cfg.early_close->victim_entries_before;
      (cut ? late : now).push_back(std::move(e));
    }
    if (auto st = append_all(board, now); !st) return st;
    if (auto st = coordinator.close(r); !st) return st;
    return append_all(board, late);
  };

  // Round 11 (hidden noise, between rounds 3 and 4): the committee drawn by the joint randomness
  // computes one hidden Box–Muller pair per two coordinates; every message goes on the board from
  // its member; a member named by an abort is left out of every later attempt and call.
  auto run_committee = [&](const View& v) -> bulletin::Status {
    report.committee = committee_of(v);
    std::vector<sampling::Cheat> cheats;
    if (auto c = cfg.cheats.find(CheatKind::committee); c != cfg.cheats.end()) {
      std::vector<std::uint32_t> order = report.committee;
      DeterministicRng pick(derive_key(cfg.seed, "gopa/sim/committee-cheaters", 0));
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[pick.uniform(i)]);
      for (std::uint32_t i = 0; i < c->second; ++i) {
        const std::uint32_t u = order[i];
        roles[u]->inject(CheatKind::committee);
        report.deviating[u] = cheat_name(CheatKind::committee);
        // A deviation in a step of the committee protocol, chosen from the seed (every
        // sampling::Step except the key checks).
        using sampling::Step;
        static constexpr Step kSteps[] = {
            Step::kTripleCiphertext, Step::kTripleReply,      Step::kTripleCommit,
            Step::kSacrificeOpening, Step::kMaskRange,        Step::kBitOpening,
            Step::kMulOpening,       Step::kTruncOpening,     Step::kCiphertextRange,
            Step::kCiphertextFraction, Step::kFalseComplaint};
        const Step step = kSteps[pick.uniform(std::size(kSteps))];
        cheats.push_back(sampling::Cheat{u, step, 0});
      }
    }
    const sampling::HiddenParams hp = hidden_params(p);
    DeterministicRng crng(derive_key(cfg.seed, "gopa/sim/committee", 0));
    std::vector<std::size_t> members(report.committee.begin(), report.committee.end());
    // Every member's Paillier key is made once; the first attempt's key round proves them and
    // every later attempt and call uses the proven keys.
    sampling::HiddenCommittee committee(hp, members, crng);
    for (std::uint32_t call = 0; call < hidden_calls(p); ++call) {
      for (std::uint32_t attempt = 0;; ++attempt) {
        if (const std::string why = sampling::attempt_refusal(members.size(), attempt); !why.empty()) {
          return make_error(Errc::invalid_argument, "hidden noise, call " + std::to_string(call) + ": " + why);
        }
        progress("hidden noise (committee)", call, hidden_calls(p));
        sampling::Attempt a = committee.attempt(members, cheats, crng);
        // Every member posts its messages at its turn: the log goes on the board in protocol order.
        std::vector<sampling::HiddenMessage> posts = a.log;
        if (cfg.committee_posts) cfg.committee_posts(call, attempt, posts);
        for (const auto& msg : posts) {
          if (msg.member >= roles.size()) continue;
          auto r = board.append(roles[msg.member]->party().entry(sid, kRoundCommittee, MessageType::committee,
                                                                  CommitteeMessage{call, attempt, msg}.encode()));
          if (!r) return r.error();
        }
        ++report.committee_attempts;
        if (a.output) {
          for (std::uint32_t sidx = 0; sidx < 2; ++sidx) {
            const std::uint32_t j = 2 * call + sidx;
            if (j >= p.dim) break;
            const sampling::SharedOutput& out = a.output->samples[sidx];
            for (std::size_t k = 0; k < out.members.size(); ++k) {
              roles[out.members[k]]->party().set_noise_share(p.dim, j, out.shares[k], out.blinders[k]);
            }
          }
          break;
        }
        if (a.blame) {
          // A named member does not deviate again in later calls.
          cheats.erase(std::remove_if(cheats.begin(), cheats.end(),
                                      [&](const sampling::Cheat& c) { return c.member == a.blame->member; }),
                       cheats.end());
        }
        sampling::drop_blamed(members, a.blame);
      }
    }
    progress("hidden noise (committee)", hidden_calls(p), hidden_calls(p));
    return coordinator.close(kRoundCommittee);
  };

  // Every round in the board's close order: each party's role says what it posts, given the board
  // with the rounds before closed; the coordinator closes the round after their entries.
  ProofCache cache;  // proof verdicts carry over between the judgements of later rounds
  std::map<std::uint32_t, Blame> refused;  // parties whose entries the board refused
  ViewReader reader(sid);  // one view, updated with each round's entries
  const View* view = nullptr;
  for (std::size_t i = 0;; ++i) {
    auto next = CoordinatorRole::round_to_close(reader, board, i, view, report);
    if (!next) return next.error();
    if (!next.value()) break;
    const std::uint32_t r = *next.value();
    if (r == kRoundCommittee || r == kRoundEdgeSeed || (p.linked() && r == kRoundCommit)) {
      if (report.phases.size() == 1) phase_done("joint randomness");
    }
    if (r == kRoundCommittee) {
      if (auto st = run_committee(*view); !st) return st.error();
      phase_done("hidden noise (committee)");
      continue;
    }
    Judged judged(*view, &cache);
    std::vector<PartyRole::Act> acts(p.parties);
    if (r == kRoundCommit) {
      // The provers, in parallel; their messages are then encoded on this thread. (Payloads made
      // on the provers' threads sit between their freed scratch and keep it resident: at
      // n = 10,000 the peak RSS was 748 MB instead of 188 MB.)
      std::mutex progress_mu;
      std::size_t committed = 0;
      for (std::uint32_t u = 0; u < p.parties; ++u) {
        if (!roles[u]->deviation().dropout) roles[u]->settle_edges(*view);
      }
      parallel_for(p.parties, [&](std::size_t u) {
        roles[u]->prepare(r, *view);
        if (!roles[u]->commitment()) return;
        std::lock_guard<std::mutex> lock(progress_mu);
        progress("commitments, input-domain and noise proofs", ++committed, p.parties - cfg.dropouts);
      });
      for (std::uint32_t u = 0; u < p.parties; ++u) acts[u] = roles[u]->act(r, *view, judged);
    } else {
      std::size_t edges = 0, posted = 0;
      for (std::uint32_t u = 0; u < p.parties; ++u) {
        acts[u] = roles[u]->act(r, *view, judged);
        if (r == kRoundSeedCommit) progress("seed commitments", u + 1, p.parties);
        if (r == kRoundEdgeSeed && roles[u]->graph()) {
          edges += acts[u].posts.size();
          progress("pairwise seeds", edges, roles[u]->graph()->edges());
        }
        if (r == kRoundMasked && !acts[u].posts.empty()) progress("masked values", ++posted, p.parties);
      }
    }
    // Deviations of the drivers' own: `replay` posts another party's masked value as its own.
    if (r == kRoundMasked) {
      std::vector<std::optional<Bytes>> honest(p.parties);
      for (std::uint32_t u = 0; u < p.parties; ++u) {
        if (!acts[u].posts.empty()) honest[u] = acts[u].posts.front().payload;
      }
      for (std::uint32_t u = 0; u < p.parties; ++u) {
        if (roles[u]->deviation().cheat != CheatKind::replay || acts[u].posts.empty()) continue;
        for (std::uint32_t d = 1; d < p.parties; ++d) {
          if (const auto& other = honest[(u + d) % p.parties]) {
            acts[u].posts.front().payload = *other;
            break;
          }
        }
      }
    }
    Posts round;
    for (std::uint32_t u = 0; u < p.parties; ++u) {
      for (Outgoing& o : acts[u].posts) {
        std::vector<Bytes> entries = roles[u]->party().entries(sid, o.round, o.type, std::move(o.payload), o.to);
        if (roles[u]->deviation().cheat == CheatKind::signature && o.type == MessageType::masked_value) {
          // Signed with a wrong key and appended alone, so the refusal (bad signature) is attributed.
          auto appended = board.append(entries.front());
          if (appended.ok()) return make_error(Errc::bad_signature, "the board accepted an entry with a bad signature");
          refused[u] = Blame{Offence::no_masked, "the board refused it: " + appended.error().message};
          continue;
        }
        for (Bytes& e : entries) round.emplace_back(u, std::move(e));
      }
    }
    acts.clear();
    if (auto st = post_round(r, std::move(round)); !st) return st.error();
    if (r == kRoundCommit) {
      for (const auto& role : roles) {
        if (const CommitMessage* c = role->commitment()) {
          report.proof_bytes_per_party = proof_bytes(*c);
          break;
        }
      }
    }
    if (r == kRoundBoxComplaint) phase_done("pairwise seeds");
    if (r == kRoundCancelComplaint) {
      phase_done("commit + input-domain and noise proofs");
      // Every large proof of the session is made: the provers' tables (hundreds of MB at
      // d = 10,000) are not needed by the checks and smaller proofs that follow.
      sigma::release_prover_tables();
    }
    if (r == kRoundMasked) phase_done("masked values + output proofs");
    if (r == kRoundRecovery) phase_done("drop-out recovery");
  }
  if (report.phases.size() == 1) phase_done("joint randomness");  // it failed: no later round

  // Round 10: the coordinator checks everything and releases the result, unless the verdict
  // withholds it.
  auto verdict = coordinator.release(*view, &cache, report);
  if (!verdict) return verdict.error();
  for (const auto& [u, why] : refused) report.excluded[u] = why;
  if (verdict.value().hidden) report.committee_bytes = view->committee_bytes;
  for (auto u : report.counted) report.published[u] = estimate_of(p, view->masked.at(u).xhat, 1);
  phase_done("aggregate");
  if (auto final_view = reader.update(board)) {
    report.board_entries = final_view.value()->entries;
    report.board_bytes = final_view.value()->bytes;
    report.seeds_exchanged = final_view.value()->closed.count(kRoundBoxComplaint) > 0;
  }
  return report;
}

}  // namespace gopa::protocol
