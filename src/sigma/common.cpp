#include "gopa/sigma/common.hpp"

#include "gopa/msm.hpp"
#include "compressed_impl.hpp"

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
  gi_[i] = field::add(gi_[i], weighted(s));
}

void MsmTerms::add(const Fe& s, const Point& p) {
  scalars_.push_back(weighted(s));
  points_.push_back(p);
}

void MsmTerms::merge(const MsmTerms& other) {
  if (gi_.size() < other.gi_.size()) gi_.resize(other.gi_.size());
  for (std::size_t i = 0; i < other.gi_.size(); ++i) gi_[i] = field::add(gi_[i], other.gi_[i]);
  g_ = field::add(g_, other.g_);
  h_ = field::add(h_, other.h_);
  q_ = field::add(q_, other.q_);
  scalars_.insert(scalars_.end(), other.scalars_.begin(), other.scalars_.end());
  points_.append(other.points_);
}

// VARIABLE TIME (public data): one multi-scalar multiplication over every term; the shared
// generators come from the cached basis of the generator set (normalised once, Straus tables).
bool MsmTerms::is_identity(const GeneratorSet& gens) const {
  const std::size_t k = gi_.size();
  const detail::PublicTables tab = detail::public_tables(gens, k);
  std::vector<Scalar> s(tab.rows);
  for (std::size_t i = 0; i < k; ++i) s[tab.gi(i)] = field::to_scalar(gi_[i]);
  s[tab.g] = field::to_scalar(g_);
  s[tab.h] = field::to_scalar(h_);
  s[tab.q] = field::to_scalar(q_);
  std::vector<Scalar> es;
  es.reserve(scalars_.size());
  for (const Fe& x : scalars_) es.push_back(field::to_scalar(x));
  return tab.basis->msm(s, es, points_).is_identity();
}

VerifyResult batch_verdict(const MsmTerms& eq, const GeneratorSet& gens) {
  if (!eq.is_identity(gens))
    return VerifyResult::fail(VerifyStatus::kBatchEquation, "batched final equation fails: at least one proof is invalid");
  return VerifyResult::valid();
}

VerifyResult of_proof(std::size_t i, VerifyResult r) {
  if (!r) r.message = "proof " + std::to_string(i) + ": " + r.message;
  return r;
}

}  // namespace gopa::sigma
