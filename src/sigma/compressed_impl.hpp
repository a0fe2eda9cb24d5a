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

// Variable-time MSM basis G_0..G_{n_gi−1}, G, H, Q (positions n_gi, n_gi + 1, n_gi + 2), with
// wide Straus tables; built once per (set, n_gi) and shared (tables.cpp).
[[nodiscard]] std::shared_ptr<const MsmBasis> public_tables(const GeneratorSet& gens,
                                                            std::size_t n_gi);

inline std::vector<field::Fe> to_fe(std::span<const Scalar> xs) {
  std::vector<field::Fe> out;
  out.reserve(xs.size());
  for (const Scalar& x : xs) out.push_back(field::of(x));
  return out;
}

}  // namespace gopa::sigma::detail
