// Differential tests of the prover and verifier fast paths against straightforward
// computations: lazy field sums, the strided (folding) MSM, MSM bases with sparse scalars,
// extra terms and wide Straus tables, constant-time MSM tables, and the folded-generator
// prover against proofs of the prover that recomputed every cross term over the original
// generators.
#include <catch2/catch.hpp>

#include <sodium.h>

#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/field.hpp"
#include "gopa/sigma/range.hpp"

using namespace gopa;
using namespace gopa::sigma;

namespace {

std::vector<Point> random_points(std::size_t n, Rng& rng) {
  std::vector<Point> p;
  for (std::size_t i = 0; i < n; ++i) p.push_back(Point::random(rng));
  return p;
}

std::vector<Scalar> random_scalars(std::size_t n, Rng& rng) {
  std::vector<Scalar> s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(Scalar::random(rng));
  return s;
}

std::string proof_digest(const std::vector<std::uint8_t>& bytes) {
  unsigned char out[16];
  crypto_generichash(out, sizeof out, bytes.data(), bytes.size(), nullptr, 0);
  return to_hex(std::span<const std::uint8_t>(out, sizeof out));
}

// The benchmark circuit of `gopa bench proofs`: acc_{i+1} = (acc_i + i)·y.
void build_chain(CircuitBuilder& b, std::size_t gates, const Scalar& out) {
  LinComb x = b.committed(SecretScalar::from_u64(3));
  LinComb y = b.secret(SecretScalar::from_u64(5));
  LinComb acc = x;
  for (std::size_t i = 0; i < gates; ++i) acc = b.mul(acc + Scalar::from_u64(i), y);
  b.assert_equal(acc, b.public_input(out));
}

}  // namespace

TEST_CASE("fast path: lazy sums of products equal reduced sums", "[sigma][fast]") {
  DeterministicRng rng(5);
  const Scalar top = -Scalar::one();  // ℓ − 1: the largest inputs
  for (std::size_t terms : {1U, 2U, 7U, 31U, 32U}) {
    for (int rep = 0; rep < 50; ++rep) {
      field::WideAcc w;
      field::Fe ref;
      for (std::size_t i = 0; i < terms; ++i) {
        const Scalar a = rep == 0 ? top : Scalar::random(rng);
        const Scalar b = rep == 0 ? top : Scalar::random(rng);
        w.mac(field::of(a), field::of(b));
        ref = field::add(ref, field::mul(field::of(a), field::of(b)));
      }
      CHECK(field::to_scalar(w.reduce()) == field::to_scalar(ref));
    }
  }
}

TEST_CASE("fast path: strided MSM equals the folds it replaces", "[sigma][fast][msm]") {
  DeterministicRng rng(6);
  for (const auto& [n, stride] : std::vector<std::pair<std::size_t, std::size_t>>{
           {1, 1}, {8, 1}, {8, 4}, {13, 5}, {133, 20}, {160, 20}, {300, 64}, {1000, 125}}) {
    CAPTURE(n, stride);
    const auto pts = random_points(n, rng);
    const std::size_t blocks = (n + stride - 1) / stride;
    auto sc = random_scalars(blocks, rng);
    if (blocks > 2) sc[1] = Scalar::zero();
    const auto out = msm_strided(sc, pts, stride);
    REQUIRE(out.size() == std::min(stride, n));
    for (std::size_t p = 0; p < out.size(); ++p) {
      Point ref;
      for (std::size_t b = 0; p + b * stride < n; ++b) ref += pts[p + b * stride] * sc[b];
      CHECK(out[p] == ref);
    }
  }
}

TEST_CASE("fast path: MSM bases with sparse scalars, wide tables and extra terms",
          "[sigma][fast][msm]") {
  DeterministicRng rng(7);
  for (std::size_t n : {3U, 67U, 135U, 600U, 5000U}) {
    const auto pts = random_points(n, rng);
    const auto extra_p = random_points(20, rng);
    const auto extra_s = random_scalars(20, rng);
    for (int width : {4, 5, 7, 8}) {
      CAPTURE(n, width);
      const MsmBasis basis(pts, width);
      for (std::size_t nonzero : {std::size_t{0}, std::size_t{1}, n / 2, n}) {
        CAPTURE(nonzero);
        std::vector<Scalar> sc(n);
        for (std::size_t i = 0; i < nonzero; ++i) sc[(i * 7) % n] = Scalar::random(rng);
        const Point ref = msm_naive(sc, pts);
        CHECK(basis.msm(sc) == ref);
        CHECK(basis.msm(std::span<const Scalar>(sc).first(n / 2)) ==
              msm_naive(std::span<const Scalar>(sc).first(n / 2),
                        std::span<const Point>(pts).first(n / 2)));
        CHECK(basis.msm(sc, extra_s, extra_p) == ref + msm_naive(extra_s, extra_p));
      }
      if (n > 600) break;  // one width suffices for the Pippenger-only size
    }
  }
}

TEST_CASE("fast path: constant-time MSM tables equal the naive sum", "[sigma][fast][msm]") {
  DeterministicRng rng(8);
  const auto pts = random_points(300, rng);
  const MsmSecretBasis basis(pts);
  CHECK(basis.size() == pts.size());
  for (std::size_t n : {0U, 1U, 7U, 64U, 128U, 129U, 300U}) {  // 128: one ct_straus block
    CAPTURE(n);
    std::vector<SecretScalar> ss;
    std::vector<Scalar> sp;
    std::vector<std::size_t> idx;
    std::vector<Point> sel;
    for (std::size_t i = 0; i < n; ++i) {
      // Small values, 0 and ℓ − 1 cover the digit edge cases; the rest random.
      const Scalar v = i % 5 == 0   ? Scalar::from_u64(i)
                       : i % 5 == 1 ? -Scalar::one()
                                    : Scalar::random(rng);
      ss.emplace_back(v);
      sp.push_back(v);
      idx.push_back((i * 37 + 11) % pts.size());  // permuted, with repeats for n = 300
      sel.push_back(pts[idx.back()]);
    }
    CHECK(basis.msm(ss, idx) == msm_naive(sp, sel));
    CHECK(msm_secret(ss, sel) == msm_naive(sp, sel));
  }
}

TEST_CASE("fast path: folded-generator prover reproduces the recomputing prover's proofs",
          "[sigma][fast]") {
  // Known answers: at proof format v1 these were the digests of proofs made before the prover
  // folded its generators (every cross term an MSM over the original generators), reproduced
  // byte for byte by the folding prover. Format v2 (binding weights from ω, docs/proofs.md §4.4)
  // changes the bytes but no folding code; the digests were retaken at that change.
  struct Case {
    std::size_t gates;
    const char* digest;
  };
  for (const Case& k : {Case{100, "71b23eb66438ec6961a2730f3203d19c"},
                        Case{1024, "a08c9225e56bf46c4b967bf09a62fe64"},
                        Case{3000, "78e5dd0b437d380216ef146d23ab2f77"}}) {
    CAPTURE(k.gates);
    DeterministicRng rng(k.gates);
    Scalar acc = Scalar::from_u64(3);
    for (std::size_t i = 0; i < k.gates; ++i)
      acc = (acc + Scalar::from_u64(i)) * Scalar::from_u64(5);
    CircuitBuilder pb(CircuitBuilder::kProver), vb(CircuitBuilder::kVerifier);
    build_chain(pb, k.gates, acc);
    build_chain(vb, k.gates, acc);
    auto gens = GeneratorSet::get("gopa", pb.circuit().generators_needed());
    std::vector<SecretScalar> bl;
    bl.push_back(SecretScalar::random(rng));
    std::vector<Point> coms{commit(SecretScalar::from_u64(3), bl[0], *gens)};
    Transcript t("x");
    const CircuitProof p =
        prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng);
    CHECK(proof_digest(p.encode()) == k.digest);
    Transcript tv("x");
    CHECK(verify_circuit(tv, *gens, vb.circuit(), vb.publics(), coms, p).ok());
    Transcript tn("x");
    CHECK(verify_circuit_naive(tn, *gens, vb.circuit(), vb.publics(), coms, p));
  }
  struct RangeCase {
    unsigned bits;
    std::size_t d;
    const char* digest;
  };
  for (const RangeCase& k : {RangeCase{8, 16, "642ac66ad85d160da0e6000547495bec"},
                             RangeCase{64, 1, "f423f7c4d2ee75a779800fac6e66d82c"},
                             RangeCase{64, 16, "f729792c8ded4d684db785e3f5478621"}}) {
    CAPTURE(k.bits, k.d);
    DeterministicRng rng(7 + k.d);
    auto gens = GeneratorSet::get("gopa", range_generators(k.bits, k.d));
    std::vector<SecretScalar> v, r;
    std::vector<Point> coms;
    for (std::size_t j = 0; j < k.d; ++j) {
      v.push_back(SecretScalar::from_u64(rng.next_u64() >> (64 - k.bits)));
      r.push_back(SecretScalar::random(rng));
      coms.push_back(commit(v.back(), r.back(), *gens));
    }
    Transcript t("x");
    const auto p = prove_range(t, *gens, k.bits, coms, v, r, rng);
    REQUIRE(p);
    CHECK(proof_digest(p->encode()) == k.digest);
  }
}

TEST_CASE("release_prover_tables: proofs after the release are the same bytes and verify", "[sigma][fast]") {
  auto prove_once = [](std::size_t gates) {
    DeterministicRng rng(gates);
    Scalar acc = Scalar::from_u64(3);
    for (std::size_t i = 0; i < gates; ++i) acc = (acc + Scalar::from_u64(i)) * Scalar::from_u64(5);
    CircuitBuilder pb(CircuitBuilder::kProver), vb(CircuitBuilder::kVerifier);
    build_chain(pb, gates, acc);
    build_chain(vb, gates, acc);
    auto gens = GeneratorSet::get("gopa", pb.circuit().generators_needed());
    std::vector<SecretScalar> bl;
    bl.push_back(SecretScalar::random(rng));
    std::vector<Point> coms{commit(SecretScalar::from_u64(3), bl[0], *gens)};
    Transcript t("x");
    const CircuitProof p = prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng);
    Transcript tv("x");
    CHECK(verify_circuit(tv, *gens, vb.circuit(), vb.publics(), coms, p).ok());
    return proof_digest(p.encode());
  };
  const std::string cached = prove_once(1024);  // the tables are built and cached
  CHECK(prove_once(1024) == cached);            // from the cache
  release_prover_tables();
  CHECK(prove_once(1024) == cached);            // rebuilt
  CHECK(cached == "a08c9225e56bf46c4b967bf09a62fe64");  // the known answer above
}
