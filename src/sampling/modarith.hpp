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
