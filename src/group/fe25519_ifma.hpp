// Internal: eight field elements of GF(2^255 − 19) at once with AVX-512 IFMA (VPMADD52LUQ /
// VPMADD52HUQ), and the Edwards formulas of edwards_impl.inc on eight points at once.
//
// Layout: Fe8 holds eight elements in radix 2^51, five limbs, limb i of element k in lane k of
// l[i] ("limb-sliced"), so one instruction works on the same limb of all eight. IFMA multiplies
// the low 52 bits of each lane, so every multiplication input must have limbs < 2^52. The
// invariant of this file: every Fe8 a function takes or returns is *carried*, every limb
// < 2^51 + 2^17, which
//   - is a valid IFMA input (< 2^52);
//   - stays below the limbs of 2p (2^52 − 38, 2^52 − 2), so a − b + 2p never goes negative.
// Additions and subtractions end with one parallel carry pass to restore it (15 cheap
// instructions against about 95 for a multiplication).
//
// Products: a_i·b_j < 2^104 splits into lo52 (weight 2^(51(i+j))) and hi52 (weight
// 2^(51(i+j)+52) = 2·2^(51(i+j+1))), so limb k of the 10-limb product is z_k + 2·h_k with z the
// low and h the high accumulators (each < 5·2^52, the sum < 2^56). Limbs 5..9 fold in times 19
// (2^255 ≡ 19): < 20·2^56 < 2^61, then the carry pass.
//
// Every function is branch-free and indexes memory by public values only: the same constant-
// time discipline as fe25519.hpp. They are compiled for AVX-512 through a target attribute and
// must only run after simd.hpp's ifma_enabled() said the CPU has it (no function here is called
// from code built without the attribute).
#pragma once

#include "ifma_target.hpp"

#if defined(GOPA_HAVE_IFMA_CODE)

#include <sodium.h>

#include <cstdint>

#include "edwards.hpp"

namespace gopa::detail::ifma {

inline constexpr std::uint64_t kMask51 = (std::uint64_t{1} << 51) - 1;

struct Fe8 {
  __m512i l[5];
};

// Extended coordinates and affine Niels form, eight points (see edwards_impl.inc).
struct Ext8 {
  Fe8 X, Y, Z, T;
};
struct Niels8 {
  Fe8 ypx, ymx, t2d;
};

GOPA_IFMA_INLINE __m512i bcast(std::uint64_t v) {
  return _mm512_set1_epi64(static_cast<long long>(v));
}

GOPA_IFMA_INLINE Fe8 fe8_const(std::uint64_t v0) {
  return Fe8{{bcast(v0), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(),
              _mm512_setzero_si512()}};
}

// One parallel carry pass over limbs < 2^63: every limb < 2^51 + 2^17 afterwards (limb 0 gets
// 19 times the top carry, < 2^12·19, by one IFMA).
GOPA_IFMA_INLINE Fe8 fe8_carry(const Fe8& x) {
  const __m512i m = bcast(kMask51);
  const __m512i c0 = _mm512_srli_epi64(x.l[0], 51), c1 = _mm512_srli_epi64(x.l[1], 51),
                c2 = _mm512_srli_epi64(x.l[2], 51), c3 = _mm512_srli_epi64(x.l[3], 51),
                c4 = _mm512_srli_epi64(x.l[4], 51);
  Fe8 r;
  r.l[0] = _mm512_madd52lo_epu64(_mm512_and_si512(x.l[0], m), c4, bcast(19));
  r.l[1] = _mm512_add_epi64(_mm512_and_si512(x.l[1], m), c0);
  r.l[2] = _mm512_add_epi64(_mm512_and_si512(x.l[2], m), c1);
  r.l[3] = _mm512_add_epi64(_mm512_and_si512(x.l[3], m), c2);
  r.l[4] = _mm512_add_epi64(_mm512_and_si512(x.l[4], m), c3);
  return r;
}

GOPA_IFMA_INLINE Fe8 fe8_add(const Fe8& a, const Fe8& b) {
  Fe8 r;
  for (int i = 0; i < 5; ++i) r.l[i] = _mm512_add_epi64(a.l[i], b.l[i]);
  return fe8_carry(r);
}

// a − b + 2p: b's limbs (< 2^51 + 2^17) are below 2p's (2^52 − 38, 2^52 − 2).
GOPA_IFMA_INLINE Fe8 fe8_sub(const Fe8& a, const Fe8& b) {
  const __m512i k0 = bcast((std::uint64_t{1} << 52) - 38), k1 = bcast((std::uint64_t{1} << 52) - 2);
  Fe8 r;
  r.l[0] = _mm512_sub_epi64(_mm512_add_epi64(a.l[0], k0), b.l[0]);
  for (int i = 1; i < 5; ++i) r.l[i] = _mm512_sub_epi64(_mm512_add_epi64(a.l[i], k1), b.l[i]);
  return fe8_carry(r);
}

GOPA_IFMA_INLINE Fe8 fe8_neg(const Fe8& a) {
  Fe8 zero;
  for (auto& l : zero.l) l = _mm512_setzero_si512();
  return fe8_sub(zero, a);
}

// Limbs 0..9 of a product as z_k + 2·h_k, folded (times 19) and carried.
GOPA_IFMA_INLINE Fe8 fe8_fold(const __m512i (&z)[10], const __m512i (&h)[10]) {
  __m512i t[10];
  for (int k = 0; k < 10; ++k) t[k] = _mm512_add_epi64(z[k], _mm512_add_epi64(h[k], h[k]));
  const __m512i nineteen = bcast(19);
  Fe8 r;
  for (int k = 0; k < 5; ++k) r.l[k] = _mm512_add_epi64(t[k], _mm512_mullo_epi64(t[k + 5], nineteen));
  return fe8_carry(r);
}

GOPA_IFMA_INLINE Fe8 fe8_mul(const Fe8& a, const Fe8& b) {
  __m512i z[10], h[10];
  for (int k = 0; k < 10; ++k) z[k] = h[k] = _mm512_setzero_si512();
#pragma GCC unroll 5
  for (int i = 0; i < 5; ++i) {
#pragma GCC unroll 5
    for (int j = 0; j < 5; ++j) {
      z[i + j] = _mm512_madd52lo_epu64(z[i + j], a.l[i], b.l[j]);
      h[i + j + 1] = _mm512_madd52hi_epu64(h[i + j + 1], a.l[i], b.l[j]);
    }
  }
  return fe8_fold(z, h);
}

// a²: the 10 cross products once, doubled (15 products instead of 25).
GOPA_IFMA_INLINE Fe8 fe8_sq(const Fe8& a) {
  __m512i z[10], h[10], zc[10], hc[10];
  for (int k = 0; k < 10; ++k) z[k] = h[k] = zc[k] = hc[k] = _mm512_setzero_si512();
#pragma GCC unroll 5
  for (int i = 0; i < 5; ++i) {
    z[2 * i] = _mm512_madd52lo_epu64(z[2 * i], a.l[i], a.l[i]);
    h[2 * i + 1] = _mm512_madd52hi_epu64(h[2 * i + 1], a.l[i], a.l[i]);
#pragma GCC unroll 5
    for (int j = i + 1; j < 5; ++j) {
      zc[i + j] = _mm512_madd52lo_epu64(zc[i + j], a.l[i], a.l[j]);
      hc[i + j + 1] = _mm512_madd52hi_epu64(hc[i + j + 1], a.l[i], a.l[j]);
    }
  }
  // Limb k: z + 2h + 2zc + 4hc = (z + 2zc) + 2(h + 2hc); each sum < 2^56 as in fe8_mul.
  for (int k = 0; k < 10; ++k) {
    z[k] = _mm512_add_epi64(z[k], _mm512_add_epi64(zc[k], zc[k]));
    h[k] = _mm512_add_epi64(h[k], _mm512_add_epi64(hc[k], hc[k]));
  }
  return fe8_fold(z, h);
}

// a·k for a small public constant k < 2^20 (limb products < 2^72: through IFMA's two halves).
GOPA_IFMA_INLINE Fe8 fe8_mul_small(const Fe8& a, std::uint32_t k) {
  __m512i z[10], h[10];
  for (int i = 0; i < 10; ++i) z[i] = h[i] = _mm512_setzero_si512();
  const __m512i kk = bcast(k);
  for (int i = 0; i < 5; ++i) {
    z[i] = _mm512_madd52lo_epu64(z[i], a.l[i], kk);
    h[i + 1] = _mm512_madd52hi_epu64(h[i + 1], a.l[i], kk);
  }
  return fe8_fold(z, h);
}

// Lane-wise select: lanes set in m take b, the others a (a blend on a mask: no branch).
GOPA_IFMA_INLINE Fe8 fe8_blend(__mmask8 m, const Fe8& a, const Fe8& b) {
  Fe8 r;
  for (int i = 0; i < 5; ++i) r.l[i] = _mm512_mask_blend_epi64(m, a.l[i], b.l[i]);
  return r;
}

// ---------------------------------------------------------------- points (edwards_impl.inc)

GOPA_IFMA_INLINE Ext8 ext8_identity() {
  const Fe8 zero = fe8_const(0), one = fe8_const(1);
  return Ext8{zero, one, one, zero};
}

GOPA_IFMA_INLINE Ext8 ext8_finish(const Fe8& e, const Fe8& f, const Fe8& g, const Fe8& h) {
  return Ext8{fe8_mul(e, f), fe8_mul(g, h), fe8_mul(f, g), fe8_mul(e, h)};
}

// p + q, q affine Niels (7M).
GOPA_IFMA_INLINE Ext8 ext8_add_niels(const Ext8& p, const Niels8& q) {
  const Fe8 a = fe8_mul(fe8_sub(p.Y, p.X), q.ymx);
  const Fe8 b = fe8_mul(fe8_add(p.Y, p.X), q.ypx);
  const Fe8 c = fe8_mul(p.T, q.t2d);
  const Fe8 d = fe8_add(p.Z, p.Z);
  return ext8_finish(fe8_sub(b, a), fe8_sub(d, c), fe8_add(d, c), fe8_add(b, a));
}

// p + q, both extended (8M + one small multiplication).
GOPA_IFMA_INLINE Ext8 ext8_add(const Ext8& p, const Ext8& q) {
  const Fe8 a = fe8_mul(fe8_sub(p.Y, p.X), fe8_sub(q.Y, q.X));
  const Fe8 b = fe8_mul(fe8_add(p.Y, p.X), fe8_add(q.Y, q.X));
  const Fe8 c = fe8_mul_small(fe8_mul(p.T, q.T), kCurveD2);
  const Fe8 zz = fe8_mul(p.Z, q.Z);
  const Fe8 d = fe8_add(zz, zz);
  return ext8_finish(fe8_sub(b, a), fe8_sub(d, c), fe8_add(d, c), fe8_add(b, a));
}

// 2p (4M + 4S).
GOPA_IFMA_INLINE Ext8 ext8_dbl(const Ext8& p) {
  const Fe8 a = fe8_sq(p.X);
  const Fe8 b = fe8_sq(p.Y);
  const Fe8 zz = fe8_sq(p.Z);
  const Fe8 c = fe8_add(zz, zz);
  const Fe8 e = fe8_sub(fe8_sub(fe8_sq(fe8_add(p.X, p.Y)), a), b);
  const Fe8 g = fe8_sub(b, a);
  const Fe8 f = fe8_sub(g, c);
  const Fe8 h = fe8_sub(fe8_neg(a), b);
  return ext8_finish(e, f, g, h);
}

// −q in the lanes of m: (y + x, y − x, 2dxy) ↦ (y − x, y + x, −2dxy).
GOPA_IFMA_INLINE Niels8 niels8_cneg(__mmask8 m, const Niels8& q) {
  return Niels8{fe8_blend(m, q.ypx, q.ymx), fe8_blend(m, q.ymx, q.ypx),
                fe8_blend(m, q.t2d, fe8_neg(q.t2d))};
}

// ---------------------------------------------------------------- moving data in and out

// Transposes an 8×8 matrix of 64-bit words: on return r[k] holds word k of the old rows 0..7.
GOPA_IFMA_INLINE void transpose8(__m512i (&r)[8]) {
  __m512i u[8], v[8];
  for (int i = 0; i < 4; ++i) {
    u[2 * i] = _mm512_unpacklo_epi64(r[2 * i], r[2 * i + 1]);      // words 0,2,4,6 of rows 2i, 2i+1
    u[2 * i + 1] = _mm512_unpackhi_epi64(r[2 * i], r[2 * i + 1]);  // words 1,3,5,7
  }
  const __m512i lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  // v[0]: word 0 (and 4) of rows 0..3, v[1]: word 1 (5), v[2]: word 2 (6), v[3]: word 3 (7);
  // v[4..7] the same for rows 4..7.
  for (int g = 0; g < 2; ++g) {
    v[4 * g + 0] = _mm512_permutex2var_epi64(u[4 * g + 0], lo, u[4 * g + 2]);
    v[4 * g + 2] = _mm512_permutex2var_epi64(u[4 * g + 0], hi, u[4 * g + 2]);
    v[4 * g + 1] = _mm512_permutex2var_epi64(u[4 * g + 1], lo, u[4 * g + 3]);
    v[4 * g + 3] = _mm512_permutex2var_epi64(u[4 * g + 1], hi, u[4 * g + 3]);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm512_shuffle_i64x2(v[k], v[k + 4], 0x44);
    r[k + 4] = _mm512_shuffle_i64x2(v[k], v[k + 4], 0xEE);
  }
}

inline constexpr int kNativeWords = static_cast<int>(sizeof(Fe) / sizeof(std::uint64_t));
inline constexpr int kNielsWords = 3 * kNativeWords;
static_assert(kNativeWords == 4 || kNativeWords == 5, "native field: radix 2^64 or 2^51");
static_assert(sizeof(Niels) == sizeof(std::uint64_t) * kNielsWords, "Niels is packed limbs");

// One native field element, as words w[0..kNativeWords) of eight lanes, to a carried Fe8.
GOPA_IFMA_INLINE Fe8 fe8_from_native(const __m512i* w) {
  Fe8 r;
  if constexpr (kNativeWords == 4) {
    const __m512i m = bcast(kMask51);
    r.l[0] = _mm512_and_si512(w[0], m);
    r.l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[0], 51), _mm512_slli_epi64(w[1], 13)), m);
    r.l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[1], 38), _mm512_slli_epi64(w[2], 26)), m);
    r.l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[2], 25), _mm512_slli_epi64(w[3], 39)), m);
    r.l[4] = _mm512_srli_epi64(w[3], 12);  // < 2^52: the carry below brings it into range
  } else {
    for (int i = 0; i < 5; ++i) r.l[i] = w[i];
  }
  return fe8_carry(r);
}

// Lane k of a carried Fe8 as a native element (a representative: r64 takes any value < 2^256,
// r51 tight limbs).
GOPA_IFMA_INLINE void fe8_to_native(const Fe8& a, Fe* out) {
  alignas(64) std::uint64_t limbs[5][8];
  for (int i = 0; i < 5; ++i) _mm512_store_si512(reinterpret_cast<__m512i*>(limbs[i]), a.l[i]);
  for (int k = 0; k < 8; ++k) {
    if constexpr (kNativeWords == 4) {
      // Σ l_i·2^(51i) < (2^51 + 2^17)·2^205 < 2^256.
      __extension__ typedef unsigned __int128 u128;
      u128 acc = static_cast<u128>(limbs[0][k]) + (static_cast<u128>(limbs[1][k]) << 51);
      out[k].v[0] = static_cast<std::uint64_t>(acc);
      acc >>= 64;
      acc += static_cast<u128>(limbs[2][k]) << 38;
      out[k].v[1] = static_cast<std::uint64_t>(acc);
      acc >>= 64;
      acc += static_cast<u128>(limbs[3][k]) << 25;
      out[k].v[2] = static_cast<std::uint64_t>(acc);
      acc >>= 64;
      acc += static_cast<u128>(limbs[4][k]) << 12;
      out[k].v[3] = static_cast<std::uint64_t>(acc);
    } else {
      for (int i = 0; i < 5; ++i) out[k].v[i] = limbs[i][k];
    }
  }
  sodium_memzero(limbs, sizeof limbs);  // may hold secrets
}

// Eight points in extended coordinates, lane k from out[k].
GOPA_IFMA_INLINE void ext8_to_native(const Ext8& p, Ext* out) {
  Fe x[8], y[8], z[8], t[8];
  fe8_to_native(p.X, x);
  fe8_to_native(p.Y, y);
  fe8_to_native(p.Z, z);
  fe8_to_native(p.T, t);
  for (int k = 0; k < 8; ++k) out[k] = Ext{x[k], y[k], z[k], t[k]};
  // The lanes may be sums of secret multiples.
  sodium_memzero(x, sizeof x);
  sodium_memzero(y, sizeof y);
  sodium_memzero(z, sizeof z);
  sodium_memzero(t, sizeof t);
}

// Eight affine Niels points given as rows of kNielsWords words (row k = lane k, in two
// registers: words 0..7 and 8..kNielsWords−1), to a Niels8.
GOPA_IFMA_INLINE Niels8 niels8_from_rows(__m512i (&lo)[8], __m512i (&hi)[8]) {
  transpose8(lo);
  transpose8(hi);
  __m512i w[16];
  for (int k = 0; k < 8; ++k) {
    w[k] = lo[k];
    w[8 + k] = hi[k];
  }
  return Niels8{fe8_from_native(&w[0]), fe8_from_native(&w[kNativeWords]),
                fe8_from_native(&w[2 * kNativeWords])};
}

// The native Niels point p as register rows (for niels8_from_rows).
GOPA_IFMA_INLINE void niels_row(const Niels& p, __m512i& lo, __m512i& hi) {
  const auto* w = reinterpret_cast<const std::uint64_t*>(&p);
  lo = _mm512_loadu_si512(w);
  hi = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1U << (kNielsWords - 8)) - 1), w + 8);
}

}  // namespace gopa::detail::ifma

#endif
