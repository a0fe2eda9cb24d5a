// gopa/sigma/compressed.hpp — the compressed pivot of Attema–Cramer (CRYPTO 2020): the engine
// under every proof of this layer (linear.hpp, circuit.hpp, range.hpp).
//
// Statement: a public basis g_1..g_N (a prefix G_0..G_{n-1} of a GeneratorSet, optionally its
// G, and always its H last — the blinding coordinate), commitments C_1..C_s and one public
// linear form L with L(H-coordinate) = 0. Claim: the prover knows x_k with Σ_i x_{k,i}·g_i = C_k
// and L(x_k) = v_k for every k (AC20 §3 pivot Π_0 with §3.3 amortization over s commitments).
// The n-scalar response is then compressed by folding (AC20 §4, Π_c) into 2·rounds points and
// final_len scalars, with rounds/final_len chosen by fold_shape(N).
//
//   gopa::sigma::Basis basis{.n_gi = n, .with_g = false};          // G_0..G_{n-1}, H
//   auto proof = compressed_prove(t, gens, basis, openings, L, rng);
//   MsmTerms eq; compressed_verify(t2, gens, basis, commitments, L, values, proof, eq);
//   bool ok = eq.is_identity(gens);                                  // one MSM
//
// The caller must have bound the whole statement (basis, commitments, L, values) into the
// transcript before calling; this function binds the proof messages.
//
// Security notes: masks and witnesses are SecretScalar; the mask commitment uses msm_secret.
// The response z = r + Σ e^k x_k is what the uncompressed pivot publishes, so the folding
// phase works on public data (variable-time MSMs), as AC20 §4 notes (compression needs no ZK).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/random.hpp"
#include "gopa/sigma/common.hpp"
#include "gopa/transcript.hpp"

namespace gopa::sigma {

// Coordinates of a committed vector: G_0..G_{n_gi-1}, then G if with_g, then H.
struct Basis {
  std::size_t n_gi = 0;
  bool with_g = false;
  [[nodiscard]] std::size_t size() const noexcept { return n_gi + (with_g ? 1U : 0U) + 1U; }
};

// Folding shape for a vector of n coordinates: final_len·2^rounds ≥ n, minimising the proof
// size 2·rounds + final_len (ties: fewer rounds). E.g. n = 133 → 5 rounds, 5 final scalars.
struct FoldShape {
  std::size_t rounds = 0;
  std::size_t final_len = 1;
  [[nodiscard]] std::size_t padded() const noexcept { return final_len << rounds; }
};
[[nodiscard]] FoldShape fold_shape(std::size_t n) noexcept;

struct CompressedProof {
  Point a;                     // commitment to the pivot's mask
  std::vector<Point> cross;    // A_0, B_0, A_1, B_1, … (2·rounds)
  std::vector<Scalar> final;   // final_len scalars

  [[nodiscard]] static std::size_t encoded_size(const FoldShape& s) noexcept {
    return 32U * (1U + 2U * s.rounds + s.final_len);
  }
  void encode_to(std::vector<std::uint8_t>& out) const;
  // Strict decoding of exactly encoded_size(shape) bytes; nullopt on any defect.
  [[nodiscard]] static std::optional<CompressedProof> decode(std::span<const std::uint8_t> in,
                                                             const FoldShape& shape);
};

// A public commitment as a combination Σ s_j·P_j of points (e.g. P + Σ ω_j·V_j), so that a
// verifier never has to evaluate it separately from the final MSM.
struct PointExpr {
  std::vector<Scalar> scalars;
  std::vector<Point> points;
  static PointExpr of(const Point& p) { return {{Scalar::one()}, {p}}; }
  void add(const Scalar& s, const Point& p) {
    scalars.push_back(s);
    points.push_back(p);
  }
  [[nodiscard]] Point evaluate() const;  // variable time
};

// Prover. openings[k] has basis.size() entries (blinding last); L has basis.size() entries.
[[nodiscard]] CompressedProof compressed_prove(Transcript& t, const GeneratorSet& gens,
                                               const Basis& basis,
                                               std::span<const std::vector<SecretScalar>> openings,
                                               std::span<const Scalar> form, Rng& rng);

// Verifier: replays the transcript and adds the single verification equation to `eq`
// (scaled by eq's current weight). Returns false only for structural defects (sizes);
// the equation itself is checked by eq.is_identity().
[[nodiscard]] bool compressed_verify(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                     std::span<const PointExpr> commitments,
                                     std::span<const Scalar> form, std::span<const Scalar> values,
                                     const CompressedProof& proof, MsmTerms& eq);

// The provers keep constant-time tables per generator set (1.5 KiB a generator, up to four sets
// of up to 2^17 generators). This drops them; the next proof over a set builds its tables again.
// For a process that has made its large proofs (gopa run after its parties' commitments).
void release_prover_tables();

// Baseline for benchmarks: the straightforward verifier that folds the generators and the
// target explicitly, one scalar multiplication per folding step, then compares points.
[[nodiscard]] bool compressed_verify_naive(Transcript& t, const GeneratorSet& gens,
                                           const Basis& basis,
                                           std::span<const PointExpr> commitments,
                                           std::span<const Scalar> form,
                                           std::span<const Scalar> values,
                                           const CompressedProof& proof);

}  // namespace gopa::sigma
