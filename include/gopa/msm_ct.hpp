// gopa/msm_ct.hpp — constant-time multi-scalar multiplication for SECRET scalars.
//
//   Point C = gopa::msm_secret(witness, generators);   // Σ x_i·G_i, x secret, G_i public
//
// Constant time in the scalars (no branch or memory index depends on them); the points are
// public. Used by provers to commit to witness and mask vectors.
#pragma once

#include <span>

#include "gopa/group.hpp"

namespace gopa {

[[nodiscard]] Point msm_secret(std::span<const SecretScalar> scalars, std::span<const Point> points);

}  // namespace gopa
