// What a session's parameters certify (requirements.hpp, docs/privacy.md §9).
#include "gopa/protocol/requirements.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "gopa/protocol/accountant.hpp"
#include "gopa/protocol/gaussian_dp.hpp"
#include "gopa/protocol/graph.hpp"
#include "gopa/protocol/planner.hpp"

namespace gopa::protocol {

namespace {

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

constexpr double kInf = std::numeric_limits<double>::infinity();

// Weakest honest parties checked exactly per graph (as `gopa plan --candidates`).
constexpr std::size_t kCandidates = 4;

// The largest μ over the screened honest parties of one graph (private noise): the upper ends of
// certified enclosures of σ_η² Σ⁻¹_uu.
double private_mu(const HonestSubgraph& h, double sigma_eta, double sigma_delta, double s) {
  if (h.size() == 0) return 0.0;
  const Accountant acc(h, sigma_eta, sigma_delta);
  double worst = 1.0 / static_cast<double>(h.smallest_component());
  for (auto u : screen_candidates(h, kCandidates)) worst = std::max(worst, acc.scaled_precision(u, 1e-7).upper);
  return s / sigma_eta * std::sqrt(worst);
}

}  // namespace

std::optional<std::string> PrivacyRequirement::validate() const {
  if (!(epsilon > 0.0) || !std::isfinite(epsilon)) return "epsilon: must be finite and > 0";
  if (!(delta > 0.0 && delta < 1.0)) return "delta: must be in (0, 1)";
  if (!(honest_fraction > 0.0 && honest_fraction <= 1.0)) return "honest fraction: must be in (0, 1]";
  if (min_paillier_bits > 4096) return "min paillier bits: must be at most 4096";
  return std::nullopt;
}

double committee_capture_probability(std::uint32_t n, std::uint32_t malicious, std::uint32_t c) {
  double captured = 1.0;
  for (std::uint32_t i = 0; i < c; ++i) {
    if (malicious <= i || n <= i) return 0.0;
    captured *= static_cast<double>(malicious - i) / static_cast<double>(n - i);
  }
  return captured;
}

Certificate certify_session(const SessionParams& p, double honest_fraction, double delta, std::uint32_t trials) {
  if (!(honest_fraction > 0.0 && honest_fraction <= 1.0)) throw std::invalid_argument("honest fraction: must be in (0, 1]");
  if (!(delta > 0.0 && delta < 1.0)) throw std::invalid_argument("delta: must be in (0, 1)");
  if (auto why = p.validate()) throw std::invalid_argument(*why);
  Certificate c;
  c.parties = p.parties;
  c.dim = p.dim;
  c.k = p.neighbors;
  c.honest_fraction = honest_fraction;
  c.malicious = malicious_count(p.parties, honest_fraction);
  c.sigma_eta = p.sigma_eta;
  c.sigma_delta = p.sigma_delta;
  c.hidden = p.noise == NoiseMode::hidden;
  c.committee = c.hidden ? p.committee : 0;
  // Replace-one (docs/privacy.md §1.1): M·√d for the box [0, M]^d, 2C for the L2 ball.
  c.ball = p.input_domain == InputDomain::l2_ball;
  c.coordinate_sensitivity = p.coordinate_sensitivity();
  c.sensitivity = p.input_sensitivity();
  c.delta = delta;
  c.trials = trials;
  c.epsilon = c.epsilon_per_coordinate = kInf;
  c.worst_mu = kInf;
  const Bytes32 sid = p.session_id();
  for (int i = 7; i >= 0; --i) c.seed = (c.seed << 8) | sid[static_cast<std::size_t>(i)];
  if (c.malicious >= p.parties) {
    c.why = "an honest fraction of " + num(honest_fraction) + " leaves no honest party among " + std::to_string(p.parties);
    return c;
  }
  // Withheld randomness reveals restart the draw at most randomness_restarts times, so colluders
  // pick the graph and the committee among that many + 1 independent draws (docs/privacy.md §9):
  // a union bound over the candidates.
  c.randomness_candidates = 1u + p.randomness_restarts;
  c.graph_failure = std::min(1.0, c.randomness_candidates * disconnect_probability_bound(p.parties, c.malicious, p.neighbors));
  c.committee_captured =
      c.hidden ? std::min(1.0, c.randomness_candidates * committee_capture_probability(p.parties, c.malicious, c.committee))
               : 0.0;
  c.delta_accountant = delta - c.graph_failure - c.committee_captured;
  if (!(c.delta_accountant > 0.0)) {
    c.why = "P(honest subgraph disconnected) <= " + num(c.graph_failure) + " (union bound at k = " +
            std::to_string(p.neighbors) + " over " + std::to_string(c.randomness_candidates) + " possible graphs)" +
            (c.hidden ? " plus P(all " + std::to_string(c.committee) + " committee members collude) = " +
                            num(c.committee_captured)
                      : std::string()) +
            " leaves nothing of delta = " + num(delta);
    return c;
  }
  // Private noise: the adversary's view of the honest parties is N(X_H, σ_η² I + σ_Δ² L_H)
  // (docs/privacy.md §1); hidden noise: σ_Δ² L_H + σ_η² e_m e_mᵀ for an honest member m (§8).
  double worst = 0.0;
  for (std::uint32_t t = 0; t < trials; ++t) {
    Prng rng(trial_seed(c.seed, t));
    const Graph g = sample_k_out(p.parties, p.neighbors, rng);
    const HonestSubgraph h = HonestSubgraph::build(g, random_corruption(p.parties, c.malicious, rng));
    if (h.component_size.size() > 1) ++c.disconnected;
    double mu = 0.0;
    if (c.hidden) {
      const auto member = static_cast<std::uint32_t>(uniform_below(rng, h.size()));
      mu = hidden_mu_bound(h, member, p.sigma_eta, p.sigma_delta, c.sensitivity);
    } else {
      mu = private_mu(h, p.sigma_eta, p.sigma_delta, c.sensitivity);
    }
    worst = std::max(worst, mu);
    if (std::isinf(worst)) break;
  }
  c.worst_mu = worst;
  c.epsilon = epsilon_for(worst, c.delta_accountant);
  c.epsilon_per_coordinate = epsilon_for(worst * c.coordinate_sensitivity / c.sensitivity, c.delta_accountant);
  if (!std::isfinite(c.epsilon)) {
    c.why = c.hidden ? "a sampled honest subgraph leaves a party without a path to the committee member"
                     : "mu = " + num(worst) + ": no epsilon up to 10^6 at delta " + num(c.delta_accountant);
    return c;
  }
  c.certified = true;
  return c;
}

std::optional<std::string> check_requirement(const SessionParams& p, const PrivacyRequirement& need, Certificate* out) {
  if (auto why = need.validate()) return "privacy requirement: " + *why;
  if (p.noise == NoiseMode::hidden && p.paillier_bits < need.min_paillier_bits) {
    return "the session's hidden noise uses " + std::to_string(p.paillier_bits) +
           "-bit Paillier keys; this party accepts " + std::to_string(need.min_paillier_bits) +
           " bits or more (smaller moduli can be factored, and the committee's shares read)";
  }
  const Certificate c = certify_session(p, need.honest_fraction, need.delta);
  if (out) *out = c;
  const std::string params = "sigma_eta = " + num(p.sigma_eta) + ", sigma_delta = " + num(p.sigma_delta) + ", k = " +
                             std::to_string(p.neighbors) + ", n = " + std::to_string(p.parties) + ", d = " +
                             std::to_string(p.dim) + ", L2 sensitivity " + num(c.sensitivity) + " (" + kNeighbouring +
                             "), " + std::to_string(c.malicious) + " colluders (honest fraction " +
                             num(need.honest_fraction) + "), " + std::to_string(c.trials) + " sampled graphs";
  if (!(c.delta_accountant > 0.0)) {
    return "the session's parameters do not meet this party's requirement (epsilon <= " + num(need.epsilon) +
           ", delta <= " + num(need.delta) + "): " + c.why + " [" + params + "]";
  }
  if (!c.certified || c.epsilon > need.epsilon) {
    const std::string eps = c.certified ? num(c.epsilon) : "unbounded (" + c.why + ")";
    return "the session's parameters do not meet this party's requirement: certified epsilon = " + eps +
           " > required " + num(need.epsilon) + " at delta = " + num(need.delta) + " [" + params + "]";
  }
  return std::nullopt;
}

ComposedCertificate compose_sessions(std::span<const Certificate> rounds, double delta) {
  return compose_sessions(rounds, delta, {}, {});
}

ComposedCertificate compose_sessions(std::span<const Certificate> rounds, double delta, std::span<const Bytes32> sessions,
                                     std::span<const Bytes32> graphs) {
  if (!(delta > 0.0 && delta < 1.0)) throw std::invalid_argument("delta: must be in (0, 1)");
  if (sessions.size() != graphs.size() || (!sessions.empty() && sessions.size() != rounds.size())) {
    throw std::invalid_argument("compose_sessions: one session id and one graph id per round");
  }
  // A graph drawn by a session among the rounds: its failure event counted once (the largest bound).
  std::map<Bytes32, double> shared_graph;
  const std::set<Bytes32> listed(sessions.begin(), sessions.end());
  ComposedCertificate out;
  out.rounds = static_cast<std::uint32_t>(rounds.size());
  out.delta = delta;
  out.epsilon = std::numeric_limits<double>::infinity();
  double mu2 = 0.0;
  for (std::size_t t = 0; t < rounds.size(); ++t) {
    const Certificate& c = rounds[t];
    if (!c.certified || !std::isfinite(c.worst_mu)) {
      out.why = "round " + std::to_string(t + 1) + " has no certified mu (" + c.why + ")";
      return out;
    }
    mu2 += c.worst_mu * c.worst_mu;
    out.failure += c.committee_captured;
    if (!graphs.empty() && listed.count(graphs[t])) {
      double& g = shared_graph[graphs[t]];
      g = std::max(g, c.graph_failure);
    } else {
      out.failure += c.graph_failure;
    }
  }
  for (const auto& [graph, g] : shared_graph) out.failure += g;
  out.mu = std::sqrt(mu2);
  out.delta_accountant = delta - out.failure;
  if (!(out.delta_accountant > 0.0)) {
    out.why = "the rounds' failure probabilities (" + num(out.failure) + ") use up delta = " + num(delta);
    return out;
  }
  out.epsilon = epsilon_for(out.mu, out.delta_accountant);
  out.certified = std::isfinite(out.epsilon);
  if (!out.certified) out.why = "mu = " + num(out.mu) + ": no finite epsilon at delta " + num(out.delta_accountant);
  return out;
}

double round_mu(double epsilon, double delta_accountant, std::uint32_t rounds) {
  if (rounds == 0) throw std::invalid_argument("rounds: must be at least 1");
  return mu_for(epsilon, delta_accountant) / std::sqrt(static_cast<double>(rounds));
}

}  // namespace gopa::protocol
