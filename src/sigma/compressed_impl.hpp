// Internal: the compressed pivot with the linear form and values in field form (the public
// functions of compressed.hpp convert and forward here).
#pragma once

#include <memory>

#include "gopa/check.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/sigma/compressed.hpp"
#include "gopa/sigma/field.hpp"

namespace gopa::sigma::detail {

[[nodiscard]] CompressedProof compressed_prove(Transcript& t, const GeneratorSet& gens,
                                               const Basis& basis,
                                               std::span<const std::vector<SecretScalar>> openings,
                                               std::span<const field::Fe> form, Rng& rng);

// The prover in its three phases, for provers that form the response themselves (the batched
// circuit prover, which streams its instances' witnesses): compressed_prove is
//   cq = pivot_header(t, basis, s); prng from the witness; r = pivot_mask(…); e = challenge "e";
//   z = r + Σ_k e^(k+1)·x_k (declassified); compress(…, z, proof).
// pivot_header binds the sizes and draws q; pivot_mask draws the mask r (basis.size() secrets)
// from prng, sets proof.a = ⟨r, g⟩ + (cq·L(r))·Q (test deviation: on_mask_commitment) and absorbs
// it; compress folds the public response z (basis.size() values) into proof.cross and
// proof.final (test deviation: on_responses).
[[nodiscard]] Scalar pivot_header(Transcript& t, const Basis& basis, std::size_t s);
[[nodiscard]] std::vector<SecretScalar> pivot_mask(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                                   std::span<const field::Fe> form, const Scalar& cq, Rng& prng,
                                                   CompressedProof& proof);
void compress(Transcript& t, const GeneratorSet& gens, const Basis& basis, std::span<const field::Fe> form,
              const Scalar& cq, std::vector<field::Fe> z, CompressedProof& proof);

[[nodiscard]] bool compressed_verify(Transcript& t, const GeneratorSet& gens, const Basis& basis,
                                     std::span<const PointExpr> commitments,
                                     std::span<const field::Fe> form,
                                     std::span<const field::Fe> values,
                                     const CompressedProof& proof, MsmTerms& eq);

[[nodiscard]] bool compressed_verify_naive(Transcript& t, const GeneratorSet& gens,
                                           const Basis& basis,
                                           std::span<const PointExpr> commitments,
                                           std::span<const field::Fe> form,
                                           std::span<const field::Fe> values,
                                           const CompressedProof& proof);

// Constant-time MSM tables of G_0..G_{n_gi−1}, G, H, Q of a generator set, built once per set
// and shared (tables.cpp). Row indices: G_i → i, G → g(), H → h(), Q → q().
struct SecretTables {
  std::shared_ptr<const MsmSecretBasis> basis;
  std::size_t n_gi = 0;
  [[nodiscard]] std::size_t g() const noexcept { return n_gi; }
  [[nodiscard]] std::size_t h() const noexcept { return n_gi + 1; }
  [[nodiscard]] std::size_t q() const noexcept { return n_gi + 2; }
};
[[nodiscard]] SecretTables secret_tables(const GeneratorSet& gens, std::size_t n_gi);

// Variable-time MSM basis holding G_0..G_{n_gi−1}, G, H, Q of a generator set (tables.cpp). Rows:
// G_i → gi(i), G → g, H → h, Q → q; an MSM over the statement passes the first `rows` scalars
// (rows of other generators zero). Small statements get their own basis with wide Straus tables
// (G_i first, then G, H, Q); larger ones share one basis per set, G, H, Q first and then the G_i,
// grown to the largest statement, so that the circuits of one session (noise blocks, L2-ball blocks, output)
// keep one copy of the window and comb tables instead of one per circuit size.
struct PublicTables {
  std::shared_ptr<const MsmBasis> basis;
  std::size_t first_gi = 0, g = 0, h = 0, q = 0, rows = 0;
  [[nodiscard]] std::size_t gi(std::size_t i) const noexcept { return first_gi + i; }
};
[[nodiscard]] PublicTables public_tables(const GeneratorSet& gens, std::size_t n_gi);

inline std::vector<field::Fe> to_fe(std::span<const Scalar> xs) {
  std::vector<field::Fe> out;
  out.reserve(xs.size());
  for (const Scalar& x : xs) out.push_back(field::of(x));
  return out;
}

}  // namespace gopa::sigma::detail
