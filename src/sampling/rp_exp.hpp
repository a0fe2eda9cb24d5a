// Fixed-base exponentiations for the ring-Pedersen commitments of Π_enc (docs/sampling.md,
// "Ciphertext proofs against the verifier's ring-Pedersen parameters"). Internal header of
// src/sampling.
//
//   FixedBaseSec s_tab(rp.s, rp.n, 373), t_tab(rp.t, rp.n, nh + 160);   // once per verifier
//   const FixedBaseSec* st[2] = {&s_tab, &t_tab};
//   BigInt x_m[2] = {x, m};
//   BigInt S = multi_pow_sec(st, x_m);                    // s^x·t^m mod N̂, secret x, m
//
//   RpOwnerCheck own(key.p(), key.q(), rp.s, rp.t);      // the owner of N̂, once
//   bool ok = own.holds(z, w, D, S, e);                    // s^z·t^w ≡ D·S^e (mod N̂)
//
// FixedBaseSec: the powers g^(d·2^(w·i)) of a public base g are tabulated (public data) and
// g^x is the product over the w-bit windows x_i of x of the entries tab[i][x_i]: ⌈bits/w⌉
// multiplications and no squaring. Each entry is read with mpn_sec_tabselect (the whole row is
// read) and multiplied with mpn_sec_mul and a branch-free Montgomery reduction, so the time and
// the memory accesses depend on the public widths and the modulus only, not on the exponents.
// RpOwnerCheck: variable time; it checks the equation mod p and mod q (CRT) with the exponents
// of s and t reduced mod p − 1 and q − 1 and variable-time fixed-base tables. Its inputs are
// public but p and q are not: the reduction mod p − 1, the skipped zero digits and GMP's
// reductions and powers mod p take time that depends on p and q together with the prover's
// chosen responses (docs/sampling.md, "Not proven / not done", side channels).
#pragma once

#include <gmp.h>

#include <cstddef>
#include <span>
#include <vector>

#include "gopa/sampling/paillier.hpp"

namespace gopa::sampling {

namespace rp_detail {
// Montgomery arithmetic mod an odd m > 1 with R = 2^(64·n), n the limbs of m.
struct Mont {
  Mont() = default;
  explicit Mont(const BigInt& modulus);
  BigInt m;
  std::vector<mp_limb_t> limbs;  // m
  std::vector<mp_limb_t> one;    // R mod m
  mp_limb_t minv = 0;            // −m^(−1) mod 2^64
  [[nodiscard]] mp_size_t n() const noexcept { return static_cast<mp_size_t>(limbs.size()); }
  // (v mod m)·R mod m, fully reduced (v ≥ 0; public).
  void to_mont(const BigInt& v, mp_limb_t* out) const;
  // a (n limbs, < R, Montgomery form) into [0, m): one reduction, then one conditional
  // subtraction, branch-free. t: 2n limbs, tmp: n limbs of scratch (tmp may be a).
  void from_mont(mp_limb_t* out, const mp_limb_t* a, mp_limb_t* t, mp_limb_t* tmp) const;
  // Fixed-base rows of a public base g (public data, variable time): row i, at
  // tab + i·stride limbs, holds g^(d·2^(w·i))·R mod m for d = 1 … 2^w − 1, one after another.
  void power_rows(const BigInt& g, unsigned w, std::size_t rows, mp_limb_t* tab,
                  std::size_t stride) const;
};

// Variable-time fixed-base table (public base and exponents): tab[i][d − 1] = g^(d·2^(w·i))·R.
class FixedBaseVar {
 public:
  FixedBaseVar() = default;
  FixedBaseVar(const BigInt& g, const Mont& mont, unsigned max_bits, unsigned window);
  // acc ← acc·g^e (Montgomery form; *started false: acc is 1 and is only written when e > 0,
  // then *started is set). e < 2^max_bits. t: 2n limbs of scratch.
  void mul_pow(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont,
               mp_limb_t* t) const;
  [[nodiscard]] std::size_t table_bytes() const noexcept { return tab_.size() * sizeof(mp_limb_t); }

 private:
  unsigned max_bits_ = 0, w_ = 0;
  std::size_t windows_ = 0;
  std::vector<mp_limb_t> tab_;
};
}  // namespace rp_detail

// g^x mod M for a public base g, a public odd modulus M > 1 and secret exponents x < 2^max_bits.
// Tables: ⌈max_bits/w⌉·2^w entries of the size of M (public data); `window` = 0 picks w = 5 when
// that table takes at most 4 MiB, otherwise 4 (2048-bit M, max_bits = 2208: 3.5 MiB).
// Immutable after construction: evaluations may run concurrently (per-call scratch).
class FixedBaseSec {
 public:
  FixedBaseSec(const BigInt& g, const BigInt& modulus, unsigned max_bits, unsigned window = 0);
  // g^x mod M in [0, M), x ∈ [0, 2^max_bits) secret (GOPA_CHECK on the width).
  [[nodiscard]] BigInt pow(const BigInt& x) const;
  [[nodiscard]] const BigInt& modulus() const noexcept { return mont_.m; }
  [[nodiscard]] unsigned max_bits() const noexcept { return max_bits_; }
  [[nodiscard]] unsigned window() const noexcept { return w_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept { return tab_.size() * sizeof(mp_limb_t); }

 private:
  friend BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases,
                              std::span<const BigInt> exps, std::span<const unsigned> bits);
  rp_detail::Mont mont_;
  unsigned max_bits_ = 0, w_ = 0;
  std::size_t windows_ = 0;
  std::vector<mp_limb_t> tab_;  // windows_ × 2^w_ entries of n limbs, tab[i][d] = g^(d·2^(w·i))·R
};

// Π_i g_i^(x_i) mod M in [0, M): bases with one modulus, secret exponents x_i ∈ [0, 2^bits_i)
// with public widths bits_i ≤ max_bits of base i (one accumulator: Σ⌈bits_i/w_i⌉ − 1
// multiplications). Time and memory accesses depend on the bases' tables, the widths and M only.
// The result is public (the commitments S, D of Π_enc: declassified for the constant-time
// validation build); only the verdict of the width check is made public besides it.
[[nodiscard]] BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases,
                                   std::span<const BigInt> exps, std::span<const unsigned> bits);
// The same with bits_i = max_bits of base i.
[[nodiscard]] BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases,
                                   std::span<const BigInt> exps);

// The verifier's check s^z·t^w ≡ D·S^e (mod N̂) of Π_enc for the owner of N̂ = p·q (p ≠ q odd
// primes) with ring-Pedersen bases s, t (units mod N̂). Variable time, also in p and q (above).
// Tables:
// 4 of ⌈|p|/w⌉·(2^w − 1) entries of |p| bits (w = 6 by default: 5.3 MiB for a 2048-bit N̂).
// Immutable after construction: checks may run concurrently.
class RpOwnerCheck {
 public:
  RpOwnerCheck(const BigInt& p, const BigInt& q, const BigInt& s, const BigInt& t,
               unsigned window = 6);
  // Exactly whether s^z·t^w ≡ D·S^e (mod N̂), for any z, w ≥ 0, e ≥ 0, D, S ≥ 0 (D and S may
  // share a factor with N̂).
  [[nodiscard]] bool holds(const BigInt& z, const BigInt& w, const BigInt& D, const BigInt& S,
                           const BigInt& e) const;
  [[nodiscard]] const BigInt& n() const noexcept { return n_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept;

 private:
  struct Prime {
    rp_detail::Mont mont;  // mod p
    BigInt pm1;            // p − 1
    rp_detail::FixedBaseVar s, t;
  };
  [[nodiscard]] static bool holds_mod(const Prime& pr, const BigInt& z, const BigInt& w,
                                      const BigInt& D, const BigInt& S, const BigInt& e);
  BigInt n_;
  Prime p_, q_;
};

}  // namespace gopa::sampling
