#include "gopa/protocol/planner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "gopa/check.hpp"
#include "gopa/protocol/accountant.hpp"
#include "gopa/protocol/gaussian_dp.hpp"
#include "gopa/protocol/graph.hpp"

namespace gopa::protocol {

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& why) {
  throw std::invalid_argument(field + ": " + why);
}

double log_choose(double a, double b) {
  return std::lgamma(a + 1.0) - std::lgamma(b + 1.0) - std::lgamma(a - b + 1.0);
}

// Round up to three significant digits, so plans print cleanly and stay conservative.
double round_up_3(double x) {
  if (!(x > 0.0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, std::floor(std::log10(x)) - 2.0);
  return std::ceil(x / scale * (1.0 - 1e-12)) * scale;
}

struct Outcome {
  bool pass = true;
  bool fragmented = false;  // a component too small for any σ_Δ: this k fails
  bool disconnected = false;
  double worst = 0.0;  // largest σ_η² Σ⁻¹_uu seen (certified upper bound)
  std::uint32_t min_degree = 0;
};

Outcome evaluate(const HonestSubgraph& h, double t, double target, std::uint32_t candidates) {
  Outcome o;
  if (h.size() == 0) return o;
  o.disconnected = h.component_size.size() > 1;
  o.min_degree = std::numeric_limits<std::uint32_t>::max();
  for (std::uint32_t u = 0; u < h.size(); ++u) o.min_degree = std::min(o.min_degree, h.graph.degree(u));
  const double floor_prec = 1.0 / static_cast<double>(h.smallest_component());
  o.worst = floor_prec;
  if (floor_prec > target) {
    o.pass = false;
    o.fragmented = true;
    return o;
  }
  const Accountant acc(h, 1.0, std::sqrt(t));
  // The best-ranked party gets a precise value; the others only need to be shown no larger
  // than it (they usually are, by a margin), which lets their solves stop early.
  double top_lower = -1.0;
  for (auto u : screen_candidates(h, candidates)) {
    const Enclosure e = acc.scaled_precision(u, 1e-5, top_lower, target);
    if (e.lower > target) {
      o.pass = false;
      o.worst = std::max(o.worst, e.upper);
      break;
    }
    if (top_lower >= 0.0 && e.upper <= top_lower) continue;  // certainly not the maximum
    o.worst = std::max(o.worst, e.upper);
    if (e.upper > target) o.pass = false;
    top_lower = std::max(top_lower, e.lower);
  }
  return o;
}

struct Accumulator {
  TrialStats stats;
  double worst_pass = 0.0;   // largest precision among trials that passed at the validation σ_Δ
  double worst_final = 0.0;  // among the short trials, re-evaluated at the raised σ_Δ
  void add(const Outcome& o) {
    ++stats.trials;
    if (!o.pass) ++stats.failures;
    if (o.disconnected) ++stats.disconnected;
    if (o.pass) worst_pass = std::max(worst_pass, o.worst);
    stats.min_honest_degree =
        stats.trials == 1 ? o.min_degree : std::min(stats.min_honest_degree, o.min_degree);
  }
};

// Runs `count` trials on `threads` threads; body(index, rng) returns false to stop everyone.
template <typename Body>
void parallel_trials(std::uint32_t count, unsigned threads, Body body) {
  std::atomic<std::uint32_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&]() {
    for (;;) {
      if (stop.load()) return;
      const std::uint32_t i = next.fetch_add(1);
      if (i >= count) return;
      if (!body(i)) stop.store(true);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < threads; ++w) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
}

}  // namespace

void PlanRequest::validate() const {
  if (parties < 2) bad("--parties", "need at least 2 parties");
  if (!(honest_fraction > 0.0 && honest_fraction <= 1.0)) bad("--honest-fraction", "must be in (0, 1]");
  if (!(epsilon > 0.0) || !std::isfinite(epsilon)) bad("--epsilon", "must be finite and > 0");
  if (!(delta > 0.0 && delta < 1.0)) bad("--delta", "must be in (0, 1)");
  if (!(sensitivity > 0.0) || !std::isfinite(sensitivity)) bad("--sensitivity", "must be finite and > 0");
  if (dim < 1) bad("--dim", "must be >= 1");
  if (trials < 1) bad("--trials", "must be >= 1");
  if (pilot_trials < 1) bad("--pilot-trials", "must be >= 1");
  if (!(slack > 0.0) || !std::isfinite(slack)) bad("--slack", "must be finite and > 0");
  if (!(margin >= 1.0) || !std::isfinite(margin)) bad("--margin", "must be finite and >= 1");
  if (!(confidence > 0.0 && confidence < 1.0)) bad("--confidence", "must be in (0, 1)");
  if (candidates < 1) bad("--candidates", "must be >= 1");
  if (!(closed_form_failure > 0.0 && closed_form_failure < 1.0)) bad("--closed-form-failure", "must be in (0, 1)");
  if (threads < 1) bad("--threads", "must be >= 1");
  if (k_min < 1 || k_min > parties - 1) bad("--k", "must be in [1, parties - 1]");
  if (k_max != 0 && k_max < k_min) bad("--k-max", "must be >= the first k tried");
  if (malicious_count(parties, honest_fraction) >= parties) bad("--honest-fraction", "leaves no honest party");
}

std::uint32_t malicious_count(std::uint32_t n, double honest_fraction) {
  const double c = (1.0 - honest_fraction) * static_cast<double>(n);
  return static_cast<std::uint32_t>(std::floor(c + 1e-9));
}

double disconnect_probability_bound(std::uint32_t n, std::uint32_t malicious, std::uint32_t k) {
  GOPA_CHECK(malicious < n && k >= 1 && k <= n - 1, "disconnect bound: bad parameters");
  const std::uint32_t nh = n - malicious;
  if (nh <= 1) return 0.0;
  const double others = static_cast<double>(n) - 1.0;
  const double kk = k;
  const double all = log_choose(others, kk);
  // Sum over honest sets S (|S| = s ≤ n_H/2) of P(no honest edge leaves S):
  // every u ∈ S picks its k neighbours among S∖{u} ∪ C, every w ∈ H∖S avoids S.
  double log_sum = -std::numeric_limits<double>::infinity();
  for (std::uint32_t s = 1; s <= nh / 2; ++s) {
    const double inside = static_cast<double>(s) - 1.0 + static_cast<double>(malicious);
    if (inside < kk) continue;
    const double outside = others - static_cast<double>(s);
    if (outside < kk) continue;
    const double lp = log_choose(nh, s) + s * (log_choose(inside, kk) - all) +
                      static_cast<double>(nh - s) * (log_choose(outside, kk) - all);
    const double hi = std::max(log_sum, lp);
    log_sum = hi + std::log(std::exp(log_sum - hi) + std::exp(lp - hi));
  }
  return std::min(1.0, std::exp(log_sum));
}

ClosedFormBound closed_form_bound(const PlanRequest& req, double sigma_eta, double target) {
  ClosedFormBound cf;
  const std::uint32_t nc = malicious_count(req.parties, req.honest_fraction);
  const std::uint32_t nh = req.parties - nc;
  const std::uint32_t k_max = req.parties - 1;
  for (std::uint32_t k = 1; k <= k_max; ++k) {
    const double p = disconnect_probability_bound(req.parties, nc, k);
    if (p <= req.closed_form_failure) {
      cf.found = true;
      cf.k = k;
      cf.disconnect_bound = p;
      break;
    }
  }
  if (nh <= 1) {
    cf.sigma_delta = 0.0;
    return cf;
  }
  // Connected G^H of diameter D ≤ n_H − 1 has λ₂ ≥ 4 / (n_H D) (Mohar), and then
  // σ_η² Σ⁻¹_uu ≤ 1/n_H + (1 − 1/n_H) / (1 + t λ₂).
  const double n_h = nh;
  const double lambda2 = 4.0 / (n_h * (n_h - 1.0));
  const double t = ((1.0 - 1.0 / n_h) / (target - 1.0 / n_h) - 1.0) / lambda2;
  cf.sigma_delta = round_up_3(sigma_eta * std::sqrt(std::max(t, 0.0)));
  return cf;
}

double binomial_upper_bound(std::uint32_t failures, std::uint32_t trials, double confidence) {
  GOPA_CHECK(trials > 0 && failures <= trials, "binomial bound: bad counts");
  if (failures == trials) return 1.0;
  const double alpha = 1.0 - confidence;
  // P(Bin(N, p) ≤ f) is decreasing in p; find p where it equals α.
  auto cdf = [&](double p) {
    double sum = 0.0;
    for (std::uint32_t i = 0; i <= failures; ++i) {
      sum += std::exp(log_choose(trials, i) + i * std::log(p) +
                      static_cast<double>(trials - i) * std::log1p(-p));
    }
    return sum;
  };
  double lo = static_cast<double>(failures) / trials, hi = 1.0;
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    if (cdf(mid) > alpha) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

Plan make_plan(const PlanRequest& req, const Progress& progress) {
  req.validate();
  const auto start = std::chrono::steady_clock::now();
  auto say = [&](const std::string& s) {
    if (progress) progress(s);
  };
  Plan plan;
  plan.request = req;
  const std::uint32_t n = req.parties;
  plan.malicious = malicious_count(n, req.honest_fraction);
  plan.honest = n - plan.malicious;
  plan.mu_target = mu_for(req.epsilon, req.delta);
  plan.sigma_central = req.sensitivity / plan.mu_target;
  const double nh = plan.honest;
  plan.sigma_eta = (1.0 + req.slack) * plan.sigma_central / std::sqrt(nh);
  // Allowed value of σ_η² Σ⁻¹_uu: μ_target² σ_η² / s².
  const double target = (1.0 + req.slack) * (1.0 + req.slack) / nh;
  const double nd = n;
  plan.error_std = plan.sigma_eta / std::sqrt(nd);
  plan.error_l2 = plan.error_std * std::sqrt(static_cast<double>(req.dim));
  plan.central_error_std = plan.sigma_central / nd;
  plan.local_error_std = plan.sigma_central / std::sqrt(nd);
  plan.closed_form = closed_form_bound(req, plan.sigma_eta, target);
  const bool use_greedy = req.greedy && plan.malicious > 0;
  const std::uint32_t k_max = req.k_max == 0 ? std::min<std::uint32_t>(n - 1, 512) : std::min(req.k_max, n - 1);
  const unsigned threads = std::max(1u, req.threads);

  if (plan.honest == 1) {
    // A single honest party is protected by its own η alone.
    plan.found = true;
    plan.k = 1;
    plan.sigma_delta = 0.0;
  }

  for (std::uint32_t k = req.k_min; k <= k_max && !plan.found; ++k) {
    // ---- pilot: the σ_Δ this k needs on a few graphs.
    std::mutex mu;
    double t_needed = 0.0;
    bool infeasible = false;
    const std::uint64_t pilot_seed = trial_seed(req.seed ^ 0x70696c6f74ULL, k);
    parallel_trials(req.pilot_trials, threads, [&](std::uint32_t i) {
      Prng rng(trial_seed(pilot_seed, i));
      const Graph g = sample_k_out(n, k, rng);
      std::vector<Mask> masks;
      masks.push_back(random_corruption(n, plan.malicious, rng));
      if (use_greedy) masks.push_back(greedy_degree_corruption(g, plan.malicious));
      double t_local = 0.0;
      for (const auto& m : masks) {
        const HonestSubgraph h = HonestSubgraph::build(g, m);
        if (1.0 / static_cast<double>(h.smallest_component()) > target) {
          const std::lock_guard<std::mutex> lock(mu);
          infeasible = true;
          return false;
        }
        t_local = std::max(t_local, required_ratio(h, screen_candidates(h, req.candidates), target));
      }
      const std::lock_guard<std::mutex> lock(mu);
      t_needed = std::max(t_needed, t_local);
      return !std::isinf(t_needed);
    });
    if (infeasible || std::isinf(t_needed)) {
      plan.attempts.push_back({k, "pilot: honest subgraph too fragmented", 0.0});
      say("k=" + std::to_string(k) + ": pilot found a fragmented honest subgraph");
      continue;
    }
    const double sigma_delta = round_up_3(req.margin * plan.sigma_eta * std::sqrt(t_needed));
    const double t = (sigma_delta / plan.sigma_eta) * (sigma_delta / plan.sigma_eta);

    // ---- validation on fresh graphs. A fragmented honest subgraph rejects k at once. A trial
    // that is merely short of pairwise noise is kept aside; σ_Δ is raised afterwards so that it
    // passes too (more σ_Δ never hurts: Σ grows, Σ⁻¹ shrinks), and the failure count at the
    // validation σ_Δ bounds the failure rate at the raised one.
    Accumulator acc_random, acc_greedy;
    double degree_sum = 0.0;
    std::uint32_t min_full_degree = std::numeric_limits<std::uint32_t>::max();
    bool fragmented = false;
    std::vector<std::pair<bool, HonestSubgraph>> short_trials;  // (greedy?, graph)
    const std::uint64_t val_seed = trial_seed(req.seed ^ 0x76616c6964ULL, k);
    parallel_trials(req.trials, threads, [&](std::uint32_t i) {
      Prng rng(trial_seed(val_seed, i));
      const Graph g = sample_k_out(n, k, rng);
      std::uint32_t dmin = std::numeric_limits<std::uint32_t>::max();
      for (std::uint32_t u = 0; u < n; ++u) dmin = std::min(dmin, g.degree(u));
      HonestSubgraph hr = HonestSubgraph::build(g, random_corruption(n, plan.malicious, rng));
      const Outcome r = evaluate(hr, t, target, req.candidates);
      Outcome gr;
      HonestSubgraph hg;
      if (use_greedy) {
        hg = HonestSubgraph::build(g, greedy_degree_corruption(g, plan.malicious));
        gr = evaluate(hg, t, target, req.candidates);
      }
      const std::lock_guard<std::mutex> lock(mu);
      acc_random.add(r);
      if (use_greedy) acc_greedy.add(gr);
      degree_sum += 2.0 * static_cast<double>(g.edges()) / nd;
      min_full_degree = std::min(min_full_degree, dmin);
      if (r.fragmented || gr.fragmented) {
        fragmented = true;
        return false;
      }
      if (!r.pass) short_trials.emplace_back(false, std::move(hr));
      if (!gr.pass) short_trials.emplace_back(true, std::move(hg));
      return true;
    });
    std::ostringstream line;
    line << "k=" << k << ": sigma_delta=" << sigma_delta << ", " << acc_random.stats.trials << " trials";
    if (fragmented) {
      line << ", a fragmented honest subgraph";
      plan.attempts.push_back({k, "validation: fragmented honest subgraph after " +
                                      std::to_string(acc_random.stats.trials) + " graphs", sigma_delta});
      say(line.str());
      continue;
    }
    double final_sigma = sigma_delta;
    if (!short_trials.empty()) {
      double t_raise = 0.0;
      for (const auto& [greedy_trial, h] : short_trials) {
        t_raise = std::max(t_raise, required_ratio(h, screen_candidates(h, req.candidates), target));
      }
      final_sigma = std::max(sigma_delta, round_up_3(req.margin * plan.sigma_eta * std::sqrt(t_raise)));
      const double t_final = (final_sigma / plan.sigma_eta) * (final_sigma / plan.sigma_eta);
      for (const auto& [greedy_trial, h] : short_trials) {
        const Outcome o = evaluate(h, t_final, target, req.candidates);
        GOPA_CHECK(o.pass, "raised sigma_delta must cover the short trials");
        (greedy_trial ? acc_greedy : acc_random).worst_final = std::max(
            (greedy_trial ? acc_greedy : acc_random).worst_final, o.worst);
      }
      line << ", " << short_trials.size() << " short of pairwise noise: sigma_delta raised to " << final_sigma;
    }
    auto finish = [&](Accumulator& a) {
      TrialStats st = a.stats;
      if (st.trials > 0) {
        st.failure_rate = static_cast<double>(st.failures) / st.trials;
        st.failure_upper = binomial_upper_bound(st.failures, st.trials, req.confidence);
        st.worst_mu = plan.mu_target * std::sqrt(std::max(a.worst_pass, a.worst_final) / target);
        st.worst_epsilon = epsilon_for(st.worst_mu, req.delta);
      }
      return st;
    };
    line << ", all pass";
    say(line.str());
    plan.attempts.push_back({k, short_trials.empty() ? "accepted" : "accepted after raising sigma_delta", final_sigma});
    plan.found = true;
    plan.k = k;
    plan.sigma_delta = final_sigma;
    plan.validation_sigma_delta = sigma_delta;
    plan.random = finish(acc_random);
    plan.greedy = finish(acc_greedy);
    plan.mean_degree = degree_sum / acc_random.stats.trials;
    plan.adaptive_isolation_cost = min_full_degree;
  }
  if (plan.found) {
    plan.messages_per_party = plan.k + 1;
    plan.disconnect_bound = plan.malicious < n && plan.k >= 1 && plan.k <= n - 1
                                ? disconnect_probability_bound(n, plan.malicious, plan.k)
                                : 0.0;
  }
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return plan;
}

// ---------------------------------------------------------------- hidden samples

std::uint32_t eccentricity(const Graph& g, std::uint32_t source) {
  constexpr std::uint32_t kUnseen = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> dist(g.n, kUnseen);
  std::vector<std::uint32_t> queue;
  queue.reserve(g.n);
  dist[source] = 0;
  queue.push_back(source);
  std::uint32_t far = 0;
  for (std::size_t at = 0; at < queue.size(); ++at) {
    const std::uint32_t u = queue[at];
    far = dist[u];
    for (auto w : g.neighbours(u)) {
      if (dist[w] == kUnseen) {
        dist[w] = dist[u] + 1;
        queue.push_back(w);
      }
    }
  }
  return queue.size() == g.n ? far : kUnseen;
}

double hidden_mu_bound(const HonestSubgraph& h, std::uint32_t member, double sigma_c, double sigma_delta,
                       double sensitivity) {
  const std::uint32_t ecc = eccentricity(h.graph, member);
  if (ecc == std::numeric_limits<std::uint32_t>::max()) return std::numeric_limits<double>::infinity();
  return sensitivity * std::sqrt(1.0 / (sigma_c * sigma_c) + static_cast<double>(ecc) / (sigma_delta * sigma_delta));
}

HiddenPlan make_hidden_plan(const Plan& plan, std::uint32_t committee) {
  const PlanRequest& req = plan.request;
  HiddenPlan hp;
  hp.committee = committee;
  if (!plan.found) {
    hp.why = "no private plan to start from";
    return hp;
  }
  if (committee < 2 || committee > req.parties) {
    hp.why = "committee: must be in 2..n";
    return hp;
  }
  const std::uint32_t n = req.parties;
  hp.k = plan.k;
  hp.sigma_central = plan.sigma_central;
  hp.sigma_c = (1.0 + req.slack) * plan.sigma_central;
  hp.error_std = hp.sigma_c / static_cast<double>(n);
  // P(all c members malicious) for c members drawn without replacement.
  double captured = 1.0;
  for (std::uint32_t i = 0; i < committee; ++i) {
    captured *= static_cast<double>(plan.malicious > i ? plan.malicious - i : 0) / static_cast<double>(n - i);
  }
  hp.committee_captured = captured;
  // D over sampled graphs: a random honest member's eccentricity in G^H, for a random and a greedy
  // malicious set on each graph.
  const bool use_greedy = req.greedy && plan.malicious > 0;
  std::mutex mu;
  std::uint32_t far = 0;
  const std::uint64_t seed = trial_seed(req.seed ^ 0x68696464656eULL, plan.k);
  hp.trials = req.trials;
  parallel_trials(req.trials, std::max(1u, req.threads), [&](std::uint32_t i) {
    Prng rng(trial_seed(seed, i));
    const Graph g = sample_k_out(n, plan.k, rng);
    std::vector<Mask> masks;
    masks.push_back(random_corruption(n, plan.malicious, rng));
    if (use_greedy) masks.push_back(greedy_degree_corruption(g, plan.malicious));
    std::uint32_t local = 0;
    bool cut = false;
    for (const auto& m : masks) {
      const HonestSubgraph h = HonestSubgraph::build(g, m);
      const auto member = static_cast<std::uint32_t>(uniform_below(rng, h.size()));
      const std::uint32_t e = eccentricity(h.graph, member);
      if (e == std::numeric_limits<std::uint32_t>::max()) cut = true;
      else local = std::max(local, e);
    }
    const std::lock_guard<std::mutex> lock(mu);
    if (cut) ++hp.disconnected;
    far = std::max(far, local);
    return true;
  });
  if (hp.disconnected > 0) {
    hp.why = std::to_string(hp.disconnected) + " of " + std::to_string(hp.trials) +
             " sampled honest subgraphs left a party without a path to the committee";
    return hp;
  }
  hp.distance = far + 1;
  // μ² = s²/σ_c² + s²·D/σ_Δ² ≤ μ_target² once σ_Δ² ≥ s²·D / (μ_target² − s²/σ_c²).
  const double s = req.sensitivity;
  const double rest = plan.mu_target * plan.mu_target - (s / hp.sigma_c) * (s / hp.sigma_c);
  const double needed = s * std::sqrt(static_cast<double>(hp.distance) / rest);
  hp.sigma_delta = std::max(plan.sigma_delta, round_up_3(needed));
  hp.worst_mu = s * std::sqrt(1.0 / (hp.sigma_c * hp.sigma_c) +
                              static_cast<double>(hp.distance) / (hp.sigma_delta * hp.sigma_delta));
  hp.found = hp.worst_mu <= plan.mu_target * (1.0 + 1e-12);
  if (!hp.found) hp.why = "rounding left μ above its target";
  return hp;
}

// ---------------------------------------------------------------- simulator

void SimulateRequest::validate() const {
  if (parties < 2) bad("--parties", "need at least 2 parties");
  if (!(honest_fraction > 0.0 && honest_fraction <= 1.0)) bad("--honest-fraction", "must be in (0, 1]");
  if (epsilons.empty()) bad("--epsilon-range", "no epsilon values");
  for (double e : epsilons) {
    if (!(e > 0.0) || !std::isfinite(e)) bad("--epsilon-range", "every epsilon must be finite and > 0");
  }
  if (!(delta > 0.0 && delta < 1.0)) bad("--delta", "must be in (0, 1)");
  if (!(sensitivity > 0.0) || !std::isfinite(sensitivity)) bad("--sensitivity", "must be finite and > 0");
  if (k >= parties) bad("--k", "must be < parties");
  if (!(sigma_ratio >= 0.0) || !std::isfinite(sigma_ratio)) bad("--sigma-ratio", "must be finite and >= 0");
  if ((k == 0) != (sigma_ratio == 0.0)) bad("--k", "give both --k and --sigma-ratio, or neither");
  if (!(slack > 0.0)) bad("--slack", "must be > 0");
  if (repetitions < 2) bad("--repetitions", "must be >= 2");
  if (plan_trials < 1) bad("--plan-trials", "must be >= 1");
  if (threads < 1) bad("--threads", "must be >= 1");
  if (malicious_count(parties, honest_fraction) >= parties) bad("--honest-fraction", "leaves no honest party");
}

SimulateResult simulate(const SimulateRequest& req, const Progress& progress) {
  req.validate();
  SimulateResult res;
  res.request = req;
  const std::uint32_t n = req.parties;
  const double nd = n;
  const double nh = n - malicious_count(n, req.honest_fraction);
  if (req.k == 0) {
    // k and σ_Δ/σ_η do not depend on ε (docs/privacy.md §3): plan once.
    PlanRequest pr;
    pr.parties = n;
    pr.honest_fraction = req.honest_fraction;
    pr.epsilon = 1.0;
    pr.delta = req.delta;
    pr.sensitivity = req.sensitivity;
    pr.trials = req.plan_trials;
    pr.slack = req.slack;
    pr.seed = req.seed;
    pr.threads = req.threads;
    const Plan p = make_plan(pr, progress);
    if (!p.found) throw std::runtime_error("simulate: the planner found no k up to its limit");
    res.k = p.k;
    res.sigma_ratio = p.sigma_delta / p.sigma_eta;
  } else {
    res.k = req.k;
    res.sigma_ratio = req.sigma_ratio;
  }
  for (std::size_t ei = 0; ei < req.epsilons.size(); ++ei) {
    const double eps = req.epsilons[ei];
    SimulateRow row;
    row.epsilon = eps;
    const double sigma_c = sigma_for(eps, req.delta, req.sensitivity);
    row.central = sigma_c / nd;
    row.hidden = (1.0 + req.slack) * row.central;  // σ_c = (1 + slack) σ_central (make_hidden_plan)
    row.local = sigma_c / std::sqrt(nd);
    row.sigma_eta = (1.0 + req.slack) * sigma_c / std::sqrt(nh);
    row.sigma_delta = res.sigma_ratio * row.sigma_eta;
    row.gopa = row.sigma_eta / std::sqrt(nd);
    // Simulated protocol runs: X̂_u = X_u + Σ_v Δ_uv + η_u on a fresh k-out graph each time.
    std::vector<double> errors(req.repetitions, 0.0);
    parallel_trials(req.repetitions, req.threads, [&](std::uint32_t r) {
      Prng rng(trial_seed(trial_seed(req.seed ^ 0x73696dULL, ei), r));
      const Graph g = sample_k_out(n, res.k, rng);
      std::normal_distribution<double> normal(0.0, 1.0);
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      std::vector<double> published(n);
      double truth = 0.0;
      for (std::uint32_t u = 0; u < n; ++u) {
        const double x = unit(rng);
        truth += x;
        published[u] = x + row.sigma_eta * normal(rng);
      }
      for (std::uint32_t u = 0; u < n; ++u) {
        for (auto v : g.neighbours(u)) {
          if (v <= u) continue;
          const double d = row.sigma_delta * normal(rng);
          published[u] += d;
          published[v] -= d;
        }
      }
      double sum = 0.0;
      for (double y : published) sum += y;
      errors[r] = (sum - truth) / nd;
      return true;
    });
    double ss = 0.0;
    for (double e : errors) ss += e * e;
    row.gopa_empirical = std::sqrt(ss / static_cast<double>(errors.size()));
    res.rows.push_back(row);
    if (progress) {
      std::ostringstream line;
      line << "epsilon=" << eps << " done";
      progress(line.str());
    }
  }
  return res;
}

}  // namespace gopa::protocol
