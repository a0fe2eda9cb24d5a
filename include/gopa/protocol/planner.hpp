// gopa/protocol/planner.hpp — choose GOPA's parameters (k, σ_Δ, σ_η) for a target (ε, δ), and
// compare the accuracy of GOPA with local and central differential privacy.
//
//   PlanRequest req;
//   req.parties = 10000; req.honest_fraction = 0.5; req.epsilon = 1.0; req.delta = 1e-5;
//   Plan p = make_plan(req);     // p.k, p.sigma_delta, p.sigma_eta, p.random / p.greedy trials
//
// Method (docs/privacy.md §3): σ_η is fixed first by the accuracy target — (1 + slack) times the
// central-DP noise of the honest sum, spread over the n_H honest parties. The remaining privacy
// budget must be covered by the pairwise noise. For k = 1, 2, ... a pilot of sampled graphs and
// malicious sets gives the σ_Δ each needs (exact accountant on the screened weakest parties);
// σ_Δ is the largest times a margin; then ≥ `trials` fresh graphs, each with a random and a
// greedy malicious set, are checked. A fragmented honest subgraph (no σ_Δ can help) rejects k;
// trials short of pairwise noise are counted as failures at that σ_Δ, which is then raised
// (margin included) until they pass too. The first k accepted is the plan: every trial meets
// (ε, δ) at the planned σ_Δ.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gopa/protocol/graph.hpp"

namespace gopa::protocol {

struct PlanRequest {
  std::uint32_t parties = 0;       // n ≥ 2
  double honest_fraction = 1.0;    // ρ in (0, 1]
  double epsilon = 1.0;            // ε > 0
  double delta = 1e-5;             // 0 < δ < 1
  double sensitivity = 1.0;        // L2 sensitivity of one party's input
  std::uint32_t dim = 1;           // coordinates per input (accuracy figures only)
  std::uint32_t trials = 1000;     // validation graphs; each gets a random and a greedy set
  std::uint32_t pilot_trials = 16; // graphs used to size σ_Δ for a candidate k
  double slack = 0.05;             // σ_η = (1 + slack) · σ_central / √n_H
  double margin = 1.5;             // σ_Δ = margin · (largest σ_Δ the pilot needed)
  double confidence = 0.95;        // for the failure-rate upper bound
  std::uint32_t candidates = 4;    // weakest parties checked exactly per trial
  std::uint32_t k_min = 1;         // first k tried (set k_min = k_max to fix k and size σ_Δ only)
  std::uint32_t k_max = 0;         // 0: min(n − 1, 512)
  bool greedy = true;              // also test the greedy graph-aware attack
  double closed_form_failure = 1e-6;  // disconnection probability allowed by the closed form
  std::uint64_t seed = 1;
  unsigned threads = 2;

  // Throws std::invalid_argument naming the offending field.
  void validate() const;
};

struct TrialStats {
  std::uint32_t trials = 0;        // trials run
  std::uint32_t failures = 0;      // trials where (ε, δ) was not met at the validation σ_Δ
  double failure_rate = 0.0;       // failures / trials
  double failure_upper = 0.0;      // one-sided Clopper–Pearson upper bound at `confidence`; it also
                                   // bounds the rate at the planned σ_Δ (≥ the validation σ_Δ)
  double worst_mu = 0.0;           // largest μ at the planned σ_Δ (screened parties, certified)
  double worst_epsilon = 0.0;      // ε at δ for worst_mu
  std::uint32_t min_honest_degree = 0;  // smallest honest degree seen
  std::uint32_t disconnected = 0;  // trials with a disconnected honest subgraph
};

struct ClosedFormBound {
  bool found = false;
  std::uint32_t k = 0;             // smallest k with P(G^H disconnected) ≤ closed_form_failure
  double disconnect_bound = 1.0;   // the union bound at that k
  double sigma_delta = 0.0;        // σ_Δ that suffices for any connected G^H (Mohar's bound)
};

struct KAttempt {
  std::uint32_t k = 0;
  std::string outcome;             // "pilot: ...", "validation: ...", "accepted"
  double sigma_delta = 0.0;
};

struct Plan {
  PlanRequest request;
  std::uint32_t honest = 0, malicious = 0;
  double mu_target = 0.0;          // largest μ meeting (ε, δ)
  double sigma_central = 0.0;      // central-DP noise on the sum (std), = s / μ
  double sigma_eta = 0.0;          // per-party independent noise
  bool found = false;
  std::uint32_t k = 0;
  double sigma_delta = 0.0;
  double validation_sigma_delta = 0.0;  // σ_Δ the trials were run at (sized by the pilot)
  TrialStats random, greedy;
  double mean_degree = 0.0;        // pairwise noise terms per party (measured)
  std::uint32_t messages_per_party = 0;  // board messages sent per party: k seeds + 1 value
  std::uint32_t adaptive_isolation_cost = 0;  // min degree seen: corruptions that isolate a party
  double error_std = 0.0;          // std of each coordinate of the released average (GOPA)
  double error_l2 = 0.0;           // expected-L2 scale sqrt(dim) · error_std
  double central_error_std = 0.0;  // trusted curator, same (ε, δ)
  double local_error_std = 0.0;    // local DP, same (ε, δ)
  double disconnect_bound = 1.0;   // union bound on P(G^H disconnected) at the chosen k
  ClosedFormBound closed_form;
  std::vector<KAttempt> attempts;
  double seconds = 0.0;
};

// Progress messages (one line each), may be empty.
using Progress = std::function<void(const std::string&)>;

[[nodiscard]] Plan make_plan(const PlanRequest& req, const Progress& progress = {});

// ---------------------------------------------------------------- hidden samples

// With hidden samples (gopa/sampling.hpp) nobody adds private noise: a committee of c parties,
// drawn by the joint randomness, computes one η ~ N(0, σ_c²) per coordinate as additive shares
// and folds its shares into its members' X̂, so the sum carries η exactly once. While at least
// one member m is honest, the adversary's view of the honest parties is a Gaussian mechanism with
// covariance Σ = σ_Δ² L_H + σ_c² e_m e_mᵀ, and for an honest party u
//     s² e_uᵀ Σ⁻¹ e_u = s² (1/σ_c² + R_H(u, m)/σ_Δ²),
// R_H the effective resistance between u and m in G^H (unit edges), at most their distance in
// G^H (docs/privacy.md §5). The plan keeps the private plan's k (G^H connected), sets
// σ_c = (1 + slack) σ_central, and raises σ_Δ until the distance term fits the rest of the
// budget for the largest distance D seen over sampled graphs and malicious sets.
struct HiddenPlan {
  bool found = false;
  std::uint32_t committee = 0;         // c
  std::uint32_t k = 0;                 // the private plan's k
  double sigma_central = 0.0;          // trusted-curator noise on the sum
  double sigma_c = 0.0;                // noise of the hidden sample: (1 + slack) σ_central
  double sigma_delta = 0.0;            // max(private plan's σ_Δ, what D needs)
  std::uint32_t distance = 0;          // D: 1 + the largest honest distance seen to a member
  std::uint32_t trials = 0;            // graphs sampled (each with a random and a greedy set)
  std::uint32_t disconnected = 0;      // trials where some honest party had no path to a member
  double worst_mu = 0.0;               // μ at D (≤ μ_target when found)
  double committee_captured = 0.0;     // P(every member malicious): the guarantee's failure
  double error_std = 0.0;              // std of each coordinate of the released average
  std::string why;                     // when not found
};

// `plan`: the private plan for the same request (make_plan), found. committee: c ≥ 2.
[[nodiscard]] HiddenPlan make_hidden_plan(const Plan& plan, std::uint32_t committee);

// The bound above for one graph: s·sqrt(1/σ_c² + ecc/σ_Δ²) with ecc the largest distance from
// honest index `member` to an honest party of G^H; +infinity when some honest party is out of
// its reach.
[[nodiscard]] double hidden_mu_bound(const HonestSubgraph& h, std::uint32_t member, double sigma_c,
                                     double sigma_delta, double sensitivity);

// Largest distance from `source` in g (BFS); UINT32_MAX when some vertex is unreachable.
[[nodiscard]] std::uint32_t eccentricity(const Graph& g, std::uint32_t source);

// Honest/malicious counts used everywhere: n_C = floor((1 − ρ) n), n_H = n − n_C.
[[nodiscard]] std::uint32_t malicious_count(std::uint32_t n, double honest_fraction);

// Union bound on the probability that the honest subgraph of a random k-out graph is
// disconnected when n_c parties, chosen independently of the graph, are malicious.
[[nodiscard]] double disconnect_probability_bound(std::uint32_t n, std::uint32_t malicious,
                                                  std::uint32_t k);

[[nodiscard]] ClosedFormBound closed_form_bound(const PlanRequest& req, double sigma_eta, double target);

// One-sided upper confidence bound for a binomial rate (Clopper–Pearson).
[[nodiscard]] double binomial_upper_bound(std::uint32_t failures, std::uint32_t trials, double confidence);

// ---------------------------------------------------------------- accuracy simulator

struct SimulateRequest {
  std::uint32_t parties = 1000;
  double honest_fraction = 1.0;
  std::vector<double> epsilons;
  double delta = 1e-5;
  double sensitivity = 1.0;
  std::uint32_t k = 0;             // 0: plan it
  double sigma_ratio = 0.0;        // σ_Δ / σ_η; 0: plan it
  double slack = 0.05;
  std::uint32_t plan_trials = 200; // validation trials when planning
  std::uint32_t repetitions = 200; // protocol runs per ε for the empirical error
  std::uint64_t seed = 1;
  unsigned threads = 2;
  void validate() const;
};

struct SimulateRow {
  double epsilon = 0.0;
  double central = 0.0;     // std of the average, trusted curator
  double local = 0.0;       // std of the average, local DP
  double gopa = 0.0;        // std of the average, GOPA at the planned σ_η (analytic)
  double gopa_empirical = 0.0;  // measured over `repetitions` simulated protocol runs
  double hidden = 0.0;      // GOPA with hidden samples: (1 + slack) · central (make_hidden_plan)
  double sigma_eta = 0.0, sigma_delta = 0.0;
};

struct SimulateResult {
  SimulateRequest request;
  std::uint32_t k = 0;
  double sigma_ratio = 0.0;
  std::vector<SimulateRow> rows;
};

[[nodiscard]] SimulateResult simulate(const SimulateRequest& req, const Progress& progress = {});

}  // namespace gopa::protocol
