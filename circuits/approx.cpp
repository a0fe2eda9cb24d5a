#include "gopa/circuits/approx.hpp"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "gopa/check.hpp"

namespace gopa::circuits {
namespace {

constexpr mpfr_prec_t kPrec = 320;

// RAII mpfr_t.
struct Mp {
  mpfr_t v;
  Mp() { mpfr_init2(v, kPrec); }
  ~Mp() { mpfr_clear(v); }
  Mp(const Mp&) = delete;
  Mp& operator=(const Mp&) = delete;
};

using Fn = std::function<void(mpfr_t out, const mpfr_t z)>;

// Interpolates g at the n+1 Chebyshev nodes of [-r, r]: monomial coefficients in z.
std::vector<std::unique_ptr<Mp>> interpolate(const Fn& g, double r, unsigned n) {
  const unsigned N = n + 1;
  std::vector<std::vector<std::unique_ptr<Mp>>> a(N);
  std::vector<std::unique_ptr<Mp>> y(N);
  Mp pi, z, t;
  mpfr_const_pi(pi.v, MPFR_RNDN);
  for (unsigned i = 0; i < N; ++i) {
    // z_i = r·cos(π(i + 1/2)/N)
    mpfr_mul_d(t.v, pi.v, (static_cast<double>(i) + 0.5) / static_cast<double>(N), MPFR_RNDN);
    mpfr_cos(z.v, t.v, MPFR_RNDN);
    mpfr_mul_d(z.v, z.v, r, MPFR_RNDN);
    y[i] = std::make_unique<Mp>();
    g(y[i]->v, z.v);
    a[i].resize(N);
    for (unsigned j = 0; j < N; ++j) {
      a[i][j] = std::make_unique<Mp>();
      mpfr_pow_ui(a[i][j]->v, z.v, j, MPFR_RNDN);
    }
  }
  // Gaussian elimination with partial pivoting.
  Mp f, abs1, abs2;
  for (unsigned c = 0; c < N; ++c) {
    unsigned p = c;
    for (unsigned i = c + 1; i < N; ++i) {
      mpfr_abs(abs1.v, a[i][c]->v, MPFR_RNDN);
      mpfr_abs(abs2.v, a[p][c]->v, MPFR_RNDN);
      if (mpfr_greater_p(abs1.v, abs2.v)) p = i;
    }
    std::swap(a[c], a[p]);
    std::swap(y[c], y[p]);
    for (unsigned i = c + 1; i < N; ++i) {
      mpfr_div(f.v, a[i][c]->v, a[c][c]->v, MPFR_RNDN);
      for (unsigned j = c; j < N; ++j) {
        mpfr_mul(t.v, f.v, a[c][j]->v, MPFR_RNDN);
        mpfr_sub(a[i][j]->v, a[i][j]->v, t.v, MPFR_RNDN);
      }
      mpfr_mul(t.v, f.v, y[c]->v, MPFR_RNDN);
      mpfr_sub(y[i]->v, y[i]->v, t.v, MPFR_RNDN);
    }
  }
  std::vector<std::unique_ptr<Mp>> cf(N);
  for (unsigned ii = N; ii-- > 0;) {
    cf[ii] = std::make_unique<Mp>();
    mpfr_set(cf[ii]->v, y[ii]->v, MPFR_RNDN);
    for (unsigned j = ii + 1; j < N; ++j) {
      mpfr_mul(t.v, a[ii][j]->v, cf[j]->v, MPFR_RNDN);
      mpfr_sub(cf[ii]->v, cf[ii]->v, t.v, MPFR_RNDN);
    }
    mpfr_div(cf[ii]->v, cf[ii]->v, a[ii][ii]->v, MPFR_RNDN);
  }
  return cf;
}

constexpr int kGrid = 4096;

// g on the error grid z_i = r·(2i/kGrid − 1), evaluated once per point on demand (the degree
// search and the rounded-coefficient pass revisit the same points).
struct GridValues {
  std::vector<std::unique_ptr<Mp>> v = std::vector<std::unique_ptr<Mp>>(kGrid + 1);
  const Mp& at(const Fn& g, int i, const mpfr_t z) {
    auto& slot = v[static_cast<std::size_t>(i)];
    if (!slot) {
      slot = std::make_unique<Mp>();
      g(slot->v, z);
    }
    return *slot;
  }
};

// max over a grid of |P(z) − g(z)|, P with MPFR coefficients (or rounded ones if F given).
// Stops at the first point whose error exceeds stop_above (the degree search only needs to
// know that the target is missed; a near-minimax error is large all over the interval).
double max_error(const Fn& g, GridValues& gv, double r, const std::vector<std::unique_ptr<Mp>>& cf,
                 const std::vector<i128>* rounded, unsigned F,
                 double stop_above = std::numeric_limits<double>::infinity()) {
  Mp z, acc, t;
  double worst = 0;
  for (int i = 0; i <= kGrid; ++i) {
    mpfr_set_d(z.v, r * (2.0 * i / kGrid - 1.0), MPFR_RNDN);
    mpfr_set_ui(acc.v, 0, MPFR_RNDN);
    for (std::size_t j = cf.size(); j-- > 0;) {
      mpfr_mul(acc.v, acc.v, z.v, MPFR_RNDN);
      if (rounded != nullptr) {
        mpfr_set_sj(t.v, static_cast<intmax_t>((*rounded)[j]), MPFR_RNDN);
        mpfr_div_2ui(t.v, t.v, F, MPFR_RNDN);
        mpfr_add(acc.v, acc.v, t.v, MPFR_RNDN);
      } else {
        mpfr_add(acc.v, acc.v, cf[j]->v, MPFR_RNDN);
      }
    }
    mpfr_sub(t.v, acc.v, gv.at(g, i, z.v).v, MPFR_RNDN);
    worst = std::fmax(worst, std::fabs(mpfr_get_d(t.v, MPFR_RNDN)));
    if (worst > stop_above) break;
  }
  return worst;
}

unsigned horner_bits(const std::vector<double>& c, double r, unsigned F) {
  // |partial_j| ≤ Σ_{i ≥ j} |c_i| r^(i−j); plus a few ulps of truncation, a sign bit, a margin.
  double worst = 0;
  for (std::size_t j = 0; j < c.size(); ++j) {
    double s = 0, p = 1;
    for (std::size_t i = j; i < c.size(); ++i) {
      s += std::fabs(c[i]) * p;
      p *= r;
    }
    worst = std::fmax(worst, s);
  }
  // Signed bound: |acc| < 2^(hb−1); 16 ulps of margin cover coefficient rounding and floors.
  const double bound = worst * (1.0 + 0x1p-20) + std::ldexp(1.0, 4 - static_cast<int>(F));
  return F + 1U + static_cast<unsigned>(std::max(0.0, std::ceil(std::log2(bound))));
}

PolyTable derive(const Fn& g, double r, unsigned F, unsigned min_degree = 1) {
  GOPA_CHECK(F >= 8 && F <= 60, "fractional bits out of range");
  const double target = std::ldexp(1.0, -static_cast<int>(F) - 2);
  GridValues gv;
  for (unsigned n = min_degree; n <= 40; ++n) {
    auto cf = interpolate(g, r, n);
    if (max_error(g, gv, r, cf, nullptr, F, target) > target) continue;
    PolyTable t;
    t.F = F;
    std::vector<double> cd;
    Mp s;
    for (const auto& c : cf) {
      mpfr_mul_2ui(s.v, c->v, F, MPFR_RNDN);
      mpfr_round(s.v, s.v);
      t.coef.push_back(static_cast<i128>(mpfr_get_sj(s.v, MPFR_RNDN)));
      cd.push_back(mpfr_get_d(c->v, MPFR_RNDN));
    }
    t.hb = horner_bits(cd, r, F);
    t.zmax = r;
    t.approx_ulps = std::ldexp(max_error(g, gv, r, cf, &t.coef, F), static_cast<int>(F));
    return t;
  }
  GOPA_CHECK(false, "no polynomial degree reached the target precision");
  return {};
}

const PolyTable& cached(int which, unsigned F) {
  static std::mutex mu;
  static std::map<std::pair<int, unsigned>, std::unique_ptr<PolyTable>> tables;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = tables[{which, F}];
  if (!slot) {
    Fn g;
    double r = 0;
    if (which == 0) {
      g = [](mpfr_t out, const mpfr_t z) {
        mpfr_add_d(out, z, 0.75, MPFR_RNDN);
        mpfr_log(out, out, MPFR_RNDN);
      };
      r = 0.25;
    } else if (which == 2) {
      // ln(m)/(m − 1), m = 3/4 + z (→ 1 at m = 1).
      g = [](mpfr_t out, const mpfr_t z) {
        if (mpfr_cmp_d(z, 0.25) == 0) {
          mpfr_set_ui(out, 1, MPFR_RNDN);
          return;
        }
        mpfr_t d;
        mpfr_init2(d, kPrec);
        mpfr_sub_d(d, z, 0.25, MPFR_RNDN);
        mpfr_add_d(out, z, 0.75, MPFR_RNDN);
        mpfr_log(out, out, MPFR_RNDN);
        mpfr_div(out, out, d, MPFR_RNDN);
        mpfr_clear(d);
      };
      r = 0.25;
    } else {
      g = [](mpfr_t out, const mpfr_t z) {
        mpfr_t pi;
        mpfr_init2(pi, kPrec);
        mpfr_const_pi(pi, MPFR_RNDN);
        mpfr_add_d(out, z, 0.125, MPFR_RNDN);
        mpfr_mul(out, out, pi, MPFR_RNDN);
        mpfr_mul_2ui(out, out, 1, MPFR_RNDN);
        mpfr_cos(out, out, MPFR_RNDN);
        mpfr_clear(pi);
      };
      r = 0.125;
    }
    slot = std::make_unique<PolyTable>(derive(g, r, F));
    // MPFR keeps per-thread constant caches (π, log 2); this may run on a short-lived worker
    // thread, so release them here rather than leak them at thread exit.
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  }
  return *slot;
}

// ln(m)/(m − 1) at m = center + z (→ 1 at m = 1).
Fn lnq_at(double center) {
  return [center](mpfr_t out, const mpfr_t z) {
    mpfr_t d;
    mpfr_init2(d, kPrec);
    mpfr_add_d(out, z, center, MPFR_RNDN);
    mpfr_sub_ui(d, out, 1, MPFR_RNDN);
    if (mpfr_zero_p(d) != 0) {
      mpfr_set_ui(out, 1, MPFR_RNDN);
    } else {
      mpfr_log(out, out, MPFR_RNDN);
      mpfr_div(out, out, d, MPFR_RNDN);
    }
    mpfr_clear(d);
  };
}

}  // namespace

const std::vector<PolyTable>& lnq_split_table(unsigned F) {
  static std::mutex mu;
  static std::map<unsigned, std::unique_ptr<std::vector<PolyTable>>> tables;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = tables[F];
  if (!slot) {
    const unsigned parts = 1U << kLnqSplitBits;
    const double r = 0.25 / parts;  // [1/2, 1) in parts intervals of width 2r
    std::vector<PolyTable> t(parts);
    // One common degree: the largest any interval needs (derive starts its search at n).
    for (unsigned n = 1, top = 0; top != n;) {
      if (top != 0) n = top;
      top = n;
      for (unsigned i = 0; i < parts; ++i) {
        // An interval that already needed degree n has its table (derive is deterministic).
        if (t[i].coef.empty() || t[i].degree() < n) t[i] = derive(lnq_at(0.5 + (2.0 * i + 1.0) * r), r, F, n);
        top = std::max(top, t[i].degree());
      }
    }
    slot = std::make_unique<std::vector<PolyTable>>(std::move(t));
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
  }
  return *slot;
}

const PolyTable& ln_table(unsigned F) { return cached(0, F); }
const PolyTable& cos2pi_table(unsigned F) { return cached(1, F); }
const PolyTable& lnq_table(unsigned F) { return cached(2, F); }

i128 ln2_fixed(unsigned bits) {
  static const std::vector<i128> table = [] {
    std::vector<i128> t;
    Mp v, hi;
    for (unsigned k = 0; k <= 120; ++k) {
      mpfr_const_log2(v.v, MPFR_RNDN);
      mpfr_mul_2ui(v.v, v.v, k, MPFR_RNDN);
      mpfr_round(v.v, v.v);
      // split into 60-bit halves to cross intmax_t
      mpfr_div_2ui(hi.v, v.v, 60, MPFR_RNDN);
      mpfr_floor(hi.v, hi.v);
      const auto h = static_cast<i128>(mpfr_get_sj(hi.v, MPFR_RNDN));
      mpfr_mul_2ui(hi.v, hi.v, 60, MPFR_RNDN);
      mpfr_sub(v.v, v.v, hi.v, MPFR_RNDN);
      t.push_back((h << 60) + static_cast<i128>(mpfr_get_sj(v.v, MPFR_RNDN)));
    }
    mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE);
    return t;
  }();
  GOPA_CHECK(bits <= 120, "ln2_fixed: too many bits");
  return table[bits];
}

PolyTable fixed_table(std::span<const double> c, unsigned F, double zmax) {
  PolyTable t;
  t.F = F;
  std::vector<double> cd(c.begin(), c.end());
  for (double v : c) t.coef.push_back(static_cast<i128>(std::llround(std::ldexp(v, static_cast<int>(F)))));
  t.hb = horner_bits(cd, zmax, F);
  t.zmax = zmax;
  t.approx_ulps = 0.5;  // coefficient rounding only; the formula's own error is stated separately
  return t;
}

}  // namespace gopa::circuits
