// gopa/protocol/run.hpp — GOPA in one process: n honest parties and a coordinator play every
// round through a board, then an auditor re-verifies the board from scratch.
//
//   RunConfig cfg;  cfg.params = SessionParams::defaults(100, 1);  cfg.inputs = …;
//   auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
//   Result<RunReport> r = run_session(cfg, *board);
//   AuditReport a = audit_session(*board);     // PASS/FAIL/SKIP per check, named parties
//
// Rounds (protocol::Round, docs/protocol.md § Rounds and messages, numbered the same): 1 setup
// (parameters, roster), 2 commitments to randomness shares and noise seeds, 3 reveal of the shares
// (joint public randomness: graph and public seed part; 12, 13, … restart it without a party that
// withheld its reveal), 11 the hidden-noise committee, 4 sealed pairwise seeds, 5 bad-box
// complaints, 6 commitments to X, every Δ and η with the input-domain proof of X and the noise
// proof of η, 7 cancellation reveals, 8 X̂ with the output-correctness proof, 9 recovery,
// 10 the result.
//
// Complaints: a recipient whose sealed seed does not open to the seed its sender committed to
// drops the edge (round 5); an end of an edge whose terms do not cancel (round 7), or whose
// neighbour was excluded (round 9), reveals the edge's seed, so anyone can name the end whose
// commitments do not follow from it and remove an excluded neighbour's pairwise term from the sum.
//
// Roles (src/protocol/party_role.cpp, coordinator.cpp): a party and the coordinator are state
// machines over the board; run_session runs all of them in lockstep in one process, run_party and
// run_coordinator one each, polling a shared board. The round order is written once, in the roles.
//
// Noise: η_u is the session sampler's output (protocol/noise.hpp, circuits/) on seeds
// s_i = (x_i + y_i) mod 2^m, x_i committed in round 2 before the joint randomness fixes y_i; the
// round-6 message carries the proof, checked by everyone like the input-domain proof.
// Hidden noise (SessionParams::noise): after round 3 a committee drawn by the joint randomness
// computes one hidden η per coordinate as Pedersen-committed additive shares (gopa/sampling.hpp),
// its whole log on the board; members fold their shares into X̂ and commit to them, everyone else
// commits to no noise; a member excluded for a deviation the board attests opens its shares in
// round 9. The coordinator withholds the result when a share is missing or would have to come from
// a member excluded only for a missing or late message (possibly an honest one cut off).
// Separate processes (run_party/run_coordinator): each committee member computes with its own key
// and shares in round 11, reading the others' messages from the board as they arrive.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "gopa/bulletin/audit.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/blame.hpp"
#include "gopa/protocol/messages.hpp"
#include "gopa/protocol/requirements.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::protocol {

// Ways a simulated party can deviate (gopa run --cheat KIND:COUNT), each caught by a check:
// range: commits to an input above M (x + 2^input_bits; the domain proof fails); cancel: shifts one pairwise
// term (cancellation fails, the seed reveal names it); noise: commits to 2η + 1 instead of the
// sampled η and keeps X̂ consistent with it (the noise proof fails); output: publishes X̂ that does not
// match its commitments (output proof fails); signature: signs its X̂ with a wrong key (the
// board refuses it, so its value is missing); replay: publishes another party's X̂ and proof
// as its own (output proof fails: proofs are bound to the party); missing: never publishes X̂;
// committee (hidden noise only): a committee member deviates at a step of the hidden-sample
// protocol chosen from the seed (identifiable abort names it; the committee restarts without it).
// With hidden noise, `noise` commits to its share plus one ulp (or, outside the committee, to one
// ulp instead of nothing).
// With the L2 ball, range commits to an input just outside the ball (its first coordinate raised
// until ‖x‖₂ > C) and proves it with truncated bit decompositions (the ball proof fails).
// forge: commits to an input below 0 (below −C for the ball) and forges the domain proof with the
// binding attack along G (an offset on the wire commitment; the domain proof fails); seed: changes its first noise
// seed after the public randomness and forges the noise proof the same way (the noise proof
// fails). Both play a malicious prover through gopa/deviation.hpp.
// withhold: keeps its randomness reveal back once it has read the others' (the i-th such cheater
// in attempt i), forcing a restart of the joint randomness.
enum class CheatKind { range, forge, seed, cancel, noise, output, signature, replay, missing, committee, withhold };
[[nodiscard]] const char* cheat_name(CheatKind k) noexcept;
[[nodiscard]] std::optional<CheatKind> cheat_from_name(std::string_view name) noexcept;

struct RunConfig {
  SessionParams params;
  // Parties that deviate: count per kind; cheaters are distinct parties chosen from the seed.
  std::map<CheatKind, std::uint32_t> cheats;
  // Parties that vanish after the pairwise-seed round.
  std::uint32_t dropouts = 0;
  // n rows of d fixed-point integers: in [0, M] for the box; for the L2 ball signed, with
  // Σ x_j² ≤ C², each held as its two's complement bit pattern (static_cast<std::uint64_t>(x)).
  std::vector<std::vector<std::uint64_t>> inputs;
  std::uint64_t seed = 1;  // keys and randomness of the simulated parties (reproducible runs)
  // The simulated parties' keys (and the default coordinator key) from this seed instead of
  // `seed`: the sessions of a chain (params.chain_rounds ≥ 2) run over one roster and one
  // coordinator, each with fresh randomness.
  std::optional<std::uint64_t> key_seed;
  // The coordinator's Ed25519 seed; default: derived from `seed`. One key over several sessions
  // lets a training manifest be signed by the coordinator of every session it lists.
  std::optional<Key32> coordinator_sign_seed;
  // Progress callback: phase name, items done, items in the phase.
  std::function<void(const std::string&, std::size_t, std::size_t)> progress;
  // TEST ONLY: a coordinator that closes each of `rounds` at the worst moment for `victim`: after
  // every other party's entries of the round and the victim's first `victim_entries_before`
  // (e.g. one chunk of a chunked message), before the victim's others, which land late.
  struct EarlyClose {
    std::uint32_t victim = 0;
    std::set<std::uint32_t> rounds;
    std::size_t victim_entries_before = 0;
  };
  std::optional<EarlyClose> early_close;
  // TEST ONLY: rewrites the committee's log of (call, attempt) before it is posted; each message
  // is then posted, in the order given, signed by the roster party its member field names (a
  // party off the committee posting, a member posting out of turn or after the end).
  std::function<void(std::uint32_t call, std::uint32_t attempt, std::vector<sampling::HiddenMessage>& log)> committee_posts;
  // TEST ONLY: rewrites the chunk payloads of a party's message that travels in chunks (type and
  // round given) before they are signed: reordered, dropped, or replaced by chunks of another
  // message — a sender that reorders, withholds or splices its chunks.
  std::function<void(std::uint32_t party, bulletin::MessageType type, std::uint32_t round, std::vector<Bytes>& chunks)>
      chunk_posts;
};

struct PhaseTime {
  std::string name;
  double seconds = 0;
};

struct RunReport {
  Bytes32 session_id{};
  std::map<std::uint32_t, std::string> deviating;  // ground truth: party → cheat kind or "dropout"
  std::map<std::uint32_t, Blame> excluded;         // the coordinator's verdict: party → offence
  std::map<std::uint32_t, Blame> named;            // misbehaved without being excluded for it
  std::vector<std::uint32_t> counted;
  std::vector<double> estimate;  // the released average, per coordinate (real units)
  std::vector<PhaseTime> phases;
  std::size_t proof_bytes_per_party = 0;  // range + output proofs of one party
  std::size_t board_bytes = 0;            // all entries
  std::size_t board_entries = 0;
  // The published X̂_u of every counted party, decoded to real units (what the board shows of u).
  std::map<std::uint32_t, std::vector<double>> published;
  // Hidden noise: the committee drawn by the joint randomness, its attempts and board bytes.
  std::vector<std::uint32_t> committee;
  std::size_t committee_attempts = 0;
  std::size_t committee_bytes = 0;
  std::uint32_t randomness_restarts = 0;  // restarts of the joint randomness (withheld reveals)
  // Non-empty when no result was released, with the reason (the randomness lost a reveal in every
  // allowed attempt, a late masked value of an excluded party, a seed still owed after the
  // recovery round, hidden noise incomplete); estimate is then empty.
  std::string withheld;
  // Round 5 closed: the sealed seeds are settled, so a chain's base can carry later rounds.
  bool seeds_exchanged = false;
};

[[nodiscard]] bulletin::Result<RunReport> run_session(const RunConfig& config, bulletin::Board& board);

// ---- Separate processes over a shared board (gopa coordinate / gopa party).
//
// The same rounds, each party in its own process. Rounds are closed by the coordinator: each
// party posts a round marker (entry type round_cosignature, payload = the round) when it has
// finished a round; the coordinator posts its own marker for the round when every party still
// in the session has, or when round_timeout_ms has passed. Entries of a round that appear in
// the log after the coordinator's marker for it are ignored by everyone, so all readers (the
// parties, the coordinator, any auditor) judge the same set of messages.
struct PartyKeys {
  Key32 sign_seed{};  // Ed25519 seed
  Key32 box_seed{};   // X25519 seed
  [[nodiscard]] RosterEntry public_entry() const;
};

struct PartyOptions {
  std::uint32_t index = 0;
  PartyKeys keys;
  // d real values: each in [0, M] for the box, ‖input‖₂ ≤ C for the L2 ball (refused otherwise,
  // before anything is posted).
  std::vector<double> input;
  // Checked against the posted parameters before anything is posted (requirements.hpp): a
  // session that does not meet it is refused with Errc::invalid_argument naming the quantity.
  PrivacyRequirement requirement;
  // Called with the certificate once the parameters meet the requirement (before the first post).
  std::function<void(const Certificate&)> accepted;
  std::uint32_t poll_ms = 50;
  // Threads for this party's proofs (their blocks are proven in parallel) and for its checks of
  // the other parties' proofs; 0: every core. The proofs do not depend on it.
  unsigned threads = 0;
  // The session to join; without it, the only session on the board that is not over and whose
  // roster holds these keys at `index` (refused when there are several).
  std::optional<Bytes32> session;
  std::uint64_t wait_ms = 0;  // how long to wait for that session to appear (0: forever)
  std::function<void(const std::string&)> log;  // one line per round
  // TEST ONLY: a malicious party. Called with every entry the honest party is about to post
  // (unsigned), it returns the entries to post instead — none (withheld), others of any type,
  // round, session or payload, copies, entries kept back from earlier calls — which are signed
  // with the party's key and fresh sequence numbers; a post the board refuses is skipped.
  std::function<std::vector<bulletin::Entry>(const bulletin::Entry& planned)> deviate;
  // TEST ONLY: the party deviates as a simulated cheater of this kind does in run_session (the
  // cheat matrix across processes): `withhold` keeps back its first reveal, `replay` waits for
  // another party's masked value and posts it as its own; `committee` (hidden noise only): a
  // committee member that opens a wrong share at its first multiplication of each call.
  std::optional<CheatKind> cheat;
  // TEST ONLY: run_party returns (PartyOutcome::stopped says so) right after posting its marker of
  // this round, without waiting for the close, as a party killed there would; calling run_party
  // again with the same keys resumes the session.
  std::optional<std::uint32_t> stop_after_round;
  // TEST ONLY: a committee member returns the same way right after posting this many of its
  // committee messages in round 11, as a member killed in the middle of the hidden noise would.
  std::optional<std::uint32_t> stop_after_committee_messages;
};

struct PartyOutcome {
  Bytes32 session_id{};
  std::vector<double> estimate;  // the released average
  std::vector<std::uint32_t> counted;
  bool counted_me = false;
  std::map<std::uint32_t, Blame> excluded;  // the result's excluded parties, with their offences
  // Parties that misbehaved without being excluded for it (entries outside their rounds,
  // offences inside recovery rounds: docs/protocol.md § Rounds).
  std::map<std::uint32_t, Blame> named;
  // Non-empty when the coordinator misbehaved: its result differs from this party's
  // recomputation over the board (then estimate and counted are the recomputation's), or some of
  // its entries were refused (a round closed out of order).
  std::string coordinator_problem;
  // Non-empty when the session ended without a result (the reason, as every reader computes it),
  // or when this party stopped early: it refused a round closed too soon, or found itself
  // excluded before its masked value (which it then never posts).
  std::string withheld;
  std::string stopped;
};

// Runs party `index` to the end of the session found on the board (waits for its setup).
//
// Restarts (docs/protocol.md § Restarts): every secret the party draws in a session is derived
// from its keys, the board's verifier key and the session id, one stream per step, so a party
// whose process stopped resumes by calling run_party again with the same keys and input: it reads
// its own entries of the session, re-derives its state, posts nothing it already posted (refusing,
// with Errc::equivocation, to post different content for an entry on the board), numbers new
// entries after its last one, and continues with the rounds it still owes.
[[nodiscard]] bulletin::Result<PartyOutcome> run_party(const PartyOptions& options, bulletin::Board& board);

struct CoordinatorOptions {
  SessionParams params;
  std::vector<RosterEntry> roster;
  Key32 sign_seed{};
  std::uint32_t poll_ms = 50;
  std::function<void(const std::string&)> log;
  // TEST ONLY: a malicious coordinator. Called with every entry the coordinator is about to post
  // (unsigned); the entries it returns are signed and posted instead (failures skipped).
  std::function<std::vector<bulletin::Entry>(const bulletin::Entry& planned)> deviate;
};

// Posts the setup, closes every round, and releases the result.
[[nodiscard]] bulletin::Result<RunReport> run_coordinator(const CoordinatorOptions& options, bulletin::Board& board);

// PASS/FAIL/SKIP checks, as in the log-level audit of the board.
using bulletin::CheckStatus;
using bulletin::check_status_name;
using AuditCheck = bulletin::CheckResult;

struct AuditReport {
  std::vector<AuditCheck> checks;
  // Party index → the first check it failed: the excluded parties, and those named without
  // being excluded (entries outside their rounds, offences inside recovery rounds; their detail
  // ends "(not excluded for it)"). A drop-out (Offence::dropout) is excluded, not a deviation:
  // the command line exits 0 when only such parties are missing.
  std::map<std::uint32_t, Blame> misbehaving;
  std::map<std::uint32_t, Blame> excluded;  // the parties the recomputation leaves out, with their offences
  std::map<std::uint32_t, Blame> named;     // misbehaved without being excluded for it
  std::vector<double> estimate;                      // recomputed from the board
  std::vector<std::uint32_t> counted;
  std::optional<SessionParams> params;               // the session's posted parameters, once read
  // Parties whose x_u + η_u follows from the board (the check "no party's input computable").
  std::vector<std::uint32_t> exposed;
  std::vector<Bytes32> sessions;  // every session set up on the board, in board order
  bool log_ok = true;                                // false: the log itself is inconsistent
  [[nodiscard]] bool all_passed() const;
};

// Re-verifies everything on the board: entry signatures and canonical encodings, the session
// setup, every party's range proof, cancellation of every edge, every output proof, and the
// released result.
// The ids of the sessions set up on a board, in board order.
[[nodiscard]] bulletin::Result<std::vector<Bytes32>> list_sessions(bulletin::Board& board);
// The parameters a session's setup entry posted (the first setup entry with that id).
[[nodiscard]] bulletin::Result<SessionParams> session_params(bulletin::Board& board, const Bytes32& session);

// A board holds any number of sessions: `session` chooses one; without it the board must hold
// exactly one (else a failed check "one session chosen" lists how many there are, in `sessions`).
[[nodiscard]] AuditReport audit_session(bulletin::Board& board, const std::optional<Bytes32>& session = std::nullopt);

// Threads of every verification in this process (the coordinator's, a party's and the auditor's
// checks of all parties' proofs); 0 (the default): every core.
void set_verify_threads(unsigned threads) noexcept;

}  // namespace gopa::protocol
