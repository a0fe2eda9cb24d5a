// Internal to gopa_protocol: what the roles and drivers of a session share — the round numbers,
// the board as one session sees it (View), the checks every reader runs (judge), and helpers.
// Not installed; include/gopa/protocol/run.hpp is the public interface.
#pragma once

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

#include "gopa/bytes.hpp"
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
#include <functional>
#include <string>
#include <vector>

#include "gopa/protocol/run.hpp"
#include "gopa/protocol/graph.hpp"

namespace gopa::protocol::detail {

using bulletin::Entry;
using bulletin::Errc;
using bulletin::MessageType;
using bulletin::PublicKey;
using bulletin::SigningKey;
using bulletin::make_error;

constexpr std::string_view kPartyTranscript = "gopa/party v1";
// The round numbers are protocol::Round (messages.hpp). Joint randomness (docs/protocol.md § Joint
// randomness): attempt 0 commits in round 2 and reveals in round 3; when a party that committed
// does not reveal, the attempt restarts with the parties that did, at most randomness_restarts
// times: attempt a ≥ 1 commits in round 12 + 2(a − 1) and reveals in the round after.
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
inline std::vector<std::uint32_t> rounds_after_randomness(const SessionParams& p) {
  std::vector<std::uint32_t> out;
  if (p.noise == NoiseMode::hidden) out.push_back(kRoundCommittee);
  // A chain's session after its base reuses the base's sealed seeds: no rounds 4 and 5.
  for (std::uint32_t r = p.linked() ? kRoundCommit : kRoundEdgeSeed; r <= kRoundRecovery; ++r) out.push_back(r);
  return out;
}
// How long the coordinator waits for a round's markers before it closes the round anyway:
// round_timeout_ms, and for the committee's round (hidden noise, members of their own processes)
// round_timeout_ms for each call and each restart it may need, 2·calls + 2 times in all.
inline std::uint64_t round_time_limit(const SessionParams& p, std::uint32_t round) {
  if (round != kRoundCommittee) return p.round_timeout_ms;
  return std::uint64_t{p.round_timeout_ms} * (2ULL * hidden_calls(p) + 2);
}
// Rounds a party marks finished (and the coordinator closes).
constexpr bool is_party_round(std::uint32_t r) {
  return (r >= kRoundSeedCommit && r <= kRoundRecovery) || r == kRoundCommittee || is_restart_round(r);
}

constexpr std::uint32_t kBoxBlock = sigma::kMaxRangeValues / 2;
inline std::atomic<unsigned> g_verify_threads{0};
// Runs f(0..n−1) on up to `threads_wanted` threads (0: set_verify_threads(), else every core):
// proofs of distinct parties, blocks of one party's proofs.
template <class F>
void parallel_for(std::size_t n, F&& f, unsigned threads_wanted = 0) {
  gopa::parallel_for(n, threads_wanted != 0 ? threads_wanted : g_verify_threads.load(), std::forward<F>(f));
}

Key32 derive_key(std::uint64_t seed, std::string_view label, std::uint32_t index);
Transcript party_transcript(const Bytes32& sid, std::uint32_t index, std::string_view what);
std::uint32_t box_blocks(const SessionParams& p);
std::pair<std::uint32_t, std::uint32_t> box_block_range(const SessionParams& p, std::uint32_t b);
Transcript box_block_transcript(const Transcript& party, std::size_t blocks, std::size_t b);
std::shared_ptr<const GeneratorSet> domain_gens(const SessionParams& p);
std::string fmt_real(double v);
std::string_view domain_statement(const SessionParams& p);
Scalar input_scalar(const SessionParams& p, std::uint64_t v);
std::vector<Point> input_domain_statement(const SessionParams& p, std::span<const Point> inputs,
                                          const GeneratorSet& gens);
Key32 joint_randomness(const Bytes32& sid, std::uint32_t attempt, const std::map<std::uint32_t, Key32>& shares);
bulletin::Status append_all(bulletin::Board& board, const std::vector<Bytes>& entries);
Key32 digest(std::span<const std::uint8_t> bytes);

// Chains of sessions (docs/protocol.md § Chains of sessions): the id the edges' seeds are bound
// to (the base's), the secret this session's pairwise terms derive from (the seed outside a
// chain, the round key in one), and the reveal of that secret (seed_reveal, or key_reveal with
// the key's inclusion path).
inline Bytes32 chain_base_id(const SessionParams& p, const Bytes32& sid) { return p.linked() ? p.chain_base : sid; }
inline Key32 edge_secret(const SessionParams& p, const Bytes32& sid, std::uint32_t lo, std::uint32_t hi, const Seed32& seed) {
  return p.chained() ? edge_round_key(seed, chain_base_id(p, sid), lo, hi, p.chain_index) : seed;
}
inline ComplaintMessage reveal_message(const SessionParams& p, const Bytes32& sid, std::uint32_t lo, std::uint32_t hi,
                                       const Seed32& seed) {
  if (!p.chained()) return ComplaintMessage{ComplaintKind::seed_reveal, lo, hi, seed, {}};
  const Bytes32 base = chain_base_id(p, sid);
  return ComplaintMessage{ComplaintKind::key_reveal, lo, hi, edge_round_key(seed, base, lo, hi, p.chain_index),
                          edge_key_path(seed, base, lo, hi, p.chain_rounds, p.chain_index)};
}

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
  std::map<std::uint32_t, Blame> randomness_out;         // excluded by the randomness rounds
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
  std::map<std::uint32_t, Blame> malformed;  // party → first malformed message of rounds 2–8, 11
  // Named, never excluded for (they cannot change what honest readers computed before): entries
  // of a type outside its own round (Offence::misplaced), malformed messages of a recovery or
  // restart round and malformed round markers (Offence::malformed).
  std::map<std::uint32_t, Blame> misplaced;
  std::vector<std::string> log_problems;
  std::size_t entries = 0, bytes = 0;
  std::size_t other_sessions_entries = 0;  // entries of other sessions on the same board
  std::uint64_t head_at = 0;               // the log index of the session_setup entry
  // A chain's session after its base (docs/protocol.md § Chains of sessions): what it takes from
  // the base, read from the log before this session's setup. Its edge_seeds are the base's.
  struct Chain {
    Key32 graph_randomness{};                                  // the base's joint randomness
    // The edges the base left out: a bad-box complaint, or no sealed seed from lo.
    std::set<std::pair<std::uint32_t, std::uint32_t>> dropped;
  };
  std::optional<Chain> chain;
};

std::map<std::uint32_t, Key32> opened_shares(const View& v);
Key32 view_randomness(const View& v);
// The session's graph: drawn from its own joint randomness, or in a chain from the base's.
Graph session_graph(const View& v);
// The secret an edge's pairwise terms of this session derive from (derive_edge_noise), when a
// reveal opens the edge's commitment: the seed (seed_reveal, sessions outside a chain) or this
// round's key (key_reveal, a chain's sessions); nullopt otherwise.
std::optional<Key32> revealed_secret(const View& v, const ComplaintMessage& c);
// Hidden noise: the committee the joint randomness draws from the parties whose shares made it,
// in committee order (what every reader, driver and member takes as the committee).
std::vector<std::uint32_t> committee_of(const View& v);

// Reads the log from entry `from` up to the board's signed checkpoint, 1,024 entries at a time,
// and calls visit(raw) on every entry in board order (ViewReader, list_sessions, and a
// restarting party's own_entries).
template <class Visit>
bulletin::Status scan_log(bulletin::Board& board, Visit&& visit, std::uint64_t from = 0) {
  auto cp = board.checkpoint();
  if (!cp) return cp.error();
  auto opened = bulletin::open_checkpoint(cp.value(), board.verifier());
  if (!opened) return opened.error();
  const std::uint64_t size = opened.value().size;
  for (std::uint64_t at = from; at < size; at += 1024) {
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
// passed over; their count is kept. A reader keeps its view and reads only what was appended
// since its last update (every entry is decoded and its signature verified once), so polling
// the board costs what is new.
class ViewReader {
 public:
  explicit ViewReader(std::optional<Bytes32> session = std::nullopt) : session_(session) {}
  // Reads the entries appended since the last update, up to the board's checkpoint. The view
  // (valid until the next update), or not_found while the session's setup is incomplete.
  bulletin::Result<const View*> update(bulletin::Board& board);
  [[nodiscard]] const View& view() const { return v_; }
  [[nodiscard]] View take() && { return std::move(v_); }

 private:
  bulletin::Status ingest(std::span<const std::uint8_t> raw);
  bulletin::Status link_chain(bulletin::Board& board);
  View v_;
  std::optional<Bytes32> session_;
  std::uint64_t next_ = 0;  // entries read so far
};
// One reading from scratch.
bulletin::Result<View> read_view(bulletin::Board& board, const std::optional<Bytes32>& session = std::nullopt);

using Edge = std::pair<std::uint32_t, std::uint32_t>;  // (lo, hi)
inline Edge edge_of(std::uint32_t a, std::uint32_t b) { return {std::min(a, b), std::max(a, b)}; }
std::set<Edge> dropped_edges(const View& v);
std::vector<std::uint32_t> effective_neighbours(const Graph& g, const std::set<Edge>& dropped, std::uint32_t u);
std::vector<std::int64_t> terms_for(const EdgeNoise& z, std::uint32_t u, std::uint32_t w);

double now_seconds();
Point noise_term(const CommitMessage& m, const SessionParams& p, std::uint32_t j);

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


std::vector<Point> combined_commitments(const CommitMessage& m, const SessionParams& p);
Point pairwise_sum(const CommitMessage& m);
std::size_t proof_bytes(const CommitMessage& c);

std::optional<std::size_t> slot_of(const CommitMessage& m, std::uint32_t w);
bool edge_cancels(const CommitMessage& mu, std::size_t i, const CommitMessage& mw, std::size_t k);
bool terms_follow(const CommitMessage& m, std::size_t slot, std::uint32_t u, std::uint32_t w, const EdgeNoise& z,
                  const GeneratorSet& gens);
std::uint32_t randomness_attempt(const View& v);

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
  // Member → where it deviated (Offence::committee), or whose message is missing
  // (Offence::committee_missing), with the call, attempt and step in the detail.
  std::map<std::uint32_t, Blame> blamed;
  // expected[j]: the parties holding a share of coordinate j, with their share commitments
  // (at the sampler's precision); every other party's noise commitment must be the identity.
  std::vector<std::map<std::uint32_t, Point>> expected;
  std::size_t attempts = 0, messages = 0;
  // Senders of committee messages out of place (sampling::Misplaced, or of an attempt no reader
  // takes): named, never excluded for it.
  std::map<std::uint32_t, Blame> misplaced;
};

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

// The checks the coordinator, the parties and the auditor all run.
struct Verdict {
  std::map<std::uint32_t, Blame> bad;    // excluded, with the offence
  std::map<std::uint32_t, Blame> named;  // misbehaved without being excluded for it
  std::vector<AuditCheck> checks;
  std::vector<std::uint32_t> counted;
  std::vector<Scalar> sum;
  std::set<Edge> unresolved;  // edges to excluded parties whose seed nobody has revealed yet
  std::set<Edge> revealed;    // edges whose seed was validly revealed (round 7 or 9)
  std::set<Edge> dropped;     // edges left out by a bad-box complaint
  std::string withheld;       // non-empty: no result may be released (hidden noise incomplete)
  std::optional<HiddenNoise> hidden;
  // Excluded parties with a deviation the board attests (some blame of theirs has an attested()
  // offence, not only a missing or late message, which an honest party cut off by an early close
  // could have): only these open noise shares.
  std::set<std::uint32_t> attested;
};

HiddenNoise check_hidden(const View& v);
HiddenNoise cached_hidden(const View& v, const Key32& y, ProofCache* cache);
void check_domain_group(const View& v, std::span<const std::uint32_t> group, std::span<ProofChecks> out,
                        unsigned threads);
void check_group(const View& v, const Key32& y, std::span<const std::uint32_t> group, std::span<ProofChecks> out,
                 unsigned threads);
std::map<std::uint32_t, ProofChecks> check_all_proofs(const View& v, const Key32& y, ProofCache* cache);
Verdict judge(const View& v, const Graph& g, ProofCache* cache);
std::string masked_refusal(const View& v, const Graph& g, const Verdict& verdict, std::uint32_t u);
std::vector<double> estimate_of(const SessionParams& p, const std::vector<Scalar>& sum, std::size_t count);

// The coordinator as a role, which both drivers run: it posts the setup, closes the rounds in the
// only order readers accept (View::close_order), and releases the result.
class CoordinatorRole {
 public:
  CoordinatorRole(bulletin::Board& board, SetupMessage setup, SigningKey key, CoordinatorPoster::Deviate deviate = {})
      : setup_(std::move(setup)), poster_(board, setup_.params.session_id(), std::move(key), std::move(deviate)) {}
  [[nodiscard]] bulletin::Status post_setup();
  [[nodiscard]] bulletin::Status close(std::uint32_t round);
  // With every round closed: the verdict over the board, and the result posted unless the verdict
  // withholds it. Fills report's counted, excluded, named, withheld and estimate.
  [[nodiscard]] bulletin::Result<Verdict> release(const View& v, ProofCache* cache, RunReport& report);
  [[nodiscard]] const SetupMessage& setup() const { return setup_; }
  // The i-th round to close, in the order every reader accepts (2, 3, the restarts while the
  // randomness loses a reveal, (11,) 4, …, 9; the board extends it as attempts settle), from the
  // board read again through `reader` (`view` is set to what it read); nullopt once every round
  // is closed. The i-th close is posted whatever the board accepted before (a deviating
  // coordinator's closes may not count). Counts the randomness restarts in `report`.
  [[nodiscard]] static bulletin::Result<std::optional<std::uint32_t>> round_to_close(
      ViewReader& reader, bulletin::Board& board, std::size_t i, const View*& view, RunReport& report);

 private:
  SetupMessage setup_;
  CoordinatorPoster poster_;
};

void say(const std::function<void(const std::string&)>& log, const std::string& line);
// Polls the board through `reader` until pred(view) holds; an error after `timeout_ms` (0: wait
// forever). The view is the reader's.
bulletin::Result<const View*> wait_view(ViewReader& reader, bulletin::Board& board, std::uint32_t poll_ms,
                                        std::uint64_t timeout_ms, const std::function<bool(const View&)>& pred,
                                        const std::string& what);

}  // namespace gopa::protocol::detail
