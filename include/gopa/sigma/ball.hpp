// gopa/sigma/ball.hpp — L2-ball proofs: the d values committed in V_j = x_j·G + r_j·H are signed
// integers with Σ x_j² ≤ C² (so every |x_j| ≤ C), C the radius, in one circuit proof.
//
//   std::vector<Point> V = …;                     // V_j = x_j·G + r_j·H, x_j < 0 as ℓ − |x_j|
//   Transcript t("gopa/party v1");
//   auto proof = prove_ball(t, *gens, 32, C, V, x, r, rng);      // nullopt: outside the ball
//   Transcript tv("gopa/party v1");
//   VerifyResult ok = verify_ball(tv, *gens, {32, C, V}, *proof);
//
// Construction (docs/proofs.md §5.2): per coordinate, bits β_{j,0..b−1} with β(β − 1) = 0 and the
// binding Σ_i 2^i·β_{j,i} − C = x_j (so x_j + C ∈ [0, 2^b)), and one gate x_j·x_j = q_j; then 2b
// bits γ with Σ_i 2^i·γ_i = C² − Σ_j q_j (so C² − Σ x_j² ∈ [0, 2^(2b))). C and C² are public
// inputs of the circuit. With C < 2^(b−1), d ≤ 1024 and b ≤ 64 nothing wraps modulo ℓ, so the
// proof shows ‖x‖₂ ≤ C over the integers exactly. gens needs ball_generators(bits, d) vector
// generators; size for b = 32, d = 16: 805 bytes (1,061 at d = 256).
//
// Blocked variant (docs/proofs.md §5.3), for 1 ≤ d ≤ kMaxBlockedBallDim: the coordinates in
// blocks of ball_block_size(b), each block k an instance of the block circuit showing that
// x_j + C ∈ [0, 2^b) for its coordinates and that the prover's commitment S_k = q_k·G + t_k·H
// holds q_k = Σ_{j∈k} x_j², and one 2b-bit range circuit proof of C² − Σ_k q_k, committed in
// C²·G − Σ_k S_k. The full blocks are one circuit batch (circuit.hpp: shared challenges, one
// pivot), a shorter last block a batch of its own, the slack a circuit proof; the parts run on
// forks of one transcript that binds every S_k first, the blocks of a batch on `threads` threads:
//
//   auto proof = prove_ball_blocked(t, *gens, 32, C, V, x, r, rng, 2);      // nullopt: outside
//   VerifyResult ok = verify_ball_blocked(tv, *gens, {32, C, V}, *proof, 2);
//
// gens needs ball_blocked_generators(bits, d) (those of one full block). Memory is linear in d:
// one block's witness and prover state per thread. Size at b = 32: 32 + 96 bytes per block of
// 992 coordinates plus one compressed proof per batch and the slack proof (docs/proofs.md §5.3).
//
// Security notes: prove_ball and prove_ball_blocked branch on whether the values are in the ball
// (they refuse the others, which is the only thing that branch reveals); everything else on the
// values is constant time. The partial sums q_k are secret: S_k is a hiding commitment, and a
// block's witness is only ever in SecretScalar. prove_ball_blocked's per-block randomness is a
// ChaCha20 stream of 32 bytes drawn from the caller's rng (as strong as that rng).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gopa/sigma/circuit.hpp"

namespace gopa::sigma {

inline constexpr std::size_t kMaxBallDim = 1024;

// bits ∈ {8, 16, 32, 64}, 1 ≤ d ≤ kMaxBallDim, 1 ≤ radius < 2^(bits − 1).
[[nodiscard]] bool ball_params_supported(unsigned bits, std::size_t d, std::uint64_t radius) noexcept;

struct BallStatement {
  unsigned bits = 32;
  std::uint64_t radius = 0;        // C, a fixed-point integer
  std::vector<Point> commitments;  // V_j = x_j·G + r_j·H
};

struct BallProof {
  unsigned bits = 32;
  std::size_t d = 1;
  CircuitProof body;

  // version ‖ kind (0x04) ‖ bits (u8) ‖ d (u16 LE) ‖ circuit body (docs/proofs.md §5.2).
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  // Strict; nullopt for unsupported bits, d ∉ [1, kMaxBallDim], wrong length, any non-canonical
  // element.
  [[nodiscard]] static std::optional<BallProof> decode(std::span<const std::uint8_t> in);
  [[nodiscard]] static std::size_t encoded_size(unsigned bits, std::size_t d);
};

// The (cached) circuit of a ball proof (public inputs C, C²) and the generators it needs.
[[nodiscard]] std::shared_ptr<const Circuit> ball_circuit(unsigned bits, std::size_t d);
[[nodiscard]] std::size_t ball_generators(unsigned bits, std::size_t d);

// values[j] is x_j embedded in Z_ℓ (negatives as ℓ − |x_j|); nullopt when the parameters are
// unsupported or the values are not in the ball.
[[nodiscard]] std::optional<BallProof> prove_ball(Transcript& t, const GeneratorSet& gens, unsigned bits,
                                                  std::uint64_t radius, std::span<const Point> commitments,
                                                  std::span<const SecretScalar> values,
                                                  std::span<const SecretScalar> blinders, Rng& rng);

[[nodiscard]] VerifyResult verify_ball(Transcript& t, const GeneratorSet& gens, const BallStatement& st,
                                       const BallProof& proof);

// Many proofs, one MSM, as batch_verify_range (range.hpp).
[[nodiscard]] VerifyResult batch_verify_ball(std::span<Transcript> transcripts, const GeneratorSet& gens,
                                             std::span<const BallStatement> statements,
                                             std::span<const BallProof> proofs, Rng& rng);

// ---------------------------------------------------------------- blocked L2-ball proofs (§5.3)

inline constexpr std::size_t kMaxBlockedBallDim = std::size_t{1} << 20;
// Coordinates per block at most (the block size at b = 8 and 16).
inline constexpr std::size_t kBallBlockSize = 1024;
// The kind byte of a blocked L2-ball proof (the byte after kProofVersion). 0x05 was one circuit
// proof per block, no longer accepted.
inline constexpr std::uint8_t kBlockedBallKind = 0x06;

// bits ∈ {8, 16, 32, 64}, 1 ≤ d ≤ kMaxBlockedBallDim, 1 ≤ radius < 2^(bits − 1).
[[nodiscard]] bool ball_blocked_params_supported(unsigned bits, std::size_t d, std::uint64_t radius) noexcept;
// Coordinates per block at b bits: min(kBallBlockSize, ⌊2^15 / (b + 1)⌋) (1024, 1024, 992, 504 at
// b = 8, 16, 32, 64), so that a block's b + 1 gates per coordinate fill the prover's polynomial
// transforms (docs/proofs.md §5.3).
[[nodiscard]] std::size_t ball_block_size(unsigned bits) noexcept;
// ⌈d / ball_block_size(bits)⌉, and the size of block k (ball_block_size(bits) but for the last).
[[nodiscard]] std::size_t ball_block_count(unsigned bits, std::size_t d) noexcept;
[[nodiscard]] std::size_t ball_block_len(unsigned bits, std::size_t d, std::size_t k) noexcept;

struct BlockedBallProof {
  unsigned bits = 32;
  std::size_t d = 1;
  std::vector<Point> partial;              // S_k = q_k·G + t_k·H, one per block
  std::vector<CircuitBatchProof> batches;  // the full blocks (if any), then a shorter last block
  CircuitProof slack;                      // C² − Σ_k q_k ∈ [0, 2^(2b)), committed in C²·G − Σ_k S_k

  // version ‖ 0x06 ‖ bits (u8) ‖ d (u32 LE) ‖ S_0..S_{K−1} ‖ each batch's body ‖ slack body
  // (docs/proofs.md §5.3).
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  // Strict: nullopt for unsupported bits, d ∉ [1, kMaxBlockedBallDim], a length other than
  // encoded_size(bits, d), any non-canonical point or scalar.
  [[nodiscard]] static std::optional<BlockedBallProof> decode(std::span<const std::uint8_t> in);
  [[nodiscard]] static std::size_t encoded_size(unsigned bits, std::size_t d);
};

// The circuit of one block of n coordinates (public input C; bindings V_j of the block, then
// S_k), cached for n = ball_block_size(bits) (and the last shorter n used, per bits); the
// circuit of the final 2b-bit slack (one binding).
[[nodiscard]] std::shared_ptr<const Circuit> ball_block_circuit(unsigned bits, std::size_t n);
[[nodiscard]] std::shared_ptr<const Circuit> ball_slack_circuit(unsigned bits);
[[nodiscard]] std::size_t ball_blocked_generators(unsigned bits, std::size_t d);

// The batches of blocks, in proof order: block_batches(d, ball_block_size(bits)).
using BallBatch = BlockBatch;
[[nodiscard]] std::vector<BallBatch> ball_batches(unsigned bits, std::size_t d);

// The transcript steps, for provers and verifiers that handle parts elsewhere: the statement and
// every S_k on t (after the caller bound the V_j); the fork of batch g, and of the slack.
void bind_ball_blocked(Transcript& t, unsigned bits, std::size_t d, std::uint64_t radius,
                       std::span<const Point> partial);
[[nodiscard]] Transcript ball_batch_transcript(const Transcript& bound, std::size_t g);
[[nodiscard]] Transcript ball_slack_transcript(const Transcript& bound);
// C²·G − Σ_k S_k (public).
[[nodiscard]] Point ball_slack_commitment(const GeneratorSet& gens, std::uint64_t radius,
                                          std::span<const Point> partial);

// As prove_ball, for 1 ≤ d ≤ kMaxBlockedBallDim; the blocks of a batch are proven on `threads`
// threads, each batch and the slack from its own 32-byte seed drawn from rng in order, so the
// proof does not depend on the thread count. nullopt when the parameters are unsupported or the
// values are not in the ball.
[[nodiscard]] std::optional<BlockedBallProof> prove_ball_blocked(Transcript& t, const GeneratorSet& gens,
                                                                 unsigned bits, std::uint64_t radius,
                                                                 std::span<const Point> commitments,
                                                                 std::span<const SecretScalar> values,
                                                                 std::span<const SecretScalar> blinders, Rng& rng,
                                                                 unsigned threads = 1);

// Verifies every batch of blocks and the slack (on `threads` threads); a failure names the first
// failing part in order ("block k" for a batch of one, "blocks a..b" for more), whatever the
// thread count.
[[nodiscard]] VerifyResult verify_ball_blocked(Transcript& t, const GeneratorSet& gens, const BallStatement& st,
                                               const BlockedBallProof& proof, unsigned threads = 1);

// Many blocked proofs, one MSM: every batch and slack equation of every proof under its own
// random weight from rng (drawn in order, so the verdict does not depend on `threads`). A
// structural defect names its proof and part; a failed equation says only that some proof is
// invalid: verify_ball_blocked on each then names the failing part.
[[nodiscard]] VerifyResult batch_verify_ball_blocked(std::span<Transcript> transcripts, const GeneratorSet& gens,
                                                     std::span<const BallStatement> statements,
                                                     std::span<const BlockedBallProof> proofs, Rng& rng,
                                                     unsigned threads = 1);

}  // namespace gopa::sigma
