// Session options and planning shared by `gopa run` and `gopa coordinate` (session_args.hpp).
#include "session_args.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "gopa/bulletin/note.hpp"

#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/random.hpp"

namespace gopa::cli {

namespace gp = gopa::protocol;

void add_session_options(CLI::App* cmd, SessionArgs& a) {
  cmd->add_option_function<std::uint32_t>(
         "--parties", [&a](const std::uint32_t& n) { a.parties = n; a.parties_set = true; },
         "number of parties n, 2.." + std::to_string(gp::SessionParams::kMaxParties))
      ->check(CLI::Range(2u, gp::SessionParams::kMaxParties));
  cmd->add_option("--dim,-d", a.dim, "coordinates per input, 1..131072 (default 1); messages longer than a board entry are posted in chunks")
      ->check(CLI::Range(1u, gp::SessionParams::kMaxDim));
  cmd->add_option("--input-domain", a.input_domain,
                  "box: every coordinate in [0, M] (default); l2-ball: signed vectors with ‖x‖₂ <= C, as clipped "
                  "gradients (L2 sensitivity 2C instead of M·√d)");
  cmd->add_option("--input-max", a.input_max,
                  "the box's upper end M, or the ball's radius C with --input-domain l2-ball (default 1)");
  cmd->add_option_function<double>(
      "--epsilon", [&a](const double& v) { a.epsilon = v; a.epsilon_set = true; },
      "ε of the (ε, δ) guarantee for each party's whole input vector, replace-one (default 1; not with --sigma-eta/--sigma-delta)");
  cmd->add_option("--delta", a.delta,
                  "δ of the guarantee, graph failure and committee capture included (default 1e-5; with hand-set σ's: "
                  "the δ at which their ε is certified)");
  cmd->add_option("--honest-fraction", a.honest_fraction, "fraction ρ of honest parties to plan for: at most ⌊(1 − ρ)n⌋ collude (default 0.5)");
  cmd->add_option("--neighbors", a.neighbors, "k of the k-out graph (default: planned; σ_Δ is then planned for this k, or the run refused)");
  cmd->add_option_function<double>(
      "--sigma-eta", [&a](const double& v) { a.sigma_eta = v; a.sigma_eta_set = true; },
      "set σ_η > 0 by hand (with --sigma-delta, without --epsilon; the output states what the accountant certifies for them)");
  cmd->add_option_function<double>(
      "--sigma-delta", [&a](const double& v) { a.sigma_delta = v; a.sigma_delta_set = true; },
      "set σ_Δ > 0 by hand (with --sigma-eta)");
  cmd->add_option("--sampler", a.sampler, "Gaussian sampler proven for the noise: box-muller (default), polar, inverse-cdf, clt");
  cmd->add_option("--sampler-precision", a.sampler_precision, "fractional bits of the proven noise samples, 8..16 (default 16)");
  cmd->add_option("--noise", a.noise,
                  "private: every party samples and proves its own noise (default); hidden: a committee computes one "
                  "hidden sample per coordinate by secret sharing, so the average carries the trusted curator's noise "
                  "even when half the parties collude (docs/sampling.md)");
  cmd->add_option_function<unsigned>(
      "--committee", [&a](const unsigned& c) { a.committee = c; a.committee_set = true; },
      "with --noise hidden: committee size c, 2..32 (default: the smallest with P(all c collude) ≤ δ/2)");
  cmd->add_option("--randomness-restarts", a.randomness_restarts,
                  "restarts of the joint randomness when a party withholds its reveal, 0..8 (default 3); colluders "
                  "can pick among restarts + 1 graphs, which δ accounts for (docs/privacy.md)")
      ->check(CLI::Range(0u, unsigned{gp::SessionParams::kMaxRandomnessRestarts}));
}

void check_session_options(const SessionArgs& a) {
  if (a.sigma_eta_set != a.sigma_delta_set) {
    throw UsageError(a.sigma_eta_set ? "--sigma-eta: give --sigma-delta too (both σ's are set by hand, or neither)"
                                     : "--sigma-delta: give --sigma-eta too (both σ's are set by hand, or neither)");
  }
  if (a.sigma_eta_set && !(a.sigma_eta > 0.0 && std::isfinite(a.sigma_eta))) {
    throw UsageError("--sigma-eta: must be finite and > 0");
  }
  if (a.sigma_delta_set && !(a.sigma_delta > 0.0 && std::isfinite(a.sigma_delta))) {
    throw UsageError("--sigma-delta: must be finite and > 0");
  }
  if (a.sigma_eta_set && a.epsilon_set) {
    throw UsageError("--epsilon: not with --sigma-eta/--sigma-delta (hand-set σ's fix ε; the output states the ε "
                     "they are certified for at --delta)");
  }
  if (a.committee_set && a.noise != "hidden") throw UsageError("--committee: only with --noise hidden");
}

std::string up4(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) {
    char b[32];
    std::snprintf(b, sizeof b, "%g", x);
    return b;
  }
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 3.0);
  char b[48];
  std::snprintf(b, sizeof b, "%.4g", std::ceil(x / scale * (1.0 - 1e-12)) * scale);
  return b;
}

std::string g3(double x) {
  char b[48];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

namespace {

std::string colluders(const gp::Certificate& c) {
  if (c.malicious == 0) {
    return "assuming NO party colludes (honest fraction 1: the adversary only reads the board)";
  }
  return "assuming at most " + std::to_string(c.malicious) + " of the " + std::to_string(c.parties) +
         " parties collude (honest fraction " + g3(c.honest_fraction) + "), chosen before the graph is drawn";
}

std::string claim(const gp::Certificate& c) {
  if (!c.certified) return "no (ε, δ) certified: " + c.why + "; " + colluders(c);
  const std::string domain =
      c.ball ? "one party's vector in the L2 ball ‖x‖₂ ≤ C = " + g3(c.sensitivity / 2) + " replaced by another, L2 sensitivity 2C = "
             : "one party's vector in [0, M]^" + std::to_string(c.dim) + " replaced, L2 sensitivity M·√d = ";
  std::string s = "(ε=" + up4(c.epsilon) + ", δ=" + g3(c.delta) + ")-DP for each party's whole input (" +
                  gp::kNeighbouring + ": " + domain + g3(c.sensitivity) + "), " + colluders(c) + "; δ = " +
                  g3(c.delta_accountant) + " accountant (worst of " + std::to_string(c.trials) + " sampled k=" +
                  std::to_string(c.k) + " graphs) + " + g3(c.graph_failure) +
                  " P(honest subgraph disconnected, union bound over " + std::to_string(c.randomness_candidates) +
                  " draws colluders could pick from)";
  if (c.hidden) {
    s += " + " + g3(c.committee_captured) + " P(all " + std::to_string(c.committee) + " committee members collude)";
  }
  if (c.dim > 1 && !c.ball) s += "; one coordinate alone: ε=" + up4(c.epsilon_per_coordinate);
  return s;
}

gp::Certificate certify(const gp::SessionParams& p, const SessionArgs& a) {
  try {
    return gp::certify_session(p, a.honest_fraction, a.delta);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

}  // namespace


std::uint32_t smallest_connected_k(std::uint32_t n, std::uint32_t malicious, double budget) {
  for (std::uint32_t k = 1; k < n; ++k) {
    if (gp::disconnect_probability_bound(n, malicious, k) <= budget) return k;
  }
  return 0;
}

gp::InputDomain parse_input_domain(const std::string& name) {
  if (name == "box") return gp::InputDomain::box;
  if (name == "l2-ball") return gp::InputDomain::l2_ball;
  throw UsageError("--input-domain '" + name + "': must be box or l2-ball");
}

double input_max_limit(gp::InputDomain d) { return d == gp::InputDomain::l2_ball ? 32768.0 : 65536.0; }

PlannedSession plan_session(const SessionArgs& a) {
  check_session_options(a);
  const gp::InputDomain domain = parse_input_domain(a.input_domain);
  const double max_limit = input_max_limit(domain);
  if (a.input_max <= 0 || a.input_max >= max_limit) {
    throw UsageError("--input-max: must be in (0, " + std::to_string(static_cast<int>(max_limit)) + ")" +
                     (domain == gp::InputDomain::l2_ball ? " for the L2 ball" : ""));
  }
  if (a.parties > gp::SessionParams::kMaxParties) {
    throw UsageError("--parties: at most " + std::to_string(gp::SessionParams::kMaxParties) +
                     " in this protocol version");
  }
  if (!(a.honest_fraction > 0.0 && a.honest_fraction <= 1.0)) throw UsageError("--honest-fraction: must be in (0, 1]");
  if (!(a.delta > 0.0 && a.delta < 1.0)) throw UsageError("--delta: must be in (0, 1)");
  if (!(a.epsilon > 0.0) || !std::isfinite(a.epsilon)) throw UsageError("--epsilon: must be finite and > 0");
  const std::uint32_t colluding = gp::malicious_count(a.parties, a.honest_fraction);
  if (colluding >= a.parties) throw UsageError("--honest-fraction: leaves no honest party");
  gp::SessionParams p = gp::SessionParams::defaults(a.parties, a.dim);
  p.input_bits = 32;
  p.frac_bits = 16;
  p.input_domain = domain;
  // M (or C) in fixed point, rounded down: the proven domain never exceeds the one asked for.
  const auto m = p.fixed_input_max(a.input_max);
  if (!m) throw UsageError("--input-max: must be at least 2^-16 and below " + std::to_string(static_cast<int>(max_limit)));
  p.input_max = *m;
  p.round_timeout_ms = a.round_timeout_ms;
  p.min_round_ms = a.min_round_ms != 0 ? a.min_round_ms : std::min<std::uint32_t>(5'000, a.round_timeout_ms);
  if (p.min_round_ms > p.round_timeout_ms) {
    throw UsageError("--min-round-ms: at most --round-timeout-ms (" + std::to_string(p.round_timeout_ms) + ")");
  }
  p.randomness_restarts = static_cast<std::uint8_t>(a.randomness_restarts);
  const auto kind = gp::sampler_from_name(a.sampler);
  if (!kind) throw UsageError("--sampler '" + a.sampler + "': must be one of box-muller, polar, inverse-cdf, clt");
  p.sampler = *kind;
  if (a.sampler_precision < 8 || a.sampler_precision > 16) {
    throw UsageError("--sampler-precision: must be in 8..16 (the session's fixed point has 16 fractional bits)");
  }
  p.sampler_precision = static_cast<std::uint8_t>(a.sampler_precision);
  if (a.nonce_from_seed) {
    std::array<std::uint8_t, 32> key{};
    const char label[] = "gopa/run/nonce";
    std::copy(label, label + sizeof label - 1, key.begin());
    for (unsigned i = 0; i < 8; ++i) key[24 + i] = static_cast<std::uint8_t>(a.seed >> (8 * i));
    DeterministicRng(key).fill(p.nonce);
  } else {
    SystemRng sys;
    sys.fill(p.nonce);
  }
  if (a.noise != "private" && a.noise != "hidden") throw UsageError("--noise '" + a.noise + "': must be private or hidden");
  const bool hidden = a.noise == "hidden";
  const bool by_hand = a.sigma_eta_set && a.sigma_delta_set;
  double committee_budget = 0.0;
  // Colluders that withhold randomness reveals pick the graph and the committee among up to
  // restarts + 1 independent draws: every failure probability is counted that many times.
  const double candidates = 1.0 + a.randomness_restarts;
  if (hidden) {
    if (p.sampler != gp::SamplerKind::box_muller) throw UsageError("--noise hidden computes Box–Muller samples: drop --sampler");
    committee_budget = kCommitteeShare * a.delta;
    const std::uint32_t c_max = std::min<std::uint32_t>(32, a.parties);
    std::uint32_t fits = 0;  // smallest committee whose capture fits its share of δ
    for (std::uint32_t c = 2; c <= c_max && fits == 0; ++c) {
      if (candidates * gp::committee_capture_probability(a.parties, colluding, c) <= committee_budget) fits = c;
    }
    std::uint32_t c = a.committee;
    if (c != 0) {
      if (c < 2 || c > 32 || c > a.parties) {
        throw UsageError("--committee: must be in 2..32 and at most --parties (got " + std::to_string(c) + ")");
      }
      const double captured = candidates * gp::committee_capture_probability(a.parties, colluding, c);
      if (!by_hand && captured > committee_budget) {
        throw UsageError("--committee " + std::to_string(c) + ": P(all members collude) = " + g3(captured) +
                         " (over " + std::to_string(a.randomness_restarts + 1) + " possible draws)" +
                         " at honest fraction " + g3(a.honest_fraction) + " exceeds its share of δ (" +
                         g3(committee_budget) + " = δ/2); " +
                         (fits ? "use --committee " + std::to_string(fits) + " or more" : std::string("no committee of at most 32 fits")) +
                         ", or a larger --delta");
      }
    } else {
      if (fits == 0) {
        throw UsageError("--noise hidden: no committee of at most 32 members keeps P(all members collude) within δ/2 = " +
                         g3(committee_budget) + " at honest fraction " + g3(a.honest_fraction) +
                         "; use a larger --delta or --committee C with --sigma-eta/--sigma-delta");
      }
      c = fits;
    }
    p.noise = gp::NoiseMode::hidden;
    p.committee = static_cast<std::uint8_t>(c);
    p.paillier_bits = 2048;
  }
  PlannedSession out;
  if (by_hand) {
    p.sigma_eta = a.sigma_eta;
    p.sigma_delta = a.sigma_delta;
    p.neighbors = a.neighbors ? a.neighbors : std::min<std::uint32_t>(a.parties - 1, 20);
    if (auto why = p.validate()) throw UsageError(*why);
    out.certificate = certify(p, a);
    out.privacy = "σ_η and σ_Δ set by hand; " + claim(out.certificate);
    out.params = p;
    return out;
  }
  const double graph_budget = kGraphShare * a.delta;
  gp::PlanRequest req;
  req.parties = a.parties;
  req.honest_fraction = a.honest_fraction;
  req.epsilon = a.epsilon;
  req.delta = a.delta - graph_budget - committee_budget;
  // The whole vector: x_u ∈ [0, M]^d replaced by another point of the box moves it by M·√d in L2;
  // a point of the ball ‖x‖₂ ≤ C replaced by another, by 2C (docs/privacy.md §1.1).
  req.sensitivity = p.input_sensitivity();
  req.dim = a.dim;
  req.trials = 100;
  req.seed = a.seed;
  const std::uint32_t k_graph = smallest_connected_k(a.parties, colluding, graph_budget / candidates);
  if (a.neighbors != 0) {
    if (a.neighbors >= a.parties) throw UsageError("--neighbors: must be in [1, parties - 1]");
    const double bound = candidates * gp::disconnect_probability_bound(a.parties, colluding, a.neighbors);
    if (bound > graph_budget) {
      throw UsageError("--neighbors " + std::to_string(a.neighbors) + ": P(honest subgraph disconnected) <= " + g3(bound) +
                       " (union bound over " + std::to_string(a.randomness_restarts + 1) +
                       " possible graphs, honest fraction " + g3(a.honest_fraction) + ") exceeds its share of δ (" +
                       g3(graph_budget) + " = δ/10); " +
                       (k_graph ? "k >= " + std::to_string(k_graph) + " fits" : std::string("no k fits")));
    }
    req.k_min = req.k_max = a.neighbors;
  } else {
    if (k_graph == 0 || k_graph > 512) {
      throw UsageError("no k up to 512 keeps P(honest subgraph disconnected) within δ/10 = " + g3(graph_budget) +
                       " at honest fraction " + g3(a.honest_fraction) + "; use a larger --delta or --honest-fraction");
    }
    req.k_min = k_graph;
  }
  try {
    req.validate();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const gp::Plan plan = gp::make_plan(req);
  if (!plan.found) {
    if (a.neighbors != 0) {
      throw UsageError("--neighbors " + std::to_string(a.neighbors) +
                       ": no σ_Δ meets (ε, δ) at this k (sampled honest subgraphs fragment); see `gopa plan --k " +
                       std::to_string(a.neighbors) + "`");
    }
    throw UsageError("no parameters meet (ε, δ) for this n and honest fraction; see `gopa plan`");
  }
  if (hidden) {
    const gp::HiddenPlan hp = gp::make_hidden_plan(plan, p.committee);
    if (!hp.found) throw UsageError("no hidden-noise parameters meet (ε, δ): " + hp.why);
    p.sigma_eta = hp.sigma_c;
    p.sigma_delta = hp.sigma_delta;
    p.neighbors = hp.k;
  } else {
    p.sigma_eta = plan.sigma_eta;
    p.sigma_delta = plan.sigma_delta;
    p.neighbors = plan.k;
  }
  // What is printed is what the certificate finds for these exact parameters (the graphs every
  // party samples from the session id). The plan validated other graphs; should one of these need
  // more pairwise noise, σ_Δ is raised (more σ_Δ never hurts, docs/privacy.md §1.4).
  for (int attempt = 0;; ++attempt) {
    if (auto why = p.validate()) throw UsageError(*why);
    out.certificate = certify(p, a);
    if (out.certificate.certified && out.certificate.epsilon <= a.epsilon) break;
    if (attempt == 8 || !(out.certificate.delta_accountant > 0.0)) {
      throw UsageError("the planned parameters are not certified for (ε, δ) = (" + g3(a.epsilon) + ", " + g3(a.delta) +
                       "): " + (out.certificate.certified ? "ε = " + up4(out.certificate.epsilon) : out.certificate.why));
    }
    p.sigma_delta *= 1.25;
  }
  out.privacy = claim(out.certificate);
  out.params = p;
  return out;
}

std::string privacy_sentence(const gp::Certificate& c) { return claim(c); }

bool anyone_misbehaved(const std::map<std::uint32_t, gp::Blame>& parties) {
  for (const auto& [u, why] : parties) {
    if (why.offence != gp::Offence::dropout) return true;
  }
  return false;
}

std::string resolve_vkey(const std::string& value, const std::string& option) {
  std::string vkey = value;
  if (!vkey.empty() && vkey[0] == '@') {
    const std::string path = vkey.substr(1);
    std::ifstream in(path, std::ios::binary);
    if (path.empty() || !in) throw UsageError(option + ": cannot read the vkey file '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    vkey = ss.str();
    if (vkey.size() > 4096) throw UsageError(option + ": '" + path + "' is too large for a vkey file");
  }
  const auto first = vkey.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) {
    if (!value.empty() && value[0] == '@') throw UsageError(option + ": the vkey file '" + value.substr(1) + "' is empty");
    return {};
  }
  vkey = vkey.substr(first, vkey.find_last_not_of(" \t\r\n") - first + 1);
  if (auto v = gopa::bulletin::NoteVerifier::from_vkey(vkey); !v) {
    throw UsageError(option + ": not a board verifier key (NAME+KEYID+BASE64, as printed by `gopa board key`): " +
                     v.error().message);
  }
  return vkey;
}

bulletin::Result<std::vector<Bytes32>> sessions_with_prefix(bulletin::Board& board, const std::string& prefix) {
  auto listing = gp::list_sessions(board);
  if (!listing) return listing.error();
  std::vector<Bytes32> out;
  for (const auto& id : listing.value()) {
    if (to_hex(id).rfind(prefix, 0) == 0) out.push_back(id);
  }
  return out;
}

bulletin::Result<Bytes32> session_by_prefix(bulletin::Board& board, const std::string& prefix, const std::string& option) {
  auto matches = sessions_with_prefix(board, prefix);
  if (!matches) return matches.error();
  if (matches.value().size() > 1) throw UsageError(option + " " + prefix + ": more than one session on the board starts so");
  if (matches.value().empty()) throw UsageError(option + " " + prefix + ": no session on the board has that id");
  return matches.value().front();
}

void check_board_path(const std::string& board) {
  for (const char* scheme : {"http://", "https://", "postgresql://", "postgres://"}) {
    if (board.rfind(scheme, 0) == 0) return;
  }
  std::error_code ec;
  if (board.empty() || !std::filesystem::exists(board, ec)) throw UsageError("--board: '" + board + "' does not exist");
  if (!std::filesystem::is_regular_file(board, ec)) throw UsageError("--board: '" + board + "' is not a file");
  std::ifstream in(board, std::ios::binary);
  if (!in) throw UsageError("--board: cannot read '" + board + "'");
  char head[16] = {};
  in.read(head, sizeof head);
  if (in.gcount() != sizeof head || std::string(head, sizeof head) != std::string("SQLite format 3\0", 16)) {
    throw UsageError("--board: '" + board + "' is not a board (an SQLite database)");
  }
}

void put_params(nlohmann::json& j, const gp::SessionParams& p) {
  j["parties"] = p.parties;
  j["dim"] = p.dim;
  j["k"] = p.neighbors;
  j["sigma_eta"] = p.sigma_eta;
  j["sigma_delta"] = p.sigma_delta;
  j["input_max"] = p.input_max_real();
  j["input_max_fixed"] = p.input_max;
  j["frac_bits"] = p.frac_bits;
  j["sampler"] = gp::sampler_name(p.sampler);
  j["sampler_precision"] = p.sampler_precision;
  j["noise"] = gp::noise_mode_name(p.noise);
  j["input_domain"] = gp::input_domain_name(p.input_domain);
  j["randomness_restarts"] = p.randomness_restarts;
  j["min_round_ms"] = p.min_round_ms;
  j["round_timeout_ms"] = p.round_timeout_ms;
  if (p.chained()) {
    j["chain"] = {{"rounds", p.chain_rounds}, {"index", p.chain_index}};
    if (p.linked()) j["chain"]["base"] = to_hex(p.chain_base);
  }
}

nlohmann::json certificate_json(const gp::Certificate& c) {
  auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  return {{"certified", c.certified},
          {"why", c.why},
          {"epsilon", finite(c.epsilon)},
          {"delta", c.delta},
          {"delta_accountant", c.delta_accountant},
          {"graph_failure", c.graph_failure},
          {"committee_captured", c.committee_captured},
          {"randomness_candidates", c.randomness_candidates},
          {"committee", c.committee},
          {"neighbouring_relation", gp::kNeighbouring},
          {"input_domain", c.ball ? "l2-ball" : "box"},
          {"sensitivity", c.sensitivity},
          {"coordinate_sensitivity", c.coordinate_sensitivity},
          {"epsilon_per_coordinate", finite(c.epsilon_per_coordinate)},
          {"dim", c.dim},
          {"parties", c.parties},
          {"k", c.k},
          {"sigma_eta", c.sigma_eta},
          {"sigma_delta", c.sigma_delta},
          {"honest_fraction", c.honest_fraction},
          {"colluders", c.malicious},
          {"sampled_graphs", c.trials},
          {"sampled_disconnected", c.disconnected},
          // Every sampled graph meets ε (it is their worst): the one-sided 95% Clopper–Pearson
          // bound on the fraction of k-out graphs that would not.
          {"sampled_failure_upper_95", c.trials > 0 ? gp::binomial_upper_bound(0, c.trials, 0.95) : 1.0},
          {"seed", c.seed}};
}

}  // namespace gopa::cli
