// Differential test: gopa's group (libdecaf) against libsodium's ristretto255, byte for byte.
#include <sodium.h>

#include <catch2/catch.hpp>

#include "gopa/group.hpp"

using gopa::Bytes32;
using gopa::Point;
using gopa::Scalar;

TEST_CASE("libdecaf and libsodium agree on 10,000+ random group operations", "[group][differential]") {
  gopa::crypto_init();
  gopa::DeterministicRng rng(0x5eed);
  // A pool of points known to both sides by their encodings.
  std::vector<Point> pool;
  std::vector<Bytes32> pool_enc;
  std::size_t ops = 0;
  for (int i = 0; i < 64; ++i) {
    gopa::Bytes64 h{};
    rng.fill(h);
    const Point p = Point::from_uniform_bytes(h);
    Bytes32 s{};
    crypto_core_ristretto255_from_hash(s.data(), h.data());
    REQUIRE(p.encode() == s);  // hash-to-group
    pool.push_back(p);
    pool_enc.push_back(s);
    ++ops;
  }
  pool.push_back(Point::identity());
  pool_enc.push_back(Bytes32{});
  for (int i = 0; i < 2500; ++i) {
    const std::size_t a = rng.uniform(pool.size()), b = rng.uniform(pool.size());
    // add
    Bytes32 sum{};
    REQUIRE(crypto_core_ristretto255_add(sum.data(), pool_enc[a].data(), pool_enc[b].data()) == 0);
    const Point psum = pool[a] + pool[b];
    REQUIRE(psum.encode() == sum);
    // sub
    Bytes32 diff{};
    REQUIRE(crypto_core_ristretto255_sub(diff.data(), pool_enc[a].data(), pool_enc[b].data()) == 0);
    REQUIRE((pool[a] - pool[b]).encode() == diff);
    // scalar multiplication; some scalars are 0, 1 or ℓ−1. libsodium returns −1 when the
    // result is the identity, which is a valid result here.
    Scalar k = Scalar::random(rng);
    if (i % 50 == 0) k = Scalar::zero();
    if (i % 50 == 1) k = -Scalar::one();
    if (i % 50 == 2) k = Scalar::one();
    Bytes32 prod{};
    const int rc = crypto_scalarmult_ristretto255(prod.data(), k.encode().data(), pool_enc[a].data());
    const Point pprod = pool[a] * k;
    REQUIRE(pprod.encode() == prod);
    REQUIRE((rc == -1) == pprod.is_identity());
    // decode / encode round trip of the fresh results
    auto dec = Point::decode(sum);
    REQUIRE(dec.has_value());
    REQUIRE(*dec == psum);
    REQUIRE(dec->encode() == sum);
    REQUIRE(crypto_core_ristretto255_is_valid_point(prod.data()) == 1);  // identity included
    ops += 5;
    pool[rng.uniform(pool.size() - 1)] = psum;
    pool_enc[rng.uniform(pool.size() - 1)] = sum;
    // keep pool and encodings aligned after the random replacement
    for (std::size_t j = 0; j + 1 < pool.size(); ++j) pool_enc[j] = pool[j].encode();
  }
  // Random 32-byte strings: both decoders accept exactly the same ones when bit 255 is clear.
  // With bit 255 set the value is ≥ 2^255 > p, which RFC 9496 §4.3.1 rejects as non-canonical;
  // libsodium 1.0.18 ignores that bit, so there we only require our own rejection.
  for (int i = 0; i < 2000; ++i) {
    Bytes32 s{};
    rng.fill(s);
    if (i % 2 == 0) s[31] &= 0x7f;
    INFO("encoding " << gopa::to_hex(s));
    const bool ours = Point::decode(s).has_value();
    if (s[31] & 0x80) {
      REQUIRE_FALSE(ours);
    } else {
      REQUIRE(ours == (crypto_core_ristretto255_is_valid_point(s.data()) == 1));
    }
    ++ops;
  }
  // Valid encodings with bit 255 set are still rejected.
  for (int i = 0; i < 200; ++i) {
    Bytes32 e = Point::random(rng).encode();
    e[31] |= 0x80;
    REQUIRE_FALSE(Point::decode(e).has_value());
  }
  CHECK(ops >= 10000);
}

TEST_CASE("scalar arithmetic agrees with libsodium", "[group][differential]") {
  gopa::DeterministicRng rng(7);
  for (int i = 0; i < 2000; ++i) {
    const Scalar a = Scalar::random(rng), b = Scalar::random(rng);
    Bytes32 r{};
    crypto_core_ristretto255_scalar_add(r.data(), a.encode().data(), b.encode().data());
    REQUIRE((a + b).encode() == r);
    crypto_core_ristretto255_scalar_sub(r.data(), a.encode().data(), b.encode().data());
    REQUIRE((a - b).encode() == r);
    crypto_core_ristretto255_scalar_mul(r.data(), a.encode().data(), b.encode().data());
    REQUIRE((a * b).encode() == r);
    crypto_core_ristretto255_scalar_negate(r.data(), a.encode().data());
    REQUIRE((-a).encode() == r);
    REQUIRE(crypto_core_ristretto255_scalar_invert(r.data(), a.encode().data()) == 0);
    REQUIRE(a.invert()->encode() == r);
    gopa::Bytes64 wide{};
    rng.fill(wide);
    crypto_core_ristretto255_scalar_reduce(r.data(), wide.data());
    REQUIRE(Scalar::reduce(wide).encode() == r);
  }
}
