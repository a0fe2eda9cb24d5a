// gopa/sigma/linear.hpp — compressed proofs of linear forms on committed vectors (AC20 §3–4,
// amortized: many commitments × many forms, one proof).
//
//   LinearStatement st{.n = 4, .commitments = {P1, P2}, .forms = {L1, L2}, .values = {{y11, y12},
//                      {y21, y22}}};                       // values[k][j] = L_j(x_k)
//   Transcript t("my-app v1");
//   LinearProof proof = prove_linear(t, gens, st, {x1, x2}, {gamma1, gamma2}, rng);
//   Transcript tv("my-app v1");
//   VerifyResult r = verify_linear(tv, gens, st, proof);   // r.ok(), or r.message
//
// P_k = Σ_i x_{k,i}·G_i + γ_k·H (commit_vector). The proof is 1 + 2R points and k scalars with
// (R, k) = fold_shape(n + 1) (2⌈log2(n+1)⌉ − 1 points when k ≤ 2, AC20 Thm 3), whatever the
// number of commitments and forms.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/sigma/common.hpp"
#include "gopa/sigma/compressed.hpp"

namespace gopa::sigma {

inline constexpr std::size_t kMaxLinearLength = std::size_t{1} << 20;

struct LinearStatement {
  std::size_t n = 0;
  std::vector<Point> commitments;
  std::vector<std::vector<Scalar>> forms;   // each of length n
  std::vector<std::vector<Scalar>> values;  // [commitment][form]
};

struct LinearProof {
  CompressedProof inner;
  // version ‖ kind ‖ compressed proof (docs/proofs.md §3.1).
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  [[nodiscard]] static std::optional<LinearProof> decode(std::span<const std::uint8_t> in,
                                                         std::size_t n);
};

[[nodiscard]] LinearProof prove_linear(Transcript& t, const GeneratorSet& gens,
                                       const LinearStatement& st,
                                       std::span<const std::vector<SecretScalar>> openings,
                                       std::span<const SecretScalar> blinders, Rng& rng);

[[nodiscard]] VerifyResult verify_linear(Transcript& t, const GeneratorSet& gens,
                                         const LinearStatement& st, const LinearProof& proof);

}  // namespace gopa::sigma
