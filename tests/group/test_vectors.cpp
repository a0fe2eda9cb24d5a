// RFC 9496 Appendix A test vectors (tests/data/ristretto255/rfc9496_vectors.json).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "gopa/group.hpp"
#include "testdata.hpp"

using gopa::Point;
using gopa::Scalar;
using json = nlohmann::json;

namespace {
json vectors() {
  return json::parse(gopa::test::read_file(gopa::test::data_path("ristretto255/rfc9496_vectors.json")));
}
std::vector<std::uint8_t> hex(const std::string& s) {
  auto v = gopa::from_hex(s);
  REQUIRE(v.has_value());
  return *v;
}
}  // namespace

TEST_CASE("RFC 9496 A.1: multiples of the generator", "[group][vectors]") {
  const json v = vectors();
  const auto& multiples = v.at("generator_multiples");
  REQUIRE(multiples.size() == 16);
  Point running;  // identity
  for (std::size_t i = 0; i < multiples.size(); ++i) {
    const auto bytes = hex(multiples[i].get<std::string>());
    INFO("multiple " << i);
    auto p = Point::decode(bytes);
    REQUIRE(p.has_value());
    CHECK(gopa::to_hex(p->encode()) == multiples[i].get<std::string>());
    CHECK(*p == Point::base_mul(Scalar::from_u64(i)));
    CHECK(*p == Point::base() * Scalar::from_u64(i));
    CHECK(gopa::to_hex(running.encode()) == multiples[i].get<std::string>());
    running += Point::base();
  }
}

TEST_CASE("RFC 9496 A.2: invalid encodings are rejected", "[group][vectors]") {
  const json v = vectors();
  std::size_t count = 0;
  const json& groups = v.at("invalid_encodings");
  auto check_one = [&](const std::string& h) {
    INFO("encoding " << h);
    const auto bytes = hex(h);
    REQUIRE(bytes.size() == 32);
    CHECK_FALSE(Point::decode(bytes).has_value());
    ++count;
  };
  REQUIRE(groups.is_object());
  for (const auto& [name, list] : groups.items()) {
    if (name.rfind('_', 0) == 0) continue;
    for (const auto& e : list) check_one(e.get<std::string>());
  }
  CHECK(count == 29);
  for (const auto& [key, list] : v.at("extra_invalid_encodings_not_in_rfc").items()) {
    if (key.rfind('_', 0) == 0) continue;  // "_source" note
    for (const auto& e : list) check_one(e.get<std::string>());
  }
  CHECK(count == 30);
}

TEST_CASE("RFC 9496 A.3: element derivation from uniform bytes", "[group][vectors]") {
  const json v = vectors();
  const auto& cases = v.at("from_uniform_bytes");
  REQUIRE(cases.size() == 11);
  for (const auto& c : cases) {
    const auto in = hex(c.at("input").get<std::string>());
    REQUIRE(in.size() == 64);
    const Point p = Point::from_uniform_bytes(std::span<const std::uint8_t, 64>(in.data(), 64));
    CHECK(gopa::to_hex(p.encode()) == c.at("output").get<std::string>());
  }
}

TEST_CASE("Decoding rejects wrong lengths", "[group]") {
  std::vector<std::uint8_t> short_(31, 0), long_(33, 0);
  CHECK_FALSE(Point::decode(short_).has_value());
  CHECK_FALSE(Point::decode(long_).has_value());
  CHECK_FALSE(Scalar::decode(short_).has_value());
  CHECK_FALSE(Scalar::decode(long_).has_value());
  CHECK(Point::decode(std::vector<std::uint8_t>(32, 0)).has_value());  // identity
}
