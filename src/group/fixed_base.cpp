// Constant-time fixed-base scalar multiplication.
//
// k = Σ_{i<64} e_i·16^i with signed digits e_i ∈ [−8, 8]; the table holds j·16^i·B for j = 1..8
// in affine Niels form, so k·B is 64 mixed additions and no doublings. Constant time in k: the
// digit recoding is arithmetic only, every table lookup reads all 8 entries of its row and keeps
// one with masks, the sign is applied with a masked swap and a masked negation, and the
// additions are complete (no exceptional cases to branch on).
#include <sodium.h>

#include <array>
#include <cstdint>
#include <vector>

#include "edwards.hpp"
#include "gopa/check.hpp"
#include "gopa/msm.hpp"

namespace gopa {

namespace {

using detail::Ext;
using detail::Fe;
using detail::Niels;

constexpr int kRows = 64;    // radix-16 digits of a 256-bit scalar
constexpr int kPerRow = 8;   // |e_i| = 1..8

// 1 when a == b, else 0, for small non-negative a, b; no branches.
std::uint64_t ct_eq(std::uint64_t a, std::uint64_t b) noexcept {
  return ((a ^ b) - 1) >> 63;
}

}  // namespace

struct FixedBaseTable::Impl {
  std::vector<Niels> table;  // row i, entry j-1: j·16^i·base
};

FixedBaseTable::FixedBaseTable(const Point& base) : base_(base), impl_(std::make_unique<Impl>()) {
  std::vector<Ext> multiples(kRows * kPerRow);
  Ext row_base = detail::ext_from_decaf(*base.raw());
  for (std::size_t i = 0; i < kRows; ++i) {
    Ext m = row_base;
    multiples[i * kPerRow] = m;
    for (std::size_t j = 1; j < kPerRow; ++j) {
      m = detail::ext_add(m, row_base);
      multiples[i * kPerRow + j] = m;
    }
    for (int k = 0; k < 4; ++k) row_base = detail::ext_dbl(row_base);
  }
  impl_->table.resize(multiples.size());
  std::vector<Fe> scratch(multiples.size());
  detail::ext_batch_to_niels(multiples, impl_->table, scratch);
}

FixedBaseTable::~FixedBaseTable() = default;
FixedBaseTable::FixedBaseTable(FixedBaseTable&&) noexcept = default;
FixedBaseTable& FixedBaseTable::operator=(FixedBaseTable&&) noexcept = default;

namespace {

Point fixed_base_mul(const std::vector<Niels>& table, const decaf_255_scalar_s* k) noexcept {
  std::array<std::uint8_t, 32> bytes{};
  decaf_255_scalar_encode(bytes.data(), k);  // canonical: k < ℓ < 2^253
  std::array<std::int8_t, kRows> e{};
  for (std::size_t i = 0; i < 32; ++i) {
    e[2 * i] = static_cast<std::int8_t>(bytes[i] & 15);
    e[2 * i + 1] = static_cast<std::int8_t>(bytes[i] >> 4);
  }
  // Recentre each digit into [−8, 8) and carry; the top digit ends ≤ 2 because k < 2^253.
  std::int8_t carry = 0;
  for (std::size_t i = 0; i + 1 < kRows; ++i) {
    e[i] = static_cast<std::int8_t>(e[i] + carry);
    carry = static_cast<std::int8_t>((e[i] + 8) >> 4);
    e[i] = static_cast<std::int8_t>(e[i] - carry * 16);
  }
  e[kRows - 1] = static_cast<std::int8_t>(e[kRows - 1] + carry);

  Ext acc = detail::ext_identity();
  Niels t = detail::niels_identity();
  for (std::size_t i = 0; i < kRows; ++i) {
    const auto d = static_cast<std::uint64_t>(static_cast<std::int64_t>(e[i]));
    const std::uint64_t neg = d >> 63;
    const std::uint64_t mag = (d ^ (0 - neg)) + neg;  // |e_i|, without a branch
    t = detail::niels_identity();
    for (std::size_t j = 0; j < kPerRow; ++j) {
      const Niels& entry = table[i * kPerRow + j];
      const std::uint64_t hit = ct_eq(mag, j + 1);
      detail::fe_cmov(t.ypx, entry.ypx, hit);
      detail::fe_cmov(t.ymx, entry.ymx, hit);
      detail::fe_cmov(t.t2d, entry.t2d, hit);
    }
    // −(x, y) = (−x, y): swap y+x and y−x, negate 2d·x·y.
    detail::fe_cswap(t.ypx, t.ymx, neg);
    detail::fe_cmov(t.t2d, detail::fe_carry(detail::fe_neg(t.t2d)), neg);
    acc = detail::ext_add_niels(acc, t);
  }
  Point r;
  detail::ext_to_decaf(*r.raw(), acc);
  sodium_memzero(bytes.data(), bytes.size());
  sodium_memzero(e.data(), e.size());
  sodium_memzero(&t, sizeof t);
  sodium_memzero(&acc, sizeof acc);
  // k·B is public (see Point::operator*(SecretScalar)).
  gopa_declassify(r.raw(), sizeof(decaf_255_point_t));
  return r;
}

}  // namespace

Point FixedBaseTable::mul(const SecretScalar& k) const noexcept {
  return fixed_base_mul(impl_->table, k.raw());
}

Point FixedBaseTable::mul(const Scalar& k) const noexcept {
  return fixed_base_mul(impl_->table, k.raw());
}

}  // namespace gopa
