#include <catch2/catch.hpp>

#include <algorithm>
#include <array>

#include "gopa/group.hpp"

using gopa::Point;
using gopa::Scalar;
using gopa::SecretScalar;

TEST_CASE("Point group laws", "[group][point]") {
  gopa::DeterministicRng rng(11);
  const Point p = Point::random(rng), q = Point::random(rng);
  const Scalar a = Scalar::random(rng), b = Scalar::random(rng);
  CHECK(p + q == q + p);
  CHECK(p - p == Point::identity());
  CHECK((p - p).is_identity());
  CHECK(-(-p) == p);
  CHECK(p.dbl() == p + p);
  CHECK(p * (a + b) == p * a + p * b);
  CHECK((p + q) * a == p * a + q * a);
  CHECK(Point::base_mul(a) == Point::base() * a);
  CHECK(Point::base_mul(SecretScalar(a)) == Point::base_mul(a));
  CHECK(p * SecretScalar(a) == p * a);
  CHECK(p * Scalar::zero() == Point::identity());
  CHECK(p * -Scalar::one() == -p);
  CHECK(Point::decode(p.encode()) == p);
  CHECK(p != q);
}

TEST_CASE("hash_to_group is deterministic and domain separated", "[group][point]") {
  const std::vector<std::uint8_t> msg = {1, 2, 3};
  const Point a = Point::hash_to_group("gopa/test", msg);
  CHECK(a == Point::hash_to_group("gopa/test", msg));
  CHECK(a != Point::hash_to_group("gopa/test2", msg));
  CHECK(a != Point::hash_to_group("gopa/tes", std::vector<std::uint8_t>{'t', 1, 2, 3}));
  CHECK_FALSE(a.is_identity());
}

TEST_CASE("hex helpers reject malformed input", "[group]") {
  CHECK(gopa::from_hex("0aFf") == std::vector<std::uint8_t>{0x0a, 0xff});
  CHECK_FALSE(gopa::from_hex("abc").has_value());
  CHECK_FALSE(gopa::from_hex("zz").has_value());
  CHECK(gopa::to_hex(std::vector<std::uint8_t>{0, 255}) == "00ff");
}

TEST_CASE("a remembered encoding follows every change to the point", "[point][encoding]") {
  gopa::DeterministicRng rng(31);
  const Point a = Point::random(rng), b = Point::random(rng);
  const gopa::Bytes32 ea = a.encode(), eb = b.encode();
  auto d = Point::decode(ea);  // remembers ea
  REQUIRE(d);
  REQUIRE(d->encode() == ea);
  Point x = *d;
  x += b;  // forgets it
  REQUIRE(x.encode() == (a + b).encode());
  x.cache_encoding();
  REQUIRE(x.encode() == (a + b).encode());
  x -= b;
  REQUIRE(x.encode() == ea);
  Point y = *Point::decode(eb);
  decaf_255_point_add(y.raw(), y.raw(), a.raw());  // raw() access forgets it too
  REQUIRE(y.encode() == (a + b).encode());
  std::array<std::uint8_t, 32> out{};
  Point z = *Point::decode(eb);
  z.encode_to(out);
  REQUIRE(std::equal(out.begin(), out.end(), eb.begin()));
  z = z.dbl();
  z.encode_to(out);
  REQUIRE(std::equal(out.begin(), out.end(), b.dbl().encode().begin()));
}
