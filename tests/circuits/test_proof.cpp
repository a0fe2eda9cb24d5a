// End to end: a Gaussian sample proven with the compressed Σ-protocol circuit prover
// (circuits/sigma_adapter) and verified; cheating statements are rejected.
#include <catch2/catch.hpp>

#include <chrono>
#include <vector>

#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/random.hpp"

using namespace gopa::circuits;
using gopa::Point;

namespace {

struct Setup {
  SamplerParams p;
  std::size_t d;
  std::vector<PrivateSeed> seeds;
  std::vector<Point> seed_coms;
  std::vector<std::uint64_t> ys;
};

Setup setup(SamplerKind kind, unsigned f, std::size_t d, gopa::Rng& rng) {
  Setup s{SamplerParams::make(kind, f), d, {}, {}, {}};
  const std::size_t need = (d + s.p.samples_per_call() - 1) / s.p.samples_per_call() * s.p.seeds_per_call();
  for (std::size_t i = 0; i < need; ++i) {
    s.seeds.push_back(PrivateSeed::draw(s.p.m, rng));
    s.seed_coms.push_back(s.seeds.back().commitment());
  }
  std::vector<gopa::Bytes32> rhos(2);
  for (auto& r : rhos) rng.fill(r);
  s.ys = public_randomness(rhos, 3, need, s.p.m);
  return s;
}

}  // namespace

TEST_CASE("Gaussian samples: prove and verify end to end; cheating is rejected",
          "[circuits][proof]") {
  gopa::DeterministicRng rng(41);
  for (auto kind : {SamplerKind::kBoxMuller, SamplerKind::kInverseCdf}) {
    Setup s = setup(kind, 12, 2, rng);
    std::vector<std::int64_t> samples;
    std::vector<gopa::SecretScalar> blinders;
    const auto t0 = std::chrono::steady_clock::now();
    GaussianProof pr = prove_gaussian(s.p, s.d, s.seeds, s.ys, samples, blinders, rng);
    const auto t1 = std::chrono::steady_clock::now();
    auto r = verify_gaussian(s.p, s.d, s.ys, s.seed_coms, pr);
    const auto t2 = std::chrono::steady_clock::now();
    INFO(sampler_name(kind) << ": " << r.message << " proof " << pr.size_bytes() << " B, prove "
                            << std::chrono::duration<double>(t1 - t0).count() << " s, verify "
                            << std::chrono::duration<double>(t2 - t1).count() << " s");
    CHECK(r.ok());
    REQUIRE(samples.size() == s.d);
    REQUIRE(blinders.size() == s.d);
    // The sample commitments open to the samples.
    auto gens = gopa::GeneratorSet::get("gopa", 0);
    for (std::size_t i = 0; i < s.d; ++i)
      CHECK(gopa::verify_opening(pr.sample_commitments[i], scalar_from_i128(samples[i]),
                                 blinders[i].declassify(), *gens));
    WARN(sampler_name(kind) << " f=12 d=2: proof " << pr.size_bytes() << " B, prove "
                            << std::chrono::duration<double>(t1 - t0).count() << " s, verify "
                            << std::chrono::duration<double>(t2 - t1).count() << " s");
    SECTION("reused / altered public randomness") {
      auto ys = s.ys;
      ys[1] = ys[0];
      CHECK_FALSE(verify_gaussian(s.p, s.d, ys, s.seed_coms, pr).ok());
    }
    SECTION("seed commitment of another seed") {
      auto coms = s.seed_coms;
      coms[0] = PrivateSeed::draw(s.p.m, rng).commitment();
      CHECK_FALSE(verify_gaussian(s.p, s.d, s.ys, coms, pr).ok());
    }
    SECTION("a sample commitment to another value (η ≠ Sampler(seeds))") {
      GaussianProof bad = pr;
      bad.sample_commitments[0] = bad.sample_commitments[0] + gens->G();
      CHECK_FALSE(verify_gaussian(s.p, s.d, s.ys, s.seed_coms, bad).ok());
    }
    SECTION("other parameters") {
      CHECK_FALSE(verify_gaussian(SamplerParams::make(kind, 12, 2.0), s.d, s.ys, s.seed_coms, pr).ok());
    }
  }
}

TEST_CASE("Gaussian samples: batch verification accepts valid claims and rejects any bad one",
          "[circuits][proof][batch]") {
  gopa::DeterministicRng rng(43);
  constexpr std::size_t kClaims = 4;
  std::vector<Setup> setups;
  std::vector<GaussianProof> proofs;
  std::vector<std::vector<std::uint8_t>> encoded;
  for (std::size_t i = 0; i < kClaims; ++i) {
    setups.push_back(setup(SamplerKind::kClt, 8, 1, rng));
    std::vector<std::int64_t> samples;
    std::vector<gopa::SecretScalar> blinders;
    proofs.push_back(prove_gaussian(setups.back().p, 1, setups.back().seeds, setups.back().ys, samples, blinders, rng));
    encoded.push_back(proofs.back().proof.encode());
  }
  auto claims_of = [&](std::vector<std::vector<Point>>& samples_coms) {
    std::vector<GaussianClaim> claims;
    for (std::size_t i = 0; i < kClaims; ++i)
      claims.push_back({setups[i].ys, setups[i].seed_coms, samples_coms[i], encoded[i]});
    return claims;
  };
  std::vector<std::vector<Point>> coms;
  for (const auto& pr : proofs) coms.push_back(pr.sample_commitments);
  const SamplerParams p = setups[0].p;
  {
    auto claims = claims_of(coms);
    CHECK(batch_verify_gaussian(p, 1, claims, rng).ok());
    for (const auto& c : claims) CHECK(verify_gaussian_encoded(p, 1, c.ys, c.seed_commitments, c.sample_commitments, c.proof).ok());
  }
  SECTION("a sample commitment of one claim changed") {
    coms[2][0] = coms[2][0] + gopa::Point::base_mul(gopa::SecretScalar::from_u64(1));
    auto claims = claims_of(coms);
    auto r = batch_verify_gaussian(p, 1, claims, rng);
    CHECK_FALSE(r.ok());
    CHECK(r.status == gopa::sigma::VerifyStatus::kBatchEquation);
    for (std::size_t i = 0; i < kClaims; ++i) {
      const auto& c = claims[i];
      CHECK(verify_gaussian_encoded(p, 1, c.ys, c.seed_commitments, c.sample_commitments, c.proof).ok() == (i != 2));
    }
  }
  SECTION("two claims' proofs swapped") {
    std::swap(encoded[0], encoded[1]);
    CHECK_FALSE(batch_verify_gaussian(p, 1, claims_of(coms), rng).ok());
  }
  SECTION("a truncated proof is named") {
    encoded[3].pop_back();
    auto r = batch_verify_gaussian(p, 1, claims_of(coms), rng);
    CHECK(r.status == gopa::sigma::VerifyStatus::kMalformedProof);
    CHECK(r.message.rfind("proof 3:", 0) == 0);
  }
}
