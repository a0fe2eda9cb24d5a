// Paillier over GMP: correctness of encryption, homomorphisms and CRT decryption.
#include <span>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/sampling/paillier.hpp"

using namespace gopa;
using namespace gopa::sampling;

TEST_CASE("paillier: encrypt, add, multiply by a plaintext, decrypt", "[sampling][paillier]") {
  DeterministicRng rng(7);
  PaillierKey k = PaillierKey::generate(640, rng);
  REQUIRE(k.pub().n_bits() == 640);
  const Scalar a = Scalar::random(rng), b = Scalar::random(rng);
  BigInt alpha = BigInt::random_bits(PaillierKey::kAlphaBits, rng);
  BigInt ca = k.pub().encrypt(BigInt::from_scalar(a), alpha);
  REQUIRE(k.pub().valid(ca));
  CHECK(k.decrypt(ca) == BigInt::from_scalar(a));
  BigInt r = BigInt::random_bits(300, rng);
  BigInt prod = k.pub().add(k.pub().mul_plain(ca, BigInt::from_scalar(b)),
                            k.pub().encrypt(r, BigInt::random_bits(256, rng)));
  BigInt m = k.decrypt(prod);
  // a·b + r < N: reduced mod ℓ it is a·b + r.
  CHECK(m.to_scalar() == a * b + r.to_scalar());
  // Re-encryption with the revealed randomness reproduces the ciphertext (used for blame).
  CHECK(k.pub().encrypt(BigInt::from_scalar(a), alpha) == ca);
  CHECK_FALSE(k.pub().encrypt(BigInt::from_scalar(a + Scalar::one()), alpha) == ca);
}

TEST_CASE("paillier: constant-time encryption agrees with the public-exponent one",
          "[sampling][paillier]") {
  DeterministicRng rng(9);
  // 640, 674 and 704 bits: N² of 2k limbs; 1030 bits (17 limbs, 6 bits in the top one): N² of
  // 2k − 1 limbs.
  for (unsigned bits : {640U, 674U, 704U, 1030U}) {
    CAPTURE(bits);
    const PaillierKey k = PaillierKey::generate(bits, rng);
    const PaillierPublic& pk = k.pub();
    BigInt n_minus_1 = pk.n();
    mpz_sub_ui(n_minus_1.get(), n_minus_1.get(), 1);
    BigInt top_alpha;  // 2^kExpBits − 1
    mpz_setbit(top_alpha.get(), PaillierPublic::kExpBits);
    mpz_sub_ui(top_alpha.get(), top_alpha.get(), 1);
    std::vector<std::pair<BigInt, BigInt>> cases = {
        {BigInt(0), BigInt(0)}, {BigInt(1), BigInt(1)}, {n_minus_1, top_alpha},
        {BigInt(0), top_alpha}, {n_minus_1, BigInt(0)}};
    for (int i = 0; i < 6; ++i)
      cases.emplace_back(BigInt::random_bits(bits - 1, rng),
                         BigInt::random_bits(PaillierPublic::kExpBits, rng));
    for (const auto& [m, alpha] : cases) {
      const BigInt c = pk.encrypt(m, alpha);
      CHECK(c == pk.encrypt_public(m, alpha));
      CHECK(k.decrypt(c) == m);
    }
    // The constant-time decryption agrees with GMP's on ciphertexts and on any unit mod N²
    // (1, N² − 1); values that share a factor with N (0, p) decrypt to something in [0, N),
    // without failing (no ciphertext is such a value unless its sender knows p).
    for (const auto& [m, alpha] : cases) {
      const BigInt c = pk.encrypt(m, alpha);
      CHECK(k.decrypt(c) == k.decrypt_variable_time(c));
    }
    BigInt n2m1 = pk.n2();
    mpz_sub_ui(n2m1.get(), n2m1.get(), 1);
    for (const BigInt& unit : {BigInt(1), n2m1}) CHECK(k.decrypt(unit) == k.decrypt_variable_time(unit));
    for (const BigInt& bad : {BigInt(0), k.p()}) CHECK(mpz_cmp(k.decrypt(bad).get(), pk.n().get()) < 0);
    // The owner's CRT encryption gives the same ciphertexts.
    for (const auto& [m, alpha] : cases) CHECK(k.encrypt_own(m, alpha, PaillierPublic::kExpBits) == pk.encrypt(m, alpha));
    // The declared width of the randomness: 256 bits for ciphertexts.
    const BigInt a256 = BigInt::random_bits(PaillierKey::kAlphaBits, rng), m = BigInt(12345);
    CHECK(pk.encrypt(m, a256, PaillierKey::kAlphaBits) == pk.encrypt_public(m, a256));
    CHECK(k.encrypt_own(m, a256, PaillierKey::kAlphaBits) == pk.encrypt_public(m, a256));
    // m ≥ N is taken mod N, as by the public form: N + 7 (as many limbs as N), the largest
    // value of that many limbs, and one of more limbs.
    BigInt big = pk.n();
    mpz_add_ui(big.get(), big.get(), 7);
    CHECK(pk.encrypt(big, a256) == pk.encrypt_public(BigInt(7), a256));
    BigInt full;
    mpz_setbit(full.get(), static_cast<mp_bitcnt_t>(64 * mpz_size(pk.n().get())));
    mpz_sub_ui(full.get(), full.get(), 1);
    CHECK(pk.encrypt(full, a256) == pk.encrypt_public(full, a256));
    CHECK(k.encrypt_own(full, a256, PaillierPublic::kExpBits) == pk.encrypt_public(full, a256));
    mpz_mul_2exp(big.get(), big.get(), 200);
    CHECK(pk.encrypt(big, a256) == pk.encrypt_public(big, a256));
    CHECK(k.encrypt_own(big, a256, PaillierPublic::kExpBits) == pk.encrypt_public(big, a256));
  }
}

TEST_CASE("paillier: BigInt scalar round trip", "[sampling][paillier]") {
  DeterministicRng rng(8);
  for (int i = 0; i < 20; ++i) {
    const Scalar s = Scalar::random(rng);
    CHECK(BigInt::from_scalar(s).to_scalar() == s);
  }
}

TEST_CASE("paillier: constant-time plaintext multiplication agrees", "[sampling][paillier]") {
  DeterministicRng rng(9);
  PaillierKey k = PaillierKey::generate(640, rng);
  const BigInt c = k.pub().encrypt(BigInt::random_bits(200, rng), BigInt::random_bits(256, rng));
  for (unsigned bits : {1U, 64U, 253U}) {
    const BigInt b = BigInt::random_bits(bits, rng);
    CHECK(k.pub().mul_plain_secret(c, b, 253) == k.pub().mul_plain(c, b));
  }
  CHECK(k.pub().mul_plain_secret(c, BigInt(0), 253) == BigInt(1));
}

TEST_CASE("paillier: constant-time simultaneous exponentiation agrees", "[sampling][paillier]") {
  DeterministicRng rng(10);
  for (unsigned bits : {640U, 704U, 1024U}) {
    PaillierKey k = PaillierKey::generate(bits, rng);
    const PaillierPublic& pk = k.pub();
    std::vector<BigInt> c;
    for (int i = 0; i < 4; ++i)
      c.push_back(pk.encrypt(BigInt::random_bits(200, rng), BigInt::random_bits(256, rng)));
    for (std::size_t terms = 1; terms <= 4; ++terms) {
      std::vector<BigInt> e;
      for (std::size_t i = 0; i < terms; ++i) e.push_back(BigInt::random_bits(253, rng));
      // Edge exponents: 0, 1, all ones, a short one.
      if (terms >= 2) e[1] = BigInt(0);
      if (terms >= 3) {
        e[2] = BigInt(1);
        mpz_mul_2exp(e[2].get(), e[2].get(), 253);
        mpz_sub_ui(e[2].get(), e[2].get(), 1);
      }
      if (terms >= 4) e[3] = BigInt(5);
      BigInt expect(1);
      for (std::size_t i = 0; i < terms; ++i) expect = pk.add(expect, pk.mul_plain(c[i], e[i]));
      const BigInt got = pk.mul_plain_secret_multi(std::span(c.data(), terms), e, 253);
      CHECK(got == expect);
      CHECK(pk.valid(got));
    }
    // Every exponent zero gives 1; exponents of other sizes.
    const std::vector<BigInt> zeros(2);
    CHECK(pk.mul_plain_secret_multi(std::span(c.data(), 2), zeros, 253) == BigInt(1));
    const std::vector<BigInt> e64{BigInt::random_bits(64, rng), BigInt::random_bits(63, rng)};
    CHECK(pk.mul_plain_secret_multi(std::span(c.data(), 2), e64, 64) ==
          pk.add(pk.mul_plain(c[0], e64[0]), pk.mul_plain(c[1], e64[1])));
  }
}
