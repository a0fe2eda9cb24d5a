// The byte reader and writer every wire format shares (gopa/bytes.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "gopa/bytes.hpp"

using gopa::ByteOrder;
using gopa::ByteReader;
using gopa::ByteWriter;
using gopa::Point;
using gopa::Scalar;
using Bytes = std::vector<std::uint8_t>;

TEST_CASE("ByteWriter: each byte order, field by field", "[bytes]") {
  Bytes be, le;
  ByteWriter<ByteOrder::big>(be).u8(0x01).u16(0x0203).u32(0x04050607).u64(0x08090A0B0C0D0E0FULL);
  ByteWriter<ByteOrder::little>(le).u8(0x01).u16(0x0203).u32(0x04050607).u64(0x08090A0B0C0D0E0FULL);
  CHECK(be == Bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F});
  CHECK(le == Bytes{0x01, 0x03, 0x02, 0x07, 0x06, 0x05, 0x04, 0x0F, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x09, 0x08});
  Bytes f;
  ByteWriter<ByteOrder::big>(f).f64(1.0);  // IEEE 754 binary64 bits, big-endian
  CHECK(f == Bytes{0x3F, 0xF0, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("ByteReader: round trip in both orders, then finish", "[bytes]") {
  gopa::DeterministicRng rng(5);
  const Point p = Point::random(rng);
  const Scalar s = Scalar::random(rng);
  auto check = [&](auto order) {
    constexpr ByteOrder O = decltype(order)::value;
    Bytes out;
    ByteWriter<O>(out).u8(7).u16(0xBEEF).u32(0xDEADBEEF).u64(~0ULL).f64(-2.5).point(p).scalar(s).bytes(Bytes{1, 2, 3});
    ByteReader<O> r(out);
    CHECK(r.u8() == 7);
    CHECK(r.u16() == 0xBEEF);
    CHECK(r.u32() == 0xDEADBEEF);
    CHECK(r.u64() == ~0ULL);
    CHECK(r.f64() == -2.5);
    CHECK(r.point() == p);
    CHECK(r.scalar() == s);
    CHECK(r.template array<3>() == std::array<std::uint8_t, 3>{1, 2, 3});
    CHECK(r.done());
    CHECK(r.finish());
    CHECK(r.error().empty());
  };
  check(std::integral_constant<ByteOrder, ByteOrder::big>{});
  check(std::integral_constant<ByteOrder, ByteOrder::little>{});
}

TEST_CASE("ByteReader: every truncation fails, names its field and latches", "[bytes]") {
  Bytes out;
  ByteWriter<ByteOrder::big>(out).u8(1).u32(2).u64(3);
  for (std::size_t len = 0; len < out.size(); ++len) {
    ByteReader<ByteOrder::big> r(std::span<const std::uint8_t>(out).first(len));
    const auto a = r.u8("a");
    const auto b = r.u32("b");
    const auto c = r.u64("c");
    INFO("length " << len);
    CHECK_FALSE(r.ok());
    CHECK_FALSE(r.finish());
    const char* field = len < 1 ? "truncated: a" : len < 5 ? "truncated: b" : "truncated: c";
    CHECK(r.error() == field);
    // After the failure nothing advances and every later read is zero.
    if (len < 1) CHECK(a == 0);
    if (len < 5) CHECK(b == 0);
    CHECK(c == 0);
    CHECK(r.bytes(0).empty());
    CHECK(r.remaining() == len - (len < 1 ? 0 : len < 5 ? 1 : 5));
  }
}

TEST_CASE("ByteReader: trailing bytes, bad points and scalars, caller failures", "[bytes]") {
  const Bytes two{1, 2};
  ByteReader<ByteOrder::little> t(two);
  CHECK(t.u8() == 1);
  CHECK(t.ok());
  CHECK_FALSE(t.finish());
  CHECK(t.error() == "trailing bytes");

  Bytes bad_point(32, 0xFF);  // not a canonical ristretto255 encoding
  ByteReader<ByteOrder::little> rp(bad_point);
  CHECK(rp.point("P") == Point::identity());
  CHECK(rp.error() == "invalid point encoding: P");

  Bytes big_scalar(32, 0xFF);  // 2^256 − 1 ≥ ℓ
  ByteReader<ByteOrder::little> rs(big_scalar);
  CHECK(rs.scalar("s") == Scalar::zero());
  CHECK(rs.error() == "non-canonical scalar: s");

  const Bytes four{0, 0, 0, 9};
  ByteReader<ByteOrder::big> rc(four);
  const std::uint32_t count = rc.u32("count");
  CHECK(count == 9);
  CHECK_FALSE(rc.need(9 * 32, "items"));
  CHECK(rc.error() == "truncated: items");
  CHECK_FALSE(rc.fail("a later failure does not replace the first"));
  CHECK(rc.error() == "truncated: items");
}
