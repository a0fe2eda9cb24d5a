// gopa/sampling/paillier.hpp — Paillier encryption over GMP, for the committee's pairwise
// products (Beaver triple generation, docs/sampling.md §2).
//
//   PaillierKey k = PaillierKey::generate(2048, rng);       // member's key (secret: p, q)
//   BigInt c = k.pub().encrypt(BigInt::from_scalar(a), alpha);  // (1 + aN)·(h^N)^alpha mod N²
//   BigInt d = k.pub().mul_plain(c, BigInt::from_scalar(b));    // Enc(a·b)
//   BigInt m = k.decrypt(d);                                    // CRT decryption
//
// Randomness: h^N is fixed per key and alpha is 256 bits (short-exponent variant, as in
// Damgård–Jurik–Nielsen); the randomness alpha of a ciphertext can be revealed to prove its
// plaintext (used when a sacrificed triple's generation is opened for blame).
// Security notes: 2048-bit moduli give about 112-bit security; 640- and 704-bit moduli are for tests
// (the committee needs ≥ 672 bits for one reply slot).
// Variable time (GMP): keys are long-lived member secrets, but the timing of decryption only
// depends on the ciphertext, which is public.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/random.hpp"

namespace gopa::sampling {

class FixedBaseSec;    // src/sampling/rp_exp.hpp
class PaillierOwnEnc;  // src/sampling/rp_exp.hpp
class PaillierOwnDec;  // src/sampling/rp_exp.hpp

// A move-friendly RAII wrapper over mpz_t (cleared with zeroing on destruction).
class BigInt {
 public:
  BigInt();
  explicit BigInt(unsigned long v);
  ~BigInt();
  BigInt(const BigInt& o);
  BigInt& operator=(const BigInt& o);
  BigInt(BigInt&& o) noexcept;
  BigInt& operator=(BigInt&& o) noexcept;

  static BigInt from_scalar(const Scalar& s);
  static BigInt from_secret(const SecretScalar& s);
  // Uniform in [0, 2^bits).
  static BigInt random_bits(unsigned bits, Rng& rng);
  // This value reduced mod ℓ.
  [[nodiscard]] Scalar to_scalar() const;
  [[nodiscard]] SecretScalar to_secret() const;
  // Big-endian bytes, fixed length (for hashing/size accounting).
  [[nodiscard]] std::vector<std::uint8_t> to_bytes(std::size_t len) const;
  [[nodiscard]] std::size_t bits() const;
  bool operator==(const BigInt& o) const;

  mpz_ptr get() noexcept { return v_; }
  mpz_srcptr get() const noexcept { return v_; }

 private:
  mpz_t v_;
};

class PaillierPublic {
 public:
  PaillierPublic() = default;
  PaillierPublic(BigInt n, BigInt h);
  // Enc(m; alpha) = (1 + m·N)·hN^alpha mod N² for a secret m ∈ [0, N) and secret randomness
  // alpha < 2^alpha_bits (alpha_bits ≤ kExpBits, public: 256 for ciphertexts, more for the
  // masked randomness of proofs): constant time in m and alpha (m·N with mpn_sec_mul, hN^alpha
  // from a fixed-base table read with mpn_sec_tabselect, Montgomery products; rp_exp.hpp). An m
  // outside [0, N) is first reduced mod N (variable time).
  [[nodiscard]] BigInt encrypt(const BigInt& m, const BigInt& alpha,
                               unsigned alpha_bits = kExpBits) const;
  // The same for public m ≥ 0 (taken mod N) and alpha < 2^kExpBits: variable time, for
  // verifiers re-computing a ciphertext from public values.
  [[nodiscard]] BigInt encrypt_public(const BigInt& m, const BigInt& alpha) const;
  static constexpr unsigned kExpBits = 384;
  [[nodiscard]] BigInt add(const BigInt& c1, const BigInt& c2) const;
  [[nodiscard]] BigInt mul_plain(const BigInt& c, const BigInt& k) const;
  // c^k with a secret k ≥ 0 (GMP mpz_powm_sec: time independent of k's bits, for a fixed size).
  [[nodiscard]] BigInt mul_plain_secret(const BigInt& c, const BigInt& k, unsigned k_bits) const;
  // Π_i c_i^{k_i} mod N² for public ciphertexts c_i and secret k_i ∈ [0, 2^k_bits): one
  // simultaneous exponentiation (4-bit windows, the squarings shared by all the products) in
  // Montgomery form on GMP's side-channel-silent mpn functions (mpn_sec_mul, mpn_sec_sqr,
  // mpn_sec_tabselect, mpn_cnd_sub_n and the addmul_1 reduction mpn_sec_powm uses): the time and
  // memory accesses depend on the number of terms, k_bits and N only, not on the k_i.
  [[nodiscard]] BigInt mul_plain_secret_multi(std::span<const BigInt> c, std::span<const BigInt> k,
                                              unsigned k_bits) const;
  [[nodiscard]] const BigInt& n2() const noexcept { return n2_; }
  // A ciphertext is well formed: 0 < c < N².
  [[nodiscard]] bool valid(const BigInt& c) const;
  [[nodiscard]] const BigInt& n() const noexcept { return n_; }
  [[nodiscard]] const BigInt& h() const noexcept { return h_; }
  [[nodiscard]] const BigInt& hn() const noexcept { return hn_; }  // h^N mod N²
  [[nodiscard]] std::size_t n_bits() const { return n_.bits(); }
  [[nodiscard]] std::size_t ciphertext_bytes() const { return (2 * n_bits() + 7) / 8; }

 private:
  // hN^alpha with a fixed-base table: table_[i][d] = hN^(d·256^i), alpha < 2^kExpBits.
  static constexpr unsigned kWindow = 8;
  [[nodiscard]] BigInt hn_pow(const BigInt& alpha) const;
  BigInt n_, n2_, h_, hn_;
  std::vector<std::vector<BigInt>> table_;
  // hN^alpha for secret alpha: constant-time fixed-base table (5-bit windows, 1.3 MB at 2048 bits).
  std::shared_ptr<const FixedBaseSec> hn_sec_;
  // Montgomery arithmetic mod N² with R = 2^(64·limbs): N² as limbs, −(N²)^(−1) mod 2^64, R mod N².
  std::vector<mp_limb_t> m_;
  mp_limb_t minv_ = 0;
  BigInt r_mod_;
};

class PaillierKey {
 public:
  // Two random primes p ≡ q ≡ 3 mod 4 of bits/2 bits each (the top two bits set), N of exactly
  // `bits` bits: a Paillier–Blum modulus, as the key proofs require (sampling/key_proofs.hpp).
  // Equal sizes give gcd(N, φ(N)) = 1: q − 1 < 2p, so p ∤ q − 1 (and q ∤ p − 1).
  static PaillierKey generate(unsigned bits, Rng& rng);
  // A key from two given distinct odd primes (not checked; tests and deliberate deviations build
  // malformed keys with it) and a random h.
  static PaillierKey from_primes(const BigInt& p, const BigInt& q, Rng& rng);
  [[nodiscard]] const PaillierPublic& pub() const noexcept { return pub_; }
  // The secret factors (N = p·q), for the key proofs.
  [[nodiscard]] const BigInt& p() const noexcept { return p_; }
  [[nodiscard]] const BigInt& q() const noexcept { return q_; }
  // Constant time in p, q and the plaintext for 0 ≤ c < N² (PaillierOwnDec: CRT, mpz_powm_sec,
  // Montgomery reductions); other inputs and keys with primes of different limb counts take
  // decrypt_variable_time.
  [[nodiscard]] BigInt decrypt(const BigInt& c) const;
  // GMP's mpz functions (the exponent p − 1 through mpz_powm_sec): tests compare the two.
  [[nodiscard]] BigInt decrypt_variable_time(const BigInt& c) const;
  // pub().encrypt(m, alpha, alpha_bits), computed by the key's owner with CRT mod p² and q²:
  // the same ciphertext, constant time as well, in about half the time.
  [[nodiscard]] BigInt encrypt_own(const BigInt& m, const BigInt& alpha, unsigned alpha_bits) const;
  static constexpr unsigned kAlphaBits = 256;

 private:
  PaillierPublic pub_;
  BigInt p_, q_, p2_, q2_, hp_, hq_, qinv_p_;  // CRT data
  std::shared_ptr<const PaillierOwnEnc> own_enc_;  // CRT encryption (primes of one size)
  std::shared_ptr<const PaillierOwnDec> own_dec_;  // constant-time CRT decryption (the same)
};

}  // namespace gopa::sampling
