// Multi-scalar multiplication. VARIABLE TIME: public scalars and points only.
#include "gopa/msm.hpp"

#include "gopa/check.hpp"

namespace gopa {

Point msm_naive(std::span<const Scalar> scalars, std::span<const Point> points) {
  GOPA_CHECK(scalars.size() == points.size(), "msm: as many scalars as points");
  Point acc;
  for (std::size_t i = 0; i < scalars.size(); ++i) acc += points[i] * scalars[i];
  return acc;
}

Point msm(std::span<const Scalar> scalars, std::span<const Point> points, MsmOptions) {
  return msm_naive(scalars, points);
}

}  // namespace gopa
