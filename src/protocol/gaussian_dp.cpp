#include "gopa/protocol/gaussian_dp.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace gopa::protocol {

namespace {

void require_delta(double delta) {
  if (!(delta > 0.0 && delta < 1.0)) {
    throw std::invalid_argument("delta must be in (0, 1), got " + std::to_string(delta));
  }
}

}  // namespace

double normal_cdf(double x) noexcept { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double delta_for(double epsilon, double mu) noexcept {
  if (mu <= 0.0) return 0.0;
  if (std::isinf(mu)) return 1.0;
  const double a = mu / 2.0 - epsilon / mu;
  const double b = -mu / 2.0 - epsilon / mu;
  // e^ε Φ(b) computed in log space so that large ε does not overflow.
  const double tail = std::exp(epsilon + std::log(normal_cdf(b)));
  const double d = normal_cdf(a) - (std::isfinite(tail) ? tail : 0.0);
  return d > 0.0 ? d : 0.0;
}

double mu_for(double epsilon, double delta) {
  require_delta(delta);
  if (!(epsilon >= 0.0) || !std::isfinite(epsilon)) {
    throw std::invalid_argument("epsilon must be finite and >= 0, got " + std::to_string(epsilon));
  }
  // δ(ε, μ) increases with μ: bracket then bisect.
  double lo = 0.0;
  double hi = 1.0;
  while (delta_for(epsilon, hi) <= delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e6) return hi;  // unreachable for δ < 1
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (delta_for(epsilon, mid) <= delta) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

double epsilon_for(double mu, double delta) {
  require_delta(delta);
  if (!(mu >= 0.0)) throw std::invalid_argument("mu must be >= 0");
  if (mu == 0.0) return 0.0;
  if (std::isinf(mu)) return std::numeric_limits<double>::infinity();
  if (delta_for(0.0, mu) <= delta) return 0.0;
  // δ(ε, μ) decreases with ε.
  double lo = 0.0;
  double hi = 1.0;
  while (delta_for(hi, mu) > delta) {
    lo = hi;
    hi *= 2.0;
    if (hi > 1e6) return std::numeric_limits<double>::infinity();
  }
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (delta_for(mid, mu) > delta) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

double sigma_for(double epsilon, double delta, double sensitivity) {
  if (!(sensitivity > 0.0) || !std::isfinite(sensitivity)) {
    throw std::invalid_argument("sensitivity must be finite and > 0");
  }
  return sensitivity / mu_for(epsilon, delta);
}

}  // namespace gopa::protocol
