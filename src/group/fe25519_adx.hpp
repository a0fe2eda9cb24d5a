// Internal: arithmetic in GF(2^255 − 19) with four 64-bit limbs and the x86-64 BMI2/ADX
// instructions (MULX, ADCX, ADOX), the same interface as fe25519.hpp (namespace r51).
//
// Values are any 256-bit representatives (< 2^256, "loose"): every operation accepts them and
// returns one; only fe_canonical() reduces fully. Products are reduced with 2^256 ≡ 38. The
// two interleaved carry chains of ADCX/ADOX make a multiplication about 20 MULX and 40 additions
// against 25 multiplications and about 100 other instructions in radix 2^51.
//
// Every function is branch-free with a fixed memory access pattern (constant time), like r51.
#pragma once

#include <cstdint>

#include <decaf/point_255.h>

#include "fe25519.hpp"

// Compiled only when the build uses it (GOPA_FE_ADX, see CMakeLists.txt).
#if defined(__x86_64__) && defined(GOPA_FE_ADX) && GOPA_FE_ADX

namespace gopa::detail::r64 {

struct Fe {
  std::uint64_t v[4];
};

inline Fe fe_zero() noexcept { return Fe{{0, 0, 0, 0}}; }
inline Fe fe_one() noexcept { return Fe{{1, 0, 0, 0}}; }
inline Fe fe_from_small(std::uint64_t k) noexcept { return Fe{{k, 0, 0, 0}}; }

// a·b: the 512-bit product by rows (one MULX per limb pair; ADCX carries the low halves, ADOX
// the high halves), then low + 38·high, then the last carry word folded in twice.
[[gnu::always_inline]] inline Fe fe_mul(const Fe& a, const Fe& b) noexcept {
  Fe r;
  std::uint64_t t1, t2, t3, t4, t5, t6, t7, lo, hi, z;
  __asm__(
      "movq 0(%[b]), %%rdx\n\t"
      "mulxq 0(%[a]), %[r0], %[t1]\n\t"
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

      // (t0..t3) + 38·(t4..t7): a fifth word t4 ≤ 38.
      "movl $38, %%edx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[t4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[r0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[t5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[t6], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[t7], %[lo], %[t4]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[z], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      // + 38·t4; a carry out leaves a small value, so one more +38 cannot carry.
      "imulq $38, %[t4], %[t4]\n\t"
      "addq %[t4], %[r0]\n\t"
      "adcq %[z], %[t1]\n\t"
      "adcq %[z], %[t2]\n\t"
      "adcq %[z], %[t3]\n\t"
      "sbbq %[z], %[z]\n\t"
      "andq $38, %[z]\n\t"
      "addq %[z], %[r0]\n\t"
      : [r0] "=&r"(r.v[0]), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [z] "=&r"(z)
      : [a] "r"(a.v), [b] "r"(b.v), "m"(a), "m"(b)
      : "rdx", "cc");
  r.v[1] = t1;
  r.v[2] = t2;
  r.v[3] = t3;
  return r;
}

// a²: the six cross products once, doubled, plus the four squares (10 MULX instead of 16).
[[gnu::always_inline]] inline Fe fe_sq(const Fe& a) noexcept {
  Fe r;
  std::uint64_t t1, t2, t3, t4, t5, t6, t7, lo, hi, z;
  __asm__(
      // Cross products a_i·a_j (i < j) into t1..t6.
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq 8(%[a]), %[t1], %[t2]\n\t"    // a0a1
      "mulxq 16(%[a]), %[lo], %[t3]\n\t"   // a0a2
      "addq %[lo], %[t2]\n\t"
      "mulxq 24(%[a]), %[lo], %[t4]\n\t"   // a0a3
      "adcq %[lo], %[t3]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %[lo], %[t5]\n\t"   // a1a3
      "adcq %[lo], %[t4]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq 24(%[a]), %[lo], %[t6]\n\t"   // a2a3
      "adcq %[lo], %[t5]\n\t"
      "adcq $0, %[t6]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq 16(%[a]), %[lo], %[hi]\n\t"   // a1a2 at words 3, 4
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[hi], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      "adoxq %[z], %[t5]\n\t"
      "adcxq %[z], %[t5]\n\t"
      "adoxq %[z], %[t6]\n\t"
      "adcxq %[z], %[t6]\n\t"
      // Double: t7 takes the top bit.
      "xorl %k[t7], %k[t7]\n\t"
      "addq %[t1], %[t1]\n\t"
      "adcq %[t2], %[t2]\n\t"
      "adcq %[t3], %[t3]\n\t"
      "adcq %[t4], %[t4]\n\t"
      "adcq %[t5], %[t5]\n\t"
      "adcq %[t6], %[t6]\n\t"
      "adcq $0, %[t7]\n\t"
      // Squares a_i² at words 2i, 2i+1.
      "movq 0(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[r0], %[hi]\n\t"
      "addq %[hi], %[t1]\n\t"
      "movq 8(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t2]\n\t"
      "adcq %[hi], %[t3]\n\t"
      "movq 16(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t4]\n\t"
      "adcq %[hi], %[t5]\n\t"
      "movq 24(%[a]), %%rdx\n\t"
      "mulxq %%rdx, %[lo], %[hi]\n\t"
      "adcq %[lo], %[t6]\n\t"
      "adcq %[hi], %[t7]\n\t"

      // (t0..t3) + 38·(t4..t7), as in fe_mul.
      "movl $38, %%edx\n\t"
      "xorl %k[z], %k[z]\n\t"
      "mulxq %[t4], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[r0]\n\t"
      "adoxq %[hi], %[t1]\n\t"
      "mulxq %[t5], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t1]\n\t"
      "adoxq %[hi], %[t2]\n\t"
      "mulxq %[t6], %[lo], %[hi]\n\t"
      "adcxq %[lo], %[t2]\n\t"
      "adoxq %[hi], %[t3]\n\t"
      "mulxq %[t7], %[lo], %[t4]\n\t"
      "adcxq %[lo], %[t3]\n\t"
      "adoxq %[z], %[t4]\n\t"
      "adcxq %[z], %[t4]\n\t"
      "imulq $38, %[t4], %[t4]\n\t"
      "addq %[t4], %[r0]\n\t"
      "adcq %[z], %[t1]\n\t"
      "adcq %[z], %[t2]\n\t"
      "adcq %[z], %[t3]\n\t"
      "sbbq %[z], %[z]\n\t"
      "andq $38, %[z]\n\t"
      "addq %[z], %[r0]\n\t"
      : [r0] "=&r"(r.v[0]), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
        [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7), [lo] "=&r"(lo), [hi] "=&r"(hi),
        [z] "=&r"(z)
      : [a] "r"(a.v), "m"(a)
      : "rdx", "cc");
  r.v[1] = t1;
  r.v[2] = t2;
  r.v[3] = t3;
  return r;
}

// a + b: a carry out of 2^256 is worth 38; folded twice (the second fold cannot carry).
[[gnu::always_inline]] inline Fe fe_add(const Fe& a, const Fe& b) noexcept {
  Fe r;
  std::uint64_t m;
  __asm__(
      "movq 0(%[a]), %[r0]\n\t"
      "movq 8(%[a]), %[r1]\n\t"
      "movq 16(%[a]), %[r2]\n\t"
      "movq 24(%[a]), %[r3]\n\t"
      "addq 0(%[b]), %[r0]\n\t"
      "adcq 8(%[b]), %[r1]\n\t"
      "adcq 16(%[b]), %[r2]\n\t"
      "adcq 24(%[b]), %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "andq $38, %[m]\n\t"
      "addq %[m], %[r0]\n\t"
      "adcq $0, %[r1]\n\t"
      "adcq $0, %[r2]\n\t"
      "adcq $0, %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "andq $38, %[m]\n\t"
      "addq %[m], %[r0]\n\t"
      : [r0] "=&r"(r.v[0]), [r1] "=&r"(r.v[1]), [r2] "=&r"(r.v[2]), [r3] "=&r"(r.v[3]),
        [m] "=&r"(m)
      : [a] "r"(a.v), [b] "r"(b.v), "m"(a), "m"(b)
      : "cc");
  return r;
}

// a − b: a borrow out of 2^256 is worth −38; folded twice (the second fold cannot borrow).
[[gnu::always_inline]] inline Fe fe_sub(const Fe& a, const Fe& b) noexcept {
  Fe r;
  std::uint64_t m;
  __asm__(
      "movq 0(%[a]), %[r0]\n\t"
      "movq 8(%[a]), %[r1]\n\t"
      "movq 16(%[a]), %[r2]\n\t"
      "movq 24(%[a]), %[r3]\n\t"
      "subq 0(%[b]), %[r0]\n\t"
      "sbbq 8(%[b]), %[r1]\n\t"
      "sbbq 16(%[b]), %[r2]\n\t"
      "sbbq 24(%[b]), %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "andq $38, %[m]\n\t"
      "subq %[m], %[r0]\n\t"
      "sbbq $0, %[r1]\n\t"
      "sbbq $0, %[r2]\n\t"
      "sbbq $0, %[r3]\n\t"
      "sbbq %[m], %[m]\n\t"
      "andq $38, %[m]\n\t"
      "subq %[m], %[r0]\n\t"
      : [r0] "=&r"(r.v[0]), [r1] "=&r"(r.v[1]), [r2] "=&r"(r.v[2]), [r3] "=&r"(r.v[3]),
        [m] "=&r"(m)
      : [a] "r"(a.v), [b] "r"(b.v), "m"(a), "m"(b)
      : "cc");
  return r;
}

[[gnu::always_inline]] inline Fe fe_neg(const Fe& a) noexcept { return fe_sub(fe_zero(), a); }

// Every representative is already "tight" here: nothing to carry.
[[gnu::always_inline]] inline Fe fe_carry(const Fe& a) noexcept { return a; }

// a · k for a small constant k < 2^20.
[[gnu::always_inline]] inline Fe fe_mul_small(const Fe& a, std::uint32_t k) noexcept {
  __extension__ typedef unsigned __int128 u128;
  u128 c = static_cast<u128>(a.v[0]) * k;
  Fe r;
  r.v[0] = static_cast<std::uint64_t>(c);
  c = static_cast<u128>(a.v[1]) * k + static_cast<std::uint64_t>(c >> 64);
  r.v[1] = static_cast<std::uint64_t>(c);
  c = static_cast<u128>(a.v[2]) * k + static_cast<std::uint64_t>(c >> 64);
  r.v[2] = static_cast<std::uint64_t>(c);
  c = static_cast<u128>(a.v[3]) * k + static_cast<std::uint64_t>(c >> 64);
  r.v[3] = static_cast<std::uint64_t>(c);
  // top < 2^20: r + 38·top < 2^256 + 2^26, so one more fold of 38 at most.
  const std::uint64_t top = static_cast<std::uint64_t>(c >> 64);
  return fe_add(r, Fe{{top * 38, 0, 0, 0}});
}

// The unique representative in [0, p).
inline Fe fe_canonical(const Fe& a) noexcept {
  __extension__ typedef unsigned __int128 u128;
  // Fold bit 255 (worth 19): r < 2^255 + 19.
  const std::uint64_t q = a.v[3] >> 63;
  Fe r{{a.v[0], a.v[1], a.v[2], a.v[3] & ~(std::uint64_t{1} << 63)}};
  u128 c = static_cast<u128>(r.v[0]) + 19 * q;
  r.v[0] = static_cast<std::uint64_t>(c);
  for (int i = 1; i < 4; ++i) {
    c = static_cast<u128>(r.v[i]) + static_cast<std::uint64_t>(c >> 64);
    r.v[i] = static_cast<std::uint64_t>(c);
  }
  // r ≥ p exactly when r + 19 reaches 2^255; then r − p = (r + 19) mod 2^255.
  Fe s;
  c = static_cast<u128>(r.v[0]) + 19;
  s.v[0] = static_cast<std::uint64_t>(c);
  for (int i = 1; i < 4; ++i) {
    c = static_cast<u128>(r.v[i]) + static_cast<std::uint64_t>(c >> 64);
    s.v[i] = static_cast<std::uint64_t>(c);
  }
  const std::uint64_t ge = 0 - (s.v[3] >> 63);
  s.v[3] &= ~(std::uint64_t{1} << 63);
  for (int i = 0; i < 4; ++i) r.v[i] = (s.v[i] & ge) | (r.v[i] & ~ge);
  return r;
}

inline void fe_cmov(Fe& r, const Fe& b, std::uint64_t flag) noexcept {
  const std::uint64_t m = 0 - flag;
  for (int i = 0; i < 4; ++i) r.v[i] ^= m & (r.v[i] ^ b.v[i]);
}

inline void fe_cswap(Fe& a, Fe& b, std::uint64_t flag) noexcept {
  const std::uint64_t m = 0 - flag;
  for (int i = 0; i < 4; ++i) {
    const std::uint64_t x = m & (a.v[i] ^ b.v[i]);
    a.v[i] ^= x;
    b.v[i] ^= x;
  }
}

inline bool fe_is_zero_vartime(const Fe& a) noexcept {
  const Fe c = fe_canonical(a);
  return (c.v[0] | c.v[1] | c.v[2] | c.v[3]) == 0;
}

// Conversions from and to libdecaf's radix-2^51 limbs.
inline Fe fe_from_decaf(const gf_25519_s& g) noexcept {
  r51::Fe t;
  for (int i = 0; i < 5; ++i) t.v[i] = g.limb[i];
  t = r51::fe_canonical(t);
  return Fe{{t.v[0] | (t.v[1] << 51), (t.v[1] >> 13) | (t.v[2] << 38),
             (t.v[2] >> 26) | (t.v[3] << 25), (t.v[3] >> 39) | (t.v[4] << 12)}};
}

inline void fe_to_decaf(gf_25519_s& g, const Fe& a) noexcept {
  const Fe c = fe_canonical(a);
  const std::uint64_t m = r51::kMask51;
  g.limb[0] = c.v[0] & m;
  g.limb[1] = ((c.v[0] >> 51) | (c.v[1] << 13)) & m;
  g.limb[2] = ((c.v[1] >> 38) | (c.v[2] << 26)) & m;
  g.limb[3] = ((c.v[2] >> 25) | (c.v[3] << 39)) & m;
  g.limb[4] = c.v[3] >> 12;
}

}  // namespace gopa::detail::r64

#endif  // GOPA_FE_ADX
