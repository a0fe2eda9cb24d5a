// The checks every reader of a session runs: proofs, cancellation, hidden noise, the verdict.
#include "run_internal.hpp"

namespace gopa::protocol::detail {

// Position of w in u's neighbour list, if there.
std::optional<std::size_t> slot_of(const CommitMessage& m, std::uint32_t w) {
  auto pos = std::lower_bound(m.neighbours.begin(), m.neighbours.end(), w);
  if (pos == m.neighbours.end() || *pos != w) return std::nullopt;
  return static_cast<std::size_t>(pos - m.neighbours.begin());
}

// Whether the pairwise terms of an edge cancel: u's vector commitment at neighbour slot i of mu,
// plus w's at slot k of mw, is the identity (D_uw + D_wu = 0, so Δ_uw = −Δ_wu in every
// coordinate by the binding of the vector commitment).
bool edge_cancels(const CommitMessage& mu, std::size_t i, const CommitMessage& mw, std::size_t k) {
  return (mu.edge_terms[i] + mw.edge_terms[k]).is_identity();
}

// Whether u's committed term on edge {u, w} follows from the edge's noise.
bool terms_follow(const CommitMessage& m, std::size_t slot, std::uint32_t u, std::uint32_t w, const EdgeNoise& z,
                  const GeneratorSet& gens) {
  return edge_commitment_public(z, u, w, gens) == m.edge_terms[slot];
}


HiddenNoise check_hidden(const View& v) {
  const SessionParams& p = v.setup->params;
  HiddenNoise h;
  h.committee = committee_of(v);
  h.expected.resize(p.dim);
  const sampling::HiddenParams hp = hidden_params(p);
  std::vector<std::size_t> members(h.committee.begin(), h.committee.end());
  std::set<std::pair<std::uint32_t, std::uint32_t>> taken;  // (call, attempt) logs read
  // The keys of the first key round that passed: every later attempt is read with them (an
  // attempt opens with a key round until one passes).
  std::optional<sampling::HiddenKeySet> keys;
  for (std::uint32_t call = 0; call < hidden_calls(p); ++call) {
    for (std::uint32_t attempt = 0;; ++attempt) {
      const std::string where = "call " + std::to_string(call) + ", attempt " + std::to_string(attempt);
      if (const std::string why = sampling::attempt_refusal(members.size(), attempt); !why.empty()) {
        h.problem = why + " (" + where + ")";
        return h;
      }
      auto it = v.committee_log.find({call, attempt});
      if (it == v.committee_log.end()) {
        h.problem = "no committee log for " + where;
        return h;
      }
      ++h.attempts;
      h.messages += it->second.size();
      taken.insert(it->first);
      sampling::HiddenVerdict verdict =
          sampling::verify_hidden_log(hp, members, it->second, keys ? &*keys : nullptr);
      if (!keys && verdict.keys) keys = std::move(verdict.keys);
      for (const auto& m : verdict.misplaced) {
        h.misplaced.emplace(m.sender, Blame{Offence::misplaced, "hidden-noise committee, " + where + ": " + m.why});
      }
      if (verdict.ok) {
        for (std::uint32_t s = 0; s < 2; ++s) {
          const std::uint32_t j = 2 * call + s;
          if (j >= p.dim) break;
          for (std::size_t k = 0; k < members.size(); ++k) {
            h.expected[j].emplace(static_cast<std::uint32_t>(members[k]), verdict.commitments[s][k]);
          }
        }
        break;
      }
      if (verdict.blame) {
        const auto who = static_cast<std::uint32_t>(verdict.blame->member);
        h.blamed.emplace(who, Blame{verdict.blame->missing ? Offence::committee_missing : Offence::committee,
                                    where + ", " + sampling::step_name(verdict.blame->step) + ": " + verdict.blame->why});
      }
      sampling::drop_blamed(members, verdict.blame);  // no blame: the same members again
    }
  }
  // Messages of a (call, attempt) that the committee never reached are surplus.
  for (const auto& [key, log] : v.committee_log) {
    if (taken.count(key)) continue;
    for (const auto& m : log) {
      h.misplaced.emplace(m.member, Blame{Offence::misplaced, "hidden-noise committee: a message of call " +
                                                                  std::to_string(key.first) + ", attempt " +
                                                                  std::to_string(key.second) + ", which the committee never ran"});
    }
  }
  h.complete = true;
  return h;
}

// Verdicts on proofs already checked, keyed by party and by a digest of everything the checks
// read (commit and masked payloads, seed commitments, joint randomness), so a board re-read in

HiddenNoise cached_hidden(const View& v, const Key32& y, ProofCache* cache) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, 32);
  crypto_generichash_update(&st, v.committee_digests.data(), v.committee_digests.size());
  crypto_generichash_update(&st, y.data(), y.size());
  Key32 key{};
  crypto_generichash_final(&st, key.data(), key.size());
  if (cache) {
    if (auto hit = cache->find_hidden(key)) return *hit;
  }
  HiddenNoise h = check_hidden(v);
  if (cache) cache->put_hidden(key, h);
  return h;
}

// The two input domains' proofs, as check_domain_group reads and verifies them.
// The blocks of one party's box proof (the range proofs of § Input-domain proof, in order).
struct BoxDomain {
  using Proof = std::vector<sigma::RangeProof>;
  using Statement = std::vector<sigma::RangeStatement>;
  static constexpr const char* kMalformed = "range proof malformed";
  static std::optional<Proof> decode(const SessionParams& p, const CommitMessage& m) {
    if (m.inputs.size() != p.dim) return std::nullopt;
    Proof out;
    std::span<const std::uint8_t> rest = m.domain_proof;
    for (std::uint32_t b = 0; b < box_blocks(p); ++b) {
      const auto [lo, hi] = box_block_range(p, b);
      const std::size_t size = sigma::RangeProof::encoded_size(p.input_bits, 2 * std::size_t{hi - lo});
      if (rest.size() < size) return std::nullopt;
      auto proof = sigma::RangeProof::decode(rest.first(size));
      if (!proof || proof->bits != p.input_bits || proof->d != 2 * std::size_t{hi - lo}) return std::nullopt;
      out.push_back(std::move(*proof));
      rest = rest.subspan(size);
    }
    if (!rest.empty()) return std::nullopt;
    return out;
  }
  static Statement statement(const SessionParams& p, const CommitMessage& m, const GeneratorSet& gens) {
    Statement out;
    for (std::uint32_t b = 0; b < box_blocks(p); ++b) {
      const auto [lo, hi] = box_block_range(p, b);
      out.push_back({p.input_bits, input_domain_statement(p, std::span<const Point>(m.inputs).subspan(lo, hi - lo), gens)});
    }
    return out;
  }
  static sigma::VerifyResult batch(std::span<Transcript> t, const GeneratorSet& gens, std::span<const Statement> st,
                                   std::span<const Proof> proofs, Rng& rng, unsigned /*threads*/) {
    std::vector<Transcript> ts;
    std::vector<sigma::RangeStatement> sts;
    std::vector<sigma::RangeProof> ps;
    for (std::size_t i = 0; i < t.size(); ++i) {
      for (std::size_t b = 0; b < proofs[i].size(); ++b) {
        ts.push_back(box_block_transcript(t[i], proofs[i].size(), b));
        sts.push_back(st[i][b]);
        ps.push_back(proofs[i][b]);
      }
    }
    return sigma::batch_verify_range(ts, gens, sts, ps, rng);
  }
  static sigma::VerifyResult verify(Transcript& t, const GeneratorSet& gens, const Statement& st, const Proof& proof,
                                    unsigned /*threads*/) {
    for (std::size_t b = 0; b < proof.size(); ++b) {
      Transcript tb = box_block_transcript(t, proof.size(), b);
      auto r = sigma::verify_range(tb, gens, st[b], proof[b]);
      if (!r) {
        if (proof.size() > 1) r.message = "block " + std::to_string(b) + ": " + r.message;
        return r;
      }
    }
    return sigma::VerifyResult::valid();
  }
  static std::string rejected(const SessionParams&, const std::string& why) {
    return "input outside the domain [0, M] (range proof rejected: " + why + ")";
  }
};

// One circuit (kind 0x04) up to kMaxBallDim coordinates, the blocked proof (0x05) beyond.
struct BallDomain {
  struct Proof {
    std::optional<sigma::BallProof> single;
    std::optional<sigma::BlockedBallProof> blocked;
  };
  using Statement = sigma::BallStatement;
  static constexpr const char* kMalformed = "L2-ball proof malformed";
  static std::optional<Proof> decode(const SessionParams& p, const CommitMessage& m) {
    if (m.inputs.size() != p.dim) return std::nullopt;
    Proof out;
    if (p.dim <= sigma::kMaxBallDim) {
      out.single = sigma::BallProof::decode(m.domain_proof);
      if (!out.single || out.single->bits != p.input_bits || out.single->d != p.dim) return std::nullopt;
    } else {
      out.blocked = sigma::BlockedBallProof::decode(m.domain_proof);
      if (!out.blocked || out.blocked->bits != p.input_bits || out.blocked->d != p.dim) return std::nullopt;
    }
    return out;
  }
  static Statement statement(const SessionParams& p, const CommitMessage& m, const GeneratorSet&) {
    return {p.input_bits, p.input_max, m.inputs};
  }
  static sigma::VerifyResult batch(std::span<Transcript> t, const GeneratorSet& gens, std::span<const Statement> st,
                                   std::span<const Proof> proofs, Rng& rng, unsigned threads) {
    if (!proofs.empty() && proofs.front().blocked) {
      std::vector<sigma::BlockedBallProof> blocked;
      for (const auto& pr : proofs) blocked.push_back(*pr.blocked);
      return sigma::batch_verify_ball_blocked(t, gens, st, blocked, rng, threads);
    }
    std::vector<sigma::BallProof> singles;
    for (const auto& pr : proofs) singles.push_back(*pr.single);
    return sigma::batch_verify_ball(t, gens, st, singles, rng);
  }
  static sigma::VerifyResult verify(Transcript& t, const GeneratorSet& gens, const Statement& st, const Proof& proof,
                                    unsigned threads) {
    return proof.blocked ? sigma::verify_ball_blocked(t, gens, st, *proof.blocked, threads)
                         : sigma::verify_ball(t, gens, st, *proof.single);
  }
  static std::string rejected(const SessionParams& p, const std::string& why) {
    return "input outside the L2 ball of radius C = " + fmt_real(p.input_max_real()) + " (L2-ball proof rejected: " + why + ")";
  }
};

// The input-domain proofs of a group of parties: one batched equation; when it fails, each proof
// alone, so the verdicts name exactly the invalid ones.
template <class Domain>
void check_domain_group(const View& v, std::span<const std::uint32_t> group, std::span<ProofChecks> out,
                        unsigned threads) {
  const SessionParams& p = v.setup->params;
  auto gens = domain_gens(p);
  SystemRng rng;
  std::vector<std::size_t> at;
  std::vector<Transcript> transcripts;
  std::vector<typename Domain::Statement> statements;
  std::vector<typename Domain::Proof> proofs;
  for (std::size_t i = 0; i < group.size(); ++i) {
    const CommitMessage& m = v.commits.at(group[i]);
    auto proof = Domain::decode(p, m);
    if (!proof) {
      out[i].range = Domain::kMalformed;
      continue;
    }
    at.push_back(i);
    transcripts.push_back(party_transcript(v.sid, group[i], domain_statement(p)));
    statements.push_back(Domain::statement(p, m, *gens));
    proofs.push_back(std::move(*proof));
  }
  if (!at.empty() && !Domain::batch(transcripts, *gens, statements, proofs, rng, threads)) {
    for (std::size_t k = 0; k < at.size(); ++k) {
      Transcript t = party_transcript(v.sid, group[at[k]], domain_statement(p));
      auto r = Domain::verify(t, *gens, statements[k], proofs[k], threads);
      if (!r) out[at[k]].range = Domain::rejected(p, r.message);
    }
  }
}

// The range and noise proofs of a group of parties, each kind checked with one batched equation
// (random weights, one MSM); when a batch fails, every proof of that kind in the group is checked
// alone, so the verdicts name exactly the invalid ones. Output proofs are checked one by one.
void check_group(const View& v, const Key32& y, std::span<const std::uint32_t> group, std::span<ProofChecks> out,
                 unsigned threads) {
  const SessionParams& p = v.setup->params;
  auto gens = domain_gens(p);
  const auto sp = noise_sampler(p);
  SystemRng rng;
  // Input-domain proofs.
  if (p.input_domain == InputDomain::l2_ball) {
    check_domain_group<BallDomain>(v, group, out, threads);
  } else {
    check_domain_group<BoxDomain>(v, group, out, threads);
  }
  // Noise proofs (private noise; hidden noise is checked against the committee's log in judge()).
  std::vector<std::size_t> at;
  std::vector<std::vector<std::uint64_t>> ys;
  std::vector<circuits::GaussianClaim> claims;
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (p.noise == NoiseMode::hidden) {
      if (!v.commits.at(group[i]).noise_proof.empty()) out[i].noise = "a noise proof in a session with hidden noise";
      continue;
    }
    if (!v.seed_commits.count(group[i])) {
      out[i].noise = "no committed seeds";
      continue;
    }
    at.push_back(i);
    ys.push_back(noise_public_parts(p, y, group[i]));
  }
  for (std::size_t k = 0; k < at.size(); ++k) {
    const std::uint32_t u = group[at[k]];
    const CommitMessage& m = v.commits.at(u);
    claims.push_back({ys[k], v.seed_commits.at(u).seed_commitments, m.noise, m.noise_proof});
  }
  if (!claims.empty() && !circuits::batch_verify_gaussian(sp, p.dim, claims, rng, threads)) {
    for (std::size_t k = 0; k < at.size(); ++k) {
      const auto& c = claims[k];
      auto r = circuits::verify_gaussian_encoded(sp, p.dim, c.ys, c.seed_commitments, c.sample_commitments, c.proof,
                                                 threads);
      if (!r) out[at[k]].noise = std::string("noise not sampled from its committed seeds (proof rejected: ") + r.message + ")";
    }
  }
  // Output proofs, one party per thread.
  gopa::parallel_for(group.size(), threads, [&](std::size_t i) {
    const std::uint32_t u = group[i];
    auto mk = v.masked.find(u);
    if (mk == v.masked.end()) return;
    const CommitMessage& m = v.commits.at(u);
    out[i].has_output = true;
    const std::vector<Point> combined = combined_commitments(m, p);
    Transcript t = party_transcript(v.sid, u, "output");
    if (!verify_output(t, *gens, OutputStatement{pairwise_sum(m), combined, mk->second.xhat}, mk->second.proof)) {
      out[i].output = "masked value inconsistent with its commitments";
    }
  });
}

// Every committed party's proofs, verified in batches on all cores (reusing the cache where
// nothing changed).
std::map<std::uint32_t, ProofChecks> check_all_proofs(const View& v, const Key32& y, ProofCache* cache) {
  std::vector<std::uint32_t> todo;
  std::vector<Key32> keys;
  std::map<std::uint32_t, ProofChecks> out;
  for (const auto& [u, m] : v.commits) {
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, 32);
    const Key32& cd = v.commit_digest.at(u);
    crypto_generichash_update(&st, cd.data(), cd.size());
    if (auto md = v.masked_digest.find(u); md != v.masked_digest.end()) {
      crypto_generichash_update(&st, md->second.data(), md->second.size());
    }
    if (auto sc = v.seed_commits.find(u); sc != v.seed_commits.end()) {
      const Bytes enc = sc->second.encode();
      crypto_generichash_update(&st, enc.data(), enc.size());
    }
    crypto_generichash_update(&st, y.data(), y.size());
    Key32 key{};
    crypto_generichash_final(&st, key.data(), key.size());
    if (cache) {
      if (auto hit = cache->find(u, key)) {
        out.emplace(u, std::move(*hit));
        continue;
      }
    }
    todo.push_back(u);
    keys.push_back(key);
  }
  constexpr std::size_t kGroup = 64;  // proofs per batched equation
  std::vector<ProofChecks> results(todo.size());
  const std::size_t groups = (todo.size() + kGroup - 1) / kGroup;
  // Groups on separate threads; the threads left over go to the blocks inside each group.
  const unsigned threads = resolve_threads(g_verify_threads.load());
  const auto inner = static_cast<unsigned>(std::max<std::size_t>(1, threads / std::max<std::size_t>(1, groups)));
  parallel_for(groups, [&](std::size_t gi) {
    const std::size_t lo = gi * kGroup, hi = std::min(todo.size(), lo + kGroup);
    check_group(v, y, std::span<const std::uint32_t>(todo).subspan(lo, hi - lo),
                std::span<ProofChecks>(results).subspan(lo, hi - lo), inner);
  });
  for (std::size_t i = 0; i < todo.size(); ++i) {
    if (cache) cache->put(todo[i], keys[i], results[i]);
    out.emplace(todo[i], std::move(results[i]));
  }
  return out;
}

// The verdict over the rounds closed so far. Exclusions come from rounds 2–8 (and the committee's
// round); in the recovery round (9) the counted neighbours of excluded parties reveal the seeds
// in `unresolved`, unless the session cannot end with a result without exposing some party's
// input (`withheld`). Offences inside the recovery round and misplaced entries only name their
// sender: excluding for them would ask honest parties for seeds after their round.
Verdict judge(const View& v, const Graph& g, ProofCache* cache) {
  const SessionParams& p = v.setup->params;
  Verdict out;
  const Key32 y = view_randomness(v);
  const std::map<std::uint32_t, ProofChecks> proofs = check_all_proofs(v, y, cache);
  // The first blame of a party is its reason; any attested one (attested(): not only a message
  // missing at a close, which an honest party cut off by an early close shows too) counts.
  auto blame = [&](std::uint32_t u, Offence offence, std::string detail = {}) {
    out.bad.emplace(u, Blame{offence, std::move(detail)});
    if (attested(offence)) out.attested.insert(u);
  };
  auto name = [&](std::uint32_t u, Offence offence, std::string detail) {
    out.named.emplace(u, Blame{offence, std::move(detail)});
  };
  for (const auto& [u, b] : v.malformed) blame(u, b.offence, b.detail);
  for (const auto& [u, b] : v.misplaced) out.named.emplace(u, b);
  out.checks.push_back({"entries in their own rounds", v.misplaced.empty() ? CheckStatus::pass : CheckStatus::fail,
                        v.misplaced.empty() ? std::to_string(v.late) + " late entries of closed rounds ignored"
                                            : std::to_string(v.misplaced.size()) + " parties posted entries outside their "
                                              "rounds (ignored, senders named)"});
  auto gens = domain_gens(p);

  // The joint randomness: every party that may take part commits and reveals; an attempt that
  // lost a reveal restarted without the withholders (settle_attempt).
  for (const auto& [u, b] : v.randomness_out) blame(u, b.offence, b.detail);
  {
    const std::size_t shares = opened_shares(v).size();
    std::string detail = std::to_string(shares) + "/" + std::to_string(p.parties) + " parties' shares, attempt " +
                         std::to_string(randomness_attempt(v) + 1) + " of at most " + std::to_string(p.randomness_restarts + 1u);
    if (!v.randomness_failed.empty()) detail = v.randomness_failed;
    out.checks.push_back({"randomness commit-reveal", v.randomness_out.empty() && v.randomness_failed.empty() ? CheckStatus::pass : CheckStatus::fail,
                          detail});
    if (!v.randomness_failed.empty()) out.withheld = v.randomness_failed;
  }

  // Pairwise seeds: every edge of the graph has its sealed seed from lo.
  const std::set<Edge> dropped = dropped_edges(v);
  std::size_t seed_fail = 0;
  // (A chain's later sessions take the base's seeds; edges without one are dropped there.)
  for (std::uint32_t u = 0; u < p.parties && !v.chain; ++u) {
    for (auto w : g.neighbours(u)) {
      if (w > u && !v.edge_seeds.count({u, w})) {
        blame(u, Offence::seed_missing, "edge to " + std::to_string(w) + ", round 4 closed without it (dropped out or late)");
        ++seed_fail;
      }
    }
  }
  out.checks.push_back({"pairwise seeds sent", seed_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        v.chain ? std::to_string(g.edges()) + " edges of the chain's base session " +
                                      bulletin::to_hex(p.chain_base).substr(0, 16) + " (its sealed seeds), " +
                                      std::to_string(dropped.size()) + " left out there"
                                : std::to_string(g.edges()) + " edges, " + std::to_string(dropped.size()) + " dropped by complaint"});

  // Revealed seeds must open lo's commitment; a false reveal names its sender (and excludes it
  // when made in round 7, before any exclusion is decided).
  std::map<Edge, EdgeNoise> opened;
  for (const auto& cm : v.complaints) {
    const ComplaintMessage& c = cm.message;
    if (c.kind == ComplaintKind::bad_box) continue;
    const Edge e{c.lo, c.hi};
    const std::optional<Key32> secret = revealed_secret(v, c);
    if (!secret) {
      const std::string edge = "edge {" + std::to_string(c.lo) + ", " + std::to_string(c.hi) + "}";
      if (cm.round == kRoundCancelComplaint) blame(cm.sender, Offence::false_seed, edge + ", round 7");
      else name(cm.sender, Offence::false_seed, edge + ", recovery round");
      continue;
    }
    if (!opened.count(e)) opened.emplace(e, derive_edge_noise(*secret, v.sid, c.lo, c.hi, p));
  }

  // Each party's neighbour list is its neighbourhood in the graph, less dropped edges.
  std::size_t graph_fail = 0;
  for (const auto& [u, m] : v.commits) {
    if (effective_neighbours(g, dropped, u) != m.neighbours) {
      blame(u, Offence::neighbours);
      ++graph_fail;
    }
  }
  out.checks.push_back({"neighbour lists match the graph", graph_fail == 0 ? CheckStatus::pass : CheckStatus::fail, ""});

  // Range proofs.
  std::size_t range_fail = 0;
  for (const auto& [u, c] : proofs) {
    if (c.range) {
      blame(u, Offence::range, *c.range);
      ++range_fail;
    }
  }
  const std::string domain = p.input_domain == InputDomain::l2_ball
                                 ? "every input in the L2 ball ‖x‖₂ <= " + fmt_real(p.input_max_real()) + ", C = "
                                 : "every coordinate in [0, " + fmt_real(p.input_max_real()) + "], M = ";
  out.checks.push_back({"input domain proofs", range_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(v.commits.size() - range_fail) + "/" + std::to_string(v.commits.size()) +
                            " valid (" + domain + std::to_string(p.input_max) + " in fixed point)"});

  // Cancellation: C_uv + C_vu = identity; a failing edge is settled by its revealed seed.
  std::size_t cancel_fail = 0, edges_checked = 0;
  for (const auto& [u, mu] : v.commits) {
    for (std::size_t i = 0; i < mu.neighbours.size(); ++i) {
      const std::uint32_t w = mu.neighbours[i];
      if (w < u) continue;
      auto mw = v.commits.find(w);
      if (mw == v.commits.end()) continue;
      auto k = slot_of(mw->second, u);
      if (!k) continue;  // w's list is wrong: already blamed
      ++edges_checked;
      if (edge_cancels(mu, i, mw->second, *k)) continue;
      ++cancel_fail;
      auto z = opened.find({u, w});
      const std::string edge = "edge {" + std::to_string(u) + ", " + std::to_string(w) + "}";
      if (z == opened.end()) {
        blame(u, Offence::unsettled, edge);
        blame(w, Offence::unsettled, edge);
        continue;
      }
      if (!terms_follow(mu, i, u, w, z->second, *gens)) blame(u, Offence::cancel, edge);
      if (!terms_follow(mw->second, *k, w, u, z->second, *gens)) blame(w, Offence::cancel, edge);
    }
  }
  out.checks.push_back({"pairwise cancellation", cancel_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(edges_checked - cancel_fail) + "/" + std::to_string(edges_checked) +
                            " edges cancel; failures settled by revealed seeds"});

  // Noise: η is the sampler's output on the seeds committed before the joint randomness.
  std::size_t noise_fail = 0;
  for (const auto& [u, c] : proofs) {
    if (c.noise) {
      blame(u, Offence::noise, *c.noise);
      ++noise_fail;
    }
  }
  const auto sp = noise_sampler(p);
  if (p.noise == NoiseMode::private_samples) {
    out.checks.push_back({"noise sampled from committed seeds", noise_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                          std::to_string(proofs.size() - noise_fail) + "/" + std::to_string(proofs.size()) + " valid (" +
                              circuits::sampler_name(sp.kind) + ", " + std::to_string(p.sampler_precision) +
                              " fractional bits)"});
  } else {
    // Hidden noise: the committee's logs verify, and every party's noise commitment is its share's
    // commitment (members) or the identity (everyone else).
    out.hidden = cached_hidden(v, y, cache);
    const HiddenNoise& h = *out.hidden;
    for (const auto& [u, b] : h.blamed) blame(u, b.offence, b.detail);
    for (const auto& [u, b] : h.misplaced) out.named.emplace(u, b);
    std::string detail = "committee of " + std::to_string(h.committee.size()) + ", " + std::to_string(h.attempts) +
                         " attempt(s), " + std::to_string(h.messages) + " messages, " +
                         std::to_string(v.committee_bytes) + " bytes; Box–Muller, " +
                         std::to_string(p.sampler_precision) + " fractional bits, " + std::to_string(p.paillier_bits) +
                         "-bit Paillier" + (p.paillier_bits < 2048 ? " (insecure test size)" : "");
    if (!h.blamed.empty()) detail += "; " + std::to_string(h.blamed.size()) + " member(s) named";
    if (!h.misplaced.empty()) {
      detail += "; " + std::to_string(h.misplaced.size()) + " sender(s) of misplaced messages named (ignored)";
    }
    if (!h.complete) detail = h.problem + "; " + detail;
    out.checks.push_back({"hidden noise: committee logs verified", h.complete && h.blamed.empty() ? CheckStatus::pass : CheckStatus::fail,
                          detail});
    std::size_t share_fail = 0;
    if (h.complete) {
      for (const auto& [u, m] : v.commits) {
        for (std::uint32_t j = 0; j < p.dim; ++j) {
          auto e = h.expected[j].find(u);
          const Point want = e == h.expected[j].end() ? Point::identity() : e->second;
          if (m.noise[j] != want) {
            blame(u, Offence::noise_share,
                  "coordinate " + std::to_string(j) + (e == h.expected[j].end() ? ", where it holds none" : ""));
            ++share_fail;
            break;
          }
        }
      }
    }
    out.checks.push_back({"noise commitments are the committee's shares",
                          !h.complete ? CheckStatus::skip : share_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                          std::to_string(v.commits.size() - share_fail) + "/" + std::to_string(v.commits.size()) + " parties"});
    if (!h.complete) out.withheld = "hidden noise incomplete: " + h.problem;
  }

  // Output correctness.
  std::size_t out_fail = 0;
  for (const auto& [u, m] : v.masked) {
    auto c = proofs.find(u);
    if (c == proofs.end()) {
      blame(u, Offence::output, "masked value without commitments");
      ++out_fail;
      continue;
    }
    if (c->second.output) {
      blame(u, Offence::output, *c->second.output);
      ++out_fail;
    }
  }
  out.checks.push_back({"output correctness proofs", out_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(v.masked.size() - out_fail) + "/" + std::to_string(v.masked.size()) + " valid"});
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    if (!v.commits.count(u)) blame(u, Offence::dropout);
    else if (!v.masked.count(u)) blame(u, Offence::no_masked);
  }

  // Counted parties, and removal of their pairwise terms with excluded neighbours (round 9,
  // docs/protocol.md § Recovery). Seeds are revealed only towards excluded parties whose masked
  // value is nowhere on the board but on time: a late one may be an honest party's that the
  // coordinator cut off, and its input would become computable. An excluded party whose masked
  // value came on time posted it although excluded or with a false proof, which no honest party
  // does. Nor is any seed revealed when that would leave a counted party without a hidden edge to
  // another counted party. Every such case ends the session without a result, naming no one.
  for (const auto& [e, z] : opened) out.revealed.insert(e);
  out.dropped = dropped;
  std::set<std::uint32_t> counted;
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    if (!out.bad.count(u)) counted.insert(u);
  }
  // Hidden noise: a holder excluded only for a missing or late message may be an honest member cut
  // off; it must not open its share (its share, opened, would give η to the counted holders if they
  // all collude), so the session ends here, before any seed or share is revealed.
  if (out.hidden && out.hidden->complete) {
    for (std::uint32_t j = 0; j < p.dim && out.withheld.empty(); ++j) {
      for (const auto& [h, c] : out.hidden->expected[j]) {
        if (counted.count(h) || out.attested.count(h)) continue;
        out.withheld = "committee member " + std::to_string(h) + " is excluded only for a missing or late message (" +
                       out.bad.at(h).text() + "): it may be an honest member cut off, so it must not open its share of the "
                       "hidden noise, and no result is released";
        break;
      }
    }
  }
  for (const auto& [w, why] : out.bad) {
    if (v.any_masked.count(w) && !v.masked.count(w) && out.withheld.empty()) {
      out.withheld = "party " + std::to_string(w) + " is excluded (" + why.text() +
                     ") but a masked value of it is on the board after its round closed: revealing its pairwise seeds "
                     "would make its input computable, so none is revealed and no result is released";
    }
  }
  if (out.withheld.empty() && counted.empty() && v.closed.count(kRoundMasked)) out.withheld = "no party is counted";
  if (out.withheld.empty()) {
    for (auto u : counted) {
      bool hidden_edge = false;
      for (auto w : effective_neighbours(g, dropped, u)) hidden_edge = hidden_edge || (counted.count(w) && !opened.count(edge_of(u, w)));
      if (!hidden_edge) {
        out.withheld = "every pairwise edge of party " + std::to_string(u) +
                       " leads to an excluded party or is revealed: removing its terms would make its input computable, "
                       "so no seed is revealed and no result is released";
        break;
      }
    }
  }
  const bool recovery_closed = v.closed.count(kRoundRecovery) > 0;
  std::size_t owed = 0;
  for (auto u : counted) {
    if (!out.withheld.empty()) break;
    for (auto w : effective_neighbours(g, dropped, u)) {
      if (counted.count(w)) continue;
      auto z = opened.find(edge_of(u, w));
      if (z != opened.end()) {
        const CommitMessage& mu = v.commits.at(u);
        auto slot = slot_of(mu, w);
        if (slot && !terms_follow(mu, *slot, u, w, z->second, *gens)) {
          name(u, Offence::cancel, "edge {" + std::to_string(std::min(u, w)) + ", " + std::to_string(std::max(u, w)) +
                                       "} to excluded party " + std::to_string(w));
          out.withheld = "party " + std::to_string(u) + "'s pairwise term with excluded party " + std::to_string(w) +
                         " does not follow from the revealed seed: no result";
        }
        continue;
      }
      out.unresolved.insert(edge_of(u, w));
      ++owed;
    }
  }
  if (recovery_closed && owed > 0 && out.withheld.empty()) {
    const Edge e = *out.unresolved.begin();
    out.withheld = "the recovery round closed before the seed of edge {" + std::to_string(e.first) + ", " +
                   std::to_string(e.second) + "} (and " + std::to_string(owed - 1) +
                   " more) was revealed; the counted end's masked value is on the board, so it cannot be excluded: no result";
  }
  if (!out.withheld.empty()) out.unresolved.clear();
  out.sum.assign(p.dim, Scalar::zero());
  for (auto u : counted) {
    const auto& m = v.masked.at(u);
    for (std::uint32_t j = 0; j < p.dim; ++j) out.sum[j] += m.xhat[j];
    for (auto w : effective_neighbours(g, dropped, u)) {
      if (counted.count(w)) continue;
      auto z = opened.find(edge_of(u, w));
      if (z == opened.end()) continue;  // unresolved: reported above
      const auto d = terms_for(z->second, u, w);
      for (std::uint32_t j = 0; j < p.dim; ++j) out.sum[j] -= scalar_from_signed(d[j]);
    }
    out.counted.push_back(u);
  }
  if (out.hidden && out.hidden->complete) {
    // Shares held by parties that are not counted must be opened (round 9) for the sum to carry η
    // once, but only by holders excluded for an attested deviation: a holder excluded only for a
    // missing or late message may be an honest member cut off, and its share, opened, would give η
    // to the counted holders if they all collude; it keeps it and no result is released. At least
    // one counted holder must keep its share folded, or η would be public.
    const Scalar scale = Scalar::from_u64(std::uint64_t{1} << noise_shift(p));
    std::size_t opened_ok = 0;
    std::set<std::uint32_t> checked;
    for (std::uint32_t j = 0; j < p.dim && out.withheld.empty(); ++j) {
      bool folded = false;
      for (const auto& [h, c] : out.hidden->expected[j]) {
        if (counted.count(h)) {
          folded = true;
          continue;
        }
        auto ns = v.noise_shares.find(h);
        if (ns == v.noise_shares.end() || commit(SecretScalar(ns->second.shares[j]), SecretScalar(ns->second.blinders[j]), *gens) != c) {
          if (!recovery_closed) continue;  // still due in the recovery round
          out.withheld = "committee member " + std::to_string(h) + " is not counted and has not opened its share of the hidden noise";
          break;
        }
        if (checked.insert(h).second) ++opened_ok;
        out.sum[j] += ns->second.shares[j] * scale;
      }
      if (out.withheld.empty() && !folded) {
        out.withheld = "no counted party keeps a share of the hidden noise of coordinate " + std::to_string(j) + " folded in";
      }
    }
    out.checks.push_back({"hidden noise carried exactly once", out.withheld.empty() ? CheckStatus::pass : CheckStatus::fail,
                          out.withheld.empty() ? std::to_string(opened_ok) + " uncounted member(s) opened their shares"
                                               : out.withheld});
    if (!out.withheld.empty()) out.unresolved.clear();
  }
  return out;
}

// Why party u must not post its masked value (empty: it may), from the board with rounds 2–7
// closed and `verdict` its judgement: round 8 is closed already, the closed rounds exclude u, the
// session cannot end with a result, or none of u's edges to parties still counted is hidden (its
// masked value would give its input away).
std::string masked_refusal(const View& v, const Graph& g, const Verdict& verdict, std::uint32_t u) {
  if (v.closed.count(kRoundMasked)) return "round 8 was closed before this party posted its masked value";
  auto excluded = [&](std::uint32_t w) {
    auto it = verdict.bad.find(w);
    return it != verdict.bad.end() && it->second.offence != Offence::no_masked;
  };
  if (excluded(u)) return "excluded before round 8: " + verdict.bad.at(u).text();
  if (!v.randomness_failed.empty()) return v.randomness_failed;
  for (auto w : effective_neighbours(g, verdict.dropped, u)) {
    if (!excluded(w) && !verdict.revealed.count(edge_of(u, w))) return {};
  }
  return "no edge to a party still counted is hidden: the masked value would give the input away";
}

std::vector<double> estimate_of(const SessionParams& p, const std::vector<Scalar>& sum, std::size_t count) {
  std::vector<double> est;
  for (const auto& s : sum) {
    auto v = signed_from_scalar(s);
    est.push_back(v && count ? std::ldexp(static_cast<double>(*v), -static_cast<int>(p.frac_bits)) /
                                   static_cast<double>(count)
                             : std::nan(""));
  }
  return est;
}

}  // namespace gopa::protocol::detail

