#include <catch2/catch.hpp>

#include "gopa/deviation.hpp"
#include "gopa/protocol/output.hpp"

using namespace gopa;
using gopa::protocol::OutputProof;
using gopa::protocol::OutputStatement;

namespace {
// A party's output statement: combined[j] = v_j·G + ρ_j·H (input plus noise), the pairwise vector
// commitment D = Σ_j Δ_j·G_j + R·H, and X̂_j = v_j + Δ_j.
struct Fixture {
  std::shared_ptr<const GeneratorSet> gens;
  Point pairwise;
  std::vector<Point> combined;
  std::vector<Scalar> xhat;
  std::vector<SecretScalar> delta, rho;
  SecretScalar big_r;
  Fixture(std::size_t d, std::uint64_t seed) : gens(GeneratorSet::get("gopa", protocol::output_generators(d))) {
    DeterministicRng rng(seed);
    for (std::size_t j = 0; j < d; ++j) {
      SecretScalar v = SecretScalar::random(rng), r = SecretScalar::random(rng);
      delta.push_back(SecretScalar::random(rng));
      combined.push_back(commit(v, r, *gens));
      xhat.push_back((v + delta.back()).declassify());
      rho.push_back(std::move(r));
    }
    big_r = SecretScalar::random(rng);
    pairwise = commit_vector(delta, big_r, *gens);
  }
  OutputStatement statement() const { return OutputStatement{pairwise, combined, xhat}; }
  OutputProof prove(std::uint64_t seed = 1) {
    DeterministicRng rng(seed);
    Transcript t("test");
    return protocol::prove_output(t, *gens, statement(), delta, big_r, rho, rng);
  }
  bool verify(const OutputProof& p, std::string_view label = "test") const {
    Transcript t(label);
    return protocol::verify_output(t, *gens, statement(), p);
  }
};
}  // namespace

TEST_CASE("Output proof: completeness for 1..8, 100 and 1,000 coordinates; size logarithmic in d", "[protocol][output]") {
  for (std::size_t d : {1UL, 2UL, 3UL, 4UL, 5UL, 6UL, 7UL, 8UL, 100UL, 1000UL}) {
    Fixture f(d, d);
    const OutputProof p = f.prove();
    CHECK(f.verify(p));
    CHECK(p.encode().size() == OutputProof::encoded_size(d));
  }
  CHECK(OutputProof::encoded_size(1000) < 800);
  CHECK(OutputProof::encoded_size(100'000) < 1200);
}

TEST_CASE("Output proof: wrong statements and witnesses are rejected", "[protocol][output]") {
  Fixture f(4, 9);
  const OutputProof good = f.prove();
  REQUIRE(f.verify(good));
  CHECK_FALSE(f.verify(good, "other-label"));
  for (std::size_t j = 0; j < 4; ++j) {
    Fixture g(4, 9);
    g.xhat[j] += Scalar::one();  // published value inconsistent with the commitments
    CHECK_FALSE(g.verify(good));
    CHECK_FALSE(g.verify(g.prove()));  // even a fresh proof with the real openings fails
    Fixture h(4, 9);
    h.combined[j] += h.gens->G();
    CHECK_FALSE(h.verify(good));
    CHECK_FALSE(h.verify(h.prove()));
    Fixture k(4, 9);
    k.rho[j] += SecretScalar::from_u64(1);  // wrong witness
    CHECK_FALSE(k.verify(k.prove()));
    Fixture m(4, 9);
    m.delta[j] += SecretScalar::from_u64(1);  // a pairwise opening the commitment does not hold
    CHECK_FALSE(m.verify(m.prove()));
  }
  // The pairwise commitment moved along G, H or Q: the old proof and fresh ones fail.
  for (const Point* gen : {&f.gens->G(), &f.gens->H(), &f.gens->Q()}) {
    Fixture g(4, 9);
    g.pairwise += *gen;
    CHECK_FALSE(g.verify(good));
    CHECK_FALSE(g.verify(g.prove()));
  }
  // What the proof does bind: X̂_j to the G_j-part of the pairwise commitment. Δ_0 + 1 committed
  // and X̂_0 + 1 published is consistent (the neighbours' cancellation check is what forbids it).
  Fixture c(4, 9);
  c.pairwise += c.gens->Gi(1)[0];
  c.delta[0] += SecretScalar::from_u64(1);
  c.xhat[0] += Scalar::one();
  CHECK(c.verify(c.prove()));
  // Swapping two coordinates is a different statement.
  Fixture s(4, 9);
  std::swap(s.combined[0], s.combined[1]);
  std::swap(s.xhat[0], s.xhat[1]);
  CHECK_FALSE(s.verify(good));
  // Fewer coordinates: another proof shape.
  Fixture t(4, 9);
  t.combined.pop_back();
  t.xhat.pop_back();
  CHECK_FALSE(t.verify(good));
  CHECK_FALSE(OutputProof::decode(good.encode(), 3).has_value());
}

TEST_CASE("Output proof: tamper matrix on the encoding", "[protocol][output]") {
  Fixture f(3, 11);
  const auto bytes = f.prove().encode();
  REQUIRE(OutputProof::decode(bytes, 3).has_value());
  REQUIRE(f.verify(*OutputProof::decode(bytes, 3)));
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    CHECK_FALSE(OutputProof::decode(std::span(bytes).first(len), 3).has_value());
  }
  std::vector<std::uint8_t> longer(bytes.begin(), bytes.end());
  longer.push_back(0);
  CHECK_FALSE(OutputProof::decode(longer, 3).has_value());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto m = bytes;
      m[i] = static_cast<std::uint8_t>(m[i] ^ (1u << bit));
      auto p = OutputProof::decode(m, 3);
      if (p) CHECK_FALSE(f.verify(*p));
    }
  }
  // Proofs and parts of proofs spliced from another statement.
  Fixture other(3, 12);
  const OutputProof o = other.prove();
  CHECK_FALSE(f.verify(o));
  OutputProof spliced = *OutputProof::decode(bytes, 3);
  spliced.inner.a = o.inner.a;
  CHECK_FALSE(f.verify(spliced));
  spliced = *OutputProof::decode(bytes, 3);
  spliced.inner.final = o.inner.final;
  CHECK_FALSE(f.verify(spliced));
}

TEST_CASE("Output proof: a malicious prover of a false X̂ fails under every deviation", "[protocol][output][malicious]") {
  // X̂_0 published one unit above what the commitments hold. The weights c_j are public before
  // the pivot's mask commitment A, so the adversary may shift A along any generator (G, H, Q, the
  // G_j), change every response after the last challenge, or reuse its masks: every one fails.
  Fixture f(3, 17);
  f.xhat[0] += Scalar::one();
  auto prove_with = [&](const gopa::testing::Deviation& dev) {
    gopa::testing::ScopedDeviation scope(dev);
    return f.prove(5);
  };
  REQUIRE_FALSE(f.verify(f.prove()));
  std::vector<Point> along{f.gens->G(), f.gens->H(), f.gens->Q(), f.gens->Gi(3)[0], f.gens->Gi(3)[2]};
  for (const Point& gen : along) {
    for (const Scalar& amount : {Scalar::one(), -Scalar::one(), Scalar::from_u64(12345)}) {
      gopa::testing::Deviation dev;
      dev.on_mask_commitment = [gen, amount](Point& a) { a += gen * amount; };
      CHECK_FALSE(f.verify(prove_with(dev)));
    }
  }
  gopa::testing::Deviation resp;
  resp.on_responses = [](sigma::CompressedProof& p) { p.final[0] += Scalar::one(); };
  CHECK_FALSE(f.verify(prove_with(resp)));
  gopa::testing::Deviation cross;
  cross.on_responses = [&](sigma::CompressedProof& p) {
    if (!p.cross.empty()) p.cross[0] += f.gens->G();
  };
  CHECK_FALSE(f.verify(prove_with(cross)));
  gopa::testing::Deviation reuse;
  reuse.reuse_nonces = true;
  CHECK_FALSE(f.verify(prove_with(reuse)));
  // A G-component put into the pairwise commitment to absorb the lie: it is fixed before the
  // weights, so it matches c_0 only by chance. Here the adversary even aims it at the c_0 the
  // transcript gives for the honest pairwise commitment; binding the new point changes c_0.
  {
    Fixture g(3, 17);
    Transcript t("test");
    t.domain_separator("gopa/output v2");
    t.append_message("generators", g.gens->id());
    t.append_u64("d", 3);
    t.append_point("pairwise", g.pairwise);
    t.append_points("combined", g.combined);
    std::vector<Scalar> lied = g.xhat;
    lied[0] += Scalar::one();
    t.append_scalars("xhat", lied);
    const Scalar c0 = t.challenge_scalar("weight");
    for (const Scalar& aim : {c0, Scalar::one(), -Scalar::one()}) {
      Fixture h(3, 17);
      h.xhat[0] += Scalar::one();
      h.pairwise += h.gens->G() * aim;
      CHECK_FALSE(h.verify(h.prove()));
    }
  }
  // The hooks are live: with the true X̂ reused masks still verify, and changed responses do not.
  Fixture g(3, 17);
  {
    gopa::testing::ScopedDeviation scope(reuse);
    CHECK(g.verify(g.prove(5)));
  }
  {
    gopa::testing::ScopedDeviation scope(resp);
    CHECK_FALSE(g.verify(g.prove(5)));
  }
}
