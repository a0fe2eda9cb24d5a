// The AVX-512 IFMA path of the Toeplitz product (ntt.hpp, docs/proofs.md §5.1).
//
// Eleven primes q < 2^50, one at a time, eight 64-bit lanes per instruction, products by
// VPMADD52LUQ/VPMADD52HUQ (the low and the high 52 bits of a 52×52-bit product added to a lane).
//  - Multiplications by a fixed w < q are Shoup's with w' = ⌊w·2^52/q⌋: for a < 2^52, the
//    estimate e = ⌊a·w'/2^52⌋ (high half) is ⌊a·w/q⌋ or one below, so a·w − e·q ∈ [0, 2q) comes
//    out of the low halves mod 2^52: lo(a·w) + lo(e·(2^52 − q)), masked to 52 bits.
//  - Transforms keep lazy ranges (Harvey): the forward one (Cooley–Tukey) values in [0, 4q), the
//    inverse one (Gentleman–Sande) in [0, 2q); 4q < 2^52 is a valid multiplication input.
//  - The pointwise products are Montgomery's, a·b·2^−52 mod q: with m = lo(lo(a·b)·q^−1), the
//    low halves of a·b and m·q agree, so the result is hi(a·b) − hi(m·q) ∈ (−q, q), plus q when
//    negative. The plan's transform of t carries the factors 2^52 (Montgomery), 2^−log (the
//    inverse transform) and (Π q / q_k)^−1 (the CRT), so the inverse transform ends on the CRT
//    digits y_k directly.
//  - Per output, the CRT sum X = Σ y_k·(Π q/q_k) − κ·Π q: κ = ⌊Σ y_k/q_k⌋ from the 20-bit
//    fixed-point sum Σ ⌊y_k·⌊2^72/q_k⌋/2^52⌋ (eleven high halves; each term is at most 1.25 below
//    2^20·y_k/q_k, and X/Π q < 1/4, so adding 2^19 and shifting by 20 gives κ exactly), then
//    Σ y_k·C_k + κ·D with C_k = (Π q/q_k)·2^260 mod ℓ and D = −Π q·2^260 mod ℓ in five 52-bit
//    limbs, and a Montgomery reduction by 2^260 (five 52-bit rounds): a value < ℓ + 2^47, which
//    two masked subtractions of ℓ bring below ℓ after adding y.
//  - A product of size n may be split into parts of x (Shape, shape()): each part's transform
//    is multiplied by the transform of its own block of diagonals, and the products are added
//    before a single inverse transform.
//  - The last three stages of a forward transform, the pointwise products and the first three of
//    the inverse run in registers on 16 values at a time (two vectors, reshuffled between the
//    stages); the stages above them recurse depth first (two stages per pass over a block while
//    both are above the leaves), so that a block of 2^kLeafLog values goes through every
//    remaining stage while it is in the L1 cache.
//
// Constant time in x: loops, shuffles and addresses depend on the sizes only; every reduction
// is a minimum of x and x − m or a blend on a sign; the multiplications take the same time for
// every input.

// First: <immintrin.h> through x86_intrinsics.hpp (field.hpp includes it too).
#include "../group/ifma_target.hpp"
//
#include "ntt_ifma.hpp"

#include <sodium.h>

#include <algorithm>
#include <mutex>

#include "../group/simd.hpp"
#include "gopa/check.hpp"

namespace gopa::sigma::ntt::ifma {

namespace {

using field::u128;
using u64 = std::uint64_t;

// Variable time (public constants only).
u64 mulmod(u64 a, u64 b, u64 q) { return static_cast<u64>(static_cast<u128>(a) * b % q); }
u64 powmod(u64 a, u64 e, u64 q) {
  u64 r = 1;
  for (; e; e >>= 1, a = mulmod(a, a, q))
    if (e & 1) r = mulmod(r, a, q);
  return r;
}
u64 inverse(u64 a, u64 q) { return powmod(a % q, q - 2, q); }
u64 shoup_pre(u64 w, u64 q) { return static_cast<u64>((static_cast<u128>(w) << 52) / q); }

}  // namespace

// Twiddles as in ntt.cpp's Roots (entry 2^s + b: the root of stage s, block b), per prime, with
// Shoup companions for 52-bit lanes.
struct Roots {
  unsigned log = 0;
  std::array<AlignedWords, kPrimes> z, zs, zi, zis;
};

std::shared_ptr<const Roots> roots(unsigned log) {
  static std::mutex mu;
  static std::shared_ptr<const Roots> cached;
  std::lock_guard lock(mu);
  if (cached && cached->log >= log) return cached;
  auto r = std::make_shared<Roots>();
  r->log = log;
  const std::size_t n = std::size_t{1} << log;
  std::vector<u64> zv, ziv;
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const u64 q = kP[k];
    auto &z = r->z[k], &zi = r->zi[k];
    stage_roots(q, kRoot[k], log, zv, ziv);
    z.assign(zv.begin(), zv.end());
    zi.assign(ziv.begin(), ziv.end());
    r->zs[k].assign(n, 0);
    r->zis[k].assign(n, 0);
    for (std::size_t i = 1; i < n; ++i) {
      r->zs[k][i] = shoup_pre(z[i], q);
      r->zis[k][i] = shoup_pre(zi[i], q);
    }
  }
  cached = r;
  return r;
}

Shape shape(std::size_t n) {
  GOPA_CHECK(n >= 1 && n <= kMaxSize, "ntt::ifma::shape: size out of range");
  // Butterflies and pointwise products (about two stages' worth) per transform size, over the
  // splits into 1..4 parts: e.g. n = 21,569 takes two parts of 10,792 columns and transforms of
  // 2^15 (three of them instead of two of 2^16).
  Shape best;
  std::size_t best_cost = 0;
  for (std::size_t parts = 1; parts <= 4; ++parts) {
    const std::size_t width = ((n + parts - 1) / parts + 7) & ~std::size_t{7};
    if ((parts - 1) * width >= n) break;  // a part would be all padding
    unsigned log = kMinLog;
    while ((std::size_t{1} << log) < n + width - 1) ++log;
    const std::size_t cost = (std::size_t{1} << log) * (parts * (log - 1) + log + 2 * parts);
    if (best.parts == 0 || cost < best_cost) {
      best = Shape{n, parts, width, log};
      best_cost = cost;
    }
  }
  return best;
}

#if defined(GOPA_HAVE_IFMA_CODE)

namespace {

constexpr u64 kMask52 = (u64{1} << 52) - 1;
// Bit offsets of the limbs a residue is taken from: limb 0 (48 bits) is below 4q as it is.
constexpr unsigned kLimbAt[5] = {0, 48, 100, 152, 204};
// Depth-first recursion down to blocks of this many values (8 KiB, and as much of the plan).
constexpr unsigned kLeafLog = 10;

// An integer below 2^256 (four 64-bit limbs) in five 52-bit limbs.
std::array<u64, 5> limbs52(const field::Fe& a) {
  return {a.v[0] & kMask52, ((a.v[0] >> 52) | (a.v[1] << 12)) & kMask52,
          ((a.v[1] >> 40) | (a.v[2] << 24)) & kMask52, ((a.v[2] >> 28) | (a.v[3] << 36)) & kMask52,
          a.v[3] >> 16};
}

struct Consts {
  std::array<u64, kPrimes> qinv{};  // q^−1 mod 2^52
  // 2^kLimbAt[l] mod q and Shoup companions (l ≥ 1).
  std::array<std::array<u64, 5>, kPrimes> limb{}, limb_s{};
  std::array<u64, kPrimes> crt_inv{}, crt_inv_s{};  // (Π q / q_k)^−1 mod q_k, companion
  std::array<u64, kPrimes> crt_g{};                 // ⌊2^72 / q_k⌋
  // (Π q / q_k)·2^260 mod ℓ for each k, then −Π q·2^260 mod ℓ: 52-bit limbs.
  std::array<std::array<u64, 5>, kPrimes + 1> crt_c{};
  std::array<u64, 5> ell{};  // ℓ in 52-bit limbs (limb 3 is 0, limb 4 is 2^44)
  u64 ell_ninv = 0;          // −ℓ^−1 mod 2^52
};

const Consts& consts() {
  static const Consts c = [] {
    Consts k;
    // Montgomery forms (field.hpp, R = 2^256) of 16·Π_{j≠k} q_j: their limbs are the integers
    // 16·Π_{j≠k} q_j·2^256 mod ℓ.
    const field::Fe sixteen = field::from_u64(16);
    field::Fe all = sixteen;
    for (std::size_t i = 0; i < kPrimes; ++i) {
      const u64 q = kP[i];
      u64 inv = 1;  // q^−1 mod 2^64 by Newton's iteration
      for (int it = 0; it < 6; ++it) inv *= 2 - q * inv;
      k.qinv[i] = inv & kMask52;
      for (std::size_t l = 1; l < 5; ++l) {
        k.limb[i][l] = powmod(2, kLimbAt[l], q);
        k.limb_s[i][l] = shoup_pre(k.limb[i][l], q);
      }
      u64 others = 1;
      field::Fe mont = sixteen;
      for (std::size_t j = 0; j < kPrimes; ++j) {
        if (j == i) continue;
        others = mulmod(others, kP[j] % q, q);
        mont = field::mul(mont, field::from_u64(kP[j]));
      }
      k.crt_inv[i] = inverse(others, q);
      k.crt_inv_s[i] = shoup_pre(k.crt_inv[i], q);
      k.crt_g[i] = static_cast<u64>((static_cast<u128>(1) << 72) / q);
      k.crt_c[i] = limbs52(mont);
      all = field::mul(all, field::from_u64(q));
    }
    k.crt_c[kPrimes] = limbs52(field::neg(all));
    k.ell = limbs52(field::Fe{{field::kL[0], field::kL[1], field::kL[2], field::kL[3]}});
    k.ell_ninv = field::kN0 & kMask52;
    return k;
  }();
  return c;
}

using V = __m512i;

GOPA_IFMA_INLINE V bc(u64 v) { return _mm512_set1_epi64(static_cast<long long>(v)); }
GOPA_IFMA_INLINE V ld(const u64* p) { return _mm512_loadu_si512(p); }
GOPA_IFMA_INLINE void st(u64* p, V v) { _mm512_storeu_si512(p, v); }
GOPA_IFMA_INLINE V zero() { return _mm512_setzero_si512(); }
GOPA_IFMA_INLINE V add(V a, V b) { return _mm512_add_epi64(a, b); }
GOPA_IFMA_INLINE V sub(V a, V b) { return _mm512_sub_epi64(a, b); }
GOPA_IFMA_INLINE V mlo(V acc, V a, V b) { return _mm512_madd52lo_epu64(acc, a, b); }
GOPA_IFMA_INLINE V mhi(V acc, V a, V b) { return _mm512_madd52hi_epu64(acc, a, b); }
// x − m if x ≥ m, else x: x − m wraps above x exactly when x < m.
GOPA_IFMA_INLINE V csub(V x, V m) { return _mm512_min_epu64(x, sub(x, m)); }
GOPA_IFMA_INLINE V perm2(V a, const u64* idx, V b) {
  return _mm512_permutex2var_epi64(a, ld(idx), b);
}

// Lane shuffles (lane i of the result is lane idx[i] of a:b): interleave and its inverse, and
// the halves of two vectors.
alignas(64) constexpr u64 kInterleave[2][8] = {{0, 8, 1, 9, 2, 10, 3, 11},
                                               {4, 12, 5, 13, 6, 14, 7, 15}};
alignas(64) constexpr u64 kDeinterleave[2][8] = {{0, 2, 4, 6, 8, 10, 12, 14},
                                                 {1, 3, 5, 7, 9, 11, 13, 15}};
alignas(64) constexpr u64 kHalves[2][8] = {{0, 1, 2, 3, 8, 9, 10, 11},
                                           {4, 5, 6, 7, 12, 13, 14, 15}};
// Eight values of four 64-bit limbs (two per vector) to limb-major vectors, and back.
alignas(64) constexpr u64 kGather[2][8] = {{0, 4, 8, 12, 1, 5, 9, 13},
                                           {2, 6, 10, 14, 3, 7, 11, 15}};

// Eight consecutive Fe (AoS) ↔ four vectors, vector l holding limb l of each.
GOPA_IFMA_INLINE void load8(const field::Fe* f, V (&v)[4]) {
  const u64* w = f[0].v;
  const V a0 = ld(w), a1 = ld(w + 8), a2 = ld(w + 16), a3 = ld(w + 24);
  const V t0 = perm2(a0, kGather[0], a1), t1 = perm2(a0, kGather[1], a1);
  const V t2 = perm2(a2, kGather[0], a3), t3 = perm2(a2, kGather[1], a3);
  v[0] = perm2(t0, kHalves[0], t2);
  v[1] = perm2(t0, kHalves[1], t2);
  v[2] = perm2(t1, kHalves[0], t3);
  v[3] = perm2(t1, kHalves[1], t3);
}
GOPA_IFMA_INLINE void store8(field::Fe* f, const V (&v)[4]) {
  u64* w = f[0].v;
  const V t0 = perm2(v[0], kHalves[0], v[1]), t1 = perm2(v[2], kHalves[0], v[3]);
  const V t2 = perm2(v[0], kHalves[1], v[1]), t3 = perm2(v[2], kHalves[1], v[3]);
  st(w, perm2(t0, kGather[0], t1));
  st(w + 8, perm2(t0, kGather[1], t1));
  st(w + 16, perm2(t2, kGather[0], t3));
  st(w + 24, perm2(t2, kGather[1], t3));
}

// Four 64-bit limbs ↔ five 52-bit limbs (the top one < 2^48).
GOPA_IFMA_INLINE void to52(const V (&v)[4], V (&l)[5]) {
  const V m = bc(kMask52);
  l[0] = _mm512_and_si512(v[0], m);
  l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[0], 52), _mm512_slli_epi64(v[1], 12)),
                          m);
  l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[1], 40), _mm512_slli_epi64(v[2], 24)),
                          m);
  l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[2], 28), _mm512_slli_epi64(v[3], 36)),
                          m);
  l[4] = _mm512_srli_epi64(v[3], 16);
}
GOPA_IFMA_INLINE void from52(const V (&l)[5], V (&v)[4]) {
  v[0] = _mm512_or_si512(l[0], _mm512_slli_epi64(l[1], 52));
  v[1] = _mm512_or_si512(_mm512_srli_epi64(l[1], 12), _mm512_slli_epi64(l[2], 40));
  v[2] = _mm512_or_si512(_mm512_srli_epi64(l[2], 24), _mm512_slli_epi64(l[3], 28));
  v[3] = _mm512_or_si512(_mm512_srli_epi64(l[3], 36), _mm512_slli_epi64(l[4], 16));
}

// One prime's constants in every lane, and its twiddles.
struct Prime {
  V q, q2, negq, qinv, mask;
  const u64 *z, *zs, *zi, *zis;
  unsigned log;  // transform size 2^log
  std::size_t k;
};

GOPA_IFMA_INLINE Prime prime(std::size_t k) {
  const u64 q = kP[k];
  Prime p{};
  p.q = bc(q);
  p.q2 = bc(2 * q);
  p.negq = bc((u64{1} << 52) - q);
  p.qinv = bc(consts().qinv[k]);
  p.mask = bc(kMask52);
  p.k = k;
  return p;
}
GOPA_IFMA_INLINE Prime prime(std::size_t k, const Roots& r, unsigned log) {
  Prime p = prime(k);
  p.z = r.z[k].data();
  p.zs = r.zs[k].data();
  p.zi = r.zi[k].data();
  p.zis = r.zis[k].data();
  p.log = log;
  return p;
}

// a·w mod q in [0, 2q) for a < 2^52 (Shoup; ws = ⌊w·2^52/q⌋).
GOPA_IFMA_INLINE V shoup(V a, V w, V ws, const Prime& p) {
  const V e = mhi(zero(), a, ws);
  return _mm512_and_si512(mlo(mlo(zero(), a, w), e, p.negq), p.mask);
}

// Cooley–Tukey: x, y ∈ [0, 4q) → x + w·y, x − w·y ∈ [0, 4q).
GOPA_IFMA_INLINE void fwd_bf(V& x, V& y, V w, V ws, const Prime& p) {
  const V u = csub(x, p.q2);
  const V t = shoup(y, w, ws, p);
  x = add(u, t);
  y = sub(add(u, p.q2), t);
}

// Gentleman–Sande: x, y ∈ [0, 2q) → x + y, (x − y)·w ∈ [0, 2q).
GOPA_IFMA_INLINE void inv_bf(V& x, V& y, V w, V ws, const Prime& p) {
  const V s = add(x, y);
  const V d = sub(add(x, p.q2), y);
  x = csub(s, p.q2);
  y = shoup(d, w, ws, p);
}

// a·b·2^−52 mod q in [0, q) for a < 2^52, b < q (Montgomery).
GOPA_IFMA_INLINE V mont(V a, V b, const Prime& p) {
  const V m = mlo(zero(), mlo(zero(), a, b), p.qinv);
  const V r = sub(mhi(zero(), a, b), mhi(zero(), m, p.q));
  return _mm512_min_epu64(r, add(r, p.q));
}

// One stage on one block: a[0..len) and a[len..2len) with the twiddle of table entry idx.
GOPA_IFMA_INLINE void fwd_stage(u64* a, std::size_t len, std::size_t idx, const Prime& prime) {
  const Prime p = prime;
  const V w = bc(p.z[idx]), ws = bc(p.zs[idx]);
  u64* hi = a + len;
  for (std::size_t j = 0; j < len; j += 8) {
    V x = ld(a + j), y = ld(hi + j);
    fwd_bf(x, y, w, ws, p);
    st(a + j, x);
    st(hi + j, y);
  }
}
GOPA_IFMA_INLINE void inv_stage(u64* a, std::size_t len, std::size_t idx, const Prime& prime) {
  const Prime p = prime;
  const V w = bc(p.zi[idx]), ws = bc(p.zis[idx]);
  u64* hi = a + len;
  for (std::size_t j = 0; j < len; j += 8) {
    V x = ld(a + j), y = ld(hi + j);
    inv_bf(x, y, w, ws, p);
    st(a + j, x);
    st(hi + j, y);
  }
}

// Two stages in one pass over a block of 4·quarter values (blocks above the L1 cache): stage s
// with the twiddle of entry i0 = 2^s + b, then stage s + 1 on both halves (entries i1, i1 + 1
// with i1 = 2^(s+1) + 2b); the inverse in the opposite order.
GOPA_IFMA_INLINE void fwd_stage2(u64* a, std::size_t quarter, std::size_t i0, std::size_t i1,
                                 const Prime& prime) {
  const Prime p = prime;
  const V w0 = bc(p.z[i0]), ws0 = bc(p.zs[i0]), w1 = bc(p.z[i1]), ws1 = bc(p.zs[i1]),
          w2 = bc(p.z[i1 + 1]), ws2 = bc(p.zs[i1 + 1]);
  for (std::size_t j = 0; j < quarter; j += 8) {
    V x0 = ld(a + j), x1 = ld(a + quarter + j), x2 = ld(a + 2 * quarter + j),
      x3 = ld(a + 3 * quarter + j);
    fwd_bf(x0, x2, w0, ws0, p);
    fwd_bf(x1, x3, w0, ws0, p);
    fwd_bf(x0, x1, w1, ws1, p);
    fwd_bf(x2, x3, w2, ws2, p);
    st(a + j, x0);
    st(a + quarter + j, x1);
    st(a + 2 * quarter + j, x2);
    st(a + 3 * quarter + j, x3);
  }
}
GOPA_IFMA_INLINE void inv_stage2(u64* a, std::size_t quarter, std::size_t i0, std::size_t i1,
                                 const Prime& prime) {
  const Prime p = prime;
  const V w0 = bc(p.zi[i0]), ws0 = bc(p.zis[i0]), w1 = bc(p.zi[i1]), ws1 = bc(p.zis[i1]),
          w2 = bc(p.zi[i1 + 1]), ws2 = bc(p.zis[i1 + 1]);
  for (std::size_t j = 0; j < quarter; j += 8) {
    V x0 = ld(a + j), x1 = ld(a + quarter + j), x2 = ld(a + 2 * quarter + j),
      x3 = ld(a + 3 * quarter + j);
    inv_bf(x0, x1, w1, ws1, p);
    inv_bf(x2, x3, w2, ws2, p);
    inv_bf(x0, x2, w0, ws0, p);
    inv_bf(x1, x3, w0, ws0, p);
    st(a + j, x0);
    st(a + quarter + j, x1);
    st(a + 2 * quarter + j, x2);
    st(a + 3 * quarter + j, x3);
  }
}

enum class Mode { kForward, kInverse, kConvolve };

// Twiddles of the stage with blocks of 8 (4) values for 16 values: the 2 (4) consecutive table
// entries repeated over the lanes (a broadcast load).
GOPA_IFMA_INLINE V twiddles2(const u64* t) {
  return _mm512_broadcast_i64x2(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t)));
}
GOPA_IFMA_INLINE V twiddles4(const u64* t) {
  return _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(t)));
}

// The last three stages of a transform on the values 16g..16g+15 (v_0..v_15), in two vectors
// (lo, hi) that hold the pairs of a stage in the same lane. Stage with distance 4 (blocks 2g,
// 2g + 1): lane i holds v_{8(i%2) + i/2} and its pair; distance 2 (blocks 4g..4g+3):
// v_{4(i%4) + i/4}; distance 1 (blocks 8g..8g+7): v_{2i}. So lane i's block is i mod 2, 4, 8
// (the twiddles are repeated table entries), and each layout is the interleave of the previous
// one's two vectors. Between the transforms the values stay in the last layout, v_{2j} at e[j]
// and v_{2j+1} at e[8 + j] (the plan's transforms of t too).
GOPA_IFMA_INLINE void fwd3(const u64* e, std::size_t g, const Prime& p, V& lo, V& hi) {
  const std::size_t n = std::size_t{1} << p.log;
  const std::size_t s4 = n / 8 + 2 * g, s2 = n / 4 + 4 * g, s1 = n / 2 + 8 * g;  // table entries
  const V a = ld(e), b = ld(e + 8);
  lo = perm2(a, kInterleave[0], b);
  hi = perm2(a, kInterleave[1], b);
  fwd_bf(lo, hi, twiddles2(p.z + s4), twiddles2(p.zs + s4), p);
  V lo2 = perm2(lo, kInterleave[0], hi), hi2 = perm2(lo, kInterleave[1], hi);
  fwd_bf(lo2, hi2, twiddles4(p.z + s2), twiddles4(p.zs + s2), p);
  lo = perm2(lo2, kInterleave[0], hi2);
  hi = perm2(lo2, kInterleave[1], hi2);
  fwd_bf(lo, hi, ld(p.z + s1), ld(p.zs + s1), p);
}
GOPA_IFMA_INLINE void inv3(V lo, V hi, std::size_t g, const Prime& p, u64* e) {
  const std::size_t n = std::size_t{1} << p.log;
  const std::size_t s4 = n / 8 + 2 * g, s2 = n / 4 + 4 * g, s1 = n / 2 + 8 * g;
  inv_bf(lo, hi, ld(p.zi + s1), ld(p.zis + s1), p);
  V lo2 = perm2(lo, kDeinterleave[0], hi), hi2 = perm2(lo, kDeinterleave[1], hi);
  inv_bf(lo2, hi2, twiddles4(p.zi + s2), twiddles4(p.zis + s2), p);
  lo = perm2(lo2, kDeinterleave[0], hi2);
  hi = perm2(lo2, kDeinterleave[1], hi2);
  inv_bf(lo, hi, twiddles2(p.zi + s4), twiddles2(p.zis + s4), p);
  st(e, perm2(lo, kDeinterleave[0], hi));
  st(e + 8, perm2(lo, kDeinterleave[1], hi));
}

// Transforms of 2^log values at a + j·stride, j < parts (parts = 1 unless M is kConvolve):
// kForward and kInverse transform a; kConvolve transforms every part, multiplies part j by the
// plan's th + j·stride, adds the products into a and transforms a back (the parts are the
// blocks of x of a Toeplitz product, docs/proofs.md §5.1).
struct Parts {
  u64* a;
  const u64* th;
  std::size_t stride, count;
};

// The values 16g..16g+15 of every part through the last stages (see fwd3, inv3).
template <Mode M>
GOPA_IFMA_INLINE void group(const Parts& x, std::size_t off, std::size_t g, const Prime& p) {
  V lo, hi;
  if constexpr (M == Mode::kForward) {
    fwd3(x.a + off, g, p, lo, hi);
    st(x.a + off, lo);
    st(x.a + off + 8, hi);
  } else if constexpr (M == Mode::kInverse) {
    inv3(ld(x.a + off), ld(x.a + off + 8), g, p, x.a + off);
  } else {
    // Each product < q: the sum of up to two is a valid inverse input (< 2q), of up to four
    // after subtracting 2q.
    fwd3(x.a + off, g, p, lo, hi);
    V slo = mont(lo, ld(x.th + off), p), shi = mont(hi, ld(x.th + off + 8), p);
    for (std::size_t j = 1; j < x.count; ++j) {
      fwd3(x.a + j * x.stride + off, g, p, lo, hi);
      slo = add(slo, mont(lo, ld(x.th + j * x.stride + off), p));
      shi = add(shi, mont(hi, ld(x.th + j * x.stride + off + 8), p));
    }
    if (x.count > 2) {
      slo = csub(slo, p.q2);
      shi = csub(shi, p.q2);
    }
    inv3(slo, shi, g, p, x.a + off);
  }
}

// Block b of size 2^lg of stage log − lg (b counts the blocks of that stage) at offset off of
// the parts, every remaining stage. `first_done`: the first forward stage of the block is done.
template <Mode M>
GOPA_IFMA_TARGET void transform_block(const Parts& x, std::size_t off, unsigned lg, std::size_t b,
                                      bool first_done, const Prime& prime) {
  const Prime p = prime;  // in registers: the stores below cannot change a local
  const unsigned s = p.log - lg;
  if (lg >= kLeafLog + 2 && !first_done) {
    const std::size_t quarter = std::size_t{1} << (lg - 2);
    const std::size_t i0 = (std::size_t{1} << s) + b, i1 = (std::size_t{1} << (s + 1)) + 2 * b;
    if constexpr (M != Mode::kInverse) {
      for (std::size_t j = 0; j < x.count; ++j)
        fwd_stage2(x.a + j * x.stride + off, quarter, i0, i1, p);
    }
    for (std::size_t c = 0; c < 4; ++c)
      transform_block<M>(x, off + c * quarter, lg - 2, 4 * b + c, false, p);
    if constexpr (M != Mode::kForward) inv_stage2(x.a + off, quarter, i0, i1, p);
    return;
  }
  if (lg > kLeafLog) {
    const std::size_t half = std::size_t{1} << (lg - 1);
    if constexpr (M != Mode::kInverse) {
      if (!first_done)
        for (std::size_t j = 0; j < x.count; ++j)
          fwd_stage(x.a + j * x.stride + off, half, (std::size_t{1} << s) + b, p);
    }
    transform_block<M>(x, off, lg - 1, 2 * b, false, p);
    transform_block<M>(x, off + half, lg - 1, 2 * b + 1, false, p);
    if constexpr (M != Mode::kForward) inv_stage(x.a + off, half, (std::size_t{1} << s) + b, p);
    return;
  }
  // Stages s..log−4 (blocks of ≥ 16 values), then the last three per 16 values.
  if constexpr (M != Mode::kInverse) {
    for (std::size_t j = 0; j < x.count; ++j) {
      for (unsigned t = s + (first_done ? 1 : 0); t + 3 < p.log; ++t) {
        const std::size_t len = std::size_t{1} << (p.log - t - 1),
                          blocks = std::size_t{1} << (t - s);
        for (std::size_t c = 0; c < blocks; ++c)
          fwd_stage(x.a + j * x.stride + off + 2 * len * c, len,
                    (std::size_t{1} << t) + (b << (t - s)) + c, p);
      }
    }
  }
  const std::size_t groups = std::size_t{1} << (lg - 4), g0 = b << (lg - 4);
  for (std::size_t g = 0; g < groups; ++g) group<M>(x, off + 16 * g, g0 + g, p);
  if constexpr (M != Mode::kForward) {
    for (unsigned t = p.log - 3; t-- > s;) {
      const std::size_t len = std::size_t{1} << (p.log - t - 1), blocks = std::size_t{1} << (t - s);
      for (std::size_t c = 0; c < blocks; ++c)
        inv_stage(x.a + off + 2 * len * c, len, (std::size_t{1} << t) + (b << (t - s)) + c, p);
    }
  }
}

// Residue limbs of count values (a multiple of 8 read, zeros past count): limb l of value i at
// out[l·stride + i], the bits kLimbAt[l].. of the 256-bit integer.
GOPA_IFMA_TARGET void split(std::span<const field::Fe> f, u64* out, std::size_t stride) {
  const V m48 = bc((u64{1} << 48) - 1), m52 = bc(kMask52);
  for (std::size_t i = 0; i < f.size(); i += 8) {
    field::Fe tail[8];
    const field::Fe* src = f.data() + i;
    const bool partial = f.size() - i < 8;
    if (partial) {
      std::copy(src, f.data() + f.size(), tail);
      src = tail;
    }
    V v[4];
    load8(src, v);
    st(out + i, _mm512_and_si512(v[0], m48));
    st(out + stride + i,
       _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[0], 48), _mm512_slli_epi64(v[1], 16)),
                        m52));
    st(out + 2 * stride + i,
       _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[1], 36), _mm512_slli_epi64(v[2], 28)),
                        m52));
    st(out + 3 * stride + i,
       _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(v[2], 24), _mm512_slli_epi64(v[3], 40)),
                        m52));
    st(out + 4 * stride + i, _mm512_srli_epi64(v[3], 12));
    if (partial) sodium_memzero(tail, sizeof tail);
  }
}

// The constants of residue() for one prime, in every lane.
struct ResidueConsts {
  V c[5], cs[5], q8, q4;  // 2^kLimbAt[j] mod q and Shoup companions (j ≥ 1); 8q, 4q
};
GOPA_IFMA_INLINE ResidueConsts residue_consts(const Prime& p) {
  const Consts& c = consts();
  ResidueConsts r;
  for (std::size_t j = 0; j < 5; ++j) {
    r.c[j] = bc(c.limb[p.k][j]);
    r.cs[j] = bc(c.limb_s[p.k][j]);
  }
  r.q8 = _mm512_slli_epi64(p.q, 3);
  r.q4 = _mm512_slli_epi64(p.q, 2);
  return r;
}

// The values with limbs l (split()) mod q, in [0, 4q): limb 0 (< 2^48 < 4q) plus four Shoup
// products T_j < 2q, then masked subtractions of 8q and 4q. The low halves of two products are
// summed before one mask: T_1 + T_2 < 4q < 2^52 is their sum mod 2^52.
GOPA_IFMA_INLINE V residue(const u64* l, std::size_t stride, std::size_t i, const ResidueConsts& r,
                           const Prime& p) {
  V x[5], e[5], pair[2];
  for (std::size_t j = 1; j < 5; ++j) {
    x[j] = ld(l + j * stride + i);
    e[j] = mhi(zero(), x[j], r.cs[j]);
  }
  for (std::size_t h = 0; h < 2; ++h) {
    V acc = zero();
    for (std::size_t j = 1 + 2 * h; j < 3 + 2 * h; ++j)
      acc = mlo(mlo(acc, x[j], r.c[j]), e[j], p.negq);
    pair[h] = _mm512_and_si512(acc, p.mask);
  }
  const V s = add(ld(l + i), add(pair[0], pair[1]));
  return csub(csub(s, r.q8), r.q4);
}

// Conditional subtraction of ℓ from five normalised 52-bit limbs (the top one < 2^63).
GOPA_IFMA_INLINE void csub_ell(V (&t)[5], const Consts& c) {
  const V m = bc(kMask52);
  V d[5];
  V borrow = zero();
  for (int j = 0; j < 5; ++j) {
    d[j] = sub(sub(t[j], bc(c.ell[static_cast<std::size_t>(j)])), borrow);
    borrow = _mm512_srli_epi64(d[j], 63);
    if (j < 4) d[j] = _mm512_and_si512(d[j], m);
  }
  const __mmask8 keep = _mm512_movepi64_mask(d[4]);  // t < ℓ: the subtraction went negative
  for (int j = 0; j < 5; ++j) t[j] = _mm512_mask_blend_epi64(keep, d[j], t[j]);
}

// Carries of five 52-bit limbs up to the top one.
GOPA_IFMA_INLINE void normalise(V (&t)[5]) {
  const V m = bc(kMask52);
  for (int j = 0; j < 4; ++j) {
    t[j + 1] = add(t[j + 1], _mm512_srli_epi64(t[j], 52));
    t[j] = _mm512_and_si512(t[j], m);
  }
}

// y[i] += X_i mod ℓ for eight outputs, X_i the integer (< Π q / 4) with CRT digits
// y_k = X_i·(Π q/q_k)^−1 mod q_k at digits[k·stride + i], each in [0, 2q_k).
GOPA_IFMA_INLINE void crt8(const u64* digits, std::size_t stride, field::Fe* y) {
  const Consts& c = consts();
  V lo[6], hi[6];  // column j: lo[j] + hi[j], weight 2^(52j)
  for (int j = 0; j < 6; ++j) lo[j] = hi[j] = zero();
  V est = zero();
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const V d = csub(ld(digits + k * stride), bc(kP[k]));
    est = mhi(est, d, bc(c.crt_g[k]));
    for (std::size_t j = 0; j < 5; ++j) {
      const V w = bc(c.crt_c[k][j]);
      lo[j] = mlo(lo[j], d, w);
      hi[j + 1] = mhi(hi[j + 1], d, w);
    }
  }
  const V kappa = _mm512_srli_epi64(add(est, bc(u64{1} << 19)), 20);
  for (std::size_t j = 0; j < 5; ++j) {
    const V w = bc(c.crt_c[kPrimes][j]);
    lo[j] = mlo(lo[j], kappa, w);
    hi[j + 1] = mhi(hi[j + 1], kappa, w);
  }
  // Montgomery reduction by 2^260: five rounds add m·ℓ, m = −col·ℓ^−1 mod 2^52, clearing the
  // low 52 bits of a column and carrying the rest up.
  V col[10];
  col[0] = lo[0];
  for (int j = 1; j < 5; ++j) col[j] = add(lo[j], hi[j]);
  col[5] = hi[5];
  for (int j = 6; j < 10; ++j) col[j] = zero();
  const V l0 = bc(c.ell[0]), l1 = bc(c.ell[1]), l2 = bc(c.ell[2]), l4 = bc(c.ell[4]);
  const V ninv = bc(c.ell_ninv);
  for (int i = 0; i < 5; ++i) {
    const V m = mlo(zero(), col[i], ninv);
    col[i] = mlo(col[i], m, l0);
    col[i + 1] = mlo(mhi(col[i + 1], m, l0), m, l1);
    col[i + 2] = mlo(mhi(col[i + 2], m, l1), m, l2);
    col[i + 3] = mhi(col[i + 3], m, l2);
    col[i + 4] = mlo(col[i + 4], m, l4);
    col[i + 5] = mhi(col[i + 5], m, l4);
    col[i + 1] = add(col[i + 1], _mm512_srli_epi64(col[i], 52));
  }
  V t[5] = {col[5], col[6], col[7], col[8], col[9]};
  normalise(t);  // < ℓ + 2^47
  V yv[4], yl[5];
  load8(y, yv);
  to52(yv, yl);
  for (int j = 0; j < 5; ++j) t[j] = add(t[j], yl[j]);
  normalise(t);  // < 2ℓ + 2^47
  csub_ell(t, c);
  csub_ell(t, c);
  from52(t, yv);
  store8(y, yv);
}

// y[i] += X_i mod ℓ for i < y.size() (crt8 over groups of eight; digits padded to stride).
GOPA_IFMA_TARGET void crt_add(const u64* digits, std::size_t stride, std::span<field::Fe> y) {
  std::size_t i = 0;
  for (; i + 8 <= y.size(); i += 8) crt8(digits + i, stride, y.data() + i);
  if (i < y.size()) {
    field::Fe tail[8];
    std::copy(y.begin() + static_cast<std::ptrdiff_t>(i), y.end(), tail);
    crt8(digits + i, stride, tail);
    std::copy(tail, tail + (y.size() - i), y.begin() + static_cast<std::ptrdiff_t>(i));
    sodium_memzero(tail, sizeof tail);
  }
}

std::size_t round8(std::size_t n) { return (n + 7) & ~std::size_t{7}; }

// Uninitialised words on 64-byte boundaries, wiped when released (they hold residues of x).
class Scratch {
 public:
  explicit Scratch(std::size_t n)
      : n_(n), p_(static_cast<u64*>(::operator new(n * sizeof(u64), std::align_val_t{64}))) {}
  ~Scratch() {
    sodium_memzero(p_, n_ * sizeof(u64));
    ::operator delete(p_, std::align_val_t{64});
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  [[nodiscard]] u64* data() const noexcept { return p_; }

 private:
  std::size_t n_;
  u64* p_;
};

}  // namespace

// Block j of the diagonals: t_j[r] = t[n − width·(j + 1) + r], r < n + width − 1 (zero outside
// t), so that y[i] = Σ_j Σ_{c<width} t_j[width − 1 + i − c]·x[j·width + c].
std::vector<field::Fe> window(std::span<const field::Fe> t, const Shape& s, std::size_t j) {
  std::vector<field::Fe> w(s.n + s.width - 1);
  for (std::size_t r = 0; r < w.size(); ++r) {
    const std::size_t at = s.n + r;  // the index plus width·(j + 1)
    if (at >= s.width * (j + 1) && at - s.width * (j + 1) < t.size())
      w[r] = t[at - s.width * (j + 1)];
  }
  return w;
}

GOPA_IFMA_TARGET AlignedWords transform(std::span<const field::Fe> t, const Shape& s,
                                        const Roots& r) {
  const std::size_t big = std::size_t{1} << s.log, len = s.n + s.width - 1, c8 = round8(len);
  GOPA_CHECK(t.size() == 2 * s.n - 1 && len <= big && s.log <= r.log,
             "ntt::ifma::transform: sizes");
  AlignedWords out(kPrimes * s.parts * big, 0);
  const Scratch limbs(5 * c8);
  for (std::size_t j = 0; j < s.parts; ++j) {
    split(window(t, s, j), limbs.data(), c8);
    for (std::size_t k = 0; k < kPrimes; ++k) {
      const Prime p = prime(k, r, s.log);
      const ResidueConsts rc = residue_consts(p);
      u64* a = out.data() + (k * s.parts + j) * big;
      for (std::size_t i = 0; i < c8; i += 8) st(a + i, residue(limbs.data(), c8, i, rc, p));
      transform_block<Mode::kForward>(Parts{a, nullptr, big, 1}, 0, s.log, 0, false, p);
      // Times 2^52 (for mont()), 2^−log and the CRT factor: a Montgomery product by 2^104·(…).
      const u64 q = kP[k];
      const u64 f =
          mulmod(mulmod(powmod(2, 104, q), inverse(u64{1} << s.log, q), q), consts().crt_inv[k], q);
      for (std::size_t i = 0; i < big; i += 8) st(a + i, mont(ld(a + i), bc(f), p));
    }
  }
  return out;
}

GOPA_IFMA_TARGET std::vector<field::Fe> untransform(std::span<const u64> that, const Shape& s,
                                                    const Roots& r) {
  const std::size_t big = std::size_t{1} << s.log, len = s.n + s.width - 1, c8 = round8(len);
  GOPA_CHECK(len <= big && s.log <= r.log && that.size() == kPrimes * s.parts * big,
             "ntt::ifma::untransform: sizes");
  std::vector<field::Fe> t(2 * s.n - 1);
  const Scratch buf(big), digits(kPrimes * c8);
  for (std::size_t j = 0; j < s.parts; ++j) {
    for (std::size_t k = 0; k < kPrimes; ++k) {
      const Prime p = prime(k, r, s.log);
      const u64* th = that.data() + (k * s.parts + j) * big;
      std::copy(th, th + big, buf.data());
      // 2^log times the values times 2^52·2^−log·(CRT factor): the CRT digits times 2^52.
      transform_block<Mode::kInverse>(Parts{buf.data(), nullptr, big, 1}, 0, s.log, 0, false, p);
      for (std::size_t i = 0; i < c8; i += 8)
        st(digits.data() + k * c8 + i, mont(ld(buf.data() + i), bc(1), p));
    }
    std::vector<field::Fe> w(len);
    crt_add(digits.data(), c8, w);
    for (std::size_t i = 0; i < t.size(); ++i) {
      const std::size_t at = i + s.width * (j + 1) - s.n;  // its index in window j
      if (i + s.width * (j + 1) >= s.n && at < len) t[i] = w[at];
    }
  }
  return t;
}

GOPA_IFMA_TARGET void apply(std::span<const field::Fe> x, std::span<field::Fe> y,
                            std::span<const u64> that, const Shape& s, const Roots& r) {
  const std::size_t n = s.n, w = s.width, big = std::size_t{1} << s.log, half = big / 2;
  const std::size_t n8 = round8(n), row = s.parts * w;
  GOPA_CHECK(x.size() == n && y.size() == n && w % 8 == 0 && row >= n8 && 2 * w <= big &&
                 n + w - 1 <= big && s.log <= r.log && that.size() == kPrimes * s.parts * big,
             "ntt::ifma::apply: sizes");
  const Scratch limbs(5 * row), buf(s.parts * big), digits(kPrimes * n8);
  split(x, limbs.data(), row);
  for (std::size_t l = 0; l < 5; ++l)
    std::fill(limbs.data() + l * row + n8, limbs.data() + (l + 1) * row, u64{0});
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const Prime p = prime(k, r, s.log);
    const ResidueConsts rc = residue_consts(p);
    for (std::size_t j = 0; j < s.parts; ++j) {
      // Part j occupies the lower half (width ≤ 2^(log−1)), so the first forward stage copies it
      // to the upper half: written here with the residues.
      u64* a = buf.data() + j * big;
      for (std::size_t i = 0; i < w; i += 8) {
        const V v = residue(limbs.data(), row, j * w + i, rc, p);
        st(a + i, v);
        st(a + half + i, v);
      }
      std::fill(a + w, a + half, u64{0});
      std::fill(a + half + w, a + big, u64{0});
    }
    transform_block<Mode::kConvolve>(
        Parts{buf.data(), that.data() + k * s.parts * big, big, s.parts}, 0, s.log, 0, true, p);
    // Entries width−1 .. width+n−2 of the cyclic convolution (no wrap-around:
    // 2^log ≥ n + width − 1).
    u64* d = digits.data() + k * n8;
    std::copy(buf.data() + w - 1, buf.data() + w - 1 + n, d);
    std::fill(d + n, d + n8, u64{0});
  }
  crt_add(digits.data(), n8, y);
}

GOPA_IFMA_TARGET std::array<u64, kPrimes> residues(const field::Fe& a) {
  GOPA_CHECK(gopa::detail::ifma_supported(), "ntt::ifma::residues: no AVX-512 IFMA");
  const Scratch limbs(5 * 8);
  split(std::span<const field::Fe>(&a, 1), limbs.data(), 8);
  std::array<u64, kPrimes> out{};
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const Prime p = prime(k);
    const V v = csub(csub(residue(limbs.data(), 8, 0, residue_consts(p), p), p.q2), p.q);
    alignas(64) u64 lanes[8];
    st(lanes, v);
    out[k] = lanes[0];
    sodium_memzero(lanes, sizeof lanes);
  }
  return out;
}

GOPA_IFMA_TARGET field::Fe reconstruct(const std::array<u64, kPrimes>& r) {
  GOPA_CHECK(gopa::detail::ifma_supported(), "ntt::ifma::reconstruct: no AVX-512 IFMA");
  const Consts& c = consts();
  const Scratch digits(kPrimes * 8);
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const Prime p = prime(k);
    st(digits.data() + 8 * k, shoup(bc(r[k]), bc(c.crt_inv[k]), bc(c.crt_inv_s[k]), p));
  }
  field::Fe out[8] = {};
  crt8(digits.data(), 8, out);
  const field::Fe x = out[0];
  sodium_memzero(out, sizeof out);
  return x;
}

#else  // no IFMA code in this build: ifma_supported() is false, nothing here is called

AlignedWords transform(std::span<const field::Fe>, const Shape&, const Roots&) {
  GOPA_CHECK(false, "ntt::ifma: built without AVX-512 IFMA code");
  return {};
}
std::vector<field::Fe> untransform(std::span<const std::uint64_t>, const Shape&, const Roots&) {
  GOPA_CHECK(false, "ntt::ifma: built without AVX-512 IFMA code");
  return {};
}
void apply(std::span<const field::Fe>, std::span<field::Fe>, std::span<const std::uint64_t>,
           const Shape&, const Roots&) {
  GOPA_CHECK(false, "ntt::ifma: built without AVX-512 IFMA code");
}
std::array<std::uint64_t, kPrimes> residues(const field::Fe&) {
  GOPA_CHECK(false, "ntt::ifma: built without AVX-512 IFMA code");
  return {};
}
field::Fe reconstruct(const std::array<std::uint64_t, kPrimes>&) {
  GOPA_CHECK(false, "ntt::ifma: built without AVX-512 IFMA code");
  return {};
}

#endif

}  // namespace gopa::sigma::ntt::ifma
