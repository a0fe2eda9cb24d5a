// The multi-modular Toeplitz product (src/sigma/ntt.hpp): its constants against GMP, Chinese
// remaindering at the edges of its range, and products against the schoolbook definition, on
// the portable path and on the AVX-512 IFMA path (when the CPU has it), which must agree.
#include <gmp.h>

#include <catch2/catch.hpp>

#include "../../src/group/simd.hpp"  // internal: the AVX-512 IFMA switch
#include "gopa/random.hpp"
#include "gopa/sigma/field.hpp"
#include "ntt.hpp"
#include "ntt_ifma.hpp"
#include "poly.hpp"

using namespace gopa;
using namespace gopa::sigma;

namespace {

struct Mpz {
  mpz_t v;
  Mpz() { mpz_init(v); }
  explicit Mpz(std::uint64_t x) {
    mpz_init(v);
    mpz_import(v, 1, -1, sizeof x, 0, 0, &x);
  }
  ~Mpz() { mpz_clear(v); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
};

void set_limbs(mpz_t out, const std::uint64_t* limbs, std::size_t n) {
  mpz_import(out, n, -1, sizeof(std::uint64_t), 0, 0, limbs);
}

field::Fe fe_of_mpz(const mpz_t x) {  // x < 2^256, as raw limbs
  field::Fe r;
  std::size_t count = 0;
  mpz_export(r.v, &count, -1, sizeof(std::uint64_t), 0, 0, x);
  REQUIRE(count <= 4);
  return r;
}

bool same(const field::Fe& a, const field::Fe& b) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2] && a.v[3] == b.v[3];
}

// v mod p_k for every prime of a set (ntt::kP by default), by GMP.
template <std::size_t K = ntt::kPrimes>
std::array<std::uint64_t, K> gmp_residues(const mpz_t v,
                                          const std::array<std::uint64_t, K>& primes = ntt::kP) {
  std::array<std::uint64_t, K> r{};
  Mpz m;
  for (std::size_t k = 0; k < K; ++k) {
    Mpz mp(primes[k]);
    mpz_mod(m.v, v, mp.v);
    r[k] = mpz_get_ui(m.v);
  }
  return r;
}

// The paths to test: portable, and IFMA when the CPU has it.
std::vector<bool> paths() {
  std::vector<bool> p{false};
  if (detail::ifma_supported()) p.push_back(true);
  return p;
}

// ℓ as an integer.
void ell(mpz_t out) { set_limbs(out, field::kL, 4); }

field::Fe random_fe(Rng& rng) { return field::of(Scalar::random(rng)); }

// y[i] = Σ_j t[n−1+i−j]·x[j], straight from the definition.
field::Fe schoolbook_at(const std::vector<field::Fe>& t, const std::vector<field::Fe>& x,
                        std::size_t i) {
  const std::size_t n = x.size();
  field::Fe y;
  for (std::size_t j = 0; j < n; ++j) y = field::add(y, field::mul(t[n - 1 + i - j], x[j]));
  return y;
}
std::vector<field::Fe> schoolbook(const std::vector<field::Fe>& t, const std::vector<field::Fe>& x) {
  std::vector<field::Fe> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = schoolbook_at(t, x, i);
  return y;
}

bool all_same(const std::vector<field::Fe>& a, const std::vector<field::Fe>& b) {
  bool ok = a.size() == b.size();
  for (std::size_t i = 0; ok && i < a.size(); ++i) ok = same(a[i], b[i]);
  return ok;
}

// The Montgomery representative ℓ − 1 (the largest entry of x) and the diagonal −1 (whose
// integer, out of Montgomery form, is ℓ − 1).
const field::Fe kTop{{field::kL[0] - 1, field::kL[1], field::kL[2], field::kL[3]}};

}  // namespace

TEST_CASE("ntt: the primes, their roots and their range", "[sigma][ntt]") {
  Mpz prod(1), bound, l;
  ell(l.v);
  for (std::size_t k = 0; k < ntt::kPrimes; ++k) {
    const std::uint64_t p = ntt::kP[k];
    CAPTURE(k, p);
    Mpz mp(p);
    CHECK(mpz_probab_prime_p(mp.v, 50) > 0);
    CHECK(p > (std::uint64_t{1} << 60));
    CHECK(p < (std::uint64_t{1} << 61));
    CHECK((p - 1) % (std::uint64_t{1} << ntt::kMaxLog) == 0);
    for (std::size_t j = 0; j < k; ++j) CHECK(ntt::kP[j] != p);
    // The root has order exactly 2^kMaxLog: its 2^(kMaxLog−1)-th power is −1.
    Mpz r(ntt::kRoot[k]), e, out;
    mpz_ui_pow_ui(e.v, 2, ntt::kMaxLog - 1);
    mpz_powm(out.v, r.v, e.v, mp.v);
    mpz_add_ui(out.v, out.v, 1);
    CHECK(mpz_cmp(out.v, mp.v) == 0);
    mpz_mul(prod.v, prod.v, mp.v);
  }
  // Every output of a product of size ≤ kMaxSize is below kMaxSize·(ℓ − 1)² < Π p.
  mpz_sub_ui(bound.v, l.v, 1);
  mpz_mul(bound.v, bound.v, bound.v);
  mpz_mul_ui(bound.v, bound.v, ntt::kMaxSize);
  CHECK(mpz_cmp(bound.v, prod.v) < 0);
}

TEST_CASE("ntt: residues and Chinese remaindering", "[sigma][ntt]") {
  DeterministicRng rng(31);
  Mpz l, prod(1);
  ell(l.v);
  for (std::uint64_t p : ntt::kP) {
    Mpz mp(p);
    mpz_mul(prod.v, prod.v, mp.v);
  }
  // Round trip through the residues of 256-bit values, including 0, 1, ℓ − 1 and 2^256 − 1.
  std::vector<field::Fe> xs = {field::Fe{}, field::Fe{{1, 0, 0, 0}},
                               field::Fe{{field::kL[0] - 1, field::kL[1], field::kL[2], field::kL[3]}}};
  for (int i = 0; i < 200; ++i) xs.push_back(random_fe(rng));
  for (const field::Fe& x : xs) {
    Mpz v;
    set_limbs(v.v, x.v, 4);
    const auto r = ntt::residues(x);
    CHECK(r == gmp_residues(v.v));
    CHECK(same(ntt::reconstruct(r), x));
  }
  const field::Fe all_ones{{~0ULL, ~0ULL, ~0ULL, ~0ULL}};
  {
    Mpz v;
    set_limbs(v.v, all_ones.v, 4);
    CHECK(ntt::residues(all_ones) == gmp_residues(v.v));
  }
  // Integers up to Π p − 1 come back mod ℓ: random ones, and the largest.
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, 7);
  for (int i = 0; i < 201; ++i) {
    Mpz big, want;
    if (i == 200) {
      mpz_sub_ui(big.v, prod.v, 1);
    } else {
      mpz_urandomm(big.v, st, prod.v);
    }
    mpz_mod(want.v, big.v, l.v);
    CHECK(same(ntt::reconstruct(gmp_residues(big.v)), fe_of_mpz(want.v)));
  }
  gmp_randclear(st);
}

TEST_CASE("ntt: Toeplitz products against the schoolbook", "[sigma][ntt]") {
  for (const bool wide : paths()) {
    CAPTURE(wide);
    const detail::ScopedIfma path(wide);
    DeterministicRng rng(32);
    for (std::size_t n : {1U, 2U, 3U, 4U, 5U, 31U, 64U, 65U, 100U, 257U, 700U}) {
      CAPTURE(n);
      std::vector<field::Fe> t(2 * n - 1), x(n);
      for (auto& v : t) v = random_fe(rng);
      for (auto& v : x) v = random_fe(rng);
      const ntt::ToeplitzPlan plan(t);
      REQUIRE(plan.size() == n);
      std::vector<field::Fe> y(n);
      for (auto& v : y) v = random_fe(rng);  // apply() adds to y
      std::vector<field::Fe> want = schoolbook(t, x);
      for (std::size_t i = 0; i < n; ++i) want[i] = field::add(want[i], y[i]);
      plan.apply(x, y);
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && same(y[i], want[i]);
      CHECK(ok);
    }
    // The largest entries the transforms see: x's Montgomery representative ℓ − 1 and t = −1
    // (taken out of Montgomery form: the integer ℓ − 1), over a transform with no slack
    // (2n − 1 = 2^11 − 1). The sums, n·(ℓ − 1)² ≈ 2^515, stay below Π p; the bound for the
    // largest n is checked against GMP above.
    const field::Fe top{{field::kL[0] - 1, field::kL[1], field::kL[2], field::kL[3]}};
    const std::size_t n = 1024;
    std::vector<field::Fe> t(2 * n - 1, field::neg(field::one())), x(n, top);
    const ntt::ToeplitzPlan plan(t);
    std::vector<field::Fe> y(n);
    plan.apply(x, y);
    const std::vector<field::Fe> want = schoolbook(t, x);
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) ok = ok && same(y[i], want[i]);
    CHECK(ok);
    // Smaller products after a larger one: their twiddles are a prefix of the larger table.
    for (std::size_t m : {5U, 65U, 128U}) {
      CAPTURE(m);
      std::vector<field::Fe> tt(2 * m - 1), xx(m);
      for (auto& v : tt) v = random_fe(rng);
      for (auto& v : xx) v = random_fe(rng);
      std::vector<field::Fe> yy(m);
      ntt::ToeplitzPlan(tt).apply(xx, yy);
      const std::vector<field::Fe> w = schoolbook(tt, xx);
      bool same_all = true;
      for (std::size_t i = 0; i < m; ++i) same_all = same_all && same(yy[i], w[i]);
      CHECK(same_all);
    }
  }
}

TEST_CASE("ntt: the IFMA path's primes, their roots and their range", "[sigma][ntt]") {
  Mpz prod(1), bound, l;
  ell(l.v);
  for (std::size_t k = 0; k < ntt::ifma::kPrimes; ++k) {
    const std::uint64_t q = ntt::ifma::kP[k];
    CAPTURE(k, q);
    Mpz mq(q);
    CHECK(mpz_probab_prime_p(mq.v, 50) > 0);
    CHECK(q > (std::uint64_t{1} << 49));
    CHECK(q < (std::uint64_t{1} << 50));  // 4q < 2^52: the lazy ranges fit IFMA inputs
    CHECK((q - 1) % (std::uint64_t{1} << ntt::kMaxLog) == 0);
    for (std::size_t j = 0; j < k; ++j) CHECK(ntt::ifma::kP[j] != q);
    Mpz r(ntt::ifma::kRoot[k]), e, out;
    mpz_ui_pow_ui(e.v, 2, ntt::kMaxLog - 1);
    mpz_powm(out.v, r.v, e.v, mq.v);
    mpz_add_ui(out.v, out.v, 1);
    CHECK(mpz_cmp(out.v, mq.v) == 0);
    mpz_mul(prod.v, prod.v, mq.v);
  }
  // Every output of a product of size ≤ kMaxSize is below kMaxSize·(ℓ − 1)² < Π q / 2^25: the
  // CRT sum's estimate of its multiple of Π q needs X < Π q / 4 (ntt_ifma.cpp).
  mpz_sub_ui(bound.v, l.v, 1);
  mpz_mul(bound.v, bound.v, bound.v);
  mpz_mul_ui(bound.v, bound.v, ntt::kMaxSize);
  mpz_mul_2exp(bound.v, bound.v, 25);
  CHECK(mpz_cmp(bound.v, prod.v) < 0);
  // The estimate's terms: ⌊2^72 / q⌋ < 2^23 and y_k < 2^50, so each is < 2^21, and the sum of
  // eleven of them plus 2^19 stays far below 2^52.
  for (const std::uint64_t q : ntt::ifma::kP)
    CHECK((static_cast<field::u128>(1) << 72) / q < (1U << 23));
}

TEST_CASE("ntt: IFMA residues and Chinese remaindering", "[sigma][ntt]") {
  if (!detail::ifma_supported()) {
    SUCCEED("no AVX-512 IFMA on this CPU");
    return;
  }
  DeterministicRng rng(33);
  Mpz l, prod(1), quarter;
  ell(l.v);
  for (std::uint64_t q : ntt::ifma::kP) {
    Mpz mq(q);
    mpz_mul(prod.v, prod.v, mq.v);
  }
  mpz_fdiv_q_2exp(quarter.v, prod.v, 2);  // reconstruct() takes integers below Π q / 4
  std::vector<field::Fe> xs = {field::Fe{}, field::Fe{{1, 0, 0, 0}}, kTop,
                               field::Fe{{~0ULL, ~0ULL, ~0ULL, ~0ULL}}};
  for (int i = 0; i < 200; ++i) xs.push_back(random_fe(rng));
  for (const field::Fe& x : xs) {
    Mpz v;
    set_limbs(v.v, x.v, 4);
    const auto r = ntt::ifma::residues(x);
    CHECK(r == gmp_residues(v.v, ntt::ifma::kP));
    Mpz want;
    mpz_mod(want.v, v.v, l.v);
    CHECK(same(ntt::ifma::reconstruct(r), fe_of_mpz(want.v)));
  }
  gmp_randstate_t st;
  gmp_randinit_default(st);
  gmp_randseed_ui(st, 8);
  for (int i = 0; i < 402; ++i) {
    Mpz big, want;
    if (i == 400) {
      mpz_sub_ui(big.v, quarter.v, 1);  // the largest accepted
    } else if (i == 401) {
      mpz_sub_ui(want.v, l.v, 1);  // the largest product output: kMaxSize·(ℓ − 1)²
      mpz_mul(big.v, want.v, want.v);
      mpz_mul_ui(big.v, big.v, ntt::kMaxSize);
    } else {
      mpz_urandomm(big.v, st, i % 2 ? quarter.v : prod.v);
      if (i % 2 == 0) mpz_fdiv_q_2exp(big.v, big.v, 2 + static_cast<unsigned>(i % 300));
    }
    mpz_mod(want.v, big.v, l.v);
    CHECK(same(ntt::ifma::reconstruct(gmp_residues(big.v, ntt::ifma::kP)), fe_of_mpz(want.v)));
  }
  gmp_randclear(st);
}

TEST_CASE("ntt: the IFMA path's split of a product", "[sigma][ntt]") {
  // The prover's sizes: one transform of 2^14 and 2^15, and two parts over 2^15 for 21,569
  // (where one part would need 2^16).
  CHECK(ntt::ifma::shape(8089).parts == 1);
  CHECK(ntt::ifma::shape(8089).log == 14);
  CHECK(ntt::ifma::shape(16177).parts == 1);
  CHECK(ntt::ifma::shape(16177).log == 15);
  CHECK(ntt::ifma::shape(21569).parts == 2);
  CHECK(ntt::ifma::shape(21569).log == 15);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 3000; ++n) sizes.push_back(n);
  for (std::size_t n = 3001; n <= ntt::kMaxSize; n = n * 9 / 8 + 1) sizes.push_back(n);
  sizes.push_back(ntt::kMaxSize);
  bool ok = true;
  for (const std::size_t n : sizes) {
    const ntt::ifma::Shape s = ntt::ifma::shape(n);
    const std::size_t big = std::size_t{1} << s.log;
    ok = ok && s.n == n && s.parts >= 1 && s.parts <= 4 && s.width % 8 == 0 &&
         s.parts * s.width >= n && (s.parts - 1) * s.width < n &&  // no part is all padding
         n + s.width - 1 <= big && 2 * s.width <= big &&           // no wrap; the part fits a half
         s.log >= ntt::ifma::kMinLog && s.log <= ntt::kMaxLog;
    if (!ok) {
      CAPTURE(n, s.parts, s.width, s.log);
      CHECK(ok);
      break;
    }
  }
  CHECK(ok);
}

TEST_CASE("ntt: the two paths agree", "[sigma][ntt]") {
  if (!detail::ifma_supported()) {
    SUCCEED("no AVX-512 IFMA on this CPU");
    return;
  }
  DeterministicRng rng(34);
  std::vector<std::size_t> sizes;
  for (std::size_t n = 1; n <= 40; ++n) sizes.push_back(n);
  for (std::size_t n :
       {63U, 100U, 129U, 255U, 513U, 1000U, 1025U, 3001U, 4097U, 8089U, 16177U, 21569U})
    sizes.push_back(n);
  for (const std::size_t n : sizes) {
    for (const bool extreme : {false, true}) {
      CAPTURE(n, extreme);
      // Random values, or every entry the integer ℓ − 1 (the bound n·(ℓ − 1)² of the sums).
      std::vector<field::Fe> t(2 * n - 1), x(n), y0(n);
      for (auto& v : t) v = extreme ? field::neg(field::one()) : random_fe(rng);
      for (auto& v : x) v = extreme ? kTop : random_fe(rng);
      for (auto& v : y0) v = extreme ? kTop : random_fe(rng);
      // One plan made on each path, both applied on both (the other path's tables come from the
      // first's, transformed back).
      for (const bool made_wide : {false, true}) {
        CAPTURE(made_wide);
        std::unique_ptr<const ntt::ToeplitzPlan> plan;
        {
          const detail::ScopedIfma path(made_wide);
          plan = std::make_unique<const ntt::ToeplitzPlan>(t);
        }
        std::vector<field::Fe> portable = y0, wide = y0;
        {
          const detail::ScopedIfma path(false);
          plan->apply(x, portable);
        }
        {
          const detail::ScopedIfma path(true);
          plan->apply(x, wide);
        }
        CHECK(all_same(portable, wide));
        // Against the definition: every output up to n = 1025, a few beyond.
        std::vector<std::size_t> at;
        if (n <= 1025) {
          for (std::size_t i = 0; i < n; ++i) at.push_back(i);
        } else {
          at = {0, 1, n / 2, n - 2, n - 1};
          for (int i = 0; i < 3; ++i) at.push_back(rng.next_u64() % n);
        }
        bool ok = true;
        for (const std::size_t i : at)
          ok = ok && same(wide[i], field::add(y0[i], schoolbook_at(t, x, i)));
        CHECK(ok);
        if (n > 1025) break;  // one plan of each large size is enough
      }
    }
  }
}

TEST_CASE("ntt: extrapolation on both paths", "[sigma][ntt][poly]") {
  DeterministicRng rng(35);
  for (const std::size_t m : {128U, 129U, 1000U, 8089U, 16177U}) {
    CAPTURE(m);
    // A polynomial of degree min(m, 40) through 0..m: its extrapolation is its own values.
    std::vector<Scalar> coeff;
    for (std::size_t i = 0; i <= std::min<std::size_t>(m, 40); ++i)
      coeff.push_back(Scalar::random(rng));
    auto eval = [&](std::uint64_t x) {
      Scalar acc;
      for (std::size_t i = coeff.size(); i-- > 0;) acc = acc * Scalar::from_u64(x) + coeff[i];
      return acc;
    };
    std::vector<SecretScalar> vals, noise;
    for (std::size_t j = 0; j <= m; ++j) {
      vals.push_back(SecretScalar(eval(j)));
      noise.push_back(SecretScalar::random(rng));
    }
    std::vector<std::vector<SecretScalar>> ext, ext_noise;
    for (const bool wide : paths()) {
      const detail::ScopedIfma path(wide);
      ext.push_back(poly::extrapolate(vals));
      ext_noise.push_back(poly::extrapolate(noise));
    }
    bool ok = true;
    for (std::size_t i = 0; i < m; ++i) ok = ok && ext[0][i].declassify() == eval(m + 1 + i);
    CHECK(ok);
    if (ext.size() == 2) {
      bool agree = true;
      for (std::size_t i = 0; i < m; ++i) {
        agree = agree && ext[1][i].declassify() == ext[0][i].declassify() &&
                ext_noise[1][i].declassify() == ext_noise[0][i].declassify();
      }
      CHECK(agree);
    }
  }
}
