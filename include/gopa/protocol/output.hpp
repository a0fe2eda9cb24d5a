// gopa/protocol/output.hpp — output correctness (DESIGN.md §1 step 5): the published
// X̂_u = X_u + Σ_v Δ_uv + η_u is consistent with the party's commitments.
//
//   // prover: R_j = r_x[j] + Σ_v r_uv[j] + r_η[j] (the combined blinding of coordinate j)
//   OutputProof p = prove_output(t, *gens, combined_commitments, xhat, R, rng);
//   // anyone: combined_commitments[j] = C_x[j] + Σ_v C_uv[j] + C_η[j]
//   bool ok = verify_output(t, *gens, combined_commitments, xhat, p);
//
// Relation: for every coordinate j, P_j = combined[j] − X̂_j·G = R_j·H. One Schnorr proof for
// all j: with challenge weights c_j drawn from the transcript after every P_j is bound, it proves
// knowledge of log_H Σ_j c_j·P_j; a P_j with a non-zero G-component makes that sum a point whose
// discrete log in base H the prover cannot know without a G/H relation (except with
// probability d/ℓ over the c_j). Nothing about the blindings R_j is revealed (zero knowledge).
// Proof: 32-byte point A ‖ 32-byte scalar z (docs/protocol.md).
#pragma once

#include <array>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/transcript.hpp"

namespace gopa::protocol {

struct OutputProof {
  Point a;
  Scalar z;
  static constexpr std::size_t kSize = 64;
  [[nodiscard]] std::array<std::uint8_t, kSize> encode() const;
  [[nodiscard]] static std::optional<OutputProof> decode(std::span<const std::uint8_t> bytes);
};

[[nodiscard]] OutputProof prove_output(Transcript& t, const GeneratorSet& gens,
                                       std::span<const Point> combined, std::span<const Scalar> xhat,
                                       std::span<const SecretScalar> combined_blinding, Rng& rng);

[[nodiscard]] bool verify_output(Transcript& t, const GeneratorSet& gens,
                                 std::span<const Point> combined, std::span<const Scalar> xhat,
                                 const OutputProof& proof);

}  // namespace gopa::protocol
