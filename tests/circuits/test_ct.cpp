// The constant-time hint helpers (ct.hpp) equal the variable-time computations they replace, on
// random values of every magnitude and on the edges of the i128 range. The constant-time
// property itself is checked under valgrind (tests/consttime).
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <vector>

#include "gopa/circuits/ct.hpp"
#include "gopa/circuits/recorder.hpp"
#include "gopa/random.hpp"

using namespace gopa::circuits;

namespace {

constexpr i128 kMin = static_cast<i128>(static_cast<u128>(1) << 127);
constexpr i128 kMax = static_cast<i128>((static_cast<u128>(1) << 127) - 1U);

// The former hints (variable time), as the reference.
i128 ref_floor_div(i128 a, i128 d) {
  if (d <= 0) return 0;
  i128 q = a / d;
  if (a % d < 0) q -= 1;
  return q;
}

i128 ref_isqrt(i128 n) {
  if (n <= 0) return 0;
  auto y = static_cast<i128>(std::sqrt(static_cast<long double>(n)));
  while (y > 0 && y * y > n) --y;
  while ((y + 1) * (y + 1) <= n) ++y;
  return y;
}

u128 draw_u128(gopa::Rng& rng) {
  return (static_cast<u128>(rng.next_u64()) << 64) | rng.next_u64();
}

// A value of random bit length (so that small and large magnitudes are all covered) and sign.
i128 draw_any(gopa::Rng& rng) {
  const auto len = static_cast<unsigned>(rng.uniform(129));
  u128 v = draw_u128(rng);
  v = len == 0 ? 0 : (len >= 128 ? v : v & ((static_cast<u128>(1) << len) - 1U));
  return static_cast<i128>(v);
}

std::vector<i128> edge_values() {
  std::vector<i128> e = {0, 1, -1, 2, -2, 3, kMin, kMax, kMin + 1, kMax - 1, kWireLimit,
                         -kWireLimit, kWireLimit - 1, -kWireLimit + 1};
  for (unsigned k : {31U, 32U, 63U, 64U, 65U, 100U, 124U, 126U}) {
    e.push_back(pow2(k));
    e.push_back(pow2(k) - 1);
    e.push_back(-pow2(k));
    e.push_back(-pow2(k) + 1);
  }
  return e;
}

}  // namespace

TEST_CASE("ct comparisons, selection, abs and bit width", "[circuits][ct]") {
  gopa::DeterministicRng rng(71);
  std::vector<i128> vals = edge_values();
  for (int i = 0; i < 400; ++i) vals.push_back(draw_any(rng));
  for (i128 a : vals) {
    const auto ua = static_cast<u128>(a);
    CHECK(ct::bit_width(ua) == (ua >> 64 != 0 ? 64U + static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(ua >> 64)))
                                              : static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(ua)))));
    CHECK(ct::abs_u(a) == (a < 0 ? static_cast<u128>(0) - ua : ua));
    CHECK((ct::mask_zero(ua) != 0) == (a == 0));
    for (int j = 0; j < 8; ++j) {
      const i128 b = vals[rng.uniform(vals.size())];
      const auto ub = static_cast<u128>(b);
      CHECK((ct::lt(a, b) != 0) == (a < b));
      CHECK((ct::lt_u(ua, ub) != 0) == (ua < ub));
      CHECK(ct::select(ct::lt(a, b), a, b) == std::min(a, b));
    }
  }
}

TEST_CASE("ct add, sub, mul with overflow flags match the checked builtins", "[circuits][ct]") {
  gopa::DeterministicRng rng(72);
  std::vector<i128> vals = edge_values();
  for (int i = 0; i < 600; ++i) vals.push_back(draw_any(rng));
  for (i128 a : vals) {
    for (int j = 0; j < 16; ++j) {
      const i128 b = vals[rng.uniform(vals.size())];
      i128 ref = 0;
      u128 ovf = 0;
      bool o = __builtin_add_overflow(a, b, &ref);
      i128 got = ct::add(a, b, ovf);
      CHECK((ovf != 0) == o);
      if (!o) CHECK(got == ref);
      o = __builtin_sub_overflow(a, b, &ref);
      got = ct::sub(a, b, ovf);
      CHECK((ovf != 0) == o);
      if (!o) CHECK(got == ref);
      o = __builtin_mul_overflow(a, b, &ref);
      got = ct::mul(a, b, ovf);
      CHECK((ovf != 0) == o);
      if (!o) CHECK(got == ref);
    }
  }
  u128 ovf = 0;
  CHECK(ct::mul(kMin, 1, ovf) == kMin);
  CHECK(ovf == 0);
  CHECK(ct::mul(-pow2(64), pow2(63), ovf) == kMin);
  CHECK(ovf == 0);
  (void)ct::mul(pow2(64), pow2(63), ovf);
  CHECK(ovf != 0);
  (void)ct::mul(kMin, -1, ovf);
  CHECK(ovf != 0);
}

TEST_CASE("ct floor division and square root equal the former hints", "[circuits][ct]") {
  gopa::DeterministicRng rng(73);
  std::vector<i128> nums = edge_values();
  for (int i = 0; i < 2000; ++i) nums.push_back(draw_any(rng));
  std::vector<i128> dens = {1, 2, 3, 7, -1, 0, -5, pow2(64) + 1, pow2(90) - 3, kMax, kMin};
  for (int i = 0; i < 200; ++i) dens.push_back(draw_any(rng));
  for (i128 a : nums) {
    for (int j = 0; j < 8; ++j) {
      const i128 d = dens[rng.uniform(dens.size())];
      if (d == -1 && a == kMin) continue;  // the reference itself overflows (a / d)
      CHECK(ct::floor_div(a, d) == ref_floor_div(a, d));
    }
    u128 q = 0, r = 0;
    const u128 un = static_cast<u128>(a), ud = static_cast<u128>(dens[rng.uniform(dens.size())]);
    ct::divmod_u(un, ud, q, r);
    if (ud != 0) {
      CHECK(q == un / ud);
      CHECK(r == un % ud);
    }
    // The reference isqrt is valid below 2^126 ((y + 1)² must not overflow).
    if (a < pow2(126)) CHECK(ct::isqrt(a) == ref_isqrt(a));
    if (a >= 0) {
      const auto y = static_cast<u128>(ct::isqrt(a));
      CHECK(y * y <= static_cast<u128>(a));
      CHECK((y + 1) * (y + 1) > static_cast<u128>(a));
    }
  }
  // Fewer iterations (a public bound on the result) are exact within that bound.
  for (int i = 0; i < 4000; ++i) {
    const auto qbits = static_cast<unsigned>(1 + rng.uniform(80));
    const i128 d = 1 + static_cast<i128>(draw_any(rng) & ((static_cast<i128>(1) << 45) - 1));
    const i128 q = draw_any(rng) & ((static_cast<i128>(1) << (qbits - 1)) - 1);
    const i128 a = (rng.uniform(2) == 0 ? q : -q) * d + (draw_any(rng) & ((static_cast<i128>(1) << 40) - 1)) % d;
    CHECK(ct::floor_div(a, d, qbits) == ref_floor_div(a, d));
    const auto ybits = static_cast<unsigned>(1 + rng.uniform(63));
    const i128 y = draw_any(rng) & ((static_cast<i128>(1) << ybits) - 1);
    const i128 n = y * y + (draw_any(rng) & ((static_cast<i128>(1) << 64) - 1)) % (2 * y + 1);
    CHECK(ct::isqrt(n, ybits) == y);
  }
  for (i128 y = 0; y < 3000; ++y) {
    CHECK(ct::isqrt(y * y) == y);
    CHECK(ct::isqrt(y * y - 1) == (y == 0 ? 0 : y - 1));
  }
}

TEST_CASE("ct in_wire_limit and scalar_from_i128 on the edges", "[circuits][ct]") {
  for (i128 v : edge_values()) {
    CHECK((ct::in_wire_limit(v) != 0) == (v < kWireLimit && v > -kWireLimit));
    if (v != kMin) CHECK(scalar_from_i128(v) + scalar_from_i128(-v) == gopa::Scalar::zero());
  }
  CHECK(scalar_from_i128(kMin) == -(gopa::Scalar::from_u64(1ULL << 63) * gopa::Scalar::from_u64(1ULL << 32) *
                                    gopa::Scalar::from_u64(1ULL << 32)));
}
