// gopa/circuits/approx.hpp — fixed-point polynomial tables for the transcendental gadgets.
//
// Coefficients are derived here, deterministically, with MPFR: interpolation at Chebyshev nodes
// (near-minimax) of the target function in the centred variable z, with the smallest degree whose
// (unrounded) error is below 2^-(F+2), then rounded to integers at scale 2^F. The tables are
// constants of the circuit (they enter its encoding through the gates), so every party derives
// the same ones. docs/circuits.md §4 lists degrees and errors.
#pragma once

#include <span>
#include <vector>

#include "gopa/circuits/builder.hpp"

namespace gopa::circuits {

struct PolyTable {
  unsigned F = 0;           // fractional bits of the variable, the coefficients and the result
  std::vector<i128> coef;   // c_0..c_n (low to high), integers at scale 2^F
  unsigned hb = 0;          // Horner partial values satisfy |acc| < 2^(hb-1) (signed bit bound)
  double approx_ulps = 0;   // max |P_rounded(z) − g(z)| over the domain, in units of 2^-F
  double zmax = 1;          // domain of the variable: |z| ≤ zmax
  [[nodiscard]] unsigned degree() const noexcept {
    return static_cast<unsigned>(coef.size()) - 1U;
  }
};

// ln(3/4 + z) for z ∈ [−1/4, 1/4] (the mantissa m = 3/4 + z ∈ [1/2, 1)).
const PolyTable& ln_table(unsigned F);
// ln(m)/(m − 1) for m = 3/4 + z, z ∈ [−1/4, 1/4] (for fx_ln_wide: relative precision near 1).
const PolyTable& lnq_table(unsigned F);
// ln(m)/(m − 1) on [1/2, 1) split into 2^kLnqSplitBits intervals by the leading mantissa bits:
// table i is in z = m − c_i, c_i = 1/2 + (2i + 1)/2^(kLnqSplitBits+2), |z| ≤ 2^-(kLnqSplitBits+2);
// all tables have the same degree (for fx_ln_rel).
inline constexpr unsigned kLnqSplitBits = 3;
const std::vector<PolyTable>& lnq_split_table(unsigned F);
// cos(2π·(1/8 + t)) for t ∈ [−1/8, 1/8]; sin(2π(1/8 + t)) = this at −t.
const PolyTable& cos2pi_table(unsigned F);
// round(ln 2 · 2^bits) for bits ≤ 120 (MPFR, computed once).
i128 ln2_fixed(unsigned bits);
// A fixed polynomial given by published constants (low to high), variable |z| ≤ zmax.
PolyTable fixed_table(std::span<const double> coef_low_to_high, unsigned F, double zmax);

}  // namespace gopa::circuits
