// Batches of circuit instances (docs/proofs.md §4.5): s instances of one circuit proven with
// shared challenges and one amortized pivot. Completeness on any thread count (the same bytes),
// the tamper matrix, instances swapped, dropped or spliced, and a malicious prover whose instance
// 0 is false under every deviation — all rejected.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "sigma_test_util.hpp"

using namespace gopa;
using namespace gopa::sigma;
using testing::Along;
using testing::Deviation;
using testing::ScopedDeviation;

namespace {

const char* const kLabel = "gopa/circuit-batch test";

// Instance k: x committed (V_0), y secret, out = x·y + 3x public, z = x² committed (V_1), and a
// chain of `extra` more gates. `cheat` makes y one larger than the claimed out allows.
void build(CircuitBuilder& b, std::uint64_t xv, std::uint64_t yv, int extra, bool cheat) {
  LinComb x = b.committed(SecretScalar::from_u64(xv));
  LinComb y = b.secret(SecretScalar::from_u64(cheat ? yv + 1 : yv));
  LinComb out = b.public_input(Scalar::from_u64(xv * yv + 3 * xv));
  b.assert_equal(b.mul(x, y) + x * Scalar::from_u64(3), out);
  LinComb z = b.mul(x, x);
  LinComb acc = z;
  for (int i = 0; i < extra; ++i) acc = b.mul(acc + Scalar::one(), y);
  b.bind_commitment(z);
}

struct Batch {
  Circuit circuit;
  std::vector<std::vector<Scalar>> publics;
  std::vector<std::vector<Point>> coms;
  std::vector<std::vector<SecretScalar>> witness, blinders;

  [[nodiscard]] WitnessSource source() const {
    return [this](std::size_t k, std::vector<SecretScalar>& w, std::vector<SecretScalar>& bl) {
      for (const auto& v : witness[k]) w.push_back(v.clone());
      for (const auto& v : blinders[k]) bl.push_back(v.clone());
    };
  }
};

// s instances; instance `bad` (if < s) has a witness that fails the output constraint.
Batch make_batch(std::size_t s, int extra, const GeneratorSet& gens, Rng& rng, std::size_t bad = SIZE_MAX) {
  Batch b;
  CircuitBuilder vb(CircuitBuilder::kVerifier);
  build(vb, 0, 0, extra, false);
  b.circuit = vb.circuit();
  for (std::size_t k = 0; k < s; ++k) {
    const std::uint64_t xv = 5 + k, yv = 7 + 2 * k;
    CircuitBuilder pb(CircuitBuilder::kProver);
    build(pb, xv, yv, extra, k == bad);
    REQUIRE(pb.circuit().hash() == b.circuit.hash());
    b.publics.emplace_back(pb.publics().begin(), pb.publics().end());
    std::vector<SecretScalar> w;
    for (const auto& v : pb.witness()) w.push_back(v.clone());
    b.witness.push_back(std::move(w));
    std::vector<SecretScalar> bl;
    bl.push_back(SecretScalar::random(rng));
    bl.push_back(SecretScalar::random(rng));
    b.coms.push_back({commit(SecretScalar::from_u64(xv), bl[0], gens), commit(SecretScalar::from_u64(xv * xv), bl[1], gens)});
    b.blinders.push_back(std::move(bl));
  }
  return b;
}

CircuitBatchProof prove(const Batch& b, const GeneratorSet& gens, Rng& rng, unsigned threads = 1) {
  Transcript t(kLabel);
  return prove_circuit_batch(t, gens, b.circuit, b.publics, b.coms, b.source(), rng, threads);
}

bool verifies(const Batch& b, const GeneratorSet& gens, const CircuitBatchProof& p) {
  Transcript t(kLabel);
  return verify_circuit_batch(t, gens, b.circuit, b.publics, b.coms, p).ok();
}

test::Bytes encode(const CircuitBatchProof& p) {
  test::Bytes out;
  p.encode_body(out);
  return out;
}

}  // namespace

TEST_CASE("circuit batches: completeness for 1, 2 and 5 instances, the same bytes on any thread count",
          "[sigma][circuit][batch-proof][tsan]") {
  DeterministicRng rng(101);
  auto gens = GeneratorSet::get("gopa/test", 256);
  for (std::size_t s : {std::size_t{1}, std::size_t{2}, std::size_t{5}}) {
    for (int extra : {0, 6}) {
      INFO("s = " << s << ", extra gates " << extra);
      const Batch b = make_batch(s, extra, *gens, rng);
      std::vector<test::Bytes> bytes;
      for (unsigned threads : {1U, 2U, 3U}) {
        DeterministicRng r(7 + s);
        const CircuitBatchProof p = prove(b, *gens, r, threads);
        CHECK(verifies(b, *gens, p));
        bytes.push_back(encode(p));
      }
      CHECK(bytes[0] == bytes[1]);
      CHECK(bytes[0] == bytes[2]);
      CHECK(bytes[0].size() == CircuitBatchProof::body_size(b.circuit, s));
      // Round trip; the body is exactly sized for s instances.
      auto back = CircuitBatchProof::decode_body(bytes[0], b.circuit, s);
      REQUIRE(back);
      CHECK(encode(*back) == bytes[0]);
      CHECK(verifies(b, *gens, *back));
      CHECK_FALSE(CircuitBatchProof::decode_body(bytes[0], b.circuit, s + 1));
      if (s > 1) CHECK_FALSE(CircuitBatchProof::decode_body(bytes[0], b.circuit, s - 1));
      CHECK_FALSE(CircuitBatchProof::decode_body(bytes[0], b.circuit, 0));
      // Batched with a second proof under weights, as an auditor checks many.
      const Batch b2 = make_batch(s, extra, *gens, rng);
      const CircuitBatchProof p2 = prove(b2, *gens, rng);
      MsmTerms eq;
      eq.set_weight(Scalar::from_u64(3));
      Transcript t1(kLabel), t2(kLabel);
      REQUIRE(add_circuit_batch_terms(t1, *gens, b.circuit, b.publics, b.coms, *back, eq).ok());
      eq.set_weight(Scalar::from_u64(11));
      REQUIRE(add_circuit_batch_terms(t2, *gens, b2.circuit, b2.publics, b2.coms, p2, eq).ok());
      CHECK(batch_verdict(eq, *gens).ok());
    }
  }
}

TEST_CASE("circuit batches: a false instance, another statement, instances swapped, dropped or spliced are rejected",
          "[sigma][circuit][batch-proof]") {
  DeterministicRng rng(103);
  auto gens = GeneratorSet::get("gopa/test", 256);
  const std::size_t s = 4;
  const Batch b = make_batch(s, 3, *gens, rng);
  const CircuitBatchProof good = prove(b, *gens, rng);
  REQUIRE(verifies(b, *gens, good));
  SECTION("one instance's witness fails a constraint (each position)") {
    for (std::size_t bad = 0; bad < s; ++bad) {
      INFO("false instance " << bad);
      const Batch f = make_batch(s, 3, *gens, rng, bad);
      Transcript tv(kLabel);
      CHECK(verify_circuit_batch(tv, *gens, f.circuit, f.publics, f.coms, prove(f, *gens, rng)).status ==
            VerifyStatus::kFinalEquation);
    }
  }
  SECTION("a public input or a commitment of one instance changed") {
    for (std::size_t k = 0; k < s; ++k) {
      Batch c = make_batch(s, 3, *gens, rng);
      const CircuitBatchProof p = prove(c, *gens, rng);
      REQUIRE(verifies(c, *gens, p));
      c.publics[k][0] += Scalar::one();
      CHECK_FALSE(verifies(c, *gens, p));
      c.publics[k][0] -= Scalar::one();
      c.coms[k][1] += gens->G();
      CHECK_FALSE(verifies(c, *gens, p));
    }
  }
  SECTION("two instances swapped in the proof, in the statement, or in both") {
    CircuitBatchProof p = good;
    std::swap(p.p[0], p.p[2]);
    std::swap(p.fa[0], p.fa[2]);
    std::swap(p.gb[0], p.gb[2]);
    CHECK_FALSE(verifies(b, *gens, p));
    Batch c = make_batch(s, 3, *gens, rng);
    const CircuitBatchProof q = prove(c, *gens, rng);
    std::swap(c.publics[1], c.publics[3]);
    std::swap(c.coms[1], c.coms[3]);
    CHECK_FALSE(verifies(c, *gens, q));
    CircuitBatchProof q2 = q;
    std::swap(q2.p[1], q2.p[3]);
    std::swap(q2.fa[1], q2.fa[3]);
    std::swap(q2.gb[1], q2.gb[3]);
    CHECK_FALSE(verifies(c, *gens, q2));
  }
  SECTION("an instance dropped from the proof and the statement") {
    for (std::size_t k = 0; k < s; ++k) {
      Batch c = make_batch(s, 3, *gens, rng);
      CircuitBatchProof p = prove(c, *gens, rng);
      const auto at = static_cast<std::ptrdiff_t>(k);
      c.publics.erase(c.publics.begin() + at);
      c.coms.erase(c.coms.begin() + at);
      CHECK_FALSE(verifies(c, *gens, p));  // instance counts differ
      p.p.erase(p.p.begin() + at);
      p.fa.erase(p.fa.begin() + at);
      p.gb.erase(p.gb.begin() + at);
      CHECK_FALSE(verifies(c, *gens, p));
    }
  }
  SECTION("an instance's part, or the compressed proof, from a second honest proof of the same statement") {
    const CircuitBatchProof other = prove(b, *gens, rng);
    REQUIRE(verifies(b, *gens, other));
    for (std::size_t k = 0; k < s; ++k) {
      CircuitBatchProof p = good;
      p.p[k] = other.p[k];
      p.fa[k] = other.fa[k];
      p.gb[k] = other.gb[k];
      CHECK_FALSE(verifies(b, *gens, p));
    }
    CircuitBatchProof p = good;
    p.inner = other.inner;
    CHECK_FALSE(verifies(b, *gens, p));
  }
  SECTION("a batch of one verified as the single-circuit proof, and the other way round") {
    const Batch one = make_batch(1, 3, *gens, rng);
    const CircuitBatchProof bp = prove(one, *gens, rng);
    REQUIRE(verifies(one, *gens, bp));
    CircuitProof cp{bp.p[0], bp.fa[0], bp.gb[0], bp.inner};
    Transcript t(kLabel);
    CHECK_FALSE(verify_circuit(t, *gens, one.circuit, one.publics[0], one.coms[0], cp).ok());
    Transcript tp(kLabel);
    const CircuitProof single =
        prove_circuit(tp, *gens, one.circuit, one.publics[0], one.coms[0], one.witness[0], one.blinders[0], rng);
    CircuitBatchProof as_batch;
    as_batch.p = {single.p};
    as_batch.fa = {single.fa};
    as_batch.gb = {single.gb};
    as_batch.inner = single.inner;
    CHECK_FALSE(verifies(one, *gens, as_batch));
  }
}

TEST_CASE("tamper matrix: circuit batch, exhaustive", "[sigma][tamper][batch-proof]") {
  DeterministicRng rng(107);
  auto gens = GeneratorSet::get("gopa/test", 64);
  const Batch b = make_batch(2, 1, *gens, rng);
  const test::Bytes good = encode(prove(b, *gens, rng)), other = encode(prove(b, *gens, rng));
  const test::Accepts accepts = [&](const test::Bytes& bytes) {
    auto p = CircuitBatchProof::decode_body(bytes, b.circuit, 2);
    return p.has_value() && verifies(b, *gens, *p);
  };
  REQUIRE(accepts(good));
  test::truncations_rejected(good, accepts);
  test::bit_flips_rejected(good, accepts, 1);
  test::splices_rejected(good, other, 0, accepts);
}

TEST_CASE("circuit batches: a false instance 0 is rejected under every deviation of the prover",
          "[sigma][malicious][batch-proof]") {
  DeterministicRng rng(109);
  auto gens = GeneratorSet::get("gopa/test", 64);
  const std::size_t s = 3;
  const Batch honest = make_batch(s, 2, *gens, rng);
  // Instance 0's witness fails the output constraint; instances 1 and 2 are true.
  const Batch f = make_batch(s, 2, *gens, rng, 0);
  auto rejected = [&](const Batch& st, const Deviation& dev) {
    CircuitBatchProof p;
    {
      ScopedDeviation scope(dev);
      p = prove(st, *gens, rng, 2);
    }
    auto back = CircuitBatchProof::decode_body(encode(p), st.circuit, s);
    if (!back) return true;
    Transcript t(kLabel);
    if (verify_circuit_batch(t, *gens, st.circuit, st.publics, st.coms, *back).ok()) return false;
    // In a batch with an honest proof.
    MsmTerms eq;
    Transcript t1(kLabel), t2(kLabel);
    eq.set_weight(Scalar::from_u64(5));
    REQUIRE(add_circuit_batch_terms(t1, *gens, st.circuit, st.publics, st.coms, *back, eq).ok());
    eq.set_weight(Scalar::from_u64(9));
    REQUIRE(add_circuit_batch_terms(t2, *gens, honest.circuit, honest.publics, honest.coms, prove(honest, *gens, rng),
                                    eq).ok());
    return !batch_verdict(eq, *gens).ok();
  };
  std::vector<testing::Offset> offs{{Along::kG, 0, Scalar::from_u64(3)}, {Along::kH, 0, Scalar::from_u64(3)},
                                    {Along::kQ, 0, Scalar::from_u64(3)}, {Along::kG, 0, Scalar::zero()}};
  for (std::size_t i = 0; i < f.circuit.generators_needed(); ++i)
    offs.push_back({Along::kGi, i, -Scalar::from_u64(7)});
  for (const auto& o : offs) {
    INFO("offset along " << test::along_name(o.along) << " " << o.index);
    Deviation dev;
    dev.wire_offsets.push_back(o);
    CHECK(rejected(f, dev));
  }
  SECTION("evaluations, mask commitment, responses replaced; nonces reused") {
    for (int which = 0; which < 5; ++which) {
      INFO("deviation " << which);
      Deviation dev;
      if (which == 0) dev.on_evaluations = [](Scalar& fa, Scalar&) { fa += Scalar::one(); };
      if (which == 1) dev.on_evaluations = [](Scalar&, Scalar& gb) { gb -= Scalar::one(); };
      if (which == 2) dev.on_mask_commitment = [&gens](Point& a) { a += gens->Q(); };
      if (which == 3) dev.on_responses = [](CompressedProof& p) { p.final[0] += Scalar::one(); };
      if (which == 4) dev.reuse_nonces = true;
      CHECK(rejected(f, dev));
    }
  }
  SECTION("the binding forgery: instance 0's witness opens another value than V_0 holds") {
    // Instance 0's witness is honest for x = 6 (out = 6·7 + 18, z = 36) but V_0 commits to 5; the
    // offset along G is the gap k_0(w) − v_0 that weights starting at 1 would have let through
    // (docs/proofs.md §4.4).
    Batch g = make_batch(s, 2, *gens, rng);
    CircuitBuilder pb(CircuitBuilder::kProver);
    build(pb, 6, 7, 2, false);
    g.publics[0].assign(pb.publics().begin(), pb.publics().end());
    g.witness[0].clear();
    for (const auto& v : pb.witness()) g.witness[0].push_back(v.clone());
    g.coms[0] = {commit(SecretScalar::from_u64(5), g.blinders[0][0], *gens),
                 commit(SecretScalar::from_u64(36), g.blinders[0][1], *gens)};
    for (const Scalar& gap : {Scalar::one(), -Scalar::one(), Scalar::zero()}) {
      Deviation dev;
      dev.wire_offsets.push_back({Along::kG, 0, gap});
      CHECK(rejected(g, dev));
    }
    // And the statement the witness does open (V_0 to 6) verifies: the forgery is the only defect.
    g.coms[0][0] = commit(SecretScalar::from_u64(6), g.blinders[0][0], *gens);
    CHECK(verifies(g, *gens, prove(g, *gens, rng)));
  }
}
