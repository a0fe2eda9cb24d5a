// gopa/circuits/sigma_adapter.hpp — proving a recorded circuit with the compressed Σ-protocol
// circuit prover (gopa/sigma/circuit.hpp), and the end-to-end Gaussian-sample proof.
//
//   auto sc = to_sigma(rec.circuit(), rec.values());     // prover: circuit + witness
//   auto vc = to_sigma(rec_verifier.circuit(), {});        // verifier: same circuit, no witness
//
//   GaussianProof pr = prove_gaussian(p, d, seeds, ys, rng);        // η committed, proven
//   VerifyResult r = verify_gaussian(p, d, ys, seed_commitments, pr);
//
// Mapping: public-input variables become the sigma circuit's public inputs (in order); every
// other variable is a witness variable; committed inputs and committed outputs (in variable
// order: the seeds x_i first, then the samples η_j) are bound to the commitments V_0, V_1, …
// The statement binds the circuit name (parameters), both circuit ids, y, and all commitments.
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

struct GaussianProof {
  std::vector<Point> sample_commitments;  // η_j·G + r_j·H
  sigma::CircuitProof proof;
  [[nodiscard]] std::size_t size_bytes() const;  // commitments + proof encoding
};

// The prover: d samples from private seeds (committed beforehand) and public y (one per seed,
// seeds_per_call·⌈d / samples_per_call⌉ of each). Returns the proof, and the samples and their
// blinders (secrets of the party) through the out-parameters.
GaussianProof prove_gaussian(const SamplerParams& p, std::size_t d,
                             std::span<const PrivateSeed> seeds, std::span<const std::uint64_t> ys,
                             std::vector<std::int64_t>& samples, std::vector<SecretScalar>& blinders,
                             Rng& rng);

[[nodiscard]] sigma::VerifyResult verify_gaussian(const SamplerParams& p, std::size_t d,
                                                  std::span<const std::uint64_t> ys,
                                                  std::span<const Point> seed_commitments,
                                                  const GaussianProof& proof);

// The same check from the proof's encoding (CircuitProof::encode), as stored on a board: the
// circuit is recorded once and serves both to decode (sizes follow from it) and to verify.
[[nodiscard]] sigma::VerifyResult verify_gaussian_encoded(const SamplerParams& p, std::size_t d,
                                                          std::span<const std::uint64_t> ys,
                                                          std::span<const Point> seed_commitments,
                                                          std::span<const Point> sample_commitments,
                                                          std::span<const std::uint8_t> proof);

// One party's Gaussian-sample claim as stored on a board (verify_gaussian_encoded's arguments).
struct GaussianClaim {
  std::span<const std::uint64_t> ys;
  std::span<const Point> seed_commitments;
  std::span<const Point> sample_commitments;
  std::span<const std::uint8_t> proof;
};

// All claims checked with one multi-scalar multiplication (random weights from rng, which the
// provers must not predict). A failure names the first malformed claim, or says that the
// batched equation failed: then at least one claim is invalid and verify_gaussian_encoded on
// each tells which.
[[nodiscard]] sigma::VerifyResult batch_verify_gaussian(const SamplerParams& p, std::size_t d,
                                                        std::span<const GaussianClaim> claims, Rng& rng);

// Proof size and median prove / verify wall times over `reps` fresh proofs of d samples
// (benchmarks; deterministic seeds).
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
ProofCost measure_proof(const SamplerParams& p, std::size_t d, int reps, std::uint64_t seed = 1);

}  // namespace gopa::circuits
