// Gadgets and samplers against MPFR: random and edge inputs, stated error bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gopa/circuits/gadgets.hpp"
#include "gopa/circuits/reference.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/random.hpp"
#include "sanitize.hpp"

using namespace gopa::circuits;

namespace {

// Uniform in [lo, hi] (hi − lo < 2^63).
i128 draw(gopa::Rng& rng, i128 lo, i128 hi) {
  return lo + static_cast<i128>(rng.uniform(static_cast<std::uint64_t>(hi - lo) + 1U));
}

double err(i128 got, long double ref) {
  return static_cast<double>(std::fabs(static_cast<long double>(got) - ref));
}

const unsigned kPrecisions[] = {12, 16, 20, 24, 28, 32};

}  // namespace

TEST_CASE("fx_mul, fx_div, fx_sqrt are exact floors (error < 1 ulp)", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(11);
  for (unsigned F : kPrecisions) {
    double emul = 0, ediv = 0, esqrt = 0;
    for (int i = 0; i < 3000 / test::kScale; ++i) {
      ClearBuilder b;
      const i128 x = draw(rng, -(pow2(F + 3)), pow2(F + 3));
      const i128 y = draw(rng, -(pow2(F + 3)), pow2(F + 3));
      const i128 d = draw(rng, 1, pow2(F + 3) - 1);
      const i128 s = i == 0 ? 0 : (i == 1 ? 1 : draw(rng, 0, pow2(F + 6)));
      emul = std::max(emul, err(fx_mul(b, x, y, F, F + 8), mp_mul_fx(x, y, F)) );
      ediv = std::max(ediv, err(fx_div(b, x, d, F, F + 4, 2 * F + 8), mp_div_fx(x, d, F)));
      esqrt = std::max(esqrt, err(fx_sqrt(b, s, F, F + 5), mp_sqrt_fx(s, F)));
      REQUIRE(b.ok());
    }
    INFO("F=" << F << " mul " << emul << " div " << ediv << " sqrt " << esqrt);
    CHECK(emul < 1.0);
    CHECK(ediv < 1.0);
    CHECK(esqrt < 1.0);
  }
}

TEST_CASE("comparisons are exact", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(12);
  for (int i = 0; i < 5000 / test::kScale; ++i) {
    ClearBuilder b;
    const unsigned n = 20;
    const i128 x = draw(rng, -pow2(n - 2), pow2(n - 2));
    const i128 y = i % 7 == 0 ? x : draw(rng, -pow2(n - 2), pow2(n - 2));
    CHECK(less_than(b, x, y, n) == (x < y ? 1 : 0));
    CHECK(less_equal(b, x, y, n) == (x <= y ? 1 : 0));
    CHECK(geq(b, x, y, n) == (x >= y ? 1 : 0));
    REQUIRE(b.ok());
  }
  ClearBuilder b;
  (void)less_than(b, pow2(20), i128{0}, 20);  // x − y = 2^n violates the precondition
  CHECK_FALSE(b.ok());
}

TEST_CASE("fx_ln within 6 ulps of MPFR", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(13);
  for (unsigned F : kPrecisions) {
    const PolyTable& t = ln_table(F);
    for (unsigned fin : {F - 4, F, F + 1, 2 * F}) {
      double worst = 0;
      std::vector<i128> xs = {1, 2, 3, pow2(fin - 1) - 1, pow2(fin - 1), pow2(fin - 1) + 1,
                              pow2(fin) - 1, pow2(fin) - 2, pow2(fin / 2)};
      for (int i = 0; i < 2000 / test::kScale; ++i) xs.push_back(draw(rng, 1, pow2(std::min(fin, 62U)) - 1));
      for (int i = 0; i < 500 / test::kScale; ++i) xs.push_back(draw(rng, 1, pow2(static_cast<unsigned>(i) % (fin - 1) + 1)));
      for (i128 x : xs) {
        ClearBuilder b;
        const i128 got = fx_ln(b, x, fin, t);
        REQUIRE(b.ok());
        worst = std::max(worst, err(got, mp_ln_fx(x, fin, F)));
      }
      INFO("F=" << F << " fin=" << fin << " degree " << t.degree() << " max error " << worst << " ulps");
      CHECK(worst <= 6.0);
    }
  }
}

TEST_CASE("fx_ln_wide has relative precision near 1", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(16);
  for (unsigned F : kPrecisions) {
    const PolyTable& t = lnq_table(F);
    for (unsigned fin : {F, F + 1, 2 * F}) {
      double worst = 0;  // in units of (4|ln x| + 2)·2^F ulps of 2F bits
      std::vector<i128> xs = {1, 2, 3, pow2(fin - 1) - 1, pow2(fin - 1), pow2(fin - 1) + 1,
                              pow2(fin) - 1, pow2(fin) - 2, pow2(fin) - 3, pow2(fin / 2)};
      for (int i = 0; i < 2000 / test::kScale; ++i) xs.push_back(draw(rng, 1, pow2(std::min(fin, 62U)) - 1));
      for (int i = 0; i < 500 / test::kScale; ++i) xs.push_back(pow2(fin) - draw(rng, 1, pow2(static_cast<unsigned>(i) % (fin - 1) + 1)));
      for (i128 x : xs) {
        ClearBuilder b;
        const i128 got = fx_ln_wide(b, x, fin, t);
        REQUIRE(b.ok());
        const long double ref = mp_ln_fx(x, fin, 2 * F);
        const double allowed = (4.0 * std::fabs(static_cast<double>(ref)) / std::ldexp(1.0, static_cast<int>(2 * F)) + 2.0) *
                               std::ldexp(1.0, static_cast<int>(F));
        worst = std::max(worst, err(got, ref) / allowed);
      }
      INFO("F=" << F << " fin=" << fin << " degree " << t.degree() << " max error / bound " << worst);
      CHECK(worst <= 1.0);
    }
  }
}

TEST_CASE("fx_ln_rel within (2|ln x| + 0.1)·2^-F of MPFR", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(17);
  for (unsigned F : kPrecisions) {
    const auto& t = lnq_split_table(F);
    for (unsigned fin : {F, F + 1, 2 * F}) {
      double worst = 0;  // error / bound
      std::vector<i128> xs = {1, 2, 3, pow2(fin - 1) - 1, pow2(fin - 1), pow2(fin - 1) + 1,
                              pow2(fin) - 1, pow2(fin) - 2, pow2(fin) - 3, pow2(fin / 2)};
      for (i128 e = 1; e < 16; ++e) xs.push_back(pow2(fin - 1) + e * pow2(fin - 5));  // interval edges
      for (int i = 0; i < 2000 / test::kScale; ++i) xs.push_back(draw(rng, 1, pow2(std::min(fin, 62U)) - 1));
      for (int i = 0; i < 500 / test::kScale; ++i) xs.push_back(pow2(fin) - draw(rng, 1, pow2(static_cast<unsigned>(i) % (fin - 1) + 1)));
      for (i128 x : xs) {
        ClearBuilder b;
        const i128 got = fx_ln_rel(b, x, fin, t);
        REQUIRE(b.ok());
        const long double ref = mp_ln_fx(x, fin, fin + F);
        const double lnx = std::fabs(static_cast<double>(ref)) / std::ldexp(1.0, static_cast<int>(fin + F));
        const double allowed = (2.0 * lnx + 0.1) * std::ldexp(1.0, static_cast<int>(fin));
        worst = std::max(worst, err(got, ref) / allowed);
      }
      INFO("F=" << F << " fin=" << fin << " degree " << t[0].degree() << " max error / bound " << worst);
      CHECK(worst <= 1.0);
    }
  }
}

namespace {
// Inputs u of cos/sin(2πu/2^F): the quadrant and octant edges and random points.
std::vector<i128> cos_sin_inputs(unsigned F, gopa::Rng& rng) {
  std::vector<i128> us;
  for (i128 q = 0; q < 8; ++q) {
    us.push_back(q * pow2(F - 3));
    us.push_back(q * pow2(F - 3) + 1);
    if (q > 0) us.push_back(q * pow2(F - 3) - 1);
  }
  us.push_back(pow2(F) - 1);
  for (int i = 0; i < 3000 / test::kScale; ++i) us.push_back(draw(rng, 0, pow2(F) - 1));
  return us;
}
}  // namespace

TEST_CASE("fx_cos_sin_2pi_wide within 1.5 ulps of MPFR", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(18);
  for (unsigned F : kPrecisions) {
    const PolyTable& t = cos2pi_table(F);
    const long double scale = std::ldexp(1.0L, static_cast<int>(cos_sin_wide_bits(F) - F));
    double worst = 0;
    const std::vector<i128> us = cos_sin_inputs(F, rng);
    for (i128 u : us) {
      ClearBuilder b;
      auto [c, s] = fx_cos_sin_2pi_wide(b, u, t);
      REQUIRE(b.ok());
      const long double cf = static_cast<long double>(c) / scale, sf = static_cast<long double>(s) / scale;
      worst = std::max({worst, static_cast<double>(std::fabs(cf - mp_cos2pi_fx(u, F))),
                        static_cast<double>(std::fabs(sf - mp_sin2pi_fx(u, F)))});
    }
    INFO("F=" << F << " degree " << t.degree() << " max error " << worst << " ulps");
    CHECK(worst <= 1.5);
  }
}

TEST_CASE("fx_cos_sin_2pi within 3 ulps of MPFR", "[circuits][accuracy]") {
  gopa::DeterministicRng rng(14);
  for (unsigned F : kPrecisions) {
    const PolyTable& t = cos2pi_table(F);
    double worst = 0;
    const std::vector<i128> us = cos_sin_inputs(F, rng);
    for (i128 u : us) {
      ClearBuilder b;
      auto [c, s] = fx_cos_sin_2pi(b, u, t);
      REQUIRE(b.ok());
      worst = std::max({worst, err(c, mp_cos2pi_fx(u, F)), err(s, mp_sin2pi_fx(u, F))});
    }
    INFO("F=" << F << " degree " << t.degree() << " max error " << worst << " ulps");
    CHECK(worst <= 3.0);
  }
}

TEST_CASE("samplers within their stated error bound of the MPFR reference",
          "[circuits][accuracy]") {
  gopa::DeterministicRng rng(15);
  for (auto kind : {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf,
                    SamplerKind::kClt}) {
    for (unsigned f : {12U, 16U, 20U, 24U}) {
      for (double sigma : {1.0, 3.5}) {
        const auto p = SamplerParams::make(kind, f, sigma);
        const unsigned k = p.seeds_per_call();
        std::vector<std::uint64_t> seeds;
        const std::uint64_t top = (std::uint64_t{1} << p.m) - 1U;
        for (std::uint64_t e : {std::uint64_t{0}, std::uint64_t{1}, top, top - 1, top / 2, top / 2 + 1})
          for (unsigned i = 0; i < k; ++i) seeds.push_back(e);
        const int calls = (kind == SamplerKind::kInverseCdf ? 1500 : 3000) / test::kScale;
        for (int i = 0; i < calls * static_cast<int>(k); ++i) seeds.push_back(rng.next_u64() & top);
        std::vector<std::int64_t> got;
        REQUIRE(clear_samples(p, seeds, got));
        const auto ref = reference_samples(p, seeds);
        REQUIRE(ref.size() == got.size());
        double worst = 0;
        for (std::size_t i = 0; i < got.size(); ++i)
          worst = std::max(worst, static_cast<double>(std::fabs(static_cast<long double>(got[i]) - ref[i])));
        INFO(sampler_name(kind) << " f=" << f << " sigma=" << sigma << " max error " << worst
                                << " ulps, bound " << p.error_bound_ulps());
        CHECK(worst <= p.error_bound_ulps());
      }
    }
  }
}
