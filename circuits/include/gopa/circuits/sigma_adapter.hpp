// gopa/circuits/sigma_adapter.hpp — proving a recorded circuit with the compressed Σ-protocol
// circuit prover (gopa/sigma/circuit.hpp), and the end-to-end Gaussian-sample proof.
//
//   auto sc = to_sigma(rec.circuit(), rec.values());     // prover: circuit + witness
//   auto vc = to_sigma(rec_verifier.circuit(), {});        // verifier: same circuit, no witness
//
//   GaussianProof pr = prove_gaussian(p, d, seeds, ys, samples, blinders, rng);  // η committed
//   VerifyResult r = verify_gaussian(p, d, ys, seed_commitments, pr);          // in blocks
//
// Mapping: public-input variables become the sigma circuit's public inputs (in order); every
// other variable is a witness variable; committed inputs and committed outputs (in variable
// order: the seeds x_i first, then the samples η_j) are bound to the commitments V_0, V_1, …
// The statement binds the circuit name (parameters), both circuit ids, y, and all commitments;
// prove_gaussian proves the samples in blocks of such circuits (below).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/circuits/seeds.hpp"
#include "gopa/sigma/circuit.hpp"

namespace gopa::circuits {

struct SigmaCircuit {
  sigma::Circuit circuit;
  std::vector<Scalar> publics;          // values of the public-input variables
  std::vector<SecretScalar> witness;    // empty unless z was given
};

// z: the recorder's assignment (prover) or empty (verifier: publics taken from `publics`).
SigmaCircuit to_sigma(const Circuit& c, std::span<const Scalar> z,
                      std::span<const Scalar> publics = {});

// The d samples are proven in blocks of at most `block` samples (a multiple of the sampler's
// samples_per_call; the last block may be shorter): block k is one instance of the block circuit
// over samples [k·block, min(d, (k+1)·block)), its own seeds and y's (seeds_per_call per call)
// and its own sample commitments. The full blocks are proven as one batch (sigma::
// prove_circuit_batch: shared challenges, one amortized pivot and one compression), the shorter
// last block, if any, as a batch of its own. The statement binds the whole claim (sampler
// parameters, d, block size, block count, all y's and all seed and sample commitments), each
// batch its blocks' index range and circuit, and each instance's own y's and commitments, so
// blocks cannot be reordered, dropped, duplicated or spliced from another proof
// (docs/circuits.md §6.3).
inline constexpr std::size_t kDefaultGaussianBlock = 48;
// Verifiers reject larger blocks (the block circuit is recorded from the claim).
inline constexpr std::size_t kMaxGaussianBlock = 1024;
// 1: one circuit proof per block (no longer accepted); 2: the blocks in batches.
inline constexpr std::uint8_t kGaussianBlocksVersion = 2;

struct GaussianBlocks {
  std::uint32_t block = 0;  // samples per full block
  std::uint32_t count = 0;  // blocks: ⌈d / block⌉
  // The full blocks' batch (if d ≥ block), then the shorter last block's (if block ∤ d).
  std::vector<sigma::CircuitBatchProof> groups;
  // version (1 byte) ‖ block (u32 LE) ‖ block count (u32 LE) ‖ each group's
  // CircuitBatchProof::encode_body; the body lengths follow from the block circuits.
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
};

struct GaussianProof {
  std::vector<Point> sample_commitments;  // η_j·G + r_j·H
  GaussianBlocks proof;
  [[nodiscard]] std::size_t size_bytes() const;  // commitments + proof encoding
};

// The prover: d ≥ 1 samples from private seeds (committed beforehand) and public y (one per
// seed, seeds_per_call·⌈d / samples_per_call⌉ of each). Returns the proof, and the samples and
// their blinders (secrets of the party) through the out-parameters. Blocks are proven on
// `threads` threads (at most; 0 counts as 1), each with its own generator seeded from 32 bytes
// of rng drawn up front; the samples, the blinders (drawn from rng in sample order) and the
// proof's validity do not depend on the thread count.
GaussianProof prove_gaussian(const SamplerParams& p, std::size_t d,
                             std::span<const PrivateSeed> seeds, std::span<const std::uint64_t> ys,
                             std::vector<std::int64_t>& samples, std::vector<SecretScalar>& blinders,
                             Rng& rng, std::size_t block = kDefaultGaussianBlock, unsigned threads = 1);

[[nodiscard]] sigma::VerifyResult verify_gaussian(const SamplerParams& p, std::size_t d,
                                                  std::span<const std::uint64_t> ys,
                                                  std::span<const Point> seed_commitments,
                                                  const GaussianProof& proof, unsigned threads = 1);

// The same check from the proof's encoding (GaussianBlocks::encode), as stored on a board: the
// block size is read from the encoding and validated (a multiple of samples_per_call, at most
// kMaxGaussianBlock, block count ⌈d / block⌉, exact length); each block circuit is recorded
// once and serves both to decode and to verify. Blocks are checked on `threads` threads.
[[nodiscard]] sigma::VerifyResult verify_gaussian_encoded(const SamplerParams& p, std::size_t d,
                                                          std::span<const std::uint64_t> ys,
                                                          std::span<const Point> seed_commitments,
                                                          std::span<const Point> sample_commitments,
                                                          std::span<const std::uint8_t> proof,
                                                          unsigned threads = 1);

// One party's Gaussian-sample claim as stored on a board (verify_gaussian_encoded's arguments).
struct GaussianClaim {
  std::span<const std::uint64_t> ys;
  std::span<const Point> seed_commitments;
  std::span<const Point> sample_commitments;
  std::span<const std::uint8_t> proof;
};

// All claims checked with one multi-scalar multiplication (every block of every claim with its
// own random weight from rng, which the provers must not predict; each claim's block size is
// read from its encoding). A failure names the first malformed claim, or says that the
// batched equation failed: then at least one claim is invalid and verify_gaussian_encoded on
// each tells which.
// The blocks' terms are gathered on `threads` threads (0 counts as 1); the weights are drawn from
// rng in (claim, block) order first, so the verdict does not depend on the thread count.
[[nodiscard]] sigma::VerifyResult batch_verify_gaussian(const SamplerParams& p, std::size_t d,
                                                        std::span<const GaussianClaim> claims, Rng& rng,
                                                        unsigned threads = 1);

// Proof size and median prove / verify wall times over `reps` fresh proofs of d samples
// (benchmarks; deterministic seeds), in blocks of `block` samples on `threads` threads.
struct ProofCost {
  std::size_t d = 0;
  std::size_t bytes = 0;       // sample commitments + proof
  double prove_ms = 0, verify_ms = 0;  // medians of the steady state
  double first_prove_ms = 0;   // the first proof of this size in the process (builds its tables)
  bool verified = false;
};
// Proves and verifies d samples: the first proof timed apart, one untimed proof, then `reps`
// timed ones (medians), so that one-off costs (generator derivation, constant-time and window
// tables, transform plans) stay out of the medians and are still reported.
ProofCost measure_proof(const SamplerParams& p, std::size_t d, int reps, std::uint64_t seed = 1,
                        std::size_t block = kDefaultGaussianBlock, unsigned threads = 1);

}  // namespace gopa::circuits
