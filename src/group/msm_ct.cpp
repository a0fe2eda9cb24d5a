// Constant-time multi-scalar multiplication for secret scalars.
//
// Straus with a fixed 4-bit signed window: per point a table of 1..8 multiples, selected by a
// full scan with constant-time conditional moves, and a constant-time conditional negation.
// All points share the 252 doublings. Nothing branches on, or indexes memory by, a secret.
#include "gopa/msm_ct.hpp"

#include <array>
#include <vector>

#include "gopa/check.hpp"

namespace gopa {

namespace {

constexpr int kWindows = 64;  // 4-bit digits of a 253-bit scalar, signed recoding adds a carry

// Signed radix-16 recoding of a scalar < 2^253 into 64 digits in [-8, 8), last digit may be 8.
// Branch-free on the digits.
std::array<std::int8_t, kWindows> recode(const SecretScalar& k) {
  std::uint8_t bytes[32];
  decaf_255_scalar_encode(bytes, k.raw());
  std::array<std::int8_t, kWindows> d{};
  for (int i = 0; i < 32; ++i) {
    d[static_cast<std::size_t>(2 * i)] = static_cast<std::int8_t>(bytes[i] & 15);
    d[static_cast<std::size_t>(2 * i + 1)] = static_cast<std::int8_t>(bytes[i] >> 4);
  }
  for (std::size_t i = 0; i + 1 < kWindows; ++i) {
    const int carry = (d[i] + 8) >> 4;  // 1 iff d[i] >= 8, computed arithmetically
    d[i] = static_cast<std::int8_t>(d[i] - (carry << 4));
    d[i + 1] = static_cast<std::int8_t>(d[i + 1] + carry);
  }
  decaf_bzero(bytes, sizeof bytes);
  return d;
}

}  // namespace

Point msm_secret(std::span<const SecretScalar> scalars, std::span<const Point> points) {
  GOPA_CHECK(scalars.size() == points.size(), "msm_secret: as many scalars as points");
  const std::size_t n = points.size();
  if (n == 0) return Point::identity();
  // tables[i][j] = (j+1)·P_i for j = 0..7 (public data: the points are public).
  std::vector<std::array<Point, 8>> tables(n);
  for (std::size_t i = 0; i < n; ++i) {
    tables[i][0] = points[i];
    for (std::size_t j = 1; j < 8; ++j) tables[i][j] = tables[i][j - 1] + points[i];
  }
  std::vector<std::array<std::int8_t, kWindows>> digits(n);
  for (std::size_t i = 0; i < n; ++i) digits[i] = recode(scalars[i]);

  Point acc;
  Point sel;
  for (int w = kWindows - 1; w >= 0; --w) {
    if (w != kWindows - 1) {
      for (int b = 0; b < 4; ++b) acc = acc.dbl();
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::int8_t dig = digits[i][static_cast<std::size_t>(w)];
      // |d| and sign without branches.
      const auto sign_mask = static_cast<std::uint8_t>(static_cast<std::uint8_t>(dig) >> 7);  // 1 if negative
      const int smask = -static_cast<int>(sign_mask);
      const auto mag = static_cast<std::uint8_t>((dig ^ smask) + static_cast<int>(sign_mask));
      sel = Point::identity();
      for (std::uint8_t j = 0; j < 8; ++j) {
        // mask all-ones iff mag == j + 1
        const std::uint32_t diff = static_cast<std::uint32_t>(mag ^ (j + 1));
        const decaf_word_t take = decaf_word_t{0} - static_cast<decaf_word_t>((diff - 1) >> 31);
        decaf_255_point_cond_sel(sel.raw(), sel.raw(), tables[i][j].raw(), take);
      }
      Point neg = -sel;
      const decaf_word_t negate = decaf_word_t{0} - static_cast<decaf_word_t>(sign_mask);
      decaf_255_point_cond_sel(sel.raw(), sel.raw(), neg.raw(), negate);
      acc += sel;
    }
  }
  for (auto& d : digits) decaf_bzero(d.data(), d.size());
  // The sum is a commitment-like public value (see Point::operator*(SecretScalar)).
  gopa_declassify(acc.raw(), sizeof(decaf_255_point_t));
  return acc;
}

}  // namespace gopa
