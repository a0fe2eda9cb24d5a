// `gopa plan` and `gopa simulate`: the privacy planner and the accuracy simulator
// (include/gopa/protocol/planner.hpp, docs/privacy.md).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "session_args.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/requirements.hpp"


namespace gopa::cli {

namespace {

using gopa::protocol::Plan;
using gopa::protocol::PlanRequest;
using gopa::protocol::SimulateRequest;
using gopa::protocol::SimulateResult;
using gopa::protocol::TrialStats;

std::string fmt(double v, int digits = 4) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

// Progress lines on stderr: with --progress always; otherwise only on a terminal and not with --json.
protocol::Progress stderr_progress(const char* cmd, bool json, bool asked) {
  if (!asked && (json || !isatty(STDERR_FILENO))) return {};
  return [cmd](const std::string& line) { std::fprintf(stderr, "gopa %s: %s\n", cmd, line.c_str()); };
}

nlohmann::json stats_json(const TrialStats& s) {
  return {{"trials", s.trials},
          {"failures", s.failures},
          {"failure_rate", s.failure_rate},
          {"failure_rate_upper_bound", s.failure_upper},
          {"worst_mu", s.worst_mu},
          {"worst_epsilon", s.worst_epsilon},
          {"min_honest_degree", s.min_honest_degree},
          {"disconnected_honest_graphs", s.disconnected}};
}

// What the plan claims, under the names of a session's `privacy_claim` (session_args.cpp,
// certificate_json): met on the sampled graphs (trials_random, trials_greedy), with δ including
// the union bound on a disconnected honest subgraph.
// A plan for a target (ε, δ): the δ asked for is the total, as in gopa run (session_args.hpp):
// P(honest subgraph disconnected) may use a tenth of it, the accountant plans with the rest.
struct TotalPlan {
  Plan plan;
  double delta_target = 0.0;  // --delta: graph failure included
  std::string why;            // why no plan was found
};

nlohmann::json plan_claim_json(const TotalPlan& t) {
  const Plan& p = t.plan;
  const PlanRequest& r = p.request;
  nlohmann::json c;
  c["certified"] = p.found;
  c["why"] = t.why;
  c["epsilon"] = r.epsilon;
  c["delta"] = p.found ? nlohmann::json(r.delta + p.disconnect_bound) : nlohmann::json(nullptr);
  c["delta_target"] = t.delta_target;
  c["delta_accountant"] = r.delta;
  c["graph_failure"] = p.found ? nlohmann::json(p.disconnect_bound) : nlohmann::json(nullptr);
  c["neighbouring_relation"] = protocol::kNeighbouring;
  c["sensitivity"] = r.sensitivity;
  c["dim"] = r.dim;
  c["parties"] = r.parties;
  c["k"] = p.k;
  c["sigma_eta"] = p.sigma_eta;
  c["sigma_delta"] = p.sigma_delta;
  c["honest_fraction"] = r.honest_fraction;
  c["colluders"] = p.malicious;
  c["sampled_graphs"] = r.trials;
  c["seed"] = r.seed;
  return c;
}

nlohmann::json plan_json(const TotalPlan& t) {
  const Plan& p = t.plan;
  const PlanRequest& r = p.request;
  nlohmann::json j = json_report("plan");
  j["request"] = {{"parties", r.parties},       {"honest_fraction", r.honest_fraction},
                  {"epsilon", r.epsilon},       {"delta", t.delta_target},
                  {"sensitivity", r.sensitivity}, {"dim", r.dim},
                  {"trials", r.trials},         {"slack", r.slack},
                  {"margin", r.margin},         {"confidence", r.confidence},
                  {"seed", r.seed},             {"greedy_attack", r.greedy}};
  j["neighbouring_relation"] = protocol::kNeighbouring;
  j["privacy_claim"] = plan_claim_json(t);
  j["delta_accountant"] = r.delta;
  if (!p.found) j["why"] = t.why;
  j["honest"] = p.honest;
  j["malicious"] = p.malicious;
  j["mu_target"] = p.mu_target;
  j["sigma_central_sum"] = p.sigma_central;
  j["sigma_eta"] = p.sigma_eta;
  j["found"] = p.found;
  j["k"] = p.k;
  j["sigma_delta"] = p.sigma_delta;
  j["validation_sigma_delta"] = p.validation_sigma_delta;
  j["trials_random"] = stats_json(p.random);
  j["trials_greedy"] = p.greedy.trials > 0 ? stats_json(p.greedy) : nlohmann::json(nullptr);
  j["mean_degree"] = p.mean_degree;
  j["messages_per_party"] = p.messages_per_party;
  j["adaptive_isolation_cost"] = p.adaptive_isolation_cost;
  j["error_std_per_coordinate"] = p.error_std;
  j["error_l2"] = p.error_l2;
  j["central_error_std"] = p.central_error_std;
  j["local_error_std"] = p.local_error_std;
  j["disconnect_probability_bound"] = p.disconnect_bound;
  // The stated δ does not cover a disconnected honest subgraph; this one does (union bound).
  j["delta_with_graph_failure"] = p.found ? nlohmann::json(r.delta + p.disconnect_bound) : nlohmann::json(nullptr);
  j["closed_form"] = {{"found", p.closed_form.found},
                      {"k", p.closed_form.k},
                      {"disconnect_probability_bound", p.closed_form.disconnect_bound},
                      {"sigma_delta", p.closed_form.sigma_delta},
                      {"failure_probability_allowed", r.closed_form_failure}};
  nlohmann::json attempts = nlohmann::json::array();
  for (const auto& a : p.attempts) attempts.push_back({{"k", a.k}, {"outcome", a.outcome}, {"sigma_delta", a.sigma_delta}});
  j["attempts"] = attempts;
  j["seconds"] = p.seconds;
  return j;
}

void print_plan(const TotalPlan& t) {
  const Plan& p = t.plan;
  const PlanRequest& r = p.request;
  std::cout << "GOPA plan for n = " << r.parties << " parties, honest fraction rho = " << r.honest_fraction << " ("
            << p.honest << " honest, " << p.malicious << " malicious), (epsilon, delta) = (" << r.epsilon << ", "
            << fmt(t.delta_target) << "; the accountant " << fmt(r.delta)
            << ", P(honest subgraph disconnected) at most the rest), L2 sensitivity " << r.sensitivity
            << " (replace-one: one party's whole input changed by at most this in L2; inputs in [0, M]^d give M*sqrt(d))\n";
  if (p.malicious == 0) {
    std::cout << "  ASSUMES NO COLLUDING PARTIES (honest fraction 1); use --honest-fraction to plan for colluders\n";
  }
  std::cout << "\n";
  std::cout << "  central DP (trusted curator): noise std on the sum  " << fmt(p.sigma_central, 6) << "  (mu = "
            << fmt(p.mu_target, 6) << ")\n";
  std::cout << "  sigma_eta  (independent noise per party)            " << fmt(p.sigma_eta, 6) << "  = (1 + "
            << r.slack << ") * sigma_central / sqrt(n_honest)\n";
  if (!p.found) {
    std::cout << "\n  NOT FOUND: " << t.why << "\n";
    for (const auto& a : p.attempts) std::cout << "    k = " << a.k << ": " << a.outcome << "\n";
  } else {
    std::cout << "  k          (neighbours each party picks)            " << p.k << "\n";
    std::cout << "  sigma_delta (pairwise cancelling noise)             " << fmt(p.sigma_delta, 6) << "  ("
              << fmt(p.sigma_delta / p.sigma_eta, 4) << " x sigma_eta)\n";
    if (p.sigma_delta > p.validation_sigma_delta) {
      std::cout << "  (trials ran at sigma_delta " << fmt(p.validation_sigma_delta, 6)
                << "; raised so that the trials short of pairwise noise pass too)\n";
    }
    std::cout << "\n";
    auto line = [&](const char* name, const TrialStats& s) {
      std::cout << "  " << name << ": " << s.trials << " sampled graphs, " << s.failures << " failures (rate "
                << fmt(s.failure_rate) << ", " << fmt(100 * r.confidence, 3) << "% upper bound " << fmt(s.failure_upper)
                << "), worst epsilon " << fmt(s.worst_epsilon, 5) << ", min honest degree " << s.min_honest_degree
                << "\n";
    };
    line("random malicious set ", p.random);
    if (p.greedy.trials > 0) line("greedy degree attack ", p.greedy);
    std::cout << "\n  messages per party: " << p.messages_per_party << " sent (k encrypted seeds + 1 published value); "
              << fmt(p.mean_degree, 4) << " pairwise noise terms on average\n";
    std::cout << "  std of each coordinate of the average: GOPA " << fmt(p.error_std) << ", central DP "
              << fmt(p.central_error_std) << ", local DP " << fmt(p.local_error_std) << "\n";
    if (r.dim > 1) std::cout << "  expected L2 error scale (dim " << r.dim << "): " << fmt(p.error_l2) << "\n";
    std::cout << "  P(honest subgraph disconnected) <= " << fmt(p.disconnect_bound, 3)
              << " at this k (union bound, malicious set fixed before the graph): the guarantee is (epsilon, delta + "
              << fmt(p.disconnect_bound, 3) << ") = (" << r.epsilon << ", " << fmt(r.delta + p.disconnect_bound, 3)
              << ") on graphs like the sampled ones\n";
    std::cout << "  an adversary corrupting after seeing the graph isolates a party with " << p.adaptive_isolation_cost
              << " corruptions: draw the graph after the malicious set is fixed\n";
  }
  const auto& cf = p.closed_form;
  std::cout << "\n  conservative closed-form bound (a sufficient condition, not the plan): ";
  if (cf.found) {
    std::cout << "k = " << cf.k << " (P(disconnected) <= " << fmt(cf.disconnect_bound, 3) << "), sigma_delta = "
              << fmt(cf.sigma_delta, 4) << "\n";
  } else {
    std::cout << "none within k <= n - 1\n";
  }
  std::cout << "  planned in " << fmt(p.seconds, 3) << " s\n";
}

// Parses "a:b:count" (log-spaced, inclusive) or "a,b,c".
std::vector<double> parse_epsilons(const std::string& spec) {
  std::vector<double> out;
  auto number = [&](const std::string& s) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty()) throw std::invalid_argument("--epsilon-range: '" + s + "' is not a number");
    return v;
  };
  if (spec.find(':') != std::string::npos) {
    std::vector<std::string> parts;
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ':')) parts.push_back(item);
    if (parts.size() != 3) throw std::invalid_argument("--epsilon-range: expected MIN:MAX:COUNT");
    const double lo = number(parts[0]), hi = number(parts[1]);
    const double c = number(parts[2]);
    if (!(lo > 0.0) || !(hi >= lo) || c < 1 || c > 1000 || c != std::floor(c)) {
      throw std::invalid_argument("--epsilon-range: need 0 < MIN <= MAX and an integer COUNT in [1, 1000]");
    }
    const int count = static_cast<int>(c);
    for (int i = 0; i < count; ++i) {
      const double f = count == 1 ? 0.0 : static_cast<double>(i) / (count - 1);
      out.push_back(lo * std::pow(hi / lo, f));
    }
  } else {
    std::stringstream ss(spec);
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(number(item));
  }
  return out;
}

int make_plot(const SimulateResult& res, const std::string& png) {
  const PlotFiles files = plot_files(png);
  const std::string& dat = files.data;
  const std::string& tmp_png = files.tmp_png;
  std::ostringstream d;
  d << "# epsilon central local gopa gopa_empirical hidden\n";
  d.precision(10);
  for (const auto& row : res.rows) {
    d << row.epsilon << ' ' << row.central << ' ' << row.local << ' ' << row.gopa << ' ' << row.gopa_empirical << ' '
      << row.hidden << '\n';
  }
  write_file(dat, d.str());
  std::ostringstream g;
  g << "set terminal pngcairo size 900,600 enhanced font 'Sans,11'\n"
    << "set output " << gnuplot_quote(tmp_png) << "\n"
    << "set logscale xy\nset format y \"%g\"\nset format x \"%g\"\nset grid\nset key top right noenhanced\nset autoscale xfix\nset offsets graph 0.02, graph 0.02, 0, 0\n"
    << "set xlabel 'epsilon (delta = " << fmt(res.request.delta, 3) << ")'\n"
    << "set ylabel 'std of the released average'\n"
    << "set title 'n = " << res.request.parties << ", honest fraction " << res.request.honest_fraction << ", GOPA k = "
    << res.k << ", sigma_Delta/sigma_eta = " << fmt(res.sigma_ratio, 4) << "' noenhanced\n"
    << "plot " << gnuplot_quote(dat) << " using 1:3 with linespoints lw 2 title 'local DP', \\\n"
    << "     '' using 1:4 with lines lw 2 dt 2 title 'GOPA (analytic)', \\\n"
    << "     '' using 1:5 with points pt 7 ps 1.2 title 'GOPA (simulated runs)', \\\n"
    << "     '' using 1:2 with linespoints lw 2 title 'central DP (trusted curator)', \\\n"
    << "     '' using 1:6 with lines lw 1 dt 3 title 'GOPA, hidden samples (analytic)'\n"
    << "set output\n";
  render_plot(files, png, g.str());
  return 0;
}

struct PlanOptions {
  PlanRequest req = [] {
    PlanRequest r;
    r.honest_fraction = 0.5;  // a careful default: half the parties may collude
    return r;
  }();
  std::uint32_t fixed_k = 0;
  double input_max = 0;
  bool input_max_set = false;  // otherwise --sensitivity (default 1)
  bool json = false;
  bool progress = false;
  bool no_greedy = false;
};

struct SimOptions {
  SimulateRequest req;
  std::string epsilon_range = "0.05:10:12";
  std::string plot;
  double input_max = 0;
  bool input_max_set = false;  // otherwise --sensitivity (default 1)
  bool json = false;
  bool progress = false;
};

// --input-max M, if given: M must be finite and > 0.
void check_input_max(bool set, double m) {
  if (set && !(m > 0.0 && std::isfinite(m))) throw std::invalid_argument("--input-max: must be finite and > 0");
}

int usage_error(const char* cmd, const std::exception& e) {
  std::fprintf(stderr, "gopa %s: error: %s\n", cmd, e.what());
  return kExitUsage;
}

}  // namespace

void add_plan_commands(CLI::App& app, Context& ctx) {
  // ------------------------------------------------------------ gopa plan
  auto po = std::make_shared<PlanOptions>();
  CLI::App* plan = app.add_subcommand(
      "plan", "Choose k, sigma_Delta and sigma_eta for a target (epsilon, delta), n parties and honest fraction rho");
  plan->add_option("--parties,-n", po->req.parties, "Number of parties n")->required();
  plan->add_option("--honest-fraction,--rho", po->req.honest_fraction, "Fraction rho of honest parties, in (0, 1]")
      ->capture_default_str();
  plan->add_option("--epsilon,-e", po->req.epsilon, "Target epsilon")->capture_default_str();
  plan->add_option("--delta", po->req.delta, "Target delta")->capture_default_str();
  plan->add_option("--dim,-d", po->req.dim, "Coordinates per input: with --input-max, the sensitivity is M*sqrt(d)")
      ->capture_default_str();
  auto* plan_m = plan->add_option_function<double>(
      "--input-max", [po](const double& m) { po->input_max = m; po->input_max_set = true; },
      "Inputs in [0, M]^d: plan for L2 sensitivity M*sqrt(d), as gopa run does");
  plan->add_option("--sensitivity", po->req.sensitivity,
                   "L2 sensitivity S of one party's whole input, given directly (the older option; not with --input-max)")
      ->capture_default_str()
      ->excludes(plan_m);
  plan->add_option("--trials", po->req.trials, "Validation graphs (each with a random and a greedy malicious set)")
      ->capture_default_str();
  plan->add_option("--pilot-trials", po->req.pilot_trials, "Graphs used to size sigma_Delta per k")->capture_default_str();
  plan->add_option("--slack", po->req.slack, "sigma_eta = (1 + slack) * central noise / sqrt(n_honest)")
      ->capture_default_str();
  plan->add_option("--margin", po->req.margin, "sigma_Delta safety factor over the pilot's need")->capture_default_str();
  plan->add_option("--confidence", po->req.confidence, "Confidence of the failure-rate upper bound")->capture_default_str();
  plan->add_option("--candidates", po->req.candidates, "Weakest honest parties checked exactly per trial")
      ->capture_default_str();
  plan->add_option("--neighbors,--k", po->fixed_k, "Use this k (only size sigma_Delta and validate; --k: its older name)");
  plan->add_option("--k-max", po->req.k_max, "Largest k to try (0: min(n-1, 512))")->capture_default_str();
  plan->add_option("--closed-form-failure", po->req.closed_form_failure,
                   "Disconnection probability allowed by the closed-form bound")
      ->capture_default_str();
  plan->add_option("--seed", po->req.seed, "Seed of the sampled graphs")->capture_default_str();
  plan->add_option("--threads", po->req.threads, "Worker threads")->capture_default_str();
  plan->add_flag("--no-greedy", po->no_greedy, "Skip the greedy graph-aware attack");
  plan->add_flag("--json", po->json, "Machine-readable output (docs/cli-json.md); stderr stays quiet");
  plan->add_flag("--progress", po->progress, "Progress lines on stderr even with --json or when it is not a terminal");
  plan->callback([po, &ctx]() {
    ctx.run = [po]() -> int {
      PlanRequest req = po->req;
      req.greedy = !po->no_greedy;
      if (po->fixed_k != 0) req.k_min = req.k_max = po->fixed_k;
      try {
        check_input_max(po->input_max_set, po->input_max);
        if (po->input_max_set) req.sensitivity = po->input_max * std::sqrt(static_cast<double>(req.dim));
        req.validate();
      } catch (const std::invalid_argument& e) {
        return usage_error("plan", e);
      }
      // --delta is the total: a tenth for P(honest subgraph disconnected), the rest for the
      // accountant, and k no smaller than what the graph's share allows (as gopa run plans).
      TotalPlan t;
      t.delta_target = req.delta;
      const double graph_budget = kGraphShare * t.delta_target;
      req.delta = t.delta_target - graph_budget;
      const std::uint32_t malicious = protocol::malicious_count(req.parties, req.honest_fraction);
      const std::uint32_t k_graph = smallest_connected_k(req.parties, malicious, graph_budget);
      std::string graph_why;
      if (k_graph == 0) {
        graph_why = "no k keeps P(honest subgraph disconnected) within delta/10 = " + fmt(graph_budget, 3);
      } else if (po->fixed_k != 0 && po->fixed_k < k_graph) {
        graph_why = "--neighbors " + std::to_string(po->fixed_k) + ": P(honest subgraph disconnected) <= " +
                    fmt(protocol::disconnect_probability_bound(req.parties, malicious, po->fixed_k), 3) +
                    " exceeds delta/10 = " + fmt(graph_budget, 3) + "; k >= " + std::to_string(k_graph) + " fits";
      } else if (po->fixed_k == 0) {
        req.k_min = std::max(req.k_min, k_graph);
        if (req.k_max != 0 && req.k_max < req.k_min) {
          graph_why = "--k-max " + std::to_string(req.k_max) + ": P(honest subgraph disconnected) needs k >= " +
                      std::to_string(k_graph) + " to stay within delta/10 = " + fmt(graph_budget, 3);
          req.k_max = req.k_min;
        }
      }
      t.plan = protocol::make_plan(req, stderr_progress("plan", po->json, po->progress));
      if (!graph_why.empty()) {
        t.plan.found = false;
        t.why = graph_why;
      } else if (!t.plan.found) {
        t.why = "no k in the range tried met the target (see attempts)";
      } else if (req.delta + t.plan.disconnect_bound > t.delta_target) {
        // Cannot happen with k >= k_graph; a plan over its δ is never reported as found.
        t.plan.found = false;
        t.why = "delta with graph failure " + fmt(req.delta + t.plan.disconnect_bound, 3) + " exceeds the target " +
                fmt(t.delta_target, 3);
      }
      if (po->json) {
        std::cout << plan_json(t).dump(2) << "\n";
      } else {
        print_plan(t);
      }
      return t.plan.found ? kExitOk : kExitMisbehaved;
    };
  });

  // ------------------------------------------------------------ gopa simulate
  auto so = std::make_shared<SimOptions>();
  CLI::App* sim = app.add_subcommand(
      "simulate", "Compare the accuracy of GOPA, local DP and central DP at equal (epsilon, delta)");
  sim->add_option("--parties,-n", so->req.parties, "Number of parties n")->capture_default_str();
  sim->add_option("--honest-fraction,--rho", so->req.honest_fraction, "Fraction rho of honest parties")
      ->capture_default_str();
  sim->add_option("--epsilon-range", so->epsilon_range, "MIN:MAX:COUNT (log-spaced) or a comma list")
      ->capture_default_str();
  sim->add_option("--delta", so->req.delta, "delta")->capture_default_str();
  auto* sim_m = sim->add_option_function<double>(
      "--input-max", [so](const double& m) { so->input_max = m; so->input_max_set = true; },
      "Inputs in [0, M] (one coordinate): sensitivity M");
  sim->add_option("--sensitivity", so->req.sensitivity,
                  "L2 sensitivity of one party's input, given directly (the older option; not with --input-max)")
      ->capture_default_str()
      ->excludes(sim_m);
  sim->add_option("--neighbors,--k", so->req.k, "Use this k instead of planning it (with --sigma-ratio; --k: its older name)");
  sim->add_option("--sigma-ratio", so->req.sigma_ratio, "sigma_Delta / sigma_eta to use with --k");
  sim->add_option("--slack", so->req.slack, "sigma_eta slack over central noise / sqrt(n_honest)")->capture_default_str();
  sim->add_option("--plan-trials", so->req.plan_trials, "Validation graphs when planning k")->capture_default_str();
  sim->add_option("--repetitions", so->req.repetitions, "Simulated protocol runs per epsilon")->capture_default_str();
  sim->add_option("--seed", so->req.seed, "Seed")->capture_default_str();
  sim->add_option("--threads", so->req.threads, "Worker threads")->capture_default_str();
  sim->add_option("--plot", so->plot, "Write a PNG plot here (with .dat and .gp files beside it; needs gnuplot)");
  sim->add_flag("--json", so->json, "Machine-readable output (docs/cli-json.md); stderr stays quiet");
  sim->add_flag("--progress", so->progress, "Progress lines on stderr even with --json or when it is not a terminal");
  sim->callback([so, &ctx]() {
    ctx.run = [so]() -> int {
      SimulateRequest req = so->req;
      try {
        req.epsilons = parse_epsilons(so->epsilon_range);
        check_input_max(so->input_max_set, so->input_max);
        if (so->input_max_set) req.sensitivity = so->input_max;
        req.validate();
        if (!so->plot.empty()) {
          const auto slash = so->plot.find_last_of('/');
          const std::string dir = slash == std::string::npos ? "." : so->plot.substr(0, slash == 0 ? 1 : slash);
          if (access(dir.c_str(), W_OK) != 0) {
            throw std::invalid_argument("--plot: directory '" + dir + "' does not exist or is not writable");
          }
        }
      } catch (const std::invalid_argument& e) {
        return usage_error("simulate", e);
      }
      const SimulateResult res = protocol::simulate(req, stderr_progress("simulate", so->json, so->progress));
      if (!so->plot.empty()) make_plot(res, so->plot);
      if (so->json) {
        nlohmann::json j = json_report("simulate");
        j["parties"] = req.parties;
        j["honest_fraction"] = req.honest_fraction;
        j["neighbouring_relation"] = protocol::kNeighbouring;
        j["sensitivity"] = req.sensitivity;
        j["delta"] = req.delta;
        j["k"] = res.k;
        j["sigma_ratio"] = res.sigma_ratio;
        j["repetitions"] = req.repetitions;
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& r : res.rows) {
          rows.push_back({{"epsilon", r.epsilon},
                          {"central", r.central},
                          {"local", r.local},
                          {"gopa", r.gopa},
                          {"gopa_empirical", r.gopa_empirical},
                          {"gopa_hidden", r.hidden},
                          {"sigma_eta", r.sigma_eta},
                          {"sigma_delta", r.sigma_delta}});
        }
        j["rows"] = rows;
        if (!so->plot.empty()) j["plot"] = so->plot;
        std::cout << j.dump(2) << "\n";
        return kExitOk;
      }
      std::cout << "std of the released average, n = " << req.parties << ", honest fraction " << req.honest_fraction
                << ", delta = " << fmt(req.delta) << "; GOPA k = " << res.k << ", sigma_Delta/sigma_eta = "
                << fmt(res.sigma_ratio) << ", " << req.repetitions << " simulated runs per epsilon\n\n";
      std::printf("%10s %12s %12s %12s %14s %12s %10s\n", "epsilon", "central", "local", "GOPA", "GOPA(sim)",
                  "GOPA-hidden", "local/GOPA");
      for (const auto& r : res.rows) {
        std::printf("%10.4g %12.4g %12.4g %12.4g %14.4g %12.4g %10.3g\n", r.epsilon, r.central, r.local, r.gopa,
                    r.gopa_empirical, r.hidden, r.local / r.gopa);
      }
      if (!so->plot.empty()) std::cout << "\nplot written to " << so->plot << "\n";
      return kExitOk;
    };
  });
}

}  // namespace gopa::cli
