// gopa/circuits/ct.hpp — constant-time 128-bit integer helpers for the prover's hints.
//
//   i128 q = ct::floor_div(a, d);          // ⌊a/d⌋ for d > 0 (0 for d ≤ 0), 128 fixed steps
//   i128 y = ct::isqrt(n);                 // ⌊√n⌋ for n ≥ 0 (0 for n ≤ 0), 64 fixed steps
//   unsigned w = ct::bit_width(x);         // no bsr/lzcnt, no branch
//   i128 z = ct::select(ct::lt(a, b), a, b);
//
// Every wire value of a sampler circuit derives from the private seeds, so every hint the prover
// computes from them must run in time and memory-access pattern independent of those values:
// no branch, no early exit, no table index and no hardware or libgcc division (__divti3 and
// __udivti3 take time that depends on the operands). Comparisons produce masks (all ones or
// zero) from sign bits; selections are AND/OR of masks. The masks pass through an optimisation
// barrier so that the compiler cannot turn them back into branches. Checked by the valgrind
// harness (tests/consttime) with the seeds marked undefined.
//
// Every function is exact on the whole i128/u128 range (a cheating prover's shadow values may be
// anything), and equals the variable-time reference it replaces (tests/circuits/test_ct.cpp).
#pragma once

#include <cstdint>

#include "gopa/circuits/builder.hpp"

namespace gopa::circuits::ct {

// The value, hidden from the optimiser (it cannot prove that it is 0 or all ones, so it keeps
// the arithmetic selection instead of inventing a branch).
inline std::uint64_t barrier(std::uint64_t v) noexcept {
  __asm__ volatile("" : "+r"(v));
  return v;
}

// All ones if the top bit of x is set, else zero.
inline u128 mask_msb(u128 x) noexcept {
  const std::uint64_t m = barrier(static_cast<std::uint64_t>(x >> 127));
  return static_cast<u128>(0) - static_cast<u128>(m);
}

// All ones if bit 0 of b is set, else zero.
inline u128 mask_bit(u128 b) noexcept {
  const std::uint64_t m = barrier(static_cast<std::uint64_t>(b & 1U));
  return static_cast<u128>(0) - static_cast<u128>(m);
}

inline u128 mask_zero(u128 x) noexcept { return mask_msb(~x & (x - 1U)); }
inline u128 mask_nonzero(u128 x) noexcept { return ~mask_zero(x); }

// a < b, unsigned: the borrow of a − b.
inline u128 lt_u(u128 a, u128 b) noexcept { return mask_msb((~a & b) | (~(a ^ b) & (a - b))); }

// a < b, signed (Hacker's Delight 2-12, on the wrapping difference).
inline u128 lt(i128 a, i128 b) noexcept {
  const auto ua = static_cast<u128>(a), ub = static_cast<u128>(b);
  const u128 d = ua - ub;
  return mask_msb(d ^ ((ua ^ ub) & (d ^ ua)));
}

inline u128 select_u(u128 mask, u128 a, u128 b) noexcept { return (a & mask) | (b & ~mask); }
inline i128 select(u128 mask, i128 a, i128 b) noexcept {
  return static_cast<i128>(select_u(mask, static_cast<u128>(a), static_cast<u128>(b)));
}

// |a| as an unsigned value (2^127 for the minimum).
inline u128 abs_u(i128 a) noexcept {
  const u128 m = mask_msb(static_cast<u128>(a));
  return (static_cast<u128>(a) ^ m) - m;
}

// −a where mask is all ones, a where it is zero (wrapping).
inline u128 cond_neg(u128 mask, u128 a) noexcept { return (a ^ mask) - mask; }

// Number of set bits, by SWAR (no popcnt dependency: libgcc's fallback indexes a table).
inline unsigned popcount64(std::uint64_t x) noexcept {
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return static_cast<unsigned>((x * 0x0101010101010101ULL) >> 56);
}

// Bits needed to write x (0 for 0): smear the leading one down, then count.
inline unsigned bit_width(u128 x) noexcept {
  for (unsigned s = 1; s < 128; s <<= 1) x |= x >> s;
  return popcount64(static_cast<std::uint64_t>(x)) + popcount64(static_cast<std::uint64_t>(x >> 64));
}

// n = q·d + r, 0 ≤ r < d (for d ≠ 0; d = 0 gives q = 2^128 − 1, r = n): restoring division,
// qbits iterations (a public count), each a shift, a compare and a masked subtraction.
// Exact when q < 2^qbits (always for qbits = 128); otherwise q and r are unspecified.
inline void divmod_u(u128 n, u128 d, u128& q, u128& r, unsigned qbits = 128) noexcept {
  qbits = qbits > 128 ? 128U : qbits;
  u128 rem = qbits == 128 ? 0 : n >> qbits, quo = 0;
  for (int i = static_cast<int>(qbits) - 1; i >= 0; --i) {
    const u128 carry = mask_msb(rem);  // rem·2 ≥ 2^128 > d
    rem = (rem << 1) | ((n >> i) & 1U);
    const u128 take = carry | ~lt_u(rem, d);
    rem -= d & take;
    quo |= (take & 1U) << i;
  }
  q = quo;
  r = rem;
}

// ⌊a/d⌋ for d > 0; 0 for d ≤ 0 (the former hint's convention). Exact when |a|/d < 2^qbits
// (always for the default); otherwise unspecified, which a caller may accept when a quotient of
// that size fails its constraints anyway (fx_div's range check).
inline i128 floor_div(i128 a, i128 d, unsigned qbits = 128) noexcept {
  const u128 dpos = lt(0, d);
  const u128 du = select_u(dpos, static_cast<u128>(d), 1U);
  const u128 neg = mask_msb(static_cast<u128>(a));
  u128 q = 0, r = 0;
  divmod_u(abs_u(a), du, q, r, qbits);
  // a < 0: ⌊a/d⌋ = −(q + [r ≠ 0]).
  q += neg & mask_nonzero(r) & 1U;
  return static_cast<i128>(cond_neg(neg, q) & dpos);
}

// ⌊√n⌋ for n ≥ 0, 0 for n ≤ 0: digit-by-digit square root, ybits iterations (a public count).
// Exact when ⌊√n⌋ < 2^ybits (always for the default); otherwise unspecified.
inline i128 isqrt(i128 n, unsigned ybits = 64) noexcept {
  ybits = ybits > 64 ? 64U : (ybits == 0 ? 1U : ybits);
  u128 x = static_cast<u128>(n) & ~mask_msb(static_cast<u128>(n));
  u128 res = 0, bit = static_cast<u128>(1) << (2 * ybits - 2);
  for (unsigned i = 0; i < ybits; ++i) {
    const u128 t = res + bit;
    const u128 ge = ~lt_u(x, t);
    x -= t & ge;
    res = (res >> 1) + (bit & ge);
    bit >>= 2;
  }
  return static_cast<i128>(res);
}

// a + b, a − b, a·b; the overflow flag as a mask (wrapped result otherwise).
inline i128 add(i128 a, i128 b, u128& overflow) noexcept {
  const auto ua = static_cast<u128>(a), ub = static_cast<u128>(b);
  const u128 s = ua + ub;
  overflow = mask_msb((s ^ ua) & (s ^ ub));
  return static_cast<i128>(s);
}

inline i128 sub(i128 a, i128 b, u128& overflow) noexcept {
  const auto ua = static_cast<u128>(a), ub = static_cast<u128>(b);
  const u128 s = ua - ub;
  overflow = mask_msb((ua ^ ub) & (ua ^ s));
  return static_cast<i128>(s);
}

inline i128 mul(i128 a, i128 b, u128& overflow) noexcept {
  const u128 x = abs_u(a), y = abs_u(b);
  const u128 neg = mask_msb(static_cast<u128>(a ^ b));
  const auto x0 = static_cast<std::uint64_t>(x), x1 = static_cast<std::uint64_t>(x >> 64);
  const auto y0 = static_cast<std::uint64_t>(y), y1 = static_cast<std::uint64_t>(y >> 64);
  // |a|·|b| = hi·2^128 + lo from four 64×64 → 128 products (the mul instruction: constant time).
  const u128 p00 = static_cast<u128>(x0) * y0, p01 = static_cast<u128>(x0) * y1;
  const u128 p10 = static_cast<u128>(x1) * y0, p11 = static_cast<u128>(x1) * y1;
  const u128 mid = (p00 >> 64) + static_cast<std::uint64_t>(p01) + static_cast<std::uint64_t>(p10);
  const u128 lo = (mid << 64) | static_cast<std::uint64_t>(p00);
  const u128 hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  // Representable iff hi = 0 and lo < 2^127 (lo ≤ 2^127 for a negative result).
  const u128 top = static_cast<u128>(1) << 127;
  const u128 too_big = mask_msb(lo) & (~neg | mask_nonzero(lo ^ top));
  overflow = mask_nonzero(hi) | too_big;
  return static_cast<i128>(cond_neg(neg, lo));
}

// |v| < 2^124 (kWireLimit), as a mask.
inline u128 in_wire_limit(i128 v) noexcept {
  return lt(v, kWireLimit) & lt(-kWireLimit, v);
}

}  // namespace gopa::circuits::ct
