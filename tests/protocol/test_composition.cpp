// Composition of sessions (the rounds of a training run): protocol/requirements.hpp.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "gopa/protocol/gaussian_dp.hpp"
#include "gopa/protocol/requirements.hpp"

namespace gp = gopa::protocol;

namespace {

gp::Certificate round_with(double mu, double graph, double committee) {
  gp::Certificate c;
  c.certified = true;
  c.worst_mu = mu;
  c.graph_failure = graph;
  c.committee_captured = committee;
  return c;
}

// δ(ε) of a mechanism whose privacy loss is the sum of the rounds' losses, computed without the
// μ-GDP closed form: the loss of a Gaussian mechanism with parameter μ_t is N(μ_t²/2, μ_t²) under
// the first neighbour, the losses of independent rounds add up, and
// δ(ε) = E[(1 − e^(ε − L))₊] under that neighbour. The sum of the rounds' losses is convolved
// numerically on a grid, then the expectation taken.
double delta_by_convolution(const std::vector<double>& mus, double epsilon) {
  const double h = 2e-3;
  const double lo = -8.0, hi = 8.0;
  const auto cells = static_cast<std::size_t>((hi - lo) / h) + 1;
  // Convolve centred densities (each over [lo, hi] around its mean), then shift by the sum of
  // the means.
  std::vector<double> acc;
  double shift = 0;
  for (const double mu : mus) {
    std::vector<double> p(cells);
    double sum = 0;
    for (std::size_t i = 0; i < cells; ++i) {
      const double x = lo + h * static_cast<double>(i);
      p[i] = std::exp(-0.5 * x * x / (mu * mu));
      sum += p[i];
    }
    for (double& v : p) v /= sum;
    shift += mu * mu / 2;
    if (acc.empty()) {
      acc = p;
      continue;
    }
    // Both grids start at `lo` relative to their centres; the result starts at 2·lo and is cut
    // back to [lo, hi] (the tails beyond are below 1e-30 for the μ used here).
    std::vector<double> out(cells, 0.0);
    const auto offset = static_cast<std::ptrdiff_t>((-lo) / h + 0.5);
    for (std::size_t i = 0; i < cells; ++i) {
      if (acc[i] < 1e-300) continue;
      for (std::size_t j = 0; j < cells; ++j) {
        const auto k = static_cast<std::ptrdiff_t>(i + j) - offset;
        if (k >= 0 && k < static_cast<std::ptrdiff_t>(cells)) out[static_cast<std::size_t>(k)] += acc[i] * p[j];
      }
    }
    acc = std::move(out);
  }
  double delta = 0;
  for (std::size_t i = 0; i < cells; ++i) {
    const double loss = lo + h * static_cast<double>(i) + shift;
    if (loss > epsilon) delta += acc[i] * (1.0 - std::exp(epsilon - loss));
  }
  return delta;
}

}  // namespace

TEST_CASE("T equal rounds compose to μ√T and the ε of one Gaussian mechanism with σ/√T", "[privacy][composition]") {
  const double mu = 0.1;
  for (const std::uint32_t t : {1U, 4U, 10U, 100U}) {
    std::vector<gp::Certificate> rounds(t, round_with(mu, 0.0, 0.0));
    const gp::ComposedCertificate c = gp::compose_sessions(rounds, 1e-5);
    REQUIRE(c.certified);
    CHECK(c.rounds == t);
    CHECK(c.mu == Approx(mu * std::sqrt(t)).epsilon(1e-12));
    // The closed form: one Gaussian mechanism with sensitivity 1 and σ = 1/(μ√T).
    CHECK(c.epsilon == Approx(gp::epsilon_for(1.0 / (1.0 / (mu * std::sqrt(t))), 1e-5)).epsilon(1e-12));
    CHECK(gp::delta_for(c.epsilon, c.mu) == Approx(1e-5).epsilon(1e-6));
  }
  CHECK(gp::round_mu(1.0, 1e-5, 25) == Approx(gp::mu_for(1.0, 1e-5) / 5).epsilon(1e-12));
}

TEST_CASE("composition is exact: it matches the numerically convolved privacy losses of unequal rounds",
          "[privacy][composition]") {
  const std::vector<double> mus{0.3, 0.5, 0.2, 0.4};
  std::vector<gp::Certificate> rounds;
  for (const double m : mus) rounds.push_back(round_with(m, 0.0, 0.0));
  const gp::ComposedCertificate c = gp::compose_sessions(rounds, 1e-3);
  REQUIRE(c.certified);
  for (const double eps : {0.25, 0.5, 1.0, 2.0}) {
    INFO("epsilon " << eps);
    CHECK(gp::delta_for(eps, c.mu) == Approx(delta_by_convolution(mus, eps)).epsilon(1e-3));
  }
  // A naive bound (adding the rounds' ε at δ/T each) is far looser than the exact one.
  double naive = 0;
  for (const double m : mus) naive += gp::epsilon_for(m, 1e-3 / 4);
  CHECK(c.epsilon < 0.75 * naive);
}

TEST_CASE("composition adds the rounds' failure probabilities to δ and refuses uncertified rounds",
          "[privacy][composition]") {
  std::vector<gp::Certificate> rounds(3, round_with(0.2, 1e-7, 2e-7));
  gp::ComposedCertificate c = gp::compose_sessions(rounds, 1e-5);
  REQUIRE(c.certified);
  CHECK(c.failure == Approx(9e-7));
  CHECK(c.delta_accountant == Approx(1e-5 - 9e-7));
  CHECK(c.epsilon == Approx(gp::epsilon_for(0.2 * std::sqrt(3.0), 1e-5 - 9e-7)));
  // More failure probability costs ε.
  std::vector<gp::Certificate> clean(3, round_with(0.2, 0.0, 0.0));
  CHECK(gp::compose_sessions(clean, 1e-5).epsilon < c.epsilon);

  rounds.push_back(round_with(0.2, 1e-5, 0.0));
  c = gp::compose_sessions(rounds, 1e-5);
  CHECK_FALSE(c.certified);
  CHECK(c.why.find("use up delta") != std::string::npos);

  std::vector<gp::Certificate> broken(2, round_with(0.2, 0.0, 0.0));
  broken[1].certified = false;
  broken[1].why = "disconnected";
  c = gp::compose_sessions(broken, 1e-5);
  CHECK_FALSE(c.certified);
  CHECK(c.why.find("round 2") != std::string::npos);
  CHECK(std::isinf(c.epsilon));
  CHECK_THROWS(gp::compose_sessions(broken, 0.0));
  CHECK_THROWS(gp::round_mu(1.0, 1e-5, 0));
}

TEST_CASE("a chain's rounds share one graph: its failure is counted once, only when its base is among them",
          "[privacy][composition][chain]") {
  // Rounds 0–2 a chain on base A (graph bound 1e-7 each, 3e-7 for round 2), round 3 a session of
  // its own (B); committee bounds 2e-8 per round always add.
  std::vector<gp::Certificate> rounds = {round_with(0.2, 1e-7, 2e-8), round_with(0.2, 1e-7, 2e-8),
                                         round_with(0.2, 3e-7, 2e-8), round_with(0.2, 1e-7, 2e-8)};
  gopa::Bytes32 a{}, b{}, c{}, d{};
  a[0] = 1;
  b[0] = 2;
  c[0] = 3;
  d[0] = 4;
  const std::vector<gopa::Bytes32> sessions = {a, c, d, b};
  const std::vector<gopa::Bytes32> graphs = {a, a, a, b};
  const gp::ComposedCertificate chained = gp::compose_sessions(rounds, 1e-5, sessions, graphs);
  REQUIRE(chained.certified);
  CHECK(chained.failure == Approx(3e-7 + 1e-7 + 4 * 2e-8));  // A's graph once (its largest bound), B's, 4 committees
  CHECK(chained.mu == Approx(0.4));                          // μ composes over every round, chain or not
  const gp::ComposedCertificate separate = gp::compose_sessions(rounds, 1e-5);
  CHECK(separate.failure == Approx(6e-7 + 4 * 2e-8));
  CHECK(chained.epsilon < separate.epsilon);
  // Without the base among the rounds its bound is unknown: every round's graph bound counts.
  const std::vector<gopa::Bytes32> no_base = {c, d, c, b};
  const std::vector<gopa::Bytes32> on_a = {a, a, a, b};
  CHECK(gp::compose_sessions(rounds, 1e-5, no_base, on_a).failure == Approx(separate.failure));
  // One id per round, or none.
  CHECK_THROWS_AS(gp::compose_sessions(rounds, 1e-5, std::span(sessions).first(3), std::span(graphs).first(3)),
                  std::invalid_argument);
  CHECK_THROWS_AS(gp::compose_sessions(rounds, 1e-5, sessions, std::span(graphs).first(3)), std::invalid_argument);
}
