// gopa/protocol/requirements.hpp — what a session's posted parameters certify, and the privacy
// requirement a party checks them against before it posts anything that depends on its secrets.
//
//   PrivacyRequirement need;                       // ε = 1, δ = 1e-5, honest fraction 0.5
//   Certificate c = certify_session(params, need.honest_fraction, need.delta);
//   if (auto why = check_requirement(params, need)) { /* refuse: *why names the quantity */ }
//
// The guarantee (docs/privacy.md §9). Neighbouring inputs differ in one party's whole input
// vector (replace-one: x_u replaced by another x'_u of the session's input domain, n fixed), so
// the L2 sensitivity is M·√d for the box [0, M]^d and 2C for the L2 ball ‖x‖₂ ≤ C. Against any coalition of n_C = ⌊(1 − ρ)n⌋ colluders fixed before the
// graph is drawn (the graph comes from joint randomness revealed after the roster is fixed):
//
//     (ε, δ)-DP with δ = δ_acc + P(G^H disconnected) + P(committee captured),
//
// where P(G^H disconnected) is the union bound of planner.hpp (a proof, not an estimate),
// P(committee captured) = C(n_C, c)/C(n, c) for hidden noise (0 for private noise), and ε is the
// largest ε at δ_acc that the exact accountant finds over `trials` k-out graphs sampled with a
// seed taken from the session id, each with a uniformly random colluder set (private noise: the
// screened weakest honest parties, as in `gopa plan`; hidden noise: the distance bound to a
// random honest member). The ε is therefore certified on those sampled graphs (every reader
// samples the same ones and reaches the same verdict), not on every graph.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "gopa/protocol/session.hpp"

namespace gopa::protocol {

// The neighbouring relation every number here uses.
inline constexpr const char* kNeighbouring = "replace-one";

// Graphs sampled by certify_session by default (each with a random colluder set).
inline constexpr std::uint32_t kCertifyTrials = 32;

// What a party demands of a session before it contributes.
struct PrivacyRequirement {
  double epsilon = 1.0;           // largest ε accepted
  double delta = 1e-5;            // largest total δ accepted (graph failure and committee included)
  double honest_fraction = 0.5;   // ρ the party assumes: at most ⌊(1 − ρ)n⌋ parties collude
  // Hidden noise: the smallest Paillier modulus accepted. The committee's shares are hidden only
  // while nobody factors the members' moduli, and the coordinator picks their size: a party
  // refuses a session below this before it posts (or generates a key). Tests of the protocol's
  // logic lower it for their insecure test moduli.
  std::uint32_t min_paillier_bits = 2048;

  // nullopt when valid, otherwise the bad field and why.
  [[nodiscard]] std::optional<std::string> validate() const;
};

struct Certificate {
  bool certified = false;          // false: no finite ε at this δ (why says which quantity)
  std::string why;
  // The parameters it is about.
  std::uint32_t parties = 0, dim = 1, k = 0;
  double honest_fraction = 1.0;
  std::uint32_t malicious = 0;     // n_C
  double sigma_eta = 0.0, sigma_delta = 0.0;
  bool hidden = false;
  std::uint32_t committee = 0;
  bool ball = false;                    // input domain: the L2 ball (else the box)
  double coordinate_sensitivity = 0.0;  // one coordinate alone: M (box) or 2C (ball), real units
  double sensitivity = 0.0;             // L2, whole vector, replace-one: M·√d (box) or 2C (ball)
  // δ and its parts.
  double delta = 0.0;                   // total δ stated
  std::uint32_t randomness_candidates = 1;  // draws of graph and committee colluders can pick from
  double graph_failure = 0.0;           // union bound on P(G^H disconnected), over the candidates
  double committee_captured = 0.0;      // P(every committee member colludes)
  double delta_accountant = 0.0;        // δ − graph_failure − committee_captured
  // The accountant over sampled graphs.
  std::uint32_t trials = 0;
  std::uint64_t seed = 0;               // first 8 bytes of the session id, little-endian
  std::uint32_t disconnected = 0;       // sampled graphs whose honest subgraph was disconnected
  double worst_mu = 0.0;                // largest μ over the trials (certified upper bounds)
  double epsilon = 0.0;                 // ε at delta_accountant for worst_mu (+∞ if not certified)
  double epsilon_per_coordinate = 0.0;  // the same for one coordinate (coordinate_sensitivity)
};

// Certifies the session's parameters for colluders making up 1 − honest_fraction of the parties
// and a total δ. Deterministic in the parameters (the trials are seeded by the session id).
// Throws std::invalid_argument on an honest fraction outside (0, 1] or δ outside (0, 1).
[[nodiscard]] Certificate certify_session(const SessionParams& p, double honest_fraction, double delta,
                                          std::uint32_t trials = kCertifyTrials);

// nullopt when the session meets the requirement; otherwise a sentence naming the quantity, the
// certified value and the required one. `out` (optional) receives the certificate.
[[nodiscard]] std::optional<std::string> check_requirement(const SessionParams& p, const PrivacyRequirement& need,
                                                           Certificate* out = nullptr);

// ---- Several sessions over the same parties (the rounds of a training run, docs/privacy.md §11).
//
// Each session t is a Gaussian mechanism with parameter μ_t (its certificate's worst_mu) outside
// a failure event of probability φ_t = graph_failure_t + committee_captured_t that depends only
// on public randomness. Adaptive composition of μ_t-GDP mechanisms is exactly μ-GDP with
// μ = sqrt(Σ μ_t²) (Dong, Roth & Su, 2022: the privacy losses of Gaussian mechanisms add up to a
// Gaussian), so the run is (ε, δ)-DP with δ = δ_μ(ε) + Σ φ_t. The neighbouring relation is the
// sessions' own: one party's input replaced, in every round (the same roster position holds the
// same participant's data throughout).
struct ComposedCertificate {
  bool certified = false;        // false: some round has no certified μ, or the failures use up δ
  std::string why;
  std::uint32_t rounds = 0;
  double mu = 0.0;               // sqrt(Σ worst_mu_t²)
  double failure = 0.0;          // Σ committee_captured_t + the graph failures (one per graph)
  double delta = 0.0;            // total δ stated
  double delta_accountant = 0.0; // δ − failure
  double epsilon = 0.0;          // smallest ε at delta_accountant for mu (+∞ when not certified)
};

// Composes the certificates of the rounds run so far for a total δ (0 < δ < 1, else throws
// std::invalid_argument).
[[nodiscard]] ComposedCertificate compose_sessions(std::span<const Certificate> rounds, double delta);
// The same for rounds that may share a graph (a chain, docs/protocol.md § Chains of sessions):
// sessions[t] is round t's session id and graphs[t] the id of the session whose joint randomness
// drew its graph (its chain's base, or itself). Rounds on one graph share one graph-failure event,
// counted once, at the largest of their bounds, when the session that drew it is among the rounds
// (its bound is then among them); otherwise every round's bound is counted. Both spans have
// rounds.size() entries (else throws std::invalid_argument).
[[nodiscard]] ComposedCertificate compose_sessions(std::span<const Certificate> rounds, double delta,
                                                   std::span<const Bytes32> sessions, std::span<const Bytes32> graphs);

// The μ each of T equal rounds may have so that their composition meets (ε, δ_accountant):
// mu_for(ε, δ_accountant) / √T.
[[nodiscard]] double round_mu(double epsilon, double delta_accountant, std::uint32_t rounds);

// P(all c committee members collude) for c drawn without replacement from n with n_C colluders.
[[nodiscard]] double committee_capture_probability(std::uint32_t n, std::uint32_t malicious, std::uint32_t c);

}  // namespace gopa::protocol
