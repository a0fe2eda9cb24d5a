// ristretto255 group elements on libdecaf's decaf_255 (RFC 9496 encodings).
#include <sodium.h>

#include <algorithm>
#include <string>

#include "gopa/check.hpp"
#include "gopa/group.hpp"
#include "gopa/msm.hpp"

namespace gopa {

Point::Point() noexcept { decaf_255_point_copy(p_, decaf_255_point_identity); }

Point Point::identity() noexcept { return Point(); }

Point Point::base() noexcept {
  Point r;
  decaf_255_point_copy(r.p_, decaf_255_point_base);
  return r;
}

std::optional<Point> Point::decode(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() != kBytes) return std::nullopt;
  Point r;
  // allow_identity: the identity (32 zero bytes) is a valid encoding in RFC 9496; protocols that
  // need a non-identity point check is_identity() themselves.
  if (!decaf_successful(decaf_255_point_decode(r.p_, bytes.data(), DECAF_TRUE))) {
    return std::nullopt;
  }
  // Strict decoding accepts only the canonical encoding: these bytes are encode()'s output.
  std::copy(bytes.begin(), bytes.end(), r.enc_.begin());
  r.has_enc_ = true;
  return r;
}

Point Point::from_uniform_bytes(std::span<const std::uint8_t, 64> bytes) noexcept {
  // libdecaf's uniform hash is the sum of two Elligator-like maps, which is RFC 9496 §4.3.4;
  // tests/group checks it against the RFC vectors and libsodium's from_hash.
  Point r;
  decaf_255_point_from_hash_uniform(r.p_, bytes.data());
  return r;
}

Point Point::hash_to_group(std::string_view domain, std::span<const std::uint8_t> message) {
  GOPA_CHECK(domain.size() <= 255, "hash_to_group domain label longer than 255 bytes");
  crypto_init();
  crypto_hash_sha512_state st;
  crypto_hash_sha512_init(&st);
  const auto len = static_cast<std::uint8_t>(domain.size());
  crypto_hash_sha512_update(&st, &len, 1);
  crypto_hash_sha512_update(&st, reinterpret_cast<const unsigned char*>(domain.data()),
                            domain.size());
  crypto_hash_sha512_update(&st, message.data(), message.size());
  Bytes64 h{};
  crypto_hash_sha512_final(&st, h.data());
  return from_uniform_bytes(h);
}

Point Point::random(Rng& rng) {
  Bytes64 b{};
  rng.fill(b);
  return from_uniform_bytes(b);
}

Bytes32 Point::encode() const noexcept {
  if (has_enc_) return enc_;
  Bytes32 out{};
  decaf_255_point_encode(out.data(), p_);
  return out;
}

void Point::encode_to(std::span<std::uint8_t, 32> out) const noexcept {
  if (has_enc_) {
    std::copy(enc_.begin(), enc_.end(), out.begin());
    return;
  }
  decaf_255_point_encode(out.data(), p_);
}

void Point::cache_encoding() noexcept {
  if (has_enc_) return;
  decaf_255_point_encode(enc_.data(), p_);
  has_enc_ = true;
}

std::string Point::to_hex() const { return gopa::to_hex(encode()); }

Point Point::operator+(const Point& o) const noexcept {
  Point r;
  decaf_255_point_add(r.p_, p_, o.p_);
  return r;
}
Point Point::operator-(const Point& o) const noexcept {
  Point r;
  decaf_255_point_sub(r.p_, p_, o.p_);
  return r;
}
Point Point::operator-() const noexcept {
  Point r;
  decaf_255_point_negate(r.p_, p_);
  return r;
}
Point& Point::operator+=(const Point& o) noexcept {
  has_enc_ = false;
  decaf_255_point_add(p_, p_, o.p_);
  return *this;
}
Point& Point::operator-=(const Point& o) noexcept {
  has_enc_ = false;
  decaf_255_point_sub(p_, p_, o.p_);
  return *this;
}
Point Point::dbl() const noexcept {
  Point r;
  decaf_255_point_double(r.p_, p_);
  return r;
}

Point Point::operator*(const Scalar& k) const noexcept {
  Point r;
  decaf_255_point_scalarmul(r.p_, p_, k.raw());
  return r;
}

Point Point::operator*(const SecretScalar& k) const noexcept {
  Point r;
  decaf_255_point_scalarmul(r.p_, p_, k.raw());
  // k·P is public (a public key, a commitment): hiding it is the discrete-log problem's job.
  gopa_declassify(r.p_, sizeof r.p_);
  return r;
}

namespace {
// gopa's constant-time fixed-base table for B (msm.hpp), faster than libdecaf's precomputed
// base; built once, thread-safe.
const FixedBaseTable& base_table() {
  static const FixedBaseTable table(Point::base());
  return table;
}
}  // namespace

Point Point::base_mul(const Scalar& k) noexcept { return base_table().mul(k); }

Point Point::base_mul(const SecretScalar& k) noexcept {
  return base_table().mul(k);  // declassifies k·B, which is public
}

bool Point::is_identity() const noexcept {
  return decaf_255_point_eq(p_, decaf_255_point_identity) != 0;
}

bool Point::operator==(const Point& o) const noexcept {
  return decaf_255_point_eq(p_, o.p_) != 0;
}

Point operator*(const Scalar& k, const Point& p) noexcept { return p * k; }

}  // namespace gopa
