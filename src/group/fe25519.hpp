// Internal: arithmetic in GF(2^255 − 19) for the MSM and fixed-base hot paths, portable C++
// (namespace r51; fe25519_adx.hpp has the same interface with BMI2/ADX, namespace r64).
//
// Five 51-bit limbs (radix 2^51), the same layout as libdecaf's gf_25519_s on 64-bit targets, so
// values move between the two by copying limbs. Limbs are loose: mul/sq/mul_small/carry outputs
// are "tight" (every limb < 2^51 + 2^18); add of two tight values has limbs < 2^53; sub(a, b)
// needs b's limbs < 2^53 − 76 and returns limbs < 2^54; mul and sq accept limbs < 2^56.
// Only fe_canonical() fully reduces.
//
// Every function here is branch-free and its memory access pattern is fixed, so the constant-time
// fixed-base table may use it on secrets. The inversion (edwards_impl.inc, shared with r64) is a
// fixed addition chain.
#pragma once

#include <cstdint>
#include <cstring>

#include <decaf/point_255.h>

namespace gopa::detail::r51 {

__extension__ typedef unsigned __int128 u128;

struct Fe {
  std::uint64_t v[5];
};

inline constexpr std::uint64_t kMask51 = (std::uint64_t{1} << 51) - 1;

inline Fe fe_zero() noexcept { return Fe{{0, 0, 0, 0, 0}}; }
inline Fe fe_one() noexcept { return Fe{{1, 0, 0, 0, 0}}; }
inline Fe fe_from_small(std::uint64_t k) noexcept { return Fe{{k, 0, 0, 0, 0}}; }

[[gnu::always_inline]] inline Fe fe_add(const Fe& a, const Fe& b) noexcept {
  return Fe{{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3], a.v[4] + b.v[4]}};
}

// a − b + 4p (4p in limbs: 2^53 − 76, 2^53 − 4, ...), so no limb goes negative.
[[gnu::always_inline]] inline Fe fe_sub(const Fe& a, const Fe& b) noexcept {
  constexpr std::uint64_t k0 = (std::uint64_t{1} << 53) - 76;
  constexpr std::uint64_t k1 = (std::uint64_t{1} << 53) - 4;
  return Fe{{a.v[0] + k0 - b.v[0], a.v[1] + k1 - b.v[1], a.v[2] + k1 - b.v[2],
             a.v[3] + k1 - b.v[3], a.v[4] + k1 - b.v[4]}};
}

[[gnu::always_inline]] inline Fe fe_neg(const Fe& a) noexcept { return fe_sub(fe_zero(), a); }

// One carry pass: every limb < 2^51 + 2^13·19 afterwards.
[[gnu::always_inline]] inline Fe fe_carry(const Fe& a) noexcept {
  Fe r = a;
  std::uint64_t c = r.v[0] >> 51;
  r.v[0] &= kMask51;
  r.v[1] += c;
  c = r.v[1] >> 51;
  r.v[1] &= kMask51;
  r.v[2] += c;
  c = r.v[2] >> 51;
  r.v[2] &= kMask51;
  r.v[3] += c;
  c = r.v[3] >> 51;
  r.v[3] &= kMask51;
  r.v[4] += c;
  c = r.v[4] >> 51;
  r.v[4] &= kMask51;
  r.v[0] += c * 19;
  c = r.v[0] >> 51;
  r.v[0] &= kMask51;
  r.v[1] += c;
  return r;
}

// Reduces the five 128-bit column sums (each < 2^119) to tight limbs.
[[gnu::always_inline]] inline Fe fe_reduce_wide(u128 t0, u128 t1, u128 t2, u128 t3, u128 t4) noexcept {
  Fe r;
  t1 += t0 >> 51;
  r.v[0] = static_cast<std::uint64_t>(t0) & kMask51;
  t2 += t1 >> 51;
  r.v[1] = static_cast<std::uint64_t>(t1) & kMask51;
  t3 += t2 >> 51;
  r.v[2] = static_cast<std::uint64_t>(t2) & kMask51;
  t4 += t3 >> 51;
  r.v[3] = static_cast<std::uint64_t>(t3) & kMask51;
  r.v[4] = static_cast<std::uint64_t>(t4) & kMask51;
  const u128 c = (t4 >> 51) * 19 + r.v[0];
  r.v[0] = static_cast<std::uint64_t>(c) & kMask51;
  r.v[1] += static_cast<std::uint64_t>(c >> 51);
  return r;
}

[[gnu::always_inline]] inline Fe fe_mul(const Fe& a, const Fe& b) noexcept {
  const std::uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const std::uint64_t b0 = b.v[0], b1 = b.v[1], b2 = b.v[2], b3 = b.v[3], b4 = b.v[4];
  const std::uint64_t b1_19 = b1 * 19, b2_19 = b2 * 19, b3_19 = b3 * 19, b4_19 = b4 * 19;
  const u128 t0 = u128{a0} * b0 + u128{a1} * b4_19 + u128{a2} * b3_19 + u128{a3} * b2_19 +
                  u128{a4} * b1_19;
  const u128 t1 = u128{a0} * b1 + u128{a1} * b0 + u128{a2} * b4_19 + u128{a3} * b3_19 +
                  u128{a4} * b2_19;
  const u128 t2 = u128{a0} * b2 + u128{a1} * b1 + u128{a2} * b0 + u128{a3} * b4_19 +
                  u128{a4} * b3_19;
  const u128 t3 = u128{a0} * b3 + u128{a1} * b2 + u128{a2} * b1 + u128{a3} * b0 +
                  u128{a4} * b4_19;
  const u128 t4 = u128{a0} * b4 + u128{a1} * b3 + u128{a2} * b2 + u128{a3} * b1 +
                  u128{a4} * b0;
  return fe_reduce_wide(t0, t1, t2, t3, t4);
}

[[gnu::always_inline]] inline Fe fe_sq(const Fe& a) noexcept {
  const std::uint64_t a0 = a.v[0], a1 = a.v[1], a2 = a.v[2], a3 = a.v[3], a4 = a.v[4];
  const std::uint64_t d0 = a0 * 2, d1 = a1 * 2, d2 = a2 * 2, d3 = a3 * 2;
  const std::uint64_t a3_19 = a3 * 19, a4_19 = a4 * 19;
  const u128 t0 = u128{a0} * a0 + u128{d1} * a4_19 + u128{d2} * a3_19;
  const u128 t1 = u128{d0} * a1 + u128{d2} * a4_19 + u128{a3} * a3_19;
  const u128 t2 = u128{d0} * a2 + u128{a1} * a1 + u128{d3} * a4_19;
  const u128 t3 = u128{d0} * a3 + u128{d1} * a2 + u128{a4} * a4_19;
  const u128 t4 = u128{d0} * a4 + u128{d1} * a3 + u128{a2} * a2;
  return fe_reduce_wide(t0, t1, t2, t3, t4);
}

// a · k for a small constant k < 2^20.
[[gnu::always_inline]] inline Fe fe_mul_small(const Fe& a, std::uint32_t k) noexcept {
  return fe_reduce_wide(u128{a.v[0]} * k, u128{a.v[1]} * k, u128{a.v[2]} * k, u128{a.v[3]} * k,
                        u128{a.v[4]} * k);
}

// The unique representative in [0, p), limbs < 2^51.
inline Fe fe_canonical(const Fe& a) noexcept {
  Fe r = fe_carry(fe_carry(a));
  // Now r < 2^255 + small; subtract p if r ≥ p, computed without branches: q = (r + 19) >> 255.
  std::uint64_t q = (r.v[0] + 19) >> 51;
  q = (r.v[1] + q) >> 51;
  q = (r.v[2] + q) >> 51;
  q = (r.v[3] + q) >> 51;
  q = (r.v[4] + q) >> 51;
  r.v[0] += 19 * q;
  std::uint64_t c = r.v[0] >> 51;
  r.v[0] &= kMask51;
  r.v[1] += c;
  c = r.v[1] >> 51;
  r.v[1] &= kMask51;
  r.v[2] += c;
  c = r.v[2] >> 51;
  r.v[2] &= kMask51;
  r.v[3] += c;
  c = r.v[3] >> 51;
  r.v[3] &= kMask51;
  r.v[4] += c;
  r.v[4] &= kMask51;
  return r;
}

// Constant-time conditional move: r = b when flag == 1, unchanged when flag == 0.
inline void fe_cmov(Fe& r, const Fe& b, std::uint64_t flag) noexcept {
  const std::uint64_t m = 0 - flag;
  for (int i = 0; i < 5; ++i) r.v[i] ^= m & (r.v[i] ^ b.v[i]);
}

// Constant-time conditional swap.
inline void fe_cswap(Fe& a, Fe& b, std::uint64_t flag) noexcept {
  const std::uint64_t m = 0 - flag;
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t x = m & (a.v[i] ^ b.v[i]);
    a.v[i] ^= x;
    b.v[i] ^= x;
  }
}

// Variable time (public data): whether a ≡ 0 mod p.
inline bool fe_is_zero_vartime(const Fe& a) noexcept {
  const Fe c = fe_canonical(a);
  return (c.v[0] | c.v[1] | c.v[2] | c.v[3] | c.v[4]) == 0;
}

// Conversions from and to libdecaf's limbs (the same radix).
inline Fe fe_from_decaf(const gf_25519_s& g) noexcept {
  Fe r;
  for (int i = 0; i < 5; ++i) r.v[i] = g.limb[i];
  return fe_carry(r);
}

inline void fe_to_decaf(gf_25519_s& g, const Fe& a) noexcept {
  const Fe c = fe_canonical(a);
  for (int i = 0; i < 5; ++i) g.limb[i] = c.v[i];
}

}  // namespace gopa::detail::r51
