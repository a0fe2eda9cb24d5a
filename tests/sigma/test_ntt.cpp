// The multi-modular Toeplitz product (src/sigma/ntt.hpp): its constants against GMP, Chinese
// remaindering at the edges of its range, and products against the schoolbook definition.
#include <gmp.h>

#include <catch2/catch.hpp>

#include "gopa/random.hpp"
#include "gopa/sigma/field.hpp"
#include "ntt.hpp"

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

// v mod p_k for every prime, by GMP.
std::array<std::uint64_t, ntt::kPrimes> gmp_residues(const mpz_t v) {
  std::array<std::uint64_t, ntt::kPrimes> r{};
  Mpz m;
  for (std::size_t k = 0; k < ntt::kPrimes; ++k) {
    Mpz mp(ntt::kP[k]);
    mpz_mod(m.v, v, mp.v);
    r[k] = mpz_get_ui(m.v);
  }
  return r;
}

// ℓ as an integer.
void ell(mpz_t out) { set_limbs(out, field::kL, 4); }

field::Fe random_fe(Rng& rng) { return field::of(Scalar::random(rng)); }

// y[i] = Σ_j t[n−1+i−j]·x[j], straight from the definition.
std::vector<field::Fe> schoolbook(const std::vector<field::Fe>& t, const std::vector<field::Fe>& x) {
  const std::size_t n = x.size();
  std::vector<field::Fe> y(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      y[i] = field::add(y[i], field::mul(t[n - 1 + i - j], x[j]));
  return y;
}

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
