// One party in its own process, over a shared board (gopa party).
#include "party.hpp"
#include "run_internal.hpp"

namespace gopa::protocol {

using namespace detail;

namespace {

// Whether a session is over: its result is out, its recovery round is closed, or its randomness
// failed.
bool session_over(const View& v) {
  return v.result.has_value() || v.closed.count(kRoundRecovery) > 0 || !v.randomness_failed.empty();
}

// The session a party takes part in: `o.session`, or else the only session on the board that is
// not over and whose roster holds this party's keys at its index. Waits for it (a party may start
// before the coordinator) up to o.wait_ms (0: forever); refuses when several are open.
bulletin::Result<View> find_session(const PartyOptions& o, bulletin::Board& board) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (o.session) {
      auto v = read_view(board, o.session);
      if (v && v.value().setup) return v;
      if (!v && v.error().code != Errc::not_found) return v.error();
    } else {
      auto ids = list_sessions(board);
      if (!ids) return ids.error();
      std::vector<View> open;
      for (const auto& id : ids.value()) {
        auto v = read_view(board, id);
        if (!v) {
          // A session whose own entries do not make a session (a setup that repeats a key, a
          // roster that does not match its digest, …) is nobody's session: anyone can post one,
          // so it must not stop a party from finding its own. Only the board's failures stop it.
          const Errc c = v.error().code;
          if (c == Errc::not_found || c == Errc::malformed || c == Errc::non_canonical || c == Errc::unknown_type ||
              c == Errc::too_large || c == Errc::bad_signature || c == Errc::equivocation) {
            continue;
          }
          return v.error();
        }
        const View& w = v.value();
        if (!w.setup || session_over(w)) continue;
        if (o.index < w.setup->roster.size() && w.setup->roster[o.index] == o.keys.public_entry()) {
          open.push_back(std::move(v).value());
        }
      }
      if (open.size() == 1) return std::move(open.front());
      if (open.size() > 1) {
        std::string list;
        for (const auto& w : open) list += (list.empty() ? "" : ", ") + to_hex(std::span<const std::uint8_t>(w.sid)).substr(0, 16);
        return make_error(Errc::invalid_argument, std::to_string(open.size()) + " open sessions on the board hold this party's keys (" +
                                                      list + "): choose one with its id");
      }
    }
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (o.wait_ms != 0 && static_cast<std::uint64_t>(waited.count()) >= o.wait_ms) {
      return make_error(Errc::timeout, "no open session for this party appeared on the board within " + std::to_string(o.wait_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.poll_ms));
  }
}

// The secret of one party in one session (docs/protocol.md § Restarts): BLAKE2b-256 keyed with
// the party's two seeds (sign ‖ box) over "gopa/party/secrets/v1" ‖ session id ‖ LE32(index) ‖
// LE32(|vkey|) ‖ the board's verifier key. Every secret the party draws in the session comes from
// it (Party::step), so a party that restarts with its key file draws exactly what it drew before.
Key32 party_secrets(const PartyKeys& keys, const Bytes32& sid, std::uint32_t index, std::string_view board_vkey) {
  static constexpr std::string_view kDomain = "gopa/party/secrets/v1";
  std::array<std::uint8_t, 64> key{};
  std::copy(keys.sign_seed.begin(), keys.sign_seed.end(), key.begin());
  std::copy(keys.box_seed.begin(), keys.box_seed.end(), key.begin() + 32);
  crypto_generichash_state st;
  crypto_generichash_init(&st, key.data(), key.size(), 32);
  sodium_memzero(key.data(), key.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  crypto_generichash_update(&st, sid.data(), sid.size());
  for (const auto& le : {le_bytes(index), le_bytes(static_cast<std::uint32_t>(board_vkey.size()))}) {
    crypto_generichash_update(&st, le.data(), le.size());
  }
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(board_vkey.data()), board_vkey.size());
  Key32 k{};
  crypto_generichash_final(&st, k.data(), k.size());
  return k;
}

// The entries `sender` signed in session `sid`, in board order: what a restarted party already
// posted.
bulletin::Result<std::vector<Entry>> own_entries(bulletin::Board& board, const Bytes32& sid, const PublicKey& sender) {
  std::vector<Entry> out;
  const bulletin::Status read = scan_log(board, [&](const auto& raw) {
    auto e = bulletin::decode_entry(raw);
    if (e && e.value().session_id == sid && e.value().sender == sender) out.push_back(std::move(e).value());
  });
  if (!read) return read.error();
  return out;
}

// Whether two committee payloads hold the same (call, attempt, sequence number) of this member.
bool same_committee_slot(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  const auto ma = CommitteeMessage::decode(a);
  const auto mb = CommitteeMessage::decode(b);
  if (!ma || !mb) return true;
  return ma->call == mb->call && ma->attempt == mb->attempt && ma->message.seq == mb->message.seq;
}

// Whether two complaint payloads concern the same edge with the same kind (a party posts at most
// one of each per round).
bool same_complaint(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  const auto ma = ComplaintMessage::decode(a);
  const auto mb = ComplaintMessage::decode(b);
  if (!ma || !mb) return true;
  return ma->kind == mb->kind && ma->lo == mb->lo && ma->hi == mb->hi;
}

}  // namespace

RosterEntry PartyKeys::public_entry() const {
  return {SigningKey::from_seed(sign_seed).public_key(), BoxKey::from_seed(box_seed).public_key()};
}


bulletin::Result<PartyOutcome> run_party(const PartyOptions& o, bulletin::Board& board) {
  // The setup names the roster; wait for it (a party may start before the coordinator).
  auto first = find_session(o, board);
  if (!first) return first.error();
  const SetupMessage setup = *first.value().setup;
  const SessionParams& p = setup.params;
  const Bytes32 sid = p.session_id();
  if (o.index >= p.parties) return make_error(Errc::invalid_argument, "party index is outside the session's roster");
  if (o.cheat == CheatKind::committee && p.noise != NoiseMode::hidden) {
    return make_error(Errc::invalid_argument, "the committee cheat needs a session with hidden noise");
  }
  if (!(setup.roster[o.index] == o.keys.public_entry())) {
    return make_error(Errc::invalid_argument, "the roster's keys for party " + std::to_string(o.index) + " are not these keys");
  }
  if (o.input.size() != p.dim) {
    return make_error(Errc::invalid_argument, "the session has dim " + std::to_string(p.dim) + " but the input has " +
                                                  std::to_string(o.input.size()) + " values");
  }
  // Refused before anything is posted: the session proves every coordinate in [0, M], or
  // ‖x‖₂ ≤ C for the ball.
  std::vector<std::uint64_t> input;
  if (p.input_domain == InputDomain::l2_ball) {
    const auto fx = p.fixed_ball_input(o.input);
    if (!fx) {
      double n2 = 0;
      for (const double x : o.input) n2 += x * x;
      return make_error(Errc::invalid_argument, "input ‖x‖₂ = " + fmt_real(std::sqrt(n2)) +
                                                    " is outside this session's input domain, the L2 ball of radius " +
                                                    fmt_real(p.input_max_real()));
    }
    for (const std::int64_t x : *fx) input.push_back(static_cast<std::uint64_t>(x));
  }
  for (std::size_t j = 0; j < o.input.size() && p.input_domain == InputDomain::box; ++j) {
    const auto fx = p.fixed_input(o.input[j]);
    if (!fx) {
      return make_error(Errc::invalid_argument, "input coordinate " + std::to_string(j) + " = " + std::to_string(o.input[j]) +
                                                    " is outside this session's input domain [0, " +
                                                    std::to_string(p.input_max_real()) + "]");
    }
    input.push_back(*fx);
  }
  // Refused before anything is posted: the parameters must meet this party's privacy requirement.
  {
    Certificate certificate;
    if (auto why = check_requirement(p, o.requirement, &certificate)) return make_error(Errc::invalid_argument, *why);
    if (o.accepted) o.accepted(certificate);
  }
  // Every secret comes from the key file, the board and the session, and whatever this party
  // already posted in the session is on the board: a party that restarts re-derives its state
  // from both and posts only what it still owes (docs/protocol.md § Restarts).
  Key32 secrets = party_secrets(o.keys, sid, o.index, board.verifier().vkey());
  auto party = std::make_unique<Party>(o.index, o.keys, secrets, std::move(input));
  party->set_threads(o.threads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : o.threads);
  sodium_memzero(secrets.data(), secrets.size());
  Deviation deviation;  // test only
  deviation.cheat = o.cheat;
  if (o.cheat == CheatKind::withhold) deviation.withhold_attempt = 0;
  PartyRole role(std::move(party), std::make_shared<SessionShared>(setup), deviation);
  Party& me = role.party();
  const std::uint32_t u = o.index;
  auto own = own_entries(board, sid, setup.roster[u].sign_key);
  if (!own) return own.error();
  const std::vector<Entry> posted = std::move(own).value();
  // Rounds closed before this run began: entries of them now would be ignored as late.
  const std::set<std::uint32_t> closed_at_start = first.value().closed;
  {
    std::uint64_t next = 0;
    for (const Entry& e : posted) next = std::max(next, e.sequence + 1);
    me.resume_sequence(next);
    if (!posted.empty()) {
      say(o.log, "resuming: " + std::to_string(posted.size()) + " entries of this party on the board, next sequence number " +
                     std::to_string(next));
    }
  }
  // How long to wait for a round's close: four times what the coordinator may wait.
  auto close_wait = [&p](std::uint32_t round) { return 4ULL * round_time_limit(p, round) + 10'000; };
  PartyOutcome out;
  out.session_id = sid;
  auto post_one = [&](std::uint32_t round, MessageType type, Bytes payload, const PublicKey& to) -> bulletin::Status {
    if (o.deviate) {
      Entry planned;
      planned.session_id = sid;
      planned.round = round;
      planned.type = type;
      planned.recipient = to;
      planned.payload = std::move(payload);
      for (auto& e : o.deviate(planned)) (void)board.append(me.sign(std::move(e)));
      return {};
    }
    // After a restart: an entry already on the board is not posted again, and a different one
    // for the same slot is refused (it would be an equivocation). Each (round, type, recipient)
    // holds one entry of this party, complaints one per edge and kind.
    for (const Entry& e : posted) {
      if (e.round != round || e.type != type || e.recipient != to) continue;
      if (e.payload == payload) return {};
      // Committee messages: one slot per (call, attempt, sequence number).
      if (type == MessageType::committee && !same_committee_slot(e.payload, payload)) continue;
      // Another chunk of the same message is no conflict.
      if (is_chunk(e.payload) && is_chunk(payload)) {
        auto a = decode_chunk(e.payload), b = decode_chunk(payload);
        if (a && b && a->index != b->index && a->digest == b->digest && a->length == b->length) continue;
      }
      if (type != MessageType::complaint || same_complaint(e.payload, payload)) {
        return make_error(Errc::equivocation,
                          std::string("this party already posted a different ") + message_type_name(type) + " in round " +
                              std::to_string(round) + " of this session (before a restart); refusing to sign a second "
                              "one: restart with the same input and key file");
      }
    }
    if (closed_at_start.count(round)) return {};
    auto r = board.append(me.entry(sid, round, type, std::move(payload), to));
    if (!r && o.cheat == CheatKind::signature && type == MessageType::masked_value) {
      say(o.log, "masked value refused by the board: " + r.error().message + " (test deviation)");
      return {};
    }
    if (!r) return r.error();
    return {};
  };
  // A message longer than one entry goes out as its chunks, each posted (or found posted) alone.
  auto post = [&](std::uint32_t round, MessageType type, Bytes payload, const PublicKey& to = {}) -> bulletin::Status {
    for (Bytes& part : chunk_payloads(std::move(payload))) {
      if (auto st = post_one(round, type, std::move(part), to); !st) return st;
    }
    return {};
  };
  // Marks the round finished and waits for the coordinator to close it. A close that leaves this
  // party's marker out (its entries of the round land late) sooner than min_round_ms after this
  // party saw the previous close is refused: the party stops (`refused`), posting nothing more.
  auto last_close = std::chrono::steady_clock::now();
  std::string refused, halted;
  ViewReader reader(sid);  // this party's view of the session, read as the board grows
  auto finish = [&](std::uint32_t round) -> bulletin::Result<const View*> {
    if (auto st = post(round, MessageType::round_cosignature, RoundMarker{round}.encode()); !st) return st.error();
    say(o.log, "round " + std::to_string(round) + " done (" + round_name(round) + ")");
    if (o.stop_after_round == round) {  // test only: as if the process were killed here
      halted = "returned after posting round " + std::to_string(round) + " (test)";
      return make_error(Errc::timeout, halted);
    }
    auto v = wait_view(reader, board, o.poll_ms, close_wait(round), [round](const View& w) { return w.closed.count(round) > 0; },
                       "the coordinator to close round " + std::to_string(round));
    if (!v) return v;
    const auto now = std::chrono::steady_clock::now();
    const auto open_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_close).count();
    last_close = now;
    auto d = v.value()->done.find(round);
    const bool cut_off = d == v.value()->done.end() || !d->second.count(u);
    // A round that closed while this party was away (before a restart) is not the coordinator's doing.
    if (cut_off && !o.deviate && !closed_at_start.count(round) && open_ms < static_cast<long long>(p.min_round_ms)) {
      refused = "the coordinator closed round " + std::to_string(round) + " about " + std::to_string(open_ms) +
                " ms after this party saw the round before it closed, before this party's entries of it were in; the "
                "session's minimum is " + std::to_string(p.min_round_ms) + " ms: refused, nothing more is posted";
      return make_error(Errc::timeout, refused);
    }
    return v;
  };
  auto stop = [&](std::string why) {
    out.stopped = std::move(why);
    say(o.log, "stopped: " + out.stopped);
    return out;
  };
#define GOPA_TRY_VIEW(var, expr)           \
  auto var = (expr);                       \
  if (!var) {                              \
    if (!halted.empty()) return stop(halted); \
    if (!refused.empty()) {                \
      out.coordinator_problem = refused;   \
      return stop(refused);                \
    }                                      \
    return var.error();                    \
  }

  // The rounds in the board's close order (2, 3, the restarts, 11, 4, …, 9): in each, this
  // party's role says what it posts, given the board with the rounds before it closed. A
  // restarted party runs them from the first again: its secrets are re-derived, and what is on
  // the board already is not posted twice (post_one).
  if (std::any_of(posted.begin(), posted.end(), [](const Entry& e) {
        return e.round == kRoundMasked && e.type == MessageType::masked_value;
      })) {
    role.masked_already_posted();
  }
  ProofCache cache;
  const View* v = nullptr;
  {
    auto now = reader.update(board);
    if (!now) return now.error();
    v = now.value();
  }
  for (std::size_t i = 0; i < v->close_order.size(); ++i) {
    const std::uint32_t r = v->close_order[i];
    if (r == kRoundRecovery) {
      // When some party that committed has no masked value, wait until min_round_ms has passed
      // since round 8 closed and read the board again: a masked value in flight at the close
      // shows up, and then nothing is revealed.
      Judged at_close(*v, &cache);
      if (role.awaits_late_masked(*v, at_close)) {
        std::this_thread::sleep_until(last_close + std::chrono::milliseconds(p.min_round_ms));
        auto again = reader.update(board);
        if (!again) return again.error();
        v = again.value();
      }
    }
    Judged judged(*v, &cache);
    PartyRole::Act act = role.act(r, *v, judged);
    if (!act.stop.empty()) return stop(act.stop);
    if (r == kRoundCommittee) {
      // A committee member computes the hidden noise with the others before it marks the round.
      CommitteeIo io;
      io.reader = &reader;
      io.board = &board;
      std::uint32_t committee_posted = 0;
      io.post = [&](std::uint32_t call, std::uint32_t attempt, const sampling::HiddenMessage& m) -> bulletin::Status {
        if (auto st = post(kRoundCommittee, MessageType::committee, CommitteeMessage{call, attempt, m}.encode()); !st) return st;
        if (o.stop_after_committee_messages && ++committee_posted == *o.stop_after_committee_messages) {
          halted = "returned after posting " + std::to_string(committee_posted) + " committee messages (test)";
          return make_error(Errc::timeout, halted);
        }
        return {};
      };
      io.poll_ms = o.poll_ms;
      io.wait_ms = p.round_timeout_ms;
      // Test deviation: a member that deviates in every call at its first multiplication opening.
      if (o.cheat == CheatKind::committee) io.cheats.push_back(sampling::Cheat{u, sampling::Step::kMulOpening, 0});
      auto done = run_committee_member(me, *v, io);
      if (!done && !halted.empty()) return stop(halted);
      if (!done) return done.error();
      if (!done.value().empty()) say(o.log, "hidden noise: " + done.value());
    }
    for (Outgoing& m : act.posts) {
      if (o.cheat == CheatKind::replay && m.type == MessageType::masked_value) {
        // Test deviation: waits for another party's masked value and posts it as its own.
        auto other = wait_view(reader, board, o.poll_ms, p.round_timeout_ms, [u](const View& w) {
          return std::any_of(w.masked.begin(), w.masked.end(), [u](const auto& e) { return e.first != u; });
        }, "another party's masked value");
        if (other) {
          for (const auto& [w, msg] : other.value()->masked) {
            if (w != u) {
              m.payload = msg.encode();
              break;
            }
          }
        }
      }
      if (auto st = post(m.round, m.type, std::move(m.payload), m.to); !st) return st.error();
    }
    GOPA_TRY_VIEW(closed, finish(r));
    v = closed.value();
  }
  if (!v->randomness_failed.empty()) {
    out.withheld = v->randomness_failed;
    return stop(v->randomness_failed);
  }
  if (auto it = v->randomness_out.find(u); it != v->randomness_out.end()) return stop("excluded: " + it->second.text());
  const Graph g = session_graph(*v);
  {
    const Verdict verdict = judge(*v, g, &cache);
    if (!verdict.withheld.empty()) {
      out.withheld = verdict.withheld;
      out.excluded = verdict.bad;
      out.named = verdict.named;
      return out;
    }
  }
  GOPA_TRY_VIEW(vr, wait_view(reader, board, o.poll_ms, close_wait(kRoundResult), [](const View& w) { return w.result.has_value(); },
                              "the result"));
#undef GOPA_TRY_VIEW
  // The party checks the released result against its own recomputation over the same rounds;
  // a different one is the coordinator's fault: the party reports its own.
  const Verdict verdict = judge(*vr.value(), g, &cache);
  const ResultMessage& released = *vr.value()->result;
  if (released.counted != verdict.counted || released.sum != verdict.sum) {
    out.coordinator_problem = "the coordinator released a result that is not the recomputation over the board (" +
                              std::to_string(released.counted.size()) + " counted there, " +
                              std::to_string(verdict.counted.size()) + " here); the recomputation is reported";
  }
  for (const auto& problem : vr.value()->coordinator_problems) {
    if (out.coordinator_problem.empty()) out.coordinator_problem = "the coordinator's entries were refused: " + problem;
  }
  out.counted = verdict.counted;
  out.counted_me = std::find(out.counted.begin(), out.counted.end(), u) != out.counted.end();
  out.estimate = estimate_of(p, verdict.sum, out.counted.size());
  out.excluded = verdict.bad;
  out.named = verdict.named;
  return out;
}

}  // namespace gopa::protocol
