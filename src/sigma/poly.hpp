// Internal: polynomial helpers for the polynomial technique (AC20 §5) on the evaluation points
// 0, 1, …, 2m.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/sigma/field.hpp"

namespace gopa::sigma::poly {

// λ_j(c) for j = 0..deg: the Lagrange coefficients of the points 0..deg at c, c ∉ {0..deg}
// (Σ λ_j·p(j) = p(c) for every p of degree ≤ deg). Public data.
[[nodiscard]] std::vector<field::Fe> lagrange_at(const Scalar& c, std::size_t deg);

// The coefficients at c for the two degrees lo_deg ≤ hi_deg at once (one batch inversion).
void lagrange_pair(const Scalar& c, std::size_t lo_deg, std::size_t hi_deg,
                   std::vector<field::Fe>& lo, std::vector<field::Fe>& hi);

// Given p(0..m) of a polynomial of degree ≤ m, returns p(m+1..2m). Constant time in the values.
[[nodiscard]] std::vector<SecretScalar> extrapolate(std::span<const SecretScalar> values);

}  // namespace gopa::sigma::poly
