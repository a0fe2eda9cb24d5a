// Constant-time fixed-base scalar multiplication.
#include "gopa/msm.hpp"

namespace gopa {

struct FixedBaseTable::Impl {};

FixedBaseTable::FixedBaseTable(const Point& base) : base_(base), impl_(std::make_unique<Impl>()) {}
FixedBaseTable::~FixedBaseTable() = default;
FixedBaseTable::FixedBaseTable(FixedBaseTable&&) noexcept = default;
FixedBaseTable& FixedBaseTable::operator=(FixedBaseTable&&) noexcept = default;

Point FixedBaseTable::mul(const SecretScalar& k) const noexcept { return base_ * k; }
Point FixedBaseTable::mul(const Scalar& k) const noexcept { return base_ * k; }

}  // namespace gopa
