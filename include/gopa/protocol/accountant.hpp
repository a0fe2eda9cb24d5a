// gopa/protocol/accountant.hpp — the exact privacy accountant of GOPA for one graph and one
// malicious set.
//
// The adversary sees Y_H = X_H + B_H Δ_H + η_H for the honest parties (B_H: incidence matrix of
// the honest subgraph), a Gaussian mechanism with covariance Σ = σ_η² I + σ_Δ² L_H. Changing honest
// party u's input by the L2 sensitivity s gives μ_u² = s² e_uᵀ Σ⁻¹ e_u, and the mechanism is as
// private as a scalar Gaussian mechanism with parameter max_u μ_u (docs/privacy.md §1).
//
// Σ⁻¹_uu is computed by preconditioned conjugate gradient on M = I + (σ_Δ/σ_η)² L_H, with a
// certified enclosure: for any iterate x with true residual r = e_u − M x,
//     x_u + xᵀr  ≤  e_uᵀ M⁻¹ e_u  ≤  x_u + xᵀr + ‖r‖²      (because M ⪰ I).
//
//   auto h = HonestSubgraph::build(g, malicious);
//   Accountant acc(h, sigma_eta, sigma_delta);
//   AccountantReport rep = acc.report(/*sensitivity=*/1.0, /*delta=*/1e-5, /*threads=*/2);
//   // rep.mu_max, rep.epsilon, rep.worst_party
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "gopa/protocol/graph.hpp"

namespace gopa::protocol {

// An enclosure [lower, upper] of e_uᵀ M⁻¹ e_u = σ_η² · Σ⁻¹_uu.
struct Enclosure {
  double lower = 0.0;
  double upper = 0.0;
  int iterations = 0;
};

struct AccountantReport {
  double mu_max = 0.0;             // max over honest u of s·sqrt(Σ⁻¹_uu), from the upper bounds
  double epsilon = 0.0;            // smallest ε with (ε, δ)-DP at mu_max
  double delta = 0.0;              // the δ it was asked for
  std::uint32_t worst_party = 0;   // original index of the maximising honest party
  std::uint32_t honest = 0;        // n_H
  std::uint32_t components = 0;    // connected components of G^H
  double max_relative_gap = 0.0;   // max (upper − lower) / lower over parties
  std::vector<double> precision;   // per honest party (honest index): upper bound of σ_η² Σ⁻¹_uu
};

class Accountant {
 public:
  // σ_η > 0; σ_Δ ≥ 0, may be +infinity (the limit where pairwise noise hides everything within
  // a connected component). Throws std::invalid_argument on bad parameters.
  Accountant(const HonestSubgraph& h, double sigma_eta, double sigma_delta);

  // Enclosure of σ_η² Σ⁻¹_uu for honest index u, to relative width rel_tol. Stops early once the
  // enclosure is certainly ≤ pass_below or certainly > fail_above (planner decisions).
  [[nodiscard]] Enclosure scaled_precision(
      std::uint32_t u, double rel_tol = 1e-10,
      double pass_below = -std::numeric_limits<double>::infinity(),
      double fail_above = std::numeric_limits<double>::infinity()) const;

  // Every honest party, split over `threads` threads.
  [[nodiscard]] AccountantReport report(double sensitivity, double delta, unsigned threads = 1) const;

  [[nodiscard]] double ratio() const { return t_; }  // (σ_Δ/σ_η)²

 private:
  const HonestSubgraph& h_;
  double sigma_eta_;
  double t_;
};

// Honest parties most likely to maximise Σ⁻¹_uu, best first: ranked by the local estimate
// 1/d_u + (1/d_u²) Σ_{v~u} 1/d_v of d_u·L⁺_uu (isolated parties first). Used by the planner to
// screen; the full accountant checks every party.
[[nodiscard]] std::vector<std::uint32_t> screen_candidates(const HonestSubgraph& h, std::size_t count);

// Smallest ratio t = (σ_Δ/σ_η)² such that σ_η² Σ⁻¹_uu ≤ target for every u in `parties`
// (honest indices), within relative accuracy ~1e-3 (rounded up). +infinity when the target is
// below 1/n_c for some party's component (no σ_Δ suffices); 0 when σ_Δ = 0 already suffices.
[[nodiscard]] double required_ratio(const HonestSubgraph& h, const std::vector<std::uint32_t>& parties,
                                    double target);

}  // namespace gopa::protocol
