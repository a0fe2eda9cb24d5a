#include "gopa/sigma/common.hpp"

#include "gopa/msm.hpp"

namespace gopa::sigma {

const char* status_name(VerifyStatus s) noexcept {
  switch (s) {
    case VerifyStatus::kValid: return "valid";
    case VerifyStatus::kBadStatement: return "bad-statement";
    case VerifyStatus::kMalformedProof: return "malformed-proof";
    case VerifyStatus::kParameterMismatch: return "parameter-mismatch";
    case VerifyStatus::kIdentityPoint: return "identity-point";
    case VerifyStatus::kFinalEquation: return "final-equation";
    case VerifyStatus::kBatchEquation: return "batch-equation";
  }
  return "unknown";
}

void MsmTerms::add_gi(std::size_t i, const Fe& s) {
  if (gi_.size() <= i) gi_.resize(i + 1);
  gi_[i] = field::add(gi_[i], field::mul(weight_, s));
}

void MsmTerms::add(const Fe& s, const Point& p) {
  scalars_.push_back(field::mul(weight_, s));
  points_.push_back(p);
}

// VARIABLE TIME (public data): one multi-scalar multiplication over every term.
bool MsmTerms::is_identity(const GeneratorSet& gens) const {
  std::vector<Scalar> s;
  std::vector<Point> p;
  const auto gi = gens.Gi(gi_.size());
  s.reserve(size());
  p.reserve(size());
  for (std::size_t i = 0; i < gi_.size(); ++i) {
    if (field::is_zero(gi_[i])) continue;
    s.push_back(field::to_scalar(gi_[i]));
    p.push_back(gi[i]);
  }
  const Fe* fixed_s[3] = {&g_, &h_, &q_};
  const Point* fixed_p[3] = {&gens.G(), &gens.H(), &gens.Q()};
  for (std::size_t i = 0; i < 3; ++i) {
    if (field::is_zero(*fixed_s[i])) continue;
    s.push_back(field::to_scalar(*fixed_s[i]));
    p.push_back(*fixed_p[i]);
  }
  for (const Fe& x : scalars_) s.push_back(field::to_scalar(x));
  p.insert(p.end(), points_.begin(), points_.end());
  return msm(s, p).is_identity();
}

}  // namespace gopa::sigma
