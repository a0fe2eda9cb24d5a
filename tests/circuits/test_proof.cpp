// End to end: a Gaussian sample proven with the compressed Σ-protocol circuit prover
// (circuits/sigma_adapter) and verified; cheating statements are rejected.
#include <catch2/catch.hpp>

#include <algorithm>
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

// Blocked proofs (docs/circuits.md §6.3): d samples in blocks of `block`, the full blocks one
// batch of circuit instances bound to the whole statement and to their positions, a shorter last
// block a batch of its own. Box–Muller f = 12, blocks of 4.
namespace {

struct Proven {
  GaussianProof pr;
  std::vector<std::uint8_t> bytes;
  std::vector<std::int64_t> samples;
  std::vector<gopa::SecretScalar> blinders;
};

Proven prove(const Setup& s, gopa::Rng& rng, std::size_t block, unsigned threads = 1) {
  Proven out;
  out.pr = prove_gaussian(s.p, s.d, s.seeds, s.ys, out.samples, out.blinders, rng, block, threads);
  out.bytes = out.pr.proof.encode();
  return out;
}

bool verifies(const Setup& s, std::span<const Point> coms, std::span<const std::uint8_t> bytes, unsigned threads = 1) {
  return verify_gaussian_encoded(s.p, s.d, s.ys, s.seed_coms, coms, bytes, threads).ok();
}

// The same statement with the first d of s's seeds (the seeds of a shorter or longer d share
// their prefix when both need as many calls).
Setup with_d(const Setup& s, std::size_t d) {
  Setup t{s.p, d, {}, s.seed_coms, s.ys};
  for (const auto& x : s.seeds) t.seeds.emplace_back(x.value(), x.blinder().clone(), s.p.m);
  return t;
}

// Block k's part of a proof: its wire commitment and evaluations in its group's batch (the full
// blocks form group 0, a shorter last block group 1).
struct Part {
  Point p;
  gopa::Scalar fa, gb;
  bool operator==(const Part&) const = default;
};
std::pair<std::size_t, std::size_t> where(const GaussianBlocks& g, std::size_t k) {
  const std::size_t full = g.groups[0].p.size();
  return g.groups.size() == 2 && k >= full ? std::pair<std::size_t, std::size_t>{1, k - full}
                                           : std::pair<std::size_t, std::size_t>{0, k};
}
Part get_part(const GaussianBlocks& g, std::size_t k) {
  const auto [grp, i] = where(g, k);
  const auto& b = g.groups[grp];
  return {b.p[i], b.fa[i], b.gb[i]};
}
void set_part(GaussianBlocks& g, std::size_t k, const Part& part) {
  const auto [grp, i] = where(g, k);
  auto& b = g.groups[grp];
  b.p[i] = part.p;
  b.fa[i] = part.fa;
  b.gb[i] = part.gb;
}
void swap_parts(GaussianBlocks& g, std::size_t a, std::size_t b) {
  const Part pa = get_part(g, a);
  set_part(g, a, get_part(g, b));
  set_part(g, b, pa);
}

void put_u32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

TEST_CASE("Gaussian samples in blocks: every length around the block size verifies", "[circuits][proof][blocks]") {
  gopa::DeterministicRng rng(71);
  constexpr std::size_t kBlock = 4;
  auto gens = gopa::GeneratorSet::get("gopa", 0);
  for (std::size_t d : {std::size_t{1}, kBlock - 1, kBlock, kBlock + 1, 3 * kBlock + 1}) {
    INFO("d = " << d);
    Setup s = setup(SamplerKind::kBoxMuller, 12, d, rng);
    Proven a = prove(s, rng, kBlock);
    const std::size_t count = (d + kBlock - 1) / kBlock;
    // The full blocks in one batch, a shorter last block in its own.
    const std::size_t full = d / kBlock;
    REQUIRE(a.pr.proof.groups.size() == (full > 0 ? 1U : 0U) + (d % kBlock != 0 ? 1U : 0U));
    if (full > 0) CHECK(a.pr.proof.groups[0].p.size() == full);
    if (d % kBlock != 0) CHECK(a.pr.proof.groups.back().p.size() == 1);
    CHECK(a.pr.proof.count == count);
    CHECK(a.bytes[0] == kGaussianBlocksVersion);
    CHECK(a.bytes[1] == kBlock);
    CHECK(a.bytes[5] == count);
    CHECK(verify_gaussian(s.p, s.d, s.ys, s.seed_coms, a.pr).ok());
    CHECK(verifies(s, a.pr.sample_commitments, a.bytes));
    REQUIRE(a.samples.size() == d);
    REQUIRE(a.blinders.size() == d);
    for (std::size_t i = 0; i < d; ++i)
      CHECK(gopa::verify_opening(a.pr.sample_commitments[i], scalar_from_i128(a.samples[i]),
                                 a.blinders[i].declassify(), *gens));
    // The samples are those of one unblocked circuit (the sampler is deterministic in seeds, y).
    std::vector<std::uint64_t> uniform;
    for (std::size_t i = 0; i < s.seeds.size(); ++i)
      uniform.push_back((s.seeds[i].value() + s.ys[i]) & ((std::uint64_t{1} << s.p.m) - 1U));
    std::vector<std::int64_t> clear;
    CHECK(clear_samples(s.p, uniform, clear));
    clear.resize(d);
    CHECK(clear == a.samples);
    // A sample commitment replaced by one to 2η + 1 (same blinder), first and last sample.
    for (std::size_t j : {std::size_t{0}, d - 1}) {
      auto coms = a.pr.sample_commitments;
      coms[j] = gopa::commit(gopa::SecretScalar(scalar_from_i128(2 * a.samples[j] + 1)), a.blinders[j], *gens);
      CHECK_FALSE(verifies(s, coms, a.bytes));
    }
  }
}

TEST_CASE("Gaussian samples in blocks: reordered, dropped, duplicated, spliced or truncated blocks are rejected",
          "[circuits][proof][blocks]") {
  gopa::DeterministicRng rng(73);
  constexpr std::size_t kBlock = 4;
  const std::size_t d = 3 * kBlock + 1;
  Setup s = setup(SamplerKind::kBoxMuller, 12, d, rng);
  Proven a = prove(s, rng, kBlock);
  REQUIRE(verifies(s, a.pr.sample_commitments, a.bytes));
  // Blocks 0..2 in one batch, block 3 (one sample) in another.
  REQUIRE(a.pr.proof.groups.size() == 2);
  REQUIRE(a.pr.proof.groups[0].p.size() == 3);
  REQUIRE(a.pr.proof.groups[1].p.size() == 1);
  auto rejects = [&](const GaussianBlocks& g, std::span<const Point> coms) {
    return !verifies(s, coms, g.encode());
  };
  const auto& coms = a.pr.sample_commitments;
  SECTION("two blocks swapped (with or without their sample commitments)") {
    GaussianBlocks g = a.pr.proof;
    swap_parts(g, 0, 1);
    CHECK(rejects(g, coms));
    auto c2 = coms;
    std::swap_ranges(c2.begin(), c2.begin() + kBlock, c2.begin() + kBlock);
    CHECK(rejects(g, c2));
  }
  SECTION("the two batches' compressed proofs swapped, or one batch's used for both") {
    GaussianBlocks g = a.pr.proof;
    std::swap(g.groups[0].inner, g.groups[1].inner);
    CHECK(rejects(g, coms));
    GaussianBlocks h = a.pr.proof;
    h.groups[1].inner = h.groups[0].inner;
    CHECK(rejects(h, coms));
  }
  SECTION("a block dropped") {
    for (std::size_t k = 0; k < 3; ++k) {
      GaussianBlocks g = a.pr.proof;
      auto& b = g.groups[0];
      b.p.erase(b.p.begin() + static_cast<std::ptrdiff_t>(k));
      b.fa.erase(b.fa.begin() + static_cast<std::ptrdiff_t>(k));
      b.gb.erase(b.gb.begin() + static_cast<std::ptrdiff_t>(k));
      CHECK(rejects(g, coms));
      g.count = 3;  // and the count field lowered to match
      CHECK(rejects(g, coms));
    }
    GaussianBlocks g = a.pr.proof;
    g.groups.pop_back();  // the last (shorter) block
    CHECK(rejects(g, coms));
    g.count = 3;
    CHECK(rejects(g, coms));
    // Dropped with the block count left at 4: the encoding is short.
    auto bytes = a.bytes;
    bytes.resize(bytes.size() - 96);
    CHECK_FALSE(verifies(s, coms, bytes));
  }
  SECTION("a block duplicated (in place of another, or appended)") {
    GaussianBlocks g = a.pr.proof;
    set_part(g, 2, get_part(g, 1));
    CHECK(rejects(g, coms));
    GaussianBlocks h = a.pr.proof;
    const Part first = get_part(h, 0);
    h.groups[0].p.push_back(first.p);
    h.groups[0].fa.push_back(first.fa);
    h.groups[0].gb.push_back(first.gb);
    CHECK(rejects(h, coms));
  }
  SECTION("a block spliced from another party's proof (its own y's and seeds)") {
    Setup other = setup(SamplerKind::kBoxMuller, 12, d, rng);
    Proven b = prove(other, rng, kBlock);
    REQUIRE(verifies(other, b.pr.sample_commitments, b.bytes));
    GaussianBlocks g = a.pr.proof;
    set_part(g, 1, get_part(b.pr.proof, 1));
    CHECK(rejects(g, coms));
    auto c2 = coms;
    std::copy_n(b.pr.sample_commitments.begin() + kBlock, kBlock, c2.begin() + kBlock);
    CHECK(rejects(g, c2));
    // The other party's last batch whole (its block, evaluations and compressed proof).
    GaussianBlocks h = a.pr.proof;
    h.groups[1] = b.pr.proof.groups[1];
    auto c3 = coms;
    c3[d - 1] = b.pr.sample_commitments[d - 1];
    CHECK(rejects(h, c3));
  }
  SECTION("a block from the same position of a proof of another d (same seeds and y's)") {
    // d + 1 needs as many seeds as d (Box–Muller: two samples per call), so its blocks 0..2 are
    // proofs about the same seeds, y's and samples.
    Setup longer = with_d(s, d + 1);
    Proven b = prove(longer, rng, kBlock);
    REQUIRE(verifies(longer, b.pr.sample_commitments, b.bytes));
    REQUIRE(std::equal(a.samples.begin(), a.samples.end(), b.samples.begin()));
    GaussianBlocks g = a.pr.proof;
    set_part(g, 0, get_part(b.pr.proof, 0));
    auto c2 = coms;
    std::copy_n(b.pr.sample_commitments.begin(), kBlock, c2.begin());
    CHECK(rejects(g, c2));
    // The first batch (blocks 0..2, whole) of the d + 1 proof in the d proof, and the other way.
    GaussianBlocks h = a.pr.proof;
    h.groups[0] = b.pr.proof.groups[0];
    auto c3 = coms;
    std::copy_n(b.pr.sample_commitments.begin(), 3 * kBlock, c3.begin());
    CHECK(rejects(h, c3));
    GaussianBlocks k = b.pr.proof;
    k.groups[0] = a.pr.proof.groups[0];
    auto c4 = b.pr.sample_commitments;
    std::copy_n(coms.begin(), 3 * kBlock, c4.begin());
    CHECK_FALSE(verifies(longer, c4, k.encode()));
  }
  SECTION("a block of a second honest proof of the same statement") {
    Proven b = prove(s, rng, kBlock);
    REQUIRE(verifies(s, b.pr.sample_commitments, b.bytes));
    GaussianBlocks g = a.pr.proof;
    set_part(g, 2, get_part(b.pr.proof, 2));
    auto c2 = coms;
    std::copy_n(b.pr.sample_commitments.begin() + 2 * kBlock, kBlock, c2.begin() + 2 * kBlock);
    CHECK(rejects(g, c2));
  }
  SECTION("truncated or extended encodings") {
    for (std::size_t n = 0; n < a.bytes.size(); n += (n < 16 ? 1 : 29)) {
      INFO("length " << n);
      CHECK_FALSE(verifies(s, coms, std::span<const std::uint8_t>(a.bytes).first(n)));
    }
    CHECK_FALSE(verifies(s, coms, std::span<const std::uint8_t>(a.bytes).first(a.bytes.size() - 1)));
    auto longer = a.bytes;
    longer.push_back(0);
    CHECK_FALSE(verifies(s, coms, longer));
    auto version = a.bytes;
    version[0] ^= 1;
    CHECK_FALSE(verifies(s, coms, version));
  }
  SECTION("a wrong block size or block count field") {
    for (std::uint32_t b : {0U, 1U, 2U, 3U, 5U, 6U, 8U, 12U, 16U, 2048U, 0xFFFFFFFFU}) {
      auto bytes = a.bytes;
      put_u32(bytes, 1, b);
      INFO("block " << b);
      CHECK_FALSE(verifies(s, coms, bytes));
    }
    for (std::uint32_t c : {0U, 3U, 5U, 0xFFFFFFFFU}) {
      auto bytes = a.bytes;
      put_u32(bytes, 5, c);
      CHECK_FALSE(verifies(s, coms, bytes));
    }
  }
  SECTION("the proof checked against another d") {
    CHECK_FALSE(verify_gaussian_encoded(s.p, d - 1, s.ys, s.seed_coms, std::span<const Point>(coms).first(d - 1),
                                        a.bytes)
                    .ok());
  }
}

TEST_CASE("Gaussian samples in blocks: a block size field with the same block count", "[circuits][proof][blocks]") {
  // d = 13 in blocks of 8 has 2 blocks; so has d = 13 in blocks of 10 or 12. A field changed to
  // 10 or 12 passes the count check and is rejected by the length or the block proofs.
  gopa::DeterministicRng rng(79);
  Setup s = setup(SamplerKind::kBoxMuller, 12, 13, rng);
  Proven a = prove(s, rng, 8);
  REQUIRE(verifies(s, a.pr.sample_commitments, a.bytes));
  for (std::uint32_t b : {10U, 12U}) {
    auto bytes = a.bytes;
    put_u32(bytes, 1, b);
    CHECK_FALSE(verifies(s, a.pr.sample_commitments, bytes));
    // Re-proven honestly with that block size, the proof verifies.
    Proven c = prove(s, rng, b);
    CHECK(verifies(s, c.pr.sample_commitments, c.bytes));
  }
}

TEST_CASE("Gaussian samples in blocks: the thread count changes neither the samples nor the proof",
          "[circuits][proof][blocks][tsan]") {
  constexpr std::size_t kBlock = 4;
  gopa::DeterministicRng setup_rng(83);
  Setup s = setup(SamplerKind::kBoxMuller, 12, 2 * kBlock + 3, setup_rng);
  gopa::DeterministicRng r1(89), r2(89);
  Proven one = prove(s, r1, kBlock, 1);
  Proven two = prove(s, r2, kBlock, 2);
  CHECK(one.samples == two.samples);
  REQUIRE(one.blinders.size() == two.blinders.size());
  for (std::size_t i = 0; i < one.blinders.size(); ++i)
    CHECK(one.blinders[i].declassify() == two.blinders[i].declassify());
  CHECK(one.pr.sample_commitments == two.pr.sample_commitments);
  CHECK(one.bytes == two.bytes);
  for (unsigned t : {1U, 2U, 3U}) {
    CHECK(verifies(s, one.pr.sample_commitments, one.bytes, t));
    CHECK(verifies(s, two.pr.sample_commitments, two.bytes, t));
  }
  // A bad block is found whatever the thread count.
  GaussianBlocks g = two.pr.proof;
  swap_parts(g, 1, 2);
  for (unsigned t : {1U, 2U}) CHECK_FALSE(verifies(s, two.pr.sample_commitments, g.encode(), t));
}

TEST_CASE("Gaussian samples in blocks: batch verification weighs every block", "[circuits][proof][blocks][batch]") {
  constexpr std::size_t kBlock = 4;
  gopa::DeterministicRng rng(97);
  const std::size_t d = kBlock + 1;
  std::vector<Setup> setups;
  std::vector<Proven> proofs;
  for (int i = 0; i < 3; ++i) {
    setups.push_back(setup(SamplerKind::kBoxMuller, 12, d, rng));
    proofs.push_back(prove(setups.back(), rng, kBlock));
  }
  auto claims_of = [&]() {
    std::vector<GaussianClaim> claims;
    for (std::size_t i = 0; i < setups.size(); ++i)
      claims.push_back({setups[i].ys, setups[i].seed_coms, proofs[i].pr.sample_commitments, proofs[i].bytes});
    return claims;
  };
  const SamplerParams p = setups[0].p;
  // The verdict on 1, 2 and 3 threads (weights drawn from the same seed): the same status and message.
  auto batch = [&](const std::vector<GaussianClaim>& claims) {
    std::vector<gopa::sigma::VerifyResult> rs;
    for (unsigned threads : {1U, 2U, 3U}) {
      gopa::DeterministicRng weights(7);
      rs.push_back(batch_verify_gaussian(p, d, claims, weights, threads));
    }
    for (const auto& r : rs) {
      CHECK(r.status == rs[0].status);
      CHECK(r.message == rs[0].message);
    }
    return rs[0];
  };
  CHECK(batch(claims_of()).ok());
  SECTION("two blocks of one claim swapped") {
    swap_parts(proofs[1].pr.proof, 0, 1);
    proofs[1].bytes = proofs[1].pr.proof.encode();
    auto r = batch(claims_of());
    CHECK_FALSE(r.ok());
  }
  SECTION("a block of one claim in another") {
    set_part(proofs[2].pr.proof, 1, get_part(proofs[0].pr.proof, 1));
    proofs[2].bytes = proofs[2].pr.proof.encode();
    CHECK_FALSE(batch(claims_of()).ok());
  }
  SECTION("a sample commitment changed") {
    proofs[0].pr.sample_commitments[d - 1] += gopa::GeneratorSet::get("gopa", 0)->G();
    auto r = batch(claims_of());
    CHECK(r.status == gopa::sigma::VerifyStatus::kBatchEquation);
  }
  SECTION("a malformed claim is named") {
    proofs[1].bytes.pop_back();
    auto r = batch(claims_of());
    CHECK(r.status == gopa::sigma::VerifyStatus::kMalformedProof);
    CHECK(r.message.rfind("proof 1:", 0) == 0);
  }
}
