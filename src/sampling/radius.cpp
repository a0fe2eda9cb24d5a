// Piecewise polynomials for the Box–Muller radius sqrt(−2 ln u1) on dyadic intervals
// (docs/sampling.md §4): Chebyshev interpolation in long double, monomial form in t ∈ [−1, 1],
// coefficients rounded at 2^F; the degree is the smallest whose rounded error is ≤ 1/2 ulp.
#include <cmath>
#include <map>
#include <mutex>

#include "box_muller_shares.hpp"
#include "gopa/check.hpp"

namespace gopa::sampling::detail {
namespace {

using LD = long double;

// g on piece k (0..2m−1) at mantissa mm ∈ [1/2, 1).
LD piece_value(unsigned piece, unsigned m, LD mm) {
  const LD ln2 = 0.693147180559945309417232121458176568L;
  if (piece < m) {  // A: u1 = mm·2^-(m−j), j = piece
    const LD k = static_cast<LD>(m - piece);
    return std::sqrt(2 * k * ln2 - 2 * std::log(mm));
  }
  const unsigned j = piece - m;  // B: 1 − u1 = mm·2^-(m−j)
  const LD w = std::ldexp(mm, -static_cast<int>(m - j));
  return std::sqrt(-2 * std::log1p(-w));
}

std::vector<LD> chebyshev_monomial(unsigned piece, unsigned m, unsigned d) {
  const LD pi = 3.14159265358979323846264338327950288L;
  std::vector<LD> fv(d + 1), a(d + 1, 0);
  for (unsigned k = 0; k <= d; ++k) {
    const LD t = std::cos(pi * (static_cast<LD>(k) + 0.5L) / static_cast<LD>(d + 1));
    fv[k] = piece_value(piece, m, 0.75L + t / 4);
  }
  for (unsigned n = 0; n <= d; ++n) {
    LD s = 0;
    for (unsigned k = 0; k <= d; ++k)
      s += fv[k] * std::cos(pi * static_cast<LD>(n) * (static_cast<LD>(k) + 0.5L) /
                            static_cast<LD>(d + 1));
    a[n] = s * 2 / static_cast<LD>(d + 1);
  }
  a[0] /= 2;
  // Σ a_n T_n(t) in monomial form.
  std::vector<LD> out(d + 1, 0), tprev(d + 1, 0), tcur(d + 1, 0);
  tprev[0] = 1;  // T_0
  out[0] += a[0];
  if (d >= 1) {
    tcur[1] = 1;  // T_1
    out[1] += a[1];
  }
  for (unsigned n = 2; n <= d; ++n) {
    std::vector<LD> tnext(d + 1, 0);
    for (unsigned i = 0; i < d; ++i) tnext[i + 1] += 2 * tcur[i];
    for (unsigned i = 0; i <= d; ++i) tnext[i] -= tprev[i];
    for (unsigned i = 0; i <= d; ++i) out[i] += a[n] * tnext[i];
    tprev = std::move(tcur);
    tcur = std::move(tnext);
  }
  return out;
}

RadiusTable build(unsigned F, unsigned m) {
  RadiusTable best;
  for (unsigned d = 4; d <= 40; ++d) {
    RadiusTable rt;
    rt.F = F;
    rt.m = m;
    rt.degree = d;
    LD worst = 0, sum_max = 0;
    for (unsigned piece = 0; piece < 2 * m; ++piece) {
      auto mono = chebyshev_monomial(piece, m, d);
      std::vector<i128> c(d + 1);
      LD sum = 0;
      for (unsigned j = 0; j <= d; ++j) {
        c[j] = static_cast<i128>(std::llround(std::ldexp(mono[j], static_cast<int>(F))));
        sum += std::fabs(mono[j]);
      }
      sum_max = std::max(sum_max, sum);
      for (int g = 0; g <= 512; ++g) {
        const LD t = -1 + static_cast<LD>(g) / 256;
        LD v = 0;
        for (unsigned j = d + 1; j-- > 0;) v = v * t + std::ldexp(static_cast<LD>(c[j]), -static_cast<int>(F));
        worst = std::max(worst, std::fabs(v - piece_value(piece, m, 0.75L + t / 4)));
      }
      rt.coef.push_back(std::move(c));
    }
    rt.max_fit_ulps = static_cast<double>(std::ldexp(worst, static_cast<int>(F)));
    rt.acc_bits = F + 2 + static_cast<unsigned>(std::ceil(std::log2(static_cast<double>(sum_max) + 1)));
    if (best.coef.empty() || rt.max_fit_ulps < best.max_fit_ulps) best = rt;
    if (rt.max_fit_ulps <= 0.5) return rt;
  }
  return best;
}

}  // namespace

const RadiusTable& radius_table(unsigned F, unsigned m) {
  static std::mutex mu;
  static std::map<std::pair<unsigned, unsigned>, RadiusTable> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find({F, m});
  if (it == cache.end()) it = cache.emplace(std::make_pair(F, m), build(F, m)).first;
  return it->second;
}

}  // namespace gopa::sampling::detail
