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
// RpOwnerCheck: checks the equation mod p and mod q (CRT) with fixed-base tables of s and t mod
// p and mod q, wide enough for the unreduced exponents of the proof's encoding. Its inputs are
// public and p, q secret: the exponents' digits (public) choose the table entries, every
// product is mpn_sec_mul with a branch-free Montgomery reduction, D·S^e is computed mod N̂ (public
// values only) and reduced mod p and q by Montgomery reductions, both primes are always
// checked and the results compared without branching, so the time and memory accesses depend
// on the public inputs and the sizes of p and q only.
// Building the tables (once per key, on the owner's own values) is variable time.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <memory>
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
  std::vector<mp_limb_t> r2;     // R² mod m
  mp_limb_t minv = 0;            // −m^(−1) mod 2^64
  [[nodiscard]] mp_size_t n() const noexcept { return static_cast<mp_size_t>(limbs.size()); }
  // (v mod m)·R mod m, fully reduced (v ≥ 0; public).
  void to_mont(const BigInt& v, mp_limb_t* out) const;
  // a (n limbs, < R, Montgomery form) into [0, m): one reduction, then one conditional
  // subtraction, branch-free. t: 2n limbs, tmp: n limbs of scratch (tmp may be a).
  void from_mont(mp_limb_t* out, const mp_limb_t* a, mp_limb_t* t, mp_limb_t* tmp) const;
  // a·b·R^(−1) mod m for a, b of n limbs with a·b < R·m, fully reduced: mpn_sec_mul, one
  // reduction, one conditional subtraction (branch-free). t: 2n limbs, tmp: n limbs, scratch:
  // mpn_sec_mul_itch(n, n) limbs.
  void mul_reduced(mp_limb_t* out, const mp_limb_t* a, const mp_limb_t* b, mp_limb_t* t,
                   mp_limb_t* tmp, mp_limb_t* scratch) const;
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
  // The same with products constant time in the modulus and the table (mpn_sec_mul, branch-free
  // reduction): only the public digits of e choose entries. scratch: mpn_sec_mul_itch(n, n).
  void mul_pow_ct(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont, mp_limb_t* t,
                  mp_limb_t* scratch) const;
  [[nodiscard]] unsigned max_bits() const noexcept { return max_bits_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept { return tab_.size() * sizeof(mp_limb_t); }
  [[nodiscard]] const std::vector<mp_limb_t>& table() const noexcept { return tab_; }

 private:
  // The walk over e's w-bit digits shared by mul_pow (mpn_mul_n) and mul_pow_ct (sec: mpn_sec_mul).
  void walk(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont, mp_limb_t* t,
            bool sec, mp_limb_t* scratch) const;
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
  friend struct FixedBaseAccess;
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
// x·g^e mod M in [0, M) for a secret x < R² (at most twice as many limbs as M, R = 2^(64·limbs
// of M)) and a secret e < 2^bits, constant time as above (x is reduced by Montgomery
// reductions): a Paillier ciphertext (1 + mN)·(h^N)^α mod N². The result is public
// (declassified).
[[nodiscard]] BigInt mul_pow_sec(const FixedBaseSec& base, const BigInt& e, unsigned bits,
                                 std::span<const mp_limb_t> x);
// The same as the n limbs of M, without making it public (a value mod p², say).
void mul_pow_sec_limbs(const FixedBaseSec& base, const BigInt& e, unsigned bits,
                       std::span<const mp_limb_t> x, mp_limb_t* out);

// A Paillier key owner's encryptions by CRT: x·(h^N)^α mod p² and mod q² (moduli of half the
// size of N²), recombined with Garner's formula, all constant time as mul_pow_sec; about half
// the time of the encryption mod N². The tables are built once per key (variable time, on the
// owner's own values).
class PaillierOwnEnc {
 public:
  PaillierOwnEnc(const BigInt& p, const BigInt& q, const BigInt& hn, unsigned exp_bits);
  ~PaillierOwnEnc();
  PaillierOwnEnc(const PaillierOwnEnc&) = delete;
  PaillierOwnEnc& operator=(const PaillierOwnEnc&) = delete;
  // x·(h^N)^α mod N² for x < 2^(128k) (k: limbs of p²) as limbs and α < 2^bits (public width).
  [[nodiscard]] BigInt encrypt(std::span<const mp_limb_t> x, const BigInt& alpha, unsigned bits) const;

 private:
  std::unique_ptr<FixedBaseSec> hn_p2_, hn_q2_;
  rp_detail::Mont mod_p2_;
  std::vector<mp_limb_t> u_r2_;  // (q²)^(−1)·R² mod p²
  std::vector<mp_limb_t> q2_;    // q²
};

// CRT decryption by the key's owner, constant time in p and q and in the plaintext: c mod p²
// and mod q² by Montgomery reductions, c^(p−1) with mpn_sec_powm, the exact division by p by a
// product with p^(−1) mod 2^(64·limbs), the products mod p and the recombination (Garner) with
// mpn_sec_mul and branch-free reductions. Primes of one limb count.
class PaillierOwnDec {
 public:
  PaillierOwnDec(const BigInt& p, const BigInt& q, const BigInt& hp, const BigInt& hq);
  ~PaillierOwnDec();
  PaillierOwnDec(const PaillierOwnDec&) = delete;
  PaillierOwnDec& operator=(const PaillierOwnDec&) = delete;
  // The plaintext of a ciphertext 0 ≤ c < N² (public), in [0, N).
  [[nodiscard]] BigInt decrypt(const BigInt& c) const;
  // The same as 2·(limbs of p) limbs, not normalized into an mpz (whose size would depend on
  // the plaintext's leading zero limbs): what the constant-time validation checks.
  void decrypt_limbs(const BigInt& c, mp_limb_t* out) const;
  [[nodiscard]] std::size_t plaintext_limbs() const noexcept { return 2 * p_.m1.limbs.size(); }
  // Every value derived from p and q, for the constant-time validation build.
  void for_each_secret(void (*mark)(const void*, std::size_t)) const;

 private:
  struct Side {
    BigInt pr, pr2;                   // p, p² (construction)
    std::vector<mp_limb_t> pm1;       // p − 1
    unsigned pm1_bits = 0;
    rp_detail::Mont m1, m2;           // mod p, mod p²
    std::vector<mp_limb_t> pinv;      // p^(−1) mod 2^(64·limbs of p²)
    std::vector<mp_limb_t> h_r2;      // h_p·R1² mod p: a product with it multiplies by h_p·R1
  };
  // L_p(c^(p−1) mod p²)·h_p mod p as the limbs of p.
  void side(const Side& sd, const BigInt& c, mp_limb_t* out) const;
  Side p_, q_;
  std::vector<mp_limb_t> qinv_r2_;  // q^(−1)·R1² mod p
  std::vector<mp_limb_t> q_limbs_;
};

// The same with bits_i = max_bits of base i.
[[nodiscard]] BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases,
                                   std::span<const BigInt> exps);

// The verifier's check s^z·t^w ≡ D·S^e (mod N̂) of Π_enc for the owner of N̂ = p·q (p ≠ q odd
// primes) with ring-Pedersen bases s, t (units mod N̂): constant time in p and q (above) for
// z < 2^z_bits and w < 2^w_bits (the widths of the proof's encoding: 8·72 and 8·⌈(|N̂| + 161)/8⌉).
// Tables: 2 per prime, ⌈z_bits/w⌉ and ⌈w_bits/w⌉ rows of 2^w − 1 entries of |p| bits (w = 6 by
// default: 7.4 MiB for a 2048-bit N̂ and the encoding's widths).
// Immutable after construction: checks may run concurrently.
class RpOwnerCheck {
 public:
  RpOwnerCheck(const BigInt& p, const BigInt& q, const BigInt& s, const BigInt& t, unsigned z_bits,
               unsigned w_bits, unsigned window = 6);
  // Exactly whether s^z·t^w ≡ D·S^e (mod N̂), for any z, w ≥ 0, e ≥ 0, D, S ≥ 0 (D and S may
  // share a factor with N̂). Exponents wider than the tables are first reduced mod p − 1 and
  // q − 1 (variable time: never the case for decoded proofs).
  [[nodiscard]] bool holds(const BigInt& z, const BigInt& w, const BigInt& D, const BigInt& S,
                           const BigInt& e) const;
  // Whether it holds mod p, the first prime: half the work of holds(). A replier decides its
  // complaint with it: a part that holds mod p and not mod N̂ hands its prover the factor
  // gcd(s^z·t^w·(D·S^e)^(−1) − 1, N̂) = p, so finding one is as hard as factoring N̂
  // (docs/sampling.md, "Ciphertext proofs in the committee").
  [[nodiscard]] bool holds_mod_p(const BigInt& z, const BigInt& w, const BigInt& D,
                                 const BigInt& S, const BigInt& e) const;
  [[nodiscard]] const BigInt& n() const noexcept { return n_; }
  [[nodiscard]] std::size_t table_bytes() const noexcept;
  // The secret-derived state (moduli, R² and the tables), for the constant-time validation
  // build, which marks it undefined after construction.
  void for_each_secret(void (*mark)(const void*, std::size_t)) const;

 private:
  struct Prime {
    rp_detail::Mont mont;        // mod p
    BigInt pm1;                  // p − 1
    rp_detail::FixedBaseVar s, t;
  };
  // 0 when s^z·t^w ≡ rhs mod the prime (rhs = D·S^e mod N̂, public), otherwise non-zero (no
  // branch on the values).
  [[nodiscard]] static mp_limb_t diff_mod(const Prime& pr, const BigInt& z, const BigInt& w,
                                          const BigInt& rhs);
  BigInt n_;
  Prime p_, q_;
};

}  // namespace gopa::sampling
