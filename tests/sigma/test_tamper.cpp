// Tamper matrix (STYLE.md practice 7): every way of damaging a proof or its statement must be
// rejected. Exhaustive on small proofs (every truncation, every bit of every byte), sampled on
// large ones.
#include <catch2/catch.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/linear.hpp"
#include "gopa/sigma/range.hpp"
#include "sigma_test_util.hpp"

using namespace gopa;
using namespace gopa::sigma;

using test::Accepts;
using test::Bytes;
using test::bit_flips_rejected;
using test::splices_rejected;
using test::truncations_rejected;

TEST_CASE("tamper matrix: range proof, 8 bits, exhaustive", "[sigma][tamper]") {
  DeterministicRng rng(21);
  auto gens = GeneratorSet::get("gopa/test", range_generators(8, 1));
  auto inst = test::make_range_instance(8, 1, rng, *gens);
  auto prove = [&] {
    Transcript t("tamper");
    return prove_range(t, *gens, 8, inst.st.commitments, inst.values, inst.blinders, rng)->encode();
  };
  const Bytes good = prove(), other = prove();
  REQUIRE(good != other);
  Accepts accepts = [&](const Bytes& b) {
    auto p = RangeProof::decode(b);
    if (!p) return false;
    Transcript t("tamper");
    return verify_range(t, *gens, inst.st, *p).ok();
  };
  REQUIRE(accepts(good));
  REQUIRE(accepts(other));
  truncations_rejected(good, accepts);
  bit_flips_rejected(good, accepts, 1);
  splices_rejected(good, other, 5, accepts);

  SECTION("changed label, commitment, width") {
    auto p = RangeProof::decode(good);
    REQUIRE(p);
    Transcript t1("other label");
    CHECK(verify_range(t1, *gens, inst.st, *p).status == VerifyStatus::kFinalEquation);
    RangeStatement st2 = inst.st;
    st2.commitments[0] += gens->H();
    Transcript t2("tamper");
    CHECK(!verify_range(t2, *gens, st2, *p).ok());
    RangeStatement st3 = inst.st;
    st3.bits = 16;
    Transcript t3("tamper");
    CHECK(verify_range(t3, *gens, st3, *p).status == VerifyStatus::kParameterMismatch);
    // A proof of another value (same width) does not verify for this commitment.
    auto inst2 = test::make_range_instance(8, 1, rng, *gens);
    Transcript t4("tamper");
    CHECK(!verify_range(t4, *gens, inst2.st, *p).ok());
  }
}

TEST_CASE("tamper matrix: range proof, 64 bits × 4 values, sampled", "[sigma][tamper]") {
  DeterministicRng rng(22);
  auto gens = GeneratorSet::get("gopa/test", range_generators(64, 4));
  auto inst = test::make_range_instance(64, 4, rng, *gens);
  auto prove = [&] {
    Transcript t("tamper");
    return prove_range(t, *gens, 64, inst.st.commitments, inst.values, inst.blinders, rng)->encode();
  };
  const Bytes good = prove(), other = prove();
  Accepts accepts = [&](const Bytes& b) {
    auto p = RangeProof::decode(b);
    if (!p) return false;
    Transcript t("tamper");
    return verify_range(t, *gens, inst.st, *p).ok();
  };
  REQUIRE(accepts(good));
  for (std::size_t len = 0; len < good.size(); ++len) CHECK(!RangeProof::decode(
      Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len))));
  bit_flips_rejected(good, accepts, 61);
  splices_rejected(good, other, 5, accepts);
  // Every commitment of the statement matters.
  for (std::size_t j = 0; j < 4; ++j) {
    RangeStatement st2 = inst.st;
    st2.commitments[j] = inst.st.commitments[(j + 1) % 4];
    auto p = RangeProof::decode(good);
    Transcript t("tamper");
    CHECK(!verify_range(t, *gens, st2, *p).ok());
  }
}

TEST_CASE("tamper matrix: circuit proof, exhaustive, and a wrong circuit", "[sigma][tamper]") {
  DeterministicRng rng(23);
  auto gens = GeneratorSet::get("gopa/test", 64);
  auto build = [](CircuitBuilder& b, std::uint64_t k) {
    LinComb x = b.committed(SecretScalar::from_u64(3));
    LinComb y = b.secret(SecretScalar::from_u64(4));
    LinComb p = b.mul(x, y);
    LinComb q = b.mul(p, p + Scalar::from_u64(k));
    b.assert_equal(q, b.public_input(Scalar::from_u64(12 * (12 + k))));
  };
  CircuitBuilder pb(CircuitBuilder::kProver), vb(CircuitBuilder::kVerifier),
      wrong(CircuitBuilder::kVerifier);
  build(pb, 1);
  build(vb, 1);
  build(wrong, 2);
  const SecretScalar r = SecretScalar::random(rng);
  const std::vector<Point> coms{commit(SecretScalar::from_u64(3), r, *gens)};
  std::vector<SecretScalar> bl;
  bl.push_back(r.clone());
  auto prove = [&] {
    Transcript t("tamper");
    return prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng).encode();
  };
  const Bytes good = prove(), other = prove();
  Accepts accepts = [&](const Bytes& b) {
    auto p = CircuitProof::decode(b, vb.circuit());
    if (!p) return false;
    Transcript t("tamper");
    return verify_circuit(t, *gens, vb.circuit(), vb.publics(), coms, *p).ok();
  };
  REQUIRE(accepts(good));
  truncations_rejected(good, accepts);
  bit_flips_rejected(good, accepts, 1);
  splices_rejected(good, other, 2, accepts);
  // Wrong circuit (another constant, same shape): different hash, rejected.
  REQUIRE(wrong.circuit().hash() != vb.circuit().hash());
  auto p = CircuitProof::decode(good, wrong.circuit());
  REQUIRE(p);
  std::vector<Scalar> pubs(vb.publics().begin(), vb.publics().end());
  Transcript t("tamper");
  CHECK(!verify_circuit(t, *gens, wrong.circuit(), pubs, coms, *p).ok());
  // Wrong kind byte.
  Bytes k = good;
  k[1] = static_cast<std::uint8_t>(ProofKind::kRange);
  CHECK(!accepts(k));
}

TEST_CASE("tamper matrix: linear-form proof, exhaustive", "[sigma][tamper]") {
  DeterministicRng rng(24);
  auto gens = GeneratorSet::get("gopa/test", 5);
  LinearStatement st;
  st.n = 5;
  std::vector<std::vector<SecretScalar>> xs(2);
  std::vector<SecretScalar> gam;
  std::vector<Scalar> form;
  for (int i = 0; i < 5; ++i) form.push_back(Scalar::from_u64(static_cast<std::uint64_t>(i + 1)));
  st.forms.push_back(form);
  for (int k = 0; k < 2; ++k) {
    Scalar y;
    for (int i = 0; i < 5; ++i) {
      xs[static_cast<std::size_t>(k)].push_back(SecretScalar::random(rng));
      y += form[static_cast<std::size_t>(i)] * xs[static_cast<std::size_t>(k)].back().declassify();
    }
    gam.push_back(SecretScalar::random(rng));
    st.commitments.push_back(commit_vector(xs[static_cast<std::size_t>(k)], gam.back(), *gens));
    st.values.push_back({y});
  }
  auto prove = [&] {
    Transcript t("tamper");
    return prove_linear(t, *gens, st, xs, gam, rng).encode();
  };
  const Bytes good = prove(), other = prove();
  Accepts accepts = [&](const Bytes& b) {
    auto p = LinearProof::decode(b, st.n);
    if (!p) return false;
    Transcript t("tamper");
    return verify_linear(t, *gens, st, *p).ok();
  };
  REQUIRE(accepts(good));
  truncations_rejected(good, accepts);
  bit_flips_rejected(good, accepts, 1);
  splices_rejected(good, other, 2, accepts);
  // Swapping the two commitments (values stay) is rejected.
  LinearStatement sw = st;
  std::swap(sw.commitments[0], sw.commitments[1]);
  auto p = LinearProof::decode(good, st.n);
  Transcript t("tamper");
  CHECK(!verify_linear(t, *gens, sw, *p).ok());
}
