#include "gopa/circuits/reference.hpp"

#include <mpfr.h>

#include <cmath>

#include "gopa/check.hpp"

namespace gopa::circuits {
namespace {

constexpr mpfr_prec_t kPrec = 192;

struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, kPrec); }
  explicit Mp(i128 x) : Mp() { set(x); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
  void set(i128 x) {
    const bool neg = x < 0;
    const u128 m = neg ? static_cast<u128>(-(x + 1)) + 1U : static_cast<u128>(x);
    mpfr_set_uj(v, static_cast<uintmax_t>(m >> 64), MPFR_RNDN);
    mpfr_mul_2ui(v, v, 64, MPFR_RNDN);
    mpfr_t lo;
    mpfr_init2(lo, kPrec);
    mpfr_set_uj(lo, static_cast<uintmax_t>(static_cast<std::uint64_t>(m)), MPFR_RNDN);
    mpfr_add(v, v, lo, MPFR_RNDN);
    mpfr_clear(lo);
    if (neg) mpfr_neg(v, v, MPFR_RNDN);
  }
  long double get() const { return mpfr_get_ld(v, MPFR_RNDN); }
};

// out = 2π·x
void two_pi_times(mpfr_t out, const mpfr_t x) {
  mpfr_const_pi(out, MPFR_RNDN);
  mpfr_mul(out, out, x, MPFR_RNDN);
  mpfr_mul_2ui(out, out, 1, MPFR_RNDN);
}

}  // namespace

long double mp_ln_fx(i128 X, unsigned fin, unsigned F) {
  Mp x(X);
  mpfr_div_2ui(x.v, x.v, fin, MPFR_RNDN);
  mpfr_log(x.v, x.v, MPFR_RNDN);
  mpfr_mul_2ui(x.v, x.v, F, MPFR_RNDN);
  return x.get();
}

long double mp_cos2pi_fx(i128 U, unsigned F) {
  Mp u(U), t;
  mpfr_div_2ui(u.v, u.v, F, MPFR_RNDN);
  two_pi_times(t.v, u.v);
  mpfr_cos(t.v, t.v, MPFR_RNDN);
  mpfr_mul_2ui(t.v, t.v, F, MPFR_RNDN);
  return t.get();
}

long double mp_sin2pi_fx(i128 U, unsigned F) {
  Mp u(U), t;
  mpfr_div_2ui(u.v, u.v, F, MPFR_RNDN);
  two_pi_times(t.v, u.v);
  mpfr_sin(t.v, t.v, MPFR_RNDN);
  mpfr_mul_2ui(t.v, t.v, F, MPFR_RNDN);
  return t.get();
}

long double mp_sqrt_fx(i128 X, unsigned F) {
  Mp x(X);
  mpfr_mul_2ui(x.v, x.v, F, MPFR_RNDN);
  mpfr_sqrt(x.v, x.v, MPFR_RNDN);
  return x.get();
}

long double mp_div_fx(i128 a, i128 d, unsigned F) {
  Mp x(a), y(d);
  mpfr_div(x.v, x.v, y.v, MPFR_RNDN);
  mpfr_mul_2ui(x.v, x.v, F, MPFR_RNDN);
  return x.get();
}

long double mp_mul_fx(i128 a, i128 b, unsigned F) {
  Mp x(a), y(b);
  mpfr_mul(x.v, x.v, y.v, MPFR_RNDN);
  mpfr_div_2ui(x.v, x.v, F, MPFR_RNDN);
  return x.get();
}

long double mp_inv_normal(long double p) {
  GOPA_CHECK(p > 0 && p < 1, "p out of (0, 1)");
  Mp pp, x, cdf, dens, t, sqrt2, c;
  mpfr_set_ld(pp.v, p, MPFR_RNDN);
  mpfr_sqrt_ui(sqrt2.v, 2, MPFR_RNDN);
  // Initial guess from a crude double approximation, then Newton: x ← x − (Φ(x) − p)/φ(x).
  const double pd = static_cast<double>(p);
  const double q = pd < 0.5 ? pd : 1 - pd;
  const double tt = std::sqrt(-2 * std::log(q));
  double x0 = tt - (2.515517 + 0.802853 * tt + 0.010328 * tt * tt) /
                       (1 + 1.432788 * tt + 0.189269 * tt * tt + 0.001308 * tt * tt * tt);
  if (pd < 0.5) x0 = -x0;
  mpfr_set_d(x.v, x0, MPFR_RNDN);
  // c = 1/sqrt(2π)
  mpfr_const_pi(c.v, MPFR_RNDN);
  mpfr_mul_2ui(c.v, c.v, 1, MPFR_RNDN);
  mpfr_rec_sqrt(c.v, c.v, MPFR_RNDN);
  for (int it = 0; it < 5; ++it) {  // quadratic convergence: 4.5e-4 → 1e-27
    // Φ(x) = erfc(−x/√2)/2
    mpfr_div(t.v, x.v, sqrt2.v, MPFR_RNDN);
    mpfr_neg(t.v, t.v, MPFR_RNDN);
    mpfr_erfc(cdf.v, t.v, MPFR_RNDN);
    mpfr_div_2ui(cdf.v, cdf.v, 1, MPFR_RNDN);
    // φ(x) = c·exp(−x²/2)
    mpfr_sqr(t.v, x.v, MPFR_RNDN);
    mpfr_div_2ui(t.v, t.v, 1, MPFR_RNDN);
    mpfr_neg(t.v, t.v, MPFR_RNDN);
    mpfr_exp(dens.v, t.v, MPFR_RNDN);
    mpfr_mul(dens.v, dens.v, c.v, MPFR_RNDN);
    mpfr_sub(cdf.v, cdf.v, pp.v, MPFR_RNDN);
    mpfr_div(t.v, cdf.v, dens.v, MPFR_RNDN);
    mpfr_sub(x.v, x.v, t.v, MPFR_RNDN);
  }
  return x.get();
}

std::vector<long double> reference_samples(const SamplerParams& p,
                                           std::span<const std::uint64_t> seeds) {
  const unsigned k = p.seeds_per_call();
  const long double scale =
      std::ldexp(static_cast<long double>(p.sigma_fx), static_cast<int>(p.f) - static_cast<int>(p.sigma_bits));
  const unsigned m = p.m;
  std::vector<long double> out;
  Mp u1, u2, r, t, a;
  for (std::size_t c = 0; c + k <= seeds.size(); c += k) {
    const std::uint64_t* s = seeds.data() + c;
    switch (p.kind) {
      case SamplerKind::kBoxMuller: {
        Mp x1(static_cast<i128>(2 * s[0] + 1));
        mpfr_div_2ui(x1.v, x1.v, m + 1, MPFR_RNDN);
        mpfr_log(r.v, x1.v, MPFR_RNDN);
        mpfr_mul_si(r.v, r.v, -2, MPFR_RNDN);
        mpfr_sqrt(r.v, r.v, MPFR_RNDN);
        Mp x2(static_cast<i128>(s[1]));
        mpfr_div_2ui(x2.v, x2.v, m, MPFR_RNDN);
        two_pi_times(t.v, x2.v);
        mpfr_cos(a.v, t.v, MPFR_RNDN);
        mpfr_mul(a.v, a.v, r.v, MPFR_RNDN);
        out.push_back(a.get() * scale);
        mpfr_sin(a.v, t.v, MPFR_RNDN);
        mpfr_mul(a.v, a.v, r.v, MPFR_RNDN);
        out.push_back(a.get() * scale);
        break;
      }
      case SamplerKind::kPolar: {
        i128 v1 = pow2(m - 1), v2 = 0;
        for (unsigned i = 0; i < p.extra; ++i) {
          const i128 a1 = 2 * static_cast<i128>(s[2 * i]) + 1 - pow2(m);
          const i128 a2 = 2 * static_cast<i128>(s[2 * i + 1]) + 1 - pow2(m);
          if (a1 * a1 + a2 * a2 < pow2(2 * m)) {
            v1 = a1;
            v2 = a2;
            break;
          }
        }
        Mp w1(v1), w2(v2), S(v1 * v1 + v2 * v2);
        mpfr_div_2ui(w1.v, w1.v, m, MPFR_RNDN);
        mpfr_div_2ui(w2.v, w2.v, m, MPFR_RNDN);
        mpfr_div_2ui(S.v, S.v, 2 * m, MPFR_RNDN);
        mpfr_log(t.v, S.v, MPFR_RNDN);
        mpfr_mul_si(t.v, t.v, -2, MPFR_RNDN);
        mpfr_div(t.v, t.v, S.v, MPFR_RNDN);
        mpfr_sqrt(t.v, t.v, MPFR_RNDN);
        mpfr_mul(a.v, w1.v, t.v, MPFR_RNDN);
        out.push_back(a.get() * scale);
        mpfr_mul(a.v, w2.v, t.v, MPFR_RNDN);
        out.push_back(a.get() * scale);
        break;
      }
      case SamplerKind::kInverseCdf: {
        const long double pv = std::ldexp(static_cast<long double>(2 * s[0] + 1), -static_cast<int>(m + 1));
        out.push_back(mp_inv_normal(pv) * scale);
        break;
      }
      case SamplerKind::kClt: {
        long double sum = 0;
        for (unsigned i = 0; i < k; ++i)
          sum += std::ldexp(static_cast<long double>(2 * s[i] + 1), -static_cast<int>(m + 1));
        out.push_back((sum - static_cast<long double>(k) / 2) * std::sqrt(12.0L / k) * scale);
        break;
      }
    }
  }
  return out;
}

}  // namespace gopa::circuits
