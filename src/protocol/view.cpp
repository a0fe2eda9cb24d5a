// The board as one session sees it (read_view), and the helpers every role shares.
#include "run_internal.hpp"

namespace gopa::protocol::detail {

Key32 derive_key(std::uint64_t seed, std::string_view label, std::uint32_t index) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, 32);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
  const auto s = le_bytes(seed);
  const auto i = le_bytes(index);
  crypto_generichash_update(&st, s.data(), s.size());
  crypto_generichash_update(&st, i.data(), i.size());
  Key32 k{};
  crypto_generichash_final(&st, k.data(), k.size());
  return k;
}

Transcript party_transcript(const Bytes32& sid, std::uint32_t index, std::string_view what) {
  Transcript t(kPartyTranscript);
  t.append_message("session", sid);
  t.append_u64("party", index);
  t.append_message("statement", what);
  return t;
}

// Box proofs go in blocks of kBoxBlock coordinates (2·kBoxBlock range-proof values, the range
// proof's limit): block b covers [b·kBoxBlock, min((b + 1)·kBoxBlock, d)) and is proven on the
// party transcript with `blocks` = LE64(B) and `block` = LE64(b) appended, so a block proves only
// its own position (docs/protocol.md § Input-domain proof).
std::uint32_t box_blocks(const SessionParams& p) { return (p.dim + kBoxBlock - 1) / kBoxBlock; }
std::pair<std::uint32_t, std::uint32_t> box_block_range(const SessionParams& p, std::uint32_t b) {
  return {b * kBoxBlock, std::min(p.dim, (b + 1) * kBoxBlock)};
}
Transcript box_block_transcript(const Transcript& party, std::size_t blocks, std::size_t b) {
  Transcript t = party.clone();
  t.append_u64("blocks", blocks);
  t.append_u64("block", b);
  return t;
}

// The input-domain proof (docs/protocol.md § Input-domain proof). Box: one range proof over 2d
// values, x_j and M − x_j, each in [0, 2^input_bits), which with M < 2^input_bits and
// 2^(input_bits+1) < ℓ means x_j ∈ [0, M]. L2 ball: one ball proof (sigma/ball.hpp) that the d
// committed x_j have Σ x_j² ≤ C², C = input_max. The generator set serves every proof of a party.
// The same set also holds the d vector generators of the pairwise commitments D_uv and of the
// output proof.
std::shared_ptr<const GeneratorSet> domain_gens(const SessionParams& p) {
  const std::size_t domain =
      p.input_domain == InputDomain::l2_ball
          ? (p.dim <= sigma::kMaxBallDim ? sigma::ball_generators(p.input_bits, p.dim)
                                         : sigma::ball_blocked_generators(p.input_bits, p.dim))
          : sigma::range_generators(p.input_bits, 2 * std::size_t{std::min(p.dim, kBoxBlock)});
  return GeneratorSet::get("gopa", std::max(domain, output_generators(p.dim)));
}

// A real number for messages (%g: 0.5, not 0.500000).
std::string fmt_real(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

// The `statement` of the party transcript of the input-domain proof.
std::string_view domain_statement(const SessionParams& p) {
  return p.input_domain == InputDomain::l2_ball ? "input domain l2" : "input domain";
}

// A party's input coordinate in Z_ℓ: box inputs are integers in [0, M]; ball inputs are signed,
// held as two's complement bit patterns (RunConfig::inputs), negatives embedded as ℓ − |v|.
Scalar input_scalar(const SessionParams& p, std::uint64_t v) {
  return p.input_domain == InputDomain::l2_ball ? scalar_from_signed(static_cast<std::int64_t>(v))
                                                : Scalar::from_u64(v);
}

// The statement of a party's input-domain proof: its d input commitments C_j, then the d
// commitments M·G − C_j to M − x_j (computed by every reader, never sent).
std::vector<Point> input_domain_statement(const SessionParams& p, std::span<const Point> inputs,
                                          const GeneratorSet& gens) {
  std::vector<Point> out(inputs.begin(), inputs.end());
  const Point mg = gens.G() * Scalar::from_u64(p.input_max);
  for (const Point& c : inputs) out.push_back(mg - c);
  return out;
}

// Joint public randomness: SHA-256 over the attempt and its revealed shares in party order.
Key32 joint_randomness(const Bytes32& sid, std::uint32_t attempt, const std::map<std::uint32_t, Key32>& shares) {
  static constexpr std::string_view kDomain = "gopa/joint-randomness/v2";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  crypto_hash_sha256_update(&st, sid.data(), sid.size());
  const auto a = le_bytes(attempt);
  crypto_hash_sha256_update(&st, a.data(), a.size());
  for (const auto& [u, s] : shares) {
    const auto le = le_bytes(u);
    crypto_hash_sha256_update(&st, le.data(), le.size());
    crypto_hash_sha256_update(&st, s.data(), s.size());
  }
  Key32 y{};
  crypto_hash_sha256_final(&st, y.data());
  return y;
}

// Appends a round's entries from several threads, so the board's sequencer commits them in
// groups (one transaction and one fsync per group) instead of one fsync per entry.
bulletin::Status append_all(bulletin::Board& board, const std::vector<Bytes>& entries) {
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::optional<bulletin::Error> first_error;
  auto worker = [&] {
    for (std::size_t i = next++; i < entries.size(); i = next++) {
      auto r = board.append(entries[i]);
      if (!r) {
        std::lock_guard<std::mutex> lock(mu);
        if (!first_error) first_error = r.error();
        return;
      }
    }
  };
  const std::size_t threads = std::min<std::size_t>(32, std::max<std::size_t>(1, entries.size()));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (first_error) return *first_error;
  return {};
}



Key32 digest(std::span<const std::uint8_t> bytes) {
  Key32 h{};
  crypto_generichash(h.data(), h.size(), bytes.data(), bytes.size(), nullptr, 0);
  return h;
}

// What the board says, decoded and indexed by party. Only entries signed by the roster key of

// Once the reveal round of attempt a is closed: a party that committed in it and has no valid
// reveal is excluded and the randomness restarts with the parties that revealed (at most
// randomness_restarts times); a party that may commit and does not is excluded as missing. A
// complete attempt fixes the joint randomness, and the rounds after it follow.
void settle_attempt(View& v, std::uint32_t a) {
  const SessionParams& p = v.setup->params;
  View::Attempt& at = v.attempts[a];
  const std::string round = std::to_string(reveal_round_of(a));
  std::set<std::uint32_t> revealed;
  std::vector<std::uint32_t> withheld;
  for (std::uint32_t u : at.live) {
    auto c = at.commits.find(u);
    if (c == at.commits.end()) {
      v.randomness_out.emplace(u, Blame{Offence::randomness_missing, "round " + std::to_string(commit_round_of(a)) +
                                                                         " closed without it (dropped out or late)"});
      continue;
    }
    auto s = at.reveals.find(u);
    if (s == at.reveals.end()) {
      withheld.push_back(u);
      v.randomness_out.emplace(u, Blame{Offence::reveal_withheld, "round " + round + " closed without it (withheld or late)"});
    } else if (randomness_commitment(v.sid, a, u, s->second) != c->second) {
      withheld.push_back(u);
      v.randomness_out.emplace(u, Blame{Offence::false_randomness, "round " + round});
    } else {
      revealed.insert(u);
    }
  }
  if (withheld.empty()) {
    v.final_attempt = a;
    if (p.noise == NoiseMode::hidden) {
      const std::vector<std::uint32_t> c = committee_of(v);
      v.committee.insert(c.begin(), c.end());
    }
    const auto rest = rounds_after_randomness(p);
    v.close_order.insert(v.close_order.end(), rest.begin(), rest.end());
  } else if (a < p.randomness_restarts) {
    View::Attempt next;
    next.live = std::move(revealed);
    v.attempts.push_back(std::move(next));
    v.close_order.push_back(commit_round_of(a + 1));
    v.close_order.push_back(reveal_round_of(a + 1));
  } else {
    v.randomness_failed = "the joint randomness lost a reveal in each of its " + std::to_string(a + 1) +
                          " allowed attempts (the last withheld by party " + std::to_string(withheld.front()) +
                          "): no result";
  }
}

bulletin::Status ViewReader::ingest(std::span<const std::uint8_t> raw) {
  View& v = v_;
  const std::optional<Bytes32>& session = session_;
  {
    ++v.entries;
    v.bytes += raw.size();
    auto e = bulletin::decode_entry(raw);
    if (!e) {
      v.log_problems.push_back(std::string("entry rejected: ") + e.error().message);
      return {};
    }
    const Entry& en = e.value();
    if (en.payload_kind != bulletin::PayloadKind::inline_bytes) {
      v.log_problems.push_back("blob payloads are not used by this protocol version");
      return {};
    }
    const bool other_session = v.head ? en.session_id != v.sid : session && en.session_id != *session;
    if (other_session) {
      ++v.other_sessions_entries;
      return {};
    }
    if (en.type == MessageType::session_setup) {
      if (v.head) {
        v.log_problems.push_back("second session setup ignored");
        return {};
      }
      std::string why;
      auto h = SetupHead::decode(en.payload, &why);
      if (!h) return make_error(Errc::malformed, "session setup: " + why);
      if (h->params.session_id() != en.session_id) {
        return make_error(Errc::malformed, "session setup: entry's session id is not the parameters' id");
      }
      v.head = std::move(*h);
      v.sid = en.session_id;
      v.head_at = v.entries - 1;
      v.coordinator = en.sender;
    } else if (en.type == MessageType::party_key && v.head && !v.setup && en.session_id == v.sid &&
               en.sender == v.coordinator) {
      std::string why;
      auto c = RosterChunk::decode(en.payload, &why);
      if (!c) return make_error(Errc::malformed, "roster chunk: " + why);
      v.chunks.push_back(std::move(*c));
    } else if (!v.setup || en.session_id != v.sid) {
      v.log_problems.push_back("entry outside the session ignored");
      return {};
    }
    if (!v.setup) {
      // The setup completes with the entry that brings the roster to n keys.
      std::string why;
      v.setup = SetupMessage::assemble(*v.head, v.chunks, &why);
      if (!why.empty()) return make_error(Errc::malformed, "session setup: " + why);
      if (v.setup) {
        for (std::uint32_t u = 0; u < v.setup->roster.size(); ++u) v.index_of[v.setup->roster[u].sign_key] = u;
        v.noise_seeds = noise_seed_count(v.setup->params);
        v.close_order = {commit_round_of(0), reveal_round_of(0)};
        v.attempts.emplace_back();
        for (std::uint32_t u = 0; u < v.setup->roster.size(); ++u) v.attempts[0].live.insert(u);
      }
      return {};
    }
    const SessionParams& p = v.setup->params;
    if (en.sender == v.coordinator) {
      // Rounds close one after the other in close_order; a close out of that order (a later
      // round early, which would make honest parties' entries of it late) is refused.
      if (en.type == MessageType::result && !v.result) {
        Bytes assembled;
        std::span<const std::uint8_t> payload = en.payload;
        if (is_chunk(en.payload)) {
          std::string why;
          auto& a = v.assemblers[{View::kCoordinatorSender, en.type, en.round}];
          const auto st = a.add(en.payload, &why);
          if (st == ChunkAssembler::Status::bad) v.coordinator_problems.push_back("malformed result: " + why);
          if (st != ChunkAssembler::Status::complete) return {};
          assembled = a.take_message();
          payload = assembled;
        }
        v.result = ResultMessage::decode(payload, p.dim, p.parties);
        if (!v.result) v.coordinator_problems.push_back("malformed result");
      } else if (en.type == MessageType::round_cosignature) {
        const std::vector<std::uint32_t>& order = v.close_order;
        auto mk = RoundMarker::decode(en.payload);
        if (!mk || mk->round != en.round) {
          v.coordinator_problems.push_back("malformed round close");
        } else if (v.closed.count(mk->round)) {
          // a repeated close changes nothing
        } else if (v.closes < order.size() && order[v.closes] == mk->round) {
          v.closed.insert(mk->round);
          ++v.closes;
          if (is_reveal_round(mk->round)) settle_attempt(v, attempt_of_round(mk->round));
        } else {
          v.coordinator_problems.push_back("close of round " + std::to_string(mk->round) + " out of order (next: " +
                                           (v.closes < order.size() ? std::to_string(order[v.closes]) : std::string("none")) + ")");
        }
      } else if (en.type != MessageType::party_key) {
        v.coordinator_problems.push_back(std::string("coordinator entry of type ") + message_type_name(en.type) + " ignored");
      }
      return {};
    }
    auto it = v.index_of.find(en.sender);
    if (it == v.index_of.end()) {
      v.log_problems.push_back("entry from a key outside the roster ignored");
      return {};
    }
    const std::uint32_t u = it->second;
    // Whatever its round, a (well-formed) masked value on the board is public: seeds are never
    // revealed towards a party that posted one late (docs/protocol.md § Recovery).
    // A chunk of one is public as soon as it is on the board, whether its message completes or not.
    if (en.type == MessageType::masked_value &&
        (is_chunk(en.payload) ? decode_chunk(en.payload).has_value() : MaskedMessage::decode(en.payload, p.dim).has_value())) {
      v.masked_anywhere.insert(u);
      if (!v.closed.count(kRoundRecovery)) v.any_masked.insert(u);
    }
    if (en.type == MessageType::complaint) {
      if (auto m = ComplaintMessage::decode(en.payload); m && m->kind != ComplaintKind::bad_box) v.public_reveals.push_back(*m);
    }
    if (v.closed.count(en.round)) {
      ++v.late;
      return {};
    }
    std::string why;
    const std::uint32_t r = en.round;
    // Malformed: excluded for in rounds 2–8 and 11; named only elsewhere.
    auto bad = [&](const char* what) {
      // Only rounds 2–8 (and the committee's) decide exclusions. A restart round may be open
      // long after the session ended (when no restart happened), and a marker decides nothing:
      // what is malformed there names its sender only.
      if (r == kRoundRecovery || is_restart_round(r) || en.type == MessageType::round_cosignature) {
        v.misplaced.emplace(u, Blame{Offence::malformed, std::string(what) + " in round " + std::to_string(r) + ": " + why});
      } else {
        v.malformed.emplace(u, Blame{Offence::malformed, std::string(what) + ": " + why});
      }
    };
    // Each type is read only in its own round; anything else is ignored and its sender named.
    auto in_round = [&](bool ok, const char* what) {
      if (!ok) {
        v.misplaced.emplace(u, Blame{Offence::misplaced, std::string(what) + " labelled round " + std::to_string(r) +
                                                             ", outside its round"});
      }
      return ok;
    };
    // Rounds in which parties post nothing (setup, result, the committee's without hidden noise,
    // any other number): whatever a party labels so is ignored and names it, before its payload
    // is even looked at.
    // A chain's session after its base has no rounds 4 and 5 (the base exchanged the seeds).
    if (!is_party_round(r) || (r == kRoundCommittee && p.noise != NoiseMode::hidden) ||
        (p.linked() && (r == kRoundEdgeSeed || r == kRoundBoxComplaint))) {
      (void)in_round(false, message_type_name(en.type));
      return {};
    }
    // A chunked message is read once its last chunk arrives, whatever the chunks' order on the
    // board; a chunk set that does not make one message is that party's malformed message.
    Bytes assembled;
    std::span<const std::uint8_t> payload = en.payload;
    if (is_chunk(en.payload)) {
      const bool chunkable = en.type == MessageType::noise_seed_commit || en.type == MessageType::commitment ||
                             en.type == MessageType::masked_value || en.type == MessageType::noise_share;
      if (!chunkable) {
        why = "a message of this type is never chunked";
        bad(message_type_name(en.type));
        return {};
      }
      auto& a = v.assemblers[{u, en.type, r}];
      const auto st = a.add(en.payload, &why);
      if (st == ChunkAssembler::Status::bad) {
        const std::string what = std::string("chunked ") + message_type_name(en.type);
        bad(what.c_str());
      }
      if (st != ChunkAssembler::Status::complete) return {};
      assembled = a.take_message();
      payload = assembled;
    }
    // A party's first message of each kind counts; later ones are ignored (the board already
    // refuses a different message under the same sequence number as equivocation).
    switch (en.type) {
      case MessageType::noise_seed_commit: {
        if (!in_round(is_commit_round(r), "seed commitment")) break;
        // A restart's round is open only once the attempt before it lost a reveal, and only to
        // the parties that revealed in it.
        const std::uint32_t a = attempt_of_round(r);
        if (!in_round(a < v.attempts.size() && v.attempts[a].live.count(u) > 0, "randomness commitment")) break;
        if (auto m = SeedCommitMessage::decode(payload, a == 0 ? v.noise_seeds : 0, &why)) {
          v.attempts[a].commits.emplace(u, m->randomness_commitment);
          if (a == 0) v.seed_commits.emplace(u, std::move(*m));
        } else {
          bad("seed commitment");
        }
        break;
      }
      case MessageType::noise_seed_reveal: {
        if (!in_round(is_reveal_round(r), "randomness reveal")) break;
        const std::uint32_t a = attempt_of_round(r);
        if (!in_round(a < v.attempts.size() && v.attempts[a].live.count(u) > 0, "randomness reveal")) break;
        if (auto m = SeedRevealMessage::decode(payload, &why)) v.attempts[a].reveals.emplace(u, m->share);
        else bad("randomness reveal");
        break;
      }
      case MessageType::edge_seed:
        if (!in_round(r == kRoundEdgeSeed, "edge seed")) break;
        if (auto m = EdgeSeedMessage::decode(payload, &why); m && m->lo == u && m->hi < p.parties) {
          v.edge_seeds.emplace(std::make_pair(m->lo, m->hi), std::move(*m));
        } else {
          bad("edge seed");
        }
        break;
      case MessageType::complaint:
        if (!in_round(r == kRoundBoxComplaint || r == kRoundCancelComplaint || r == kRoundRecovery, "complaint")) break;
        if (auto m = ComplaintMessage::decode(payload, &why); m && (m->lo == u || m->hi == u) && m->hi < p.parties) {
          const bool right = m->kind == ComplaintKind::bad_box ? r == kRoundBoxComplaint : r != kRoundBoxComplaint;
          if (!in_round(right, m->kind == ComplaintKind::bad_box ? "bad-box complaint" : "seed reveal")) break;
          v.complaints.push_back({u, *m, r});
        } else {
          bad("complaint");
        }
        break;
      case MessageType::commitment:
        if (!in_round(r == kRoundCommit, "commitments")) break;
        if (auto m = CommitMessage::decode(payload, p.dim, p.parties, &why)) {
          if (v.commits.emplace(u, std::move(*m)).second) v.commit_digest[u] = digest(payload);
        } else {
          bad("commitments");
        }
        break;
      case MessageType::round_cosignature:
        if (auto m = RoundMarker::decode(payload, &why); m && m->round == en.round) v.done[m->round].insert(u);
        else bad("round marker");
        break;
      case MessageType::committee:
        if (!in_round(r == kRoundCommittee && p.noise == NoiseMode::hidden, "committee message")) break;
        // Only the committee's members post here: anyone else's entry is ignored and names its
        // sender, before its payload is looked at (docs/protocol.md § Hidden noise).
        if (!v.committee.count(u)) {
          v.misplaced.emplace(u, Blame{Offence::misplaced, v.final_attempt
                                                               ? "committee message from a party not on the committee"
                                                               : "committee message before the joint randomness drew the committee"});
          break;
        }
        if (auto m = CommitteeMessage::decode(payload, &why); m && m->message.member == u) {
          const Key32 d = digest(payload);
          v.committee_digests.insert(v.committee_digests.end(), d.begin(), d.end());
          v.committee_bytes += payload.size();
          v.committee_log[{m->call, m->attempt}].push_back(std::move(m->message));
        } else {
          if (m) why = "its member field names another party";
          bad("committee message");
        }
        break;
      case MessageType::noise_share:
        if (!in_round(r == kRoundRecovery, "noise shares")) break;
        if (auto m = NoiseShareMessage::decode(payload, p.dim, &why)) v.noise_shares.emplace(u, std::move(*m));
        else bad("noise shares");
        break;
      case MessageType::masked_value:
        if (!in_round(r == kRoundMasked, "masked value")) break;
        if (auto m = MaskedMessage::decode(payload, p.dim, &why)) {
          if (v.masked.emplace(u, std::move(*m)).second) v.masked_digest[u] = digest(payload);
        } else {
          bad("masked value");
        }
        break;
      default:
        (void)in_round(false, "a coordinator's message");
        break;
    }
    return {};
  }
}

bulletin::Result<const View*> ViewReader::update(bulletin::Board& board) {
  const bulletin::Status read = scan_log(board, [this](const auto& raw) {
    ++next_;
    return ingest(raw);
  }, next_);
  if (!read) return read.error();
  const View& v = v_;
  if (v.setup && v.setup->params.linked() && !v.chain) {
    if (auto st = link_chain(board); !st) return st.error();
  }
  if (!v.head) return make_error(Errc::not_found, "the board holds no session setup");
  if (!v.setup) {
    std::size_t have = v.head->first.size();
    for (const auto& c : v.chunks) have += c.keys.size();
    return make_error(Errc::not_found, "the session setup is incomplete: the board holds " + std::to_string(have) + " of " +
                                           std::to_string(v.head->params.parties) + " roster keys");
  }
  return &v_;
}

// A chain's session after its base takes the base's graph and sealed seeds from the log before
// its own setup entry (docs/protocol.md § Chains of sessions). It is refused unless the base is a
// chain's base of the same length, over the same roster and k, by the same coordinator, its
// round 5 was closed before this setup, and no earlier session of the chain has this index (two
// sessions with one round key would expose each other's edges when either reveals it).
bulletin::Status ViewReader::link_chain(bulletin::Board& board) {
  const SessionParams& p = v_.setup->params;
  auto refuse = [&](const std::string& why) {
    return bulletin::Status(make_error(Errc::malformed, "session setup: chain round " + std::to_string(p.chain_index) + ": " + why));
  };
  ViewReader base(p.chain_base);
  std::optional<Bytes32> twin;
  for (std::uint64_t at = 0; at < v_.head_at; at += 1024) {
    auto batch = board.read(at, std::min(v_.head_at, at + 1024));
    if (!batch) return batch.error();
    for (const auto& raw : batch.value()) {
      // An earlier session of this chain at this index that readers accepted or would accept:
      // set up by the base's coordinator, for the base's roster and length, after the base's
      // seed exchange closed.
      const View& b = base.v_;
      if (auto e = bulletin::decode_entry(raw); e && e.value().type == MessageType::session_setup && !twin && b.setup &&
                                                 b.closed.count(kRoundBoxComplaint) && e.value().sender == b.coordinator) {
        auto h = SetupHead::decode(e.value().payload);
        if (h && h->params.linked() && h->params.chain_base == p.chain_base && h->params.chain_index == p.chain_index &&
            h->params.chain_rounds == b.setup->params.chain_rounds && h->params.parties == b.setup->params.parties &&
            h->params.neighbors == b.setup->params.neighbors && h->digest == b.head->digest) {
          twin = e.value().session_id;
        }
      }
      if (auto st = base.ingest(raw); !st) return refuse("its base's log is unreadable: " + st.error().message);
    }
  }
  if (twin) return refuse("an earlier session (" + bulletin::to_hex(*twin).substr(0, 16) + ") of the chain has this index");
  const View& b = base.v_;
  if (!b.setup) return refuse("its base session is not on the board before it");
  const SessionParams& bp = b.setup->params;
  if (bp.linked() || bp.chain_rounds != p.chain_rounds) return refuse("its base is not the base of a chain of " + std::to_string(p.chain_rounds) + " rounds");
  if (v_.coordinator != b.coordinator) return refuse("its coordinator is not the base's");
  if (bp.parties != p.parties || bp.neighbors != p.neighbors || b.setup->roster != v_.setup->roster) {
    return refuse("its base has another roster or k");
  }
  if (!b.closed.count(kRoundBoxComplaint)) return refuse("its base's seed exchange (round 5) was not closed before it");
  View::Chain c;
  c.graph_randomness = view_randomness(b);
  c.dropped = dropped_edges(b);
  // An edge whose sealed seed lo never posted is left out as well: neither end holds its seed.
  const Graph g = derive_graph(p.parties, p.neighbors, c.graph_randomness);
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    for (auto w : g.neighbours(u)) {
      if (w > u && !b.edge_seeds.count({u, w})) c.dropped.insert({u, w});
    }
  }
  v_.edge_seeds = b.edge_seeds;
  v_.chain = std::move(c);
  return {};
}

Graph session_graph(const View& v) {
  const SessionParams& p = v.setup->params;
  return derive_graph(p.parties, p.neighbors, v.chain ? v.chain->graph_randomness : view_randomness(v));
}

std::optional<Key32> revealed_secret(const View& v, const ComplaintMessage& c) {
  const SessionParams& p = v.setup->params;
  auto s = v.edge_seeds.find({c.lo, c.hi});
  if (s == v.edge_seeds.end()) return std::nullopt;
  if (!p.chained()) {
    if (c.kind != ComplaintKind::seed_reveal || edge_seed_commitment(v.sid, c.lo, c.hi, c.seed) != s->second.seed_commitment) {
      return std::nullopt;
    }
    return c.seed;
  }
  if (c.kind != ComplaintKind::key_reveal || !edge_key_opens(s->second.seed_commitment, p.chain_rounds, p.chain_index, c.seed, c.path)) {
    return std::nullopt;
  }
  return c.seed;
}

bulletin::Result<View> read_view(bulletin::Board& board, const std::optional<Bytes32>& session) {
  ViewReader reader(session);
  auto v = reader.update(board);
  if (!v) return v.error();
  return std::move(reader).take();
}


// Edges left out because their recipient could not open the sealed seed to the committed seed.
std::set<Edge> dropped_edges(const View& v) {
  if (v.chain) return v.chain->dropped;
  std::set<Edge> out;
  for (const auto& c : v.complaints) {
    if (c.message.kind == ComplaintKind::bad_box && c.sender == c.message.hi) out.insert({c.message.lo, c.message.hi});
  }
  return out;
}

std::vector<std::uint32_t> effective_neighbours(const Graph& g, const std::set<Edge>& dropped, std::uint32_t u) {
  std::vector<std::uint32_t> out;
  for (auto w : g.neighbours(u)) {
    if (!dropped.count(edge_of(u, w))) out.push_back(w);
  }
  return out;
}

// The pairwise terms of u on the edge {u, w} (u's orientation), from the edge's seed.
std::vector<std::int64_t> terms_for(const EdgeNoise& z, std::uint32_t u, std::uint32_t w) {
  std::vector<std::int64_t> d = z.delta;
  if (u > w) {
    for (auto& x : d) x = -x;
  }
  return d;
}

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The noise commitment of coordinate j at the session's fixed point: the sampler's commitment
// times 2^(frac_bits − sampler_precision).
Point noise_term(const CommitMessage& m, const SessionParams& p, std::uint32_t j) {
  const unsigned shift = noise_shift(p);
  return shift == 0 ? m.noise[j] : m.noise[j] * Scalar::from_u64(std::uint64_t{1} << shift);
}

// The coordinator's signed entries, numbered in order.

std::vector<Point> combined_commitments(const CommitMessage& m, const SessionParams& p) {
  std::vector<Point> out;
  out.reserve(p.dim);
  for (std::uint32_t j = 0; j < p.dim; ++j) out.push_back(m.inputs[j] + noise_term(m, p, j));
  return out;
}

// Σ_v D_uv: the pairwise part of the output statement.
Point pairwise_sum(const CommitMessage& m) {
  Point c = Point::identity();
  for (const Point& d : m.edge_terms) c += d;
  return c;
}

// Bytes of one party's proofs on the board: range proof, noise proof with its sample
// commitments, output proof.
std::size_t proof_bytes(const CommitMessage& c) {
  return c.domain_proof.size() + c.noise_proof.size() + 32 * c.noise.size() + OutputProof::encoded_size(c.inputs.size());
}


// The randomness attempt that fixes the joint randomness (the last one started, until one is
// complete).
std::uint32_t randomness_attempt(const View& v) {
  if (v.final_attempt) return *v.final_attempt;
  return v.attempts.empty() ? 0 : static_cast<std::uint32_t>(v.attempts.size() - 1);
}

// The shares of that attempt that open their commitments, by party: the parties whose shares
// make the joint randomness.
std::map<std::uint32_t, Key32> opened_shares(const View& v) {
  std::map<std::uint32_t, Key32> shares;
  if (v.attempts.empty()) return shares;
  const std::uint32_t a = randomness_attempt(v);
  const View::Attempt& at = v.attempts[a];
  for (const auto& [u, share] : at.reveals) {
    auto c = at.commits.find(u);
    if (c != at.commits.end() && randomness_commitment(v.sid, a, u, share) == c->second) shares[u] = share;
  }
  return shares;
}

Key32 view_randomness(const View& v) { return joint_randomness(v.sid, randomness_attempt(v), opened_shares(v)); }

std::vector<std::uint32_t> committee_of(const View& v) {
  const std::map<std::uint32_t, Key32> shares = opened_shares(v);
  std::vector<std::uint32_t> eligible;
  for (const auto& [u, share] : shares) eligible.push_back(u);
  return select_committee(v.setup->params, joint_randomness(v.sid, randomness_attempt(v), shares), eligible);
}

void say(const std::function<void(const std::string&)>& log, const std::string& line) {
  if (log) log(line);
}

bulletin::Result<const View*> wait_view(ViewReader& reader, bulletin::Board& board, std::uint32_t poll_ms,
                                        std::uint64_t timeout_ms, const std::function<bool(const View&)>& pred,
                                        const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto v = reader.update(board);
    if (v && pred(*v.value())) return v;
    if (!v && v.error().code != Errc::not_found) return v.error();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (timeout_ms != 0 && static_cast<std::uint64_t>(waited.count()) >= timeout_ms) {
      return make_error(Errc::timeout, "timed out waiting for " + what);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  }
}


}  // namespace gopa::protocol::detail

namespace gopa::protocol {

using namespace detail;

void set_verify_threads(unsigned threads) noexcept { g_verify_threads = threads; }

bulletin::Result<std::vector<Bytes32>> list_sessions(bulletin::Board& board) {
  std::vector<Bytes32> ids;
  const bulletin::Status read = scan_log(board, [&ids](const auto& raw) {
    auto e = bulletin::decode_entry(raw);
    if (e && e.value().type == MessageType::session_setup &&
        std::find(ids.begin(), ids.end(), e.value().session_id) == ids.end()) {
      ids.push_back(e.value().session_id);
    }
  });
  if (!read) return read.error();
  return ids;
}

bulletin::Result<SessionParams> session_params(bulletin::Board& board, const Bytes32& session) {
  std::optional<SessionParams> found;
  std::string why;
  const bulletin::Status read = scan_log(board, [&](const auto& raw) {
    if (found || !why.empty()) return;
    auto e = bulletin::decode_entry(raw);
    if (!e || e.value().type != MessageType::session_setup || e.value().session_id != session) return;
    auto h = SetupHead::decode(e.value().payload, &why);
    if (h && h->params.session_id() == session) found = h->params;
    else if (why.empty()) why = "its parameters are not the session's id";
  });
  if (!read) return read.error();
  if (found) return *found;
  if (!why.empty()) return make_error(Errc::malformed, "session setup: " + why);
  return make_error(Errc::not_found, "no session " + bulletin::to_hex(session).substr(0, 16) + " on the board");
}


}  // namespace gopa::protocol
