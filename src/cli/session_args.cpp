// Session options and planning shared by `gopa run` and `gopa coordinate` (session_args.hpp).
#include "session_args.hpp"

#include <algorithm>

#include "gopa/protocol/planner.hpp"
#include "gopa/random.hpp"

namespace gopa::cli {

namespace gp = gopa::protocol;

void add_session_options(CLI::App* cmd, SessionArgs& a) {
  cmd->add_option("--parties", a.parties, "number of parties n (≥ 2)")->required()->check(CLI::Range(2u, 1u << 20));
  cmd->add_option("--dim", a.dim, "coordinates per input (default 1)")->check(CLI::Range(1u, 4096u));
  cmd->add_option("--input-max", a.input_max, "upper end of the input domain [0, M] (the sensitivity; default 1)");
  cmd->add_option("--epsilon", a.epsilon, "ε of the (ε, δ) guarantee (default 1)");
  cmd->add_option("--delta", a.delta, "δ of the (ε, δ) guarantee (default 1e-5)");
  cmd->add_option("--honest-fraction", a.honest_fraction, "fraction ρ of honest parties to plan for (default 1)");
  cmd->add_option("--neighbors", a.neighbors, "k of the k-out graph (default: planned)");
  cmd->add_option("--sigma-eta", a.sigma_eta, "set σ_η by hand (with --sigma-delta; no (ε, δ) is then claimed)");
  cmd->add_option("--sigma-delta", a.sigma_delta, "set σ_Δ by hand (with --sigma-eta)");
  cmd->add_option("--sampler", a.sampler, "Gaussian sampler proven for the noise: box-muller (default), polar, inverse-cdf, clt");
  cmd->add_option("--sampler-precision", a.sampler_precision, "fractional bits of the proven noise samples, 8..16 (default 16)");
  cmd->add_option("--noise", a.noise,
                  "private: every party samples and proves its own noise (default); hidden: a committee computes one "
                  "hidden sample per coordinate by secret sharing, so the average carries the trusted curator's noise "
                  "even when half the parties collude (docs/sampling.md)");
  cmd->add_option("--committee", a.committee, "hidden noise: committee size c, 2..32 (default 5)");
}

gp::SessionParams plan_session(const SessionArgs& a, std::string& privacy) {
  if (a.input_max <= 0 || a.input_max * 65536.0 >= 4294967296.0) {
    throw UsageError("--input-max: must be in (0, 65536)");
  }
  if (a.parties > gp::SessionParams::kMaxParties) {
    throw UsageError("--parties: at most " + std::to_string(gp::SessionParams::kMaxParties) +
                     " in this protocol version");
  }
  gp::SessionParams p = gp::SessionParams::defaults(a.parties, a.dim);
  p.input_bits = 32;
  p.frac_bits = 16;
  // M in fixed point, rounded down: the proven domain [0, M] never exceeds the one asked for,
  // so the sensitivity the plan assumes (--input-max) bounds the real one.
  const auto m = p.fixed_input_max(a.input_max);
  if (!m) throw UsageError("--input-max: must be at least 2^-16 and below 65536");
  p.input_max = *m;
  p.round_timeout_ms = a.round_timeout_ms;
  const auto kind = gp::sampler_from_name(a.sampler);
  if (!kind) throw UsageError("--sampler '" + a.sampler + "': must be one of box-muller, polar, inverse-cdf, clt");
  p.sampler = *kind;
  if (a.sampler_precision < 8 || a.sampler_precision > 16) {
    throw UsageError("--sampler-precision: must be in 8..16 (the session's fixed point has 16 fractional bits)");
  }
  p.sampler_precision = static_cast<std::uint8_t>(a.sampler_precision);
  SystemRng sys;
  sys.fill(p.nonce);
  if (a.noise != "private" && a.noise != "hidden") throw UsageError("--noise '" + a.noise + "': must be private or hidden");
  const bool hidden = a.noise == "hidden";
  if (hidden) {
    if (a.committee < 2 || a.committee > 32 || a.committee > a.parties) {
      throw UsageError("--committee: must be in 2..32 and at most --parties (got " + std::to_string(a.committee) + ")");
    }
    if (p.sampler != gp::SamplerKind::box_muller) throw UsageError("--noise hidden computes Box–Muller samples: drop --sampler");
    p.noise = gp::NoiseMode::hidden;
    p.committee = static_cast<std::uint8_t>(a.committee);
    p.paillier_bits = 2048;
  }
  if (a.sigma_eta > 0 && a.sigma_delta > 0) {
    p.sigma_eta = a.sigma_eta;
    p.sigma_delta = a.sigma_delta;
    p.neighbors = a.neighbors ? a.neighbors : std::min<std::uint32_t>(a.parties - 1, 20);
    privacy = "σ_η and σ_Δ set by hand (no (ε, δ) claimed)";
  } else {
    gp::PlanRequest req;
    req.parties = a.parties;
    req.honest_fraction = a.honest_fraction;
    req.epsilon = a.epsilon;
    req.delta = a.delta;
    req.sensitivity = a.input_max;
    req.dim = a.dim;
    req.trials = 100;
    req.seed = a.seed;
    try {
      req.validate();
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    const gp::Plan plan = gp::make_plan(req);
    if (!plan.found) throw UsageError("no parameters meet (ε, δ) for this n and honest fraction; see `gopa plan`");
    if (hidden) {
      const gp::HiddenPlan hp = gp::make_hidden_plan(plan, a.committee);
      if (!hp.found) throw UsageError("no hidden-noise parameters meet (ε, δ): " + hp.why);
      p.sigma_eta = hp.sigma_c;
      p.sigma_delta = hp.sigma_delta;
      p.neighbors = a.neighbors ? a.neighbors : hp.k;
      char buf[512];
      std::snprintf(buf, sizeof buf,
                    "(ε=%g, δ=%g)-DP per coordinate against %.0f%% colluders unless all %u committee members collude "
                    "(probability %.2g); one hidden sample σ=%.4g = 1.05 × the trusted curator's (planned k=%u, "
                    "distance bound %u, 100 sampled graphs)",
                    a.epsilon, a.delta, 100.0 * (1.0 - a.honest_fraction), a.committee, hp.committee_captured,
                    hp.sigma_c, hp.k, hp.distance);
      privacy = buf;
      if (auto why = p.validate()) throw UsageError(*why);
      return p;
    }
    p.sigma_eta = plan.sigma_eta;
    p.sigma_delta = plan.sigma_delta;
    p.neighbors = a.neighbors ? a.neighbors : plan.k;
    char buf[256];
    std::snprintf(buf, sizeof buf, "(ε=%g, δ=%g)-DP per coordinate against %.0f%% colluders (planned k=%u, 100 sampled graphs)",
                  a.epsilon, a.delta, 100.0 * (1.0 - a.honest_fraction), plan.k);
    privacy = buf;
  }
  if (auto why = p.validate()) throw UsageError(*why);
  return p;
}

}  // namespace gopa::cli
