// Modular arithmetic on GMP integers shared by the Paillier key proofs and the ring-Pedersen
// ciphertext proofs. Internal header of src/sampling.
#pragma once

#include <gmp.h>

#include <cstddef>

#include "gopa/sampling/paillier.hpp"

namespace gopa::sampling::modarith {

// Bytes of the big-endian encoding of n.
inline std::size_t bytes_of(const BigInt& n) { return (n.bits() + 7) / 8; }

// A value in (0, m).
inline bool in_open(const BigInt& v, const BigInt& m) {
  return mpz_sgn(v.get()) > 0 && mpz_cmp(v.get(), m.get()) < 0;
}

// base^e mod m for a secret e ≥ 0 and an odd m (mpz_powm_sec needs e > 0).
inline BigInt pow_sec(const BigInt& base, const BigInt& e, const BigInt& m) {
  BigInt r(1);
  if (mpz_sgn(e.get()) > 0) {
    mpz_powm_sec(r.get(), base.get(), e.get(), m.get());
  } else {
    mpz_mod(r.get(), r.get(), m.get());
  }
  return r;
}

// Montgomery reduction mod m (n limbs, odd) of t (2n limbs, destroyed): r = t·R^(−1) mod m,
// "almost reduced" (r < R) when t < R·m + R², with the operations of GMP's mpn_redc_1 (the
// carry of row i is kept in the zeroed limb t[i] and added at the end) and a conditional
// subtraction: no branch and no memory access depends on t. minv = −m^(−1) mod 2^64.
inline void redc(mp_limb_t* r, mp_limb_t* t, const mp_limb_t* m, mp_size_t n, mp_limb_t minv) {
  for (mp_size_t i = 0; i < n; ++i) {
    const mp_limb_t q = t[i] * minv;
    t[i] = mpn_addmul_1(t + i, m, n, q);
  }
  const mp_limb_t cy = mpn_add_n(r, t + n, t, n);
  mpn_cnd_sub_n(cy, r, r, m, n);
}

// The n limbs of v (v < 2^(64·n); public).
inline void limbs_of(const BigInt& v, mp_limb_t* out, mp_size_t n) {
  for (mp_size_t i = 0; i < n; ++i) out[i] = mpz_getlimbn(v.get(), i);
}

// s^a·t^b mod m (public exponents: variable time).
inline BigInt pow2(const BigInt& s, const BigInt& a, const BigInt& t, const BigInt& b, const BigInt& m) {
  BigInt x, y;
  mpz_powm(x.get(), s.get(), a.get(), m.get());
  mpz_powm(y.get(), t.get(), b.get(), m.get());
  mpz_mul(x.get(), x.get(), y.get());
  mpz_mod(x.get(), x.get(), m.get());
  return x;
}

// s^a·t^b mod m, secret exponents.
inline BigInt pow2_sec(const BigInt& s, const BigInt& a, const BigInt& t, const BigInt& b, const BigInt& m) {
  BigInt x = pow_sec(s, a, m);
  const BigInt y = pow_sec(t, b, m);
  mpz_mul(x.get(), x.get(), y.get());
  mpz_mod(x.get(), x.get(), m.get());
  return x;
}

}  // namespace gopa::sampling::modarith
