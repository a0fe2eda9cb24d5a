// Tests of the privacy accountant, the graph samplers and the planner (docs/privacy.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gopa/protocol/accountant.hpp"
#include "gopa/protocol/gaussian_dp.hpp"
#include "gopa/protocol/graph.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/requirements.hpp"
#include "gopa/protocol/session.hpp"

using namespace gopa::protocol;

namespace {

// Dense reference: diag of (σ_η² I + σ_Δ² L_H)⁻¹ by Cholesky, in long double.
std::vector<double> dense_diag_inverse(const Graph& g, double sigma_eta, double sigma_delta) {
  const std::size_t n = g.n;
  std::vector<long double> a(n * n, 0.0L);
  const long double se2 = static_cast<long double>(sigma_eta) * sigma_eta;
  const long double sd2 = static_cast<long double>(sigma_delta) * sigma_delta;
  for (std::uint32_t i = 0; i < g.n; ++i) {
    a[i * n + i] = se2 + sd2 * g.degree(i);
    for (auto j : g.neighbours(i)) a[i * n + j] -= sd2;
  }
  // In-place Cholesky a = L Lᵀ (lower triangle).
  for (std::size_t j = 0; j < n; ++j) {
    long double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    REQUIRE(d > 0.0L);
    a[j * n + j] = std::sqrt(d);
    for (std::size_t i = j + 1; i < n; ++i) {
      long double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / a[j * n + j];
    }
  }
  // (Σ⁻¹)_uu = ‖L⁻¹ e_u‖².
  std::vector<double> out(n);
  std::vector<long double> y(n);
  for (std::size_t u = 0; u < n; ++u) {
    long double norm = 0.0L;
    for (std::size_t i = 0; i < n; ++i) {
      long double s = (i == u) ? 1.0L : 0.0L;
      for (std::size_t k = 0; k < i; ++k) s -= a[i * n + k] * y[k];
      y[i] = s / a[i * n + i];
      norm += y[i] * y[i];
    }
    out[u] = static_cast<double>(norm);
  }
  return out;
}

}  // namespace

TEST_CASE("analytic Gaussian mechanism: conversions are inverse and monotone", "[privacy][dp]") {
  for (double eps : {0.01, 0.1, 0.5, 1.0, 2.0, 8.0}) {
    for (double delta : {1e-3, 1e-5, 1e-9}) {
      const double mu = mu_for(eps, delta);
      REQUIRE(mu > 0.0);
      CHECK(delta_for(eps, mu) <= delta);
      CHECK(delta_for(eps, mu * (1 + 1e-9)) > delta * (1 - 1e-6));
      CHECK(epsilon_for(mu, delta) == Approx(eps).epsilon(1e-9));
      // Tighter than the classical calibration σ = s·sqrt(2 ln(1.25/δ))/ε (valid for ε < 1).
      if (eps < 1.0) CHECK(1.0 / mu < std::sqrt(2.0 * std::log(1.25 / delta)) / eps);
    }
  }
  // μ = 1 is the textbook 1-GDP example: δ(ε=0) = Φ(1/2) − Φ(−1/2).
  CHECK(delta_for(0.0, 1.0) == Approx(normal_cdf(0.5) - normal_cdf(-0.5)).epsilon(1e-14));
  CHECK(delta_for(1.0, 0.0) == 0.0);
  CHECK(epsilon_for(0.0, 1e-5) == 0.0);
  CHECK(sigma_for(1.0, 1e-5, 2.0) == Approx(2.0 * sigma_for(1.0, 1e-5, 1.0)));
  CHECK_THROWS_AS(mu_for(1.0, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(mu_for(-1.0, 1e-5), std::invalid_argument);
}

TEST_CASE("k-out graphs and malicious sets", "[privacy][graph]") {
  Prng rng(7);
  const Graph g = sample_k_out(500, 6, rng);
  REQUIRE(g.offsets.size() == 501);
  std::size_t sum = 0;
  for (std::uint32_t u = 0; u < g.n; ++u) {
    CHECK(g.degree(u) >= 6);
    auto nb = g.neighbours(u);
    std::vector<std::uint32_t> row(nb.begin(), nb.end());
    std::sort(row.begin(), row.end());
    CHECK(std::adjacent_find(row.begin(), row.end()) == row.end());
    for (auto v : row) {
      CHECK(v != u);
      auto back = g.neighbours(v);
      CHECK(std::find(back.begin(), back.end(), u) != back.end());  // symmetric
    }
    sum += g.degree(u);
  }
  CHECK(sum == 2 * g.edges());
  CHECK(g.edges() <= 500u * 6u);
  CHECK(g.edges() > 500u * 6u * 95u / 100u);
  const std::pair<std::uint32_t, std::uint32_t> list[] = {{0, 1}, {2, 1}, {1, 0}, {3, 2}};
  const Graph small = Graph::from_edges(4, list);
  CHECK(small.edges() == 3u);
  CHECK(small.degree(1) == 2u);
  CHECK(small.neighbours(1)[0] == 0u);
  CHECK(small.neighbours(1)[1] == 2u);
  const std::pair<std::uint32_t, std::uint32_t> loop[] = {{1, 1}};
  CHECK_THROWS_AS(Graph::from_edges(4, loop), std::invalid_argument);
  // Dense k (shuffle path): the complete graph.
  const Graph full = sample_k_out(10, 9, rng);
  CHECK(full.edges() == 45u);
  CHECK_THROWS_AS(sample_k_out(10, 10, rng), std::invalid_argument);
  CHECK_THROWS_AS(sample_k_out(10, 0, rng), std::invalid_argument);

  const Mask r = random_corruption(500, 200, rng);
  std::size_t bad = 0;
  for (auto b : r) bad += b;
  CHECK(bad == 200);
  const Mask gr = greedy_degree_corruption(g, 200);
  bad = 0;
  for (auto b : gr) bad += b;
  CHECK(bad == 200);
  // The greedy attack leaves fewer honest edges than a random set of the same size.
  CHECK(HonestSubgraph::build(g, gr).graph.edges() < HonestSubgraph::build(g, r).graph.edges());
  const HonestSubgraph h = HonestSubgraph::build(g, r);
  CHECK(h.size() == 300);
  for (std::uint32_t i = 0; i < h.size(); ++i) CHECK(!r[h.original[i]]);
}

TEST_CASE("exact accountant matches a dense computation to 1e-6", "[privacy][accountant]") {
  Prng rng(11);
  for (std::uint32_t trial = 0; trial < 6; ++trial) {
    const std::uint32_t n = 40 + 15 * trial;
    const std::uint32_t k = 1 + trial % 4;
    const Graph g = sample_k_out(n, k, rng);
    const Mask m = (trial % 2 == 0) ? random_corruption(n, n / 3, rng) : greedy_degree_corruption(g, n / 4);
    const HonestSubgraph h = HonestSubgraph::build(g, m);
    for (double sigma_delta : {0.3, 2.0, 30.0, 3000.0}) {
      const double sigma_eta = 0.7;
      const auto ref = dense_diag_inverse(h.graph, sigma_eta, sigma_delta);
      const Accountant acc(h, sigma_eta, sigma_delta);
      const auto rep = acc.report(1.0, 1e-5, 2);
      double worst = 0.0;
      for (std::uint32_t u = 0; u < h.size(); ++u) {
        const double mine = rep.precision[u] / (sigma_eta * sigma_eta);
        CHECK(std::abs(mine - ref[u]) <= 1e-6 * ref[u]);
        // The certified enclosure contains the reference.
        const Enclosure e = acc.scaled_precision(u);
        CHECK(e.lower / (sigma_eta * sigma_eta) <= ref[u] * (1 + 1e-11));
        CHECK(e.upper / (sigma_eta * sigma_eta) >= ref[u] * (1 - 1e-11));
        worst = std::max(worst, ref[u]);
      }
      CHECK(rep.mu_max == Approx(std::sqrt(worst)).epsilon(1e-6));
      CHECK(rep.max_relative_gap <= 1e-9);
    }
  }
}

TEST_CASE("sigma_delta -> infinity tends to central DP for the honest noise total", "[privacy][accountant]") {
  Prng rng(3);
  const std::uint32_t n = 400;
  const Graph g = sample_k_out(n, 8, rng);
  const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(n, 100, rng));
  REQUIRE(h.component_size.size() == 1);
  const double sigma_eta = 0.05, delta = 1e-5;
  const double central_mu = 1.0 / (sigma_eta * std::sqrt(static_cast<double>(h.size())));
  const double central_eps = epsilon_for(central_mu, delta);
  double previous = std::numeric_limits<double>::infinity();
  for (double sigma_delta : {0.01, 0.1, 1.0, 10.0, 100.0, 1e4}) {
    const auto rep = Accountant(h, sigma_eta, sigma_delta).report(1.0, delta, 2);
    CHECK(rep.epsilon < previous);  // more pairwise noise never hurts
    CHECK(rep.epsilon >= central_eps * (1 - 1e-9));
    previous = rep.epsilon;
    if (sigma_delta == 1e4) CHECK(rep.epsilon == Approx(central_eps).epsilon(1e-4));
  }
  const auto limit = Accountant(h, sigma_eta, std::numeric_limits<double>::infinity()).report(1.0, delta, 1);
  CHECK(limit.mu_max == Approx(central_mu).epsilon(1e-12));
  CHECK(limit.epsilon == Approx(central_eps).epsilon(1e-9));
}

TEST_CASE("screening finds the weakest honest party", "[privacy][accountant]") {
  // The planner checks only screened parties; on small graphs the full maximum must be among them.
  int hits = 0, total = 0;
  for (std::uint32_t trial = 0; trial < 16; ++trial) {
    Prng rng(trial_seed(99, trial));
    const std::uint32_t n = 300;
    const Graph g = sample_k_out(n, 5 + trial % 4, rng);
    const Mask m = (trial % 2) ? random_corruption(n, 150, rng) : greedy_degree_corruption(g, 150);
    const HonestSubgraph h = HonestSubgraph::build(g, m);
    const Accountant acc(h, 1.0, 20.0);
    const auto rep = acc.report(1.0, 1e-5, 2);
    const double full = *std::max_element(rep.precision.begin(), rep.precision.end());
    double screened = 0.0;
    for (auto u : screen_candidates(h, 4)) screened = std::max(screened, rep.precision[u]);
    ++total;
    if (screened >= full * (1 - 1e-12)) ++hits;
    CHECK(screened >= 0.97 * full);
  }
  CHECK(hits >= total - 1);
}

TEST_CASE("required ratio is tight", "[privacy][planner]") {
  Prng rng(5);
  const Graph g = sample_k_out(300, 6, rng);
  const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(300, 100, rng));
  const auto cands = screen_candidates(h, 4);
  const double target = 1.1025 / h.size();
  const double t = required_ratio(h, cands, target);
  REQUIRE(std::isfinite(t));
  double at = 0.0, below = 0.0;
  const Accountant a1(h, 1.0, std::sqrt(t)), a2(h, 1.0, std::sqrt(t / 1.01));
  for (auto u : cands) {
    at = std::max(at, a1.scaled_precision(u).upper);
    below = std::max(below, a2.scaled_precision(u).upper);
  }
  CHECK(at <= target);
  CHECK(below > target);
  // Unreachable target: below 1/n_H.
  CHECK(std::isinf(required_ratio(h, cands, 0.9 / h.size())));
}

TEST_CASE("closed-form bounds and statistics", "[privacy][planner]") {
  CHECK(binomial_upper_bound(0, 1000, 0.95) == Approx(1 - std::pow(0.05, 1e-3)).epsilon(1e-6));
  CHECK(binomial_upper_bound(5, 1000, 0.95) > 0.005);
  CHECK(binomial_upper_bound(5, 1000, 0.95) < 0.012);
  // The union bound dominates the observed disconnection rate.
  const std::uint32_t n = 60, bad = 30, k = 3;
  int disconnected = 0;
  const int runs = 2000;
  for (int i = 0; i < runs; ++i) {
    Prng rng(trial_seed(1234, static_cast<std::uint64_t>(i)));
    const Graph g = sample_k_out(n, k, rng);
    if (HonestSubgraph::build(g, random_corruption(n, bad, rng)).component_size.size() > 1) ++disconnected;
  }
  const double bound = disconnect_probability_bound(n, bad, k);
  CHECK(static_cast<double>(disconnected) / runs <= bound + 0.02);
  CHECK(disconnect_probability_bound(10000, 5000, 30) < disconnect_probability_bound(10000, 5000, 20));
  CHECK(disconnect_probability_bound(10000, 0, 4) < 1e-3);
}

TEST_CASE("planner on a small instance", "[privacy][planner]") {
  PlanRequest req;
  req.parties = 200;
  req.honest_fraction = 0.5;
  req.epsilon = 1.0;
  req.delta = 1e-5;
  req.trials = 100;
  const Plan p = make_plan(req);
  REQUIRE(p.found);
  CHECK(p.honest == 100);
  CHECK(p.random.failures == 0);
  CHECK(p.greedy.failures == 0);
  CHECK(p.random.trials == 100);
  CHECK(p.random.worst_epsilon <= 1.0);
  CHECK(p.greedy.worst_epsilon <= 1.0);
  CHECK(p.sigma_eta == Approx(1.05 * sigma_for(1.0, 1e-5, 1.0) / 10.0));
  CHECK(p.k >= 2);
  CHECK(p.k < 40);
  // The plan holds under the full accountant on a fresh graph.
  Prng rng(77);
  const Graph g = sample_k_out(200, p.k, rng);
  const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(200, 100, rng));
  if (h.component_size.size() == 1) {
    const auto rep = Accountant(h, p.sigma_eta, p.sigma_delta).report(1.0, 1e-5, 2);
    CHECK(rep.epsilon <= 1.0);
  }
  PlanRequest bad_req = req;
  bad_req.honest_fraction = 0.0;
  CHECK_THROWS_WITH(make_plan(bad_req), Catch::Contains("--honest-fraction"));
}

TEST_CASE("simulator: GOPA sits near central DP, local DP sqrt(n) above", "[privacy][simulate]") {
  SimulateRequest req;
  req.parties = 400;
  req.honest_fraction = 1.0;
  req.epsilons = {0.1, 1.0};
  req.k = 6;
  req.sigma_ratio = 50.0;
  req.repetitions = 400;
  const auto res = simulate(req);
  REQUIRE(res.rows.size() == 2);
  for (const auto& row : res.rows) {
    CHECK(row.local / row.central == Approx(20.0));
    CHECK(row.gopa / row.central == Approx(1.05));
    CHECK(row.gopa_empirical == Approx(row.gopa).epsilon(0.15));
  }
}

TEST_CASE("planner raises sigma_delta for trials short of pairwise noise", "[privacy][planner]") {
  PlanRequest req;
  req.parties = 150;
  req.honest_fraction = 0.6;
  req.epsilon = 0.5;
  req.trials = 150;
  req.pilot_trials = 1;  // a poor pilot: validation will find shortfalls
  req.margin = 1.0;
  req.seed = 3;
  const Plan p = make_plan(req);
  REQUIRE(p.found);
  CHECK(p.sigma_delta >= p.validation_sigma_delta);
  if (p.random.failures + p.greedy.failures > 0) CHECK(p.sigma_delta > p.validation_sigma_delta);
  // Every trial meets the target at the planned sigma_delta.
  CHECK(p.random.worst_epsilon <= 0.5);
  CHECK(p.greedy.worst_epsilon <= 0.5);
  CHECK(p.random.failure_upper >= p.random.failure_rate);
}

TEST_CASE("planner without colluders and parameter scaling in epsilon", "[privacy][planner]") {
  PlanRequest req;
  req.parties = 100;
  req.honest_fraction = 1.0;
  req.epsilon = 1.0;
  req.trials = 200;
  const Plan a = make_plan(req);
  req.epsilon = 0.1;
  const Plan b = make_plan(req);
  REQUIRE(a.found);
  REQUIRE(b.found);
  CHECK(a.malicious == 0);
  CHECK(a.greedy.trials == 0);  // nobody to corrupt
  // k and sigma_delta / sigma_eta do not depend on epsilon (docs/privacy.md §2).
  CHECK(a.k == b.k);
  CHECK(a.sigma_delta / a.sigma_eta == Approx(b.sigma_delta / b.sigma_eta).epsilon(0.01));
  CHECK(b.sigma_eta / a.sigma_eta == Approx(mu_for(1.0, 1e-5) / mu_for(0.1, 1e-5)));
  CHECK(a.messages_per_party == a.k + 1);
}

TEST_CASE("simulator with colluders: GOPA pays 1/sqrt(rho)", "[privacy][simulate]") {
  SimulateRequest req;
  req.parties = 200;
  req.honest_fraction = 0.5;
  req.epsilons = {1.0};
  req.k = 12;
  req.sigma_ratio = 40.0;
  req.repetitions = 300;
  const auto res = simulate(req);
  REQUIRE(res.rows.size() == 1);
  CHECK(res.rows[0].gopa / res.rows[0].central == Approx(1.05 * std::sqrt(2.0)));
  CHECK(res.rows[0].gopa_empirical == Approx(res.rows[0].gopa).epsilon(0.15));
  SimulateRequest bad = req;
  bad.epsilons = {};
  CHECK_THROWS_WITH(simulate(bad), Catch::Contains("--epsilon-range"));
}

namespace {

// Solves a·x = b (dense, n×n, partial pivoting) in long double.
std::vector<long double> dense_solve(std::vector<long double> a, std::vector<long double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    }
    REQUIRE(std::fabs(a[piv * n + c]) > 1e-18L);
    for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
    std::swap(b[c], b[piv]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const long double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  std::vector<long double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    long double s = b[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= a[i * n + k] * x[k];
    x[i] = s / a[i * n + i];
  }
  return x;
}

// Effective resistance between u and m: ground m and solve L' x = e_u; R = x_u.
long double effective_resistance(const Graph& g, std::uint32_t u, std::uint32_t m) {
  const std::size_t n = g.n;
  std::vector<long double> a(n * n, 0.0L), b(n, 0.0L);
  for (std::uint32_t i = 0; i < g.n; ++i) {
    a[i * n + i] = g.degree(i);
    for (auto j : g.neighbours(i)) a[i * n + j] -= 1.0L;
  }
  for (std::size_t k = 0; k < n; ++k) a[m * n + k] = (k == m) ? 1.0L : 0.0L;  // x_m = 0
  b[u] = 1.0L;
  if (u == m) return 0.0L;
  return dense_solve(a, b)[u];
}

}  // namespace

TEST_CASE("hidden samples: s² e_uᵀ Σ⁻¹ e_u = s²(1/σ_c² + R(u, m)/σ_Δ²), bounded by the distance",
          "[privacy][hidden]") {
  // Σ = σ_Δ² L_H + σ_c² e_m e_mᵀ inverted densely on honest subgraphs of small k-out graphs.
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    Prng rng(seed);
    const Graph g = sample_k_out(24, 3, rng);
    const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(24, 6, rng));
    if (h.component_size.size() != 1) continue;
    const std::size_t n = h.size();
    const std::uint32_t m = static_cast<std::uint32_t>(uniform_below(rng, n));
    const long double sc = 2.5, sd = 7.0;
    std::vector<long double> sigma(n * n, 0.0L);
    for (std::uint32_t i = 0; i < h.graph.n; ++i) {
      sigma[i * n + i] = sd * sd * h.graph.degree(i);
      for (auto j : h.graph.neighbours(i)) sigma[i * n + j] -= sd * sd;
    }
    sigma[m * n + m] += sc * sc;
    const std::uint32_t ecc = eccentricity(h.graph, m);
    double worst = 0;
    for (std::uint32_t u = 0; u < n; ++u) {
      std::vector<long double> e(n, 0.0L);
      e[u] = 1.0L;
      const long double quad = dense_solve(sigma, e)[u];
      const long double formula = 1.0L / (sc * sc) + effective_resistance(h.graph, u, m) / (sd * sd);
      CHECK(static_cast<double>(quad) == Approx(static_cast<double>(formula)).epsilon(1e-9));
      worst = std::max(worst, static_cast<double>(quad));
    }
    const double bound = hidden_mu_bound(h, m, 2.5, 7.0, 1.0);
    CHECK(std::sqrt(worst) <= bound * (1 + 1e-12));
    CHECK(bound * bound == Approx(1.0 / 6.25 + ecc / 49.0));
  }
  // Disconnected: a party out of the member's reach has no protection from η.
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> edges = {{0, 1}, {2, 3}};
  const Graph split = Graph::from_edges(4, edges);
  CHECK(eccentricity(split, 0) == std::numeric_limits<std::uint32_t>::max());
  CHECK(std::isinf(hidden_mu_bound(HonestSubgraph::build(split, Mask(4, 0)), 0, 1.0, 1.0, 1.0)));
}

TEST_CASE("hidden plan: σ_c is the trusted curator's noise plus slack, and the bound meets (ε, δ)",
          "[privacy][hidden]") {
  PlanRequest req;
  req.parties = 300;
  req.honest_fraction = 0.5;
  req.trials = 60;
  const Plan p = make_plan(req);
  REQUIRE(p.found);
  const HiddenPlan hp = make_hidden_plan(p, 5);
  INFO(hp.why);
  REQUIRE(hp.found);
  CHECK(hp.k == p.k);
  CHECK(hp.sigma_c == Approx(1.05 * p.sigma_central));
  CHECK(hp.sigma_delta >= p.sigma_delta);
  CHECK(hp.worst_mu <= p.mu_target * (1 + 1e-12));
  CHECK(hp.distance >= 2);
  // Captured committee: C(150, 5)/C(300, 5).
  double captured = 1;
  for (int i = 0; i < 5; ++i) captured *= (150.0 - i) / (300.0 - i);
  CHECK(hp.committee_captured == Approx(captured));
  // The noise on the average: σ_c/n, against private samples' (1 + slack) σ_central /√(n_H n)·√n.
  CHECK(hp.error_std == Approx(hp.sigma_c / 300.0));
  CHECK(p.error_std / hp.error_std == Approx(std::sqrt(300.0 / 150.0)).epsilon(1e-9));
  // On fresh graphs the bound holds for a random honest member.
  for (std::uint64_t seed = 100; seed < 110; ++seed) {
    Prng rng(seed);
    const Graph g = sample_k_out(300, hp.k, rng);
    const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(300, 150, rng));
    const auto m = static_cast<std::uint32_t>(uniform_below(rng, h.size()));
    CHECK(hidden_mu_bound(h, m, hp.sigma_c, hp.sigma_delta, 1.0) <= p.mu_target * (1 + 1e-12));
  }
  CHECK_FALSE(make_hidden_plan(p, 1).found);
}

// ---------------------------------------------------------------- session certificates

namespace {

SessionParams session(std::uint32_t n, std::uint32_t d, std::uint32_t k, double sigma_eta, double sigma_delta,
                      std::uint8_t nonce = 1) {
  SessionParams p = SessionParams::defaults(n, d);
  p.neighbors = k;
  p.sigma_eta = sigma_eta;
  p.sigma_delta = sigma_delta;
  p.nonce[0] = nonce;
  REQUIRE_FALSE(p.validate().has_value());
  return p;
}

// The private plan `gopa run` makes: σ for the whole vector (sensitivity M·√d), k with the union
// bound within δ/10, the accountant's share of δ what is left.
SessionParams planned_session(std::uint32_t n, std::uint32_t d, double rho, std::uint32_t trials = 60) {
  const std::uint32_t bad = malicious_count(n, rho);
  PlanRequest req;
  req.parties = n;
  req.honest_fraction = rho;
  req.delta = 0.9e-5;
  req.sensitivity = std::sqrt(static_cast<double>(d));
  req.trials = trials;
  req.k_min = 1;
  while (disconnect_probability_bound(n, bad, req.k_min) > 1e-6) ++req.k_min;
  const Plan plan = make_plan(req);
  REQUIRE(plan.found);
  return session(n, d, plan.k, plan.sigma_eta, plan.sigma_delta);
}

}  // namespace

TEST_CASE("certificate: tiny noise is refused with the certified ε against the required one", "[privacy][requirement]") {
  // The coordinator's weak parameters: σ_η = σ_Δ = 0.0001 at n = 50, k = 13 (the union bound on
  // a disconnected honest subgraph is 3e-7 there, so ε is what fails).
  const SessionParams weak = session(50, 1, 13, 1e-4, 1e-4);
  Certificate c;
  const auto why = check_requirement(weak, PrivacyRequirement{}, &c);
  REQUIRE(why.has_value());
  INFO(*why);
  CHECK(why->find("required 1") != std::string::npos);
  CHECK(why->find("honest fraction 0.5") != std::string::npos);
  CHECK(c.malicious == 25);
  CHECK(c.epsilon > 1.0);
  // A planned session meets the default requirement (ε = 1, δ = 1e-5, ρ = 0.5) ...
  const SessionParams good = planned_session(200, 1, 0.5);
  Certificate g;
  const auto ok = check_requirement(good, PrivacyRequirement{}, &g);
  INFO((ok ? *ok : std::string("accepted")));
  CHECK_FALSE(ok.has_value());
  CHECK(g.certified);
  CHECK(g.epsilon <= 1.0);
  CHECK(g.trials == kCertifyTrials);
  // ... but not a stricter one, and not one that assumes more colluders than planned for.
  PrivacyRequirement strict;
  strict.epsilon = 0.5;
  CHECK(check_requirement(good, strict).has_value());
  PrivacyRequirement more_colluders;
  more_colluders.honest_fraction = 0.2;
  CHECK(check_requirement(good, more_colluders).has_value());
  // Every reader reaches the same verdict: the graphs are seeded by the session id.
  const Certificate again = certify_session(good, 0.5, 1e-5);
  CHECK(again.seed == g.seed);
  CHECK(again.epsilon == g.epsilon);
  SessionParams other = good;
  other.nonce[0] ^= 0xff;
  CHECK(certify_session(other, 0.5, 1e-5).seed != g.seed);
  // A bad requirement is named.
  PrivacyRequirement bad;
  bad.delta = 0;
  CHECK(check_requirement(good, bad)->find("delta") != std::string::npos);
}

TEST_CASE("certificate: vectors are certified for the whole vector (L2 sensitivity M·√d, replace-one)",
          "[privacy][requirement]") {
  const SessionParams one = session(300, 1, 16, 0.3, 30.0, 3);
  SessionParams four = one;
  four.dim = 4;
  four.input_max = std::uint64_t{3} << 16;  // M = 3
  const Certificate c1 = certify_session(one, 0.5, 1e-5);
  const Certificate c4 = certify_session(four, 0.5, 1e-5);
  REQUIRE(c1.certified);
  REQUIRE(c4.certified);
  CHECK(c1.sensitivity == 1.0);
  CHECK(c4.sensitivity == Approx(6.0));  // 3 · √4
  CHECK(c4.coordinate_sensitivity == 3.0);
  CHECK(c4.epsilon_per_coordinate < c4.epsilon);
  CHECK(c4.epsilon_per_coordinate == Approx(epsilon_for(c4.worst_mu / 2.0, c4.delta_accountant)));
  CHECK(c4.epsilon > c1.epsilon);
  // The vector guarantee needs √d times the noise of one coordinate: σ scaled by 6 gives back
  // (up to the different sampled graphs) the d = 1 guarantee.
  SessionParams scaled = four;
  scaled.sigma_eta *= 6.0;
  scaled.sigma_delta *= 6.0;
  CHECK(certify_session(scaled, 0.5, 1e-5).epsilon == Approx(c1.epsilon).epsilon(0.1));
}

TEST_CASE("certificate: graph failure and committee capture are part of δ", "[privacy][requirement]") {
  // Graph failure: the union bound on P(honest subgraph disconnected) is taken from δ.
  const SessionParams p = session(1000, 1, 16, 0.2, 20.0, 5);
  const Certificate c = certify_session(p, 0.5, 1e-5);
  // Over the 1 + 3 draws colluders can pick from by withholding reveals (the default restarts).
  CHECK(c.randomness_candidates == 4);
  CHECK(c.graph_failure == Approx(4.0 * disconnect_probability_bound(1000, 500, 16)));
  CHECK(c.graph_failure > 0.0);
  CHECK(c.delta_accountant == Approx(1e-5 - c.graph_failure));
  CHECK(c.delta == 1e-5);
  // At k = 1 the bound leaves nothing of δ: nothing is certified, and the reason says so.
  const Certificate k1 = certify_session(session(20, 1, 1, 1.0, 50.0), 0.5, 1e-5);
  CHECK_FALSE(k1.certified);
  CHECK(k1.why.find("disconnected") != std::string::npos);
  CHECK(std::isinf(k1.epsilon));
  // Hidden noise: P(all c members collude) is taken from δ too. At n = 200, ρ = 0.5, c = 5 it is
  // 0.03 per draw (0.12 over the 4 draws colluders can pick from), far above δ = 1e-5: not certified.
  SessionParams h = session(200, 1, 18, 4.0, 60.0, 7);
  h.noise = NoiseMode::hidden;
  h.committee = 5;
  h.paillier_bits = 2048;
  REQUIRE_FALSE(h.validate().has_value());
  const Certificate c5 = certify_session(h, 0.5, 1e-5);
  CHECK(c5.committee_captured == Approx(4.0 * committee_capture_probability(200, 100, 5)));
  CHECK(c5.committee_captured > 0.029);
  CHECK_FALSE(c5.certified);
  CHECK(c5.why.find("committee") != std::string::npos);
  h.committee = 24;
  const Certificate c24 = certify_session(h, 0.5, 1e-5);
  CHECK(c24.committee_captured < 1e-6);
  CHECK(c24.delta_accountant == Approx(1e-5 - c24.graph_failure - c24.committee_captured));
  INFO(c24.why);
  CHECK(c24.certified);
  // Without colluders nobody can capture it.
  CHECK(certify_session(h, 1.0, 1e-5).committee_captured == 0.0);
  // The coordinator picks the members' Paillier modulus: a party refuses one below its floor
  // (2048 bits unless it says otherwise), whatever else the parameters certify.
  PrivacyRequirement need{1e6, 0.5, 1.0};
  CHECK_FALSE(check_requirement(h, need).has_value());
  h.paillier_bits = 1024;
  REQUIRE_FALSE(h.validate().has_value());
  const auto refused = check_requirement(h, need);
  REQUIRE(refused.has_value());
  CHECK(refused->find("1024-bit Paillier keys; this party accepts 2048 bits or more") != std::string::npos);
  need.min_paillier_bits = 1024;
  CHECK_FALSE(check_requirement(h, need).has_value());
}

TEST_CASE("certificate at n = 10,000: the plan table's parameters at the k that fits graph failure",
          "[privacy][requirement]") {
  // docs/privacy.md §6 (ρ = 0.5, ε = 1): σ_η = 0.0554, σ_Δ = 13.7, planned at k = 17; the union
  // bound within δ/10 needs k = 19 (§9), where the same σ is certified.
  const std::uint32_t k = 19;
  CHECK(disconnect_probability_bound(10000, 5000, k) <= 1e-6);
  CHECK(disconnect_probability_bound(10000, 5000, k - 1) > 1e-6);
  const Certificate c = certify_session(session(10000, 1, k, 0.0554, 13.7, 9), 0.5, 1e-5);
  REQUIRE(c.certified);
  CHECK(c.epsilon <= 1.0);
  CHECK(c.disconnected == 0);
  CHECK(c.delta_accountant == Approx(1e-5 - c.graph_failure));
  // A quarter of the pairwise noise is not enough.
  CHECK(certify_session(session(10000, 1, k, 0.0554, 13.7 / 4, 9), 0.5, 1e-5).epsilon > 1.0);
}

TEST_CASE("certificate: the L2 ball is certified for sensitivity 2C, the box for M·√d", "[privacy][requirement]") {
  SessionParams box = session(300, 1, 16, 0.3, 30.0, 3);
  box.dim = 16;
  box.sigma_eta *= 4.0;
  box.sigma_delta *= 4.0;
  box.input_max = std::uint64_t{1} << 16;  // M = 1
  SessionParams ball = box;
  ball.input_domain = InputDomain::l2_ball;  // C = 1
  REQUIRE_FALSE(ball.validate().has_value());
  const Certificate cb = certify_session(box, 0.5, 1e-5);
  const Certificate cl = certify_session(ball, 0.5, 1e-5);
  REQUIRE(cb.certified);
  REQUIRE(cl.certified);
  CHECK_FALSE(cb.ball);
  CHECK(cl.ball);
  CHECK(cb.sensitivity == Approx(4.0));  // M·√d = 1 · √16
  CHECK(cb.coordinate_sensitivity == 1.0);
  CHECK(cl.sensitivity == 2.0);  // 2C, whatever d
  CHECK(cl.coordinate_sensitivity == 2.0);
  CHECK(cl.epsilon_per_coordinate == cl.epsilon);
  // The same graphs (same seed, the domain aside): μ scales with the sensitivity.
  CHECK(cl.worst_mu / cb.worst_mu == Approx(0.5).epsilon(0.2));
  CHECK(cl.epsilon < cb.epsilon);
  // The ball's sensitivity does not grow with d.
  SessionParams ball4 = ball;
  ball4.dim = 4;
  CHECK(certify_session(ball4, 0.5, 1e-5).sensitivity == 2.0);
}
