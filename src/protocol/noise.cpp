// The noise sampler of a session (include/gopa/protocol/noise.hpp).
#include "gopa/protocol/noise.hpp"

#include <cmath>
#include <span>

#include "gopa/circuits/seeds.hpp"

namespace gopa::protocol {

double noise_sigma(const SessionParams& p) noexcept {
  return std::ldexp(std::ceil(std::ldexp(p.sigma_eta, 16)), -16);
}

circuits::SamplerParams noise_sampler(const SessionParams& p) {
  return circuits::SamplerParams::make(static_cast<circuits::SamplerKind>(p.sampler), p.sampler_precision,
                                       noise_sigma(p));
}

std::size_t noise_seed_count(const SessionParams& p) {
  const auto sp = noise_sampler(p);
  const std::size_t calls = (p.dim + sp.samples_per_call() - 1) / sp.samples_per_call();
  return calls * sp.seeds_per_call();
}

unsigned noise_shift(const SessionParams& p) noexcept {
  return p.frac_bits >= p.sampler_precision ? static_cast<unsigned>(p.frac_bits - p.sampler_precision) : 0U;
}

std::vector<std::uint64_t> noise_public_parts(const SessionParams& p, const Bytes32& joint, std::uint32_t party) {
  const auto sp = noise_sampler(p);
  return circuits::public_randomness(std::span<const Bytes32>(&joint, 1), party, noise_seed_count(p), sp.m);
}

}  // namespace gopa::protocol
