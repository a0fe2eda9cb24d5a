// gopa/circuits/gadgets.hpp — fixed-point gadgets, written once against the Builder concept.
//
//   ClearBuilder b;                        // or Recorder (recorder.hpp)
//   auto x = b.committed_input(3 << 16), y = b.committed_input(5 << 15);
//   auto p = fx_mul(b, x, y, 16, 24);      // floor(x·y / 2^16), |result| < 2^23
//   auto l = fx_ln(b, x_small, 17, ln_table(20));
//
// Conventions: a fixed-point value with F fractional bits is the integer round-or-floor(v·2^F).
// Every gadget takes the bit bounds of its outputs (hb: signed, |q| < 2^(hb−1); or unsigned,
// q ∈ [0, 2^hb)); they are range-checked, which makes each field identity an integer identity
// (docs/circuits.md §3 states the soundness argument and requires s + hb < 250). An honest
// prover that violates a stated precondition cannot complete the witness (ClearBuilder::ok()
// turns false), it never produces a wrong result silently.
//
// Costs (multiplication gates): assert_range n; shift_floor s + hb; geq n + 1; select 1;
// fx_mul 1 + F + hb; fx_div 1 + 2·nd + hq; fx_sqrt 3·hy + 3; horner deg·(1 + F + hb).
#pragma once

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "gopa/circuits/approx.hpp"
#include "gopa/circuits/builder.hpp"

namespace gopa::circuits {

template <Builder B>
using WireT = typename B::Wire;

// b ∈ {0, 1}: one gate b·(b − 1) = 0.
template <Builder B>
void assert_bit(B& b, const WireT<B>& x) {
  b.assert_mul(x, b.add_const(x, -1), b.constant(0));
}

template <Builder B>
WireT<B> bit_witness(B& b, i128 v) {
  WireT<B> w = b.witness(v);
  assert_bit(b, w);
  return w;
}

// 0 ≤ x < 2^n by bit decomposition: n bit witnesses, n gates, one linear constraint.
template <Builder B>
void assert_range(B& b, const WireT<B>& x, unsigned n) {
  if constexpr (requires { b.fast_range(x, n); }) {
    b.fast_range(x, n);
  } else {
    const i128 v = b.value(x);
    WireT<B> acc = b.constant(0);
    for (unsigned i = 0; i < n; ++i) {
      WireT<B> bit = bit_witness(b, (v >> i) & 1);
      acc = b.add(acc, b.mul_const(bit, pow2(i)));
    }
    b.assert_zero(b.sub(acc, x));
  }
}

// The n low bits of x (LSB first), with x = Σ 2^i b_i enforced.
template <Builder B>
std::vector<WireT<B>> to_bits(B& b, const WireT<B>& x, unsigned n) {
  const i128 v = b.value(x);
  std::vector<WireT<B>> bits;
  WireT<B> acc = b.constant(0);
  for (unsigned i = 0; i < n; ++i) {
    bits.push_back(bit_witness(b, (v >> i) & 1));
    acc = b.add(acc, b.mul_const(bits.back(), pow2(i)));
  }
  b.assert_zero(b.sub(acc, x));
  return bits;
}

// q = floor(x / 2^s) with |q| < 2^(hb−1): witness q, r = x − q·2^s ∈ [0, 2^s).
template <Builder B>
WireT<B> shift_floor(B& b, const WireT<B>& x, unsigned s, unsigned hb) {
  WireT<B> q = b.witness(floor_shift(b.value(x), s));
  assert_range(b, b.sub(x, b.mul_const(q, pow2(s))), s);
  assert_range(b, b.add_const(q, pow2(hb - 1)), hb);
  return q;
}

// q = floor(x / 2^s) with q ∈ [0, 2^hb).
template <Builder B>
WireT<B> shift_floor_unsigned(B& b, const WireT<B>& x, unsigned s, unsigned hb) {
  WireT<B> q = b.witness(floor_shift(b.value(x), s));
  assert_range(b, b.sub(x, b.mul_const(q, pow2(s))), s);
  assert_range(b, q, hb);
  return q;
}

// [x ≥ y] for |x − y| < 2^n: d = x − y + 2^n = t·2^n + r, t a bit, r ∈ [0, 2^n).
template <Builder B>
WireT<B> geq(B& b, const WireT<B>& x, const WireT<B>& y, unsigned n) {
  WireT<B> d = b.add_const(b.sub(x, y), pow2(n));
  WireT<B> t = bit_witness(b, (b.value(d) >> n) & 1);
  assert_range(b, b.sub(d, b.mul_const(t, pow2(n))), n);
  return t;
}

// [x < y] and [x ≤ y] for |x − y| < 2^n.
template <Builder B>
WireT<B> less_than(B& b, const WireT<B>& x, const WireT<B>& y, unsigned n) {
  return b.sub(b.constant(1), geq(b, x, y, n));
}
template <Builder B>
WireT<B> less_equal(B& b, const WireT<B>& x, const WireT<B>& y, unsigned n) {
  return geq(b, y, x, n);
}

// c ? x : y for a bit c (one gate; oblivious).
template <Builder B>
WireT<B> select(B& b, const WireT<B>& c, const WireT<B>& x, const WireT<B>& y) {
  return b.add(y, b.mul(c, b.sub(x, y)));
}

// floor(x·y / 2^F), |result| < 2^(hb−1).
template <Builder B>
WireT<B> fx_mul(B& b, const WireT<B>& x, const WireT<B>& y, unsigned F, unsigned hb) {
  return shift_floor(b, b.mul(x, y), F, hb);
}

// q = floor(a·2^F / d) for d ∈ [1, 2^nd), |q| < 2^(hq−1):
// a·2^F = q·d + r with r ∈ [0, 2^nd) and d − 1 − r ∈ [0, 2^nd) (so 0 ≤ r < d).
template <Builder B>
WireT<B> fx_div(B& b, const WireT<B>& a, const WireT<B>& d, unsigned F, unsigned nd,
                unsigned hq) {
  WireT<B> num = b.mul_const(a, pow2(F));
  const i128 dv = b.value(d);
  WireT<B> q = b.witness(dv > 0 ? floor_div(b.value(num), dv) : 0);
  WireT<B> r = b.sub(num, b.mul(q, d));
  assert_range(b, r, nd);
  assert_range(b, b.sub(b.add_const(d, -1), r), nd);
  assert_range(b, b.add_const(q, pow2(hq - 1)), hq);
  return q;
}

// y = floor(sqrt(n)) for an integer n ≥ 0 with y < 2^hy: r = n − y² ∈ [0, 2y].
template <Builder B>
WireT<B> int_sqrt(B& b, const WireT<B>& n, unsigned hy) {
  WireT<B> y = b.witness(isqrt(b.value(n)));
  assert_range(b, y, hy);
  WireT<B> r = b.sub(n, b.mul(y, y));
  assert_range(b, r, hy + 1);
  assert_range(b, b.sub(b.mul_const(y, 2), r), hy + 1);
  return y;
}

// floor(sqrt(x)·2^F) = floor(sqrt(x·2^F)) in F-bit fixed point, x ≥ 0, result < 2^hy.
template <Builder B>
WireT<B> fx_sqrt(B& b, const WireT<B>& x, unsigned F, unsigned hy) {
  return int_sqrt(b, b.mul_const(x, pow2(F)), hy);
}

// P(z) by Horner's rule in F-bit fixed point: acc ← floor(acc·z / 2^F) + c_j.
template <Builder B>
WireT<B> horner(B& b, const WireT<B>& z, const PolyTable& t) {
  WireT<B> acc = b.constant(t.coef.back());
  for (std::size_t j = t.coef.size() - 1; j-- > 0;)
    acc = b.add_const(fx_mul(b, acc, z, t.F, t.hb), t.coef[j]);
  return acc;
}

// Guard bits for the k·ln 2 term of fx_ln.
inline constexpr unsigned kLnGuard = 8;

namespace detail {
// Range reduction shared by fx_ln and fx_ln_wide: returns (M, k) with M = X·2^k ∈ [2^(fin−1), 2^fin),
// k ∈ [0, 2^nk) as nk = bit_width(fin − 1) bits (2^k = Π_j (1 + (2^(2^j) − 1)·k_j)).
template <Builder B>
std::pair<WireT<B>, WireT<B>> ln_reduce(B& b, const WireT<B>& X, unsigned fin) {
  const auto nk = static_cast<unsigned>(std::bit_width(fin - 1U));
  const i128 xv = b.value(X);
  unsigned kv = 0;
  if (xv >= 1 && xv < pow2(fin)) {
    const auto hi = static_cast<std::uint64_t>(xv >> 64);
    const auto lo = static_cast<std::uint64_t>(xv);
    const unsigned len = hi != 0 ? 64U + static_cast<unsigned>(std::bit_width(hi))
                                 : static_cast<unsigned>(std::bit_width(lo));
    kv = fin - len;
  }
  WireT<B> pw = b.constant(1);
  WireT<B> k = b.constant(0);
  for (unsigned j = 0; j < nk; ++j) {
    WireT<B> kj = bit_witness(b, (kv >> j) & 1U);
    WireT<B> factor = b.add_const(b.mul_const(kj, pow2(1U << j) - 1), 1);
    pw = j == 0 ? factor : b.mul(pw, factor);
    k = b.add(k, b.mul_const(kj, pow2(j)));
  }
  WireT<B> M = nk == 0 ? X : b.mul(X, pw);
  assert_range(b, b.add_const(M, -pow2(fin - 1)), fin - 1);
  return {M, k};
}

// z = m − 3/4 in F bits from M (fin bits).
template <Builder B>
WireT<B> ln_variable(B& b, const WireT<B>& M, unsigned fin, unsigned F) {
  WireT<B> Z = fin > F ? shift_floor_unsigned(b, M, fin - F, F) : b.mul_const(M, pow2(F - fin));
  return b.add_const(Z, -3 * pow2(F - 2));
}

inline i128 ln2_fx(unsigned bits) { return ln2_fixed(bits); }
}  // namespace detail

// ln(x)·2^F (error ≤ 6 ulps, docs/circuits.md §4.1) for x = X / 2^fin ∈ (0, 1), X ∈ [1, 2^fin),
// 2 ≤ fin ≤ 120. Range reduction x = m·2^−k, m ∈ [1/2, 1), k ∈ [0, fin) as ⌈log2 fin⌉ bits;
// ln x = P(m − 3/4) − k·ln 2 with t = ln_table(F). Result in (−fin·ln2 − 1, 0].
template <Builder B>
WireT<B> fx_ln(B& b, const WireT<B>& X, unsigned fin, const PolyTable& t) {
  const unsigned F = t.F;
  auto [M, k] = detail::ln_reduce(b, X, fin);
  WireT<B> P = horner(b, detail::ln_variable(b, M, fin, F), t);
  // ln 2 at F + G bits: k·ln2 contributes < k·2^-(G+1) ulps of rounding.
  WireT<B> T = b.sub(b.mul_const(P, pow2(kLnGuard)), b.mul_const(k, detail::ln2_fx(F + kLnGuard)));
  return shift_floor(b, T, kLnGuard, F + static_cast<unsigned>(std::bit_width(fin)) + 2U);
}

// ln(x)·2^(2F) with relative precision near x = 1 (docs §4.1): ln m = (m − 1)·Q(m − 3/4),
// t = lnq_table(F), with m − 1 exact at fin bits; for fin ≥ F. Error ≤ (4|ln x| + 2)·2^-F
// in absolute value (i.e. in units of 2^-2F: (4|ln x| + 2)·2^F), so sqrt(−2 ln x) keeps F bits.
template <Builder B>
WireT<B> fx_ln_wide(B& b, const WireT<B>& X, unsigned fin, const PolyTable& t) {
  const unsigned F = t.F;
  auto [M, k] = detail::ln_reduce(b, X, fin);
  WireT<B> Q = horner(b, detail::ln_variable(b, M, fin, F), t);
  WireT<B> D = b.add_const(M, -pow2(fin));  // (m − 1)·2^fin ∈ [−2^(fin−1), 0)
  WireT<B> lm = fin >= F ? shift_floor(b, b.mul(D, Q), fin - F, 2 * F + 1)
                         : b.mul_const(b.mul(D, Q), pow2(F - fin));
  return b.sub(lm, b.mul_const(k, detail::ln2_fx(2 * F)));
}

// (cos 2πu, sin 2πu)·2^F for u = U / 2^F ∈ [0, 1) (error ≤ 3 ulps each, docs §4.2).
// Quadrant q = ⌊4u⌋ from two bits, v = u − q/4 ∈ [0, 1/4), t = v − 1/8, and
// cos 2πv = A(t), sin 2πv = A(−t) with A = cos2pi_table(F); then an oblivious quadrant rotation.
template <Builder B>
std::pair<WireT<B>, WireT<B>> fx_cos_sin_2pi(B& b, const WireT<B>& U, const PolyTable& t) {
  const unsigned F = t.F;
  const i128 q = b.value(U) >> (F - 2);
  WireT<B> q0 = bit_witness(b, q & 1);
  WireT<B> q1 = bit_witness(b, (q >> 1) & 1);
  WireT<B> V = b.sub(U, b.add(b.mul_const(q0, pow2(F - 2)), b.mul_const(q1, pow2(F - 1))));
  assert_range(b, V, F - 2);
  WireT<B> T = b.add_const(V, -pow2(F - 3));
  WireT<B> c = horner(b, T, t);
  WireT<B> s = horner(b, b.mul_const(T, -1), t);
  // q0: (c, s) → (−s, c); q1: negate both.
  WireT<B> x = select(b, q0, b.mul_const(s, -1), c);
  WireT<B> y = select(b, q0, c, s);
  WireT<B> sign = b.add_const(b.mul_const(q1, -2), 1);
  return {b.mul(x, sign), b.mul(y, sign)};
}

}  // namespace gopa::circuits
