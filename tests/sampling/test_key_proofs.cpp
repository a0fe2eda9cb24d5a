// Paillier key proofs (Π_mod, Π_prm, Π_fac): completeness, soundness against provers that run
// the proof algorithms with bad factorisations, and a tamper matrix (docs/sampling.md, "Key
// proofs"). Moduli of 640–704 bits: insecure, tests only.
#include <catch2/catch.hpp>

#include <vector>

#include "gopa/sampling/key_proofs.hpp"

using namespace gopa;
using namespace gopa::sampling;

namespace {

constexpr unsigned kBits = 704;

// A random prime of exactly `bits` bits with p ≡ r mod 4.
BigInt prime(unsigned bits, unsigned long r, Rng& rng) {
  for (;;) {
    BigInt x = BigInt::random_bits(bits, rng);
    mpz_setbit(x.get(), bits - 1);
    mpz_setbit(x.get(), bits - 2);
    do {
      mpz_nextprime(x.get(), x.get());
    } while (mpz_fdiv_ui(x.get(), 4) != r);
    if (x.bits() == bits) return x;
  }
}

BigInt product(std::span<const BigInt> f) {
  BigInt n(1);
  for (const BigInt& x : f) mpz_mul(n.get(), n.get(), x.get());
  return n;
}

Transcript transcript(std::string_view context = "member 3") {
  Transcript t("gopa/test");
  t.append_message("context", context);
  return t;
}

KeyCheck check_mod(const BigInt& n, const BigInt& h, const ModProof& pr,
                   std::string_view context = "member 3") {
  Transcript t = transcript(context);
  return verify_mod(t, n, h, pr);
}

ModProof bad_mod(std::span<const BigInt> primes, Rng& rng) {
  const BigInt n = product(primes);
  Transcript t = transcript();
  return detail::prove_mod_factors(t, n, BigInt(5), primes, rng);
}

KeyCheck check_bad_mod(std::span<const BigInt> primes, Rng& rng) {
  return check_mod(product(primes), BigInt(5), bad_mod(primes, rng));
}

struct Keys {
  DeterministicRng rng{77};
  PaillierKey key = PaillierKey::generate(kBits, rng);
  PaillierKey verifier = PaillierKey::generate(kBits, rng);
  RingPedersenSecret rp = RingPedersenSecret::generate(verifier, rng);
};

}  // namespace

TEST_CASE("key proofs: generated keys are Paillier-Blum with factors of equal size",
          "[sampling][paillier][keys]") {
  DeterministicRng rng(5);
  for (unsigned bits : {674U, 704U, 1024U}) {
    const PaillierKey k = PaillierKey::generate(bits, rng);
    CHECK(mpz_fdiv_ui(k.p().get(), 4) == 3);
    CHECK(mpz_fdiv_ui(k.q().get(), 4) == 3);
    CHECK(k.p().bits() == bits / 2);
    CHECK(k.q().bits() == bits / 2);
    CHECK(k.pub().n_bits() == bits);
  }
}

TEST_CASE("key proofs: honest proofs verify and round-trip their encodings",
          "[sampling][paillier][keys]") {
  Keys f;
  const BigInt& n = f.key.pub().n();
  const BigInt& h = f.key.pub().h();
  const std::size_t nb = (kBits + 7) / 8;

  Transcript tm = transcript();
  const ModProof pm = prove_mod(tm, f.key, f.rng);
  CHECK(check_mod(n, h, pm) == KeyCheck::kOk);
  const auto em = pm.encode(nb);
  CHECK(em.size() == ModProof::encoded_bytes(nb));
  const auto dm = ModProof::decode(em, nb);
  REQUIRE(dm.value);
  CHECK(dm.value->encode(nb) == em);
  CHECK(check_mod(n, h, *dm.value) == KeyCheck::kOk);

  Transcript tp = transcript();
  const PrmProof pp = prove_prm(tp, f.rp, f.rng);
  Transcript tv = transcript();
  CHECK(verify_prm(tv, f.rp.pub(), pp) == KeyCheck::kOk);
  const auto ep = pp.encode(nb);
  CHECK(ep.size() == PrmProof::encoded_bytes(nb));
  const auto dp = PrmProof::decode(ep, nb);
  REQUIRE(dp.value);
  CHECK(dp.value->encode(nb) == ep);

  Transcript tf = transcript();
  const FacProof pf = prove_fac(tf, f.key, f.rp.pub(), f.rng);
  Transcript tfv = transcript();
  CHECK(verify_fac(tfv, n, f.rp.pub(), pf) == KeyCheck::kOk);
  const auto ef = pf.encode(kBits, kBits);
  CHECK(ef.size() == FacProof::encoded_bytes(kBits, kBits));
  const auto df = FacProof::decode(ef, kBits, kBits);
  REQUIRE(df.value);
  CHECK(df.value->encode(kBits, kBits) == ef);
  Transcript tfv2 = transcript();
  CHECK(verify_fac(tfv2, n, f.rp.pub(), *df.value) == KeyCheck::kOk);
}

TEST_CASE("key proofs: Π_mod rejects moduli that are not Paillier-Blum, proven with their factors",
          "[sampling][paillier][keys][soundness]") {
  DeterministicRng rng(11);
  SECTION("three prime factors ≡ 3 mod 4") {
    const std::vector<BigInt> f{prime(232, 3, rng), prime(232, 3, rng), prime(240, 3, rng)};
    CHECK(check_bad_mod(f, rng) == KeyCheck::kFourthRoot);
  }
  SECTION("a prime N ≡ 3 mod 4 (passes both equations; rejected as prime)") {
    const std::vector<BigInt> f{prime(kBits, 3, rng)};
    const ModProof pr = bad_mod(f, rng);
    CHECK(check_mod(f[0], BigInt(5), pr) == KeyCheck::kModulus);
  }
  SECTION("p ≡ 1 mod 4") {
    const std::vector<BigInt> f{prime(kBits / 2, 1, rng), prime(kBits / 2, 3, rng)};
    CHECK(check_bad_mod(f, rng) == KeyCheck::kFourthRoot);
  }
  SECTION("gcd(N, φ(N)) ≠ 1: q = 2kp + 1 with p, q ≡ 3 mod 4") {
    const BigInt p = prime(340, 3, rng);
    BigInt q;
    for (unsigned long k = 1;; k += 2) {  // k odd: q ≡ 2p + 1 ≡ 3 mod 4
      mpz_mul_ui(q.get(), p.get(), 2 * k);
      mpz_add_ui(q.get(), q.get(), 1);
      if (mpz_probab_prime_p(q.get(), 30) != 0) break;
    }
    REQUIRE(mpz_fdiv_ui(q.get(), 4) == 3);
    const std::vector<BigInt> f{p, q};
    CHECK(check_bad_mod(f, rng) == KeyCheck::kNthRoot);
  }
  SECTION("a Blum modulus with a small factor passes Π_mod (Π_fac rejects it)") {
    const std::vector<BigInt> f{prime(48, 3, rng), prime(kBits - 48, 3, rng)};
    CHECK(check_bad_mod(f, rng) == KeyCheck::kOk);
  }
  SECTION("even, tiny and zero moduli") {
    const ModProof pr = bad_mod(std::vector<BigInt>{prime(352, 3, rng), prime(352, 3, rng)}, rng);
    BigInt even = product(std::vector<BigInt>{BigInt(2), prime(703, 3, rng)});
    CHECK(check_mod(even, BigInt(5), pr) == KeyCheck::kModulus);
    CHECK(check_mod(BigInt(0), BigInt(5), pr) == KeyCheck::kModulus);
    CHECK(check_mod(BigInt(21), BigInt(5), pr) == KeyCheck::kModulus);
  }
}

TEST_CASE("key proofs: Π_fac rejects a modulus with a small prime factor",
          "[sampling][paillier][keys][soundness]") {
  Keys f;
  DeterministicRng rng(12);
  for (unsigned small : {20U, 64U, 160U}) {
    DYNAMIC_SECTION("a " << small << "-bit factor") {
      const BigInt p = prime(small, 3, rng), q = prime(kBits - small, 3, rng);
      const BigInt n = product(std::vector<BigInt>{p, q});
      // Either order of the factors in the prover's algorithm.
      for (int swap = 0; swap < 2; ++swap) {
        Transcript t = transcript();
        const FacProof pr = detail::prove_fac_factors(t, n, swap ? q : p, swap ? p : q,
                                                      f.rp.pub(), rng);
        // It can be published (the fields have room for it) and is rejected by the range check.
        const auto d = FacProof::decode(pr.encode(n.bits(), kBits), n.bits(), kBits);
        REQUIRE(d.value);
        Transcript tv = transcript();
        CHECK(verify_fac(tv, n, f.rp.pub(), *d.value) == KeyCheck::kFacRange);
      }
    }
  }
  SECTION("a factor just below the proven bound is rejected, factors of equal size pass") {
    // The algorithm with factors of |N|/2 ± 8 bits still passes (the bound has 161 bits of
    // room); with a factor of |N|/2 − 170 bits it cannot.
    for (unsigned d : {8U, 170U}) {
      const BigInt p = prime(kBits / 2 - d, 3, rng), q = prime(kBits / 2 + d, 3, rng);
      const BigInt n = product(std::vector<BigInt>{p, q});
      Transcript t = transcript();
      const FacProof pr = detail::prove_fac_factors(t, n, p, q, f.rp.pub(), rng);
      Transcript tv = transcript();
      CHECK(verify_fac(tv, n, f.rp.pub(), pr) == (d == 8 ? KeyCheck::kOk : KeyCheck::kFacRange));
    }
  }
}

TEST_CASE("key proofs: Π_prm rejects parameters with s outside ⟨t⟩", "[sampling][paillier][keys][soundness]") {
  Keys f;
  // s replaced by an unrelated unit: the proof with the honest λ fails.
  RingPedersen bad = f.rp.pub();
  mpz_add_ui(bad.s.get(), bad.s.get(), 2);
  Transcript tp = transcript();
  const PrmProof pr = prove_prm(tp, f.rp, f.rng);
  Transcript tv = transcript();
  CHECK(verify_prm(tv, bad, pr) == KeyCheck::kPrmEquation);
  for (unsigned long v : {0UL, 1UL}) {
    RingPedersen b2 = f.rp.pub();
    b2.t = BigInt(v);
    Transcript t2 = transcript();
    CHECK(verify_prm(t2, b2, pr) == KeyCheck::kModulus);
  }
}

TEST_CASE("key proofs: tamper matrix", "[sampling][paillier][keys][tamper]") {
  Keys f;
  const BigInt& n = f.key.pub().n();
  const BigInt& h = f.key.pub().h();
  const std::size_t nb = (kBits + 7) / 8;
  Transcript tm = transcript();
  const auto em = prove_mod(tm, f.key, f.rng).encode(nb);
  Transcript tp = transcript();
  const auto ep = prove_prm(tp, f.rp, f.rng).encode(nb);
  Transcript tf = transcript();
  const auto ef = prove_fac(tf, f.key, f.rp.pub(), f.rng).encode(kBits, kBits);

  const auto mod_ok = [&](std::span<const std::uint8_t> b, const BigInt& nn, const BigInt& hh,
                          std::string_view ctx = "member 3") {
    const auto d = ModProof::decode(b, nb);
    return d.value && check_mod(nn, hh, *d.value, ctx) == KeyCheck::kOk;
  };
  const auto prm_ok = [&](std::span<const std::uint8_t> b, const RingPedersen& rp,
                          std::string_view ctx = "member 3") {
    const auto d = PrmProof::decode(b, nb);
    Transcript t = transcript(ctx);
    return d.value && verify_prm(t, rp, *d.value) == KeyCheck::kOk;
  };
  const auto fac_ok = [&](std::span<const std::uint8_t> b, const BigInt& n0, const RingPedersen& rp,
                          std::string_view ctx = "member 3") {
    const auto d = FacProof::decode(b, kBits, kBits);
    Transcript t = transcript(ctx);
    return d.value && verify_fac(t, n0, rp, *d.value) == KeyCheck::kOk;
  };
  REQUIRE(mod_ok(em, n, h));
  REQUIRE(prm_ok(ep, f.rp.pub()));
  REQUIRE(fac_ok(ef, n, f.rp.pub()));

  SECTION("every truncation and an extra byte: a length error") {
    for (const auto* e : {&em, &ep}) {
      for (std::size_t len = 0; len < e->size(); ++len) {
        const std::span<const std::uint8_t> cut(e->data(), len);
        const KeyCheck c = e == &em ? ModProof::decode(cut, nb).error : PrmProof::decode(cut, nb).error;
        CHECK(c == KeyCheck::kLength);
      }
      auto longer = *e;
      longer.push_back(0);
      CHECK((e == &em ? ModProof::decode(longer, nb).error : PrmProof::decode(longer, nb).error) ==
            KeyCheck::kLength);
    }
    for (std::size_t len = 0; len < ef.size(); ++len)
      CHECK(FacProof::decode(std::span(ef.data(), len), kBits, kBits).error == KeyCheck::kLength);
    auto longer = ef;
    longer.push_back(0);
    CHECK(FacProof::decode(longer, kBits, kBits).error == KeyCheck::kLength);
  }
  SECTION("bit flips in every field") {
    // Π_mod: w, the first and last round's x, z and flag byte; plus bytes spread over the proof.
    std::vector<std::size_t> at{0, nb - 1, nb, 2 * nb - 1, 2 * nb, 3 * nb - 1, 3 * nb,
                                em.size() - 2 * nb - 1, em.size() - nb - 1, em.size() - 1};
    for (std::size_t i = 0; i < em.size(); i += em.size() / 23) at.push_back(i);
    for (std::size_t i : at)
      for (unsigned bit : {0U, 7U}) {
        auto t = em;
        t[i] ^= static_cast<std::uint8_t>(1U << bit);
        CHECK_FALSE(mod_ok(t, n, h));
      }
    std::vector<std::size_t> ap{0, nb - 1, nb, 2 * nb - 1, ep.size() - 1};
    for (std::size_t i = 0; i < ep.size(); i += ep.size() / 23) ap.push_back(i);
    for (std::size_t i : ap) {
      auto t = ep;
      t[i] ^= 1;
      CHECK_FALSE(prm_ok(t, f.rp.pub()));
    }
    // Π_fac: the first and last byte of every field.
    const FacProof::Sizes s = FacProof::sizes(kBits, kBits);
    std::vector<std::size_t> lens{s.nb, s.nb, s.nb, s.nb, s.nb, s.zb, s.zb, s.wb, s.wb, s.vb};
    std::size_t off = 0;
    for (std::size_t len : lens) {
      for (std::size_t i : {off, off + len - 1}) {
        auto t = ef;
        t[i] ^= 1;
        CHECK_FALSE(fac_ok(t, n, f.rp.pub()));
      }
      off += len;
    }
    REQUIRE(off == ef.size());
  }
  SECTION("changed statement or context") {
    BigInt n2 = n, h2 = h;
    mpz_add_ui(n2.get(), n2.get(), 2);
    mpz_add_ui(h2.get(), h2.get(), 1);
    CHECK_FALSE(mod_ok(em, n2, h));
    CHECK_FALSE(mod_ok(em, n, h2));
    CHECK_FALSE(mod_ok(em, n, h, "member 4"));
    CHECK_FALSE(mod_ok(em, f.verifier.pub().n(), h));
    RingPedersen rp = f.rp.pub();
    mpz_powm_ui(rp.t.get(), rp.t.get(), 2, rp.n.get());
    CHECK_FALSE(prm_ok(ep, rp));
    CHECK_FALSE(prm_ok(ep, f.rp.pub(), "member 4"));
    CHECK_FALSE(fac_ok(ef, n2, f.rp.pub()));
    CHECK_FALSE(fac_ok(ef, f.verifier.pub().n(), f.rp.pub()));
    CHECK_FALSE(fac_ok(ef, n, rp));
    CHECK_FALSE(fac_ok(ef, n, f.rp.pub(), "member 4"));
  }
  SECTION("out-of-domain values are malformed, never an abort") {
    auto d = ModProof::decode(em, nb);
    REQUIRE(d.value);
    ModProof m = *d.value;
    m.x[5] = n;
    CHECK(check_mod(n, h, m) == KeyCheck::kMalformed);
    m = *d.value;
    m.z[0] = BigInt(0);
    CHECK(check_mod(n, h, m) == KeyCheck::kMalformed);
    m = *d.value;
    m.ab[3] = 4;
    CHECK(check_mod(n, h, m) == KeyCheck::kMalformed);
    m = *d.value;
    m.x.pop_back();
    CHECK(check_mod(n, h, m) == KeyCheck::kMalformed);
    auto flag = em;
    flag[nb + 2 * nb] = 4;  // the first round's flag byte
    CHECK(ModProof::decode(flag, nb).error == KeyCheck::kMalformed);
    m = *d.value;
    BigInt jac = m.w;  // a w of Jacobi symbol +1
    do {
      mpz_add_ui(jac.get(), jac.get(), 1);
    } while (mpz_jacobi(jac.get(), n.get()) != 1);
    m.w = jac;
    CHECK(check_mod(n, h, m) == KeyCheck::kJacobi);
    auto dp = PrmProof::decode(ep, nb);
    REQUIRE(dp.value);
    PrmProof p = *dp.value;
    p.z[2] = f.rp.pub().n;
    Transcript t = transcript();
    CHECK(verify_prm(t, f.rp.pub(), p) == KeyCheck::kMalformed);
    auto df = FacProof::decode(ef, kBits, kBits);
    REQUIRE(df.value);
    FacProof q = *df.value;
    q.T = f.rp.pub().n;
    Transcript t2 = transcript();
    CHECK(verify_fac(t2, n, f.rp.pub(), q) == KeyCheck::kMalformed);
    q = *df.value;
    mpz_neg(q.v.get(), q.v.get());
    Transcript t3 = transcript();
    CHECK(verify_fac(t3, n, f.rp.pub(), q) == KeyCheck::kMalformed);
  }
  SECTION("a response replaced after the challenge") {
    auto df = FacProof::decode(ef, kBits, kBits);
    REQUIRE(df.value);
    for (int field = 0; field < 5; ++field) {
      FacProof q = *df.value;
      BigInt* v[5] = {&q.z1, &q.z2, &q.w1, &q.w2, &q.v};
      mpz_add_ui(v[field]->get(), v[field]->get(), 1);
      Transcript t = transcript();
      CHECK(verify_fac(t, n, f.rp.pub(), q) == KeyCheck::kFacEquation);
    }
  }
}

TEST_CASE("key proofs: Π_prm's verdict on responses of every width matches t^z mod N",
          "[sampling][paillier][keys]") {
  Keys f;
  const RingPedersen& rp = f.rp.pub();
  const BigInt& n = rp.n;
  Transcript tp = transcript();
  const PrmProof honest = prove_prm(tp, f.rp, f.rng);
  const auto verdict = [&](const PrmProof& p) {
    Transcript t = transcript();
    return verify_prm(t, rp, p);
  };
  REQUIRE(verdict(honest) == KeyCheck::kOk);
  // t^λ = 1 for λ = lcm(p − 1, q − 1): the responses z_i + k·λ < N and z_i mod λ pass as z_i.
  BigInt pm1, qm1, lam;
  mpz_sub_ui(pm1.get(), f.verifier.p().get(), 1);
  mpz_sub_ui(qm1.get(), f.verifier.q().get(), 1);
  mpz_lcm(lam.get(), pm1.get(), qm1.get());
  PrmProof wide = honest, narrow = honest;
  std::size_t widest = 0;
  for (unsigned i = 0; i < KeyProofParams::kPrmRounds; ++i) {
    BigInt k;  // the largest k with z_i + k·λ ≤ N − 1
    mpz_sub(k.get(), n.get(), honest.z[i].get());
    mpz_sub_ui(k.get(), k.get(), 1);
    mpz_fdiv_q(k.get(), k.get(), lam.get());
    mpz_addmul(wide.z[i].get(), k.get(), lam.get());
    widest = std::max(widest, wide.z[i].bits());
    mpz_mod(narrow.z[i].get(), honest.z[i].get(), lam.get());
  }
  CHECK(widest == n.bits());
  CHECK(verdict(wide) == KeyCheck::kOk);
  CHECK(verdict(narrow) == KeyCheck::kOk);
  // One round's response replaced: the verdict is whether t^z ≡ t^(z_3) (= A_3·s^(e_3)).
  BigInt rhs, top, half, plus_one, nm1;
  mpz_powm(rhs.get(), rp.t.get(), honest.z[3].get(), n.get());
  mpz_setbit(top.get(), static_cast<mp_bitcnt_t>(n.bits() - 1));
  mpz_fdiv_q_2exp(half.get(), lam.get(), 1);
  mpz_add(half.get(), half.get(), honest.z[3].get());
  mpz_mod(half.get(), half.get(), n.get());
  mpz_add_ui(plus_one.get(), honest.z[3].get(), 1);
  mpz_sub_ui(nm1.get(), n.get(), 1);
  for (const BigInt& z : {BigInt(0), BigInt(1), BigInt(2), nm1, top, half, plus_one, wide.z[3]}) {
    PrmProof p = honest;
    p.z[3] = z;
    BigInt lhs;
    mpz_powm(lhs.get(), rp.t.get(), z.get(), n.get());
    CHECK(verdict(p) == (lhs == rhs ? KeyCheck::kOk : KeyCheck::kPrmEquation));
  }
}
