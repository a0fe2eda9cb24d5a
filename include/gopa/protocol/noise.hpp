// gopa/protocol/noise.hpp — the noise η of a GOPA party: which sampler circuit it comes from,
// how many committed seeds it uses, and how its samples map onto the session's fixed point.
//
//   circuits::SamplerParams sp = noise_sampler(params);  // σ rounded up to the 2^-16 grid
//   std::size_t seeds = noise_seed_count(params);        // private seeds committed in round 2
//   auto ys = noise_public_parts(params, y, party);       // their public parts, from the joint y
//
// The sampler's output has sampler_precision fractional bits; the session's fixed point has
// frac_bits ≥ sampler_precision, so a sample enters X̂ multiplied by 2^noise_shift(params)
// (and its commitment by the same public constant).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gopa/circuits/samplers.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::protocol {

[[nodiscard]] circuits::SamplerParams noise_sampler(const SessionParams& p);
[[nodiscard]] std::size_t noise_seed_count(const SessionParams& p);
[[nodiscard]] unsigned noise_shift(const SessionParams& p) noexcept;
// The sampler's σ: σ_η rounded up to a multiple of 2^-16 (never below σ_η: the privacy
// guarantee planned for σ_η holds).
[[nodiscard]] double noise_sigma(const SessionParams& p) noexcept;
// y_j of party u, j < noise_seed_count(p): circuits::public_randomness over the joint randomness.
[[nodiscard]] std::vector<std::uint64_t> noise_public_parts(const SessionParams& p, const Bytes32& joint,
                                                            std::uint32_t party);

}  // namespace gopa::protocol
