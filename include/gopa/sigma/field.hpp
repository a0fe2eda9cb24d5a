// gopa/sigma/field.hpp — implementation detail of the sigma layer: fast constant-time
// arithmetic mod ℓ in Montgomery form (R = 2^256) for the hot loops of provers and verifiers
// (polynomial extrapolation, Lagrange coefficients, verification coefficients), where
// libdecaf's generic scalar multiplication dominated. Every operation is branch-free and
// index-free in the values, so it may carry secrets. Conversions read and write the limbs of
// decaf's public scalar struct (canonical little-endian 64-bit limbs).
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "gopa/group.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace gopa::sigma::field {

struct Fe {
  std::uint64_t v[4] = {0, 0, 0, 0};
};

inline constexpr std::uint64_t kL[4] = {0x5812631a5cf5d3edULL, 0x14def9dea2f79cd6ULL, 0,
                                        0x1000000000000000ULL};
inline constexpr std::uint64_t kN0 = 0xd2b51da312547e1bULL;  // −ℓ^{-1} mod 2^64
inline constexpr Fe kR2{{0xa40611e3449c0f01ULL, 0xd00e1ba768859347ULL, 0xceec73d217f5be65ULL,
                         0x0399411b7c309a3dULL}};

__extension__ typedef unsigned __int128 u128;  // GCC/Clang extension, 64×64→128 products

// r = a − ℓ if a ≥ ℓ (a < 2ℓ, with a possible 5th limb `hi`), constant time.
inline void reduce_once(Fe& r, const std::uint64_t a[4], std::uint64_t hi) {
  std::uint64_t d[4];
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 t = static_cast<u128>(a[i]) - kL[i] - borrow;
    d[i] = static_cast<std::uint64_t>(t);
    borrow = static_cast<std::uint64_t>(t >> 64) & 1U;
  }
  // Keep a when (hi:a) < ℓ, i.e. the subtraction borrowed out of the top with hi = 0.
  const std::uint64_t keep_a = (0 - (borrow & ~hi & 1U));
  for (int i = 0; i < 4; ++i) r.v[i] = (a[i] & keep_a) | (d[i] & ~keep_a);
}

inline Fe mul(const Fe& a, const Fe& b) {
  std::uint64_t t[6] = {0, 0, 0, 0, 0, 0};
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    u128 c = 0;
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      c = static_cast<u128>(a.v[j]) * b.v[i] + t[j] + (c >> 64);
      t[j] = static_cast<std::uint64_t>(c);
    }
    c = static_cast<u128>(t[4]) + (c >> 64);
    t[4] = static_cast<std::uint64_t>(c);
    t[5] = static_cast<std::uint64_t>(c >> 64);
    const std::uint64_t m = t[0] * kN0;
    c = static_cast<u128>(m) * kL[0] + t[0];
#pragma GCC unroll 3
    for (int j = 1; j < 4; ++j) {
      c = static_cast<u128>(m) * kL[j] + t[j] + (c >> 64);
      t[j - 1] = static_cast<std::uint64_t>(c);
    }
    c = static_cast<u128>(t[4]) + (c >> 64);
    t[3] = static_cast<std::uint64_t>(c);
    t[4] = t[5] + static_cast<std::uint64_t>(c >> 64);
  }
  Fe r;
  reduce_once(r, t, t[4]);
  return r;
}

#if defined(__x86_64__)

using ull = unsigned long long;  // the carry intrinsics' limb type

// Whether this CPU has MULX and ADCX/ADOX (BMI2 + ADX) and the build uses them (GOPA_ADX, see
// CMakeLists.txt): read once; the choice depends on the machine only, never on data.
#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
// GOPA_ASSUME_ADX=1 in the environment overrides the CPU's answer (for valgrind, which runs these
// instructions but does not report them; see tests/consttime).
inline const bool kHaveAdx = [] {
  __builtin_cpu_init();  // may run before the runtime's own CPU detection
  return (__builtin_cpu_supports("bmi2") && __builtin_cpu_supports("adx")) ||
         std::getenv("GOPA_ASSUME_ADX") != nullptr;
}();
#else
inline constexpr bool kHaveAdx = false;
#endif

// t[0..7] = a·b (the 512-bit product), operand scanning with two interleaved carry chains
// (ADCX/ADOX). Needs kHaveAdx. Constant time.
#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
[[gnu::always_inline]] inline void mul_wide_adx(const Fe& a, const Fe& b, std::uint64_t t[8]) {
  std::uint64_t lo, hi, z;
  __asm__(
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %[t0], %[t1]\n\t"
      "mulxq 8(%[a]), %[lo], %[t2]\n\t"
      "addq %[lo], %[t1]\n\t"
      "mulxq 16(%[a]), %[lo], %[t3]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "mulxq 24(%[a]), %[lo], %[t4]\n\t"
      "adcq %[lo], %[t3]\n\t"
      "adcq $0, %[t4]\n\t"
      "movq 8(%[b]), %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq 0(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq 8(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq 24(%[a]), %[lo], %[t5]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[z], %[t5]\n\t"
      "adcxq %[z], %[t5]\n\t"
      "movq 16(%[b]), %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq 0(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq 8(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq 24(%[a]), %[lo], %[t6]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[z], %[t6]\n\t"
      "adcxq %[z], %[t6]\n\t"
      "movq 24(%[b]), %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq 0(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "mulxq 8(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t4]\n\t"
      "adoxq %[hi], %[t5]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t5]\n\t"
      "adoxq %[hi], %[t6]\n\t"
      "mulxq 24(%[a]), %[lo], %[t7]\n\t"
      "adcxq %[lo], %[t6]\n\t"
      "adoxq %[z], %[t7]\n\t"
      "adcxq %[z], %[t7]\n\t"
      : [t0] "=&r"(t[0]), [t1] "=&r"(t[1]), [t2] "=&r"(t[2]), [t3] "=&r"(t[3]),
        [t4] "=&r"(t[4]), [t5] "=&r"(t[5]), [t6] "=&r"(t[6]), [t7] "=&r"(t[7]), [lo] "=&r"(lo),
        [hi] "=&r"(hi), [z] "=&r"(z)
      : [a] "r"(a.v), [b] "r"(b.v), "m"(a), "m"(b)
      : "rdx", "cc");
}
#endif

// r = (s < ℓ) ? s : s − ℓ for s < 2ℓ, constant time.
[[gnu::always_inline]] inline Fe select_reduced(ull s0, ull s1, ull s2, ull s3) {
  ull d0, d1, d2, d3;
  unsigned char br = _subborrow_u64(0, s0, kL[0], &d0);
  br = _subborrow_u64(br, s1, kL[1], &d1);
  br = _subborrow_u64(br, s2, kL[2], &d2);
  br = _subborrow_u64(br, s3, kL[3], &d3);
  const std::uint64_t keep = 0 - static_cast<std::uint64_t>(br);  // s < ℓ: keep s
  return Fe{{(s0 & keep) | (d0 & ~keep), (s1 & keep) | (d1 & ~keep), (s2 & keep) | (d2 & ~keep),
             (s3 & keep) | (d3 & ~keep)}};
}

// Inputs < ℓ < 2^253, so the sum has no fifth limb.
inline Fe add(const Fe& a, const Fe& b) {
  ull s0, s1, s2, s3;
  unsigned char c = _addcarry_u64(0, a.v[0], b.v[0], &s0);
  c = _addcarry_u64(c, a.v[1], b.v[1], &s1);
  c = _addcarry_u64(c, a.v[2], b.v[2], &s2);
  (void)_addcarry_u64(c, a.v[3], b.v[3], &s3);
  return select_reduced(s0, s1, s2, s3);
}

inline Fe sub(const Fe& a, const Fe& b) {
  ull d0, d1, d2, d3, r0, r1, r2, r3;
  unsigned char br = _subborrow_u64(0, a.v[0], b.v[0], &d0);
  br = _subborrow_u64(br, a.v[1], b.v[1], &d1);
  br = _subborrow_u64(br, a.v[2], b.v[2], &d2);
  br = _subborrow_u64(br, a.v[3], b.v[3], &d3);
  const std::uint64_t m = 0 - static_cast<std::uint64_t>(br);  // add ℓ back when a < b
  unsigned char c = _addcarry_u64(0, d0, kL[0] & m, &r0);
  c = _addcarry_u64(c, d1, kL[1] & m, &r1);
  c = _addcarry_u64(c, d2, kL[2] & m, &r2);
  (void)_addcarry_u64(c, d3, kL[3] & m, &r3);
  return Fe{{r0, r1, r2, r3}};
}

#else

inline Fe add(const Fe& a, const Fe& b) {
  std::uint64_t s[4];
  u128 c = 0;
  for (int i = 0; i < 4; ++i) {
    c = static_cast<u128>(a.v[i]) + b.v[i] + (c >> 64);
    s[i] = static_cast<std::uint64_t>(c);
  }
  Fe r;
  reduce_once(r, s, static_cast<std::uint64_t>(c >> 64));
  return r;
}

inline Fe sub(const Fe& a, const Fe& b) {
  std::uint64_t d[4];
  std::uint64_t borrow = 0;
  for (int i = 0; i < 4; ++i) {
    const u128 t = static_cast<u128>(a.v[i]) - b.v[i] - borrow;
    d[i] = static_cast<std::uint64_t>(t);
    borrow = static_cast<std::uint64_t>(t >> 64) & 1U;
  }
  const std::uint64_t mask = 0 - borrow;  // add ℓ back when a < b
  u128 c = 0;
  Fe r;
  for (int i = 0; i < 4; ++i) {
    c = static_cast<u128>(d[i]) + (kL[i] & mask) + (c >> 64);
    r.v[i] = static_cast<std::uint64_t>(c);
  }
  return r;
}


#endif

// Portable 512-bit product t[0..7] = a·b.
inline void mul_wide_portable(const Fe& a, const Fe& b, std::uint64_t t[8]) {
  for (int i = 0; i < 8; ++i) t[i] = 0;
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    std::uint64_t c = 0;
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const u128 p = static_cast<u128>(a.v[j]) * b.v[i] + t[i + j] + c;
      t[i + j] = static_cast<std::uint64_t>(p);
      c = static_cast<std::uint64_t>(p >> 64);
    }
    t[i + 4] = c;
  }
}

// Lazy sum of products Σ a_i·b_i (Montgomery inputs < ℓ): the 512-bit products are added
// into a 576-bit accumulator and reduced once, about twice as fast as one mul() per product.
// At most kMaxTerms products (the sum then stays below 2^511). Constant time.
struct WideAcc {
  static constexpr std::size_t kMaxTerms = 32;
  std::uint64_t t[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};

  void mac(const Fe& a, const Fe& b) {
    std::uint64_t p[8];
#if defined(__x86_64__)
#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
    if (kHaveAdx) {
      mul_wide_adx(a, b, p);
    } else {
      mul_wide_portable(a, b, p);
    }
#else
    mul_wide_portable(a, b, p);
#endif
    unsigned char c = 0;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) c = _addcarry_u64(c, t[i], p[i], reinterpret_cast<ull*>(&t[i]));
    t[8] += c;
#else
    mul_wide_portable(a, b, p);
    u128 c = 0;
    for (int i = 0; i < 8; ++i) {
      c += static_cast<u128>(t[i]) + p[i];
      t[i] = static_cast<std::uint64_t>(c);
      c >>= 64;
    }
    t[8] += static_cast<std::uint64_t>(c);
#endif
  }

  // The sum mod ℓ in Montgomery form: Montgomery reduction (< 2^255 < 8ℓ), then conditional
  // subtractions of 4ℓ, 2ℓ and ℓ.
  [[nodiscard]] Fe reduce() const {
    std::uint64_t u[9];
    for (int i = 0; i < 9; ++i) u[i] = t[i];
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      // u += m·ℓ·2^(64i) with ℓ = kL[0] + kL[1]·2^64 + 2^252 (kL[2] = 0, kL[3] = 2^60).
      const std::uint64_t m = u[i] * kN0;
      u128 c = static_cast<u128>(m) * kL[0] + u[i];
      c = static_cast<u128>(m) * kL[1] + u[i + 1] + static_cast<std::uint64_t>(c >> 64);
      u[i + 1] = static_cast<std::uint64_t>(c);
      c = static_cast<u128>(u[i + 2]) + static_cast<std::uint64_t>(c >> 64);
      u[i + 2] = static_cast<std::uint64_t>(c);
      c = static_cast<u128>(u[i + 3]) + (m << 60) + static_cast<std::uint64_t>(c >> 64);
      u[i + 3] = static_cast<std::uint64_t>(c);
      c = static_cast<u128>(u[i + 4]) + (m >> 4) + static_cast<std::uint64_t>(c >> 64);
      u[i + 4] = static_cast<std::uint64_t>(c);
      for (int k = i + 5; k < 9; ++k) {
        c = static_cast<u128>(u[k]) + static_cast<std::uint64_t>(c >> 64);
        u[k] = static_cast<std::uint64_t>(c);
      }
    }
    Fe r;
    for (int i = 0; i < 4; ++i) r.v[i] = u[4 + i];
    for (int shift = 2; shift >= 0; --shift) {
      std::uint64_t m[4];
      for (int i = 0; i < 4; ++i)
        m[i] = (kL[i] << shift) | (i > 0 && shift > 0 ? kL[i - 1] >> (64 - shift) : 0);
      std::uint64_t d[4];
      std::uint64_t borrow = 0;
      for (int i = 0; i < 4; ++i) {
        const u128 x = static_cast<u128>(r.v[i]) - m[i] - borrow;
        d[i] = static_cast<std::uint64_t>(x);
        borrow = static_cast<std::uint64_t>(x >> 64) & 1U;
      }
      const std::uint64_t keep = 0 - borrow;  // r < m: keep r
      for (int i = 0; i < 4; ++i) r.v[i] = (r.v[i] & keep) | (d[i] & ~keep);
    }
    return r;
  }
};

inline Fe from_bytes(const std::uint8_t b[32]) {
  Fe x;
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 8; ++k) x.v[i] |= static_cast<std::uint64_t>(b[8 * i + k]) << (8 * k);
  Fe r = mul(x, kR2);  // to Montgomery form
  sodium_memzero(&x, sizeof x);
  return r;
}

inline void to_bytes(const Fe& a, std::uint8_t b[32]) {
  Fe one;
  one.v[0] = 1;
  Fe x = mul(a, one);  // out of Montgomery form
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 8; ++k) b[8 * i + k] = static_cast<std::uint8_t>(x.v[i] >> (8 * k));
  sodium_memzero(&x, sizeof x);
}

static_assert(DECAF_WORD_BITS == 64 && DECAF_255_SCALAR_LIMBS == 4,
              "field.hpp reads decaf scalars as four 64-bit limbs");

inline Fe from_limbs(const decaf_255_scalar_s* s) {
  Fe x;
  for (int i = 0; i < 4; ++i) x.v[i] = s->limb[i];
  Fe r = mul(x, kR2);  // to Montgomery form
  sodium_memzero(&x, sizeof x);
  return r;
}

inline Fe of(const Scalar& s) { return from_limbs(s.raw()); }
inline Fe of(const SecretScalar& s) { return from_limbs(s.raw()); }

inline Fe from_u64(std::uint64_t v) {
  Fe x;
  x.v[0] = v;
  return mul(x, kR2);
}

inline Scalar to_scalar(const Fe& a) {
  // Out of Montgomery form: a·2^−256 mod ℓ, the reduction alone (no product needed).
  WideAcc w;
  for (int i = 0; i < 4; ++i) w.t[i] = a.v[i];
  const Fe x = w.reduce();  // canonical (< ℓ)
  Scalar s;
  for (int i = 0; i < 4; ++i) s.raw()->limb[i] = x.v[i];
  return s;
}

inline SecretScalar to_secret(const Fe& a) {
  std::uint8_t b[32];
  to_bytes(a, b);
  SecretScalar s = SecretScalar::reduce(b);
  sodium_memzero(b, sizeof b);
  return s;
}

inline Fe one() { return from_u64(1); }
inline Fe neg(const Fe& a) { return sub(Fe{}, a); }
inline bool is_zero(const Fe& a) {  // variable time: public data only
  return (a.v[0] | a.v[1] | a.v[2] | a.v[3]) == 0;
}

// a^(ℓ−2) = 1/a (0 for 0). The exponent is public and fixed: constant time.
inline Fe invert(const Fe& a) {
  static constexpr std::uint64_t kE[4] = {0x5812631a5cf5d3ebULL, 0x14def9dea2f79cd6ULL, 0,
                                          0x1000000000000000ULL};
  Fe r = one();
  for (int i = 3; i >= 0; --i)
    for (int b = 63; b >= 0; --b) {
      r = mul(r, r);
      if ((kE[i] >> b) & 1U) r = mul(r, a);  // branch on the public exponent only
    }
  return r;
}

// Montgomery's trick on public data; zero entries are left unchanged.
inline void batch_invert(std::span<Fe> xs) {
  std::vector<Fe> pre(xs.size());
  Fe acc = one();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    pre[i] = acc;
    if (!is_zero(xs[i])) acc = mul(acc, xs[i]);
  }
  Fe inv = invert(acc);
  for (std::size_t i = xs.size(); i-- > 0;) {
    if (is_zero(xs[i])) continue;
    const Fe x = xs[i];
    xs[i] = mul(inv, pre[i]);
    inv = mul(inv, x);
  }
}

}  // namespace gopa::sigma::field
