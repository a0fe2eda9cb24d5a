// Output-correctness proof: one Schnorr proof in base H for a random combination of the
// coordinates (include/gopa/protocol/output.hpp has the argument).
#include "gopa/protocol/output.hpp"

#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/msm.hpp"

namespace gopa::protocol {

namespace {

constexpr std::string_view kDomain = "gopa/output v1";

// Binds the statement and returns the weights c_j; P_j = combined[j] − X̂_j·G.
std::vector<Scalar> bind_statement(Transcript& t, const GeneratorSet& gens,
                                   std::span<const Point> combined, std::span<const Scalar> xhat) {
  t.domain_separator(kDomain);
  t.append_message("generators", gens.id());
  t.append_u64("d", combined.size());
  t.append_points("combined", combined);
  t.append_scalars("xhat", xhat);
  std::vector<Scalar> c(combined.size());
  for (auto& cj : c) cj = t.challenge_scalar("weight");
  return c;
}

// Σ_j c_j·(combined_j − X̂_j·G), public data: variable-time MSM.
Point weighted_sum(const GeneratorSet& gens, std::span<const Point> combined,
                   std::span<const Scalar> xhat, std::span<const Scalar> c) {
  std::vector<Scalar> s(c.begin(), c.end());
  std::vector<Point> p(combined.begin(), combined.end());
  Scalar g_coeff;
  for (std::size_t j = 0; j < c.size(); ++j) g_coeff -= c[j] * xhat[j];
  s.push_back(g_coeff);
  p.push_back(gens.G());
  return msm(s, p);
}

}  // namespace

std::array<std::uint8_t, OutputProof::kSize> OutputProof::encode() const {
  std::array<std::uint8_t, kSize> out{};
  a.encode_to(std::span<std::uint8_t, 32>(out.data(), 32));
  z.encode_to(std::span<std::uint8_t, 32>(out.data() + 32, 32));
  return out;
}

std::optional<OutputProof> OutputProof::decode(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != kSize) return std::nullopt;
  auto a = Point::decode(bytes.first(32));
  auto z = Scalar::decode(bytes.subspan(32, 32));
  if (!a || !z) return std::nullopt;
  return OutputProof{*a, *z};
}

OutputProof prove_output(Transcript& t, const GeneratorSet& gens, std::span<const Point> combined,
                         std::span<const Scalar> xhat, std::span<const SecretScalar> combined_blinding,
                         Rng& rng) {
  GOPA_CHECK(combined.size() == xhat.size() && xhat.size() == combined_blinding.size(),
             "prove_output: one commitment, value and blinding per coordinate");
  const std::vector<Scalar> c = bind_statement(t, gens, combined, xhat);
  SecretScalar w;  // Σ c_j·R_j, the discrete log of the weighted sum in base H
  for (std::size_t j = 0; j < c.size(); ++j) w += combined_blinding[j] * c[j];
  std::vector<const SecretScalar*> wit{&w};
  auto prng = t.prover_rng(wit, rng);
  const testing::Deviation* dev = testing::deviation();
  testing::NonceSource nonces(prng);
  SecretScalar k = SecretScalar::random(nonces.get());
  Point a = gens.H_table().mul(k);
  if (dev != nullptr && dev->on_output_nonce) dev->on_output_nonce(a);
  t.append_point("A", a);
  const Scalar e = t.challenge_scalar("e");
  Scalar z = (k + w * e).declassify();
  if (dev != nullptr && dev->on_output_response) dev->on_output_response(z);
  return OutputProof{a, z};
}

bool verify_output(Transcript& t, const GeneratorSet& gens, std::span<const Point> combined,
                   std::span<const Scalar> xhat, const OutputProof& proof) {
  if (combined.size() != xhat.size() || combined.empty()) return false;
  const std::vector<Scalar> c = bind_statement(t, gens, combined, xhat);
  const Point sum = weighted_sum(gens, combined, xhat, c);
  t.append_point("A", proof.a);
  const Scalar e = t.challenge_scalar("e");
  // z·H == A + e·Σ c_j·P_j
  return gens.H() * proof.z == proof.a + sum * e;
}

}  // namespace gopa::protocol
