// Constant-time multi-scalar multiplication for secret scalars.
//
// Straus with a fixed 4-bit signed window. Per point, a table of 1..8 multiples in affine Niels
// form (all tables normalised with one field inversion); all points share the 4·63 doublings.
// Per point and window: one lookup that reads all 8 entries and keeps one with masks, a masked
// negation for the digit's sign, and one complete mixed addition. Nothing branches on, or
// indexes memory by, a secret: the scalars' digits only ever meet masks.
#include "gopa/msm_ct.hpp"

#include <sodium.h>

#include <array>
#include <vector>

#include "edwards.hpp"
#include "gopa/check.hpp"

namespace gopa {

namespace {

using detail::Ext;
using detail::Fe;
using detail::Niels;

constexpr std::size_t kWindows = 64;  // radix-16 digits of a scalar < 2^253 (top digit ≤ 2)
constexpr std::size_t kPerPoint = 8;  // |digit| = 1..8

// Signed radix-16 recoding into digits in [−8, 8) (top digit ≤ 2); arithmetic only.
void recode(const SecretScalar& k, std::array<std::int8_t, kWindows>& d) noexcept {
  std::array<std::uint8_t, 32> bytes{};
  decaf_255_scalar_encode(bytes.data(), k.raw());
  for (std::size_t i = 0; i < 32; ++i) {
    d[2 * i] = static_cast<std::int8_t>(bytes[i] & 15);
    d[2 * i + 1] = static_cast<std::int8_t>(bytes[i] >> 4);
  }
  for (std::size_t i = 0; i + 1 < kWindows; ++i) {
    const int carry = (d[i] + 8) >> 4;  // 1 iff d[i] ≥ 8
    d[i] = static_cast<std::int8_t>(d[i] - (carry << 4));
    d[i + 1] = static_cast<std::int8_t>(d[i + 1] + carry);
  }
  sodium_memzero(bytes.data(), bytes.size());
}

std::uint64_t ct_eq(std::uint64_t a, std::uint64_t b) noexcept { return ((a ^ b) - 1) >> 63; }

}  // namespace

Point msm_secret(std::span<const SecretScalar> scalars, std::span<const Point> points) {
  GOPA_CHECK(scalars.size() == points.size(), "msm_secret: as many scalars as points");
  const std::size_t n = points.size();
  if (n == 0) return Point::identity();

  // Tables (public data: the points are public).
  std::vector<Ext> multiples(n * kPerPoint);
  for (std::size_t i = 0; i < n; ++i) {
    const Ext p = detail::ext_from_decaf(*points[i].raw());
    multiples[i * kPerPoint] = p;
    for (std::size_t j = 1; j < kPerPoint; ++j) {
      multiples[i * kPerPoint + j] = detail::ext_add(multiples[i * kPerPoint + j - 1], p);
    }
  }
  std::vector<Niels> table(multiples.size());
  {
    std::vector<Fe> scratch(multiples.size());
    detail::ext_batch_to_niels(multiples, table, scratch);
  }
  std::vector<std::array<std::int8_t, kWindows>> digits(n);
  for (std::size_t i = 0; i < n; ++i) recode(scalars[i], digits[i]);

  Ext acc = detail::ext_identity();
  Niels t = detail::niels_identity();
  for (std::size_t w = kWindows; w-- > 0;) {
    if (w + 1 != kWindows) {
      for (int b = 0; b < 4; ++b) acc = detail::ext_dbl(acc);
    }
    for (std::size_t i = 0; i < n; ++i) {
      const auto d = static_cast<std::uint64_t>(static_cast<std::int64_t>(digits[i][w]));
      const std::uint64_t neg = d >> 63;
      const std::uint64_t mag = (d ^ (0 - neg)) + neg;
      t = detail::niels_identity();
      const Niels* row = &table[i * kPerPoint];
      for (std::size_t j = 0; j < kPerPoint; ++j) {
        const std::uint64_t hit = ct_eq(mag, j + 1);
        detail::fe_cmov(t.ypx, row[j].ypx, hit);
        detail::fe_cmov(t.ymx, row[j].ymx, hit);
        detail::fe_cmov(t.t2d, row[j].t2d, hit);
      }
      detail::fe_cswap(t.ypx, t.ymx, neg);
      detail::fe_cmov(t.t2d, detail::fe_carry(detail::fe_neg(t.t2d)), neg);
      acc = detail::ext_add_niels(acc, t);
    }
  }
  Point r;
  detail::ext_to_decaf(*r.raw(), acc);
  for (auto& d : digits) sodium_memzero(d.data(), d.size());
  sodium_memzero(&t, sizeof t);
  sodium_memzero(&acc, sizeof acc);
  // The sum is a commitment-like public value (see Point::operator*(SecretScalar)).
  gopa_declassify(r.raw(), sizeof(decaf_255_point_t));
  return r;
}

}  // namespace gopa
