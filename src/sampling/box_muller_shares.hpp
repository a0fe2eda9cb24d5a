// The Box–Muller transformation written once against an engine (clear integers or shares),
// so the shared computation and its clear-text reference have the same semantics
// (docs/sampling.md §4). Internal header of src/sampling.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "gopa/circuits/approx.hpp"
#include "gopa/sampling.hpp"

namespace gopa::sampling::detail {

constexpr i128 p2(unsigned k) noexcept { return static_cast<i128>(1) << k; }

// Coefficients of the radius polynomials: piece index 0..m−1 is "A": u1 = mm·2^-(m−j) with the
// leading one of X1 = 2s1 + 1 at position j < m; m..2m−1 is "B": 1 − u1 = mm·2^-(m−j) (leading
// one of 2^(m+1) − X1 at j < m). Variable t = 4·mm − 3 ∈ [−1, 1), F bits; coef at 2^F.
struct RadiusTable {
  unsigned F = 0, m = 0, degree = 0;
  std::vector<std::vector<i128>> coef;  // [piece][j], j = 0..degree
  unsigned acc_bits = 0;                // |Horner partial| < 2^acc_bits (integers at 2^F)
  double max_fit_ulps = 0;              // max |P(t) − g| in units of 2^-F (after rounding)
};
const RadiusTable& radius_table(unsigned F, unsigned m);

// Bound on |x| (bits) for the truncation of a product of a Horner partial by a variable.
inline unsigned horner_product_bits(unsigned acc_bits, unsigned F) { return acc_bits + F + 1; }

template <class E>
using ValT = typename E::Val;

// acc ← trunc(acc·t, F) + C_j with shared (or constant) coefficients C_j.
template <class E>
ValT<E> horner_shared(E& e, const ValT<E>& t, std::span<const ValT<E>> coefs, unsigned F,
                      unsigned acc_bits) {
  ValT<E> acc = coefs.back();
  for (std::size_t j = coefs.size() - 1; j-- > 0;)
    acc = e.add(e.trunc(e.mul(acc, t), F, horner_product_bits(acc_bits, F)), coefs[j]);
  return acc;
}

// The two Box–Muller samples at f fractional bits from 2m hidden seed bits.
template <class E>
std::pair<ValT<E>, ValT<E>> box_muller_shares(E& e, const HiddenParams& p) {
  using V = ValT<E>;
  const unsigned m = p.m, F = p.F;
  std::vector<V> b1 = e.seed_bits(m), b2 = e.seed_bits(m);
  // --- radius R = sqrt(−2 ln u1), u1 = (2 s1 + 1)/2^(m+1).
  // Bits of X1 (m + 1 bits): x_0 = 1, x_{i+1} = b1_i; of X1' = 2^(m+1) − X1: x'_0 = 1,
  // x'_{i+1} = 1 − b1_i. Prefix ORs from the top give the one-hot leading position.
  auto one_hot = [&](bool complement) {
    std::vector<V> x;
    x.reserve(m + 1);
    x.push_back(e.constant(1));
    for (unsigned i = 0; i < m; ++i) x.push_back(complement ? e.add_const(e.mul_const(b1[i], -1), 1) : b1[i]);
    std::vector<V> pre(m + 2);
    pre[m + 1] = e.constant(0);
    pre[m] = x[m];
    for (unsigned j = m; j-- > 1;)  // p_j = p_{j+1} OR x_j
      pre[j] = e.sub(e.add(pre[j + 1], x[j]), e.mul(pre[j + 1], x[j]));
    pre[0] = e.constant(1);
    std::vector<V> hot(m);
    for (unsigned j = 0; j < m; ++j) hot[j] = e.sub(pre[j], pre[j + 1]);
    return std::make_pair(std::move(x), std::move(hot));
  };
  auto [xa, ea] = one_hot(false);
  auto [xb, eb] = one_hot(true);
  // Exactly one of ea[0..m−1], eb[0..m−1] is 1 (eb is all zero unless the top bit of s1 is 1,
  // and then ea is all zero).
  std::vector<V> X(2), pw(2);
  {
    std::vector<V> bitsA(xa.begin(), xa.end()), bitsB(xb.begin(), xb.end());
    std::vector<i128> w(m + 1);
    for (unsigned i = 0; i <= m; ++i) w[i] = p2(i);
    X[0] = e.lincomb(bitsA, w, 0);
    X[1] = e.lincomb(bitsB, w, 0);
    std::vector<i128> sh(m);
    for (unsigned j = 0; j < m; ++j) sh[j] = p2(m - j);
    pw[0] = e.lincomb(ea, sh, 0);
    pw[1] = e.lincomb(eb, sh, 0);
  }
  // M = X·2^(m−j) ∈ [2^m, 2^(m+1)); T = (M − 3·2^(m−1))·2^(F−m+1) = t at F bits.
  V M = e.add(e.mul(X[0], pw[0]), e.mul(X[1], pw[1]));
  V T = e.mul_const(e.add_const(M, -3 * p2(m - 1)), p2(F - m + 1));
  const RadiusTable& rt = radius_table(F, m);
  std::vector<V> hot;
  hot.insert(hot.end(), ea.begin(), ea.end());
  hot.insert(hot.end(), eb.begin(), eb.end());
  std::vector<V> coefs(rt.degree + 1);
  for (unsigned j = 0; j <= rt.degree; ++j) {
    std::vector<i128> w(2 * m);
    for (unsigned k = 0; k < 2 * m; ++k) w[k] = rt.coef[k][j];
    coefs[j] = e.lincomb(hot, w, 0);
  }
  V R = horner_shared<E>(e, T, coefs, F, rt.acc_bits);
  // --- (cos 2πu2, sin 2πu2): quadrant bits q1 = b2_{m−1}, q0 = b2_{m−2};
  // v = V/2^m ∈ [0, 1/4), t = v − 1/8 at F bits; circuits' cos2pi_table gives cos 2π(1/8 + t).
  const circuits::PolyTable& ct = circuits::cos2pi_table(F);
  std::vector<i128> w(m - 2);
  for (unsigned i = 0; i + 2 < m; ++i) w[i] = p2(i + F - m);
  V T2 = e.lincomb(std::span<const V>(b2.data(), m - 2), w, -p2(F - 3));
  std::vector<V> cc(ct.coef.size());
  for (std::size_t j = 0; j < ct.coef.size(); ++j) cc[j] = e.constant(ct.coef[j]);
  V c = horner_shared<E>(e, T2, cc, F, ct.hb);
  V s = horner_shared<E>(e, e.mul_const(T2, -1), cc, F, ct.hb);
  const V& q0 = b2[m - 2];
  const V& q1 = b2[m - 1];
  V x = e.add(c, e.mul(q0, e.sub(e.mul_const(s, -1), c)));  // q0 ? −s : c
  V y = e.add(s, e.mul(q0, e.sub(c, s)));                   // q0 ? c : s
  x = e.sub(x, e.mul_const(e.mul(q1, x), 2));                // q1: negate
  y = e.sub(y, e.mul_const(e.mul(q1, y), 2));
  // --- z = R·(x, y) at F bits, then η = floor(z·σ·2^f) (exact probabilistic truncation).
  const unsigned zb = 2 * F + 5;
  V z1 = e.trunc(e.mul(R, x), F, zb);
  V z2 = e.trunc(e.mul(R, y), F, zb);
  const auto sb = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(p.sigma_fx)));
  const unsigned s_out = F + p.sigma_bits - p.f;
  const unsigned ob = F + 5 + sb;
  V eta1 = e.trunc_exact(e.mul_const(z1, p.sigma_fx), s_out, ob);
  V eta2 = e.trunc_exact(e.mul_const(z2, p.sigma_fx), s_out, ob);
  return {eta1, eta2};
}

}  // namespace gopa::sampling::detail
