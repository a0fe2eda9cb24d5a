// gopa/sampling.hpp — hidden Gaussian samples: a committee of c members computes a Box–Muller
// sample η as additive shares over Z_ℓ, every share Pedersen-committed, so nobody knows η and
// every step is checked from the public messages alone (DESIGN.md §1, docs/sampling.md).
//
//   using namespace gopa::sampling;
//   HiddenParams p = HiddenParams::make(/*f=*/16, /*members=*/5);
//   SystemRng rng;
//   HiddenRun run = run_hidden_box_muller(p, {}, rng);         // restarts without cheaters
//   if (run.ok()) {
//     run.output.samples[0].commitments[i];                    // C_i = η_i·G + r_i·H, member i
//     // member i keeps run.output.samples[0] share i (SharedOutput::shares, simulation only)
//   }
//   for (const Blame& b : run.blamed) std::puts(b.why.c_str()); // named cheaters, in order
//   // Anyone re-checks an attempt from its public log alone (sampling/log.hpp):
//   const HiddenAttemptLog& l = run.logs.back();
//   HiddenVerdict v = verify_hidden_log(p, l.members, l.messages, l.keys ? &*l.keys : nullptr);
//   v.ok, v.blame, v.commitments[0][i]                          // the same as the simulation's
//   // (an auditor takes the keys from the verdict of the attempt whose key round passed)
//
// Protocol (docs/sampling.md has the equations):
//   0. Keys, once per committee: every member's Paillier key, ring-Pedersen parameters and key
//      proofs (Π_mod, Π_prm, Π_fac: sampling/key_proofs.hpp), in the committee's first attempt;
//      every later attempt and call uses the proven keys (HiddenCommittee, HiddenKeySet).
//   1. Preprocessing, independent of the sample: Beaver triples (a, b, ab) and square pairs
//      (a, a²) from pairwise Paillier products (sampling/paillier.hpp), every share committed,
//      each ciphertext proven to encrypt the committed share (checked before replying), each
//      triple used checked by sacrificing another one; truncation masks contributed by every
//      member with a range proof (sigma/range.hpp).
//   2. Hidden uniform seed bits: b = (u/√(u²) + 1)/2 for a jointly random shared u (one square
//      pair and two openings per bit); a seed is Σ 2^i b_i ∈ [0, 2^m).
//   3. Box–Muller on shares with the same fixed-point conventions as circuits/ (the cos/sin
//      polynomial is circuits' cos2pi_table); the radius sqrt(−2 ln u1) is one piecewise
//      polynomial on the dyadic interval of u1 (or of 1 − u1) selected by the leading-one bits.
//   4. Identifiable abort: every opened share comes with its blinder and is checked against the
//      homomorphic commitment; every other deviation is caught by a check whose failure names
//      the member (sacrifice → generation transcripts opened; bad range proof). The driver then
//      restarts without the named member.
//
// Security notes
// - HiddenCommittee simulates the committee in one process (all members' secrets); HiddenMember
//   is one member of its own process (its own key and shares only, the others' messages read as
//   they arrive). The board is a byte-exact log of public messages (sampling/log.hpp): each
//   member's local computation only uses its own secrets and the messages of the log, and every
//   public check reads the log alone — the same code runs in verify_hidden_log, so an auditor
//   reaches the same verdict.
// - Paillier modulus: 2048 bits by default (≈112-bit security); tests use 704-bit moduli, which
//   are NOT secure and only exercise the arithmetic. Encryption uses a fixed base h^N and a
//   256-bit exponent (Damgård–Jurik–Nielsen style short randomness).
// - Every ciphertext carries a proof that it encrypts the member's committed share and that the
//   share is below 2^373, with one part against each replier's ring-Pedersen parameters
//   (sampling/enc_proofs.hpp), which excludes fractional plaintexts; replies carry no proof and
//   are checked by the sacrifice (docs/sampling.md).
// - What is not proven is listed in docs/sampling.md (§ What is and is not proven).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/random.hpp"
#include "gopa/sampling/key_proofs.hpp"
#include "gopa/sampling/log.hpp"
#include "gopa/sampling/paillier.hpp"

namespace gopa::sampling {

__extension__ typedef __int128 i128;

// Parameters of one hidden Box–Muller call (two samples).
struct HiddenParams {
  std::size_t members = 5;   // c ≥ 2
  unsigned f = 16;           // fractional bits of η
  unsigned F = 24;           // working fractional bits (f + 8)
  unsigned m = 20;           // bits per uniform seed (f + 4)
  unsigned degree = 0;       // degree of the radius polynomial (chosen by make())
  i128 sigma_fx = 1;         // σ = sigma_fx / 2^sigma_bits
  unsigned sigma_bits = 0;
  unsigned paillier_bits = 2048;  // Paillier modulus: even, in [674, 4096] (a 672-bit reply slot)
  // f ∈ [8, 24], members ∈ [2, 32]; σ rounded to 2^-16 unless 1. F = f + guard (guard ∈ [4, 12];
  // 8 keeps the masked-sum truncation error below 1/2 ulp of η for c ≤ 10, docs §3).
  static HiddenParams make(unsigned f, std::size_t members, double sigma = 1.0, unsigned guard = 8);
  [[nodiscard]] std::string name() const;
};

// Steps of the protocol, used to name where a member deviated.
enum class Step : std::uint8_t {
  kTripleCiphertext = 1,  // encrypted its own share inconsistently with its commitment (proof)
  kTripleReply,           // a wrong homomorphic reply to another member
  kTripleCommit,          // committed to a product share that is not what it computed
  kSacrificeOpening,      // a share opened in the sacrifice check does not match its commitment
  kMaskRange,             // a truncation mask outside its range (range proof rejected)
  kBitOpening,            // wrong share when opening u² for a random bit
  kMulOpening,            // wrong share when opening d = x − a or e = y − b
  kTruncOpening,          // wrong share when opening the masked value of a truncation
  kCiphertextRange,       // its ciphertext proof does not show a small plaintext (|a_i| ≥ 2^373)
  kPaillierKey,           // its Paillier key is malformed (size, parity, h not a unit) or not
                          // proven well formed (Π_mod, Π_prm, Π_fac: sampling/key_proofs.hpp)
  kCiphertextFraction,    // its ciphertext proof fails a replier's ring-Pedersen part (the
                          // plaintext is not proven an integer: e.g. a fraction u/v mod N)
  kFalseComplaint,        // complained about a ciphertext proof whose part verifies
};
[[nodiscard]] const char* step_name(Step s) noexcept;

// A member named by the public checks. A malformed, missing, out-of-order or extra message of
// the public log names its sender (or the member whose message is missing) with the step of
// the phase it belongs to.
struct Blame {
  std::size_t member = 0;  // the member's original index
  Step step = Step::kMulOpening;
  std::string why;
  // Named because its message is missing (not for anything it posted): on a board, a round
  // closed before the member posted looks the same.
  bool missing = false;
};

// Deliberate deviations, to test identifiable abort (tests and `gopa bench hidden` only).
struct Cheat {
  std::size_t member = 0;
  Step step = Step::kMulOpening;
  std::size_t occurrence = 0;  // deviate at the n-th time the member performs this step
  // kPaillierKey: occurrence 0 posts an even N (caught by the form check), occurrence 1 a
  // Paillier–Blum modulus with a 40-bit prime factor (caught only by Π_fac).
};

// A shared value as published: one commitment per member (C_i = v_i·G + r_i·H).
struct SharedOutput {
  std::vector<std::size_t> members;  // original indices of the members holding the shares
  std::vector<Point> commitments;
  // Simulation only: the members' shares and blinders (member k's pair at index k).
  std::vector<Scalar> shares, blinders;
  // Simulation only: Σ shares, i.e. η·2^f as a signed integer.
  [[nodiscard]] std::int64_t reveal() const;
};

struct Cost {
  std::size_t triples = 0;          // triples and square pairs used (one per product / bit)
  std::size_t triples_generated = 0;  // including the sacrificed ones
  std::size_t openings = 0;         // shared values opened
  std::size_t truncations = 0;
  std::size_t random_bits = 0;
  std::size_t bytes = 0;            // the public log: every message, frame headers included
  std::size_t bytes_preprocessing = 0;
  std::size_t bytes_keys = 0;       // the key round's messages (0: the attempt used earlier keys)
  // CPU time of the whole committee: every member's own work plus every member's checks of the
  // public messages (one verification counted c times).
  double seconds_preprocessing = 0;
  double seconds_online = 0;
  double seconds_verify = 0;  // one verifier's checks of the whole attempt
  double seconds_keys = 0;    // the key round's committee time (part of seconds_preprocessing)
};

struct HiddenOutput {
  std::vector<SharedOutput> samples;  // the two Box–Muller samples (f fractional bits)
  Cost cost;
  // Simulation-only trace for tests: seed values and the offset each truncation added to floor.
  std::uint64_t seed1 = 0, seed2 = 0;
  std::vector<int> trunc_offsets;
};

// The committee's public keys once a key round has passed: every member's Paillier key (N, h)
// and ring-Pedersen parameters (N, s, t), proven with Π_mod, Π_prm and every pairwise Π_fac.
// The first attempt of a committee opens with the key round; every later attempt and call of
// the same committee uses these keys and posts no key messages (its transcript binds `digest`).
struct HiddenKeySet {
  std::vector<std::size_t> members;  // the key round's committee (original indices)
  std::vector<std::shared_ptr<const PaillierPublic>> pk;  // [k]: members[k]'s key
  std::vector<RingPedersen> rp;                           // [k]: members[k]'s parameters
  // Every key message as read, hashed into the attempt's transcript (challenge "key round").
  std::array<std::uint8_t, 32> digest{};
  // The position of a member in `members`, or nullopt.
  [[nodiscard]] std::optional<std::size_t> index_of(std::size_t member) const;
};

// The public log of one attempt and the committee that produced it.
struct HiddenAttemptLog {
  std::vector<std::size_t> members;  // original indices, in committee order
  std::vector<HiddenMessage> messages;
  // The keys the attempt used from an earlier key round; empty when it opened with its own.
  std::optional<HiddenKeySet> keys;
};

struct HiddenRun {
  std::optional<HiddenOutput> output;  // empty when fewer than 2 members remain
  std::vector<Blame> blamed;           // every abort, in order; the run restarted after each
  std::size_t attempts = 0;
  std::vector<HiddenAttemptLog> logs;  // every attempt's public log, in order
  [[nodiscard]] bool ok() const noexcept { return output.has_value(); }
};

// One attempt with the given members (original indices): the output, or the blame that
// aborted it, and its public log (ending at the message whose check failed).
struct Attempt {
  std::optional<HiddenOutput> output;
  std::optional<Blame> blame;
  // Set when the attempt aborted without naming anyone (an opened u² = 0, probability 1/ℓ
  // per random bit for honest members); the run restarts with the same members.
  std::string error;
  std::vector<HiddenMessage> log;
  bool key_round = false;  // the attempt opened with a key round (its log holds the key messages)
};
// One self-contained attempt: fresh keys and a key round, then the sample.
[[nodiscard]] Attempt hidden_box_muller_attempt(const HiddenParams& p,
                                                const std::vector<std::size_t>& members,
                                                const std::vector<Cheat>& cheats, Rng& rng,
                                                bool trace = false);

// Simulation of one committee over a session: every member's Paillier key is generated once,
// the first attempt opens with the key round, and once a key round has passed every later
// attempt (in this call or a later one) uses its proven keys. A key round that names a member
// is repeated by the next attempt, without that member.
//
//   HiddenCommittee com(p, {0, 1, 2, 3, 4}, rng);
//   for (call …) { Attempt a = com.attempt(members, {}, rng); … drop_blamed(members, a.blame); }
//   com.keys();   // the proven public keys (what an auditor passes to verify_hidden_log)
namespace detail {
struct RpTableCache;  // the members' ring-Pedersen tables, built once per committee
}
class HiddenCommittee {
 public:
  HiddenCommittee(const HiddenParams& p, const std::vector<std::size_t>& members, Rng& rng);
  // `members`: a subset of the constructor's, in committee order.
  [[nodiscard]] Attempt attempt(const std::vector<std::size_t>& members,
                                const std::vector<Cheat>& cheats, Rng& rng, bool trace = false);
  // The keys of the last key round that passed (null before one has).
  [[nodiscard]] const HiddenKeySet* keys() const noexcept { return keys_ ? &*keys_ : nullptr; }

 private:
  HiddenParams p_;
  std::map<std::size_t, PaillierKey> secret_;
  std::optional<HiddenKeySet> keys_;
  std::shared_ptr<detail::RpTableCache> tables_;
};

// The committee's retry rule, one definition for every runner and auditor: after an attempt
// without output, the member it names is left out of every later attempt (and later call); an
// abort that names nobody (probability 1/ℓ per random bit for honest members) retries with the
// same members. A call gives up when fewer than two members remain or after kMaxHiddenAttempts
// attempts.
inline constexpr std::size_t kMaxHiddenAttempts = 32;
// Empty when attempt `attempt` (0-based, within one call) may run with `members` members;
// otherwise why it may not.
[[nodiscard]] std::string attempt_refusal(std::size_t members, std::size_t attempt);
// The members of the next attempt: `members` without the one `blame` names (unchanged without).
void drop_blamed(std::vector<std::size_t>& members, const std::optional<Blame>& blame);

// Runs attempts under the retry rule above until one succeeds or the rule gives up.
[[nodiscard]] HiddenRun run_hidden_box_muller(const HiddenParams& p, const std::vector<Cheat>& cheats,
                                              Rng& rng, bool trace = false);

// The outcome of re-checking an attempt from its public log alone.
// A message of the log that is not read where it stands: from a party that is not a member of
// the attempt, a second message under a sequence number already used, a message posted out of
// turn (before one that precedes it in protocol order; it is still read in its place), or a
// message left over after the end of a successful attempt. It names its sender only; it never
// changes the verdict.
struct Misplaced {
  std::uint32_t sender = 0;  // the message's member field
  std::string why;
};

struct HiddenVerdict {
  bool ok = false;             // every message present, well formed and every check passed
  std::optional<Blame> blame;  // when !ok: the member named, with the same step as the simulation
  std::string error;           // when !ok and nobody can be named (invalid parameters, an
                               // unattributable abort)
  std::vector<Misplaced> misplaced;  // senders of misplaced messages, in the order found
  // When ok: the two samples' commitments, [sample][k] = C_k = η_k·G + r_k·H for members[k]
  // (equal to the simulation's SharedOutput::commitments).
  std::vector<std::vector<Point>> commitments;
  // Set when the log opened with a key round that passed (even if a later step aborted): the
  // keys every later attempt of this committee is verified with.
  std::optional<HiddenKeySet> keys;
  std::size_t messages = 0;  // messages read
  std::size_t bytes = 0;     // their encoded bytes (headers included)
};

// Verifies one attempt of the committee `members` (original indices, in committee order) from
// its log: each member's messages are read by sequence number, in protocol order, decoded
// strictly and checked exactly as the committee checks it (misplaced messages name their
// senders in `misplaced` and are otherwise ignored); the Fiat–Shamir challenges are derived from
// the messages' bytes in protocol order. Uses no secret and no simulation state; never aborts on
// any log. The batch checks use the verifier's own randomness (SystemRng).
// `keys`: null for an attempt that opens with a key round (the committee's first, or every one
// after a key round that aborted); otherwise the keys of the key round that passed (from an
// earlier verdict's `keys`), whose members must include every member of the attempt.
[[nodiscard]] HiddenVerdict verify_hidden_log(const HiddenParams& p,
                                              std::span<const std::size_t> members,
                                              std::span<const HiddenMessage> log,
                                              const HiddenKeySet* keys = nullptr);

// ---- One member of its own process.
// In separate processes every member runs the committee protocol itself: it holds only its own
// Paillier key and its own shares, posts its messages, and reads the other members' messages
// from the board as they arrive. It checks everything any reader checks, so every member reaches
// the verdict verify_hidden_log reaches on the final log.

// How a member reads and writes the board.
struct MemberIo {
  // Appends to `more` the attempt's messages that follow the first `have` of its log, in log
  // order, after waiting for at least one. Returns false when none came in time; the member whose
  // message was awaited is then named as missing (a member that stalls).
  std::function<bool(std::size_t have, std::vector<HiddenMessage>& more)> fetch;
  // Posts one of this member's messages.
  std::function<void(const HiddenMessage&)> post;
};

// How one member's attempt ended.
struct MemberAttempt {
  bool ok = false;
  std::optional<Blame> blame;  // when !ok: the member named, as verify_hidden_log names it
  std::string error;           // when !ok and nobody is named
  // When ok: [sample][k], C_k = η_k·G + r_k·H for members[k]; and this member's own share and
  // blinder of each of the two samples.
  std::vector<std::vector<Point>> commitments;
  std::array<Scalar, 2> share{}, blinder{};
  std::vector<Misplaced> misplaced;
  bool key_round = false;  // the attempt opened with a key round
};

// One member of a committee, over every attempt and call of a session. It makes its Paillier key
// once. Its first attempt opens with the key round, and once a key round has passed every later
// attempt uses the proven keys (as HiddenCommittee does). The retry rule is the same
// (attempt_refusal, drop_blamed), applied by each member to its own verdicts.
class HiddenMember {
 public:
  HiddenMember(const HiddenParams& p, std::size_t id, Rng& rng);
  // One attempt of the committee `members` (original indices, in committee order; id among
  // them). `cheats`: this member's deliberate deviations (tests only; others' are ignored).
  [[nodiscard]] MemberAttempt attempt(const std::vector<std::size_t>& members, const MemberIo& io, Rng& rng,
                                      const std::vector<Cheat>& cheats = {});
  // The keys of the key round that passed (null before one has).
  [[nodiscard]] const HiddenKeySet* keys() const noexcept { return keys_ ? &*keys_ : nullptr; }
  [[nodiscard]] std::size_t id() const noexcept { return id_; }

 private:
  HiddenParams p_;
  std::size_t id_;
  PaillierKey key_;
  std::optional<HiddenKeySet> keys_;
  std::shared_ptr<detail::RpTableCache> tables_;
};

// Clear-text reference with exactly the semantics of the shared computation: seeds s1, s2 and
// the offset added by each truncation (in order; missing entries are 0, i.e. floor).
// Returns the two samples as integers at f fractional bits.
[[nodiscard]] std::pair<std::int64_t, std::int64_t> hidden_box_muller_reference(
    const HiddenParams& p, std::uint64_t s1, std::uint64_t s2,
    const std::vector<int>& trunc_offsets = {});

// The counts of the online phase (triples, random bits, truncations) for p, from a dry run.
[[nodiscard]] Cost hidden_box_muller_counts(const HiddenParams& p);

// Offsets a truncation may add to floor(x / 2^s): [lo, hi] for the masked-sum truncation with
// c members (the final truncation, from random bits, adds 0 or 1).
[[nodiscard]] std::pair<int, int> truncation_offset_range(std::size_t members) noexcept;

}  // namespace gopa::sampling
