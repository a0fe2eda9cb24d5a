#include "gopa/sigma/linear.hpp"

#include <string>

#include "gopa/check.hpp"
#include "wire.hpp"

namespace gopa::sigma {

namespace {

bool well_formed(const LinearStatement& st) {
  if (st.n == 0 || st.n > kMaxLinearLength || st.commitments.empty() || st.forms.empty())
    return false;
  if (st.values.size() != st.commitments.size()) return false;
  for (const auto& f : st.forms)
    if (f.size() != st.n) return false;
  for (const auto& v : st.values)
    if (v.size() != st.forms.size()) return false;
  return true;
}

// Binds the statement and derives the combined form L = Σ_j ρ^j·L_j (0 on H) and values.
void bind_and_combine(Transcript& t, const GeneratorSet& gens, const LinearStatement& st,
                      std::vector<Scalar>& form, std::vector<Scalar>& values) {
  t.domain_separator("gopa/sigma/linear v2");
  t.append_message("generators", gens.id());
  t.append_u64("n", st.n);
  t.append_u64("commitments", st.commitments.size());
  t.append_u64("forms", st.forms.size());
  t.append_points("P", st.commitments);
  for (const auto& f : st.forms) t.append_scalars("L", f);
  for (const auto& v : st.values) t.append_scalars("y", v);
  const Scalar rho = t.challenge_scalar("rho");
  form.assign(st.n + 1, Scalar::zero());
  values.assign(st.commitments.size(), Scalar::zero());
  Scalar pw = Scalar::one();
  for (std::size_t j = 0; j < st.forms.size(); ++j) {
    for (std::size_t i = 0; i < st.n; ++i) form[i] += pw * st.forms[j][i];
    for (std::size_t k = 0; k < st.commitments.size(); ++k) values[k] += pw * st.values[k][j];
    pw *= rho;
  }
}

}  // namespace

std::vector<std::uint8_t> LinearProof::encode() const {
  std::vector<std::uint8_t> out;
  wire::Writer(out).u8(kProofVersion).u8(static_cast<std::uint8_t>(ProofKind::kLinear));
  inner.encode_to(out);
  return out;
}

std::optional<LinearProof> LinearProof::decode(std::span<const std::uint8_t> in, std::size_t n) {
  if (n == 0 || n > kMaxLinearLength || in.size() < 2) return std::nullopt;
  if (in[0] != kProofVersion || in[1] != static_cast<std::uint8_t>(ProofKind::kLinear))
    return std::nullopt;
  auto inner = CompressedProof::decode(in.subspan(2), fold_shape(n + 1));
  if (!inner) return std::nullopt;
  return LinearProof{std::move(*inner)};
}

LinearProof prove_linear(Transcript& t, const GeneratorSet& gens, const LinearStatement& st,
                         std::span<const std::vector<SecretScalar>> openings,
                         std::span<const SecretScalar> blinders, Rng& rng) {
  GOPA_CHECK(well_formed(st), "prove_linear: malformed statement");
  GOPA_CHECK(openings.size() == st.commitments.size() && blinders.size() == openings.size(),
             "prove_linear: one opening and one blinder per commitment");
  std::vector<Scalar> form, values;
  bind_and_combine(t, gens, st, form, values);
  std::vector<std::vector<SecretScalar>> xs;
  for (std::size_t k = 0; k < openings.size(); ++k) {
    GOPA_CHECK(openings[k].size() == st.n, "prove_linear: opening length");
    std::vector<SecretScalar> x;
    x.reserve(st.n + 1);
    for (const SecretScalar& v : openings[k]) x.push_back(v.clone());
    x.push_back(blinders[k].clone());
    xs.push_back(std::move(x));
  }
  return {compressed_prove(t, gens, Basis{st.n, false}, xs, form, rng)};
}

VerifyResult verify_linear(Transcript& t, const GeneratorSet& gens, const LinearStatement& st,
                           const LinearProof& proof) {
  if (!well_formed(st) || st.n > gens.size())
    return VerifyResult::fail(VerifyStatus::kBadStatement, "statement sizes are inconsistent");
  std::vector<Scalar> form, values;
  bind_and_combine(t, gens, st, form, values);
  std::vector<PointExpr> cs;
  for (const Point& p : st.commitments) cs.push_back(PointExpr::of(p));
  MsmTerms eq;
  if (!compressed_verify(t, gens, Basis{st.n, false}, cs, form, values, proof.inner, eq))
    return VerifyResult::fail(VerifyStatus::kMalformedProof, "proof shape does not match n");
  if (!eq.is_identity(gens))
    return VerifyResult::fail(VerifyStatus::kFinalEquation,
                              "final equation of the compressed linear-form proof fails");
  return VerifyResult::valid();
}

}  // namespace gopa::sigma
