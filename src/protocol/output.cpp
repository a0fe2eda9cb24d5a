// Output-correctness proof: one compressed Σ-protocol over the pairwise vector commitment and a
// random combination of the per-coordinate commitments (include/gopa/protocol/output.hpp has
// the argument).
#include "gopa/protocol/output.hpp"

#include "gopa/check.hpp"

namespace gopa::protocol {

namespace {

constexpr std::string_view kDomain = "gopa/output v2";
constexpr std::uint8_t kVersion = 0x02;

sigma::Basis basis_of(std::size_t dim) { return sigma::Basis{dim, true}; }

// Binds the statement; returns the form L = (c_0, …, c_{d−1}, 1, 0), c_j = c^(j+1).
std::vector<Scalar> bind_statement(Transcript& t, const GeneratorSet& gens, const OutputStatement& st) {
  t.domain_separator(kDomain);
  t.append_message("generators", gens.id());
  t.append_u64("d", st.combined.size());
  t.append_point("pairwise", st.pairwise);
  t.append_points("combined", st.combined);
  t.append_scalars("xhat", st.xhat);
  const Scalar c = t.challenge_scalar("weight");
  std::vector<Scalar> form(st.combined.size() + 2);
  Scalar pw = c;
  for (std::size_t j = 0; j < st.combined.size(); ++j) {
    form[j] = pw;
    pw *= c;
  }
  form[st.combined.size()] = Scalar::one();
  form[st.combined.size() + 1] = Scalar::zero();
  return form;
}

bool well_formed(const GeneratorSet& gens, const OutputStatement& st) {
  return !st.combined.empty() && st.combined.size() == st.xhat.size() && st.combined.size() <= gens.size();
}

}  // namespace

std::size_t output_generators(std::size_t dim) noexcept { return dim; }

std::size_t OutputProof::encoded_size(std::size_t dim) noexcept {
  return 2 + sigma::CompressedProof::encoded_size(sigma::fold_shape(basis_of(dim).size()));
}

std::vector<std::uint8_t> OutputProof::encode() const {
  std::vector<std::uint8_t> out{kVersion, kKind};
  inner.encode_to(out);
  return out;
}

std::optional<OutputProof> OutputProof::decode(std::span<const std::uint8_t> bytes, std::size_t dim) {
  if (dim == 0 || bytes.size() < 2 || bytes[0] != kVersion || bytes[1] != kKind) return std::nullopt;
  auto inner = sigma::CompressedProof::decode(bytes.subspan(2), sigma::fold_shape(basis_of(dim).size()));
  if (!inner) return std::nullopt;
  return OutputProof{std::move(*inner)};
}

OutputProof prove_output(Transcript& t, const GeneratorSet& gens, const OutputStatement& st,
                         std::span<const SecretScalar> delta, const SecretScalar& pairwise_blind,
                         std::span<const SecretScalar> combined_blind, Rng& rng) {
  GOPA_CHECK(well_formed(gens, st) && delta.size() == st.combined.size() && combined_blind.size() == delta.size(),
             "prove_output: one commitment, value, pairwise term and blinding per coordinate");
  const std::vector<Scalar> form = bind_statement(t, gens, st);
  const std::size_t d = delta.size();
  std::vector<SecretScalar> w;
  w.reserve(d + 2);
  SecretScalar inner;  // ⟨c, Δ⟩
  SecretScalar blind = pairwise_blind.clone();
  for (std::size_t j = 0; j < d; ++j) {
    w.push_back(delta[j].clone());
    inner += delta[j] * form[j];
    blind += combined_blind[j] * form[j];
  }
  w.push_back(-inner);
  w.push_back(std::move(blind));
  std::vector<std::vector<SecretScalar>> openings;
  openings.push_back(std::move(w));
  return OutputProof{sigma::compressed_prove(t, gens, basis_of(d), openings, form, rng)};
}

bool verify_output(Transcript& t, const GeneratorSet& gens, const OutputStatement& st, const OutputProof& proof) {
  if (!well_formed(gens, st)) return false;
  const std::vector<Scalar> form = bind_statement(t, gens, st);
  // P = pairwise + Σ c_j·combined[j] − (Σ c_j·X̂_j)·G, left to the final MSM.
  sigma::PointExpr p = sigma::PointExpr::of(st.pairwise);
  Scalar g_coeff;
  for (std::size_t j = 0; j < st.combined.size(); ++j) {
    p.add(form[j], st.combined[j]);
    g_coeff -= form[j] * st.xhat[j];
  }
  p.add(g_coeff, gens.G());
  const Scalar zero = Scalar::zero();
  sigma::MsmTerms eq;
  if (!sigma::compressed_verify(t, gens, basis_of(st.combined.size()), std::span(&p, 1), form, std::span(&zero, 1),
                                proof.inner, eq)) {
    return false;
  }
  return eq.is_identity(gens);
}

}  // namespace gopa::protocol
