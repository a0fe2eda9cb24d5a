// GOPA in one process over a board, and the auditor. Protocol: include/gopa/protocol/run.hpp,
// docs/protocol.md.
#include "gopa/protocol/run.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <memory>
#include <optional>
#include <set>

#include "gopa/parallel.hpp"
#include "gopa/circuits/seeds.hpp"
#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/protocol/edges.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/noise.hpp"
#include "gopa/protocol/output.hpp"
#include "gopa/deviation.hpp"
#include "gopa/sigma/ball.hpp"
#include "gopa/sigma/range.hpp"
#include "gopa/transcript.hpp"

namespace gopa::protocol {

namespace {

using bulletin::Entry;
using bulletin::Errc;
using bulletin::MessageType;
using bulletin::PublicKey;
using bulletin::SigningKey;
using bulletin::make_error;

constexpr std::string_view kPartyTranscript = "gopa/party v1";
constexpr std::string_view kNoMaskedReason = "no masked value published";
// Round numbers of the entries (docs/protocol.md); complaints have rounds of their own so that
// the coordinator can close them separately.
constexpr std::uint32_t kRoundSetup = 1, kRoundSeedCommit = 2, kRoundSeedReveal = 3, kRoundEdgeSeed = 4,
                        kRoundBoxComplaint = 5, kRoundCommit = 6, kRoundCancelComplaint = 7, kRoundMasked = 8,
                        kRoundRecovery = 9, kRoundResult = 10, kRoundCommittee = 11;
// Joint randomness (docs/protocol.md § Joint randomness): attempt 0 commits in round 2 and reveals
// in round 3; when a party that committed does not reveal, the attempt restarts with the parties
// that did, at most randomness_restarts times: attempt a ≥ 1 commits in round 12 + 2(a − 1) and
// reveals in the round after.
constexpr std::uint32_t kRoundRestart1 = 12;
constexpr std::uint32_t commit_round_of(std::uint32_t attempt) {
  return attempt == 0 ? kRoundSeedCommit : kRoundRestart1 + 2 * (attempt - 1);
}
constexpr std::uint32_t reveal_round_of(std::uint32_t attempt) { return commit_round_of(attempt) + 1; }
constexpr bool is_restart_round(std::uint32_t r) {
  return r >= kRoundRestart1 && r < kRoundRestart1 + 2u * SessionParams::kMaxRandomnessRestarts;
}
// The attempt a round of the randomness belongs to (rounds 2, 3 and the restart rounds).
constexpr std::uint32_t attempt_of_round(std::uint32_t r) {
  return r <= kRoundSeedReveal ? 0 : (r - kRoundRestart1) / 2 + 1;
}
constexpr bool is_commit_round(std::uint32_t r) {
  return r == kRoundSeedCommit || (is_restart_round(r) && (r - kRoundRestart1) % 2 == 0);
}
constexpr bool is_reveal_round(std::uint32_t r) {
  return r == kRoundSeedReveal || (is_restart_round(r) && (r - kRoundRestart1) % 2 == 1);
}
// The rounds after the randomness, in the order the coordinator closes them.
std::vector<std::uint32_t> rounds_after_randomness(const SessionParams& p) {
  std::vector<std::uint32_t> out;
  if (p.noise == NoiseMode::hidden) out.push_back(kRoundCommittee);
  for (std::uint32_t r = kRoundEdgeSeed; r <= kRoundRecovery; ++r) out.push_back(r);
  return out;
}
// Rounds a party marks finished (and the coordinator closes).
constexpr bool is_party_round(std::uint32_t r) {
  return (r >= kRoundSeedCommit && r <= kRoundRecovery) || r == kRoundCommittee || is_restart_round(r);
}

Key32 derive_key(std::uint64_t seed, std::string_view label, std::uint32_t index) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, 32);
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
  std::uint8_t b[12];
  for (std::size_t i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(seed >> (8 * i));
  for (std::size_t i = 0; i < 4; ++i) b[8 + i] = static_cast<std::uint8_t>(index >> (8 * i));
  crypto_generichash_update(&st, b, sizeof b);
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
constexpr std::uint32_t kBoxBlock = sigma::kMaxRangeValues / 2;
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
  {
    std::uint8_t le[4];
    for (std::size_t i = 0; i < 4; ++i) le[i] = static_cast<std::uint8_t>(attempt >> (8 * i));
    crypto_hash_sha256_update(&st, le, sizeof le);
  }
  for (const auto& [u, s] : shares) {
    std::uint8_t le[4];
    for (std::size_t i = 0; i < 4; ++i) le[i] = static_cast<std::uint8_t>(u >> (8 * i));
    crypto_hash_sha256_update(&st, le, sizeof le);
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

std::atomic<unsigned> g_verify_threads{0};

// Runs f(0..n−1) on up to `threads_wanted` threads (0: set_verify_threads(), else every core):
// proofs of distinct parties, blocks of one party's proofs.
template <class F>
void parallel_for(std::size_t n, F&& f, unsigned threads_wanted = 0) {
  gopa::parallel_for(n, threads_wanted != 0 ? threads_wanted : g_verify_threads.load(), std::forward<F>(f));
}

Key32 digest(std::span<const std::uint8_t> bytes) {
  Key32 h{};
  crypto_generichash(h.data(), h.size(), bytes.data(), bytes.size(), nullptr, 0);
  return h;
}

// What the board says, decoded and indexed by party. Only entries signed by the roster key of
// the party they claim to come from, for the session of the setup entry, are kept.
struct View {
  std::optional<SetupMessage> setup;  // once the roster is complete
  std::optional<SetupHead> head;      // the session_setup entry
  std::vector<RosterChunk> chunks;    // party_key entries after it, in board order
  Bytes32 sid{};
  PublicKey coordinator{};
  std::map<PublicKey, std::uint32_t> index_of;
  std::map<std::uint32_t, SeedCommitMessage> seed_commits;  // round 2: randomness and noise seeds
  // The joint randomness, attempt by attempt (attempt 0: rounds 2–3; restarts: 12, 13, …).
  struct Attempt {
    std::set<std::uint32_t> live;            // the parties that may commit in it
    std::map<std::uint32_t, Key32> commits;  // their randomness commitments
    std::map<std::uint32_t, Key32> reveals;  // shares revealed (the first per party)
  };
  std::vector<Attempt> attempts;
  std::optional<std::uint32_t> final_attempt;            // the attempt whose shares make y
  // Hidden noise: the committee drawn by y, known once the randomness is fixed; only its
  // members' committee entries are read.
  std::set<std::uint32_t> committee;
  std::string randomness_failed;                         // every allowed attempt lost a reveal
  std::map<std::uint32_t, std::string> randomness_out;   // excluded by the randomness rounds
  // Parties with a well-formed masked value anywhere in the log before the recovery round closed
  // (what the recovery must respect), and anywhere at all (what the board gives away).
  std::set<std::uint32_t> any_masked, masked_anywhere;
  // Every edge-seed reveal anywhere in the log (late and misplaced ones too): what the board
  // makes public, for the exposure check of the audit.
  std::vector<ComplaintMessage> public_reveals;
  std::map<std::pair<std::uint32_t, std::uint32_t>, EdgeSeedMessage> edge_seeds;
  struct Complaint {
    std::uint32_t sender = 0;
    ComplaintMessage message;
    std::uint32_t round = 0;  // 5 (bad box), 7 (cancellation) or a recovery round (seed reveals)
  };
  std::vector<Complaint> complaints;
  std::map<std::uint32_t, CommitMessage> commits;
  std::map<std::uint32_t, MaskedMessage> masked;
  // Hidden noise: the committee's log per (call, attempt), in board order, and opened shares.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<sampling::HiddenMessage>> committee_log;
  std::map<std::uint32_t, NoiseShareMessage> noise_shares;
  Bytes committee_digests;  // BLAKE2b of every kept committee payload, in order (cache key)
  std::size_t committee_bytes = 0;
  std::optional<ResultMessage> result;
  // Chunked messages being put together, by (sender, type, round); the coordinator's sender is
  // kCoordinatorSender.
  std::map<std::tuple<std::uint32_t, MessageType, std::uint32_t>, ChunkAssembler> assemblers;
  static constexpr std::uint32_t kCoordinatorSender = 0xffffffffU;
  std::map<std::uint32_t, Key32> commit_digest, masked_digest;  // BLAKE2b of the kept payloads
  std::size_t noise_seeds = 0;                     // seed commitments per party
  std::map<std::uint32_t, std::set<std::uint32_t>> done;  // round → parties that marked it finished
  std::set<std::uint32_t> closed;                  // rounds the coordinator closed
  // The rounds the coordinator closes, in the only order readers accept: 2, 3, a restart's two
  // rounds after each attempt that lost a reveal, then (11,) 4, …, 9.
  std::vector<std::uint32_t> close_order;
  std::size_t closes = 0;                          // closes accepted so far (index into close_order)
  std::vector<std::string> coordinator_problems;   // the coordinator's entries readers refused
  std::size_t late = 0;                            // entries of closed rounds (ignored)
  std::map<std::uint32_t, std::string> malformed;  // party → first malformed message of rounds 2–8, 11
  // Named, never excluded for (they cannot change what honest readers computed before): entries
  // of a type outside its own round, malformed messages of a recovery round.
  std::map<std::uint32_t, std::string> misplaced;
  std::vector<std::string> log_problems;
  std::size_t entries = 0, bytes = 0;
  std::size_t other_sessions_entries = 0;  // entries of other sessions on the same board
};

std::map<std::uint32_t, Key32> opened_shares(const View& v);
Key32 view_randomness(const View& v);

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
      v.randomness_out.emplace(u, "no randomness commitment before round " + std::to_string(commit_round_of(a)) +
                                      " closed (dropped out or late)");
      continue;
    }
    auto s = at.reveals.find(u);
    if (s == at.reveals.end()) {
      withheld.push_back(u);
      v.randomness_out.emplace(u, "no randomness reveal before round " + round + " closed (withheld or late)");
    } else if (randomness_commitment(v.sid, a, u, s->second) != c->second) {
      withheld.push_back(u);
      v.randomness_out.emplace(u, "randomness reveal does not open its commitment (round " + round + ")");
    } else {
      revealed.insert(u);
    }
  }
  if (withheld.empty()) {
    v.final_attempt = a;
    if (p.noise == NoiseMode::hidden) {
      std::vector<std::uint32_t> eligible;
      for (const auto& [u, share] : opened_shares(v)) eligible.push_back(u);
      const std::vector<std::uint32_t> c = select_committee(p, view_randomness(v), eligible);
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

// Reads the whole log up to the board's signed checkpoint, 1,024 entries at a time, and calls
// visit(raw) on every entry in board order (read_view, list_sessions, and a restarting party's
// own_entries).
template <class Visit>
bulletin::Status scan_log(bulletin::Board& board, Visit&& visit) {
  auto cp = board.checkpoint();
  if (!cp) return cp.error();
  auto opened = bulletin::open_checkpoint(cp.value(), board.verifier());
  if (!opened) return opened.error();
  const std::uint64_t size = opened.value().size;
  for (std::uint64_t at = 0; at < size; at += 1024) {
    auto batch = board.read(at, std::min(size, at + 1024));
    if (!batch) return batch.error();
    for (const auto& raw : batch.value()) {
      // A visitor returning a Status stops the scan at its first error.
      if constexpr (std::is_void_v<std::invoke_result_t<Visit&, decltype(raw)>>) {
        visit(raw);
      } else if (bulletin::Status st = visit(raw); !st) {
        return st;
      }
    }
  }
  return {};
}

// The board as one session sees it: the session with id `session`, or when none is given the
// first session set up on the board. Entries of other sessions (a board holds any number) are
// passed over; their count is kept.
bulletin::Result<View> read_view(bulletin::Board& board, const std::optional<Bytes32>& session = std::nullopt) {
  View v;
  const bulletin::Status read = scan_log(board, [&](const auto& raw) -> bulletin::Status {
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
      if (auto m = ComplaintMessage::decode(en.payload); m && m->kind == ComplaintKind::seed_reveal) v.public_reveals.push_back(*m);
    }
    if (v.closed.count(en.round)) {
      ++v.late;
      return {};
    }
    std::string why;
    const std::uint32_t r = en.round;
    // Malformed: excluded for in rounds 2–8 and 11; named only elsewhere.
    auto bad = [&](const char* what) {
      const std::string text = std::string(what) + ": " + why;
      // Only rounds 2–8 (and the committee's) decide exclusions. A restart round may be open
      // long after the session ended (when no restart happened), and a marker decides nothing:
      // what is malformed there names its sender only.
      if (r == kRoundRecovery || is_restart_round(r) || en.type == MessageType::round_cosignature) {
        v.misplaced.emplace(u, "malformed message in round " + std::to_string(r) + ": " + text);
      } else {
        v.malformed.emplace(u, text);
      }
    };
    // Each type is read only in its own round; anything else is ignored and its sender named.
    auto in_round = [&](bool ok, const char* what) {
      if (!ok) v.misplaced.emplace(u, std::string(what) + " labelled round " + std::to_string(r) + ", outside its round");
      return ok;
    };
    // Rounds in which parties post nothing (setup, result, the committee's without hidden noise,
    // any other number): whatever a party labels so is ignored and names it, before its payload
    // is even looked at.
    if (!is_party_round(r) || (r == kRoundCommittee && p.noise != NoiseMode::hidden)) {
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
          v.misplaced.emplace(u, v.final_attempt ? "committee message from a party not on the committee"
                                                 : "committee message before the joint randomness drew the committee");
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
  });
  if (!read) return read.error();
  if (!v.head) return make_error(Errc::not_found, "the board holds no session setup");
  if (!v.setup) {
    std::size_t have = v.head->first.size();
    for (const auto& c : v.chunks) have += c.keys.size();
    return make_error(Errc::not_found, "the session setup is incomplete: the board holds " + std::to_string(have) + " of " +
                                           std::to_string(v.head->params.parties) + " roster keys");
  }
  return v;
}

using Edge = std::pair<std::uint32_t, std::uint32_t>;  // (lo, hi)
Edge edge_of(std::uint32_t a, std::uint32_t b) { return {std::min(a, b), std::max(a, b)}; }

// Edges left out because their recipient could not open the sealed seed to the committed seed.
std::set<Edge> dropped_edges(const View& v) {
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
class CoordinatorPoster {
 public:
  using Deviate = std::function<std::vector<Entry>(const Entry&)>;
  CoordinatorPoster(bulletin::Board& board, const Bytes32& sid, SigningKey key, Deviate deviate = {})
      : board_(board), sid_(sid), key_(std::move(key)), deviate_(std::move(deviate)) {}
  // A message longer than one entry goes out as its chunks (docs/protocol.md § Chunked messages).
  bulletin::Status post(std::uint32_t round, MessageType type, Bytes payload) {
    for (Bytes& part : chunk_payloads(std::move(payload))) {
      if (auto st = post_one(round, type, std::move(part)); !st) return st;
    }
    return {};
  }

 private:
  bulletin::Status post_one(std::uint32_t round, MessageType type, Bytes payload) {
    Entry e;
    e.session_id = sid_;
    e.round = round;
    e.type = type;
    e.payload = std::move(payload);
    if (deviate_) {  // test only: a malicious coordinator
      for (Entry& d : deviate_(e)) {
        d.sequence = sequence_++;
        (void)board_.append(bulletin::sign_entry(d, key_));
      }
      return {};
    }
    e.sequence = sequence_++;
    auto r = board_.append(bulletin::sign_entry(e, key_));
    if (!r) return r.error();
    return {};
  }

  bulletin::Board& board_;
  Bytes32 sid_;
  SigningKey key_;
  Deviate deviate_;
  std::uint64_t sequence_ = 0;
};

// The per-coordinate part C_x[j] + 2^shift·C_η[j] of the output statement, from a commit message.
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

// One simulated party: honest unless given a cheat.
class Party {
 public:
  Party(std::uint32_t index, std::uint64_t seed, std::vector<std::uint64_t> input)
      : index_(index),
        sign_(SigningKey::from_seed(derive_key(seed, "gopa/sim/sign", index))),
        box_(BoxKey::from_seed(derive_key(seed, "gopa/sim/box", index))),
        rng_(std::make_unique<DeterministicRng>(derive_key(seed, "gopa/sim/rng", index))),
        input_(std::move(input)) {}
  // A party of its own process (run_party): every secret it draws comes from `secrets`, derived
  // from its key file, the board and the session (party_secrets), one stream per step (step()).
  Party(std::uint32_t index, const PartyKeys& keys, const Key32& secrets, std::vector<std::uint64_t> input)
      : index_(index),
        sign_(SigningKey::from_seed(keys.sign_seed)),
        box_(BoxKey::from_seed(keys.box_seed)),
        input_(std::move(input)),
        secrets_(secrets),
        derived_(true) {}
  ~Party() { sodium_memzero(secrets_.data(), secrets_.size()); }
  Party(const Party&) = delete;
  Party& operator=(const Party&) = delete;

  // Starts the random stream of one step of a party of its own process: a ChaCha20 stream keyed
  // by BLAKE2b(key = secrets, "gopa/party/step/v1" ‖ label ‖ i ‖ context), so the same step on
  // the same board state draws the same bytes after a restart, and distinct steps (each attempt
  // of the joint randomness, each edge) draw independent ones (docs/protocol.md § Restarts). The
  // simulation (run_session) keeps one stream from its seed and never calls this.
  void step(std::string_view label, std::uint32_t i, std::span<const std::uint8_t> context) {
    if (!derived_) return;
    static constexpr std::string_view kDomain = "gopa/party/step/v1";
    crypto_generichash_state st;
    crypto_generichash_init(&st, secrets_.data(), secrets_.size(), 32);
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
    std::uint8_t le[4];
    for (std::size_t b = 0; b < 4; ++b) le[b] = static_cast<std::uint8_t>(label.size() >> (8 * b));
    crypto_generichash_update(&st, le, sizeof le);
    crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(label.data()), label.size());
    for (std::size_t b = 0; b < 4; ++b) le[b] = static_cast<std::uint8_t>(i >> (8 * b));
    crypto_generichash_update(&st, le, sizeof le);
    crypto_generichash_update(&st, context.data(), context.size());
    Key32 seed{};
    crypto_generichash_final(&st, seed.data(), seed.size());
    rng_ = std::make_unique<DeterministicRng>(seed);
    sodium_memzero(seed.data(), seed.size());
  }
  // The step of round 6, bound to y, the input and the neighbours: the commitments' blinders and
  // proofs then follow from what they commit to, and a restart with another input draws others
  // (and is refused before it posts: run_party).
  void step_commitments(const Key32& y, const std::vector<std::uint32_t>& neighbours) {
    Bytes context;
    context.reserve(y.size() + 8 * input_.size() + 4 * neighbours.size());  // no reallocation: wiped once
    context.insert(context.end(), y.begin(), y.end());
    for (const std::uint64_t x : input_) {
      for (std::size_t b = 0; b < 8; ++b) context.push_back(static_cast<std::uint8_t>(x >> (8 * b)));
    }
    for (const std::uint32_t w : neighbours) {
      for (std::size_t b = 0; b < 4; ++b) context.push_back(static_cast<std::uint8_t>(w >> (8 * b)));
    }
    step("commitments", 0, context);
    sodium_memzero(context.data(), context.size());
  }
  // Threads for the blocks of this party's proofs (1: the calling thread only).
  void set_threads(unsigned threads) { threads_ = std::max(1U, threads); }
  // A restarted party numbers its entries after those it posted before (docs/board.md: one
  // entry per sequence number and sender).
  void resume_sequence(std::uint64_t next) { sequence_ = std::max(sequence_, next); }

  std::optional<CheatKind> cheat;
  bool dropout = false;

  RosterEntry roster_entry() const { return {sign_.public_key(), box_.public_key()}; }
  std::uint32_t index() const { return index_; }

  // A signed entry for this party (appended later, in a batch with the other parties').
  // Signs an entry built elsewhere with this party's key and its next sequence number.
  Bytes sign(Entry e) {
    e.sequence = sequence_++;
    return bulletin::sign_entry(e, sign_);
  }

  Bytes entry(const Bytes32& sid, std::uint32_t round, MessageType type, Bytes payload,
              const PublicKey& recipient = {}) {
    Entry e;
    e.session_id = sid;
    e.round = round;
    e.type = type;
    e.recipient = recipient;
    e.sequence = sequence_++;
    e.payload = std::move(payload);
    if (cheat == CheatKind::signature && type == MessageType::masked_value) {
      // Signed by another key, presented as ours: the board must refuse it.
      const SigningKey other = SigningKey::generate();
      Bytes wrong = bulletin::sign_entry(e, other);
      e.signature = bulletin::decode_entry_unverified(wrong).value().signature;
      e.sender = sign_.public_key();
      return bulletin::encode_entry(e);
    }
    return bulletin::sign_entry(e, sign_);
  }

  // The signed entries of one message: one entry, or its chunks when it is longer than an entry.
  std::vector<Bytes> entries(const Bytes32& sid, std::uint32_t round, MessageType type, Bytes payload) {
    std::vector<Bytes> parts = chunk_payloads(std::move(payload));
    if (parts.size() > 1 && chunk_posts) chunk_posts(index_, type, round, parts);  // test only
    std::vector<Bytes> out;
    for (Bytes& part : parts) out.push_back(entry(sid, round, type, std::move(part)));
    return out;
  }
  std::function<void(std::uint32_t, MessageType, std::uint32_t, std::vector<Bytes>&)> chunk_posts;

  SeedCommitMessage seed_commit(const Bytes32& sid, const SessionParams& p) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    rng_->fill(share_);
    SeedCommitMessage m;
    m.randomness_commitment = randomness_commitment(sid, 0, index_, share_);
    const unsigned bits = noise_sampler(p).m;
    const std::size_t count = noise_seed_count(p);
    for (std::size_t i = 0; i < count; ++i) {
      noise_seeds_.push_back(circuits::PrivateSeed::draw(bits, *rng_));
      m.seed_commitments.push_back(noise_seeds_.back().commitment());
    }
    return m;
  }
  // A restart of the joint randomness: a fresh share, committed to for `attempt` ≥ 1.
  SeedCommitMessage restart_commit(const Bytes32& sid, std::uint32_t attempt) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    rng_->fill(share_);
    SeedCommitMessage m;
    m.randomness_commitment = randomness_commitment(sid, attempt, index_, share_);
    return m;
  }
  const Key32& share() const { return share_; }

  Bytes seal_seed(const Bytes32& sid, std::uint32_t hi, const Key32& hi_box, const SessionParams& p) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    Seed32 seed{};
    rng_->fill(seed);
    edges_.emplace(hi, derive_edge_noise(seed, sid, index_, hi, p));
    seeds_[hi] = seed;
    Bytes sealed = seal_edge_seed(seed, sid, index_, hi, box_, hi_box, *rng_);
    EdgeSeedMessage m{index_, hi, edge_seed_commitment(sid, index_, hi, seed), std::move(sealed)};
    sodium_memzero(seed.data(), seed.size());
    return m.encode();
  }

  // Opens a sealed seed from lo; false (a bad-box complaint is due) if it does not open to the
  // seed lo committed to.
  bool accept_seed(const Bytes32& sid, const EdgeSeedMessage& m, const Key32& lo_box, const SessionParams& p) {
    auto seed = open_edge_seed(m.sealed, sid, m.lo, m.hi, box_, lo_box);
    if (!seed || edge_seed_commitment(sid, m.lo, m.hi, *seed) != m.seed_commitment) return false;
    edges_.emplace(m.lo, derive_edge_noise(*seed, sid, m.lo, m.hi, p));
    seeds_[m.lo] = *seed;
    sodium_memzero(seed->data(), seed->size());
    return true;
  }
  void drop_edge(std::uint32_t w) {
    edges_.erase(w);
    seeds_.erase(w);
  }
  const Seed32* seed_with(std::uint32_t w) const {
    auto it = seeds_.find(w);
    return it == seeds_.end() ? nullptr : &it->second;
  }

  // Hidden noise: this party's share (and blinder) of coordinate j, at the sampler's precision.
  void set_noise_share(std::uint32_t dim, std::uint32_t j, const Scalar& share, const Scalar& blinder) {
    noise_share_.resize(dim);
    noise_share_[j] = {share, blinder};
  }
  bool holds_noise_share() const {
    return std::any_of(noise_share_.begin(), noise_share_.end(), [](const auto& x) { return x.has_value(); });
  }
  NoiseShareMessage noise_share_message(std::uint32_t dim) const {
    NoiseShareMessage m;
    for (std::uint32_t j = 0; j < dim; ++j) {
      const bool has = j < noise_share_.size() && noise_share_[j];
      m.shares.push_back(has ? noise_share_[j]->first : Scalar::zero());
      m.blinders.push_back(has ? noise_share_[j]->second : Scalar::zero());
    }
    return m;
  }

  CommitMessage commitments(const Bytes32& sid, const SessionParams& p, const Key32& public_randomness) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    auto gens = domain_gens(p);
    CommitMessage m;
    std::vector<SecretScalar> values;
    std::vector<Point> honest_commitments;
    if (p.input_domain == InputDomain::l2_ball && cheat == CheatKind::range) {
      // Leaves the ball by a little: x_0 raised just past the sphere through the other
      // coordinates (‖x‖₂ slightly above C), kept consistent in X̂.
      input_shift_ = Scalar::from_u64(just_outside_ball(p)) - input_scalar(p, input_[0]);
    }
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      values.push_back(SecretScalar(input_scalar(p, input_[j]) + (j == 0 ? input_shift_ : Scalar::zero())));
      input_blind_.push_back(SecretScalar::random(*rng_));
      honest_commitments.push_back(commit(values.back(), input_blind_.back(), *gens));
    }
    if (p.input_domain == InputDomain::l2_ball) {
      m.domain_proof = ball_proof(sid, p, values, honest_commitments, *gens);
      m.inputs = honest_commitments;
    } else {
      box_proof(sid, p, values, honest_commitments, *gens, m);
    }

    for (const auto& [v, z] : edges_) {
      m.neighbours.push_back(v);
      m.edge_terms.push_back(edge_commitment(z, index_, v, *gens));
      if (cheat == CheatKind::cancel && !cancel_shift_) {
        // One unit of bias hidden in coordinate 0 of a pairwise term.
        cancel_shift_ = {v, std::int64_t{1} << p.frac_bits};
        m.edge_terms.back() += gens->Gi(1)[0] * scalar_from_signed(cancel_shift_->second);
      }
    }
    const std::int64_t scale = std::int64_t{1} << noise_shift(p);
    const Scalar scale_s = Scalar::from_u64(static_cast<std::uint64_t>(scale));
    if (p.noise == NoiseMode::hidden) {
      // A committee member's noise is its share of the hidden sample (its commitment is the
      // committee's); everyone else adds none (the identity).
      for (std::uint32_t j = 0; j < p.dim; ++j) {
        const bool has = j < noise_share_.size() && noise_share_[j];
        Scalar share = has ? noise_share_[j]->first : Scalar::zero();
        const Scalar blind = has ? noise_share_[j]->second : Scalar::zero();
        if (cheat == CheatKind::noise && j == 0) share += Scalar::one();  // one ulp more than its share
        m.noise.push_back(has || (cheat == CheatKind::noise && j == 0)
                              ? commit(SecretScalar(share), SecretScalar(blind), *gens)
                              : Point::identity());
        eta_.push_back(share * scale_s);
        eta_blind_.push_back(SecretScalar(blind * scale_s));
      }
      return m;
    }
    // η_j = Sampler(s_i), s_i = (x_i + y_i) mod 2^m: x_i committed in round 2, y_i from the joint
    // randomness; the proof shows the committed samples are the sampler's output on them.
    const auto sp = noise_sampler(p);
    const auto ys = noise_public_parts(p, public_randomness, index_);
    std::vector<std::int64_t> samples;
    std::vector<SecretScalar> blinders;
    std::optional<circuits::GaussianProof> forged;
    if (cheat == CheatKind::seed) {
      // Changes its first seed after the public randomness is known (keeping its commitment),
      // and forges the noise proof with the binding attack along G (docs/proofs.md §4.4).
      std::vector<circuits::PrivateSeed> chosen;
      const std::uint64_t x0 = noise_seeds_[0].value();
      const std::uint64_t x1 = x0 ^ (std::uint64_t{1} << (sp.m - 1));
      chosen.emplace_back(x1, noise_seeds_[0].blinder().clone(), sp.m);
      for (std::size_t i = 1; i < noise_seeds_.size(); ++i) {
        chosen.emplace_back(noise_seeds_[i].value(), noise_seeds_[i].blinder().clone(), sp.m);
      }
      const Point committed0 = noise_seeds_[0].commitment();
      testing::Deviation dev;
      dev.on_statement = [&committed0](std::vector<Point>& coms) { coms[0] = committed0; };
      dev.wire_offsets.push_back({testing::Along::kG, 0,
                                  Scalar::from_u64(x1) - Scalar::from_u64(x0)});
      testing::ScopedDeviation scope(dev);
      forged = circuits::prove_gaussian(sp, p.dim, chosen, ys, samples, blinders, *rng_, circuits::kDefaultGaussianBlock, threads_);
    }
    auto noise = forged ? std::move(*forged) : circuits::prove_gaussian(sp, p.dim, noise_seeds_, ys, samples, blinders, *rng_, circuits::kDefaultGaussianBlock, threads_);
    m.noise = std::move(noise.sample_commitments);
    m.noise_proof = noise.proof.encode();
    if (cheat == CheatKind::noise) {
      // Twice the sample, plus one ulp, committed in place of the sample (and X̂ kept consistent
      // with that): only the noise proof can catch it. For η = −1, the one value 2η + 1 keeps,
      // η + 1.
      samples[0] = samples[0] == -1 ? 0 : 2 * samples[0] + 1;
      m.noise[0] = commit(SecretScalar(scalar_from_signed(samples[0])), blinders[0], *gens);
    }
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      eta_.push_back(scalar_from_signed(samples[j] * scale));
      eta_blind_.push_back(blinders[j] * Scalar::from_u64(static_cast<std::uint64_t>(scale)));
    }
    sodium_memzero(samples.data(), samples.size() * sizeof(std::int64_t));
    return m;
  }

  // The box proof (x_j and M − x_j in [0, 2^b)) into m, with m.inputs; the cheats `forge` and
  // `range` deviate here.
  void box_proof(const Bytes32& sid, const SessionParams& p, const std::vector<SecretScalar>& values,
                 std::vector<Point> honest_commitments, const GeneratorSet& gens, CommitMessage& m) {
    const Transcript base = party_transcript(sid, index_, domain_statement(p));
    if (cheat == CheatKind::forge) {
      // Commits to x_0 − K (below 0: the average moves down by K/n), and forges the domain proof
      // with the binding attack along G: the witness decomposes x_0 for the first value (and
      // M − x_0 + K, in range, for its upper-end twin), and P carries δ·G with
      // δ = x_0 − (x_0 − K) = K, fixed before the binding challenge (docs/proofs.md §4.4).
      input_shift_ = -Scalar::from_u64(std::uint64_t{1} << (p.input_bits - 1));
      honest_commitments[0] += gens.G() * input_shift_;
    }
    // The blocks are independent: proven on `threads_` threads, each from its own stream drawn
    // here in order, so the proof does not depend on the thread count.
    const std::uint32_t blocks = box_blocks(p);
    std::vector<Key32> streams(blocks);
    for (auto& k : streams) rng_->fill(k);
    std::vector<std::optional<sigma::RangeProof>> proofs(blocks);
    const testing::Deviation* outer = testing::deviation();
    parallel_for(blocks, [&](std::size_t b) {
      const auto [lo, hi] = box_block_range(p, static_cast<std::uint32_t>(b));
      const std::size_t n = hi - lo;
      // Witness of the block: x_j and M − x_j, blinders r_j and −r_j.
      std::vector<SecretScalar> dvalues, dblind;
      for (std::size_t j = lo; j < hi; ++j) dvalues.push_back(values[j].clone());
      for (std::size_t j = lo; j < hi; ++j) dvalues.push_back(SecretScalar(Scalar::from_u64(p.input_max)) - values[j]);
      for (std::size_t j = lo; j < hi; ++j) dblind.push_back(input_blind_[j].clone());
      for (std::size_t j = lo; j < hi; ++j) dblind.push_back(-input_blind_[j]);
      Transcript t = box_block_transcript(base, blocks, b);
      DeterministicRng rng(streams[b]);
      const auto statement = input_domain_statement(
          p, std::span<const Point>(honest_commitments).subspan(lo, n), gens);
      testing::Deviation dev;
      const bool forged = cheat == CheatKind::forge && b == 0;
      if (forged) {
        dvalues[n] += SecretScalar(-input_shift_);  // M − (x_0 − K) = M − x_0 + K < 2^b: a true opening
        dev.wire_offsets.push_back({testing::Along::kG, 0, -input_shift_});
      }
      std::optional<testing::ScopedDeviation> scope;
      if (forged) scope.emplace(dev);
      else if (outer != nullptr) scope.emplace(*outer);
      proofs[b] = sigma::prove_range(t, gens, p.input_bits, statement, dvalues, dblind, rng);
    }, threads_);
    for (auto& k : streams) sodium_memzero(k.data(), k.size());
    for (const auto& proof : proofs) {
      GOPA_CHECK(proof.has_value(), "inputs are in the domain [0, M]");
      const auto bytes = proof->encode();
      m.domain_proof.insert(m.domain_proof.end(), bytes.begin(), bytes.end());
    }
    m.inputs = honest_commitments;
    if (cheat == CheatKind::range) {
      // Commits to x + 2^b instead (and keeps X̂ consistent with that): only the range proof,
      // made for the in-range value, can catch it.
      input_shift_ = Scalar::from_u64(std::uint64_t{1} << (p.input_bits == 64 ? 63 : p.input_bits)) +
                     (p.input_bits == 64 ? Scalar::from_u64(std::uint64_t{1} << 63) : Scalar::zero());
      m.inputs[0] += gens.G() * input_shift_;
    }
  }

  // The ball proof (‖x‖₂ ≤ C) for the committed inputs; the cheats `forge` (x_0 − K committed,
  // binding forged along G) and `range` (x just outside the ball, proven with truncated bit
  // decompositions) deviate here.
  Bytes ball_proof(const Bytes32& sid, const SessionParams& p, const std::vector<SecretScalar>& values,
                   std::vector<Point>& commitments, const GeneratorSet& gens) {
    Transcript t = party_transcript(sid, index_, domain_statement(p));
    // One circuit up to kMaxBallDim coordinates, the blocked proof (on threads_) beyond.
    auto prove = [&](Transcript& tr) {
      Bytes out;
      if (p.dim <= sigma::kMaxBallDim) {
        auto proof = sigma::prove_ball(tr, gens, p.input_bits, p.input_max, commitments, values, input_blind_, *rng_);
        GOPA_CHECK(proof.has_value(), "inputs are in the L2 ball of radius C");
        out = proof->encode();
      } else {
        auto proof = sigma::prove_ball_blocked(tr, gens, p.input_bits, p.input_max, commitments, values, input_blind_,
                                               *rng_, threads_);
        GOPA_CHECK(proof.has_value(), "inputs are in the L2 ball of radius C");
        out = proof->encode();
      }
      return out;
    };
    if (cheat == CheatKind::forge) {
      // Commits to x_0 − K, K = 2^b (below −C: the average moves down by K/n), and proves x_0:
      // P carries δ·G with δ = K, the gap of binding 0, fixed before the binding challenge
      // (docs/proofs.md §4.4).
      const Scalar k = Scalar::from_u64(std::uint64_t{1} << (p.input_bits - 1)) * Scalar::from_u64(2);
      input_shift_ = -k;
      commitments[0] += gens.G() * input_shift_;
      testing::Deviation dev;
      dev.wire_offsets.push_back({testing::Along::kG, 0, k});
      testing::ScopedDeviation scope(dev);
      return prove(t);
    }
    if (cheat == CheatKind::range) {
      testing::Deviation dev;
      dev.prove_outside_domain = true;
      testing::ScopedDeviation scope(dev);
      return prove(t);
    }
    return prove(t);
  }

  // The first coordinate that puts this party's input just outside the ball: the smallest
  // non-negative integer v with v² + Σ_{j≥1} x_j² > C².
  std::uint64_t just_outside_ball(const SessionParams& p) const {
    const int128_t c = static_cast<int128_t>(p.input_max);
    int128_t rest = 0;
    for (std::size_t j = 1; j < input_.size(); ++j) {
      const int128_t x = static_cast<std::int64_t>(input_[j]);
      rest += x * x;
    }
    const int128_t room = c * c - rest;  // ≥ 0: the input is in the ball
    auto v = static_cast<int128_t>(std::sqrt(static_cast<long double>(room)));
    while (v > 0 && v * v > room) --v;
    while (v * v <= room) ++v;
    return static_cast<std::uint64_t>(v);
  }

  MaskedMessage masked(const Bytes32& sid, const SessionParams& p, const CommitMessage& mine) {
    GOPA_CHECK(rng_ != nullptr, "the step's random stream is started");
    auto gens = domain_gens(p);
    MaskedMessage m;
    // Δ_u[j] = Σ_v Δ_uv[j] and R = Σ_v r_uv (the pairwise vector commitments' openings), and
    // ρ_j = r_x[j] + 2^s·r_η[j].
    std::vector<std::int64_t> delta(p.dim, 0);
    SecretScalar pairwise_blind;
    for (const auto& [v, z] : edges_) {
      const auto d = terms_for(z, index_, v);
      for (std::uint32_t j = 0; j < p.dim; ++j) delta[j] += d[j];
      if (index_ < v) pairwise_blind += z.blind;
      else pairwise_blind -= z.blind;
    }
    if (cancel_shift_) delta[0] += cancel_shift_->second;
    std::vector<SecretScalar> delta_s, blind;
    delta_s.reserve(p.dim);
    blind.reserve(p.dim);
    for (std::uint32_t j = 0; j < p.dim; ++j) {
      delta_s.emplace_back(scalar_from_signed(delta[j]));
      Scalar x = input_scalar(p, input_[j]) + eta_[j] + delta_s.back().declassify();
      if (j == 0) x += input_shift_;
      m.xhat.push_back(x);
      blind.push_back(input_blind_[j] + eta_blind_[j]);
    }
    sodium_memzero(delta.data(), delta.size() * sizeof(delta[0]));
    const std::vector<Point> combined = combined_commitments(mine, p);
    Transcript t = party_transcript(sid, index_, "output");
    m.proof = prove_output(t, *gens, OutputStatement{pairwise_sum(mine), combined, m.xhat}, delta_s, pairwise_blind,
                           blind, *rng_);
    if (cheat == CheatKind::output) m.xhat[0] += Scalar::one();
    return m;
  }

 private:
  std::uint32_t index_;
  SigningKey sign_;
  BoxKey box_;
  std::unique_ptr<DeterministicRng> rng_;
  std::vector<std::uint64_t> input_;
  std::uint64_t sequence_ = 0;
  Key32 share_{};
  std::vector<circuits::PrivateSeed> noise_seeds_;
  std::map<std::uint32_t, EdgeNoise> edges_;
  std::map<std::uint32_t, Seed32> seeds_;
  std::vector<SecretScalar> input_blind_;
  std::vector<Scalar> eta_;
  std::vector<SecretScalar> eta_blind_;
  std::vector<std::optional<std::pair<Scalar, Scalar>>> noise_share_;
  Scalar input_shift_;
  std::optional<std::pair<std::uint32_t, std::int64_t>> cancel_shift_;
  Key32 secrets_{};
  bool derived_ = false;
  unsigned threads_ = 1;
};

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

// The three proofs of one party; nullopt = valid, otherwise why it was rejected.
struct ProofChecks {
  std::optional<std::string> range, noise, output;
  bool has_output = false;
};

// Hidden noise as the board shows it: the committee drawn by the joint randomness, each call's
// attempts re-verified from their public logs (sampling::verify_hidden_log), the members named
// by an abort, and the commitment every party's noise must equal.
struct HiddenNoise {
  bool complete = false;
  std::string problem;                          // why the noise is not complete
  std::vector<std::uint32_t> committee;
  std::map<std::uint32_t, std::string> blamed;  // member → where it deviated
  // expected[j]: the parties holding a share of coordinate j, with their share commitments
  // (at the sampler's precision); every other party's noise commitment must be the identity.
  std::vector<std::map<std::uint32_t, Point>> expected;
  std::size_t attempts = 0, messages = 0;
  // Senders of committee messages out of place (sampling::Misplaced, or of an attempt no reader
  // takes): named, never excluded for it.
  std::map<std::uint32_t, std::string> misplaced;
  std::set<std::uint32_t> blamed_missing;  // members named only because a message of theirs is missing
};

HiddenNoise check_hidden(const View& v, const Key32& y) {
  const SessionParams& p = v.setup->params;
  HiddenNoise h;
  std::vector<std::uint32_t> eligible;
  for (const auto& [u, share] : opened_shares(v)) eligible.push_back(u);
  h.committee = select_committee(p, y, eligible);
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
      for (const auto& m : verdict.misplaced) h.misplaced.emplace(m.sender, "hidden-noise committee, " + where + ": " + m.why);
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
        if (verdict.blame->missing) h.blamed_missing.insert(who);
        h.blamed.emplace(who, std::string("hidden-noise committee, ") + where + ", " +
                                  sampling::step_name(verdict.blame->step) + ": " + verdict.blame->why);
      }
      sampling::drop_blamed(members, verdict.blame);  // no blame: the same members again
    }
  }
  // Messages of a (call, attempt) that the committee never reached are surplus.
  for (const auto& [key, log] : v.committee_log) {
    if (taken.count(key)) continue;
    for (const auto& m : log) {
      h.misplaced.emplace(m.member, "hidden-noise committee: a message of call " + std::to_string(key.first) + ", attempt " +
                                        std::to_string(key.second) + ", which the committee never ran");
    }
  }
  h.complete = true;
  return h;
}

// Verdicts on proofs already checked, keyed by party and by a digest of everything the checks
// read (commit and masked payloads, seed commitments, joint randomness), so a board re-read in
// a later pass re-verifies only what changed.
class ProofCache {
 public:
  std::optional<ProofChecks> find(std::uint32_t u, const Key32& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(u);
    if (it == entries_.end() || it->second.first != key) return std::nullopt;
    return it->second.second;
  }
  void put(std::uint32_t u, const Key32& key, ProofChecks c) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_[u] = {key, std::move(c)};
  }
  // The hidden-noise verdict, keyed by the committee entries and the joint randomness.
  std::optional<HiddenNoise> find_hidden(const Key32& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (!hidden_ || hidden_->first != key) return std::nullopt;
    return hidden_->second;
  }
  void put_hidden(const Key32& key, HiddenNoise h) {
    std::lock_guard<std::mutex> lock(mu_);
    hidden_ = {key, std::move(h)};
  }

 private:
  mutable std::mutex mu_;
  std::map<std::uint32_t, std::pair<Key32, ProofChecks>> entries_;
  std::optional<std::pair<Key32, HiddenNoise>> hidden_;
};

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
  HiddenNoise h = check_hidden(v, y);
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
      out[i].noise = "noise proof without committed seeds";
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
      out[i].output = "masked value inconsistent with its commitments (output proof rejected)";
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

// The checks the coordinator, the parties and the auditor all run.
struct Verdict {
  std::map<std::uint32_t, std::string> bad;    // excluded, with the reason
  std::map<std::uint32_t, std::string> named;  // misbehaved without being excluded for it
  std::vector<AuditCheck> checks;
  std::vector<std::uint32_t> counted;
  std::vector<Scalar> sum;
  std::set<Edge> unresolved;  // edges to excluded parties whose seed nobody has revealed yet
  std::set<Edge> revealed;    // edges whose seed was validly revealed (round 7 or 9)
  std::set<Edge> dropped;     // edges left out by a bad-box complaint
  std::string withheld;       // non-empty: no result may be released (hidden noise incomplete)
  std::optional<HiddenNoise> hidden;
  // Excluded parties with a deviation the board attests (not only a missing or late message,
  // which an honest party cut off by an early close could have): only these open noise shares.
  std::set<std::uint32_t> attested;
};

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
  // missing: excluded for a message that is not on the board in time (an honest party that a
  // round closed early cut off looks the same), not for anything it posted.
  auto blame = [&](std::uint32_t u, const std::string& why, bool missing = false) {
    out.bad.emplace(u, why);
    if (!missing) out.attested.insert(u);
  };
  auto name = [&](std::uint32_t u, const std::string& why) { out.named.emplace(u, why); };
  for (const auto& [u, why] : v.malformed) blame(u, "malformed message: " + why);
  for (const auto& [u, why] : v.misplaced) name(u, why);
  out.checks.push_back({"entries in their own rounds", v.misplaced.empty() ? CheckStatus::pass : CheckStatus::fail,
                        v.misplaced.empty() ? std::to_string(v.late) + " late entries of closed rounds ignored"
                                            : std::to_string(v.misplaced.size()) + " parties posted entries outside their "
                                              "rounds (ignored, senders named)"});
  auto gens = domain_gens(p);

  // The joint randomness: every party that may take part commits and reveals; an attempt that
  // lost a reveal restarted without the withholders (settle_attempt).
  for (const auto& [u, why] : v.randomness_out) blame(u, why, true);
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
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    for (auto w : g.neighbours(u)) {
      if (w > u && !v.edge_seeds.count({u, w})) {
        blame(u, "no sealed seed for the edge to " + std::to_string(w) + " before round 4 closed (dropped out or late)", true);
        ++seed_fail;
      }
    }
  }
  out.checks.push_back({"pairwise seeds sent", seed_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(g.edges()) + " edges, " + std::to_string(dropped.size()) + " dropped by complaint"});

  // Revealed seeds must open lo's commitment; a false reveal names its sender (and excludes it
  // when made in round 7, before any exclusion is decided).
  std::map<Edge, EdgeNoise> opened;
  for (const auto& cm : v.complaints) {
    const ComplaintMessage& c = cm.message;
    if (c.kind != ComplaintKind::seed_reveal) continue;
    const Edge e{c.lo, c.hi};
    auto s = v.edge_seeds.find(e);
    if (s == v.edge_seeds.end() || edge_seed_commitment(v.sid, c.lo, c.hi, c.seed) != s->second.seed_commitment) {
      if (cm.round == kRoundCancelComplaint) blame(cm.sender, "revealed a seed that does not open the edge's commitment");
      else name(cm.sender, "revealed a seed that does not open the edge's commitment (recovery round)");
      continue;
    }
    if (!opened.count(e)) opened.emplace(e, derive_edge_noise(c.seed, v.sid, c.lo, c.hi, p));
  }

  // Each party's neighbour list is its neighbourhood in the graph, less dropped edges.
  std::size_t graph_fail = 0;
  for (const auto& [u, m] : v.commits) {
    if (effective_neighbours(g, dropped, u) != m.neighbours) {
      blame(u, "commitments name neighbours other than the graph's");
      ++graph_fail;
    }
  }
  out.checks.push_back({"neighbour lists match the graph", graph_fail == 0 ? CheckStatus::pass : CheckStatus::fail, ""});

  // Range proofs.
  std::size_t range_fail = 0;
  for (const auto& [u, c] : proofs) {
    if (c.range) {
      blame(u, *c.range);
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
      if (z == opened.end()) {
        blame(u, "pairwise term with " + std::to_string(w) + " does not cancel and no seed was revealed", true);
        blame(w, "pairwise term with " + std::to_string(u) + " does not cancel and no seed was revealed", true);
        continue;
      }
      if (!terms_follow(mu, i, u, w, z->second, *gens)) {
        blame(u, "pairwise term with " + std::to_string(w) + " does not follow from the revealed edge seed");
      }
      if (!terms_follow(mw->second, *k, w, u, z->second, *gens)) {
        blame(w, "pairwise term with " + std::to_string(u) + " does not follow from the revealed edge seed");
      }
    }
  }
  out.checks.push_back({"pairwise cancellation", cancel_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(edges_checked - cancel_fail) + "/" + std::to_string(edges_checked) +
                            " edges cancel; failures settled by revealed seeds"});

  // Noise: η is the sampler's output on the seeds committed before the joint randomness.
  std::size_t noise_fail = 0;
  for (const auto& [u, c] : proofs) {
    if (c.noise) {
      blame(u, *c.noise);
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
    for (const auto& [u, why] : h.blamed) blame(u, why, h.blamed_missing.count(u) > 0);
    for (const auto& [u, why] : h.misplaced) name(u, why);
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
            blame(u, e == h.expected[j].end() ? "noise commitment in coordinate " + std::to_string(j) +
                                                    " although not holding a share of the hidden noise"
                                              : "noise commitment in coordinate " + std::to_string(j) +
                                                    " is not its share of the hidden noise");
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
      blame(u, "masked value without commitments");
      ++out_fail;
      continue;
    }
    if (c->second.output) {
      blame(u, *c->second.output);
      ++out_fail;
    }
  }
  out.checks.push_back({"output correctness proofs", out_fail == 0 ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(v.masked.size() - out_fail) + "/" + std::to_string(v.masked.size()) + " valid"});
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    if (!v.commits.count(u)) blame(u, std::string(kDroppedOutReason), true);
    else if (!v.masked.count(u)) blame(u, std::string(kNoMaskedReason), true);
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
                       out.bad.at(h) + "): it may be an honest member cut off, so it must not open its share of the "
                       "hidden noise, and no result is released";
        break;
      }
    }
  }
  for (const auto& [w, why] : out.bad) {
    if (v.any_masked.count(w) && !v.masked.count(w) && out.withheld.empty()) {
      out.withheld = "party " + std::to_string(w) + " is excluded (" + why +
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
          name(u, "pairwise term with excluded party " + std::to_string(w) + " does not follow from the revealed edge seed");
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
    return it != verdict.bad.end() && it->second != kNoMaskedReason;
  };
  if (excluded(u)) return "excluded before round 8: " + verdict.bad.at(u);
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

}  // namespace

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

bool AuditReport::all_passed() const {
  return log_ok && std::none_of(checks.begin(), checks.end(), [](const AuditCheck& c) { return c.status == CheckStatus::fail; });
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

RosterEntry PartyKeys::public_entry() const {
  return {SigningKey::from_seed(sign_seed).public_key(), BoxKey::from_seed(box_seed).public_key()};
}

namespace {

void say(const std::function<void(const std::string&)>& log, const std::string& line) {
  if (log) log(line);
}

// Polls the board until pred(view) holds; an error after `timeout_ms` (0: wait forever).
bulletin::Result<View> wait_view(bulletin::Board& board, const std::optional<Bytes32>& session, std::uint32_t poll_ms,
                                 std::uint64_t timeout_ms, const std::function<bool(const View&)>& pred,
                                 const std::string& what) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    auto v = read_view(board, session);
    if (v && pred(v.value())) return v;
    if (!v && v.error().code != Errc::not_found) return v.error();
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (timeout_ms != 0 && static_cast<std::uint64_t>(waited.count()) >= timeout_ms) {
      return make_error(Errc::timeout, "timed out waiting for " + what);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  }
}

}  // namespace

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
          if (v.error().code == Errc::not_found) continue;
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
  std::uint8_t le[4];
  for (std::size_t i = 0; i < 4; ++i) le[i] = static_cast<std::uint8_t>(index >> (8 * i));
  crypto_generichash_update(&st, le, sizeof le);
  for (std::size_t i = 0; i < 4; ++i) le[i] = static_cast<std::uint8_t>(board_vkey.size() >> (8 * i));
  crypto_generichash_update(&st, le, sizeof le);
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

// Whether two complaint payloads concern the same edge with the same kind (a party posts at most
// one of each per round).
bool same_complaint(std::span<const std::uint8_t> a, std::span<const std::uint8_t> b) {
  const auto ma = ComplaintMessage::decode(a);
  const auto mb = ComplaintMessage::decode(b);
  if (!ma || !mb) return true;
  return ma->kind == mb->kind && ma->lo == mb->lo && ma->hi == mb->hi;
}

}  // namespace

bulletin::Result<PartyOutcome> run_party(const PartyOptions& o, bulletin::Board& board) {
  // The setup names the roster; wait for it (a party may start before the coordinator).
  auto first = find_session(o, board);
  if (!first) return first.error();
  const SetupMessage setup = *first.value().setup;
  const SessionParams& p = setup.params;
  if (p.noise == NoiseMode::hidden) {
    return make_error(Errc::invalid_argument, "hidden noise runs in `gopa run` only in this version (the committee runs in one process)");
  }
  const Bytes32 sid = p.session_id();
  if (o.index >= p.parties) return make_error(Errc::invalid_argument, "party index is outside the session's roster");
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
  Party me(o.index, o.keys, secrets, std::move(input));
  me.set_threads(o.threads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : o.threads);
  sodium_memzero(secrets.data(), secrets.size());
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
  const std::uint64_t close_wait = 4ULL * p.round_timeout_ms + 10'000;
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
  auto finish = [&](std::uint32_t round) -> bulletin::Result<View> {
    if (auto st = post(round, MessageType::round_cosignature, RoundMarker{round}.encode()); !st) return st.error();
    say(o.log, "round " + std::to_string(round) + " done");
    if (o.stop_after_round == round) {  // test only: as if the process were killed here
      halted = "returned after posting round " + std::to_string(round) + " (test)";
      return make_error(Errc::timeout, halted);
    }
    auto v = wait_view(board, sid, o.poll_ms, close_wait, [round](const View& w) { return w.closed.count(round) > 0; },
                       "the coordinator to close round " + std::to_string(round));
    if (!v) return v;
    const auto now = std::chrono::steady_clock::now();
    const auto open_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_close).count();
    last_close = now;
    auto d = v.value().done.find(round);
    const bool cut_off = d == v.value().done.end() || !d->second.count(u);
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

  // Rounds 2–3 and any restarts: the joint randomness.
  me.step("randomness", 0, {});
  if (auto st = post(kRoundSeedCommit, MessageType::noise_seed_commit, me.seed_commit(sid, p).encode()); !st) return st.error();
  GOPA_TRY_VIEW(v2, finish(kRoundSeedCommit));
  if (auto st = post(kRoundSeedReveal, MessageType::noise_seed_reveal, SeedRevealMessage{me.share()}.encode()); !st) {
    return st.error();
  }
  GOPA_TRY_VIEW(v3, finish(kRoundSeedReveal));
  View rv = std::move(v3).value();
  while (!rv.final_attempt && rv.randomness_failed.empty()) {
    const auto a = static_cast<std::uint32_t>(rv.attempts.size() - 1);
    if (!rv.attempts[a].live.count(u)) break;
    say(o.log, "randomness restart " + std::to_string(a));
    me.step("randomness", a, {});  // fresh shares: each attempt its own stream
    if (auto st = post(commit_round_of(a), MessageType::noise_seed_commit, me.restart_commit(sid, a).encode()); !st) {
      return st.error();
    }
    GOPA_TRY_VIEW(vc, finish(commit_round_of(a)));
    if (auto st = post(reveal_round_of(a), MessageType::noise_seed_reveal, SeedRevealMessage{me.share()}.encode()); !st) {
      return st.error();
    }
    GOPA_TRY_VIEW(vr, finish(reveal_round_of(a)));
    rv = std::move(vr).value();
  }
  if (!rv.randomness_failed.empty()) {
    out.withheld = rv.randomness_failed;
    return stop(rv.randomness_failed);
  }
  if (auto it = rv.randomness_out.find(u); it != rv.randomness_out.end()) return stop("excluded: " + it->second);
  const Key32 y = view_randomness(rv);
  const Graph g = derive_graph(p.parties, p.neighbors, y);
  for (auto w : g.neighbours(u)) {
    if (w < u) continue;
    me.step("edge seed", w, y);
    if (auto st = post(kRoundEdgeSeed, MessageType::edge_seed, me.seal_seed(sid, w, setup.roster[w].box_key, p),
                       setup.roster[w].sign_key);
        !st) {
      return st.error();
    }
  }
  GOPA_TRY_VIEW(v4, finish(kRoundEdgeSeed));
  for (auto w : g.neighbours(u)) {
    if (w > u) continue;
    auto m = v4.value().edge_seeds.find({w, u});
    if (m == v4.value().edge_seeds.end() || !me.accept_seed(sid, m->second, setup.roster[w].box_key, p)) {
      if (auto st = post(kRoundBoxComplaint, MessageType::complaint,
                         ComplaintMessage{ComplaintKind::bad_box, w, u, {}}.encode());
          !st) {
        return st.error();
      }
    }
  }
  GOPA_TRY_VIEW(v5, finish(kRoundBoxComplaint));
  const std::set<Edge> dropped = dropped_edges(v5.value());
  for (auto w : g.neighbours(u)) {
    if (dropped.count(edge_of(u, w))) me.drop_edge(w);
  }
  me.step_commitments(y, effective_neighbours(g, dropped, u));
  const CommitMessage mine = me.commitments(sid, p, y);
  if (auto st = post(kRoundCommit, MessageType::commitment, mine.encode()); !st) return st.error();
  GOPA_TRY_VIEW(v6, finish(kRoundCommit));
  std::set<Edge> revealed;
  auto reveal = [&](std::uint32_t w, std::uint32_t round) -> bulletin::Status {
    const Seed32* seed = me.seed_with(w);
    if (!seed || !revealed.insert(edge_of(u, w)).second) return {};
    const Edge e = edge_of(u, w);
    return post(round, MessageType::complaint, ComplaintMessage{ComplaintKind::seed_reveal, e.first, e.second, *seed}.encode());
  };
  for (std::size_t i = 0; i < mine.neighbours.size(); ++i) {
    const std::uint32_t w = mine.neighbours[i];
    auto mw = v6.value().commits.find(w);
    if (mw == v6.value().commits.end()) continue;
    auto k = slot_of(mw->second, u);
    if (k && edge_cancels(mine, i, mw->second, *k)) continue;
    if (auto st = reveal(w, kRoundCancelComplaint); !st) return st.error();
  }
  GOPA_TRY_VIEW(v7, finish(kRoundCancelComplaint));
  // The masked value goes out only if the board, with rounds 2–7 closed, still counts this party
  // and leaves it a hidden edge to a counted party: once on the board it is public for good.
  // A party that posted its masked value before a restart decided then.
  ProofCache cache;
  const bool masked_posted = std::any_of(posted.begin(), posted.end(), [](const Entry& e) {
    return e.round == kRoundMasked && e.type == MessageType::masked_value;
  });
  if (!masked_posted) {
    const Verdict before = judge(v7.value(), g, &cache);
    if (std::string why = masked_refusal(v7.value(), g, before, u); !why.empty()) return stop(why);
  }
  me.step("masked value", 0, mine.encode());
  if (auto st = post(kRoundMasked, MessageType::masked_value, me.masked(sid, p, mine).encode()); !st) return st.error();
  GOPA_TRY_VIEW(v8, finish(kRoundMasked));
  // Round 9: reveal the seeds the verdict asks of this party (its edges to excluded parties).
  // When some party that committed has no masked value, wait until min_round_ms has passed since
  // round 8 closed and read the board again: a masked value in flight at the close shows up, and
  // then nothing is revealed.
  View v9 = std::move(v8).value();
  {
    const Verdict at_close = judge(v9, g, &cache);
    const bool missing = std::any_of(at_close.bad.begin(), at_close.bad.end(),
                                     [](const auto& b) { return b.second == kNoMaskedReason; });
    if (missing && at_close.withheld.empty()) {
      std::this_thread::sleep_until(last_close + std::chrono::milliseconds(p.min_round_ms));
      auto again = read_view(board, sid);
      if (!again) return again.error();
      v9 = std::move(again).value();
    }
  }
  {
    const Verdict verdict = judge(v9, g, &cache);
    for (const Edge& e : verdict.unresolved) {
      if (e.first != u && e.second != u) continue;
      if (auto st = reveal(e.first == u ? e.second : e.first, kRoundRecovery); !st) return st.error();
    }
  }
  GOPA_TRY_VIEW(v10, finish(kRoundRecovery));
  {
    const Verdict verdict = judge(v10.value(), g, &cache);
    if (!verdict.withheld.empty()) {
      out.withheld = verdict.withheld;
      out.excluded = verdict.bad;
      out.named = verdict.named;
      return out;
    }
  }
  GOPA_TRY_VIEW(vr, wait_view(board, sid, o.poll_ms, close_wait, [](const View& v) { return v.result.has_value(); },
                              "the result"));
#undef GOPA_TRY_VIEW
  // The party checks the released result against its own recomputation over the same rounds;
  // a different one is the coordinator's fault: the party reports its own.
  const Verdict verdict = judge(vr.value(), g, &cache);
  const ResultMessage& released = *vr.value().result;
  if (released.counted != verdict.counted || released.sum != verdict.sum) {
    out.coordinator_problem = "the coordinator released a result that is not the recomputation over the board (" +
                              std::to_string(released.counted.size()) + " counted there, " +
                              std::to_string(verdict.counted.size()) + " here); the recomputation is reported";
  }
  for (const auto& problem : vr.value().coordinator_problems) {
    if (out.coordinator_problem.empty()) out.coordinator_problem = "the coordinator's entries were refused: " + problem;
  }
  out.counted = verdict.counted;
  out.counted_me = std::find(out.counted.begin(), out.counted.end(), u) != out.counted.end();
  out.estimate = estimate_of(p, verdict.sum, out.counted.size());
  out.excluded = verdict.bad;
  out.named = verdict.named;
  return out;
}

bulletin::Result<RunReport> run_coordinator(const CoordinatorOptions& o, bulletin::Board& board) {
  const SessionParams& p = o.params;
  if (auto why = p.validate()) return make_error(Errc::invalid_argument, *why);
  if (p.noise == NoiseMode::hidden) {
    return make_error(Errc::invalid_argument, "hidden noise runs in `gopa run` only in this version (the committee runs in one process)");
  }
  if (o.roster.size() != p.parties) {
    return make_error(Errc::invalid_argument, "the roster has " + std::to_string(o.roster.size()) +
                                                  " parties but the parameters say " + std::to_string(p.parties));
  }
  RunReport report;
  const Bytes32 sid = p.session_id();
  report.session_id = sid;
  CoordinatorPoster coordinator(board, sid, SigningKey::from_seed(o.sign_seed), o.deviate);
  auto post = [&](std::uint32_t round, MessageType type, Bytes payload) {
    return coordinator.post(round, type, std::move(payload));
  };
  double t0 = now_seconds();
  {
    const auto entries = SetupMessage{p, o.roster}.encode_entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      if (auto st = post(kRoundSetup, i == 0 ? MessageType::session_setup : MessageType::party_key, entries[i]); !st) {
        return st.error();
      }
    }
  }
  say(o.log, "setup posted: session " + to_hex(std::span<const std::uint8_t>(sid)).substr(0, 16));
  std::set<std::uint32_t> expected;
  for (std::uint32_t u = 0; u < p.parties; ++u) expected.insert(u);
  // Waits for every party still in the session to mark `round` finished (or the timeout), then
  // closes it; only the parties that finished it are waited for next time.
  auto run_round = [&](std::uint32_t round) -> bulletin::Status {
    auto v = wait_view(board, sid, o.poll_ms, p.round_timeout_ms, [&](const View& view) {
      auto it = view.done.find(round);
      if (it == view.done.end()) return expected.empty();
      return std::includes(it->second.begin(), it->second.end(), expected.begin(), expected.end());
    }, "round " + std::to_string(round));
    if (!v && v.error().code != Errc::timeout) return v.error();
    if (auto st = post(round, MessageType::round_cosignature, RoundMarker{round}.encode()); !st) return st.error();
    auto closed = read_view(board, sid);
    if (!closed) return closed.error();
    std::set<std::uint32_t> finished;
    if (auto it = closed.value().done.find(round); it != closed.value().done.end()) finished = it->second;
    std::set<std::uint32_t> next;
    std::set_intersection(expected.begin(), expected.end(), finished.begin(), finished.end(),
                          std::inserter(next, next.begin()));
    say(o.log, "round " + std::to_string(round) + " closed: " + std::to_string(next.size()) + "/" +
                   std::to_string(expected.size()) + " parties finished it");
    expected = std::move(next);
    const double t1 = now_seconds();
    report.phases.push_back({"round " + std::to_string(round), t1 - t0});
    t0 = t1;
    return {};
  };
  // The rounds in the order every reader accepts: 2, 3, restarts while the randomness loses a
  // reveal, 4, …, 9 (the board extends the order as the randomness attempts settle).
  std::optional<View> view;
  for (std::size_t i = 0;; ++i) {
    auto read = read_view(board, sid);
    if (!read) return read.error();
    view = std::move(read).value();
    if (i >= view->close_order.size()) break;
    const std::uint32_t round = view->close_order[i];
    if (is_restart_round(round) && is_commit_round(round)) ++report.randomness_restarts;
    if (auto st = run_round(round); !st) return st.error();
  }
  const Graph graph = derive_graph(p.parties, p.neighbors, view_randomness(*view));
  const Verdict verdict = judge(*view, graph, nullptr);
  report.excluded = verdict.bad;
  report.named = verdict.named;
  report.withheld = verdict.withheld;
  report.counted = verdict.counted;
  for (const auto& [u, c] : view->commits) {
    report.proof_bytes_per_party = proof_bytes(c);
    break;
  }
  report.board_entries = view->entries;
  report.board_bytes = view->bytes;
  if (!verdict.withheld.empty()) {
    say(o.log, "no result: " + verdict.withheld);
    report.phases.push_back({"aggregate", now_seconds() - t0});
    return report;
  }
  if (auto st = post(kRoundResult, MessageType::result, ResultMessage{verdict.counted, verdict.sum}.encode(p.parties)); !st) {
    return st.error();
  }
  report.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  report.board_entries += 1;
  report.phases.push_back({"aggregate", now_seconds() - t0});
  return report;
}

namespace {

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// Which inputs the board makes computable. For a set S of parties whose masked values are all on
// the board (in time or not) and whose every edge leaving S has a public seed, Σ_{u∈S} (x_u + η_u)
// follows; the smallest such sets are the components of the graph of hidden edges, and with a
// released result over C, K \ C for a component K ⊇ C. A single party's x_u + η_u computable is a
// failure, except for an excluded party that posted its masked value in time anyway (no honest
// party does: masked_refusal).
AuditCheck exposure_check(const View& v, const Graph& g, const Verdict& verdict, std::vector<std::uint32_t>& exposed_out) {
  const SessionParams& p = v.setup->params;
  std::set<Edge> public_edges;
  for (const auto& c : v.public_reveals) {
    auto s = v.edge_seeds.find({c.lo, c.hi});
    if (s != v.edge_seeds.end() && edge_seed_commitment(v.sid, c.lo, c.hi, c.seed) == s->second.seed_commitment) {
      public_edges.insert({c.lo, c.hi});
    }
  }
  std::vector<std::uint32_t> parent(p.parties);
  for (std::uint32_t u = 0; u < p.parties; ++u) parent[u] = u;
  auto find = [&](std::uint32_t u) {
    while (parent[u] != u) u = parent[u] = parent[parent[u]];
    return u;
  };
  for (std::uint32_t u = 0; u < p.parties; ++u) {
    for (auto w : effective_neighbours(g, verdict.dropped, u)) {
      if (w > u && !public_edges.count(edge_of(u, w))) parent[find(u)] = find(w);
    }
  }
  std::map<std::uint32_t, std::vector<std::uint32_t>> components;
  for (std::uint32_t u = 0; u < p.parties; ++u) components[find(u)].push_back(u);
  std::set<std::uint32_t> released;
  if (v.result) released.insert(v.result->counted.begin(), v.result->counted.end());
  std::vector<std::string> exposed, deviators;
  std::size_t partial = 0;
  auto single = [&](std::uint32_t w) {
    if (verdict.bad.count(w) && v.masked.count(w)) deviators.push_back(std::to_string(w));
    else {
      exposed.push_back(std::to_string(w));
      exposed_out.push_back(w);
    }
  };
  for (const auto& [component_root, k] : components) {
    const std::uint32_t root = component_root;  // a plain local: lambdas cannot capture bindings
    if (!std::all_of(k.begin(), k.end(), [&](std::uint32_t u) { return v.masked_anywhere.count(u) > 0; })) continue;
    if (k.size() == 1) {
      single(k.front());
      continue;
    }
    const bool holds_result =
        !released.empty() && std::all_of(released.begin(), released.end(), [&](std::uint32_t u) { return find(u) == root; });
    if (holds_result && k.size() == released.size() + 1) {
      for (auto u : k) {
        if (!released.count(u)) single(u);
      }
    } else if (!holds_result || k.size() > released.size()) {
      ++partial;
    }
  }
  std::string detail = exposed.empty() ? "no single party's x + η follows from the board"
                                       : "x + η computable from the board for parties " + join(exposed, ", ");
  if (!deviators.empty()) detail += "; computable for parties " + join(deviators, ", ") + ", which posted masked values although excluded";
  if (partial > 0) detail += "; " + std::to_string(partial) + " partial sums of several parties computable";
  return {"no party's input computable from the board", exposed.empty() ? CheckStatus::pass : CheckStatus::fail, detail};
}

}  // namespace

AuditReport audit_session(bulletin::Board& board, const std::optional<Bytes32>& session) {
  AuditReport a;
  if (auto ids = list_sessions(board)) a.sessions = ids.value();
  if (!session && a.sessions.size() > 1) {
    a.checks.push_back({"one session chosen", CheckStatus::fail,
                        std::to_string(a.sessions.size()) + " sessions on the board: choose one by its id"});
    return a;
  }
  auto view = read_view(board, session);
  if (!view) {
    a.log_ok = false;
    a.checks.push_back({"read and decode the board", CheckStatus::fail, view.error().message});
    return a;
  }
  const View& v = view.value();
  a.checks.push_back({"entries signed and canonical", v.log_problems.empty() ? CheckStatus::pass : CheckStatus::fail,
                      v.log_problems.empty() ? std::to_string(v.entries) + " entries" : v.log_problems.front()});
  a.checks.push_back({"coordinator: rounds closed in order", v.coordinator_problems.empty() ? CheckStatus::pass : CheckStatus::fail,
                      v.coordinator_problems.empty() ? std::to_string(v.closes) + " rounds closed"
                                                     : std::to_string(v.coordinator_problems.size()) + " entries refused: " +
                                                           v.coordinator_problems.front()});
  if (!v.coordinator_problems.empty()) a.log_ok = false;
  const SessionParams& p = v.setup->params;
  a.params = p;
  const Graph g = derive_graph(p.parties, p.neighbors, view_randomness(v));
  Verdict verdict = judge(v, g, nullptr);
  a.checks.insert(a.checks.end(), verdict.checks.begin(), verdict.checks.end());
  a.excluded = verdict.bad;
  a.named = verdict.named;
  a.misbehaving = verdict.bad;
  for (const auto& [u, why] : verdict.named) a.misbehaving.emplace(u, why + " (not excluded for it)");
  a.counted = verdict.counted;
  // A withheld result has no estimate: its sum lacks a share of the hidden noise.
  if (verdict.withheld.empty()) a.estimate = estimate_of(p, verdict.sum, verdict.counted.size());
  a.checks.push_back(exposure_check(v, g, verdict, a.exposed));
  a.checks.push_back({"excluded parties' pairwise terms removed",
                      verdict.unresolved.empty() ? CheckStatus::pass : CheckStatus::fail,
                      std::to_string(verdict.unresolved.size()) + " edges left unopened"});
  if (!verdict.withheld.empty()) {
    a.checks.push_back({"result withheld", v.result ? CheckStatus::fail : CheckStatus::pass,
                        v.result ? "a result was released although " + verdict.withheld : verdict.withheld});
    if (v.result) a.log_ok = false;
  } else if (!v.result) {
    a.checks.push_back({"released result", CheckStatus::fail, "no result entry from the coordinator"});
  } else {
    const bool same = v.result->counted == verdict.counted && v.result->sum == verdict.sum;
    a.checks.push_back({"released result matches the recomputation", same ? CheckStatus::pass : CheckStatus::fail,
                        std::to_string(v.result->counted.size()) + " parties counted" +
                            (same ? "" : "; the coordinator's result is not the recomputation over the board")});
    if (!same) a.log_ok = false;  // the coordinator's fault, never a party's
  }
  return a;
}

}  // namespace gopa::protocol
