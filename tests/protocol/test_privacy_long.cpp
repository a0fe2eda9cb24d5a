// Longer checks of the planner's assumptions (ctest -L long).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "gopa/protocol/accountant.hpp"
#include "gopa/protocol/graph.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/requirements.hpp"

using namespace gopa::protocol;

TEST_CASE("screening finds the full maximum on larger graphs", "[privacy][long]") {
  // n = 3000, half malicious, the sizes and sigma ratios the planner uses.
  for (std::uint32_t trial = 0; trial < 6; ++trial) {
    Prng rng(trial_seed(2024, trial));
    const std::uint32_t n = 3000, k = 14 + trial % 3;
    const Graph g = sample_k_out(n, k, rng);
    const Mask m = (trial % 2) ? random_corruption(n, n / 2, rng) : greedy_degree_corruption(g, n / 2);
    const HonestSubgraph h = HonestSubgraph::build(g, m);
    if (h.component_size.size() != 1) continue;
    const auto rep = Accountant(h, 1.0, 150.0).report(1.0, 1e-5, 2);
    const double full = *std::max_element(rep.precision.begin(), rep.precision.end());
    double screened = 0.0;
    for (auto u : screen_candidates(h, 4)) screened = std::max(screened, rep.precision[u]);
    CHECK(screened >= full * (1 - 1e-9));
    CHECK(rep.max_relative_gap <= 1e-9);
  }
}

TEST_CASE("a plan holds under the full accountant on fresh graphs", "[privacy][long]") {
  PlanRequest req;
  req.parties = 2000;
  req.honest_fraction = 0.5;
  req.epsilon = 1.0;
  req.trials = 300;
  const Plan p = make_plan(req);
  REQUIRE(p.found);
  int checked = 0;
  for (std::uint32_t trial = 0; trial < 4; ++trial) {
    Prng rng(trial_seed(777, trial));
    const Graph g = sample_k_out(req.parties, p.k, rng);
    const Mask m = (trial % 2) ? random_corruption(req.parties, p.malicious, rng)
                               : greedy_degree_corruption(g, p.malicious);
    const HonestSubgraph h = HonestSubgraph::build(g, m);
    if (h.component_size.size() != 1) continue;
    const auto rep = Accountant(h, p.sigma_eta, p.sigma_delta).report(req.sensitivity, req.delta, 2);
    CHECK(rep.epsilon <= req.epsilon);
    ++checked;
  }
  CHECK(checked >= 3);
}

TEST_CASE("a session certificate's screened ε is the full accountant's on its own graphs", "[privacy][long]") {
  // The certificate checks the 4 screened weakest honest parties of each of its graphs; the full
  // accountant (every honest party) on the same graphs finds no larger μ.
  SessionParams p = SessionParams::defaults(2000, 1);
  p.neighbors = 17;
  p.sigma_eta = 0.124;
  p.sigma_delta = 19.6;
  p.nonce[0] = 42;
  REQUIRE_FALSE(p.validate().has_value());
  const Certificate c = certify_session(p, 0.5, 1e-5);
  REQUIRE(c.certified);
  for (std::uint32_t t = 0; t < 8; ++t) {
    Prng rng(trial_seed(c.seed, t));
    const Graph g = sample_k_out(p.parties, p.neighbors, rng);
    const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(p.parties, c.malicious, rng));
    const auto rep = Accountant(h, p.sigma_eta, p.sigma_delta).report(c.sensitivity, c.delta_accountant, 2);
    CHECK(rep.mu_max <= c.worst_mu * (1 + 1e-6));
  }
}
