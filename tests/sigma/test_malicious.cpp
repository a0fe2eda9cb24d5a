// A malicious prover that chooses its own messages (gopa/deviation.hpp; docs/proofs.md §7): for
// every proof of this layer, false statements under every deviation — an offset along G, H, Q or
// any G_i before a message is absorbed, responses replaced after the challenges, reused nonces,
// a witness that does not satisfy the relation — are rejected by the verifier, the naive
// verifier and batch verification.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/compressed.hpp"
#include "gopa/sigma/linear.hpp"
#include "gopa/sigma/range.hpp"
#include "sigma_test_util.hpp"

using namespace gopa;
using namespace gopa::sigma;
using testing::Along;
using testing::Deviation;
using testing::ScopedDeviation;

namespace {

const char* const kLabel = "gopa/malicious-prover test";

struct Forgery {
  unsigned bits;
  std::vector<Scalar> committed;    // what the commitments hold (the false statement)
  std::vector<SecretScalar> claimed;  // the in-range values the prover's witness decomposes
  std::vector<SecretScalar> blinders;
  RangeStatement st;
};

// Commitments to `committed`, a witness for `claimed` (each < 2^bits).
Forgery make_forgery(unsigned bits, std::vector<Scalar> committed, std::vector<std::uint64_t> claimed,
                     const GeneratorSet& gens, Rng& rng) {
  Forgery f{bits, std::move(committed), {}, {}, {}};
  f.st.bits = bits;
  for (std::size_t j = 0; j < f.committed.size(); ++j) {
    f.claimed.push_back(SecretScalar::from_u64(claimed[j]));
    f.blinders.push_back(SecretScalar::random(rng));
    f.st.commitments.push_back(commit(SecretScalar(f.committed[j]), f.blinders.back(), gens));
  }
  return f;
}

struct Verdicts {
  bool fast, naive, batch;
};

// Proves under the deviation and runs the three verifiers; the batch holds an honest proof too.
Verdicts prove_and_verify(const Forgery& f, const GeneratorSet& gens, const Deviation& dev, Rng& rng) {
  std::optional<RangeProof> proof;
  {
    ScopedDeviation scope(dev);
    Transcript t(kLabel);
    proof = prove_range(t, gens, f.bits, f.st.commitments, f.claimed, f.blinders, rng);
  }
  REQUIRE(proof);
  // Through the wire format, as a verifier receives it.
  auto decoded = RangeProof::decode(proof->encode());
  REQUIRE(decoded);
  Verdicts v{};
  {
    Transcript t(kLabel);
    v.fast = verify_range(t, gens, f.st, *decoded).ok();
  }
  {
    Transcript t(kLabel);
    v.naive = verify_range_naive(t, gens, f.st, *decoded);
  }
  {
    std::vector<SecretScalar> hv, hb;
    RangeStatement hs{f.bits, {}};
    for (std::size_t j = 0; j < f.committed.size(); ++j) {
      hv.push_back(SecretScalar::from_u64(j + 1));
      hb.push_back(SecretScalar::random(rng));
      hs.commitments.push_back(commit(hv.back(), hb.back(), gens));
    }
    Transcript th(kLabel);
    auto honest = prove_range(th, gens, f.bits, hs.commitments, hv, hb, rng);
    REQUIRE(honest);
    std::vector<Transcript> ts;
    ts.emplace_back(kLabel);
    ts.emplace_back(kLabel);
    std::vector<RangeStatement> sts{hs, f.st};
    std::vector<RangeProof> prs{*honest, *decoded};
    v.batch = batch_verify_range(ts, gens, sts, prs, rng).ok();
  }
  return v;
}

void require_rejected(const Verdicts& v) {
  CHECK_FALSE(v.fast);
  CHECK_FALSE(v.naive);
  CHECK_FALSE(v.batch);
}

Scalar value_of(const SecretScalar& s) { return s.clone().declassify(); }

// Every generator a range proof's wire commitment can be shifted along, with the amounts the
// adversary would pick: the gap between witness and commitment (the binding forgery), its
// negation, and a random one.
std::vector<testing::Offset> offsets_for(unsigned bits, std::size_t d, const Scalar& gap, Rng& rng) {
  std::vector<testing::Offset> out;
  for (const Scalar& a : {gap, -gap, Scalar::random_nonzero(rng)}) {
    out.push_back({Along::kG, 0, a});
    out.push_back({Along::kH, 0, a});
    out.push_back({Along::kQ, 0, a});
  }
  // Every wire generator (2·bits·d + 3 of them), with the gap.
  for (std::size_t i = 0; i < range_generators(bits, d); ++i) out.push_back({Along::kGi, i, gap});
  return out;
}

}  // namespace

TEST_CASE("the harness is live: an honest prover under no deviation passes, and every hook fires",
          "[sigma][malicious]") {
  DeterministicRng rng(11);
  auto gens = GeneratorSet::get("gopa", range_generators(8, 1));
  Forgery f = make_forgery(8, {Scalar::from_u64(200)}, {200}, *gens, rng);
  const Verdicts ok = prove_and_verify(f, *gens, Deviation{}, rng);
  CHECK(ok.fast);
  CHECK(ok.naive);
  CHECK(ok.batch);
  // An offset of zero is no deviation.
  Deviation zero;
  zero.wire_offsets.push_back({Along::kG, 0, Scalar::zero()});
  CHECK(prove_and_verify(f, *gens, zero, rng).fast);
  // Reused nonces: two proofs of one statement are identical (honest ones never are).
  auto twice = [&](const Deviation& dev) {
    ScopedDeviation scope(dev);
    Transcript t1(kLabel), t2(kLabel);
    auto p1 = prove_range(t1, *gens, 8, f.st.commitments, f.claimed, f.blinders, rng);
    auto p2 = prove_range(t2, *gens, 8, f.st.commitments, f.claimed, f.blinders, rng);
    REQUIRE(p1);
    REQUIRE(p2);
    return p1->encode() == p2->encode();
  };
  Deviation reuse;
  reuse.reuse_nonces = true;
  CHECK(twice(reuse));
  CHECK_FALSE(twice(Deviation{}));
}

TEST_CASE("range: the binding forgery along G (δ = witness − committed) is rejected", "[sigma][malicious][heavy]") {
  DeterministicRng rng(12);
  const Scalar minus_one = -Scalar::one();
  struct Case {
    const char* name;
    unsigned bits;
    std::vector<Scalar> committed;
    std::vector<std::uint64_t> claimed;
  };
  Scalar two200 = Scalar::one();
  for (int i = 0; i < 200; ++i) two200 += two200;
  const std::vector<Case> cases{
      {"v = 1000, b = 8", 8, {Scalar::from_u64(1000)}, {1000 % 256}},
      {"v = ℓ − 1, b = 64", 64, {minus_one}, {5}},
      {"v = 2^200 at coordinate 0, b = 16, d = 4", 16,
       {two200, Scalar::from_u64(3), Scalar::from_u64(4), Scalar::from_u64(5)}, {0, 3, 4, 5}},
      {"v = 2^200 at the last coordinate, b = 16, d = 4", 16,
       {Scalar::from_u64(3), Scalar::from_u64(4), Scalar::from_u64(5), two200}, {3, 4, 5, 0}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      auto gens = GeneratorSet::get("gopa", range_generators(c.bits, c.committed.size()));
      Forgery f = make_forgery(c.bits, c.committed, c.claimed, *gens, rng);
      // The gap of the forged coordinate, and the same shifted by each power of ω's first
      // guesses: δ = k_j(w) − v_j for every j (the attack on binding j under weights ω^j).
      // Every wire generator is tried with the forged coordinate's gap; G, H and Q with every
      // coordinate's.
      for (std::size_t j = 0; j < c.committed.size(); ++j) {
        const Scalar gap = value_of(f.claimed[j]) - c.committed[j];
        if (gap.is_zero()) continue;
        for (const testing::Offset& o : offsets_for(c.bits, c.committed.size(), gap, rng)) {
          INFO("coordinate " << j << ", offset along " << test::along_name(o.along) << " " << o.index);
          Deviation dev;
          dev.wire_offsets.push_back(o);
          require_rejected(prove_and_verify(f, *gens, dev, rng));
        }
      }
      // Without any deviation the false statement is rejected too.
      require_rejected(prove_and_verify(f, *gens, Deviation{}, rng));
    }
  }
}

TEST_CASE("range: responses replaced after the challenges, reused nonces, bad witnesses are rejected",
          "[sigma][malicious]") {
  DeterministicRng rng(13);
  auto gens = GeneratorSet::get("gopa", range_generators(8, 1));
  Forgery f = make_forgery(8, {Scalar::from_u64(1000)}, {1000 % 256}, *gens, rng);
  const Scalar gap = value_of(f.claimed[0]) - f.committed[0];
  SECTION("f(c), g(c) replaced after c") {
    for (int which = 0; which < 3; ++which) {
      Deviation dev;
      dev.wire_offsets.push_back({Along::kG, 0, gap});
      dev.on_evaluations = [which](Scalar& fa, Scalar& gb) {
        if (which != 1) fa += Scalar::one();
        if (which != 0) gb -= Scalar::from_u64(3);
      };
      require_rejected(prove_and_verify(f, *gens, dev, rng));
    }
  }
  SECTION("final responses and cross terms replaced after the last challenge") {
    for (int which = 0; which < 3; ++which) {
      Deviation dev;
      dev.wire_offsets.push_back({Along::kG, 0, gap});
      dev.on_responses = [which, &gens](CompressedProof& p) {
        if (which == 0) p.final[0] += Scalar::one();
        if (which == 1) p.cross.back() += gens->G();
        if (which == 2) p.a += gens->Q();
      };
      require_rejected(prove_and_verify(f, *gens, dev, rng));
    }
  }
  SECTION("the pivot's mask commitment shifted before it is absorbed") {
    for (Along a : {Along::kG, Along::kH, Along::kQ, Along::kGi}) {
      Deviation dev;
      dev.wire_offsets.push_back({Along::kG, 0, gap});
      dev.on_mask_commitment = [a, &gens, gap](Point& p) {
        if (a == Along::kG) p += gens->G() * gap;
        if (a == Along::kH) p += gens->H() * gap;
        if (a == Along::kQ) p += gens->Q() * gap;
        if (a == Along::kGi) p += gens->Gi(1)[0] * gap;
      };
      require_rejected(prove_and_verify(f, *gens, dev, rng));
    }
  }
  SECTION("reused nonces") {
    Deviation dev;
    dev.reuse_nonces = true;
    require_rejected(prove_and_verify(f, *gens, dev, rng));
    dev.wire_offsets.push_back({Along::kG, 0, gap});
    require_rejected(prove_and_verify(f, *gens, dev, rng));
  }
  SECTION("a non-boolean bit that makes the sum match (offset along the bit's wire)") {
    // 232 + 6·128 = 1000: wire 7 (bit 7, weight 128) carries 1 + 6 = 7, so the bits sum to the
    // committed value and only the gate b·(b − 1) = 0 is broken.
    Deviation dev;
    dev.wire_offsets.push_back({Along::kGi, 7, Scalar::from_u64(6)});
    require_rejected(prove_and_verify(f, *gens, dev, rng));
  }
}

TEST_CASE("circuit: a witness that fails a gate or a linear constraint is rejected under every offset",
          "[sigma][malicious]") {
  DeterministicRng rng(14);
  // x committed, x·y = 12 claimed; the witness has x = 3, y = 5 (x·y = 15).
  CircuitBuilder pb(CircuitBuilder::kProver);
  LinComb x = pb.committed(SecretScalar::from_u64(3));
  LinComb y = pb.secret(SecretScalar::from_u64(5));
  pb.assert_equal(pb.mul(x, y), LinComb::of_constant(Scalar::from_u64(12)));
  const Circuit& c = pb.circuit();
  REQUIRE_FALSE(c.is_satisfied(pb.publics(), std::vector<Scalar>{Scalar::from_u64(3), Scalar::from_u64(5),
                                                                 Scalar::from_u64(15)}));
  auto gens = GeneratorSet::get("gopa", c.generators_needed());
  std::vector<SecretScalar> bl;
  bl.push_back(SecretScalar::random(rng));
  std::vector<Point> coms{commit(SecretScalar::from_u64(3), bl[0], *gens)};
  std::vector<testing::Offset> offs{{Along::kG, 0, Scalar::from_u64(3)}, {Along::kH, 0, Scalar::from_u64(3)},
                                    {Along::kQ, 0, Scalar::from_u64(3)}};
  for (std::size_t i = 0; i < c.generators_needed(); ++i) offs.push_back({Along::kGi, i, -Scalar::from_u64(3)});
  offs.push_back({Along::kG, 0, Scalar::zero()});  // no offset at all
  for (const auto& o : offs) {
    INFO("offset along " << test::along_name(o.along) << " " << o.index);
    Deviation dev;
    dev.wire_offsets.push_back(o);
    CircuitProof p;
    {
      ScopedDeviation scope(dev);
      Transcript t(kLabel);
      p = prove_circuit(t, *gens, c, pb.publics(), coms, pb.witness(), bl, rng);
    }
    Transcript tv(kLabel), tn(kLabel);
    CHECK_FALSE(verify_circuit(tv, *gens, c, pb.publics(), coms, p).ok());
    CHECK_FALSE(verify_circuit_naive(tn, *gens, c, pb.publics(), coms, p));
  }
}

TEST_CASE("linear forms: a false value is rejected under every deviation", "[sigma][malicious]") {
  DeterministicRng rng(15);
  const std::size_t n = 6;
  auto gens = GeneratorSet::get("gopa", n);
  std::vector<SecretScalar> xv;
  for (std::size_t i = 0; i < n; ++i) xv.push_back(SecretScalar::random(rng));
  SecretScalar gam = SecretScalar::random(rng);
  LinearStatement st;
  st.n = n;
  std::vector<Scalar> form;
  Scalar y;
  for (std::size_t i = 0; i < n; ++i) {
    form.push_back(Scalar::random(rng));
    y += form.back() * value_of(xv[i]);
  }
  st.forms.push_back(form);
  const Point c = commit_vector(xv, gam, *gens);
  auto check = [&](const LinearStatement& s, const Deviation& dev) {
    std::vector<std::vector<SecretScalar>> xs(1);
    for (const auto& v : xv) xs[0].push_back(v.clone());
    std::vector<SecretScalar> gs;
    gs.push_back(gam.clone());
    LinearProof p;
    {
      ScopedDeviation scope(dev);
      Transcript t(kLabel);
      p = prove_linear(t, *gens, s, xs, gs, rng);
    }
    auto decoded = LinearProof::decode(p.encode(), n);
    REQUIRE(decoded);
    Transcript tv(kLabel);
    return verify_linear(tv, *gens, s, *decoded).ok();
  };
  st.commitments = {c};
  st.values = {{y}};
  REQUIRE(check(st, Deviation{}));  // the honest statement passes
  st.values = {{y + Scalar::one()}};
  CHECK_FALSE(check(st, Deviation{}));
  // The commitment carries the value's error along Q (or G, H) chosen before any challenge.
  for (const Point& shift : {gens->Q(), gens->G(), gens->H(), gens->Gi(1)[0]}) {
    st.commitments = {c + shift};
    CHECK_FALSE(check(st, Deviation{}));
  }
  st.commitments = {c};
  for (Along a : {Along::kG, Along::kH, Along::kQ, Along::kGi}) {
    Deviation dev;
    dev.on_mask_commitment = [a, &gens](Point& p) {
      if (a == Along::kG) p += gens->G();
      if (a == Along::kH) p += gens->H();
      if (a == Along::kQ) p += gens->Q();
      if (a == Along::kGi) p += gens->Gi(2)[1];
    };
    CHECK_FALSE(check(st, dev));
  }
  Deviation resp;
  resp.on_responses = [](CompressedProof& p) { p.final.back() += Scalar::one(); };
  CHECK_FALSE(check(st, resp));
  Deviation reuse;
  reuse.reuse_nonces = true;
  CHECK_FALSE(check(st, reuse));
}
