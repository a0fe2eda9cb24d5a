// Completeness of the compressed Σ-protocols over random statements, and the basic soundness
// checks (wrong witness, wrong public data) for each proof type.
#include <catch2/catch.hpp>

#include "gopa/msm.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/common.hpp"
#include "gopa/sigma/linear.hpp"
#include "gopa/sigma/range.hpp"
#include "gopa/sigma/field.hpp"
#include "poly.hpp"
#include "sigma_test_util.hpp"

using namespace gopa;
using namespace gopa::sigma;

TEST_CASE("fold_shape minimises 2·rounds + final_len", "[sigma]") {
  CHECK(fold_shape(1).rounds == 0);
  CHECK(fold_shape(2).final_len == 2);
  const FoldShape s = fold_shape(133);
  CHECK(s.padded() >= 133);
  CHECK(2 * s.rounds + s.final_len == 15);
  for (std::size_t n = 1; n < 3000; n += 7) {
    const FoldShape f = fold_shape(n);
    CHECK(f.padded() >= n);
    // AC20: 2⌈log2(n)⌉ − 1 points for the compressed part (+ A), never worse.
    std::size_t lg = 0;
    while ((std::size_t{1} << lg) < n) ++lg;
    CHECK(2 * f.rounds + f.final_len <= 2 * lg + 2);
  }
}

TEST_CASE("linear-form proofs: completeness, amortization, wrong values", "[sigma][linear]") {
  DeterministicRng rng(11);
  for (std::size_t n : {1U, 2U, 3U, 7U, 16U, 33U}) {
    auto gens = GeneratorSet::get("gopa/test", n);
    const std::size_t s = 1 + n % 3, nf = 1 + n % 2;
    LinearStatement st;
    st.n = n;
    std::vector<std::vector<SecretScalar>> xs;
    std::vector<SecretScalar> gammas;
    for (std::size_t j = 0; j < nf; ++j) {
      std::vector<Scalar> f;
      for (std::size_t i = 0; i < n; ++i) f.push_back(Scalar::random(rng));
      st.forms.push_back(f);
    }
    for (std::size_t k = 0; k < s; ++k) {
      std::vector<SecretScalar> x;
      for (std::size_t i = 0; i < n; ++i) x.push_back(SecretScalar::random(rng));
      gammas.push_back(SecretScalar::random(rng));
      st.commitments.push_back(commit_vector(x, gammas.back(), *gens));
      std::vector<Scalar> vals;
      for (const auto& f : st.forms) {
        Scalar y;
        for (std::size_t i = 0; i < n; ++i) y += f[i] * x[i].declassify();
        vals.push_back(y);
      }
      st.values.push_back(vals);
      xs.push_back(std::move(x));
    }
    Transcript tp("test");
    LinearProof proof = prove_linear(tp, *gens, st, xs, gammas, rng);
    {
      Transcript tv("test");
      VerifyResult r = verify_linear(tv, *gens, st, proof);
      INFO("n = " << n << ": " << r.message);
      CHECK(r.ok());
    }
    // Encoding round trip; size 2 + 32·(1 + 2R + k).
    const auto bytes = proof.encode();
    CHECK(bytes.size() == 2 + CompressedProof::encoded_size(fold_shape(n + 1)));
    auto back = LinearProof::decode(bytes, n);
    REQUIRE(back);
    CHECK(back->encode() == bytes);
    {
      Transcript tv("test");
      CHECK(verify_linear(tv, *gens, st, *back).ok());
    }
    // A wrong claimed value is rejected.
    LinearStatement bad = st;
    bad.values[0][0] += Scalar::one();
    Transcript tv2("test");
    CHECK(verify_linear(tv2, *gens, bad, proof).status == VerifyStatus::kFinalEquation);
    // Another application label is rejected.
    Transcript tv3("other");
    CHECK(!verify_linear(tv3, *gens, st, proof).ok());
  }
}

TEST_CASE("circuit proofs: builder, completeness, unsatisfied witness", "[sigma][circuit]") {
  DeterministicRng rng(12);
  auto gens = GeneratorSet::get("gopa/test", 256);
  for (int variant = 0; variant < 4; ++variant) {
    // x committed, y secret, out public: x·y + 3x − out = 0, x² = z, one linear constraint.
    const std::uint64_t xv = 5 + static_cast<std::uint64_t>(variant), yv = 7;
    auto build = [&](CircuitBuilder& b, bool cheat) {
      LinComb x = b.committed(SecretScalar::from_u64(xv));
      LinComb y = b.secret(SecretScalar::from_u64(cheat ? yv + 1 : yv));
      LinComb xy = b.mul(x, y);
      LinComb out = b.public_input(Scalar::from_u64(xv * yv + 3 * xv));
      b.assert_equal(xy + x * Scalar::from_u64(3), out);
      LinComb z = b.mul(x, x);
      LinComb acc = z;
      for (int i = 0; i < variant * 5; ++i) acc = b.mul(acc + Scalar::one(), y);
      b.bind_commitment(z);  // a second commitment: x²
    };
    CircuitBuilder pb(CircuitBuilder::kProver), vb(CircuitBuilder::kVerifier);
    build(pb, false);
    build(vb, false);
    REQUIRE(pb.circuit().hash() == vb.circuit().hash());
    const Circuit& c = vb.circuit();
    std::vector<SecretScalar> blind;
    blind.push_back(SecretScalar::random(rng));
    blind.push_back(SecretScalar::random(rng));
    std::vector<Point> coms{commit(SecretScalar::from_u64(xv), blind[0], *gens),
                            commit(SecretScalar::from_u64(xv * xv), blind[1], *gens)};
    Transcript tp("test");
    CircuitProof proof = prove_circuit(tp, *gens, c, pb.publics(), coms, pb.witness(), blind, rng);
    Transcript tv("test");
    VerifyResult r = verify_circuit(tv, *gens, c, vb.publics(), coms, proof);
    INFO(r.message);
    CHECK(r.ok());
    Transcript tn("test");
    CHECK(verify_circuit_naive(tn, *gens, c, vb.publics(), coms, proof));
    // Round trip.
    auto bytes = proof.encode();
    auto back = CircuitProof::decode(bytes, c);
    REQUIRE(back);
    CHECK(back->encode() == bytes);
    // Unsatisfied witness (y changed: the public-output constraint fails).
    CircuitBuilder cb(CircuitBuilder::kProver);
    build(cb, true);
    Transcript tp2("test");
    CircuitProof bad = prove_circuit(tp2, *gens, c, cb.publics(), coms, cb.witness(), blind, rng);
    Transcript tv2("test");
    CHECK(verify_circuit(tv2, *gens, c, vb.publics(), coms, bad).status ==
          VerifyStatus::kFinalEquation);
    // Wrong commitment.
    std::vector<Point> coms2 = coms;
    coms2[1] = commit(SecretScalar::from_u64(xv * xv + 1), blind[1], *gens);
    Transcript tv3("test");
    CHECK(!verify_circuit(tv3, *gens, c, vb.publics(), coms2, proof).ok());
    // Wrong public input.
    std::vector<Scalar> pubs(vb.publics().begin(), vb.publics().end());
    pubs[0] += Scalar::one();
    Transcript tv4("test");
    CHECK(!verify_circuit(tv4, *gens, c, pubs, coms, proof).ok());
  }
}

TEST_CASE("range proofs: completeness for every width, d values", "[sigma][range]") {
  DeterministicRng rng(13);
  for (unsigned bits : {8U, 16U, 32U, 64U}) {
    for (std::size_t d : {1U, 3U}) {
      auto gens = GeneratorSet::get("gopa/test", range_generators(bits, d));
      auto inst = test::make_range_instance(bits, d, rng, *gens);
      Transcript tp("test");
      auto proof = prove_range(tp, *gens, bits, inst.st.commitments, inst.values, inst.blinders, rng);
      REQUIRE(proof);
      const auto bytes = proof->encode();
      CHECK(bytes.size() == RangeProof::encoded_size(bits, d));
      if (bits == 64 && d == 1) CHECK(bytes.size() <= 640);
      Transcript tv("test");
      VerifyResult r = verify_range(tv, *gens, inst.st, *proof);
      INFO(bits << "x" << d << ": " << r.message);
      CHECK(r.ok());
      Transcript tn("test");
      CHECK(verify_range_naive(tn, *gens, inst.st, *proof));
      auto back = RangeProof::decode(bytes);
      REQUIRE(back);
      CHECK(back->encode() == bytes);
    }
  }
}

TEST_CASE("range proofs: boundary values and out-of-range refusal", "[sigma][range]") {
  DeterministicRng rng(14);
  auto gens = GeneratorSet::get("gopa/test", range_generators(64, 4));
  for (unsigned bits : {8U, 16U, 32U, 64U}) {
    const std::uint64_t top = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    std::vector<SecretScalar> v, r;
    std::vector<Point> coms;
    for (std::uint64_t x : {std::uint64_t{0}, top}) {
      v.push_back(SecretScalar::from_u64(x));
      r.push_back(SecretScalar::random(rng));
      coms.push_back(commit(v.back(), r.back(), *gens));
    }
    Transcript tp("test");
    auto proof = prove_range(tp, *gens, bits, coms, v, r, rng);
    REQUIRE(proof);
    Transcript tv("test");
    CHECK(verify_range(tv, *gens, {bits, coms}, *proof).ok());
    // 2^bits is refused by the prover.
    std::vector<SecretScalar> over;
    over.push_back(bits == 64 ? SecretScalar(Scalar::from_u64(top) + Scalar::one())
                              : SecretScalar::from_u64(top + 1));
    Transcript tp2("test");
    CHECK(!prove_range(tp2, *gens, bits, {&coms[0], 1}, over, {&r[0], 1}, rng));
  }
}

TEST_CASE("range proofs: an out-of-range witness forced through the circuit is rejected",
          "[sigma][range]") {
  DeterministicRng rng(15);
  auto gens = GeneratorSet::get("gopa/test", range_generators(8, 1));
  // v = 256 does not fit 8 bits: the prover uses its low bits (0) or a non-bit value.
  const SecretScalar v = SecretScalar::from_u64(256), r = SecretScalar::random(rng);
  const Point V = commit(v, r, *gens);
  const auto c = range_circuit(8, 1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<SecretScalar> w;
    for (int i = 0; i < 8; ++i) w.push_back(SecretScalar::from_u64(0));
    if (attempt == 1) w[7] = SecretScalar::from_u64(2);  // 2·2^7 = 256 but "bit" = 2
    Transcript tp("test");
    tp.domain_separator("gopa/sigma/range v1");
    tp.append_u64("bits", 8);
    tp.append_u64("d", 1);
    std::vector<SecretScalar> bl;
    bl.push_back(r.clone());
    RangeProof proof{8, 1, prove_circuit(tp, *gens, *c, {}, {&V, 1}, w, bl, rng)};
    Transcript tv("test");
    CHECK(verify_range(tv, *gens, {8, {V}}, proof).status == VerifyStatus::kFinalEquation);
  }
}

TEST_CASE("batch verification: valid batch, one bad proof, mixed widths", "[sigma][batch]") {
  DeterministicRng rng(16);
  auto gens = GeneratorSet::get("gopa/test", range_generators(64, 2));
  std::vector<RangeStatement> sts;
  std::vector<RangeProof> proofs;
  for (int i = 0; i < 6; ++i) {
    const unsigned bits = i % 2 ? 64U : 16U;
    const std::size_t d = 1 + static_cast<std::size_t>(i % 3 == 0);
    auto inst = test::make_range_instance(bits, d, rng, *gens);
    Transcript tp("batch");
    auto p = prove_range(tp, *gens, bits, inst.st.commitments, inst.values, inst.blinders, rng);
    REQUIRE(p);
    sts.push_back(inst.st);
    proofs.push_back(std::move(*p));
  }
  auto fresh = [&] {
    std::vector<Transcript> ts;
    for (std::size_t i = 0; i < proofs.size(); ++i) ts.emplace_back("batch");
    return ts;
  };
  auto ts = fresh();
  CHECK(batch_verify_range(ts, *gens, sts, proofs, rng).ok());
  // Swap two commitments between statements: the batch must fail.
  auto sts2 = sts;
  std::swap(sts2[1].commitments[0], sts2[3].commitments[0]);
  auto ts2 = fresh();
  CHECK(batch_verify_range(ts2, *gens, sts2, proofs, rng).status == VerifyStatus::kBatchEquation);
  // One proof with a changed final scalar.
  auto proofs2 = proofs;
  proofs2[2].body.inner.final[0] += Scalar::one();
  auto ts3 = fresh();
  CHECK(!batch_verify_range(ts3, *gens, sts, proofs2, rng).ok());
}

TEST_CASE("MsmTerms: terms gathered apart and merged are the equation gathered at once", "[sigma][batch]") {
  DeterministicRng rng(77);
  auto gens = GeneratorSet::get("gopa", 8);
  // Σ a_i·G_i + b·G + c·H + e·Q + f·P − (that point) = 0, split over two MsmTerms with weights.
  std::vector<Scalar> a(8);
  for (auto& x : a) x = Scalar::random(rng);
  const Scalar b = Scalar::random(rng), c = Scalar::random(rng), e = Scalar::random(rng), f = Scalar::random(rng);
  const Point p = Point::base_mul(SecretScalar::random(rng));
  Point total = gens->G() * b + gens->H() * c + gens->Q() * e + p * f;
  for (std::size_t i = 0; i < 8; ++i) total += gens->Gi()[i] * a[i];
  const Scalar w1 = Scalar::random_nonzero(rng), w2 = Scalar::random_nonzero(rng);
  auto fill = [&](MsmTerms& first, MsmTerms& second, const Scalar& w) {
    first.set_weight(w);
    second.set_weight(w);
    for (std::size_t i = 0; i < 8; ++i) (i % 2 == 0 ? first : second).add_gi(i, a[i]);
    first.add_g(b);
    second.add_h(c);
    first.add_q(e);
    second.add(f, p);
    first.add(-Scalar::one(), total);
  };
  MsmTerms one, x, y;
  fill(one, one, w1);
  fill(x, y, w1);
  MsmTerms x2, y2;
  fill(x2, y2, w2);
  CHECK(one.is_identity(*gens));
  CHECK_FALSE(x.is_identity(*gens));  // half an equation
  x.merge(y);
  CHECK(x.is_identity(*gens));
  x.merge(x2);  // a second weighted equation, itself split
  CHECK_FALSE(x.is_identity(*gens));
  x.merge(y2);
  CHECK(x.is_identity(*gens));
  // A merged empty equation changes nothing; merging into an empty one copies.
  MsmTerms empty, copy;
  x.merge(empty);
  CHECK(x.is_identity(*gens));
  copy.merge(one);
  CHECK(copy.is_identity(*gens));
  copy.add_gi(3, Scalar::one());
  CHECK_FALSE(copy.is_identity(*gens));
}

TEST_CASE("MsmTerms over large statements: the shared generator tables, grown and reused", "[sigma][batch]") {
  // Statements above 4,093 generators share one basis per set (G, H, Q first, then the G_i),
  // grown when a larger statement comes: every size is checked against an independent MSM, in
  // the order small → large → small, and with one coefficient off.
  DeterministicRng rng(78);
  auto gens = GeneratorSet::get("gopa-tables-test", 9000);
  for (std::size_t k : {5000U, 9000U, 4500U, 4093U, 4094U}) {
    INFO("k = " << k);
    std::vector<Scalar> a(k);
    for (auto& x : a) x = Scalar::random(rng);
    const Scalar b = Scalar::random(rng), c = Scalar::random(rng), e = Scalar::random(rng);
    std::vector<Scalar> sc(a);
    std::vector<Point> pts(gens->Gi(k).begin(), gens->Gi(k).end());
    sc.insert(sc.end(), {b, c, e});
    pts.insert(pts.end(), {gens->G(), gens->H(), gens->Q()});
    const Point total = msm(sc, pts);
    MsmTerms eq, off;
    for (MsmTerms* t : {&eq, &off}) {
      for (std::size_t i = 0; i < k; ++i) t->add_gi(i, a[i]);
      t->add_g(b);
      t->add_h(c);
      t->add_q(e);
      t->add(-Scalar::one(), total);
    }
    off.add_gi(k - 1, Scalar::one());
    CHECK(eq.is_identity(*gens));
    CHECK_FALSE(off.is_identity(*gens));
  }
}

TEST_CASE("internal: Montgomery field and polynomial extrapolation", "[sigma][poly]") {
  DeterministicRng rng(17);
  for (int i = 0; i < 2000; ++i) {
    const Scalar a = Scalar::random(rng), b = Scalar::random(rng);
    const auto fa = field::of(a), fb = field::of(b);
    CHECK(field::to_scalar(field::mul(fa, fb)) == a * b);
    CHECK(field::to_scalar(field::add(fa, fb)) == a + b);
    CHECK(field::to_scalar(field::sub(fa, fb)) == a - b);
  }
  const Scalar minus_one = -Scalar::one();
  CHECK(field::to_scalar(field::mul(field::of(minus_one), field::of(minus_one))) == Scalar::one());
  CHECK(field::to_scalar(field::add(field::of(minus_one), field::of(Scalar::one()))).is_zero());
  for (int i = 0; i < 20; ++i) {
    const Scalar a = Scalar::random_nonzero(rng);
    CHECK(field::to_scalar(field::invert(field::of(a))) == *a.invert());
  }
  CHECK(field::to_scalar(field::from_u64(12345)) == Scalar::from_u64(12345));
  // Extrapolation of random polynomials of degree m, against direct evaluation.
  for (std::size_t m : {1U, 2U, 5U, 17U, 31U, 32U, 33U, 64U, 100U, 127U, 128U, 129U, 257U, 600U, 1025U}) {
    std::vector<Scalar> coeff;
    for (std::size_t i = 0; i <= m; ++i) coeff.push_back(Scalar::random(rng));
    auto eval = [&](std::uint64_t x) {
      Scalar acc;
      for (std::size_t i = coeff.size(); i-- > 0;) acc = acc * Scalar::from_u64(x) + coeff[i];
      return acc;
    };
    std::vector<SecretScalar> vals;
    for (std::size_t j = 0; j <= m; ++j) vals.push_back(SecretScalar(eval(j)));
    const auto ext = poly::extrapolate(vals);
    REQUIRE(ext.size() == m);
    for (std::size_t i = 0; i < m; ++i) CHECK(ext[i].declassify() == eval(m + 1 + i));
    const Scalar c = Scalar::random(rng);
    const auto lam = poly::lagrange_at(c, m);
    Scalar at_c;
    for (std::size_t j = 0; j <= m; ++j) at_c += field::to_scalar(lam[j]) * vals[j].declassify();
    CHECK(at_c == [&] {
      Scalar acc;
      for (std::size_t i = coeff.size(); i-- > 0;) acc = acc * c + coeff[i];
      return acc;
    }());
    // Both degrees at once (the circuit verifier's pair): the degree-m weights over 0..m and the
    // degree-2m weights over 0..2m, against evaluation of p and of p² + p at c; at a node j the
    // weights are the unit vector e_j.
    if (m > 129) continue;  // O(m²) reference evaluation
    for (const Scalar& x : {c, Scalar::from_u64(0), Scalar::from_u64(m), Scalar::from_u64(2 * m)}) {
      std::vector<field::Fe> lo, hi;
      poly::lagrange_pair(x, m, 2 * m, lo, hi);
      REQUIRE(lo.size() == m + 1);
      REQUIRE(hi.size() == 2 * m + 1);
      auto poly_at = [&](const Scalar& z) {
        Scalar acc;
        for (std::size_t i = coeff.size(); i-- > 0;) acc = acc * z + coeff[i];
        return acc;
      };
      Scalar lo_at, hi_at;
      for (std::size_t j = 0; j <= m; ++j) lo_at += field::to_scalar(lo[j]) * poly_at(Scalar::from_u64(j));
      for (std::size_t j = 0; j <= 2 * m; ++j) {
        const Scalar pj = poly_at(Scalar::from_u64(j));
        hi_at += field::to_scalar(hi[j]) * (pj * pj + pj);
      }
      const Scalar px = poly_at(x);
      CHECK(lo_at == px);
      CHECK(hi_at == px * px + px);
    }
  }
}
