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
// Hints are computed in constant time from the wire values (ct.hpp: masks instead of branches,
// fixed-iteration division and square root, no table index on a value); only parameters, bit
// bounds and the circuit's structure steer control flow. Witness values are secret.
//
// Costs (multiplication gates): assert_range n; shift_floor s + hb; geq n + 1; select 1;
// fx_mul 1 + F + hb; fx_div 1 + 2·nd + hq; fx_sqrt 2·hy + 3; horner deg·(1 + Fz + hb).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "gopa/circuits/approx.hpp"
#include "gopa/circuits/builder.hpp"
#include "gopa/circuits/ct.hpp"

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
  // 0 unless d > 0; hq + 1 quotient bits: exact whenever the range check of q can hold.
  WireT<B> q = b.witness(ct::floor_div(b.value(num), b.value(d), hq + 1));
  WireT<B> r = b.sub(num, b.mul(q, d));
  assert_range(b, r, nd);
  assert_range(b, b.sub(b.add_const(d, -1), r), nd);
  assert_range(b, b.add_const(q, pow2(hq - 1)), hq);
  return q;
}

// y = floor(sqrt(n)) for an integer n ≥ 0 with y < 2^hy: r = n − y² ∈ [0, 2y], both r and
// 2y − r in [0, 2^(hy+1)). No separate range check of y: 2y = r + (2y − r) is a small integer,
// and it is even because 4r = 4n − (2y)² holds over the integers (docs/circuits.md §3.1).
template <Builder B>
WireT<B> int_sqrt(B& b, const WireT<B>& n, unsigned hy) {
  // The constraints give y < 2^(hy+1) (2y = r + (2y − r)): hy + 2 root bits are exact whenever
  // they can hold.
  WireT<B> y = b.witness(ct::isqrt(b.value(n), hy + 2));
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

// P(z) by Horner's rule in F-bit fixed point, the variable z with Fz fractional bits:
// acc ← floor(acc·z / 2^Fz) + c_j (coefficients and result at t.F bits).
// The innermost step c_n·z + c_{n−1} is affine (no gate, no floor): it is kept exact at
// F + Fz bits and the next step floors by 2^(2Fz), when that product stays below 2^122.
template <Builder B>
WireT<B> horner(B& b, const WireT<B>& z, unsigned Fz, const PolyTable& t) {
  const std::size_t n = t.coef.size() - 1;
  const auto zbits = static_cast<unsigned>(std::max(0.0, std::ceil(std::log2(t.zmax))));
  WireT<B> acc = b.constant(t.coef.back());
  std::size_t j = n;
  if (n >= 2 && t.hb + 2 * Fz + zbits + 1 <= 122) {
    WireT<B> wide = b.add_const(b.mul_const(z, t.coef[n]), t.coef[n - 1] * pow2(Fz));
    acc = b.add_const(shift_floor(b, b.mul(wide, z), 2 * Fz, t.hb), t.coef[n - 2]);
    j = n - 2;
  }
  while (j-- > 0) acc = b.add_const(fx_mul(b, acc, z, Fz, t.hb), t.coef[j]);
  return acc;
}

// P(z) with z at the table's F bits.
template <Builder B>
WireT<B> horner(B& b, const WireT<B>& z, const PolyTable& t) {
  return horner(b, z, t.F, t);
}

// Guard bits for the k·ln 2 term of fx_ln.
inline constexpr unsigned kLnGuard = 8;

namespace detail {
// Range reduction shared by fx_ln and fx_ln_wide: returns (M, k) with M = X·2^k ∈ [2^(fin−1), 2^fin),
// k ∈ [0, 2^nk) as nk = bit_width(fin − 1) bits (2^k = Π_j (1 + (2^(2^j) − 1)·k_j)).
// With top > 0, the range check of M exposes the top leading bits of M − 2^(fin−1) (highest
// first) in *top_bits, at the same cost.
template <Builder B>
std::pair<WireT<B>, WireT<B>> ln_reduce(B& b, const WireT<B>& X, unsigned fin, unsigned top = 0,
                                        std::vector<WireT<B>>* top_bits = nullptr) {
  const auto nk = static_cast<unsigned>(std::bit_width(fin - 1U));
  // k = fin − bit_width(X) for X ∈ [1, 2^fin), else 0 (no witness exists then).
  const i128 xv = b.value(X);
  const u128 valid = ~ct::lt(xv, 1) & ct::lt(xv, pow2(fin));
  const auto kv = static_cast<unsigned>(
      static_cast<u128>(fin - ct::bit_width(static_cast<u128>(xv))) & valid);
  WireT<B> pw = b.constant(1);
  WireT<B> k = b.constant(0);
  for (unsigned j = 0; j < nk; ++j) {
    WireT<B> kj = bit_witness(b, (kv >> j) & 1U);
    WireT<B> factor = b.add_const(b.mul_const(kj, pow2(1U << j) - 1), 1);
    pw = j == 0 ? factor : b.mul(pw, factor);
    k = b.add(k, b.mul_const(kj, pow2(j)));
  }
  WireT<B> M = nk == 0 ? X : b.mul(X, pw);
  WireT<B> rest = b.add_const(M, -pow2(fin - 1));
  const i128 rv = b.value(rest);
  for (unsigned i = 0; i < top; ++i) {
    const unsigned w = fin - 2 - i;
    top_bits->push_back(bit_witness(b, (rv >> w) & 1));
    rest = b.sub(rest, b.mul_const(top_bits->back(), pow2(w)));
  }
  assert_range(b, rest, fin - 1 - top);
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

// ln(x)·2^(fin+F) for x = X / 2^fin ∈ (0, 1), X ∈ [1, 2^fin), 6 ≤ fin ≤ 2F + 8, with relative
// precision near x = 1 and no floor after the polynomial (docs §4.1). Range reduction as fx_ln;
// the three leading mantissa bits of m ∈ [1/2, 1) (from the range check of M) select one of
// eight intervals: ln m = (m − 1)·Q_i(z), z = m − c_i exact at fin bits, |z| ≤ 1/32, where the
// coefficients of Q_i (t = lnq_split_table(F)) are multilinear in the three bits (4 gates);
// minus k·round(ln2·2^(fin+F)).
template <Builder B>
WireT<B> fx_ln_rel(B& b, const WireT<B>& X, unsigned fin, const std::vector<PolyTable>& t) {
  const unsigned F = t[0].F, n = t[0].degree(), hb = t[0].hb;
  std::vector<WireT<B>> top;
  auto [M, k] = detail::ln_reduce(b, X, fin, kLnqSplitBits, &top);
  // top[i] is the bit of weight 2^(fin−2−i) of M − 2^(fin−1): interval index = Σ top[i]·2^(2−i).
  // Monomials Π_{i∈S} bit_i over S ⊆ {0,1,2} (bit_i of weight 2^i in the index).
  const WireT<B> b0 = top[2], b1 = top[1], b2 = top[0];
  const WireT<B> b01 = b.mul(b0, b1);
  const std::vector<WireT<B>> mono = {b.constant(1), b0, b1, b01, b2, b.mul(b0, b2), b.mul(b1, b2),
                                      b.mul(b01, b2)};
  // coefficient j as a multilinear form: Möbius transform of the eight interval values.
  auto coef = [&](std::size_t j) {
    std::vector<i128> a(8);
    for (unsigned i = 0; i < 8; ++i) a[i] = t[i].coef[j];
    for (unsigned bit = 1; bit < 8; bit <<= 1)
      for (unsigned i = 0; i < 8; ++i)
        if ((i & bit) != 0) a[i] -= a[i ^ bit];
    WireT<B> c = b.constant(a[0]);
    for (unsigned i = 1; i < 8; ++i) c = b.add(c, b.mul_const(mono[i], a[i]));
    return c;
  };
  // z·2^fin = M − c_i·2^fin = (low fin − 4 bits of M) − 2^(fin−5).
  WireT<B> Z = b.sub(b.add_const(M, -pow2(fin - 1) - pow2(fin - 5)),
                     b.add(b.mul_const(top[0], pow2(fin - 2)),
                           b.add(b.mul_const(top[1], pow2(fin - 3)), b.mul_const(top[2], pow2(fin - 4)))));
  // Horner; the innermost step c_n·z + c_{n−1} is kept exact at F + fin bits.
  WireT<B> acc = coef(n);
  std::size_t j = n;
  if (n >= 2 && hb + 2 * fin + 1 <= 122) {
    WireT<B> wide = b.add(b.mul(acc, Z), b.mul_const(coef(n - 1), pow2(fin)));
    acc = b.add(shift_floor(b, b.mul(wide, Z), 2 * fin, hb), coef(n - 2));
    j = n - 2;
  }
  while (j-- > 0) acc = b.add(fx_mul(b, acc, Z, fin, hb), coef(j));
  WireT<B> D = b.add_const(M, -pow2(fin));  // (m − 1)·2^fin ∈ [−2^(fin−1), 0)
  return b.sub(b.mul(D, acc), b.mul_const(k, detail::ln2_fx(fin + F)));
}

// Fractional bits of the power variables of fx_cos_sin_2pi_wide (guard bits over F: the
// rounding of u^k is multiplied by coefficients up to Σ|c_j| < 2^8, docs §4.2).
inline constexpr unsigned kTrigPowerGuard = 9;
// Fractional bits of the outputs of fx_cos_sin_2pi_wide.
constexpr unsigned cos_sin_wide_bits(unsigned F) noexcept { return 3 * F + kTrigPowerGuard; }

// (cos 2πu, sin 2πu)·2^(3F + 9) for u = U / 2^F ∈ [0, 1), 10 ≤ F ≤ 36, without truncation of
// the result (docs §4.2). Same reduction as fx_cos_sin_2pi; A(t) = Ae(t²) + t·Ao(t²) with one set
// of powers u^k = (t²)^k at G = F + 9 bits shared by A(t) (cos) and A(−t) (sin):
// cos 2πv = Ae + t·Ao, sin 2πv = Ae − t·Ao. Error ≤ 1.5 ulps of 2^-F each.
template <Builder B>
std::pair<WireT<B>, WireT<B>> fx_cos_sin_2pi_wide(B& b, const WireT<B>& U, const PolyTable& t) {
  const unsigned F = t.F, G = F + kTrigPowerGuard;
  const i128 q = b.value(U) >> (F - 2);
  WireT<B> q0 = bit_witness(b, q & 1);
  WireT<B> q1 = bit_witness(b, (q >> 1) & 1);
  WireT<B> V = b.sub(U, b.add(b.mul_const(q0, pow2(F - 2)), b.mul_const(q1, pow2(F - 1))));
  assert_range(b, V, F - 2);
  WireT<B> T = b.add_const(V, -pow2(F - 3));  // t·2^F, |t| ≤ 1/8
  // u = t² ≤ 2^-6 at G bits; u^k ≤ 2^-6k.
  const unsigned n = t.degree();
  std::vector<WireT<B>> pw{b.constant(pow2(G))};
  if (n >= 2) pw.push_back(shift_floor_unsigned(b, b.mul(T, T), 2 * F - G, G - 5));
  for (unsigned k = 2; 2 * k <= n; ++k)
    pw.push_back(shift_floor_unsigned(b, b.mul(pw[k - 1], pw[1]), G, G + 1 - 6 * k));
  WireT<B> E = b.constant(0), O = b.constant(0);  // at F + G bits
  for (unsigned j = 0; j <= n; ++j) {
    WireT<B> term = b.mul_const(pw[j / 2], t.coef[j]);
    if (j % 2 == 0) E = b.add(E, term);
    else O = b.add(O, term);
  }
  WireT<B> Ew = b.mul_const(E, pow2(F));
  WireT<B> tO = b.mul(T, O);
  WireT<B> c = b.add(Ew, tO), s = b.sub(Ew, tO);
  // q0: (c, s) → (−s, c); q1: negate both.
  WireT<B> x = select(b, q0, b.mul_const(s, -1), c);
  WireT<B> y = select(b, q0, c, s);
  WireT<B> sign = b.add_const(b.mul_const(q1, -2), 1);
  return {b.mul(x, sign), b.mul(y, sign)};
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
