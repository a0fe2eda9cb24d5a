// gopa/protocol/output.hpp — output correctness (DESIGN.md §1 step 5): the published
// X̂_u = X_u + Σ_v Δ_uv + 2^s·η_u is consistent with the party's commitments.
//
//   // anyone: combined[j] = C_x[j] + 2^s·C_η[j] (per coordinate, bases G and H);
//   //         pairwise = Σ_v D_uv, D_uv = Σ_j Δ_uv[j]·G_j + r_uv·H (one vector commitment per edge)
//   OutputStatement st{pairwise, combined, xhat};
//   // prover: Δ_u[j] = Σ_v Δ_uv[j], R = Σ_v r_uv, rho[j] = r_x[j] + 2^s·r_η[j]
//   OutputProof p = prove_output(t, *gens, st, delta, R, rho, rng);
//   bool ok = verify_output(t, *gens, st, p);
//
// Relation: there are Δ ∈ Z_ℓ^d and blinders with pairwise = Σ_j Δ_j·G_j + R·H and, for every
// j, combined[j] − X̂_j·G + Δ_j·G = ρ_j·H. After the whole statement is bound the transcript
// gives c; with c_j = c^(j+1) the prover shows, with one compressed Σ-protocol (AC20 Π_c) over
// the basis (G_0..G_{d−1}, G, H), an opening w of
//   P = pairwise + Σ_j c_j·(combined[j] − X̂_j·G) = Σ_j Δ_j·G_j − ⟨c, Δ⟩·G + (R + Σ c_j ρ_j)·H
// with the public linear form L(w) = Σ_j c_j·w_j + w_G = 0. The argument (docs/protocol.md
// § Output correctness proof): `pairwise`, the combined commitments and X̂ are fixed before c; an
// extracted opening (a, z, β) of P with ⟨c, a⟩ + z = 0 makes pairwise's G-component
// −⟨c, a + x + 2^s·η − X̂⟩ for values fixed before c, so unless X̂ = x + 2^s·η + a coordinate-wise
// (a the G_j-part of `pairwise`, which cancels with the neighbours' terms) that component is a
// fixed point hit only with probability d/ℓ. Zero knowledge: the pivot's mask hides w.
// Proof: version ‖ kind ‖ compressed proof (docs/protocol.md), 32·(1 + 2R + k) + 2 bytes with
// (R, k) = fold_shape(d + 2): 898 bytes at d = 10,000, 1,122 at d = 100,000.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/compressed.hpp"
#include "gopa/transcript.hpp"

namespace gopa::protocol {

struct OutputStatement {
  Point pairwise;                 // Σ_v D_uv
  std::span<const Point> combined;  // d: C_x[j] + 2^s·C_η[j]
  std::span<const Scalar> xhat;     // d
};

struct OutputProof {
  sigma::CompressedProof inner;
  static constexpr std::uint8_t kKind = 0x10;  // proof kind byte of the output proof
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  // Strict: exactly encoded_size(dim) bytes, canonical points and scalars.
  [[nodiscard]] static std::optional<OutputProof> decode(std::span<const std::uint8_t> bytes, std::size_t dim);
  [[nodiscard]] static std::size_t encoded_size(std::size_t dim) noexcept;
};

// The generators an output proof over d coordinates needs: G_0..G_{d−1} (and G, H).
[[nodiscard]] std::size_t output_generators(std::size_t dim) noexcept;

[[nodiscard]] OutputProof prove_output(Transcript& t, const GeneratorSet& gens, const OutputStatement& st,
                                       std::span<const SecretScalar> delta, const SecretScalar& pairwise_blind,
                                       std::span<const SecretScalar> combined_blind, Rng& rng);
[[nodiscard]] bool verify_output(Transcript& t, const GeneratorSet& gens, const OutputStatement& st,
                                 const OutputProof& proof);

}  // namespace gopa::protocol
