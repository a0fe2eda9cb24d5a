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
#include "gopa/sampling.hpp"

namespace gopa::protocol {

[[nodiscard]] circuits::SamplerParams noise_sampler(const SessionParams& p);
// Private seeds a party commits to in round 2: 0 with hidden noise.
[[nodiscard]] std::size_t noise_seed_count(const SessionParams& p);
[[nodiscard]] unsigned noise_shift(const SessionParams& p) noexcept;
// The sampler's σ: σ_η rounded up to a multiple of 2^-16 (never below σ_η: the privacy
// guarantee planned for σ_η holds).
[[nodiscard]] double noise_sigma(const SessionParams& p) noexcept;
// y_j of party u, j < noise_seed_count(p): circuits::public_randomness over the joint randomness.
[[nodiscard]] std::vector<std::uint64_t> noise_public_parts(const SessionParams& p, const Bytes32& joint,
                                                            std::uint32_t party);

// ---- Hidden noise (p.noise == NoiseMode::hidden; docs/protocol.md §Hidden noise).

// The committee's sampler: Box–Muller at sampler_precision bits, σ = noise_sigma(p), the
// session's committee size and Paillier modulus size.
[[nodiscard]] sampling::HiddenParams hidden_params(const SessionParams& p);
// Box–Muller calls of the committee (two samples each): ⌈d/2⌉; coordinate j is sample j mod 2
// of call ⌊j/2⌋.
[[nodiscard]] std::uint32_t hidden_calls(const SessionParams& p) noexcept;
// The committee: p.committee parties drawn without replacement from `eligible` (the parties
// whose randomness share opened its commitment, increasing) by a ChaCha20 stream keyed with
// SHA-256("gopa/committee/v1" ‖ joint); returned in increasing order. Fewer when fewer are eligible.
[[nodiscard]] std::vector<std::uint32_t> select_committee(const SessionParams& p, const Bytes32& joint,
                                                          std::vector<std::uint32_t> eligible);

}  // namespace gopa::protocol
