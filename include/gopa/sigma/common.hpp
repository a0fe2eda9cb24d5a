// gopa/sigma/common.hpp — what every compressed Σ-protocol of gopa shares: typed verification
// results and the multi-scalar equation a verifier accumulates.
//
//   gopa::sigma::VerifyResult r = gopa::sigma::verify_range(t, gens, statement, proof);
//   if (!r) std::puts(r.message.c_str());         // names the failed check
//
//   gopa::sigma::MsmTerms eq;                      // Σ s_i·P_i that must be the identity
//   eq.set_weight(w); …add terms of one proof…     // batch: one random weight per proof
//   bool ok = eq.is_identity(gens);                // ONE gopa::msm for all of them
//
// Security notes: everything here is public data (variable time).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/msm.hpp"
#include "gopa/parallel.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/field.hpp"

namespace gopa::sigma {

// Serialized proofs start with this byte (docs/proofs.md).
inline constexpr std::uint8_t kProofVersion = 0x02;  // 0x01: before the binding fix (docs/proofs.md §4.4)

// Proof kinds (second byte of every serialized proof).
enum class ProofKind : std::uint8_t {
  kLinear = 0x01,   // compressed pivot for linear forms (linear.hpp)
  kCircuit = 0x02,  // arithmetic circuit (circuit.hpp)
  kRange = 0x03,    // range proof (range.hpp)
  kBall = 0x04,     // L2-ball proof (ball.hpp)
};

// Closed set of verification outcomes. Every failure carries a message naming the check.
enum class VerifyStatus : std::uint8_t {
  kValid = 0,
  kBadStatement,     // parameters or statement outside what the verifier accepts
  kMalformedProof,   // decoding failed: version, kind, length, non-canonical scalar or point
  kParameterMismatch,  // the proof's header does not match the statement
  kIdentityPoint,    // a commitment that must not be the identity is
  kFinalEquation,    // the single multi-scalar verification equation does not hold
  kBatchEquation,    // the batched equation failed (some proof of the batch is invalid)
};

struct [[nodiscard]] VerifyResult {
  VerifyStatus status = VerifyStatus::kValid;
  std::string message;  // empty when valid; otherwise names the failed check

  static VerifyResult valid() { return {}; }
  static VerifyResult fail(VerifyStatus s, std::string why) { return {s, std::move(why)}; }
  [[nodiscard]] bool ok() const noexcept { return status == VerifyStatus::kValid; }
  explicit operator bool() const noexcept { return ok(); }
};

// Short name of a status ("valid", "final-equation", …) for reports and JSON.
[[nodiscard]] const char* status_name(VerifyStatus s) noexcept;

// A verification equation Σ s_i·P_i == identity, kept as coefficients of the shared generators
// (G, H, Q, G_0…) plus proof-specific points, so that many proofs merge into one MSM.
// Every add is multiplied by the current weight (1 by default). VARIABLE TIME: public data.
class MsmTerms {
 public:
  using Fe = field::Fe;
  void set_weight(const Scalar& w) {
    weight_ = field::of(w);
    unit_weight_ = false;
  }
  void add_gi(std::size_t i, const Scalar& s) { add_gi(i, field::of(s)); }
  void add_g(const Scalar& s) { add_g(field::of(s)); }
  void add_h(const Scalar& s) { add_h(field::of(s)); }
  void add_q(const Scalar& s) { add_q(field::of(s)); }
  void add(const Scalar& s, const Point& p) { add(field::of(s), p); }
  // The same with coefficients already in field form (hot loops of the verifiers).
  void add_gi(std::size_t i, const Fe& s);
  void add_g(const Fe& s) { g_ = field::add(g_, weighted(s)); }
  void add_h(const Fe& s) { h_ = field::add(h_, weighted(s)); }
  void add_q(const Fe& s) { q_ = field::add(q_, weighted(s)); }
  void add(const Fe& s, const Point& p);
  // Adds every term of `other` (already weighted) to this equation: terms gathered by several
  // threads, each into its own MsmTerms, become one equation.
  void merge(const MsmTerms& other);
  // Evaluates the whole equation with one gopa::msm.
  [[nodiscard]] bool is_identity(const GeneratorSet& gens) const;
  [[nodiscard]] std::size_t size() const noexcept { return gi_.size() + points_.size() + 3; }

 private:
  // s times the current weight (no multiplication while the weight is the initial 1).
  [[nodiscard]] Fe weighted(const Fe& s) const { return unit_weight_ ? s : field::mul(weight_, s); }
  Fe weight_ = field::one();
  bool unit_weight_ = true;
  std::vector<Fe> gi_;
  Fe g_, h_, q_;
  std::vector<Fe> scalars_;
  MsmPoints points_;  // normalised as they come: 96 bytes a term, not 320
};

// Runs add(k, terms) for k < count on up to `threads` threads (0 counts as 1), contiguous runs of
// k per thread, each run into its own MsmTerms, then adds them all into eq: the terms of many
// proof parts, gathered in parallel, as one equation. add returns false to end its run early (a
// structural defect; the caller reports the first one in order). Callers that weight the parts
// draw the weights before, in order, so that nothing depends on the thread count.
template <class Fn>
void gather_terms(std::size_t count, unsigned threads, MsmTerms& eq, Fn&& add) {
  const std::size_t runs = std::min<std::size_t>(std::max(threads, 1U), count);
  std::vector<MsmTerms> parts(runs);
  parallel_runs(count, runs, [&](std::size_t r, std::size_t k) { return add(k, parts[r]); });
  for (const MsmTerms& part : parts) eq.merge(part);
}

// The verdict of a batch whose equation is eq: valid, or kBatchEquation ("batched final equation
// fails: at least one proof is invalid"; the caller then checks each proof alone to name it).
[[nodiscard]] VerifyResult batch_verdict(const MsmTerms& eq, const GeneratorSet& gens);
// r, its message prefixed with "proof i: " when it failed (a defect of the i-th proof of a batch).
[[nodiscard]] VerifyResult of_proof(std::size_t i, VerifyResult r);

}  // namespace gopa::sigma
