// Arithmetic-circuit proofs (AC20 §5, polynomial technique). Math: docs/proofs.md §4.
#include "gopa/sigma/circuit.hpp"

#include <sodium.h>

#include <algorithm>

#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/parallel.hpp"
#include "compressed_impl.hpp"
#include "poly.hpp"
#include "wire.hpp"

namespace gopa::sigma {

// ------------------------------------------------------------------ LinComb

namespace {
void merge_terms(std::vector<Term>& ts) {
  std::sort(ts.begin(), ts.end(), [](const Term& x, const Term& y) { return x.index < y.index; });
  std::vector<Term> out;
  out.reserve(ts.size());
  for (const Term& t : ts) {
    if (!out.empty() && out.back().index == t.index) {
      out.back().coeff += t.coeff;
    } else {
      out.push_back(t);
    }
  }
  std::erase_if(out, [](const Term& t) { return t.coeff.is_zero(); });
  ts = std::move(out);
}
}  // namespace

LinComb& LinComb::operator+=(const LinComb& o) {
  terms.insert(terms.end(), o.terms.begin(), o.terms.end());
  public_terms.insert(public_terms.end(), o.public_terms.begin(), o.public_terms.end());
  constant += o.constant;
  normalize();
  return *this;
}
LinComb& LinComb::operator-=(const LinComb& o) { return *this += o * (-Scalar::one()); }
LinComb& LinComb::operator*=(const Scalar& k) {
  for (Term& t : terms) t.coeff *= k;
  for (Term& t : public_terms) t.coeff *= k;
  constant *= k;
  normalize();
  return *this;
}
void LinComb::normalize() {
  merge_terms(terms);
  merge_terms(public_terms);
}
LinComb operator+(LinComb a, const LinComb& b) { return a += b; }
LinComb operator-(LinComb a, const LinComb& b) { return a -= b; }
LinComb operator*(LinComb a, const Scalar& k) { return a *= k; }
LinComb operator+(LinComb a, const Scalar& k) {
  a.constant += k;
  return a;
}
LinComb operator-(LinComb a, const Scalar& k) {
  a.constant -= k;
  return a;
}

// ------------------------------------------------------------------ Circuit

namespace {
void put_lincomb(std::vector<std::uint8_t>& out, const LinComb& e) {
  wire::Writer w(out);
  w.u32(static_cast<std::uint32_t>(e.terms.size()));
  for (const Term& t : e.terms) w.u32(t.index).scalar(t.coeff);
  w.u32(static_cast<std::uint32_t>(e.public_terms.size()));
  for (const Term& t : e.public_terms) w.u32(t.index).scalar(t.coeff);
  w.scalar(e.constant);
}

bool lincomb_ok(const LinComb& e, std::uint32_t nw, std::uint32_t np) {
  for (std::size_t i = 0; i < e.terms.size(); ++i) {
    if (e.terms[i].index >= nw) return false;
    if (i > 0 && e.terms[i - 1].index >= e.terms[i].index) return false;  // canonical order
  }
  for (std::size_t i = 0; i < e.public_terms.size(); ++i) {
    if (e.public_terms[i].index >= np) return false;
    if (i > 0 && e.public_terms[i - 1].index >= e.public_terms[i].index) return false;
  }
  return true;
}

// Public part of an affine form: constant + Σ coeff·public.
Scalar public_part(const LinComb& e, std::span<const Scalar> publics) {
  Scalar v = e.constant;
  for (const Term& t : e.public_terms) v += t.coeff * publics[t.index];
  return v;
}

// Constant time in the witness.
SecretScalar eval_secret(const LinComb& e, std::span<const SecretScalar> w,
                         std::span<const Scalar> publics) {
  SecretScalar acc(public_part(e, publics));
  for (const Term& t : e.terms) acc += w[t.index] * t.coeff;
  return acc;
}
}  // namespace

std::vector<std::uint8_t> Circuit::encode() const {
  std::vector<std::uint8_t> out;
  wire::Writer(out)
      .u32(num_witness)
      .u32(num_public)
      .u32(static_cast<std::uint32_t>(gates.size()))
      .u32(static_cast<std::uint32_t>(zero.size()))
      .u32(static_cast<std::uint32_t>(bindings.size()));
  for (const MulGate& g : gates) {
    put_lincomb(out, g.a);
    put_lincomb(out, g.b);
    put_lincomb(out, g.c);
  }
  for (const LinComb& z : zero) put_lincomb(out, z);
  for (const LinComb& b : bindings) put_lincomb(out, b);
  return out;
}

Bytes32 Circuit::hash() const {
  static constexpr std::string_view kTag = "gopa/sigma/circuit-id v1";
  const std::vector<std::uint8_t> enc = encode();
  Bytes32 out{};
  crypto_generichash_blake2b_state st;
  crypto_generichash_blake2b_init(&st, nullptr, 0, out.size());
  crypto_generichash_blake2b_update(&st, reinterpret_cast<const unsigned char*>(kTag.data()),
                                    kTag.size());
  crypto_generichash_blake2b_update(&st, enc.data(), enc.size());
  crypto_generichash_blake2b_final(&st, out.data(), out.size());
  return out;
}

bool Circuit::well_formed() const {
  if (gates.size() > kMaxCircuitGates || num_witness > kMaxCircuitVariables ||
      num_public > kMaxCircuitVariables || zero.size() > kMaxCircuitGates ||
      bindings.size() > kMaxCircuitGates)
    return false;
  for (const MulGate& g : gates)
    if (!lincomb_ok(g.a, num_witness, num_public) || !lincomb_ok(g.b, num_witness, num_public) ||
        !lincomb_ok(g.c, num_witness, num_public))
      return false;
  for (const LinComb& z : zero)
    if (!lincomb_ok(z, num_witness, num_public)) return false;
  for (const LinComb& b : bindings)
    if (!lincomb_ok(b, num_witness, num_public)) return false;
  return true;
}

bool Circuit::is_satisfied(std::span<const Scalar> publics, std::span<const Scalar> w) const {
  if (publics.size() != num_public || w.size() != num_witness) return false;
  auto ev = [&](const LinComb& e) {
    Scalar v = public_part(e, publics);
    for (const Term& t : e.terms) v += t.coeff * w[t.index];
    return v;
  };
  for (const MulGate& g : gates)
    if (ev(g.a) * ev(g.b) != ev(g.c)) return false;
  for (const LinComb& z : zero)
    if (!ev(z).is_zero()) return false;
  return true;
}

// ------------------------------------------------------------------ builder

LinComb CircuitBuilder::push_witness(SecretScalar v) {
  GOPA_CHECK(circuit_.num_witness < kMaxCircuitVariables, "circuit too large");
  const std::uint32_t i = circuit_.num_witness++;
  if (mode_ == kProver) witness_.push_back(std::move(v));
  return LinComb::variable(i);
}

LinComb CircuitBuilder::secret(SecretScalar value) { return push_witness(std::move(value)); }

LinComb CircuitBuilder::bits(unsigned n) {
  LinComb sum;
  Scalar pow2 = Scalar::one();
  for (unsigned i = 0; i < n; ++i) {
    LinComb bit = secret();
    assert_mul(bit, bit - Scalar::one(), LinComb{});
    sum += bit * pow2;
    pow2 += pow2;
  }
  return sum;
}

LinComb CircuitBuilder::committed(SecretScalar value) {
  LinComb v = push_witness(std::move(value));
  circuit_.bindings.push_back(v);
  return v;
}

void CircuitBuilder::bind_commitment(const LinComb& e) {
  LinComb n = e;
  n.normalize();
  circuit_.bindings.push_back(std::move(n));
}

LinComb CircuitBuilder::public_input(const Scalar& value) {
  const std::uint32_t i = circuit_.num_public++;
  publics_.push_back(value);
  return {{}, {{i, Scalar::one()}}, Scalar::zero()};
}

LinComb CircuitBuilder::mul(const LinComb& a, const LinComb& b) {
  SecretScalar v;
  if (mode_ == kProver) v = value(a) * value(b);
  LinComb out = push_witness(std::move(v));
  assert_mul(a, b, out);
  return out;
}

void CircuitBuilder::assert_mul(const LinComb& a, const LinComb& b, const LinComb& c) {
  MulGate g{a, b, c};
  g.a.normalize();
  g.b.normalize();
  g.c.normalize();
  circuit_.gates.push_back(std::move(g));
}

void CircuitBuilder::assert_zero(const LinComb& e) {
  LinComb n = e;
  n.normalize();
  circuit_.zero.push_back(std::move(n));
}

SecretScalar CircuitBuilder::value(const LinComb& e) const {
  GOPA_CHECK(mode_ == kProver, "CircuitBuilder::value in verifier mode");
  return eval_secret(e, witness_, publics_);
}

// ------------------------------------------------------------------ proof encoding

std::size_t CircuitProof::body_size(const Circuit& c) { return body_size(Basis{c.generators_needed(), !c.bindings.empty()}); }

std::size_t CircuitProof::body_size(Basis basis) {
  return 3U * 32U + CompressedProof::encoded_size(fold_shape(basis.size()));
}

void CircuitProof::encode_body(std::vector<std::uint8_t>& out) const {
  wire::Writer(out).point(p).scalar(fa).scalar(gb);
  inner.encode_to(out);
}

std::vector<std::uint8_t> CircuitProof::encode() const {
  std::vector<std::uint8_t> out;
  wire::Writer(out).u8(kProofVersion).u8(static_cast<std::uint8_t>(ProofKind::kCircuit));
  encode_body(out);
  return out;
}

std::optional<CircuitProof> CircuitProof::decode_body(std::span<const std::uint8_t> in,
                                                      const Circuit& c) {
  // Length first (cheap), then the circuit's own consistency.
  if (in.size() != body_size(c) || !c.well_formed()) return std::nullopt;
  return decode_body(in, Basis{c.generators_needed(), !c.bindings.empty()});
}

std::optional<CircuitProof> CircuitProof::decode_body(std::span<const std::uint8_t> in, Basis basis) {
  if (in.size() != body_size(basis)) return std::nullopt;
  wire::Reader r(in.first(96));
  CircuitProof pr;
  pr.p = r.point();
  pr.fa = r.scalar();
  pr.gb = r.scalar();
  if (!r.ok() || pr.p.is_identity()) return std::nullopt;
  auto inner = CompressedProof::decode(in.subspan(96), fold_shape(basis.size()));
  if (!inner) return std::nullopt;
  pr.inner = std::move(*inner);
  return pr;
}

std::optional<CircuitProof> CircuitProof::decode(std::span<const std::uint8_t> in,
                                                 const Circuit& c) {
  if (in.size() < 2 || in[0] != kProofVersion ||
      in[1] != static_cast<std::uint8_t>(ProofKind::kCircuit))
    return std::nullopt;
  return decode_body(in.subspan(2), c);
}

// ------------------------------------------------------------------ protocol

namespace {

constexpr std::string_view kDomain = "gopa/sigma/circuit v2";

void bind_statement(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                    std::span<const Scalar> publics, std::span<const Point> commitments) {
  t.domain_separator(kDomain);
  t.append_message("generators", gens.id());
  t.append_message("circuit", c.id());
  t.append_u64("witness", c.num_witness);
  t.append_u64("gates", c.gates.size());
  t.append_u64("zero", c.zero.size());
  t.append_scalars("public", publics);
  t.append_points("V", commitments);
}

struct Challenges {
  Scalar c, rho, omega;
};

// The evaluation point must lie outside the interpolation points {0, …, 2m}.
Scalar eval_point(Transcript& t, std::size_t m) {
  for (;;) {
    Scalar c = t.challenge_scalar("c");
    const Bytes32 b = c.encode();
    bool small = true;
    for (std::size_t i = 8; i < 32; ++i) small = small && b[i] == 0;
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{b[i]} << (8 * i);
    if (!small || v > 2 * m) return c;
  }
}

// Coordinates: w | f(0) g(0) h(0) | h(m+1..2m) | s (if bindings) | H.
struct Layout {
  std::size_t nw, m;
  std::size_t f0() const { return nw; }
  std::size_t g0() const { return nw + 1; }
  std::size_t h0() const { return nw + 2; }
  std::size_t hk(std::size_t k) const { return nw + 3 + (k - m - 1); }
};

using field::Fe;

// k·w for a public coefficient k, without the multiplication (and k's conversion to the field)
// for the coefficients circuits are mostly made of: 0, 1 and −1. Variable time in k: public.
Fe times_coeff(const Fe& w, const Scalar& k) {
  static const Scalar one = Scalar::one(), minus_one = -Scalar::one();
  if (k.is_zero()) return Fe{};
  if (k == one) return w;
  if (k == minus_one) return field::neg(w);
  return field::mul(w, field::of(k));
}

// The combined linear form L (docs/proofs.md §4.2) for given challenges, and what its value
// needs besides the instance: the value is f(c) + ρ·g(c) + ρ²·f(c)·g(c) − Σ weight·(public part
// of the form), over every gate, linear constraint and binding form with a public part. The form
// depends on the circuit and the challenges only, so a batch of instances shares it. Public data.
struct FormPlan {
  std::vector<Fe> form;
  Fe rho, rho2;
  Fe constant;  // Σ weight·constant term
  std::vector<std::pair<Fe, const LinComb*>> with_publics;  // forms with public terms, weighted

  [[nodiscard]] Fe value(std::span<const Scalar> publics, const Scalar& fa_s, const Scalar& gb_s) const {
    const Fe fa = field::of(fa_s), gb = field::of(gb_s);
    Fe v = field::add(fa, field::mul(rho, gb));
    v = field::add(v, field::mul(rho2, field::mul(fa, gb)));
    v = field::sub(v, constant);
    for (const auto& [weight, e] : with_publics) {
      Fe pub;
      for (const Term& t : e->public_terms)
        pub = field::add(pub, times_coeff(field::of(publics[t.index]), t.coeff));
      v = field::sub(v, field::mul(weight, pub));
    }
    return v;
  }
};

FormPlan plan_form(const Circuit& c, const Challenges& ch) {
  const std::size_t m = c.gates.size();
  const Layout lay{c.num_witness, m};
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  FormPlan plan;
  std::vector<Fe>& form = plan.form;
  form.assign(basis.size(), Fe{});
  std::vector<Fe> lam, mu;
  poly::lagrange_pair(ch.c, m, 2 * m, lam, mu);
  plan.rho = field::of(ch.rho);
  plan.rho2 = field::mul(plan.rho, plan.rho);
  const Fe rho = plan.rho, rho2 = plan.rho2;
  // Adds weight·e's witness terms to the form and records its public part.
  auto add = [&](const LinComb& e, const Fe& weight) {
    for (const Term& t : e.terms) form[t.index] = field::add(form[t.index], times_coeff(weight, t.coeff));
    if (!e.constant.is_zero()) plan.constant = field::add(plan.constant, field::mul(weight, field::of(e.constant)));
    if (!e.public_terms.empty()) plan.with_publics.emplace_back(weight, &e);
  };
  // F1: f(c) = λ_0·f(0) + Σ λ_i·a_i.
  form[lay.f0()] = field::add(form[lay.f0()], lam[0]);
  for (std::size_t i = 1; i <= m; ++i) add(c.gates[i - 1].a, lam[i]);
  // F2 (weight ρ): g(c).
  form[lay.g0()] = field::add(form[lay.g0()], field::mul(rho, lam[0]));
  for (std::size_t i = 1; i <= m; ++i) add(c.gates[i - 1].b, field::mul(rho, lam[i]));
  // F3 (weight ρ²): h(c) = μ_0·h(0) + Σ_{i≤m} μ_i·c_i + Σ_{k>m} μ_k·h(k).
  form[lay.h0()] = field::add(form[lay.h0()], field::mul(rho2, mu[0]));
  for (std::size_t i = 1; i <= m; ++i) add(c.gates[i - 1].c, field::mul(rho2, mu[i]));
  for (std::size_t k = m + 1; k <= 2 * m; ++k)
    form[lay.hk(k)] = field::add(form[lay.hk(k)], field::mul(rho2, mu[k]));
  // Linear constraints z_t = 0 (weights ρ^3, ρ^4, …).
  Fe w = field::mul(rho2, rho);
  for (const LinComb& z : c.zero) {
    add(z, w);
    w = field::mul(w, rho);
  }
  // Bindings: Σ_j ω^(j+1)·k_j − s = 0. The weights start at ω, not 1: the G-coordinate of P is
  // fixed before ω is drawn, and s = p_G + Σ_j ω^(j+1)·v_j, so the binding is a polynomial in ω
  // with constant term −p_G, which must vanish with the others (docs/proofs.md §4.4).
  if (!c.bindings.empty()) {
    const Fe omega = field::of(ch.omega);
    Fe om = omega;
    for (const LinComb& b : c.bindings) {
      add(b, field::mul(w, om));
      om = field::mul(om, omega);
    }
    form[basis.n_gi] = field::sub(form[basis.n_gi], w);
  }
  return plan;
}

// The combined linear form L and its value for one instance. Public data only.
void circuit_form(const Circuit& c, std::span<const Scalar> publics, const Challenges& ch,
                  const Scalar& fa_s, const Scalar& gb_s, std::vector<Fe>& form, Fe& value) {
  FormPlan plan = plan_form(c, ch);
  value = plan.value(publics, fa_s, gb_s);
  form = std::move(plan.form);
}

// Witness variables that every satisfying witness keeps in {0, 1}: those with a gate
// v·(v − 1) = 0. A property of the public circuit, used to commit to them with a constant-time
// select instead of a scalar multiplication.
std::vector<bool> boolean_variables(const Circuit& c) {
  std::vector<bool> out(c.num_witness, false);
  const Scalar one = Scalar::one();
  for (const MulGate& g : c.gates) {
    if (g.a.terms.size() != 1 || g.b.terms.size() != 1 || !g.c.terms.empty()) continue;
    if (!g.a.public_terms.empty() || !g.b.public_terms.empty() || !g.c.public_terms.empty())
      continue;
    const std::uint32_t v = g.a.terms[0].index;
    if (g.b.terms[0].index != v || g.a.terms[0].coeff != one || g.b.terms[0].coeff != one) continue;
    if (!g.a.constant.is_zero() || g.b.constant != -one || !g.c.constant.is_zero()) continue;
    out[v] = true;
  }
  return out;
}

// P = Σ y_i·G_i + γ·H, constant time in y and γ. Boolean variables are added as
// select(bit, identity, G_i) (their low bit; a non-boolean value there only makes the proof
// invalid), the rest and γ·H go through one constant-time MSM over the cached tables.
Point commit_wires(const GeneratorSet& gens, const Circuit& c, std::span<const SecretScalar> y,
                   const SecretScalar& gamma) {
  const std::vector<bool> boolean = boolean_variables(c);
  const auto gi = gens.Gi(y.size());
  const detail::SecretTables tab = detail::secret_tables(gens, y.size());
  Point acc;
  std::vector<SecretScalar> rest;
  std::vector<std::size_t> rows;
  rest.reserve(y.size() + 1);
  rows.reserve(y.size() + 1);
  const Point identity;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (i < boolean.size() && boolean[i]) {
      std::uint8_t enc[32];
      decaf_255_scalar_encode(enc, y[i].raw());
      const decaf_word_t mask = 0U - static_cast<decaf_word_t>(enc[0] & 1U);
      sodium_memzero(enc, sizeof enc);
      Point sel;
      decaf_255_point_cond_sel(sel.raw(), identity.raw(), gi[i].raw(), mask);
      acc += sel;
    } else {
      rest.push_back(y[i].clone());
      rows.push_back(i);
    }
  }
  rest.push_back(gamma.clone());
  rows.push_back(tab.h());
  return acc + tab.basis->msm(rest, rows);
}

bool statement_ok(const GeneratorSet& gens, const Circuit& c, std::span<const Scalar> publics,
                  std::span<const Point> commitments) {
  return c.well_formed() && publics.size() == c.num_public &&
         commitments.size() == c.bindings.size() && c.generators_needed() <= gens.size();
}

// Test-only deviation (gopa/deviation.hpp): offsets added to P before it is absorbed. Along a
// wire generator G_i or H the prover's opening follows the offset; along G the binding
// coordinate s stays Σ_j ω^(j+1)·k_j(w), computed from the witness: the opening the binding check
// accepts, which matches the combined commitment exactly when the offset cancels the gap
// between the witness and the committed values (docs/proofs.md §4.4); along Q nothing follows.
void apply_wire_offsets(const testing::Deviation& dev, const GeneratorSet& gens, Point& p,
                        std::vector<SecretScalar>& x, SecretScalar& gamma) {
  for (const testing::Offset& o : dev.wire_offsets) {
    switch (o.along) {
      case testing::Along::kG:
        p += gens.G() * o.amount;
        break;
      case testing::Along::kH:
        p += gens.H() * o.amount;
        gamma += SecretScalar(o.amount);
        break;
      case testing::Along::kQ:
        p += gens.Q() * o.amount;
        break;
      case testing::Along::kGi:
        p += gens.Gi(o.index + 1)[o.index] * o.amount;
        if (o.index < x.size()) x[o.index] += SecretScalar(o.amount);
        break;
    }
  }
}

// P + Σ_j ω^(j+1)·V_j (weights from ω, as in circuit_form).
PointExpr combined_commitment(const Point& p, std::span<const Point> commitments,
                              const Scalar& omega) {
  PointExpr e = PointExpr::of(p);
  Scalar om = omega;
  for (const Point& v : commitments) {
    e.add(om, v);
    om *= omega;
  }
  return e;
}

// The gate polynomials' values f(0..m), g(0..m) (f(0), g(0) the given masks, then the gates'
// left and right inputs) and the opening of the wire commitment P: x = (w, f(0), g(0), h(0),
// h(m+1..2m)) with h = f·g (AC20 §5).
std::vector<SecretScalar> wire_opening(const Circuit& c, std::span<const SecretScalar> w,
                                       std::span<const Scalar> publics, const SecretScalar& f0,
                                       const SecretScalar& g0, std::vector<SecretScalar>& fv,
                                       std::vector<SecretScalar>& gv) {
  const std::size_t m = c.gates.size();
  fv.clear();
  gv.clear();
  fv.reserve(m + 1);
  gv.reserve(m + 1);
  fv.push_back(f0.clone());
  gv.push_back(g0.clone());
  for (const MulGate& g : c.gates) {
    fv.push_back(eval_secret(g.a, w, publics));
    gv.push_back(eval_secret(g.b, w, publics));
  }
  const std::vector<SecretScalar> fx = poly::extrapolate(fv);
  const std::vector<SecretScalar> gx = poly::extrapolate(gv);
  std::vector<SecretScalar> x;
  x.reserve(c.generators_needed() + 2);
  for (const SecretScalar& v : w) x.push_back(v.clone());
  x.push_back(f0.clone());
  x.push_back(g0.clone());
  x.push_back(f0 * g0);
  for (std::size_t k = 0; k < m; ++k) x.push_back(fx[k] * gx[k]);
  return x;
}

// Completes x, the opening of P, into the opening of P + Σ_j ω^(j+1)·V_j: appends s =
// Σ_j ω^(j+1)·k_j(w) when the circuit has bindings, then γ + Σ_j ω^(j+1)·r_j.
void close_opening(const Circuit& c, std::span<const SecretScalar> w, std::span<const Scalar> publics,
                   std::span<const SecretScalar> blinders, const Scalar& omega, SecretScalar gamma,
                   std::vector<SecretScalar>& x) {
  if (!c.bindings.empty()) {
    SecretScalar sum;
    Scalar om = omega;
    for (std::size_t j = 0; j < c.bindings.size(); ++j) {
      sum += eval_secret(c.bindings[j], w, publics) * om;
      gamma += blinders[j] * om;
      om *= omega;
    }
    x.push_back(std::move(sum));
  }
  x.push_back(std::move(gamma));
}

// The verdict of a circuit or batch verifier once its terms are in eq.
VerifyResult final_verdict(VerifyResult r, const MsmTerms& eq, const GeneratorSet& gens, const char* what) {
  if (!r) return r;
  if (!eq.is_identity(gens))
    return VerifyResult::fail(VerifyStatus::kFinalEquation,
                              std::string("final equation fails: some ") + what +
                                  "gate, linear constraint, binding or opening does not hold");
  return VerifyResult::valid();
}

}  // namespace

CircuitProof prove_circuit(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                           std::span<const Scalar> publics, std::span<const Point> commitments,
                           std::span<const SecretScalar> w, std::span<const SecretScalar> blinders,
                           Rng& rng) {
  GOPA_CHECK(statement_ok(gens, c, publics, commitments), "prove_circuit: bad statement");
  GOPA_CHECK(w.size() == c.num_witness, "prove_circuit: witness size");
  GOPA_CHECK(blinders.size() == commitments.size(), "prove_circuit: one blinder per commitment");
  const std::size_t m = c.gates.size();
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  const testing::Deviation* dev = testing::deviation();
  std::vector<Point> claimed;  // test-only deviation: commitments other than the witness opens
  if (dev != nullptr && dev->on_statement) {
    claimed.assign(commitments.begin(), commitments.end());
    dev->on_statement(claimed);
    commitments = claimed;
  }
  bind_statement(t, gens, c, publics, commitments);

  std::vector<const SecretScalar*> wit;
  for (const SecretScalar& v : w) wit.push_back(&v);
  for (const SecretScalar& v : blinders) wit.push_back(&v);
  auto prng_honest = t.prover_rng(wit, rng);
  testing::NonceSource nonces(prng_honest);
  Rng& prng = nonces.get();

  // f(0..m) = (random, a_1..a_m), g likewise; h = f·g on 0 and m+1..2m (AC20 §5).
  const SecretScalar f0 = SecretScalar::random(prng);
  const SecretScalar g0 = SecretScalar::random(prng);
  std::vector<SecretScalar> fv, gv;
  std::vector<SecretScalar> x = wire_opening(c, w, publics, f0, g0, fv, gv);
  GOPA_CHECK(x.size() == basis.n_gi, "prove_circuit: layout");
  SecretScalar gamma = SecretScalar::random(prng);
  CircuitProof proof;
  proof.p = commit_wires(gens, c, x, gamma);
  if (dev != nullptr) apply_wire_offsets(*dev, gens, proof.p, x, gamma);
  proof.p.cache_encoding();  // encoded again by the transcript, the serialiser and verifiers

  // Evaluation point and the two published evaluations f(c), g(c).
  t.append_point("P", proof.p);
  Challenges ch;
  ch.c = eval_point(t, m);
  {
    const std::vector<Fe> lam = poly::lagrange_at(ch.c, m);
    Fe fa, gb;  // constant-time field arithmetic on the secret values
    for (std::size_t j = 0; j <= m; ++j) {
      fa = field::add(fa, field::mul(field::of(fv[j]), lam[j]));
      gb = field::add(gb, field::mul(field::of(gv[j]), lam[j]));
    }
    proof.fa = field::to_scalar(fa);  // published
    proof.gb = field::to_scalar(gb);
  }
  if (dev != nullptr && dev->on_evaluations) dev->on_evaluations(proof.fa, proof.gb);
  t.append_scalar("f(c)", proof.fa);
  t.append_scalar("g(c)", proof.gb);
  ch.rho = t.challenge_scalar("rho");
  ch.omega = t.challenge_scalar("omega");

  std::vector<Fe> form;
  Fe value;
  circuit_form(c, publics, ch, proof.fa, proof.gb, form, value);

  // Opening of P + Σ ω^(j+1)·V_j: (x, s = Σ ω^(j+1)·k_j(w), γ + Σ ω^(j+1)·r_j).
  close_opening(c, w, publics, blinders, ch.omega, std::move(gamma), x);
  std::vector<std::vector<SecretScalar>> openings;
  openings.push_back(std::move(x));
  proof.inner = detail::compressed_prove(t, gens, basis, openings, form, rng);
  return proof;
}


// ------------------------------------------------------------------ batches (docs/proofs.md §4.5)

namespace {

constexpr std::string_view kBatchDomain = "gopa/sigma/circuit-batch v1";

void bind_batch_statement(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                          std::span<const std::vector<Scalar>> publics,
                          std::span<const std::vector<Point>> commitments) {
  t.domain_separator(kBatchDomain);
  t.append_message("generators", gens.id());
  t.append_message("circuit", c.id());
  t.append_u64("witness", c.num_witness);
  t.append_u64("gates", c.gates.size());
  t.append_u64("zero", c.zero.size());
  t.append_u64("instances", publics.size());
  for (std::size_t k = 0; k < publics.size(); ++k) {
    t.append_scalars("public", publics[k]);
    t.append_points("V", commitments[k]);
  }
}

bool batch_statement_ok(const GeneratorSet& gens, const Circuit& c, std::span<const std::vector<Scalar>> publics,
                        std::span<const std::vector<Point>> commitments) {
  if (publics.empty() || commitments.size() != publics.size()) return false;
  for (std::size_t k = 0; k < publics.size(); ++k)
    if (!statement_ok(gens, c, publics[k], commitments[k])) return false;
  return true;
}

// Instance k's secrets in one pass of the batch prover: its witness and blinders from the
// source, and f(0), g(0), γ drawn from its own stream, which every pass derives again from the
// same transcript state, witness and seed.
struct Opened {
  std::vector<SecretScalar> w, blind;
  SecretScalar f0, g0, gamma;
};

// Contiguous runs of [0, count) on up to `threads` threads (0: every core): fn(run, k) for every
// k, run < runs (parallel_runs).
struct Runs {
  std::size_t count;
  std::size_t runs;
  Runs(std::size_t n, unsigned threads) : count(n), runs(std::min<std::size_t>(resolve_threads(threads), n)) {}
  template <class Fn>
  void each(Fn&& fn) const {
    parallel_runs(count, runs, [&](std::size_t r, std::size_t k) {
      fn(r, k);
      return true;
    });
  }
};

}  // namespace

CircuitBatchProof prove_circuit_batch(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                      std::span<const std::vector<Scalar>> publics,
                                      std::span<const std::vector<Point>> commitments,
                                      const WitnessSource& source, Rng& rng, unsigned threads) {
  const std::size_t s = publics.size();
  GOPA_CHECK(batch_statement_ok(gens, c, publics, commitments), "prove_circuit_batch: bad statement");
  const std::size_t m = c.gates.size();
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  const std::size_t n = basis.size();
  const testing::Deviation* dev = testing::deviation();
  // Test-only deviation: the commitments instance 0 claims (its witness opens others).
  std::vector<std::vector<Point>> claimed;
  if (dev != nullptr && dev->on_statement) {
    claimed.assign(commitments.begin(), commitments.end());
    dev->on_statement(claimed[0]);
    commitments = claimed;
  }
  bind_batch_statement(t, gens, c, publics, commitments);
  const Transcript bound = t.clone();  // the state every instance's stream is derived from
  std::vector<std::array<std::uint8_t, 32>> seeds(s);
  for (auto& k : seeds) rng.fill(k);

  auto open = [&](std::size_t k, Opened& o) {
    o.w.clear();
    o.blind.clear();
    source(k, o.w, o.blind);
    GOPA_CHECK(o.w.size() == c.num_witness && o.blind.size() == c.bindings.size(),
               "prove_circuit_batch: the source gave a witness of the wrong size");
    std::vector<const SecretScalar*> wit;
    for (const SecretScalar& v : o.w) wit.push_back(&v);
    for (const SecretScalar& v : o.blind) wit.push_back(&v);
    DeterministicRng external(seeds[k]);
    auto honest = bound.prover_rng(wit, external);
    testing::NonceSource nonces(honest);
    Rng& prng = nonces.get();
    o.f0 = SecretScalar::random(prng);
    o.g0 = SecretScalar::random(prng);
    o.gamma = SecretScalar::random(prng);
  };
  // Instance k's opening of its wire commitment: (w, f(0), g(0), h(0), h(m+1..2m)) and γ, the
  // wire offsets of a test deviation applied to instance 0 (its P follows them in pass 1).
  auto wires = [&](std::size_t k, Opened& o, std::vector<SecretScalar>& x, Point* p) {
    std::vector<SecretScalar> fv, gv;
    x = wire_opening(c, o.w, publics[k], o.f0, o.g0, fv, gv);
    if (p != nullptr) *p = commit_wires(gens, c, x, o.gamma);
    if (dev != nullptr && k == 0) {
      Point ignored;
      apply_wire_offsets(*dev, gens, p != nullptr ? *p : ignored, x, o.gamma);
    }
  };
  const Runs runs(s, threads);
  CircuitBatchProof proof;

  // Pass 1: the wire commitments P_k, and a digest of each witness for the mask's stream.
  proof.p.resize(s);
  std::vector<SecretScalar> digests(s);
  runs.each([&](std::size_t, std::size_t k) {
    Opened o;
    open(k, o);
    std::vector<SecretScalar> x;
    wires(k, o, x, &proof.p[k]);
    proof.p[k].cache_encoding();
    crypto_generichash_blake2b_state st;
    crypto_generichash_blake2b_init(&st, nullptr, 0, 64);
    for (const auto* part : {&o.w, &o.blind}) {
      for (const SecretScalar& v : *part) {
        std::uint8_t e[32];
        decaf_255_scalar_encode(e, v.raw());
        crypto_generichash_blake2b_update(&st, e, sizeof e);
        sodium_memzero(e, sizeof e);
      }
    }
    std::uint8_t h[64];
    crypto_generichash_blake2b_final(&st, h, sizeof h);
    digests[k] = SecretScalar::reduce(h);
    sodium_memzero(h, sizeof h);
    sodium_memzero(&st, sizeof st);
  });
  t.append_points("P", proof.p);
  Challenges ch;
  ch.c = eval_point(t, m);

  // Pass 2: the evaluations f_k(c), g_k(c) (no extrapolation: f(c) = Σ_j λ_j·f(j)).
  {
    const std::vector<Fe> lam = poly::lagrange_at(ch.c, m);
    proof.fa.resize(s);
    proof.gb.resize(s);
    runs.each([&](std::size_t, std::size_t k) {
      Opened o;
      open(k, o);
      Fe fa = field::mul(field::of(o.f0), lam[0]), gb = field::mul(field::of(o.g0), lam[0]);
      for (std::size_t j = 1; j <= m; ++j) {
        const MulGate& g = c.gates[j - 1];
        fa = field::add(fa, field::mul(field::of(eval_secret(g.a, o.w, publics[k])), lam[j]));
        gb = field::add(gb, field::mul(field::of(eval_secret(g.b, o.w, publics[k])), lam[j]));
      }
      proof.fa[k] = field::to_scalar(fa);  // published
      proof.gb[k] = field::to_scalar(gb);
    });
  }
  if (dev != nullptr && dev->on_evaluations) dev->on_evaluations(proof.fa[0], proof.gb[0]);
  t.append_scalars("f(c)", proof.fa);
  t.append_scalars("g(c)", proof.gb);
  ch.rho = t.challenge_scalar("rho");
  ch.omega = t.challenge_scalar("omega");
  const FormPlan plan = plan_form(c, ch);

  // The amortized pivot over the s openings of P_k + Σ_j ω^(j+1)·V_{k,j} (AC20 §3.3), its
  // stream bound to every witness through the digests.
  const Scalar cq = detail::pivot_header(t, basis, s);
  std::vector<const SecretScalar*> dig;
  for (const SecretScalar& v : digests) dig.push_back(&v);
  auto mask_honest = t.prover_rng(dig, rng);
  testing::NonceSource mask_nonces(mask_honest);
  std::vector<SecretScalar> r = detail::pivot_mask(t, gens, basis, plan.form, cq, mask_nonces.get(), proof.inner);
  digests.clear();
  const Scalar e = t.challenge_scalar("e");

  // Pass 3: z = r + Σ_k e^(k+1)·x_k, each run summing its instances on its own.
  std::vector<Fe> epow(s);
  {
    const Fe fe = field::of(e);
    Fe ek = fe;
    for (std::size_t k = 0; k < s; ++k, ek = field::mul(ek, fe)) epow[k] = ek;
  }
  std::vector<std::vector<Fe>> sums(runs.runs, std::vector<Fe>(n));
  runs.each([&](std::size_t run, std::size_t k) {
    Opened o;
    open(k, o);
    std::vector<SecretScalar> x;
    wires(k, o, x, nullptr);
    close_opening(c, o.w, publics[k], o.blind, ch.omega, std::move(o.gamma), x);
    std::vector<Fe>& acc = sums[run];
    for (std::size_t i = 0; i < n; ++i) acc[i] = field::add(acc[i], field::mul(field::of(x[i]), epow[k]));
  });
  std::vector<Fe> z(n);
  for (std::size_t i = 0; i < n; ++i) {
    Fe v = field::of(r[i]);
    for (const auto& acc : sums) v = field::add(v, acc[i]);
    // The pivot's public response (the uncompressed protocol sends it in the clear).
    z[i] = field::of(field::to_secret(v).declassify());
    sodium_memzero(&v, sizeof v);
  }
  for (auto& acc : sums) sodium_memzero(acc.data(), acc.size() * sizeof(Fe));
  detail::compress(t, gens, basis, plan.form, cq, std::move(z), proof.inner);
  return proof;
}

namespace {
// Shared by the verifiers: replays the statement, returns the form and the combined commitment.
VerifyResult prepare(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                     std::span<const Scalar> publics, std::span<const Point> commitments,
                     const CircuitProof& proof, std::vector<Fe>& form, Fe& value,
                     PointExpr& combined) {
  if (!statement_ok(gens, c, publics, commitments))
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "circuit, public inputs, commitments or generators are inconsistent");
  if (proof.p.is_identity())
    return VerifyResult::fail(VerifyStatus::kIdentityPoint, "wire commitment P is the identity");
  bind_statement(t, gens, c, publics, commitments);
  t.append_point("P", proof.p);
  Challenges ch;
  ch.c = eval_point(t, c.gates.size());
  t.append_scalar("f(c)", proof.fa);
  t.append_scalar("g(c)", proof.gb);
  ch.rho = t.challenge_scalar("rho");
  ch.omega = t.challenge_scalar("omega");
  circuit_form(c, publics, ch, proof.fa, proof.gb, form, value);
  combined = combined_commitment(proof.p, commitments, ch.omega);
  return VerifyResult::valid();
}
}  // namespace

VerifyResult add_circuit_terms(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                               std::span<const Scalar> publics, std::span<const Point> commitments,
                               const CircuitProof& proof, MsmTerms& eq) {
  std::vector<Fe> form;
  Fe value;
  PointExpr combined;
  VerifyResult r = prepare(t, gens, c, publics, commitments, proof, form, value, combined);
  if (!r) return r;
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  if (!detail::compressed_verify(t, gens, basis, std::span(&combined, 1), form,
                                 std::span(&value, 1), proof.inner, eq))
    return VerifyResult::fail(VerifyStatus::kMalformedProof,
                              "compressed proof has the wrong shape for this circuit");
  return VerifyResult::valid();
}

VerifyResult verify_circuit(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                            std::span<const Scalar> publics, std::span<const Point> commitments,
                            const CircuitProof& proof) {
  MsmTerms eq;
  VerifyResult r = add_circuit_terms(t, gens, c, publics, commitments, proof, eq);
  return final_verdict(std::move(r), eq, gens, "");
}

VerifyResult add_circuit_batch_terms(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                     std::span<const std::vector<Scalar>> publics,
                                     std::span<const std::vector<Point>> commitments,
                                     const CircuitBatchProof& proof, MsmTerms& eq) {
  const std::size_t s = publics.size();
  if (!batch_statement_ok(gens, c, publics, commitments))
    return VerifyResult::fail(VerifyStatus::kBadStatement,
                              "circuit, public inputs, commitments or generators are inconsistent");
  if (proof.p.size() != s || proof.fa.size() != s || proof.gb.size() != s)
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "the proof has the wrong number of instances");
  for (const Point& p : proof.p)
    if (p.is_identity()) return VerifyResult::fail(VerifyStatus::kIdentityPoint, "a wire commitment P is the identity");
  bind_batch_statement(t, gens, c, publics, commitments);
  t.append_points("P", proof.p);
  Challenges ch;
  ch.c = eval_point(t, c.gates.size());
  t.append_scalars("f(c)", proof.fa);
  t.append_scalars("g(c)", proof.gb);
  ch.rho = t.challenge_scalar("rho");
  ch.omega = t.challenge_scalar("omega");
  const FormPlan plan = plan_form(c, ch);
  std::vector<Fe> values(s);
  std::vector<PointExpr> combined(s);
  for (std::size_t k = 0; k < s; ++k) {
    values[k] = plan.value(publics[k], proof.fa[k], proof.gb[k]);
    combined[k] = combined_commitment(proof.p[k], commitments[k], ch.omega);
  }
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  if (!detail::compressed_verify(t, gens, basis, combined, plan.form, values, proof.inner, eq))
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "compressed proof has the wrong shape for this circuit");
  return VerifyResult::valid();
}

VerifyResult verify_circuit_batch(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                  std::span<const std::vector<Scalar>> publics,
                                  std::span<const std::vector<Point>> commitments,
                                  const CircuitBatchProof& proof) {
  MsmTerms eq;
  VerifyResult r = add_circuit_batch_terms(t, gens, c, publics, commitments, proof, eq);
  return final_verdict(std::move(r), eq, gens, "instance's ");
}

std::vector<BlockBatch> block_batches(std::size_t d, std::size_t block) {
  GOPA_CHECK(block > 0, "block_batches: empty blocks");
  std::vector<BlockBatch> out;
  if (d / block > 0) out.push_back({0, d / block, block});
  if (d % block != 0) out.push_back({d / block, 1, d % block});
  return out;
}

std::size_t CircuitBatchProof::body_size(const Circuit& c, std::size_t instances) {
  return body_size(Basis{c.generators_needed(), !c.bindings.empty()}, instances);
}

std::size_t CircuitBatchProof::body_size(Basis basis, std::size_t instances) {
  return 96U * instances + CompressedProof::encoded_size(fold_shape(basis.size()));
}

void CircuitBatchProof::encode_body(std::vector<std::uint8_t>& out) const {
  wire::Writer w(out);
  for (std::size_t k = 0; k < p.size(); ++k) w.point(p[k]).scalar(fa[k]).scalar(gb[k]);
  inner.encode_to(out);
}

std::optional<CircuitBatchProof> CircuitBatchProof::decode_body(std::span<const std::uint8_t> in, const Circuit& c,
                                                                std::size_t instances) {
  if (instances == 0 || in.size() != body_size(c, instances) || !c.well_formed()) return std::nullopt;
  return decode_body(in, Basis{c.generators_needed(), !c.bindings.empty()}, instances);
}

std::optional<CircuitBatchProof> CircuitBatchProof::decode_body(std::span<const std::uint8_t> in, Basis basis,
                                                                std::size_t instances) {
  if (instances == 0 || in.size() != body_size(basis, instances)) return std::nullopt;
  wire::Reader r(in.first(96 * instances));
  CircuitBatchProof pr;
  for (std::size_t k = 0; k < instances; ++k) {
    pr.p.push_back(r.point());
    pr.fa.push_back(r.scalar());
    pr.gb.push_back(r.scalar());
    if (!r.ok() || pr.p.back().is_identity()) return std::nullopt;
  }
  if (!r.finish()) return std::nullopt;
  auto inner = CompressedProof::decode(in.subspan(96 * instances), fold_shape(basis.size()));
  if (!inner) return std::nullopt;
  pr.inner = std::move(*inner);
  return pr;
}

bool verify_circuit_naive(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                          std::span<const Scalar> publics, std::span<const Point> commitments,
                          const CircuitProof& proof) {
  std::vector<Fe> form;
  Fe value;
  PointExpr combined;
  if (!prepare(t, gens, c, publics, commitments, proof, form, value, combined)) return false;
  const Basis basis{c.generators_needed(), !c.bindings.empty()};
  return detail::compressed_verify_naive(t, gens, basis, std::span(&combined, 1), form,
                                         std::span(&value, 1), proof.inner);
}

}  // namespace gopa::sigma
