#include "gopa/circuits/recorder.hpp"

#include <sodium.h>

#include <algorithm>
#include <utility>

#include "gopa/bytes.hpp"
#include "gopa/check.hpp"
#include "gopa/circuits/ct.hpp"

namespace gopa::circuits {

// Constant time: |v| and the sign by masks, the negation by a constant-time scalar selection.
// |v| ≤ 2^127 < ℓ is already reduced, so its two words are the scalar's low limbs (libdecaf
// keeps scalars fully reduced, least significant limb first).
Scalar scalar_from_i128(i128 v) noexcept {
  static_assert(DECAF_WORD_BITS == 64 && DECAF_255_SCALAR_LIMBS == 4, "64-bit scalar limbs");
  const u128 m = ct::abs_u(v);
  Scalar s;
  s.raw()->limb[0] = static_cast<decaf_word_t>(m);
  s.raw()->limb[1] = static_cast<decaf_word_t>(m >> 64);
  const Scalar neg = -s;
  Scalar out;
  decaf_255_scalar_cond_sel(out.raw(), s.raw(), neg.raw(),
                            static_cast<decaf_word_t>(ct::mask_msb(static_cast<u128>(v))));
  return out;
}

Scalar LinComb::eval(std::span<const Scalar> z) const noexcept {
  Scalar acc = constant;
  for (const Term& t : terms) acc += t.coef * z[t.var];
  return acc;
}

namespace {

// Σ terms of a and k·b, merged by variable, zero coefficients dropped.
LinComb combine(const LinComb& a, const LinComb& b, const Scalar& k) {
  LinComb r;
  r.constant = a.constant + k * b.constant;
  r.terms.reserve(a.terms.size() + b.terms.size());
  std::size_t i = 0, j = 0;
  while (i < a.terms.size() || j < b.terms.size()) {
    if (j == b.terms.size() || (i < a.terms.size() && a.terms[i].var < b.terms[j].var)) {
      r.terms.push_back(a.terms[i++]);
    } else if (i == a.terms.size() || b.terms[j].var < a.terms[i].var) {
      Scalar c = k * b.terms[j].coef;
      if (!c.is_zero()) r.terms.push_back({b.terms[j].var, c});
      ++j;
    } else {
      Scalar c = a.terms[i].coef + k * b.terms[j].coef;
      if (!c.is_zero()) r.terms.push_back({a.terms[i].var, c});
      ++i;
      ++j;
    }
  }
  return r;
}

using Writer = ByteWriter<ByteOrder::little>;

void put_lc(Writer& w, const LinComb& lc) {
  w.scalar(lc.constant).u32(static_cast<std::uint32_t>(lc.terms.size()));
  for (const Term& t : lc.terms) w.u32(t.var).scalar(t.coef);
}

}  // namespace

std::vector<std::uint8_t> Circuit::encode() const {
  static constexpr std::string_view kMagic = "gopa/circuit/v1";
  GOPA_CHECK(name.size() <= 0xFFFF, "circuit name too long");
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  Writer w(out);
  w.u8(1).u16(static_cast<std::uint16_t>(name.size()));  // version, name length
  w.bytes(std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
  w.u32(static_cast<std::uint32_t>(vars.size()));
  for (VarKind k : vars) w.u8(static_cast<std::uint8_t>(k));
  w.u32(static_cast<std::uint32_t>(muls.size()));
  for (const MulGate& g : muls) {
    put_lc(w, g.a);
    put_lc(w, g.b);
    put_lc(w, g.c);
  }
  w.u32(static_cast<std::uint32_t>(linear.size()));
  for (const LinComb& l : linear) put_lc(w, l);
  return out;
}

Bytes32 Circuit::id() const {
  const std::vector<std::uint8_t> e = encode();
  Bytes32 h{};
  crypto_hash_sha256(h.data(), e.data(), e.size());
  return h;
}

std::size_t Circuit::count(VarKind k) const noexcept {
  return static_cast<std::size_t>(std::count(vars.begin(), vars.end(), k));
}

std::vector<std::uint32_t> Circuit::vars_of(VarKind k) const {
  std::vector<std::uint32_t> r;
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (vars[i] == k) r.push_back(static_cast<std::uint32_t>(i));
  return r;
}

CheckResult check_witness(const Circuit& c, std::span<const Scalar> z,
                          std::span<const Scalar> expected_public) {
  if (z.size() != c.vars.size()) return {CheckError::kWrongSize, 0};
  // Whether the witness satisfies the circuit is public (an honest prover's always does), but
  // which gate fails would say something about the secrets: evaluate every constraint, fold the
  // results without branching, and declassify only the verdict. The search for the failing
  // index below runs only on a bad witness.
  std::uint8_t all = 1;
  for (const MulGate& g : c.muls)
    all &= static_cast<std::uint8_t>(g.a.eval(z) * g.b.eval(z) == g.c.eval(z));
  for (const LinComb& l : c.linear) all &= static_cast<std::uint8_t>(l.eval(z).is_zero());
  gopa_declassify(&all, sizeof all);
  if (all != 1) {
    for (std::size_t i = 0; i < c.muls.size(); ++i) {
      const MulGate& g = c.muls[i];
      if (g.a.eval(z) * g.b.eval(z) != g.c.eval(z)) return {CheckError::kMulGate, i};
    }
    for (std::size_t i = 0; i < c.linear.size(); ++i)
      if (!c.linear[i].eval(z).is_zero()) return {CheckError::kLinear, i};
  }
  if (!expected_public.empty()) {
    const auto pub = c.vars_of(VarKind::kPublic);
    if (pub.size() != expected_public.size()) return {CheckError::kPublicInput, pub.size()};
    for (std::size_t i = 0; i < pub.size(); ++i)
      if (z[pub[i]] != expected_public[i]) return {CheckError::kPublicInput, i};
  }
  return {};
}

Recorder::Recorder(std::string name) { c_.name = std::move(name); }

Recorder::~Recorder() {
  if (!z_.empty()) sodium_memzero(z_.data(), z_.size() * sizeof(Scalar));
}

Recorder::Wire Recorder::constant(i128 c) const {
  Wire w;
  w.lc.constant = scalar_from_i128(c);
  w.val = w.lc.constant;
  w.shadow = c;
  return w;
}

// Shadows of a cheating prover's wires may be anything: saturate to 0 instead of overflowing
// (the field values stay exact; only hints derived from such a shadow are affected). Shadows are
// secret: the overflow test is a mask (ct.hpp), never a branch.
Recorder::Wire Recorder::add(const Wire& a, const Wire& b) const {
  u128 ovf = 0;
  const i128 s = ct::add(a.shadow, b.shadow, ovf);
  return {combine(a.lc, b.lc, Scalar::one()), a.val + b.val, ct::select(ovf, 0, s)};
}

Recorder::Wire Recorder::sub(const Wire& a, const Wire& b) const {
  u128 ovf = 0;
  const i128 s = ct::sub(a.shadow, b.shadow, ovf);
  return {combine(a.lc, b.lc, -Scalar::one()), a.val - b.val, ct::select(ovf, 0, s)};
}

Recorder::Wire Recorder::add_const(const Wire& a, i128 c) const { return add(a, constant(c)); }

Recorder::Wire Recorder::mul_const(const Wire& a, i128 c) const {
  const Scalar k = scalar_from_i128(c);
  Wire w;
  w.lc = combine(LinComb{}, a.lc, k);
  w.val = a.val * k;
  u128 ovf = 0;
  const i128 p = ct::mul(a.shadow, c, ovf);
  w.shadow = ct::select(ovf, 0, p);
  return w;
}

Recorder::Wire Recorder::new_var(VarKind k, i128 v, const Scalar& val) {
  const auto idx = static_cast<std::uint32_t>(c_.vars.size());
  c_.vars.push_back(k);
  z_.push_back(val);
  shadow_exact_ &= static_cast<std::uint8_t>(ct::in_wire_limit(v) & 1U);
  Wire w;
  w.lc.terms.push_back({idx, Scalar::one()});
  w.val = val;
  w.shadow = v;
  return w;
}

Recorder::Wire Recorder::mul(const Wire& a, const Wire& b) {
  u128 ovf = 0;
  const i128 prod = ct::mul(a.shadow, b.shadow, ovf);
  const i128 p = ct::select(ovf, 0, prod);
  shadow_exact_ &= static_cast<std::uint8_t>(~ovf & 1U);
  Wire out = new_var(VarKind::kProduct, p, a.val * b.val);
  c_.muls.push_back({a.lc, b.lc, out.lc});
  return out;
}

Recorder::Wire Recorder::witness(i128 v) {
  const std::size_t idx = hints_++;
  if (tamper_) v = tamper_(idx, v);
  return new_var(VarKind::kWitness, v, scalar_from_i128(v));
}

Recorder::Wire Recorder::public_input(i128 v) {
  return new_var(VarKind::kPublic, v, scalar_from_i128(v));
}

Recorder::Wire Recorder::committed_input(i128 v) {
  return new_var(VarKind::kCommitted, v, scalar_from_i128(v));
}

void Recorder::assert_zero(const Wire& a) {
  if (a.lc.terms.empty() && a.lc.constant.is_zero()) return;  // trivially true
  c_.linear.push_back(a.lc);
}

void Recorder::assert_mul(const Wire& a, const Wire& b, const Wire& c) {
  c_.muls.push_back({a.lc, b.lc, c.lc});
}

void Recorder::output(const Wire& w) {
  Wire o = new_var(VarKind::kOutput, w.shadow, w.val);
  assert_zero(sub(o, w));
}

WitnessRecorder::~WitnessRecorder() {
  if (!z_.empty()) sodium_memzero(z_.data(), z_.size() * sizeof(Scalar));
}

// As Recorder: a shadow that overflows saturates to 0 (a mask, never a branch) and clears
// shadow_exact.
WitnessRecorder::Wire WitnessRecorder::add(Wire a, Wire b) const noexcept {
  u128 ovf = 0;
  const i128 s = ct::add(a, b, ovf);
  return ct::select(ovf, 0, s);
}

WitnessRecorder::Wire WitnessRecorder::sub(Wire a, Wire b) const noexcept {
  u128 ovf = 0;
  const i128 s = ct::sub(a, b, ovf);
  return ct::select(ovf, 0, s);
}

WitnessRecorder::Wire WitnessRecorder::mul_const(Wire a, i128 c) const noexcept {
  u128 ovf = 0;
  const i128 p = ct::mul(a, c, ovf);
  return ct::select(ovf, 0, p);
}

WitnessRecorder::Wire WitnessRecorder::mul(Wire a, Wire b) {
  u128 ovf = 0;
  const i128 prod = ct::mul(a, b, ovf);
  shadow_exact_ &= static_cast<std::uint8_t>(~ovf & 1U);
  return new_var(VarKind::kProduct, ct::select(ovf, 0, prod));
}

WitnessRecorder::Wire WitnessRecorder::new_var(VarKind k, i128 v) {
  kinds_.push_back(k);
  z_.push_back(scalar_from_i128(v));
  shadow_exact_ &= static_cast<std::uint8_t>(ct::in_wire_limit(v) & 1U);
  return v;
}

}  // namespace gopa::circuits
