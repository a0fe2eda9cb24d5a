// One party as a state machine over the board: the round order of a party, written once for both
// drivers (run_session, run_party). Protocol: docs/protocol.md § Rounds.
#include "party.hpp"

namespace gopa::protocol::detail {

PartyRole::PartyRole(std::unique_ptr<Party> party, std::shared_ptr<SessionShared> shared, Deviation deviation)
    : me_(std::move(party)), shared_(std::move(shared)), dev_(std::move(deviation)), u_(me_->index()) {
  if (dev_.cheat) me_->set_cheat(dev_.cheat);
}

// Once the joint randomness is fixed: why this party is out of the session (empty: it is in), and
// the randomness and graph every later round uses.
std::string PartyRole::fix_randomness(const View& v) {
  if (!v.randomness_failed.empty()) return v.randomness_failed;
  if (auto it = v.randomness_out.find(u_); it != v.randomness_out.end()) return "excluded: " + it->second.text();
  if (!fixed_) fixed_ = &shared_->fixed(v);
  return {};
}

// The seed of edge {u, w} revealed in `round`, once per edge.
std::vector<Outgoing> PartyRole::reveal(std::uint32_t w, std::uint32_t round) {
  const Seed32* seed = me_->seed_with(w);
  if (!seed || !revealed_.insert(edge_of(u_, w)).second) return {};
  const Edge e = edge_of(u_, w);
  return {Outgoing{round, MessageType::complaint,
                   reveal_message(shared_->setup().params, shared_->sid(), e.first, e.second, *seed).encode(), {}}};
}

bool PartyRole::awaits_late_masked(const View& v, Judged& judged) {
  if (!fixed_) return false;
  const Verdict& at_close = judged.of(fixed_->graph);
  const bool missing = std::any_of(at_close.bad.begin(), at_close.bad.end(),
                                   [](const auto& b) { return b.second.offence == Offence::no_masked; });
  return missing && at_close.withheld.empty() && !v.closed.count(kRoundRecovery);
}

void PartyRole::settle_edges(const View& v) {
  if (edges_settled_ || !stopped_.empty() || !fix_randomness(v).empty()) return;
  edges_settled_ = true;
  const Graph& g = fixed_->graph;
  const std::set<Edge> dropped = dropped_edges(v);
  const SetupMessage& setup = shared_->setup();
  for (auto w : g.neighbours(u_)) {
    const Edge e = edge_of(u_, w);
    if (dropped.count(e)) {
      me_->drop_edge(w);
    } else if (setup.params.linked() && !me_->has_edge(w)) {
      // A chain's later session: the seed from the base's sealed seed (which the base's
      // complaints round let stand, so this party, an end of it, can open it). One it cannot
      // open (its bad-box complaint in the base was cut off by the base's round close) leaves
      // it without that edge's terms: it stays out of the session, a drop-out, rather than post
      // a neighbour list the graph contradicts.
      auto m = v.edge_seeds.find(e);
      GOPA_CHECK(m != v.edge_seeds.end(), "a chain edge left in has its sealed seed in the base");
      if (!me_->take_seed(shared_->sid(), m->second, setup.roster[w].box_key, setup.params)) {
        stopped_ = "the chain's base left edge {" + std::to_string(e.first) + ", " + std::to_string(e.second) +
                   "} in, but its sealed seed does not open to its commitment here: this party cannot take part";
        return;
      }
    }
  }
}

void PartyRole::prepare(std::uint32_t round, const View& v) {
  if (round != kRoundCommit || mine_ || dev_.dropout || !stopped_.empty() || !fix_randomness(v).empty()) return;
  // Commitments with the input-domain and noise proofs, over the edges that were not dropped.
  settle_edges(v);
  if (!stopped_.empty()) return;
  const Graph& g = fixed_->graph;
  me_->step_commitments(fixed_->y, effective_neighbours(g, dropped_edges(v), u_));
  mine_ = me_->commitments(shared_->sid(), shared_->setup().params, fixed_->y);
}

PartyRole::Act PartyRole::act(std::uint32_t round, const View& v, Judged& judged) {
  Act out;
  if (!stopped_.empty()) {
    out.stop = stopped_;
    return out;
  }
  auto stop = [&](std::string why) {
    stopped_ = std::move(why);
    out.stop = stopped_;
    return out;
  };
  const SetupMessage& setup = shared_->setup();
  const SessionParams& p = setup.params;
  const Bytes32& sid = shared_->sid();

  // Rounds 2–3 and the restarts: the joint randomness. Each attempt draws a fresh share from its
  // own step stream.
  if (is_commit_round(round)) {
    const std::uint32_t a = attempt_of_round(round);
    if (a >= v.attempts.size() || !v.attempts[a].live.count(u_)) {
      if (auto it = v.randomness_out.find(u_); it != v.randomness_out.end()) return stop("excluded: " + it->second.text());
      return out;
    }
    me_->step("randomness", a, {});
    const SeedCommitMessage m = a == 0 ? me_->seed_commit(sid, p) : me_->restart_commit(sid, a);
    committed_in_.insert(a);
    out.posts.push_back({round, MessageType::noise_seed_commit, m.encode(), {}});
    return out;
  }
  if (is_reveal_round(round)) {
    const std::uint32_t a = attempt_of_round(round);
    if (!committed_in_.count(a) || dev_.withhold_attempt == a) return out;
    out.posts.push_back({round, MessageType::noise_seed_reveal, SeedRevealMessage{me_->share()}.encode(), {}});
    return out;
  }
  if (std::string why = fix_randomness(v); !why.empty()) return stop(why);
  const Graph& g = fixed_->graph;
  const Key32& y = fixed_->y;

  switch (round) {
    case kRoundCommittee:
      // The committee's own messages are its members' (the committee runs beside the rounds).
      return out;
    case kRoundEdgeSeed:
      // Sealed pairwise seeds, lo → hi.
      for (auto w : g.neighbours(u_)) {
        if (w < u_) continue;
        me_->step("edge seed", w, y);
        out.posts.push_back({round, MessageType::edge_seed, me_->seal_seed(sid, w, setup.roster[w].box_key, p),
                             setup.roster[w].sign_key});
      }
      return out;
    case kRoundBoxComplaint:
      // A sealed seed that is missing or does not open to its commitment drops the edge.
      for (auto w : g.neighbours(u_)) {
        if (w > u_) continue;
        auto m = v.edge_seeds.find({w, u_});
        if (m != v.edge_seeds.end() && me_->take_seed(sid, m->second, setup.roster[w].box_key, p)) continue;
        out.posts.push_back({round, MessageType::complaint, ComplaintMessage{ComplaintKind::bad_box, w, u_, {}, {}}.encode(), {}});
      }
      return out;
    case kRoundCommit:
      // Commitments with the input-domain and noise proofs (made by prepare unless already made).
      if (dev_.dropout) return stop("dropped out (test)");
      prepare(round, v);
      if (!stopped_.empty()) return stop(stopped_);  // a chain edge it cannot open
      GOPA_CHECK(mine_.has_value(), "prepare made the commitments");
      out.posts.push_back({round, MessageType::commitment, mine_->encode(), {}});
      return out;
    case kRoundCancelComplaint:
      // An end of an edge whose terms do not cancel reveals the edge's seed. A deviating party
      // does not defend itself.
      if (!mine_ || dev_.cheat) return out;
      for (std::size_t i = 0; i < mine_->neighbours.size(); ++i) {
        const std::uint32_t w = mine_->neighbours[i];
        auto mw = v.commits.find(w);
        if (mw == v.commits.end()) continue;
        auto k = slot_of(mw->second, u_);
        if (k && edge_cancels(*mine_, i, mw->second, *k)) continue;
        for (Outgoing& o : reveal(w, round)) out.posts.push_back(std::move(o));
      }
      return out;
    case kRoundMasked: {
      // The masked value goes out only if the board, with rounds 2–7 closed, still counts this
      // party and leaves it a hidden edge to a counted party: once on the board it is public for
      // good. A deviating party posts regardless (or, `missing`, never).
      if (!mine_ || dev_.cheat == CheatKind::missing) return out;
      if (!dev_.cheat && !masked_posted_) {
        if (std::string why = masked_refusal(v, g, judged.of(g), u_); !why.empty()) return stop(why);
      }
      me_->step("masked value", 0, mine_->encode());
      out.posts.push_back({round, MessageType::masked_value, me_->masked(sid, p, *mine_).encode(), {}});
      return out;
    }
    case kRoundRecovery: {
      // The counted ends of edges to excluded parties reveal those edges' seeds, so the excluded
      // parties' pairwise terms leave the sum; a committee member excluded for a deviation the
      // board attests opens its noise shares. Nothing when the verdict withholds the result.
      const Verdict& verdict = judged.of(g);
      if (!verdict.withheld.empty()) return out;
      if (verdict.bad.count(u_)) {
        if (me_->holds_noise_share() && verdict.attested.count(u_)) {
          out.posts.push_back({round, MessageType::noise_share, me_->noise_share_message(p.dim).encode(), {}});
        }
        return out;
      }
      for (const Edge& e : verdict.unresolved) {
        if (e.first != u_ && e.second != u_) continue;
        for (Outgoing& o : reveal(e.first == u_ ? e.second : e.first, round)) out.posts.push_back(std::move(o));
      }
      return out;
    }
    default:
      return out;
  }
}

}  // namespace gopa::protocol::detail
