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
  auto fail_if = [](const bulletin::Status& s) { return s.ok() ? std::optional<bulletin::Error>() : s.error(); };

  // The parties, and who deviates (a seeded shuffle).
  std::vector<std::unique_ptr<Party>> parties;
  parties.reserve(p.parties);
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    parties.push_back(std::make_unique<Party>(u, cfg.seed, cfg.inputs[u]));
    parties.back()->chunk_posts = cfg.chunk_posts;
  }
  {
    std::vector<std::uint32_t> order(p.parties);
    for (std::uint32_t u = 0; u < p.parties; ++u) order[u] = u;
    DeterministicRng pick(derive_key(cfg.seed, "gopa/sim/cheaters", 0));
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[pick.uniform(i)]);
    std::size_t next = 0;
    for (const auto& [kind, count] : cfg.cheats) {
      if (kind == CheatKind::committee) continue;  // among the committee, once it is drawn
      for (std::uint32_t c = 0; c < count; ++c) {
        parties[order[next]]->cheat = kind;
        report.deviating[order[next]] = cheat_name(kind);
        ++next;
      }
    }
    for (std::uint32_t c = 0; c < cfg.dropouts; ++c) {
      parties[order[next]]->dropout = true;
      report.deviating[order[next]] = "dropout";
      ++next;
    }
  }

  // Round 1: setup.
  SetupMessage setup{p, {}};
  for (const auto& party : parties) setup.roster.push_back(party->roster_entry());
  CoordinatorPoster coordinator(board, sid, SigningKey::from_seed(cfg.coordinator_sign_seed ? *cfg.coordinator_sign_seed : derive_key(cfg.seed, "gopa/sim/coordinator", 0)));
  auto coordinator_post = [&](std::uint32_t round, MessageType type, Bytes payload) {
    return coordinator.post(round, type, std::move(payload));
  };
  // The coordinator closes each round after its entries, as in separate processes: entries of a
  // closed round are ignored by every reader.
  auto close = [&](std::uint32_t r) { return coordinator_post(r, MessageType::round_cosignature, RoundMarker{r}.encode()); };
  {
    const auto entries = setup.encode_entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (auto e = fail_if(coordinator_post(kRoundSetup, i == 0 ? MessageType::session_setup : MessageType::party_key,
                                            entries[i]))) {
        return *e;
      }
    }
  }
  phase_done("setup");

  // Appends one round's entries, then the coordinator's close. A coordinator under test
  // (cfg.early_close) closes the victim's rounds after everyone else's entries (and the victim's
  // first victim_entries_before) and before the victim's others, which land late.
  using Posts = std::vector<std::pair<std::uint32_t, Bytes>>;
  auto post_round = [&](std::uint32_t r, Posts entries) -> std::optional<bulletin::Error> {
    const bool early = cfg.early_close && cfg.early_close->rounds.count(r) > 0;
    std::vector<Bytes> now, late;
    std::size_t victim_posted = 0;
    for (auto& [u, e] : entries) {
      const bool cut = early && u == cfg.early_close->victim && victim_posted++ >= cfg.early_close->victim_entries_before;
      (cut ? late : now).push_back(std::move(e));
    }
    if (auto e = fail_if(append_all(board, now))) return e;
    if (auto e = fail_if(close(r))) return e;
    if (auto e = fail_if(append_all(board, late))) return e;
    return std::nullopt;
  };
  // Parties that know themselves excluded (from the board) post nothing more.
  std::set<std::uint32_t> out_of_session;

  // Rounds 2–3 (and restarts 12, 13, …): joint randomness and noise-seed commitments. A
  // `withhold` cheater keeps its reveal back in one attempt (the i-th cheater in attempt i), as
  // colluders that have read the honest reveals would.
  std::map<std::uint32_t, std::uint32_t> withholds_in;
  {
    std::uint32_t i = 0;
    for (const auto& party : parties) {
      if (party->cheat == CheatKind::withhold) withholds_in[party->index()] = i++;
    }
  }
  std::optional<View> randomness_view;
  for (std::uint32_t attempt = 0;; ++attempt) {
    auto before = read_view(board, sid);
    if (!before) return before.error();
    const std::set<std::uint32_t> live = before.value().attempts.at(attempt).live;
    Posts round;
    for (auto u : live) {
      const SeedCommitMessage m = attempt == 0 ? parties[u]->seed_commit(sid, p) : parties[u]->restart_commit(sid, attempt);
      for (Bytes& e : parties[u]->entries(sid, commit_round_of(attempt), MessageType::noise_seed_commit, m.encode())) {
        round.emplace_back(u, std::move(e));
      }
      if (attempt == 0) progress("seed commitments", u + 1, p.parties);
    }
    if (auto e = post_round(commit_round_of(attempt), std::move(round))) return *e;
    round.clear();
    for (auto u : live) {
      if (auto w = withholds_in.find(u); w != withholds_in.end() && w->second == attempt) continue;
      round.emplace_back(u, parties[u]->entry(sid, reveal_round_of(attempt), MessageType::noise_seed_reveal,
                                              SeedRevealMessage{parties[u]->share()}.encode()));
    }
    if (auto e = post_round(reveal_round_of(attempt), std::move(round))) return *e;
    auto after = read_view(board, sid);
    if (!after) return after.error();
    if (after.value().final_attempt || !after.value().randomness_failed.empty()) {
      randomness_view = std::move(after).value();
      break;
    }
    ++report.randomness_restarts;
  }
  for (const auto& [u, why] : randomness_view->randomness_out) out_of_session.insert(u);
  const Key32 y = view_randomness(*randomness_view);
  const std::map<std::uint32_t, Key32> shares = opened_shares(*randomness_view);
  const Graph g = derive_graph(p.parties, p.neighbors, y);
  phase_done("joint randomness");
  const bool randomness_ok = randomness_view->randomness_failed.empty();
  randomness_view.reset();  // every later round reads the board again (and the decoded seed commitments are big)

  // Round 11 (hidden noise, between rounds 3 and 4): the committee drawn by y computes one
  // hidden Box–Muller pair per two coordinates; every message goes on the board from its
  // member; a member named by an abort is left out of every later attempt and call.
  if (p.noise == NoiseMode::hidden && randomness_ok) {
    std::vector<std::uint32_t> eligible;  // the parties whose shares made y, as every reader takes them
    for (const auto& [u, share] : shares) eligible.push_back(u);
    report.committee = select_committee(p, y, eligible);
    std::vector<sampling::Cheat> cheats;
    if (auto c = cfg.cheats.find(CheatKind::committee); c != cfg.cheats.end()) {
      std::vector<std::uint32_t> order = report.committee;
      DeterministicRng pick(derive_key(cfg.seed, "gopa/sim/committee-cheaters", 0));
      for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[pick.uniform(i)]);
      for (std::uint32_t i = 0; i < c->second; ++i) {
        const std::uint32_t u = order[i];
        parties[u]->cheat = CheatKind::committee;
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
          if (msg.member >= parties.size()) continue;
          auto r = board.append(parties[msg.member]->entry(sid, kRoundCommittee, MessageType::committee,
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
              parties[out.members[k]]->set_noise_share(p.dim, j, out.shares[k], out.blinders[k]);
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
    if (auto e = fail_if(close(kRoundCommittee))) return *e;
    phase_done("hidden noise (committee)");
  }

  // Round 4: sealed pairwise seeds, lo → hi; 4b: complaints about seeds that are missing or do
  // not open.
  std::size_t sent = 0;
  Posts round;
  for (std::uint32_t u = 0; u < p.parties && randomness_ok; ++u) {
    if (out_of_session.count(u)) continue;
    for (auto w : g.neighbours(u)) {
      if (w < u) continue;
      Bytes payload = parties[u]->seal_seed(sid, w, setup.roster[w].box_key, p);
      round.emplace_back(u, parties[u]->entry(sid, kRoundEdgeSeed, MessageType::edge_seed, std::move(payload), setup.roster[w].sign_key));
      progress("pairwise seeds", ++sent, g.edges());
    }
  }
  if (randomness_ok) {
    if (auto e = post_round(kRoundEdgeSeed, std::move(round))) return *e;
    round.clear();
    auto view = read_view(board, sid);
    if (!view) return view.error();
    for (std::uint32_t hi = 0; hi < p.parties; ++hi) {
      if (out_of_session.count(hi)) continue;
      for (auto lo : g.neighbours(hi)) {
        if (lo > hi) continue;
        auto m = view.value().edge_seeds.find({lo, hi});
        if (m != view.value().edge_seeds.end() && parties[hi]->accept_seed(sid, m->second, setup.roster[lo].box_key, p)) continue;
        parties[lo]->drop_edge(hi);
        round.emplace_back(hi, parties[hi]->entry(sid, kRoundBoxComplaint, MessageType::complaint,
                                                  ComplaintMessage{ComplaintKind::bad_box, lo, hi, {}}.encode()));
      }
    }
    if (auto e = post_round(kRoundBoxComplaint, std::move(round))) return *e;
    round.clear();
    phase_done("pairwise seeds");
  }

  // Round 6: commitments and range proofs (drop-outs have vanished).
  std::vector<std::optional<CommitMessage>> commits(p.parties);
  if (randomness_ok) {
    auto view = read_view(board, sid);
    if (!view) return view.error();
    const std::set<Edge> dropped = dropped_edges(view.value());
    std::mutex progress_mu;
    std::size_t committed = 0;
    parallel_for(parties.size(), [&](std::size_t i) {
      if (parties[i]->dropout || out_of_session.count(static_cast<std::uint32_t>(i))) return;
      for (auto w : g.neighbours(static_cast<std::uint32_t>(i))) {
        if (dropped.count(edge_of(static_cast<std::uint32_t>(i), w))) parties[i]->drop_edge(w);
      }
      commits[i] = parties[i]->commitments(sid, p, y);
      std::lock_guard<std::mutex> lock(progress_mu);
      progress("commitments, input-domain and noise proofs", ++committed, p.parties - cfg.dropouts);
    });
    for (auto& party : parties) {
      if (!commits[party->index()]) continue;
      for (Bytes& e : party->entries(sid, kRoundCommit, MessageType::commitment, commits[party->index()]->encode())) {
        round.emplace_back(party->index(), std::move(e));
      }
    }
    if (auto e = post_round(kRoundCommit, std::move(round))) return *e;
    round.clear();
    for (const auto& c : commits) {
      if (c) {
        report.proof_bytes_per_party = proof_bytes(*c);
        break;
      }
    }
    // 7 (5b): an end of an edge whose terms do not cancel reveals the edge's seed.
    std::set<Edge> revealed;
    for (std::uint32_t u = 0; u < p.parties; ++u) {
      if (!commits[u] || parties[u]->cheat) continue;  // a deviating party does not defend itself
      const CommitMessage& mu = *commits[u];
      for (std::size_t i = 0; i < mu.neighbours.size(); ++i) {
        const std::uint32_t w = mu.neighbours[i];
        if (!commits[w]) continue;
        auto k = slot_of(*commits[w], u);
        const bool cancels = k.has_value() && edge_cancels(mu, i, *commits[w], *k);
        if (cancels || !revealed.insert(edge_of(u, w)).second) continue;
        const auto e = edge_of(u, w);
        round.emplace_back(u, parties[u]->entry(sid, kRoundCancelComplaint, MessageType::complaint,
                                                ComplaintMessage{ComplaintKind::seed_reveal, e.first, e.second, *parties[u]->seed_with(w)}.encode()));
      }
    }
    if (auto e = post_round(kRoundCancelComplaint, std::move(round))) return *e;
    round.clear();
    phase_done("commit + input-domain and noise proofs");
    // Every large proof of the session is made: the provers' tables (hundreds of MB at
    // d = 10,000) are not needed by the checks and smaller proofs that follow.
    sigma::release_prover_tables();
  }

  // Proof verdicts carry over between the judgements below.
  ProofCache cache;
  // Round 8: masked values. A party posts one only if the board, with rounds 2–7 closed, still
  // counts it and leaves it a hidden edge to a counted party (masked_refusal); a drop-out or a
  // `missing` cheater publishes none; a `replay` cheater copies another party's.
  if (randomness_ok) {
    {  // one decoded view at a time: this one is gone before round 9 reads the board again
      auto view = read_view(board, sid);
      if (!view) return view.error();
      const Verdict before = judge(view.value(), g, &cache);
      std::vector<std::optional<MaskedMessage>> masked(p.parties);
      for (auto& party : parties) {
        const std::uint32_t u = party->index();
        if (party->dropout || party->cheat == CheatKind::missing || !commits[u]) continue;
        if (!party->cheat && !masked_refusal(view.value(), g, before, u).empty()) continue;
        masked[u] = party->masked(sid, p, *commits[u]);
      }
      std::size_t posted = 0;
      for (auto& party : parties) {
        const std::uint32_t u = party->index();
        if (!masked[u]) continue;
        MaskedMessage m = *masked[u];
        if (party->cheat == CheatKind::replay) {
          for (std::uint32_t d = 1; d < p.parties; ++d) {
            const std::uint32_t other = (u + d) % p.parties;
            if (masked[other]) {
              m = *masked[other];
              break;
            }
          }
        }
        std::vector<Bytes> entries = party->entries(sid, kRoundMasked, MessageType::masked_value, m.encode());
        if (party->cheat == CheatKind::signature) {
          // Appended alone, so the refusal (bad signature) is attributed.
          auto r = board.append(entries.front());
          if (r.ok()) return make_error(Errc::bad_signature, "the board accepted an entry with a bad signature");
          report.excluded[u] = "masked value refused by the board: " + r.error().message;
        } else {
          for (Bytes& e : entries) round.emplace_back(u, std::move(e));
        }
        progress("masked values", ++posted, p.parties);
      }
      if (auto e = post_round(kRoundMasked, std::move(round))) return *e;
      round.clear();
      phase_done("masked values + output proofs");
    }

    // Round 9: the counted neighbours of excluded parties reveal their edge seeds, so the excluded
    // parties' pairwise terms can be removed from the sum; excluded committee members open their
    // noise shares. Nothing is revealed when the verdict withholds the result.
    auto rv = read_view(board, sid);
    if (!rv) return rv.error();
    const Verdict verdict = judge(rv.value(), g, &cache);
    std::set<Edge> revealed_edges;
    if (verdict.withheld.empty()) {
      for (const auto& [u, why] : verdict.bad) {
        // A member opens its shares only when excluded for a deviation the board attests (never
        // an honest one); the verdict withholds the result otherwise.
        if (!parties[u]->dropout && parties[u]->holds_noise_share() && verdict.attested.count(u)) {
          for (Bytes& e : parties[u]->entries(sid, kRoundRecovery, MessageType::noise_share,
                                              parties[u]->noise_share_message(p.dim).encode())) {
            round.emplace_back(u, std::move(e));
          }
        }
      }
      for (const Edge& e : verdict.unresolved) {
        for (std::uint32_t w : {e.first, e.second}) {
          const std::uint32_t other = w == e.first ? e.second : e.first;
          if (verdict.bad.count(w) || parties[w]->dropout) continue;
          const Seed32* s = parties[w]->seed_with(other);
          if (!s || !revealed_edges.insert(e).second) continue;
          round.emplace_back(w, parties[w]->entry(sid, kRoundRecovery, MessageType::complaint,
                                                  ComplaintMessage{ComplaintKind::seed_reveal, e.first, e.second, *s}.encode()));
        }
      }
    }
    if (auto e = post_round(kRoundRecovery, std::move(round))) return *e;
    round.clear();
    phase_done("drop-out recovery");
  }

  // Round 10: the coordinator checks everything and releases the result, unless the verdict
  // withholds it.
  auto view = read_view(board, sid);
  if (!view) return view.error();
  Verdict verdict = judge(view.value(), g, &cache);
  report.withheld = verdict.withheld;
  if (verdict.hidden) report.committee_bytes = view.value().committee_bytes;
  if (verdict.withheld.empty()) {
    if (auto e = fail_if(coordinator_post(kRoundResult, MessageType::result,
                                          ResultMessage{verdict.counted, verdict.sum}.encode(p.parties)))) {
      return *e;
    }
  }
  report.counted = verdict.counted;
  for (const auto& [u, why] : verdict.bad) report.excluded.emplace(u, why);
  report.named = verdict.named;
  if (verdict.withheld.empty()) report.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  for (auto u : verdict.counted) report.published[u] = estimate_of(p, view.value().masked.at(u).xhat, 1);
  phase_done("aggregate");
  view = bulletin::Result<View>(View{});  // released before the board is read once more
  auto final_view = read_view(board, sid);
  if (final_view) {
    report.board_entries = final_view.value().entries;
    report.board_bytes = final_view.value().bytes;
  }
  return report;
}

}  // namespace gopa::protocol
