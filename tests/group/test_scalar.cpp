#include <catch2/catch.hpp>

#include "gopa/group.hpp"

using gopa::Scalar;
using gopa::SecretScalar;

namespace {
// ℓ = 2^252 + 27742317777372353535851937790883648493, little-endian.
const char* kEllHex = "edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010";
}  // namespace

TEST_CASE("Scalar decoding is canonical", "[group][scalar]") {
  auto ell = *gopa::from_hex(kEllHex);
  CHECK_FALSE(Scalar::decode(ell).has_value());  // ℓ itself
  auto ell_minus_1 = ell;
  ell_minus_1[0] = static_cast<std::uint8_t>(ell_minus_1[0] - 1);
  auto m1 = Scalar::decode(ell_minus_1);
  REQUIRE(m1.has_value());
  CHECK(*m1 == -Scalar::one());
  CHECK((*m1 + Scalar::one()).is_zero());
  std::vector<std::uint8_t> all_ff(32, 0xff);
  CHECK_FALSE(Scalar::decode(all_ff).has_value());
  // Wide reduction of ℓ (as 64 bytes) is zero.
  std::array<std::uint8_t, 64> wide{};
  std::copy(ell.begin(), ell.end(), wide.begin());
  CHECK(Scalar::reduce(wide).is_zero());
}

TEST_CASE("Scalar arithmetic identities", "[group][scalar]") {
  gopa::DeterministicRng rng(1);
  for (int i = 0; i < 200; ++i) {
    const Scalar a = Scalar::random(rng), b = Scalar::random(rng), c = Scalar::random(rng);
    CHECK(a * (b + c) == a * b + a * c);
    CHECK(a - a == Scalar::zero());
    CHECK(*a.invert() * a == Scalar::one());
    CHECK(a.pow(3) == a * a * a);
    CHECK(Scalar::decode(a.encode()) == a);
  }
  CHECK_FALSE(Scalar::zero().invert().has_value());
  CHECK(Scalar::from_i64(-5) + Scalar::from_u64(5) == Scalar::zero());
  CHECK(Scalar::from_i64(INT64_MIN) == -Scalar::from_u64(1ULL << 63));
  CHECK(Scalar::from_decimal("-12") == Scalar::from_i64(-12));
  CHECK(Scalar::from_decimal("18446744073709551616") == Scalar::from_u64(1ULL << 63) * Scalar::from_u64(2));
  CHECK_FALSE(Scalar::from_decimal("12a").has_value());
  CHECK_FALSE(Scalar::from_decimal("").has_value());
  CHECK_FALSE(Scalar::from_decimal("-").has_value());
}

TEST_CASE("batch_invert matches one-by-one inversion and keeps zeros", "[group][scalar]") {
  gopa::DeterministicRng rng(2);
  std::vector<Scalar> xs;
  for (int i = 0; i < 33; ++i) xs.push_back(i % 7 == 3 ? Scalar::zero() : Scalar::random(rng));
  std::vector<Scalar> inv = xs;
  gopa::batch_invert(inv);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (xs[i].is_zero()) {
      CHECK(inv[i].is_zero());
    } else {
      CHECK(inv[i] == *xs[i].invert());
    }
  }
}

TEST_CASE("SecretScalar: arithmetic, moves wipe, explicit declassify", "[group][scalar]") {
  gopa::DeterministicRng rng(3);
  SecretScalar x = SecretScalar::random(rng);
  const Scalar xv = x.declassify();
  SecretScalar y = x.clone();
  CHECK(y.ct_equal(x));
  SecretScalar z = std::move(x);
  CHECK(z.declassify() == xv);
  CHECK(x.declassify().is_zero());  // NOLINT(bugprone-use-after-move): the moved-from secret is wiped
  CHECK((z * z.invert()).declassify() == Scalar::one());
  CHECK(SecretScalar().invert().declassify().is_zero());
  CHECK((z + Scalar::one() - Scalar::one()).ct_equal(y));
  CHECK((z * Scalar::from_u64(2)).declassify() == xv + xv);
  CHECK((-z).declassify() == -xv);
}

TEST_CASE("Deterministic RNG is reproducible and uniform() stays in range", "[random]") {
  gopa::DeterministicRng a(42), b(42), c(43);
  CHECK(a.next_u64() == b.next_u64());
  CHECK(a.next_u64() != c.next_u64());
  for (int i = 0; i < 1000; ++i) CHECK(a.uniform(7) < 7);
}
