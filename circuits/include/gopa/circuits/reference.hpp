// gopa/circuits/reference.hpp — MPFR high-precision references for the gadgets and samplers
// (validation and benchmarks only; variable time).
//
// Each function returns the exact real result scaled to the gadget's fixed-point units, as a
// long double, so error = |circuit − reference| in ulps.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gopa/circuits/builder.hpp"
#include "gopa/circuits/samplers.hpp"

namespace gopa::circuits {

long double mp_ln_fx(i128 X, unsigned fin, unsigned F);       // ln(X / 2^fin)·2^F
long double mp_cos2pi_fx(i128 U, unsigned F);                 // cos(2π U/2^F)·2^F
long double mp_sin2pi_fx(i128 U, unsigned F);                 // sin(2π U/2^F)·2^F
long double mp_sqrt_fx(i128 X, unsigned F);                   // sqrt(X / 2^F)·2^F
long double mp_div_fx(i128 a, i128 d, unsigned F);            // (a / d)·2^F
long double mp_mul_fx(i128 x, i128 y, unsigned F);            // x·y / 2^F
// Φ^-1(p) for p ∈ (0, 1), to about 100 bits (Newton on erfc).
long double mp_inv_normal(long double p);

// σ·z_exact(seeds)·2^f for every sample the sampler produces from `seeds` (seeds_per_call each):
// the sampler's ideal real-valued transform of the same uniforms (for polar: the same candidate
// selection, which is exact in the circuit).
std::vector<long double> reference_samples(const SamplerParams& p,
                                           std::span<const std::uint64_t> seeds);

}  // namespace gopa::circuits
