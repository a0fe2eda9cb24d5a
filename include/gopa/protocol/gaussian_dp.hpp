// gopa/protocol/gaussian_dp.hpp — the analytic Gaussian mechanism (Balle & Wang, ICML 2018).
//
// A Gaussian mechanism whose two neighbouring output distributions are N(0, Σ) and N(v, Σ) is
// characterised by one number, μ = sqrt(vᵀ Σ⁻¹ v) (for a scalar mechanism: sensitivity / σ).
// It is (ε, δ)-DP exactly when
//     δ ≥ Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ).
// These functions convert between μ and (ε, δ) in both directions. The math is in docs/privacy.md.
//
//   double mu = gopa::protocol::mu_for(1.0, 1e-5);           // largest μ that is (1, 1e-5)-DP
//   double sigma = gopa::protocol::sigma_for(1.0, 1e-5, 1.0); // noise for sensitivity 1
#pragma once

namespace gopa::protocol {

// Standard normal CDF, accurate in both tails (through erfc).
[[nodiscard]] double normal_cdf(double x) noexcept;

// The smallest δ such that a Gaussian mechanism with parameter μ ≥ 0 is (ε, δ)-DP, ε ≥ 0.
[[nodiscard]] double delta_for(double epsilon, double mu) noexcept;

// The largest μ such that the mechanism is (ε, δ)-DP. ε ≥ 0, 0 < δ < 1 (throws otherwise).
[[nodiscard]] double mu_for(double epsilon, double delta);

// The smallest ε ≥ 0 such that a mechanism with parameter μ is (ε, δ)-DP. μ ≥ 0, 0 < δ < 1.
[[nodiscard]] double epsilon_for(double mu, double delta);

// Noise standard deviation for an L2 sensitivity: sensitivity / mu_for(ε, δ).
[[nodiscard]] double sigma_for(double epsilon, double delta, double sensitivity);

}  // namespace gopa::protocol
