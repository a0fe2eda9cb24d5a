#include <sodium.h>

#include <catch2/catch.hpp>

#include "gopa/msm_ct.hpp"
#include "gopa/pedersen.hpp"

using gopa::GeneratorSet;
using gopa::Point;
using gopa::Scalar;
using gopa::SecretScalar;

TEST_CASE("Generators are independent-looking, deterministic and named", "[pedersen]") {
  auto g = GeneratorSet::get("gopa-test", 16);
  REQUIRE(g->size() >= 16);
  CHECK(g->G() == Point::base());
  CHECK(g->H() != g->G());
  CHECK(g->Q() != g->H());
  for (std::size_t i = 0; i < 16; ++i) {
    CHECK_FALSE(g->Gi()[i].is_identity());
    for (std::size_t j = 0; j < i; ++j) CHECK(g->Gi()[i] != g->Gi()[j]);
  }
  const GeneratorSet fresh = GeneratorSet::derive("gopa-test", 4);
  CHECK(fresh.id() == g->id());
  CHECK(fresh.H() == g->H());
  CHECK(fresh.Gi()[3] == g->Gi()[3]);  // a longer set extends a shorter one
  const GeneratorSet other = GeneratorSet::derive("gopa-test2", 4);
  CHECK(other.id() != g->id());
  CHECK(other.H() != g->H());
  // Frozen: H of the default set (a change breaks every stored commitment).
  CHECK(GeneratorSet::get("gopa", 0)->H().to_hex() == "a86f44350ae6c0dc0514ffd82d30ec97930ce107227af959bef75982b529966a");
  // Independent derivation of H with libsodium: SHA-512(len ‖ domain ‖ len(name) ‖ name ‖ "H").
  {
    const std::string domain = "gopa/generators/v1";
    std::vector<std::uint8_t> in{static_cast<std::uint8_t>(domain.size())};
    in.insert(in.end(), domain.begin(), domain.end());
    in.insert(in.end(), {4, 'g', 'o', 'p', 'a', 'H'});
    std::array<std::uint8_t, 64> h{};
    crypto_hash_sha512(h.data(), in.data(), in.size());
    gopa::Bytes32 expect{};
    crypto_core_ristretto255_from_hash(expect.data(), h.data());
    CHECK(GeneratorSet::get("gopa", 0)->H().encode() == expect);
  }
  // The cache grows on demand.
  auto bigger = GeneratorSet::get("gopa-test", 40);
  CHECK(bigger->size() >= 40);
  CHECK(bigger->Gi()[5] == g->Gi()[5]);
}

TEST_CASE("A grown generator set is the set derived at once; every point is the documented hash", "[pedersen]") {
  // Derived on every core in chunks of 1,024 and grown from a cached prefix: indices around the
  // chunk borders and the old size are checked against an independent libsodium derivation,
  // SHA-512(len ‖ domain ‖ len(name) ‖ name ‖ "G" ‖ LE64(i)) mapped with from_hash.
  auto small = GeneratorSet::get("gopa-grow", 100);
  REQUIRE(small->size() >= 100);
  auto grown = GeneratorSet::get("gopa-grow", 2500);
  REQUIRE(grown->size() >= 2500);
  const GeneratorSet fresh = GeneratorSet::derive("gopa-grow", 2500);
  for (std::size_t i = 0; i < 2500; ++i) REQUIRE(grown->Gi()[i] == fresh.Gi()[i]);
  const std::string domain = "gopa/generators/v1", name = "gopa-grow";
  for (std::uint64_t i : {0ULL, 99ULL, 100ULL, 1023ULL, 1024ULL, 1123ULL, 1124ULL, 2047ULL, 2048ULL, 2499ULL}) {
    std::vector<std::uint8_t> in{static_cast<std::uint8_t>(domain.size())};
    in.insert(in.end(), domain.begin(), domain.end());
    in.push_back(static_cast<std::uint8_t>(name.size()));
    in.insert(in.end(), name.begin(), name.end());
    in.push_back('G');
    for (int k = 0; k < 8; ++k) in.push_back(static_cast<std::uint8_t>(i >> (8 * k)));
    std::array<std::uint8_t, 64> h{};
    crypto_hash_sha512(h.data(), in.data(), in.size());
    gopa::Bytes32 expect{};
    crypto_core_ristretto255_from_hash(expect.data(), h.data());
    INFO("G_" << i);
    CHECK(grown->Gi()[i].encode() == expect);
  }
}

TEST_CASE("Scalar and vector commitments open and are homomorphic", "[pedersen]") {
  gopa::DeterministicRng rng(5);
  auto gens = GeneratorSet::get("gopa", 8);
  SecretScalar v = SecretScalar::random(rng), r = SecretScalar::random(rng);
  SecretScalar v2 = SecretScalar::random(rng), r2 = SecretScalar::random(rng);
  const Point c = gopa::commit(v, r, *gens);
  const Point c2 = gopa::commit(v2, r2, *gens);
  CHECK(gopa::verify_opening(c, v.declassify(), r.declassify(), *gens));
  CHECK_FALSE(gopa::verify_opening(c, v.declassify() + Scalar::one(), r.declassify(), *gens));
  CHECK_FALSE(gopa::verify_opening(c, v.declassify(), r.declassify() + Scalar::one(), *gens));
  CHECK(gopa::verify_opening(c + c2, (v + v2).declassify(), (r + r2).declassify(), *gens));
  CHECK(c == gopa::commit_public(v.declassify(), r.declassify(), *gens));

  std::vector<SecretScalar> xs;
  std::vector<Scalar> xs_pub;
  for (int i = 0; i < 8; ++i) {
    xs.push_back(SecretScalar::random(rng));
    xs_pub.push_back(xs.back().declassify());
  }
  const Point vc = gopa::commit_vector(xs, r, *gens);
  CHECK(gopa::verify_vector_opening(vc, xs_pub, r.declassify(), *gens));
  xs_pub[3] += Scalar::one();
  CHECK_FALSE(gopa::verify_vector_opening(vc, xs_pub, r.declassify(), *gens));
  std::vector<Scalar> too_long(gens->size() + 1);
  CHECK_FALSE(gopa::verify_vector_opening(vc, too_long, r.declassify(), *gens));
}

TEST_CASE("Constant-time MSM equals the naive sum", "[pedersen][msm]") {
  gopa::DeterministicRng rng(6);
  for (std::size_t n : {0u, 1u, 2u, 7u, 33u}) {
    std::vector<SecretScalar> ks;
    std::vector<Scalar> kp;
    std::vector<Point> ps;
    for (std::size_t i = 0; i < n; ++i) {
      Scalar k = Scalar::random(rng);
      if (i == 1) k = Scalar::zero();
      if (i == 2) k = -Scalar::one();
      if (i == 3) k = Scalar::from_u64(8);
      ks.emplace_back(k);
      kp.push_back(k);
      ps.push_back(i == 4 ? Point::identity() : Point::random(rng));
    }
    CHECK(gopa::msm_secret(ks, ps) == gopa::msm_naive(kp, ps));
  }
}
