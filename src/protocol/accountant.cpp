#include "gopa/protocol/accountant.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "gopa/check.hpp"
#include "gopa/protocol/gaussian_dp.hpp"

namespace gopa::protocol {

namespace {

// e_uᵀ M⁻¹ e_u = 1/n_c + bᵀ M⁻¹ b with b = e_u − 1_c/n_c (1_c: indicator of u's component),
// because M 1_c = 1_c and b ⊥ 1_c. Solving M x = b by conjugate gradient inside the subspace
// orthogonal to 1_c (Jacobi preconditioner followed by the projection) removes the outlying
// eigenvalue 1 of M, so the iteration stays well conditioned even when t = (σ_Δ/σ_η)² is huge.
// For an iterate x with residual r = b − M x:
//     bᵀM⁻¹b = bᵀx + xᵀr + rᵀM⁻¹r,   0 ≤ rᵀM⁻¹r ≤ ‖r‖²   (M ⪰ I),
// and the computed residual is widened by a bound on its rounding error.
Enclosure solve(const HonestSubgraph& h, double t, std::uint32_t u, double rel_tol, double pass_below,
                double fail_above) {
  const Graph& g = h.graph;
  const std::uint32_t comp = h.component[u];
  const double nc = static_cast<double>(h.component_size[comp]);
  Enclosure e;
  if (t == 0.0 || g.degree(u) == 0) {
    e.lower = e.upper = 1.0;
    return e;
  }
  if (std::isinf(t)) {
    e.lower = e.upper = 1.0 / nc;
    return e;
  }
  // Vectors span all honest parties but vanish outside u's component (M is block diagonal), so
  // the hot loops run over everything without indirection; only the projection needs the
  // component, and it is the whole graph in the usual case.
  const std::uint32_t n = g.n;
  const bool whole = h.component_size[comp] == n;
  std::vector<std::uint32_t> members;
  if (!whole) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (h.component[i] == comp) members.push_back(i);
    }
  }
  std::vector<double> x(n, 0.0), r(n, 0.0), z(n, 0.0), p(n, 0.0), q(n, 0.0), b(n, 0.0), dinv(n, 0.0);
  const double inv_nc = 1.0 / nc;
  if (whole) {
    for (std::uint32_t i = 0; i < n; ++i) b[i] = -inv_nc;
  } else {
    for (auto i : members) b[i] = -inv_nc;
  }
  b[u] += 1.0;
  for (std::uint32_t i = 0; i < n; ++i) dinv[i] = 1.0 / (1.0 + t * static_cast<double>(g.degree(i)));
  const std::uint32_t* off = g.offsets.data();
  const std::uint32_t* adj = g.adj.data();
  auto project = [&](std::vector<double>& v) {
    double mean = 0.0;
    if (whole) {
      for (std::uint32_t i = 0; i < n; ++i) mean += v[i];
      mean *= inv_nc;
      for (std::uint32_t i = 0; i < n; ++i) v[i] -= mean;
    } else {
      for (auto i : members) mean += v[i];
      mean *= inv_nc;
      for (auto i : members) v[i] -= mean;
    }
  };
  // out = M v; returns vᵀ M v.
  auto apply = [&](const std::vector<double>& v, std::vector<double>& out) {
    double vmv = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const double vi = v[i];
      double acc = 0.0;
      for (std::uint32_t k = off[i]; k < off[i + 1]; ++k) acc += vi - v[adj[k]];
      out[i] = vi + t * acc;
      vmv += vi * out[i];
    }
    return vmv;
  };
  double best_lower = -std::numeric_limits<double>::infinity();
  double best_upper = std::numeric_limits<double>::infinity();
  int stale = 0;
  // Updates the enclosure from x (residual recomputed, widened by a bound on its rounding error:
  // |fl(r_i) − r_i| ≤ err_i = c·(|x_i| + t Σ_{j~i} |x_i − x_j| + |b_i|)); true = stop.
  auto certify = [&]() {
    double bx = 0.0, xr = 0.0, rr = 0.0, x_err = 0.0, err2 = 0.0;
    constexpr double kUnit = 1.2e-16;
    for (std::uint32_t i = 0; i < n; ++i) {
      const double xi = x[i];
      double acc = 0.0, nb = 0.0;
      for (std::uint32_t k = off[i]; k < off[i + 1]; ++k) {
        const double d = xi - x[adj[k]];
        acc += d;
        nb += std::abs(d);
      }
      const double ri = b[i] - (xi + t * acc);
      bx += b[i] * xi;
      xr += xi * ri;
      rr += ri * ri;
      const double deg = static_cast<double>(off[i + 1] - off[i]);
      const double err = kUnit * (deg + 4.0) * (std::abs(xi) + t * nb + std::abs(b[i]));
      x_err += std::abs(xi) * err;
      err2 += err * err;
    }
    const double value = inv_nc + bx + xr;
    const double rnorm = std::sqrt(rr) + std::sqrt(err2);
    const double slack = x_err + 8.0 * kUnit * (inv_nc + std::abs(bx) + std::abs(xr));
    const double lower = value - slack;
    const double upper = value + rnorm * rnorm + slack;
    if (upper < best_upper * (1.0 - 1e-3 * rel_tol)) {
      stale = 0;
    } else {
      ++stale;
    }
    best_lower = std::max(best_lower, lower);
    best_upper = std::min(best_upper, upper);
    e.lower = best_lower;
    e.upper = best_upper;
    if (e.upper - e.lower <= rel_tol * e.lower) return true;
    if (e.upper <= pass_below || e.lower > fail_above) return true;
    return stale >= 4;  // no progress: at the rounding floor
  };
  // Start from the local approximation x = P D⁻¹ b.
  for (std::uint32_t i = 0; i < n; ++i) x[i] = dinv[i] * b[i];
  project(x);
  apply(x, q);
  for (std::uint32_t i = 0; i < n; ++i) r[i] = b[i] - q[i];
  project(r);
  for (std::uint32_t i = 0; i < n; ++i) z[i] = dinv[i] * r[i];
  project(z);
  p = z;
  double rz = 0.0, rr = 0.0;
  for (std::uint32_t i = 0; i < n; ++i) {
    rz += r[i] * z[i];
    rr += r[i] * r[i];
  }
  const int max_iter = static_cast<int>(std::min<double>(20.0 * nc + 50.0, 5000.0));
  // Certify early and then periodically: early exits (pass/fail decisions) are cheap.
  auto due = [](int it) { return it == 3 || (it >= 7 && it % 4 == 3); };
  for (int it = 0; it < max_iter; ++it) {
    e.iterations = it;
    if (rr <= rel_tol * inv_nc || due(it)) {
      if (certify()) return e;
    }
    const double pq = apply(p, q);
    if (!(pq > 0.0)) break;
    const double alpha = rz / pq;
    double mean = 0.0;
    for (std::uint32_t i = 0; i < n; ++i) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
      z[i] = dinv[i] * r[i];
      mean += z[i];
    }
    // z ← P z, fused with the dot products.
    double rz_new = 0.0;
    rr = 0.0;
    if (whole) {
      mean *= inv_nc;
      for (std::uint32_t i = 0; i < n; ++i) {
        z[i] -= mean;
        rz_new += r[i] * z[i];
        rr += r[i] * r[i];
      }
    } else {
      project(z);
      for (std::uint32_t i = 0; i < n; ++i) {
        rz_new += r[i] * z[i];
        rr += r[i] * r[i];
      }
    }
    if (!(rz_new > 0.0)) break;
    const double beta = rz_new / rz;
    rz = rz_new;
    for (std::uint32_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
  }
  certify();
  return e;
}

}  // namespace

Accountant::Accountant(const HonestSubgraph& h, double sigma_eta, double sigma_delta)
    : h_(h), sigma_eta_(sigma_eta) {
  if (!(sigma_eta > 0.0) || !std::isfinite(sigma_eta)) {
    throw std::invalid_argument("sigma_eta must be finite and > 0");
  }
  if (!(sigma_delta >= 0.0)) throw std::invalid_argument("sigma_delta must be >= 0");
  t_ = std::isinf(sigma_delta) ? sigma_delta : (sigma_delta / sigma_eta) * (sigma_delta / sigma_eta);
}

Enclosure Accountant::scaled_precision(std::uint32_t u, double rel_tol, double pass_below,
                                       double fail_above) const {
  GOPA_CHECK(u < h_.size(), "honest index out of range");
  return solve(h_, t_, u, rel_tol, pass_below, fail_above);
}

AccountantReport Accountant::report(double sensitivity, double delta, unsigned threads) const {
  if (!(sensitivity > 0.0)) throw std::invalid_argument("sensitivity must be > 0");
  AccountantReport rep;
  rep.delta = delta;
  rep.honest = h_.size();
  rep.components = static_cast<std::uint32_t>(h_.component_size.size());
  if (h_.size() == 0) return rep;
  rep.precision.assign(h_.size(), 0.0);
  std::vector<double> gap(h_.size(), 0.0);
  threads = std::max(1u, std::min(threads, h_.size()));
  auto work = [&](unsigned w) {
    for (std::uint32_t u = w; u < h_.size(); u += threads) {
      const Enclosure e = solve(h_, t_, u, 1e-10, -1.0, std::numeric_limits<double>::infinity());
      rep.precision[u] = e.upper;
      gap[u] = (e.upper - e.lower) / e.lower;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& th : pool) th.join();
  const auto it = std::max_element(rep.precision.begin(), rep.precision.end());
  const auto worst = static_cast<std::uint32_t>(it - rep.precision.begin());
  rep.worst_party = h_.original[worst];
  rep.mu_max = sensitivity * std::sqrt(*it) / sigma_eta_;
  rep.max_relative_gap = *std::max_element(gap.begin(), gap.end());
  rep.epsilon = epsilon_for(rep.mu_max, delta);
  return rep;
}

std::vector<std::uint32_t> screen_candidates(const HonestSubgraph& h, std::size_t count) {
  const Graph& g = h.graph;
  std::vector<double> score(g.n);
  for (std::uint32_t u = 0; u < g.n; ++u) {
    const double d = g.degree(u);
    if (d == 0) {
      score[u] = std::numeric_limits<double>::infinity();
      continue;
    }
    double s = 0.0;
    for (auto v : g.neighbours(u)) s += 1.0 / static_cast<double>(g.degree(v));
    // Parties in small components are weak whatever their degree.
    score[u] = 1.0 / d + s / (d * d) + 1.0 / static_cast<double>(h.component_size[h.component[u]]);
  }
  std::vector<std::uint32_t> idx(g.n);
  std::iota(idx.begin(), idx.end(), 0u);
  count = std::min(count, idx.size());
  std::partial_sort(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(count), idx.end(),
                    [&](std::uint32_t a, std::uint32_t b) {
                      return score[a] > score[b] || (score[a] == score[b] && a < b);
                    });
  idx.resize(count);
  return idx;
}

double required_ratio(const HonestSubgraph& h, const std::vector<std::uint32_t>& parties, double target) {
  double t_max = 0.0;
  for (auto u : parties) {
    GOPA_CHECK(u < h.size(), "honest index out of range");
    const double inv_nc = 1.0 / static_cast<double>(h.component_size[h.component[u]]);
    if (inv_nc >= target) return std::numeric_limits<double>::infinity();
    if (1.0 <= target) continue;  // no pairwise noise needed at all
    // Already fine at the current maximum?
    if (t_max > 0.0 && solve(h, t_max, u, 1e-6, target, target).upper <= target) continue;
    // g(s) = f(1/s) − 1/n_c is concave increasing in s = 1/t with g(0) = 0, so the iteration
    // s ← s·τ'/g(s) decreases monotonically to the root from any start with g(s) > τ'.
    const double tau = target - inv_nc;
    double s = std::max(1.0, static_cast<double>(h.graph.degree(u))) * tau;
    auto g_of = [&](double sv) { return solve(h, 1.0 / sv, u, 1e-9, -1.0, 2.0).upper - inv_nc; };
    double gs = g_of(s);
    while (gs <= tau) {
      s *= 4.0;
      gs = g_of(s);
      if (s > 1e12) break;
    }
    for (int i = 0; i < 60; ++i) {
      const double next = s * tau / gs;
      const bool done = (s - next) <= 1e-4 * s;
      s = next;
      gs = g_of(s);
      if (done && gs <= tau) break;
    }
    while (gs > tau && s > 1e-300) {  // not converged: make sure the answer is certified
      s *= 0.5;
      gs = g_of(s);
    }
    // Approach from above leaves s ≥ s*; shrink a hair to be on the safe side.
    t_max = std::max(t_max, 1.0 / (s * (1.0 - 1e-3)));
  }
  return t_max;
}

}  // namespace gopa::protocol
