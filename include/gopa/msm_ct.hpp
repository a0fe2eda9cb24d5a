// gopa/msm_ct.hpp — constant-time multi-scalar multiplication for SECRET scalars.
//
//   Point C = gopa::msm_secret(witness, generators);   // Σ x_i·G_i, x secret, G_i public
//
// Constant time in the scalars (no branch or memory index depends on them); the points are
// public. Used by provers to commit to witness and mask vectors.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "gopa/group.hpp"

namespace gopa {

[[nodiscard]] Point msm_secret(std::span<const SecretScalar> scalars, std::span<const Point> points);

// A fixed point set with its msm_secret tables built once (multiples 1..16 in affine form,
// 1.5 KiB per point), for provers that commit over the same generators again and again.
//   gopa::MsmSecretBasis basis(generators);
//   Point C = basis.msm(witness, indices);   // Σ witness[k]·generators[indices[k]]
// Constant time in the scalars; the indices are public.
class MsmSecretBasis {
 public:
  explicit MsmSecretBasis(std::span<const Point> points);
  ~MsmSecretBasis();
  MsmSecretBasis(MsmSecretBasis&&) noexcept;
  MsmSecretBasis& operator=(MsmSecretBasis&&) noexcept;
  MsmSecretBasis(const MsmSecretBasis&) = delete;
  MsmSecretBasis& operator=(const MsmSecretBasis&) = delete;

  [[nodiscard]] std::size_t size() const noexcept;
  // Σ scalars[k]·points[index[k]]; aborts on a size mismatch or an index ≥ size().
  [[nodiscard]] Point msm(std::span<const SecretScalar> scalars,
                          std::span<const std::size_t> index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gopa
