// gopa/circuits/stats.hpp — statistical quality and circuit cost of the samplers (benchmark and
// test tool; variable time, clear text).
//
//   auto q = measure_quality(SamplerParams::make(SamplerKind::kBoxMuller, 16), 10'000'000);
//   q.ks, q.mse_cdf, q.max_err_ulps
//   auto c = measure_cost(params, 64);   // multiplication gates etc. of the d = 64 circuit
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "gopa/circuits/samplers.hpp"

namespace gopa::circuits {

struct Quality {
  std::size_t n = 0;            // samples
  std::size_t failed_calls = 0; // chunks of ≤ 4096 calls with a failed constraint (must be 0)
  double mean = 0, variance = 0;
  double ks = 0;                // sup_x |F_n(x) − Φ(x)|
  double mse_cdf = 0;           // mean of (F_n(x) − Φ(x))² on the grid x = −6 … 6 step 10^-3
  std::size_t ref_n = 0;        // samples compared with the MPFR reference
  double max_err_ulps = 0;      // max |η − σ·z_exact|·2^f over them
  double seconds = 0;           // wall time of the clear-text evaluation
};

// n samples (σ as in p; statistics are on η / (σ·2^f)) from uniform seeds drawn by a seeded
// ChaCha20 generator, on `threads` threads; the first ref_n are compared with MPFR.
Quality measure_quality(const SamplerParams& p, std::size_t n, std::uint64_t rng_seed = 1,
                        unsigned threads = 2, std::size_t ref_n = 100'000);

struct Cost {
  std::size_t d = 0;
  std::size_t mul_gates = 0, linear = 0, vars = 0, committed = 0, publics = 0;
  std::string circuit_id_hex;
  double record_seconds = 0;  // time to build the circuit and its witness
};

// Records the d-sample circuit (random seeds) and checks its witness.
Cost measure_cost(const SamplerParams& p, std::size_t d, std::uint64_t rng_seed = 1);

double normal_cdf(double x) noexcept;

}  // namespace gopa::circuits
