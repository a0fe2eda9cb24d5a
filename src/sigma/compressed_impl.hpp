// Internal: the compressed pivot with the linear form and values in field form (the public
// functions of compressed.hpp convert and forward here).
#pragma once

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

inline std::vector<field::Fe> to_fe(std::span<const Scalar> xs) {
  std::vector<field::Fe> out;
  out.reserve(xs.size());
  for (const Scalar& x : xs) out.push_back(field::of(x));
  return out;
}

}  // namespace gopa::sigma::detail
