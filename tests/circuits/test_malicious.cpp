// A malicious prover of Gaussian samples (gopa/deviation.hpp; docs/proofs.md §7), for every
// sampler: a seed changed after the public randomness is known, or a committed sample that is not
// the sampler's output, under offsets along G, H, Q and wire generators, replaced responses and
// reused nonces — rejected by verify_gaussian and by batch verification.
#include <catch2/catch.hpp>

#include <vector>

#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/random.hpp"
#include "gopa/sigma/compressed.hpp"

using namespace gopa;
using namespace gopa::circuits;
using gopa::testing::Along;
using gopa::testing::Deviation;
using gopa::testing::ScopedDeviation;

namespace {

struct Setup {
  SamplerParams p;
  std::size_t d = 2;
  std::vector<PrivateSeed> seeds;
  std::vector<Point> seed_coms;
  std::vector<std::uint64_t> ys;
};

Setup make_setup(SamplerKind kind, std::uint64_t seed) {
  Setup s;
  s.p = SamplerParams::make(kind, 12, 1.5);
  DeterministicRng rng(seed);
  const std::size_t calls = (s.d + s.p.samples_per_call() - 1) / s.p.samples_per_call();
  for (std::size_t i = 0; i < calls * s.p.seeds_per_call(); ++i) {
    s.seeds.push_back(PrivateSeed::draw(s.p.m, rng));
    s.seed_coms.push_back(s.seeds.back().commitment());
    s.ys.push_back(rng.next_u64() & ((std::uint64_t{1} << s.p.m) - 1U));
  }
  return s;
}

struct Verdicts {
  bool single, batch;
};

// The claim (seed commitments as committed, sample commitments as published) checked alone and
// in a batch with an honest claim.
Verdicts check(const Setup& s, std::span<const Point> samples, const GaussianBlocks& proof, Rng& rng) {
  const auto bytes = proof.encode();
  Verdicts v{};
  v.single = verify_gaussian_encoded(s.p, s.d, s.ys, s.seed_coms, samples, bytes).ok();
  std::vector<std::int64_t> hs;
  std::vector<SecretScalar> hb;
  GaussianProof honest = prove_gaussian(s.p, s.d, s.seeds, s.ys, hs, hb, rng);
  const auto hbytes = honest.proof.encode();
  std::vector<GaussianClaim> claims{{s.ys, s.seed_coms, honest.sample_commitments, hbytes},
                                    {s.ys, s.seed_coms, samples, bytes}};
  v.batch = batch_verify_gaussian(s.p, s.d, claims, rng).ok();
  return v;
}

std::vector<PrivateSeed> change_first_seed(const Setup& s, std::uint64_t x1) {
  std::vector<PrivateSeed> out;
  out.emplace_back(x1, s.seeds[0].blinder().clone(), s.p.m);
  for (std::size_t i = 1; i < s.seeds.size(); ++i) out.emplace_back(s.seeds[i].value(), s.seeds[i].blinder().clone(), s.p.m);
  return out;
}

const SamplerKind kAll[] = {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf, SamplerKind::kClt};

}  // namespace

TEST_CASE("noise: a seed chosen after the public randomness is rejected under every deviation",
          "[circuits][malicious]") {
  for (SamplerKind kind : kAll) {
    DYNAMIC_SECTION(sampler_name(kind)) {
      DeterministicRng rng(40 + static_cast<int>(kind));
      const Setup s = make_setup(kind, 90 + static_cast<int>(kind));
      // The honest proof verifies (the harness produces valid proofs without a deviation).
      {
        std::vector<std::int64_t> samples;
        std::vector<SecretScalar> bl;
        GaussianProof pr = prove_gaussian(s.p, s.d, s.seeds, s.ys, samples, bl, rng);
        const Verdicts ok = check(s, pr.sample_commitments, pr.proof, rng);
        CHECK(ok.single);
        CHECK(ok.batch);
      }
      // The adversary flips the top bit of its first seed after seeing y.
      const std::uint64_t x0 = s.seeds[0].value();
      const std::uint64_t x1 = x0 ^ (std::uint64_t{1} << (s.p.m - 1));
      const Scalar gap = Scalar::from_u64(x1) - Scalar::from_u64(x0);
      std::vector<gopa::testing::Offset> offsets{
          {Along::kG, 0, gap}, {Along::kG, 0, -gap}, {Along::kH, 0, gap}, {Along::kQ, 0, gap}};
      for (std::size_t i = 0; i < 6; ++i) offsets.push_back({Along::kGi, i, gap});
      offsets.push_back({Along::kG, 0, Scalar::zero()});
      for (const auto& o : offsets) {
        Deviation dev;
        const Point committed0 = s.seed_coms[0];
        dev.on_statement = [&committed0](std::vector<Point>& coms) { coms[0] = committed0; };
        dev.wire_offsets.push_back(o);
        std::vector<std::int64_t> samples;
        std::vector<SecretScalar> bl;
        std::optional<GaussianProof> pr;
        {
          ScopedDeviation scope(dev);
          pr = prove_gaussian(s.p, s.d, change_first_seed(s, x1), s.ys, samples, bl, rng);
        }
        INFO("offset along " << static_cast<int>(o.along) << " " << o.index);
        const Verdicts v = check(s, pr->sample_commitments, pr->proof, rng);
        CHECK_FALSE(v.single);
        CHECK_FALSE(v.batch);
      }
      // Responses replaced after the challenges, nonces reused, with the binding forgery.
      for (int which = 0; which < 3; ++which) {
        Deviation dev;
        const Point committed0 = s.seed_coms[0];
        dev.on_statement = [&committed0](std::vector<Point>& coms) { coms[0] = committed0; };
        dev.wire_offsets.push_back({Along::kG, 0, gap});
        if (which == 0) dev.on_evaluations = [](Scalar& fa, Scalar&) { fa += Scalar::one(); };
        if (which == 1) dev.on_responses = [](sigma::CompressedProof& p) { p.final[0] -= Scalar::one(); };
        if (which == 2) dev.reuse_nonces = true;
        std::vector<std::int64_t> samples;
        std::vector<SecretScalar> bl;
        std::optional<GaussianProof> pr;
        {
          ScopedDeviation scope(dev);
          pr = prove_gaussian(s.p, s.d, change_first_seed(s, x1), s.ys, samples, bl, rng);
        }
        const Verdicts v = check(s, pr->sample_commitments, pr->proof, rng);
        CHECK_FALSE(v.single);
        CHECK_FALSE(v.batch);
      }
    }
  }
}

TEST_CASE("noise: a committed sample that is not the sampler's output is rejected", "[circuits][malicious]") {
  for (SamplerKind kind : kAll) {
    DYNAMIC_SECTION(sampler_name(kind)) {
      DeterministicRng rng(50 + static_cast<int>(kind));
      const Setup s = make_setup(kind, 60 + static_cast<int>(kind));
      const std::size_t nseeds = s.seeds.size();
      for (std::size_t j = 0; j < s.d; ++j) {
        // η'_j = η_j + 4096 (one unit at f = 12): the sample commitment shifted by 4096·G, and
        // the wire commitment by the gap along G, H or Q.
        const Scalar t = Scalar::from_u64(4096);
        for (Along a : {Along::kG, Along::kH, Along::kQ}) {
          Deviation dev;
          dev.on_statement = [nseeds, j, t](std::vector<Point>& coms) {
            coms[nseeds + j] += GeneratorSet::get("gopa", 0)->G() * t;
          };
          dev.wire_offsets.push_back({a, 0, -t});
          std::vector<std::int64_t> samples;
          std::vector<SecretScalar> bl;
          std::optional<GaussianProof> pr;
          {
            ScopedDeviation scope(dev);
            pr = prove_gaussian(s.p, s.d, s.seeds, s.ys, samples, bl, rng);
          }
          std::vector<Point> published = pr->sample_commitments;
          published[j] += GeneratorSet::get("gopa", 0)->G() * t;
          INFO("sample " << j << ", offset along " << static_cast<int>(a));
          const Verdicts v = check(s, published, pr->proof, rng);
          CHECK_FALSE(v.single);
          CHECK_FALSE(v.batch);
        }
      }
    }
  }
}
