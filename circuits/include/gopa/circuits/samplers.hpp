// gopa/circuits/samplers.hpp — verifiable uniform seeds and Gaussian samplers as circuits.
//
//   auto p = SamplerParams::make(SamplerKind::kBoxMuller, 16);      // 16 fractional output bits
//   Recorder rec(p.circuit_name(d));
//   auto eta = gaussian_circuit(rec, p, xs, ys, d);   // xs private seeds, ys public randomness
//   // rec.circuit(): committed inputs x_i, public inputs y_i, committed outputs η_1..η_d
//
// Seeds: s = (x + y) mod 2^m with x ∈ [0, 2^m) private (committed before y is fixed) and
// y ∈ [0, 2^m) public; the mod is one carry bit (seed_gadget). Each sampler maps seeds to
// Gaussian samples with working precision F = f + guard, then scales by σ = sigma_fx / 2^sigma_bits
// and floors to f fractional bits. Definitions, bounds and error analysis: docs/circuits.md §5.
//
// Security notes: the circuit has a fixed shape for given parameters — the polar method evaluates
// all k candidates and selects the first accepted one obliviously, so nothing about the number of
// rejections leaks; with probability (1 − π/4)^k no candidate is accepted and a fixed fallback
// point s = 1/4 is used (a statistical deviation of at most that probability, stated in the bench).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gopa/circuits/approx.hpp"
#include "gopa/circuits/builder.hpp"
#include "gopa/circuits/gadgets.hpp"

namespace gopa::circuits {

enum class SamplerKind : std::uint8_t { kBoxMuller = 1, kPolar = 2, kInverseCdf = 3, kClt = 4 };

const char* sampler_name(SamplerKind k) noexcept;

struct SamplerParams {
  SamplerKind kind = SamplerKind::kBoxMuller;
  unsigned f = 16;      // fractional bits of the output η
  unsigned F = 20;      // working fractional bits
  unsigned m = 20;      // bits per uniform seed
  unsigned extra = 0;   // polar: candidates k; CLT: number of uniforms n = 12·4^j; ICDF: guard bits
  i128 sigma_fx = 1;    // σ = sigma_fx / 2^sigma_bits
  unsigned sigma_bits = 0;

  // Default parameter set for an output precision f ∈ [8, 32] and σ (rounded to 2^-16 unless 1).
  static SamplerParams make(SamplerKind kind, unsigned f, double sigma = 1.0);
  [[nodiscard]] unsigned seeds_per_call() const noexcept;
  [[nodiscard]] unsigned samples_per_call() const noexcept;
  // "gopa/circuits/<sampler>/v1 f=.. F=.. m=.. extra=.. sigma=../2^.. d=.."
  [[nodiscard]] std::string circuit_name(std::size_t d) const;
  // Stated bound on |η − σ·z_exact(seeds)|·2^f, in ulps of the output (docs §5).
  [[nodiscard]] double error_bound_ulps() const noexcept;
};

// Acklam's rational approximation of Φ^-1 (published coefficients; relative error ≤ 1.15e-9).
struct AcklamTables {
  PolyTable a, b, c, d;  // central numerator/denominator in r = q², tail in q = sqrt(−2 ln p)
  i128 p_low = 0;        // 0.02425 at scale 2^F
};
const AcklamTables& acklam_tables(unsigned F);

// s = (x + y) mod 2^m: x, s ∈ [0, 2^m), carry c ∈ {0, 1}, x + y = s + c·2^m (2m + 1 gates).
// The caller guarantees y ∈ [0, 2^m) (a public input, checked by the verifier).
template <Builder B>
WireT<B> seed_gadget(B& b, const WireT<B>& x, const WireT<B>& y, unsigned m) {
  const i128 sum = b.value(x) + b.value(y);
  WireT<B> c = bit_witness(b, (sum >> m) & 1);
  WireT<B> s = b.sub(b.add(x, y), b.mul_const(c, pow2(m)));
  assert_range(b, x, m);
  assert_range(b, s, m);
  return s;
}

// η = floor(z·σ·2^f) from z with fz fractional bits, |z| < 16.
template <Builder B>
WireT<B> scale_output(B& b, const SamplerParams& p, const WireT<B>& z, unsigned fz) {
  const auto sb = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(p.sigma_fx >> p.sigma_bits) + 1U));
  return shift_floor(b, b.mul_const(z, p.sigma_fx), fz + p.sigma_bits - p.f, p.f + sb + 6U);
}

// η = floor(x·y·σ·2^f) from x, y with fx, fy fractional bits, |x·y| < 16: one product and one
// truncation (no intermediate floor of x·y).
template <Builder B>
WireT<B> scale_product(B& b, const SamplerParams& p, const WireT<B>& x, unsigned fx,
                       const WireT<B>& y, unsigned fy) {
  return scale_output(b, p, b.mul(x, y), fx + fy);
}

// Box–Muller: u1 = (2s1+1)/2^(m+1), u2 = s2/2^m, R = sqrt(−2 ln u1), (R cos 2πu2, R sin 2πu2).
// Cost per call (docs §5.3): ln without final floor, R at ⌈(m+1+F)/2⌉ bits, cos/sin from shared
// powers, and each output one truncation of R·cos·σ (cos/sin first floored to F + 2 bits only
// when the product would exceed the wire bound).
template <Builder B>
std::vector<WireT<B>> box_muller(B& b, const SamplerParams& p, std::span<const WireT<B>> s) {
  const unsigned F = p.F, m = p.m;
  WireT<B> X1 = b.add_const(b.mul_const(s[0], 2), 1);
  // ln u1 at m + 1 + F bits with relative precision near u1 = 1, where the square root amplifies.
  WireT<B> L = fx_ln_rel(b, X1, m + 1, lnq_split_table(F));
  const unsigned fl = m + 1 + F, fe = fl & 1U, Fr = (fl + fe) / 2;
  // R < sqrt(2(m+1) ln 2) < 8 for m ≤ 45.
  WireT<B> R = int_sqrt(b, b.mul_const(L, -2 * pow2(fe)), Fr + 3);
  WireT<B> U2 = m <= F ? b.mul_const(s[1], pow2(F - m)) : shift_floor_unsigned(b, s[1], m - F, F);
  auto [c, sn] = fx_cos_sin_2pi_wide(b, U2, cos2pi_table(F));
  const unsigned Fw = cos_sin_wide_bits(F);
  const auto sigma_width = static_cast<unsigned>(std::bit_width(static_cast<std::uint64_t>(p.sigma_fx)));
  if (Fr + 3 + Fw + 1 + sigma_width <= 122)
    return {scale_product(b, p, R, Fr, c, Fw), scale_product(b, p, R, Fr, sn, Fw)};
  const unsigned Fc = F + 2;
  return {scale_product(b, p, R, Fr, shift_floor(b, c, Fw - Fc, Fc + 2), Fc),
          scale_product(b, p, R, Fr, shift_floor(b, sn, Fw - Fc, Fc + 2), Fc)};
}

// Polar (Marsaglia): k candidates v = (2a + 1 − 2^m)/2^m, S = v1² + v2² (2m fractional bits,
// exact), the first with S < 1 is selected obliviously; z = v·sqrt(−2 ln S / S) computed as
// sqrt(−2 ln S)·(v / sqrt S) so that every intermediate stays bounded.
template <Builder B>
std::vector<WireT<B>> polar(B& b, const SamplerParams& p, std::span<const WireT<B>> s) {
  const unsigned F = p.F, m = p.m, k = p.extra;
  WireT<B> found = b.constant(0), V1 = b.constant(0), V2 = b.constant(0), S = b.constant(0);
  const WireT<B> one = b.constant(pow2(2 * m));
  for (unsigned i = 0; i < k; ++i) {
    WireT<B> v1 = b.add_const(b.mul_const(s[2 * i], 2), 1 - pow2(m));
    WireT<B> v2 = b.add_const(b.mul_const(s[2 * i + 1], 2), 1 - pow2(m));
    WireT<B> si = b.add(b.mul(v1, v1), b.mul(v2, v2));
    WireT<B> acc = less_than(b, si, one, 2 * m + 1);
    WireT<B> take = b.mul(acc, b.sub(b.constant(1), found));
    found = b.add(found, take);
    V1 = b.add(V1, b.mul(take, v1));
    V2 = b.add(V2, b.mul(take, v2));
    S = b.add(S, b.mul(take, si));
  }
  // Fallback when no candidate is accepted: v = (1/2, 0), S = 1/4.
  WireT<B> nf = b.sub(b.constant(1), found);
  V1 = b.add(V1, b.mul_const(nf, pow2(m - 1)));
  S = b.add(S, b.mul_const(nf, pow2(2 * m - 2)));
  WireT<B> L = fx_ln_wide(b, S, 2 * m, lnq_table(F));
  WireT<B> Q = int_sqrt(b, b.mul_const(L, -2), F + 5);
  // r = floor(sqrt(s)·2^(m+F)) ≥ |v_i|·2^(m+F): relative precision 2^-F even for tiny s.
  WireT<B> r = int_sqrt(b, b.mul_const(S, pow2(2 * F)), m + F + 1);
  WireT<B> c1 = fx_div(b, V1, r, 2 * F, m + F + 1, F + 2);
  WireT<B> c2 = fx_div(b, V2, r, 2 * F, m + F + 1, F + 2);
  return {scale_product(b, p, Q, F, c1, F), scale_product(b, p, Q, F, c2, F)};
}

// Inverse CDF: p = (2s+1)/2^(m+1), p' = min(p, 1−p); central branch (p' ≥ 0.02425) and tail
// branch both evaluated on clamped inputs and selected obliviously; sign restored at the end.
// Internal precision Fi = F + extra (the central denominator falls to 0.0026 at the edge).
template <Builder B>
std::vector<WireT<B>> inverse_cdf(B& b, const SamplerParams& p, std::span<const WireT<B>> s) {
  const unsigned m = p.m, Fi = p.F + p.extra;
  const AcklamTables& t = acklam_tables(Fi);
  WireT<B> P = b.add_const(b.mul_const(s[0], 2), 1);  // m + 1 fractional bits
  WireT<B> lower = less_than(b, P, b.constant(pow2(m)), m);
  WireT<B> Pi = b.mul_const(P, pow2(Fi - m - 1));
  WireT<B> Pm = select(b, lower, Pi, b.sub(b.constant(pow2(Fi)), Pi));
  WireT<B> plow = b.constant(t.p_low);
  WireT<B> tail = less_than(b, Pm, plow, Fi);
  WireT<B> Pc = select(b, tail, plow, Pm);
  WireT<B> Pt = select(b, tail, Pm, plow);
  // Central: q = 1/2 − p ∈ [0, 0.476], y = q·A(q²)/B(q²).
  WireT<B> Qc = b.sub(b.constant(pow2(Fi - 1)), Pc);
  WireT<B> Rr = fx_mul(b, Qc, Qc, Fi, Fi);
  WireT<B> Na = fx_mul(b, horner(b, Rr, t.a), Qc, Fi, Fi + 3);
  WireT<B> Db = horner(b, Rr, t.b);
  WireT<B> Yc = fx_div(b, Na, Db, Fi, Fi + 1, Fi + 3);
  // Tail: q = sqrt(−2 ln p), y = −C(q)/D(q).
  WireT<B> Lt = fx_ln(b, Pt, Fi, ln_table(Fi));
  WireT<B> Qt = fx_sqrt(b, b.mul_const(Lt, -2), Fi, Fi + 4);
  WireT<B> Cn = horner(b, Qt, t.c);
  WireT<B> Dn = horner(b, Qt, t.d);
  WireT<B> Yt = fx_div(b, b.mul_const(Cn, -1), Dn, Fi, Fi + 12, Fi + 5);
  WireT<B> y = select(b, tail, Yt, Yc);
  WireT<B> z = b.mul(y, b.add_const(b.mul_const(lower, -2), 1));
  return {scale_output(b, p, z, Fi)};
}

// CLT: z = (Σ_{i<n} u_i − n/2)·sqrt(12/n), u_i = (2s_i + 1)/2^(m+1), n = 12·4^j (exact scaling).
template <Builder B>
std::vector<WireT<B>> clt(B& b, const SamplerParams& p, std::span<const WireT<B>> s) {
  const unsigned n = p.extra, m = p.m;
  unsigned j = 0;
  while ((12U << (2 * j)) < n) ++j;
  WireT<B> acc = b.constant(0);
  for (unsigned i = 0; i < n; ++i) acc = b.add(acc, b.mul_const(s[i], 2));
  acc = b.add_const(acc, static_cast<i128>(n) - static_cast<i128>(n) * pow2(m));
  return {scale_output(b, p, acc, m + 1 + j)};
}

// One sampler call on seeds already in [0, 2^m).
template <Builder B>
std::vector<WireT<B>> sample_from_seeds(B& b, const SamplerParams& p, std::span<const WireT<B>> s) {
  switch (p.kind) {
    case SamplerKind::kBoxMuller: return box_muller(b, p, s);
    case SamplerKind::kPolar: return polar(b, p, s);
    case SamplerKind::kInverseCdf: return inverse_cdf(b, p, s);
    case SamplerKind::kClt: return clt(b, p, s);
  }
  return {};
}

// The full circuit for d samples: committed private seeds x, public y (both of length
// calls·seeds_per_call, calls = ⌈d / samples_per_call⌉), seed gadgets, sampler, and the d
// samples as committed outputs (in order). Returns the output wires.
template <Builder B>
std::vector<WireT<B>> gaussian_circuit(B& b, const SamplerParams& p, std::span<const i128> xs,
                                       std::span<const i128> ys, std::size_t d) {
  const std::size_t calls = (d + p.samples_per_call() - 1) / p.samples_per_call();
  const std::size_t need = calls * p.seeds_per_call();
  std::vector<WireT<B>> xw, yw, out;
  xw.reserve(need);
  yw.reserve(need);
  for (std::size_t i = 0; i < need; ++i) xw.push_back(b.committed_input(xs[i]));
  for (std::size_t i = 0; i < need; ++i) yw.push_back(b.public_input(ys[i]));
  std::vector<WireT<B>> seeds;
  for (std::size_t c = 0; c < calls; ++c) {
    seeds.clear();
    for (unsigned i = 0; i < p.seeds_per_call(); ++i) {
      const std::size_t k = c * p.seeds_per_call() + i;
      seeds.push_back(seed_gadget(b, xw[k], yw[k], p.m));
    }
    for (auto& z : sample_from_seeds(b, p, std::span<const WireT<B>>(seeds)))
      if (out.size() < d) out.push_back(z);
  }
  for (const auto& z : out) b.output(z);
  return out;
}

// Fast clear-text path for statistics: samples (at f fractional bits) from seeds directly,
// with the exact circuit semantics (ClearBuilder). Returns false if any constraint failed.
bool clear_samples(const SamplerParams& p, std::span<const std::uint64_t> seeds,
                   std::vector<std::int64_t>& out);

}  // namespace gopa::circuits
