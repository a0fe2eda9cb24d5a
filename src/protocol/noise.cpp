// The noise sampler of a session (include/gopa/protocol/noise.hpp).
#include "gopa/protocol/noise.hpp"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <string_view>

#include "gopa/random.hpp"

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
  if (p.noise == NoiseMode::hidden) return 0;
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

sampling::HiddenParams hidden_params(const SessionParams& p) {
  auto hp = sampling::HiddenParams::make(p.sampler_precision, p.committee, noise_sigma(p));
  hp.paillier_bits = p.paillier_bits;
  return hp;
}

std::uint32_t hidden_calls(const SessionParams& p) noexcept { return (p.dim + 1) / 2; }

std::vector<std::uint32_t> select_committee(const SessionParams& p, const Bytes32& joint,
                                            std::vector<std::uint32_t> eligible) {
  static constexpr std::string_view kDomain = "gopa/committee/v1";
  crypto_hash_sha256_state st;
  crypto_hash_sha256_init(&st);
  crypto_hash_sha256_update(&st, reinterpret_cast<const unsigned char*>(kDomain.data()), kDomain.size());
  crypto_hash_sha256_update(&st, joint.data(), joint.size());
  Bytes32 key{};
  crypto_hash_sha256_final(&st, key.data());
  DeterministicRng rng(key);
  std::sort(eligible.begin(), eligible.end());
  const std::size_t c = std::min<std::size_t>(p.committee, eligible.size());
  for (std::size_t i = 0; i < c; ++i) {
    const std::size_t pick = i + static_cast<std::size_t>(rng.uniform(eligible.size() - i));
    std::swap(eligible[i], eligible[pick]);
  }
  eligible.resize(c);
  std::sort(eligible.begin(), eligible.end());
  return eligible;
}

}  // namespace gopa::protocol
