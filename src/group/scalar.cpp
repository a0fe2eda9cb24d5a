// Scalars mod ℓ on libdecaf's decaf_255 scalar arithmetic (constant time throughout).
#include <sodium.h>

#include <array>
#include <string>

#include "gopa/check.hpp"
#include "gopa/group.hpp"

namespace gopa {

namespace {
bool ok(decaf_error_t e) { return decaf_successful(e) != 0; }
}  // namespace

// ---------------------------------------------------------------- Scalar

Scalar::Scalar() noexcept { decaf_255_scalar_copy(s_, decaf_255_scalar_zero); }

Scalar Scalar::zero() noexcept { return Scalar(); }

Scalar Scalar::one() noexcept {
  Scalar r;
  decaf_255_scalar_copy(r.s_, decaf_255_scalar_one);
  return r;
}

Scalar Scalar::from_u64(std::uint64_t v) noexcept {
  Scalar r;
  decaf_255_scalar_set_unsigned(r.s_, v);
  return r;
}

Scalar Scalar::from_i64(std::int64_t v) noexcept {
  // Magnitude as unsigned, so INT64_MIN is handled without overflow.
  const std::uint64_t mag =
      v < 0 ? ~static_cast<std::uint64_t>(v) + 1 : static_cast<std::uint64_t>(v);
  Scalar r = from_u64(mag);
  return v < 0 ? -r : r;
}

std::optional<Scalar> Scalar::decode(std::span<const std::uint8_t> bytes) noexcept {
  if (bytes.size() != kBytes) return std::nullopt;
  Scalar r;
  if (!ok(decaf_255_scalar_decode(r.s_, bytes.data()))) return std::nullopt;
  return r;
}

Scalar Scalar::reduce(std::span<const std::uint8_t> bytes) noexcept {
  Scalar r;
  decaf_255_scalar_decode_long(r.s_, bytes.data(), bytes.size());
  return r;
}

Scalar Scalar::random(Rng& rng) {
  Bytes64 wide{};
  rng.fill(wide);
  Scalar r = reduce(wide);
  sodium_memzero(wide.data(), wide.size());
  return r;
}

Scalar Scalar::random_nonzero(Rng& rng) {
  for (;;) {
    Scalar r = random(rng);
    if (!r.is_zero()) return r;
  }
}

std::optional<Scalar> Scalar::from_decimal(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.size() > 100) return std::nullopt;
  const Scalar ten = from_u64(10);
  Scalar acc;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    acc = acc * ten + from_u64(static_cast<std::uint64_t>(c - '0'));
  }
  return negative ? -acc : acc;
}

Bytes32 Scalar::encode() const noexcept {
  Bytes32 out{};
  decaf_255_scalar_encode(out.data(), s_);
  return out;
}

void Scalar::encode_to(std::span<std::uint8_t, 32> out) const noexcept {
  decaf_255_scalar_encode(out.data(), s_);
}

std::string Scalar::to_hex() const { return gopa::to_hex(encode()); }

Scalar Scalar::operator+(const Scalar& o) const noexcept {
  Scalar r;
  decaf_255_scalar_add(r.s_, s_, o.s_);
  return r;
}
Scalar Scalar::operator-(const Scalar& o) const noexcept {
  Scalar r;
  decaf_255_scalar_sub(r.s_, s_, o.s_);
  return r;
}
Scalar Scalar::operator*(const Scalar& o) const noexcept {
  Scalar r;
  decaf_255_scalar_mul(r.s_, s_, o.s_);
  return r;
}
Scalar Scalar::operator-() const noexcept {
  Scalar r;
  decaf_255_scalar_sub(r.s_, decaf_255_scalar_zero, s_);
  return r;
}
Scalar& Scalar::operator+=(const Scalar& o) noexcept {
  decaf_255_scalar_add(s_, s_, o.s_);
  return *this;
}
Scalar& Scalar::operator-=(const Scalar& o) noexcept {
  decaf_255_scalar_sub(s_, s_, o.s_);
  return *this;
}
Scalar& Scalar::operator*=(const Scalar& o) noexcept {
  decaf_255_scalar_mul(s_, s_, o.s_);
  return *this;
}

std::optional<Scalar> Scalar::invert() const noexcept {
  Scalar r;
  if (!ok(decaf_255_scalar_invert(r.s_, s_))) return std::nullopt;
  return r;
}

Scalar Scalar::pow(std::uint64_t e) const noexcept {
  Scalar result = one();
  Scalar base = *this;
  while (e != 0) {  // variable time in the public exponent
    if (e & 1) result *= base;
    base = base * base;
    e >>= 1;
  }
  return result;
}

bool Scalar::is_zero() const noexcept {
  return decaf_255_scalar_eq(s_, decaf_255_scalar_zero) != 0;
}

bool Scalar::operator==(const Scalar& o) const noexcept {
  return decaf_255_scalar_eq(s_, o.s_) != 0;
}

void batch_invert(std::span<Scalar> xs) {
  // Montgomery's trick over the non-zero entries: prefix products, one inversion, back-substitution.
  std::vector<Scalar> prefix(xs.size());
  Scalar acc = Scalar::one();
  for (std::size_t i = 0; i < xs.size(); ++i) {
    prefix[i] = acc;
    if (!xs[i].is_zero()) acc *= xs[i];
  }
  std::optional<Scalar> inv = acc.invert();
  GOPA_CHECK(inv.has_value(), "product of non-zero scalars is non-zero");
  Scalar run = *inv;
  for (std::size_t i = xs.size(); i-- > 0;) {
    if (xs[i].is_zero()) continue;
    Scalar xi_inv = run * prefix[i];
    run *= xs[i];
    xs[i] = xi_inv;
  }
}

// ---------------------------------------------------------------- SecretScalar

SecretScalar::SecretScalar() noexcept { decaf_255_scalar_copy(s_, decaf_255_scalar_zero); }

SecretScalar::SecretScalar(const Scalar& v) noexcept {
  decaf_255_scalar_copy(s_, v.raw());
  gopa_secret(s_, sizeof s_);
}

SecretScalar SecretScalar::from_u64(std::uint64_t v) noexcept {
  return SecretScalar(Scalar::from_u64(v));
}

SecretScalar SecretScalar::from_i64(std::int64_t v) noexcept {
  return SecretScalar(Scalar::from_i64(v));
}

SecretScalar SecretScalar::random(Rng& rng) {
  Bytes64 wide{};
  rng.fill(wide);
  SecretScalar r = reduce(wide);
  sodium_memzero(wide.data(), wide.size());
  return r;
}

SecretScalar SecretScalar::reduce(std::span<const std::uint8_t> bytes) noexcept {
  SecretScalar r;
  decaf_255_scalar_decode_long(r.s_, bytes.data(), bytes.size());
  gopa_secret(r.s_, sizeof r.s_);
  return r;
}

void SecretScalar::wipe() noexcept { decaf_255_scalar_destroy(s_); }

SecretScalar::~SecretScalar() { wipe(); }

SecretScalar::SecretScalar(SecretScalar&& o) noexcept {
  decaf_255_scalar_copy(s_, o.s_);
  o.wipe();
}

SecretScalar& SecretScalar::operator=(SecretScalar&& o) noexcept {
  if (this != &o) {
    decaf_255_scalar_copy(s_, o.s_);
    o.wipe();
  }
  return *this;
}

SecretScalar SecretScalar::clone() const noexcept {
  SecretScalar r;
  decaf_255_scalar_copy(r.s_, s_);
  return r;
}

#define GOPA_SECRET_BINOP(op, fn, Other)                                 \
  SecretScalar SecretScalar::operator op(const Other& o) const noexcept { \
    SecretScalar r;                                                      \
    fn(r.s_, s_, o.raw());                                               \
    return r;                                                            \
  }
GOPA_SECRET_BINOP(+, decaf_255_scalar_add, SecretScalar)
GOPA_SECRET_BINOP(-, decaf_255_scalar_sub, SecretScalar)
GOPA_SECRET_BINOP(*, decaf_255_scalar_mul, SecretScalar)
GOPA_SECRET_BINOP(+, decaf_255_scalar_add, Scalar)
GOPA_SECRET_BINOP(-, decaf_255_scalar_sub, Scalar)
GOPA_SECRET_BINOP(*, decaf_255_scalar_mul, Scalar)
#undef GOPA_SECRET_BINOP

SecretScalar SecretScalar::operator-() const noexcept {
  SecretScalar r;
  decaf_255_scalar_sub(r.s_, decaf_255_scalar_zero, s_);
  return r;
}
SecretScalar& SecretScalar::operator+=(const SecretScalar& o) noexcept {
  decaf_255_scalar_add(s_, s_, o.s_);
  return *this;
}
SecretScalar& SecretScalar::operator-=(const SecretScalar& o) noexcept {
  decaf_255_scalar_sub(s_, s_, o.s_);
  return *this;
}
SecretScalar& SecretScalar::operator*=(const Scalar& o) noexcept {
  decaf_255_scalar_mul(s_, s_, o.raw());
  return *this;
}

SecretScalar SecretScalar::invert() const noexcept {
  SecretScalar r;
  // libdecaf inverts with a fixed exponentiation chain (constant time); for zero it reports
  // failure and leaves zero, which is the documented result here.
  const decaf_error_t ignored = decaf_255_scalar_invert(r.s_, s_);
  static_cast<void>(ignored);
  return r;
}

Scalar SecretScalar::declassify() const noexcept {
  Scalar r;
  decaf_255_scalar_copy(r.raw(), s_);
  gopa_declassify(r.raw(), sizeof(decaf_255_scalar_t));
  return r;
}

bool SecretScalar::ct_equal(const SecretScalar& o) const noexcept {
  const decaf_bool_t eq = decaf_255_scalar_eq(s_, o.s_);
  gopa_declassify(&eq, sizeof eq);
  return eq != 0;
}

}  // namespace gopa
