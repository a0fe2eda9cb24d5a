#include <catch2/catch.hpp>

#include "gopa/deviation.hpp"
#include "gopa/protocol/output.hpp"

using namespace gopa;
using gopa::protocol::OutputProof;

namespace {
struct Fixture {
  std::shared_ptr<const GeneratorSet> gens = GeneratorSet::get("gopa", 0);
  std::vector<Point> combined;
  std::vector<Scalar> xhat;
  std::vector<SecretScalar> blind;
  explicit Fixture(std::size_t d, std::uint64_t seed) {
    DeterministicRng rng(seed);
    for (std::size_t j = 0; j < d; ++j) {
      SecretScalar v = SecretScalar::random(rng), r = SecretScalar::random(rng);
      combined.push_back(commit(v, r, *gens));
      xhat.push_back(v.declassify());
      blind.push_back(std::move(r));
    }
  }
  OutputProof prove(std::uint64_t seed = 1) {
    DeterministicRng rng(seed);
    Transcript t("test");
    return protocol::prove_output(t, *gens, combined, xhat, blind, rng);
  }
  bool verify(const OutputProof& p, std::string_view label = "test") {
    Transcript t(label);
    return protocol::verify_output(t, *gens, combined, xhat, p);
  }
};
}  // namespace

TEST_CASE("Output proof: completeness for 1..8 coordinates", "[protocol][output]") {
  for (std::size_t d = 1; d <= 8; ++d) {
    Fixture f(d, d);
    CHECK(f.verify(f.prove()));
  }
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
    CHECK_FALSE(g.verify(g.prove()));  // even a fresh proof with the real blindings fails
    Fixture h(4, 9);
    h.combined[j] += h.gens->G();
    CHECK_FALSE(h.verify(good));
    Fixture k(4, 9);
    k.blind[j] += SecretScalar::from_u64(1);  // wrong witness
    CHECK_FALSE(k.verify(k.prove()));
  }
  // Swapping two coordinates is a different statement.
  Fixture s(4, 9);
  std::swap(s.combined[0], s.combined[1]);
  std::swap(s.xhat[0], s.xhat[1]);
  CHECK_FALSE(s.verify(good));
  // Fewer coordinates.
  Fixture t(4, 9);
  t.combined.pop_back();
  t.xhat.pop_back();
  CHECK_FALSE(t.verify(good));
}

TEST_CASE("Output proof: tamper matrix on the encoding", "[protocol][output]") {
  Fixture f(3, 11);
  const auto bytes = f.prove().encode();
  REQUIRE(OutputProof::decode(bytes).has_value());
  REQUIRE(f.verify(*OutputProof::decode(bytes)));
  for (std::size_t len = 0; len < bytes.size(); ++len) {
    CHECK_FALSE(OutputProof::decode(std::span(bytes).first(len)).has_value());
  }
  std::vector<std::uint8_t> longer(bytes.begin(), bytes.end());
  longer.push_back(0);
  CHECK_FALSE(OutputProof::decode(longer).has_value());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      auto m = bytes;
      m[i] = static_cast<std::uint8_t>(m[i] ^ (1u << bit));
      auto p = OutputProof::decode(m);
      if (p) CHECK_FALSE(f.verify(*p));
    }
  }
  // A proof spliced from another statement.
  Fixture other(3, 12);
  const OutputProof o = other.prove();
  OutputProof spliced{o.a, OutputProof::decode(bytes)->z};
  CHECK_FALSE(f.verify(spliced));
  CHECK_FALSE(f.verify(o));
}

TEST_CASE("Output proof: a malicious prover of a false X̂ fails under every deviation", "[protocol][output][malicious]") {
  // X̂_0 published one unit above what the commitments hold. The weights c_j are public before
  // the nonce commitment A, so the adversary may shift A by any multiple of G, H, Q (c_0 among
  // them), replace z after e, or reuse its nonce: every one fails.
  Fixture f(3, 17);
  f.xhat[0] += Scalar::one();
  auto prove_with = [&](const gopa::testing::Deviation& dev) {
    gopa::testing::ScopedDeviation scope(dev);
    return f.prove(5);
  };
  REQUIRE_FALSE(f.verify(f.prove()));
  for (const Point* gen : {&f.gens->G(), &f.gens->H(), &f.gens->Q()}) {
    for (const Scalar& amount : {Scalar::one(), -Scalar::one(), Scalar::from_u64(12345)}) {
      gopa::testing::Deviation dev;
      dev.on_output_nonce = [gen, amount](Point& a) { a += *gen * amount; };
      CHECK_FALSE(f.verify(prove_with(dev)));
    }
  }
  gopa::testing::Deviation resp;
  resp.on_output_response = [](Scalar& z) { z += Scalar::one(); };
  CHECK_FALSE(f.verify(prove_with(resp)));
  gopa::testing::Deviation reuse;
  reuse.reuse_nonces = true;
  CHECK_FALSE(f.verify(prove_with(reuse)));
  // The hooks are live: with the true X̂ a reused nonce still verifies, and a replaced response
  // does not.
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
