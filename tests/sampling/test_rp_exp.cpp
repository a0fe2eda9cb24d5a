// Fixed-base ring-Pedersen exponentiations (src/sampling/rp_exp.hpp): differential tests against
// GMP's mpz_powm, and the owner's CRT check against the public check.
#include <gmp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "../../src/sampling/modarith.hpp"
#include "../../src/sampling/rp_exp.hpp"  // internal
#include "gopa/sampling/key_proofs.hpp"
#include "gopa/sampling/paillier.hpp"

using namespace gopa;
using namespace gopa::sampling;

namespace {

BigInt powm(const BigInt& g, const BigInt& e, const BigInt& m) {
  BigInt r;
  mpz_powm(r.get(), g.get(), e.get(), m.get());
  return r;
}

BigInt mulmod(const BigInt& a, const BigInt& b, const BigInt& m) {
  BigInt r;
  mpz_mul(r.get(), a.get(), b.get());
  mpz_mod(r.get(), r.get(), m.get());
  return r;
}

BigInt below(const BigInt& m, Rng& rng) {
  BigInt r = BigInt::random_bits(static_cast<unsigned>(m.bits()) + 64, rng);
  mpz_mod(r.get(), r.get(), m.get());
  return r;
}

BigInt ones(unsigned bits) {  // 2^bits − 1
  BigInt r;
  mpz_setbit(r.get(), bits);
  mpz_sub_ui(r.get(), r.get(), 1);
  return r;
}

// An odd composite modulus of exactly `bits` bits: the product of two random odd halves.
BigInt odd_composite(unsigned bits, Rng& rng) {
  for (;;) {
    BigInt a = BigInt::random_bits(bits / 2, rng), b = BigInt::random_bits(bits - bits / 2, rng);
    mpz_setbit(a.get(), bits / 2 - 1);
    mpz_setbit(b.get(), bits - bits / 2 - 1);
    mpz_setbit(a.get(), 0);
    mpz_setbit(b.get(), 0);
    BigInt m;
    mpz_mul(m.get(), a.get(), b.get());
    if (m.bits() == bits) return m;
  }
}

// Exponents of at most `bits` bits: the edge cases and random ones (some with the top bit set).
std::vector<BigInt> exponents(unsigned bits, Rng& rng, int random) {
  std::vector<BigInt> v;
  v.emplace_back(0);
  v.emplace_back(1);
  v.push_back(ones(bits));
  BigInt top;
  mpz_setbit(top.get(), bits - 1);
  v.push_back(top);
  for (int i = 0; i < random; ++i) {
    BigInt x = BigInt::random_bits(bits, rng);
    if (i % 2 == 0) mpz_setbit(x.get(), bits - 1);
    v.push_back(x);
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
double median_ms(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto a = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  return median(t);
}

}  // namespace

TEST_CASE("rp_exp: fixed-base powers agree with mpz_powm", "[sampling][rp_exp]") {
  DeterministicRng rng(91);
  struct Size {
    unsigned mod_bits, exp_bits;
  };
  for (const Size sz : {Size{674, 253}, Size{674, 714}, Size{1000, 65}, Size{2048, 373},
                        Size{2048, 2208}, Size{4096, 300}}) {
    CAPTURE(sz.mod_bits, sz.exp_bits);
    const BigInt m = odd_composite(sz.mod_bits, rng);
    REQUIRE(mpz_probab_prime_p(m.get(), 10) == 0);
    BigInt big_base = m;  // a base ≥ M is reduced
    mpz_add_ui(big_base.get(), big_base.get(), 12345);
    BigInt m_minus_1 = m;
    mpz_sub_ui(m_minus_1.get(), m_minus_1.get(), 1);
    const std::vector<BigInt> bases = {below(m, rng), BigInt(2), m_minus_1, big_base};
    for (std::size_t bi = 0; bi < bases.size(); ++bi) {
      const FixedBaseSec fb(bases[bi], m, sz.exp_bits);
      CHECK(fb.max_bits() == sz.exp_bits);
      CHECK((fb.window() == 4 || fb.window() == 5));
      const int random = bi == 0 ? 6 : 2;
      for (const BigInt& x : exponents(sz.exp_bits, rng, random)) {
        const BigInt r = fb.pow(x);
        CHECK(r == powm(bases[bi], x, m));
        CHECK(mpz_cmp(r.get(), m.get()) < 0);
      }
    }
  }
}

TEST_CASE("rp_exp: every window size, degenerate bases and moduli near R", "[sampling][rp_exp]") {
  DeterministicRng rng(92);
  // 2^768 − 1 (odd, composite, as close to R = 2^768 as possible), an odd composite, 3^441.
  BigInt three_pow;
  mpz_ui_pow_ui(three_pow.get(), 3, 441);
  for (const BigInt& m : {ones(768), odd_composite(700, rng), three_pow}) {
    for (unsigned w = 1; w <= 8; ++w) {
      CAPTURE(m.bits(), w);
      for (const BigInt& g : {below(m, rng), BigInt(0), BigInt(1), BigInt(3)}) {
        const FixedBaseSec fb(g, m, 131, w);
        CHECK(fb.window() == w);
        for (const BigInt& x : exponents(131, rng, 2)) CHECK(fb.pow(x) == powm(g, x, m));
      }
    }
  }
}

TEST_CASE("rp_exp: products of fixed-base powers", "[sampling][rp_exp]") {
  DeterministicRng rng(93);
  for (unsigned mod_bits : {674U, 2048U}) {
    CAPTURE(mod_bits);
    const BigInt m = odd_composite(mod_bits, rng);
    const BigInt g1 = below(m, rng), g2 = below(m, rng), g3 = below(m, rng);
    const FixedBaseSec s(g1, m, 373), t(g2, m, mod_bits + 160), u(g3, m, 100, 4);
    const FixedBaseSec* st[2] = {&s, &t};
    const FixedBaseSec* stu[3] = {&s, &t, &u};
    for (int i = 0; i < 6; ++i) {
      // The prover's S = s^x·t^m (widths 253 and |N̂| + 40) and D = s^y·t^γ (373, |N̂| + 160).
      const BigInt x = BigInt::random_bits(253, rng), mu = BigInt::random_bits(mod_bits + 40, rng);
      const BigInt y = BigInt::random_bits(373, rng), ga = BigInt::random_bits(mod_bits + 160, rng);
      const BigInt xm[2] = {x, mu};
      const unsigned xm_bits[2] = {253, mod_bits + 40};
      const BigInt want_s = mulmod(powm(g1, x, m), powm(g2, mu, m), m);
      CHECK(multi_pow_sec(st, xm, xm_bits) == want_s);
      CHECK(multi_pow_sec(st, xm) == want_s);
      const BigInt yg[2] = {y, ga};
      CHECK(multi_pow_sec(st, yg) == mulmod(powm(g1, y, m), powm(g2, ga, m), m));
      const BigInt k = BigInt::random_bits(100, rng);
      const BigInt ygk[3] = {y, ga, k};
      CHECK(multi_pow_sec(stu, ygk) ==
            mulmod(mulmod(powm(g1, y, m), powm(g2, ga, m), m), powm(g3, k, m), m));
    }
    // Exponents 0 (also of width 0), repeated bases.
    const BigInt zero[2] = {BigInt(0), BigInt(0)};
    CHECK(multi_pow_sec(st, zero) == BigInt(1));
    const unsigned no_bits[2] = {0, 0};
    CHECK(multi_pow_sec(st, zero, no_bits) == BigInt(1));
    const BigInt x = ones(373);
    const BigInt x0[2] = {x, BigInt(0)};
    CHECK(multi_pow_sec(st, x0) == powm(g1, x, m));
    const FixedBaseSec* ss[2] = {&s, &s};
    const BigInt xx[2] = {x, BigInt(5)};
    BigInt sum = x;
    mpz_add_ui(sum.get(), sum.get(), 5);
    CHECK(multi_pow_sec(ss, xx) == powm(g1, sum, m));
  }
}

TEST_CASE("rp_exp: concurrent evaluations share the tables", "[sampling][rp_exp][tsan]") {
  DeterministicRng rng(96);
  const BigInt m = odd_composite(1024, rng);
  const BigInt g1 = below(m, rng), g2 = below(m, rng);
  const FixedBaseSec s(g1, m, 373), t(g2, m, 1184);
  const FixedBaseSec* st[2] = {&s, &t};
  constexpr int kThreads = 2, kEach = 8;
  std::vector<BigInt> ex, want;
  for (int i = 0; i < kThreads * kEach; ++i) {
    ex.push_back(BigInt::random_bits(373, rng));
    ex.push_back(BigInt::random_bits(1184, rng));
    want.push_back(mulmod(powm(g1, ex[ex.size() - 2], m), powm(g2, ex.back(), m), m));
  }
  std::vector<BigInt> got(want.size());
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      for (int i = th * kEach; i < (th + 1) * kEach; ++i)
        got[static_cast<std::size_t>(i)] =
            multi_pow_sec(st, std::span<const BigInt>(&ex[2 * static_cast<std::size_t>(i)], 2));
    });
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(got[i] == want[i]);
}

namespace {

// The honest D for given exponents and S, e: D = s^z·t^w·S^(−e) (S a unit).
BigInt honest_d(const RingPedersen& rp, const BigInt& z, const BigInt& w, const BigInt& S,
                const BigInt& e) {
  BigInt inv;
  REQUIRE(mpz_invert(inv.get(), S.get(), rp.n.get()) != 0);
  return mulmod(modarith::pow2(rp.s, z, rp.t, w, rp.n), powm(inv, e, rp.n), rp.n);
}

bool public_check(const RingPedersen& rp, const BigInt& z, const BigInt& w, const BigInt& D,
                  const BigInt& S, const BigInt& e) {
  return modarith::pow2(rp.s, z, rp.t, w, rp.n) == mulmod(D, powm(S, e, rp.n), rp.n);
}

// A value ≡ a mod p and ≡ b mod q.
BigInt crt(const BigInt& a, const BigInt& b, const BigInt& p, const BigInt& q) {
  BigInt qinv, h, r;
  REQUIRE(mpz_invert(qinv.get(), q.get(), p.get()) != 0);
  mpz_sub(h.get(), a.get(), b.get());
  mpz_mul(h.get(), h.get(), qinv.get());
  mpz_mod(h.get(), h.get(), p.get());
  mpz_mul(r.get(), h.get(), q.get());
  mpz_add(r.get(), r.get(), b.get());
  return r;
}

}  // namespace

TEST_CASE("rp_exp: the owner's check agrees with the public check", "[sampling][rp_exp]") {
  DeterministicRng rng(94);
  for (unsigned bits : {674U, 1024U}) {
    CAPTURE(bits);
    const PaillierKey key = PaillierKey::generate(bits, rng);
    const RingPedersen rp = RingPedersenSecret::generate(key, rng).pub();
    const BigInt& p = key.p();
    const BigInt& q = key.q();
    const BigInt& n = rp.n;
    for (unsigned w : {1U, 6U, 8U}) {
      CAPTURE(w);
      // The encoding's widths: z int(72), w int(⌈(|N̂| + 161)/8⌉).
      const RpOwnerCheck own(p, q, rp.s, rp.t, 8 * 72, 8 * ((bits + 161 + 7) / 8), w);
      REQUIRE(own.n() == n);
      // The exact check, and the check mod p, which agrees with the equation mod p.
      const auto check = [&](const BigInt& z, const BigInt& ww, const BigInt& D, const BigInt& S,
                             const BigInt& e) {
        const bool want = public_check(rp, z, ww, D, S, e);
        CHECK(own.holds(z, ww, D, S, e) == want);
        const RingPedersen mod_p{p, rp.s, rp.t};
        CHECK(own.holds_mod_p(z, ww, D, S, e) == public_check(mod_p, z, ww, D, S, e));
        return want;
      };
      const int rounds = w == 6 ? 8 : 2;
      for (int i = 0; i < rounds; ++i) {
        // Verifier-side sizes: z < 2^373, w < 2^(|N̂| + 161), e < 2^80; also exponents ≥ p − 1.
        const BigInt z = BigInt::random_bits(373, rng);
        const BigInt ww = BigInt::random_bits(bits + 161, rng);
        const BigInt e = BigInt::random_bits(80, rng);
        BigInt S;
        do S = below(n, rng);
        while (mpz_sgn(S.get()) == 0);
        BigInt g;
        mpz_gcd(g.get(), S.get(), n.get());
        REQUIRE(mpz_cmp_ui(g.get(), 1) == 0);
        const BigInt D = honest_d(rp, z, ww, S, e);
        CHECK(check(z, ww, D, S, e));
        // D + 1, −D, D·S (e off by one), D ≡ right mod p only, D ≡ right mod q only.
        BigInt d1 = D;
        mpz_add_ui(d1.get(), d1.get(), 1);
        mpz_mod(d1.get(), d1.get(), n.get());
        CHECK_FALSE(check(z, ww, d1, S, e));
        BigInt neg;
        mpz_sub(neg.get(), n.get(), D.get());
        CHECK_FALSE(check(z, ww, neg, S, e));
        CHECK_FALSE(check(z, ww, mulmod(D, S, n), S, e));
        BigInt dq = D;
        mpz_add_ui(dq.get(), dq.get(), 1);
        const BigInt only_p = crt(D, dq, p, q), only_q = crt(dq, D, p, q);
        CHECK_FALSE(check(z, ww, only_p, S, e));
        CHECK_FALSE(check(z, ww, only_q, S, e));
        // Mod p only: a value right mod p alone passes it (and gcd(X − 1, N̂) = p), one right mod
        // q alone does not.
        CHECK(own.holds_mod_p(z, ww, only_p, S, e));
        CHECK_FALSE(own.holds_mod_p(z, ww, only_q, S, e));
        // Wrong exponents: z + 1, w + 1, e + 1.
        BigInt z1 = z, w1 = ww, e1 = e;
        mpz_add_ui(z1.get(), z1.get(), 1);
        mpz_add_ui(w1.get(), w1.get(), 1);
        mpz_add_ui(e1.get(), e1.get(), 1);
        CHECK_FALSE(check(z1, ww, D, S, e));
        CHECK_FALSE(check(z, w1, D, S, e));
        CHECK_FALSE(check(z, ww, D, S, e1));
        // Exponents shifted by multiples of p − 1 only: right mod p, wrong mod q (s, t have
        // order > 1 mod q), and shifted by φ(N̂): right (the owner reduces them).
        BigInt pm1, qm1, phi, zp, zphi;
        mpz_sub_ui(pm1.get(), p.get(), 1);
        mpz_sub_ui(qm1.get(), q.get(), 1);
        mpz_mul(phi.get(), pm1.get(), qm1.get());
        mpz_add(zp.get(), z.get(), pm1.get());
        mpz_add(zphi.get(), ww.get(), phi.get());
        check(zp, ww, D, S, e);
        CHECK(check(z, zphi, D, S, e));
        BigInt big_z = z;
        mpz_addmul(big_z.get(), phi.get(), BigInt::random_bits(200, rng).get());
        CHECK(check(big_z, ww, D, S, e));
        // e = 0, z = w = 0.
        const BigInt zero(0);
        CHECK(check(z, ww, modarith::pow2(rp.s, z, rp.t, ww, n), S, zero));
        CHECK(check(zero, zero, BigInt(1), S, zero));
        CHECK_FALSE(check(zero, zero, BigInt(1), S, e));
        CHECK(check(zero, zero, honest_d(rp, zero, zero, S, e), S, e));
      }
      // S or D not a unit (a multiple of p, of q, or 0): the left side is a unit, so the
      // equation holds only for e = 0 (then S does not matter) and never for D a non-unit.
      const BigInt z = BigInt::random_bits(373, rng), ww = BigInt::random_bits(bits + 161, rng);
      const BigInt e = BigInt::random_bits(80, rng);
      const BigInt lhs = modarith::pow2(rp.s, z, rp.t, ww, n);
      const BigInt k = BigInt::random_bits(40, rng);
      for (const BigInt& bad : {mulmod(p, k, n), mulmod(q, k, n), BigInt(0), p, q}) {
        CHECK(check(z, ww, lhs, bad, BigInt(0)));
        CHECK_FALSE(check(z, ww, lhs, bad, e));
        CHECK_FALSE(check(z, ww, lhs, bad, BigInt(1)));
        CHECK_FALSE(check(z, ww, bad, lhs, e));
        CHECK_FALSE(check(z, ww, bad, bad, BigInt(0)));
        CHECK_FALSE(check(z, ww, bad, lhs, BigInt(0)));
      }
      // Right mod p, S ≡ 0 mod q: holds mod p only.
      BigInt S;
      do S = below(n, rng);
      while (mpz_sgn(S.get()) == 0);
      const BigInt D = honest_d(rp, z, ww, S, e);
      CHECK_FALSE(check(z, ww, D, crt(S, BigInt(0), p, q), e));
    }
  }
}

// Timing (not run by default, nor by "[rp_exp]"): ./test_sampling "[.bench][rp_exp_bench]".
TEST_CASE("rp_exp: timings at a 2048-bit N̂", "[.bench][rp_exp_bench]") {
  DeterministicRng rng(95);
  const PaillierKey key = PaillierKey::generate(2048, rng);
  const RingPedersen rp = RingPedersenSecret::generate(key, rng).pub();
  const BigInt& n = rp.n;
  const unsigned nh = static_cast<unsigned>(n.bits());
  const int reps = 31;
  // Prover: S = s^x·t^m, D = s^y·t^γ.
  const BigInt x = BigInt::random_bits(253, rng), mu = BigInt::random_bits(nh + 40, rng);
  const BigInt y = BigInt::random_bits(373, rng), ga = BigInt::random_bits(nh + 160, rng);
  const BigInt want_s = modarith::pow2_sec(rp.s, x, rp.t, mu, n);
  const BigInt want_d = modarith::pow2_sec(rp.s, y, rp.t, ga, n);
  const double t_sec = median_ms(reps, [&] {
    const BigInt a = modarith::pow2_sec(rp.s, x, rp.t, mu, n);
    const BigInt b = modarith::pow2_sec(rp.s, y, rp.t, ga, n);
    REQUIRE((a == want_s && b == want_d));
  });
  std::printf("prover S and D, pow2_sec (mpz_powm_sec): %.3f ms\n", t_sec);
  for (unsigned w : {4U, 5U, 6U}) {
    const auto a0 = std::chrono::steady_clock::now();
    const FixedBaseSec s_tab(rp.s, n, 373, w), t_tab(rp.t, n, nh + 160, w);
    const double build =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a0).count();
    const FixedBaseSec* st[2] = {&s_tab, &t_tab};
    const BigInt xm[2] = {x, mu}, yg[2] = {y, ga};
    const unsigned xm_bits[2] = {253, nh + 40}, yg_bits[2] = {373, nh + 160};
    const double t_fb = median_ms(reps, [&] {
      const BigInt a = multi_pow_sec(st, xm, xm_bits);
      const BigInt b = multi_pow_sec(st, yg, yg_bits);
      REQUIRE((a == want_s && b == want_d));
    });
    std::printf("prover S and D, multi_pow_sec w=%u: %.3f ms (%.1fx), tables %.2f MiB (s %.2f, t %.2f), "
                "built in %.1f ms\n",
                w, t_fb, t_sec / t_fb,
                static_cast<double>(s_tab.table_bytes() + t_tab.table_bytes()) / (1 << 20),
                static_cast<double>(s_tab.table_bytes()) / (1 << 20),
                static_cast<double>(t_tab.table_bytes()) / (1 << 20), build);
  }
  {
    const FixedBaseSec s_tab(rp.s, n, 373), t_tab(rp.t, n, nh + 160);
    std::printf("auto windows: s w=%u, t w=%u\n", s_tab.window(), t_tab.window());
  }
  // Verifier (owner of N̂): s^z·t^w == D·S^e.
  const BigInt z = BigInt::random_bits(373, rng), w = BigInt::random_bits(nh + 161, rng);
  const BigInt e = BigInt::random_bits(80, rng);
  const BigInt S = below(n, rng);
  const BigInt D = honest_d(rp, z, w, S, e);
  const double t_pub = median_ms(reps, [&] { REQUIRE(public_check(rp, z, w, D, S, e)); });
  std::printf("public check (pow2 + powm + mulmod): %.3f ms\n", t_pub);
  for (unsigned win : {5U, 6U, 7U, 8U}) {
    const auto a0 = std::chrono::steady_clock::now();
    const RpOwnerCheck own(key.p(), key.q(), rp.s, rp.t, 8 * 72, 8 * ((nh + 161 + 7) / 8), win);
    const double build =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a0).count();
    const double t_own = median_ms(reps, [&] { REQUIRE(own.holds(z, w, D, S, e)); });
    const double t_p = median_ms(reps, [&] { REQUIRE(own.holds_mod_p(z, w, D, S, e)); });
    std::printf("owner check w=%u: %.3f ms (%.1fx), mod p only %.3f ms, tables %.2f MiB, built in "
                "%.1f ms\n",
                win, t_own, t_pub / t_own, t_p, static_cast<double>(own.table_bytes()) / (1 << 20),
                build);
  }
}

// Timing (not run by default): ./test_sampling "[.bench][paillier_enc_bench]".
TEST_CASE("paillier: encryption timings at a 2048-bit N", "[.bench][paillier_enc_bench]") {
  DeterministicRng rng(96);
  const PaillierKey key = PaillierKey::generate(2048, rng);
  const PaillierPublic& pk = key.pub();
  const int reps = 101;
  const BigInt m = BigInt::random_bits(2000, rng);
  for (unsigned bits : {PaillierKey::kAlphaBits, PaillierPublic::kExpBits}) {
    const BigInt a = BigInt::random_bits(bits, rng);
    const double t_ct = median_ms(reps, [&] { (void)pk.encrypt(m, a, bits); });
    const double t_pub = median_ms(reps, [&] { (void)pk.encrypt_public(m, a); });
    const double t_own = median_ms(reps, [&] { (void)key.encrypt_own(m, a, bits); });
    std::printf("encrypt, %u-bit randomness: constant time %.3f ms, by the owner (CRT) %.3f ms, "
                "public %.3f ms (variable time)\n",
                bits, t_ct, t_own, t_pub);
  }
  const BigInt c = pk.encrypt(m, BigInt::random_bits(256, rng));
  const double t_dec = median_ms(reps, [&] { (void)key.decrypt(c); });
  const double t_var = median_ms(reps, [&] { (void)key.decrypt_variable_time(c); });
  std::printf("decrypt: constant time %.3f ms, variable time (GMP, mpz_powm_sec) %.3f ms\n", t_dec,
              t_var);
}
