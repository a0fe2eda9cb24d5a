// L2-ball proofs (gopa/sigma/ball.hpp; docs/proofs.md §5.2, §7.4): honest proofs in and on the
// ball verify; a malicious prover (gopa/deviation.hpp) with ‖x‖₂ slightly above C, a coordinate
// just above C, a coordinate that wraps below −C, or a binding forged along any generator is
// rejected by the verifier and by batch verification; and the tamper matrix of the wire format
// and the statement (truncation, bit flips, splicing, another C, other commitments).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/ball.hpp"

using namespace gopa;
using namespace gopa::sigma;
using testing::Along;
using testing::Deviation;
using testing::ScopedDeviation;

namespace {

const char* const kLabel = "gopa/ball test";

struct Instance {
  BallStatement st;
  std::vector<SecretScalar> values, blinders;
};

// Commitments to x (signed integers, embedded in Z_ℓ as ℓ − |x_j| when negative).
Instance make_instance(unsigned bits, std::uint64_t radius, const std::vector<Scalar>& x, const GeneratorSet& gens,
                       Rng& rng) {
  Instance in;
  in.st.bits = bits;
  in.st.radius = radius;
  for (const Scalar& v : x) {
    in.values.emplace_back(v);
    in.blinders.push_back(SecretScalar::random(rng));
    in.st.commitments.push_back(commit(in.values.back(), in.blinders.back(), gens));
  }
  return in;
}

std::vector<Scalar> signed_vector(std::initializer_list<std::int64_t> xs) {
  std::vector<Scalar> out;
  for (std::int64_t x : xs) out.push_back(Scalar::from_i64(x));
  return out;
}

std::shared_ptr<const GeneratorSet> gens_for(unsigned bits, std::size_t d) {
  return GeneratorSet::get("gopa", ball_generators(bits, d));
}

std::optional<BallProof> prove(const Instance& in, const GeneratorSet& gens, Rng& rng) {
  Transcript t(kLabel);
  return prove_ball(t, gens, in.st.bits, in.st.radius, in.st.commitments, in.values, in.blinders, rng);
}

bool verifies(const BallStatement& st, const GeneratorSet& gens, const BallProof& proof) {
  Transcript t(kLabel);
  return verify_ball(t, gens, st, proof).ok();
}

// The fast verifier and a batch holding an honest proof beside it; true if either accepts.
bool accepted_anywhere(const BallStatement& st, const GeneratorSet& gens, const BallProof& proof, Rng& rng) {
  auto decoded = BallProof::decode(proof.encode());
  REQUIRE(decoded);
  const bool fast = verifies(st, gens, *decoded);
  std::vector<Scalar> hx(st.commitments.size(), Scalar::zero());
  hx[0] = Scalar::from_u64(st.radius);
  Instance honest = make_instance(st.bits, st.radius, hx, gens, rng);
  auto hp = prove(honest, gens, rng);
  REQUIRE(hp);
  std::vector<Transcript> ts;
  ts.emplace_back(kLabel);
  ts.emplace_back(kLabel);
  std::vector<BallStatement> sts{honest.st, st};
  std::vector<BallProof> prs{*hp, *decoded};
  const bool batch = batch_verify_ball(ts, gens, sts, prs, rng).ok();
  return fast || batch;
}

}  // namespace

TEST_CASE("ball: parameters", "[sigma][ball]") {
  CHECK(ball_params_supported(8, 1, 1));
  CHECK(ball_params_supported(8, 1, 127));
  CHECK_FALSE(ball_params_supported(8, 1, 128));  // 2C must fit in 8 bits
  CHECK_FALSE(ball_params_supported(8, 1, 0));
  CHECK_FALSE(ball_params_supported(12, 1, 5));
  CHECK_FALSE(ball_params_supported(32, 0, 5));
  CHECK_FALSE(ball_params_supported(32, kMaxBallDim + 1, 5));
  CHECK(ball_params_supported(64, kMaxBallDim, (std::uint64_t{1} << 63) - 1));
  // The circuit: d·(b + 1) + 2b variables and gates, d bindings, C and C² public.
  const auto c = ball_circuit(16, 3);
  CHECK(c->num_witness == 3 * 17 + 32);
  CHECK(c->gates.size() == 3 * 17 + 32);
  CHECK(c->bindings.size() == 3);
  CHECK(c->num_public == 2);
  CHECK(c->generators_needed() == ball_generators(16, 3));
}

TEST_CASE("ball: honest proofs in and on the ball verify", "[sigma][ball]") {
  DeterministicRng rng(11);
  struct Case {
    unsigned bits;
    std::uint64_t radius;
    std::vector<Scalar> x;
  };
  const std::vector<Case> cases = {
      {8, 5, signed_vector({3, 4})},                 // on the sphere
      {8, 5, signed_vector({-3, -4})},
      {8, 5, signed_vector({0, 0, 0})},
      {8, 127, signed_vector({127})},                 // the largest radius at 8 bits, x = C
      {8, 127, signed_vector({-127})},
      {16, 1000, signed_vector({-600, 800, 0, 0})},
      {32, 65536, signed_vector({-65536, 0, 0, 0, 0})},
      {64, (std::uint64_t{1} << 63) - 1, signed_vector({std::int64_t{1} - (std::int64_t{1} << 62), 12345})},
  };
  for (const Case& c : cases) {
    auto gens = gens_for(c.bits, c.x.size());
    Instance in = make_instance(c.bits, c.radius, c.x, *gens, rng);
    auto proof = prove(in, *gens, rng);
    REQUIRE(proof);
    const auto bytes = proof->encode();
    CHECK(bytes.size() == BallProof::encoded_size(c.bits, c.x.size()));
    auto decoded = BallProof::decode(bytes);
    REQUIRE(decoded);
    CHECK(decoded->encode() == bytes);
    CHECK(verifies(in.st, *gens, *decoded));
  }
  // A batch of honest proofs.
  auto gens = gens_for(16, 4);
  std::vector<Transcript> ts;
  std::vector<BallStatement> sts;
  std::vector<BallProof> prs;
  for (std::int64_t k = 0; k < 4; ++k) {
    Instance in = make_instance(16, 1000, signed_vector({-k * 100, 0, 700, -7}), *gens, rng);
    auto p = prove(in, *gens, rng);
    REQUIRE(p);
    ts.emplace_back(kLabel);
    sts.push_back(in.st);
    prs.push_back(*p);
  }
  CHECK(batch_verify_ball(ts, *gens, sts, prs, rng).ok());
}

TEST_CASE("ball: the honest prover refuses vectors outside the ball", "[sigma][ball]") {
  DeterministicRng rng(12);
  auto gens = gens_for(8, 3);
  for (const auto& x : {signed_vector({3, 4, 1}), signed_vector({6, 0, 0}), signed_vector({0, -6, 0}),
                        signed_vector({127, 0, 0})}) {
    Instance in = make_instance(8, 5, x, *gens, rng);
    CHECK_FALSE(prove(in, *gens, rng));
  }
}

TEST_CASE("ball: a prover outside the ball is rejected (malicious prover)", "[sigma][ball][malicious]") {
  DeterministicRng rng(13);
  const unsigned bits = 16;
  const std::uint64_t radius = 1000;
  const std::size_t d = 3;
  auto gens = gens_for(bits, d);
  const Scalar ell_minus = Scalar::zero() - Scalar::from_u64(radius + 1);  // ℓ − (C + 1) = −(C + 1)
  struct Bad {
    const char* what;
    std::vector<Scalar> x;
  };
  const std::vector<Bad> bad = {
      {"norm slightly above C", signed_vector({600, 800, 1})},           // 1000² + 1
      {"on the sphere plus one ulp", signed_vector({601, 800, 0})},
      {"one coordinate C + 1, others 0", signed_vector({1001, 0, 0})},
      {"one coordinate -(C + 1) = l - (C + 1)", {ell_minus, Scalar::zero(), Scalar::zero()}},
      {"coordinate 2^b - C (x + C wraps the b bits)", signed_vector({(1 << 16) - 1000, 0, 0})},
      {"coordinate l - 2^b", {Scalar::zero() - Scalar::from_u64(1 << 16), Scalar::zero(), Scalar::zero()}},
      {"coordinate 2^126 (its square wraps mod l)", {Scalar::from_u64(2).pow(126),
                                                      Scalar::zero(), Scalar::zero()}},
  };
  // The in-ball vector the forging prover decomposes instead.
  const std::vector<Scalar> claimed = signed_vector({600, 800, 0});
  for (const Bad& b : bad) {
    INFO(b.what);
    Instance in = make_instance(bits, radius, b.x, *gens, rng);
    {
      // The true values, proven with truncated decompositions.
      Deviation dev;
      dev.prove_outside_domain = true;
      ScopedDeviation scope(dev);
      auto proof = prove(in, *gens, rng);
      REQUIRE(proof);
      CHECK_FALSE(accepted_anywhere(in.st, *gens, *proof, rng));
    }
    {
      // The commitments to the bad vector, a witness of an in-ball vector (on_statement), with and
      // without the binding forgery along G (the gap of the first coordinate), along H, Q, and every
      // wire generator.
      Instance good = make_instance(bits, radius, claimed, *gens, rng);
      const Scalar gap = claimed[0] - b.x[0];
      std::vector<testing::Offset> offsets;
      for (const Scalar& a : {gap, -gap, Scalar::random_nonzero(rng)}) {
        offsets.push_back({Along::kG, 0, a});
        offsets.push_back({Along::kH, 0, a});
        offsets.push_back({Along::kQ, 0, a});
      }
      for (std::size_t i = 0; i < ball_generators(bits, d); i += 7) offsets.push_back({Along::kGi, i, gap});
      const std::vector<Point> claimed_commitments = in.st.commitments;
      for (const auto& o : offsets) {
        Deviation dev;
        dev.on_statement = [&claimed_commitments](std::vector<Point>& coms) { coms = claimed_commitments; };
        dev.wire_offsets.push_back(o);
        ScopedDeviation scope(dev);
        auto proof = prove(good, *gens, rng);
        REQUIRE(proof);
        CHECK_FALSE(accepted_anywhere(in.st, *gens, *proof, rng));
      }
    }
  }
}

TEST_CASE("ball: responses, evaluations and nonces chosen by the prover are rejected", "[sigma][ball][malicious]") {
  DeterministicRng rng(14);
  auto gens = gens_for(8, 2);
  // Commitments to (5, 1) at C = 5 (norm² 26), witness of (4, 3) — every deviation after P.
  Instance bad = make_instance(8, 5, signed_vector({5, 1}), *gens, rng);
  Instance good = make_instance(8, 5, signed_vector({4, 3}), *gens, rng);
  const std::vector<Point> coms = bad.st.commitments;
  std::vector<Deviation> devs(5);
  for (auto& dev : devs) dev.on_statement = [&coms](std::vector<Point>& c) { c = coms; };
  devs[0].on_evaluations = [](Scalar& fa, Scalar&) { fa += Scalar::one(); };
  devs[1].on_evaluations = [](Scalar&, Scalar& gb) { gb -= Scalar::one(); };
  devs[2].on_mask_commitment = [&gens](Point& a) { a += gens->G(); };
  devs[3].on_responses = [](CompressedProof& p) { p.final.back() += Scalar::one(); };
  devs[4].reuse_nonces = true;
  for (const Deviation& dev : devs) {
    ScopedDeviation scope(dev);
    auto proof = prove(good, *gens, rng);
    REQUIRE(proof);
    CHECK_FALSE(accepted_anywhere(bad.st, *gens, *proof, rng));
  }
}

TEST_CASE("ball: tampered proofs and statements are rejected", "[sigma][ball][tamper]") {
  DeterministicRng rng(15);
  const unsigned bits = 8;
  auto gens = gens_for(bits, 2);
  Instance in = make_instance(bits, 5, signed_vector({-3, 4}), *gens, rng);
  auto proof = prove(in, *gens, rng);
  REQUIRE(proof);
  const auto bytes = proof->encode();
  REQUIRE(verifies(in.st, *gens, *proof));

  SECTION("truncation at every length and one extra byte") {
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      CHECK_FALSE(BallProof::decode(std::span(bytes).first(n)));
    }
    auto longer = bytes;
    longer.push_back(0);
    CHECK_FALSE(BallProof::decode(longer));
  }
  SECTION("every bit of every byte flipped") {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      for (unsigned bit = 0; bit < 8; bit += 3) {
        auto flipped = bytes;
        flipped[i] = static_cast<std::uint8_t>(flipped[i] ^ (1U << bit));
        auto d = BallProof::decode(flipped);
        if (d) {
          INFO("byte " << i << " bit " << bit);
          CHECK_FALSE(verifies(in.st, *gens, *d));
        }
      }
    }
  }
  SECTION("the kind byte of a range proof, the header's bits and d") {
    auto other = bytes;
    other[1] = static_cast<std::uint8_t>(ProofKind::kRange);
    CHECK_FALSE(BallProof::decode(other));
    BallProof p = *proof;
    p.bits = 16;
    CHECK_FALSE(verifies(in.st, *gens, p));
    BallStatement st = in.st;
    st.bits = 16;
    CHECK_FALSE(verifies(st, *gens, *proof));
  }
  SECTION("another radius") {
    for (std::uint64_t c : {std::uint64_t{4}, std::uint64_t{6}, std::uint64_t{100}}) {
      BallStatement st = in.st;
      st.radius = c;
      CHECK_FALSE(verifies(st, *gens, *proof));
    }
    BallStatement st = in.st;
    st.radius = 128;  // not supported at 8 bits
    Transcript t(kLabel);
    CHECK(verify_ball(t, *gens, st, *proof).status == VerifyStatus::kBadStatement);
  }
  SECTION("other commitments") {
    BallStatement st = in.st;
    std::swap(st.commitments[0], st.commitments[1]);
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments[1] += gens->G();
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments[0] += gens->H();
    CHECK_FALSE(verifies(st, *gens, *proof));
    st = in.st;
    st.commitments.push_back(st.commitments[0]);
    CHECK_FALSE(verifies(st, *gens, *proof));
  }
  SECTION("another transcript label, another proof spliced in") {
    Transcript t("gopa/ball test, another party");
    CHECK_FALSE(verify_ball(t, *gens, in.st, *proof).ok());
    Instance other = make_instance(bits, 5, signed_vector({1, 1}), *gens, rng);
    auto op = prove(other, *gens, rng);
    REQUIRE(op);
    const auto ob = op->encode();
    for (std::size_t cut : {std::size_t{5 + 32}, std::size_t{5 + 96}, bytes.size() - 32}) {
      auto spliced = bytes;
      std::copy(ob.begin() + static_cast<std::ptrdiff_t>(cut), ob.end(), spliced.begin() + static_cast<std::ptrdiff_t>(cut));
      auto d = BallProof::decode(spliced);
      if (d) CHECK_FALSE(verifies(in.st, *gens, *d));
    }
  }
}
