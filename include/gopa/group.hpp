// gopa/group.hpp — the ristretto255 group (RFC 9496): scalars mod ℓ and group elements.
//
//   using namespace gopa;
//   Scalar a = Scalar::from_u64(5), b = Scalar::random(rng);
//   Point P = Point::base_mul(a);                 // a·B, fixed-base table (constant time)
//   auto bytes = P.encode();                      // 32 canonical bytes
//   std::optional<Point> Q = Point::decode(bytes);  // strict: rejects all RFC 9496 invalid encodings
//   SecretScalar x = SecretScalar::random(rng);   // witness: move-only, wiped on destruction
//   Point X = Point::base_mul(x);                 // constant time in x
//
// Security notes
// - Point arithmetic is libdecaf's decaf_255, which is ristretto255 on decoded points;
//   libsodium's crypto_core_ristretto255 is the test oracle (tests/group).
// - Every operation on SecretScalar, and every scalar multiplication, is constant time.
//   Scalar is for public values (challenges, public inputs, proof responses) and may be used in
//   variable-time code (e.g. msm.hpp's Pippenger); never put a secret in a Scalar.
// - decode() functions are the only way in from untrusted bytes; they never abort.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <decaf/point_255.h>

#include "gopa/random.hpp"

namespace gopa {

using Bytes32 = std::array<std::uint8_t, 32>;
using Bytes64 = std::array<std::uint8_t, 64>;

class SecretScalar;

// An element of Z_ℓ, ℓ = 2^252 + 27742317777372353535851937790883648493. Public data only.
class Scalar {
 public:
  static constexpr std::size_t kBytes = 32;

  Scalar() noexcept;  // zero
  static Scalar zero() noexcept;
  static Scalar one() noexcept;
  static Scalar from_u64(std::uint64_t v) noexcept;
  // v ↦ v mod ℓ for negative v too (−1 becomes ℓ − 1).
  static Scalar from_i64(std::int64_t v) noexcept;
  // Canonical 32-byte little-endian decoding: nullopt unless the value is < ℓ.
  [[nodiscard]] static std::optional<Scalar> decode(std::span<const std::uint8_t> bytes) noexcept;
  // Little-endian bytes of any length reduced mod ℓ (used with 64 uniform bytes: wide reduction).
  static Scalar reduce(std::span<const std::uint8_t> bytes) noexcept;
  static Scalar random(Rng& rng);
  // Uniformly random and non-zero.
  static Scalar random_nonzero(Rng& rng);
  // Parses a decimal integer (optionally negative) and reduces it mod ℓ; nullopt if malformed.
  [[nodiscard]] static std::optional<Scalar> from_decimal(std::string_view text);

  [[nodiscard]] Bytes32 encode() const noexcept;
  void encode_to(std::span<std::uint8_t, 32> out) const noexcept;
  [[nodiscard]] std::string to_hex() const;

  Scalar operator+(const Scalar& o) const noexcept;
  Scalar operator-(const Scalar& o) const noexcept;
  Scalar operator*(const Scalar& o) const noexcept;
  Scalar operator-() const noexcept;
  Scalar& operator+=(const Scalar& o) noexcept;
  Scalar& operator-=(const Scalar& o) noexcept;
  Scalar& operator*=(const Scalar& o) noexcept;
  // Multiplicative inverse; nullopt for zero.
  [[nodiscard]] std::optional<Scalar> invert() const noexcept;
  Scalar square() const noexcept { return *this * *this; }
  // x^e for a public exponent.
  Scalar pow(std::uint64_t e) const noexcept;

  [[nodiscard]] bool is_zero() const noexcept;
  bool operator==(const Scalar& o) const noexcept;
  bool operator!=(const Scalar& o) const noexcept { return !(*this == o); }

  const decaf_255_scalar_s* raw() const noexcept { return s_; }
  decaf_255_scalar_s* raw() noexcept { return s_; }

 private:
  decaf_255_scalar_t s_;
};

// Inverts many scalars with one field inversion (Montgomery's trick). Zero entries stay zero.
void batch_invert(std::span<Scalar> xs);

// A secret scalar: witness, blinding factor, key. Move-only; wiped on destruction and after a
// move; every operation is constant time. Converting to a public Scalar is explicit
// (declassify), for values that the protocol publishes (e.g. r + c·x).
class SecretScalar {
 public:
  SecretScalar() noexcept;  // zero
  explicit SecretScalar(const Scalar& v) noexcept;
  static SecretScalar from_u64(std::uint64_t v) noexcept;
  static SecretScalar from_i64(std::int64_t v) noexcept;
  static SecretScalar random(Rng& rng);
  // Reduces little-endian bytes mod ℓ (e.g. 64 bytes of a KDF output).
  static SecretScalar reduce(std::span<const std::uint8_t> bytes) noexcept;
  ~SecretScalar();
  SecretScalar(SecretScalar&& o) noexcept;
  SecretScalar& operator=(SecretScalar&& o) noexcept;
  SecretScalar(const SecretScalar&) = delete;
  SecretScalar& operator=(const SecretScalar&) = delete;
  // Explicit copy, so copies of secrets are visible in review.
  [[nodiscard]] SecretScalar clone() const noexcept;

  SecretScalar operator+(const SecretScalar& o) const noexcept;
  SecretScalar operator-(const SecretScalar& o) const noexcept;
  SecretScalar operator*(const SecretScalar& o) const noexcept;
  SecretScalar operator+(const Scalar& o) const noexcept;
  SecretScalar operator-(const Scalar& o) const noexcept;
  SecretScalar operator*(const Scalar& o) const noexcept;
  SecretScalar operator-() const noexcept;
  SecretScalar& operator+=(const SecretScalar& o) noexcept;
  SecretScalar& operator-=(const SecretScalar& o) noexcept;
  SecretScalar& operator*=(const Scalar& o) noexcept;
  // Constant-time inverse (x^(ℓ−2)); the inverse of zero is zero.
  [[nodiscard]] SecretScalar invert() const noexcept;

  // The public value of this secret; use only for values the protocol reveals.
  [[nodiscard]] Scalar declassify() const noexcept;
  // Constant-time comparison.
  [[nodiscard]] bool ct_equal(const SecretScalar& o) const noexcept;

  const decaf_255_scalar_s* raw() const noexcept { return s_; }

 private:
  void wipe() noexcept;
  decaf_255_scalar_t s_;
};

// A ristretto255 group element.
class Point {
 public:
  static constexpr std::size_t kBytes = 32;

  Point() noexcept;  // identity
  static Point identity() noexcept;
  // The RFC 9496 generator B.
  static Point base() noexcept;
  // Strict RFC 9496 §4.3.1 DECODE; nullopt for every non-canonical or invalid encoding.
  [[nodiscard]] static std::optional<Point> decode(std::span<const std::uint8_t> bytes) noexcept;
  // RFC 9496 §4.3.4 element derivation (one-way map) from 64 uniform bytes.
  static Point from_uniform_bytes(std::span<const std::uint8_t, 64> bytes) noexcept;
  // Hash to the group: from_uniform_bytes(SHA-512(len(domain) ‖ domain ‖ message)), with the
  // domain length as one byte (domain ≤ 255 bytes).
  static Point hash_to_group(std::string_view domain, std::span<const std::uint8_t> message);
  static Point random(Rng& rng);

  // A point that came from decode() (or whose cache_encoding() was called) remembers its
  // encoding, so that encoding it again (transcripts, serialisation) costs a copy instead of an
  // inverse square root. Every change to the point forgets it.
  [[nodiscard]] Bytes32 encode() const noexcept;
  void encode_to(std::span<std::uint8_t, 32> out) const noexcept;
  void cache_encoding() noexcept;
  [[nodiscard]] std::string to_hex() const;

  Point operator+(const Point& o) const noexcept;
  Point operator-(const Point& o) const noexcept;
  Point operator-() const noexcept;
  Point& operator+=(const Point& o) noexcept;
  Point& operator-=(const Point& o) noexcept;
  [[nodiscard]] Point dbl() const noexcept;

  // Constant-time variable-base scalar multiplication. With a SecretScalar the result is
  // treated as public (a public key, a commitment) and declassified for constant-time checks.
  Point operator*(const Scalar& k) const noexcept;
  Point operator*(const SecretScalar& k) const noexcept;
  // k·B with libdecaf's precomputed base table (constant time; result public as above).
  static Point base_mul(const Scalar& k) noexcept;
  static Point base_mul(const SecretScalar& k) noexcept;

  [[nodiscard]] bool is_identity() const noexcept;
  // Ristretto equality (of group elements, not of representatives); constant time.
  bool operator==(const Point& o) const noexcept;
  bool operator!=(const Point& o) const noexcept { return !(*this == o); }

  const decaf_255_point_s* raw() const noexcept { return p_; }
  decaf_255_point_s* raw() noexcept {
    has_enc_ = false;  // the caller may change the point
    return p_;
  }

 private:
  decaf_255_point_t p_;
  Bytes32 enc_{};         // the encoding of p_ when has_enc_
  bool has_enc_ = false;
};

Point operator*(const Scalar& k, const Point& p) noexcept;

// Hex helpers for tests and the command line. from_hex returns nullopt on any non-hex character
// or odd length.
std::string to_hex(std::span<const std::uint8_t> bytes);
[[nodiscard]] std::optional<std::vector<std::uint8_t>> from_hex(std::string_view hex);

}  // namespace gopa
