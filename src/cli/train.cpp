// `gopa train`: federated SGD for logistic regression in which every round's average is a
// verifiable GOPA session on one SQLite board, beside simulated baselines at the same total
// (ε, δ) (include/gopa/learn/train.hpp, docs/training.md).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "plot.hpp"
#include "report.hpp"
#include "training_audit.hpp"
#include "session_args.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/learn/data.hpp"
#include "gopa/learn/manifest.hpp"
#include "gopa/learn/train.hpp"
#include "gopa/protocol/gaussian_dp.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/requirements.hpp"
#include "gopa/protocol/run.hpp"
#include "gopa/random.hpp"

namespace gopa::cli {

namespace {

namespace bb = gopa::bulletin;
namespace gp = gopa::protocol;
namespace gl = gopa::learn;
using json = nlohmann::json;

struct TrainArgs {
  std::string data = "housing";
  std::string data_dir;
  std::uint32_t parties = 100;
  std::uint32_t rounds = 3;
  double learning_rate = 3.0;
  double clip = 0.5;
  double epsilon = 1.0;
  double delta = 1e-5;
  double honest_fraction = 0.5;
  double test_fraction = 0.2;
  std::vector<std::string> methods{"sgd", "central", "gopa", "local"};
  std::string board;
  std::string csv;
  std::string plot;
  std::uint64_t seed = 1;
  bool seed_set = false;
  bool json_out = false;
  bool progress = false;
};

const char* const kMethodNames[] = {"sgd", "central", "gopa", "hidden", "local"};

std::string describe(const std::string& m) {
  if (m == "sgd") return "non-private SGD";
  if (m == "central") return "trusted curator, central DP (simulated)";
  if (m == "gopa") return "GOPA, private noise (verifiable sessions)";
  if (m == "hidden") return "GOPA, hidden noise (verifiable sessions)";
  return "local DP (simulated)";
}

std::string g4(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

// One GOPA session per round on one board: the parties' clipped gradients are their inputs in
// the L2 ball of radius C, and every session's parameters are certified before it runs to give
// at most the round's share μ_round of the run's μ.
class GopaRounds {
 public:
  GopaRounds(const TrainArgs& a, bool hidden, std::size_t dim, bb::Board& board, std::uint64_t secrets)
      : a_(a), hidden_(hidden), board_(board), secrets_(secrets) {
    const double shares = kGraphShare + (hidden ? kCommitteeShare : 0.0);
    delta_round_ = a.delta / a.rounds;
    mu_round_ = gp::round_mu(a.epsilon, a.delta * (1.0 - shares), a.rounds);
    SessionArgs s;
    s.parties = a.parties;
    s.parties_set = true;
    s.dim = static_cast<std::uint32_t>(dim);
    s.input_domain = "l2-ball";
    s.input_max = a.clip;
    s.honest_fraction = a.honest_fraction;
    s.delta = delta_round_;
    // The ε whose plan gives μ_round at the accountant's share of the round's δ.
    s.epsilon = gp::epsilon_for(mu_round_, delta_round_ * (1.0 - shares));
    s.epsilon_set = true;
    s.noise = hidden ? "hidden" : "private";
    s.seed = a.seed;
    s.nonce_from_seed = a.seed_set;
    planned_ = plan_session(s);
    // One coordinator key for every round: it signs the run's manifest too.
    if (a.seed_set) {
      const Bytes32 k = bb::sha256("gopa/train/coordinator/v1 " + std::to_string(secrets) + (hidden ? " hidden" : " private"));
      std::copy(k.begin(), k.end(), coordinator_seed_.begin());
    } else {
      SystemRng().fill(coordinator_seed_);
    }
  }

  std::vector<double> operator()(std::uint32_t round, const std::vector<std::vector<double>>& vectors) {
    gp::SessionParams p = planned_.params;
    // A fresh nonce per round (from --seed when given: a reproducible run).
    DeterministicRng nonce_rng([&] {
      std::array<std::uint8_t, 32> key{};
      const std::uint64_t s = a_.seed_set ? secrets_ : SystemRng().next_u64();
      for (unsigned i = 0; i < 8; ++i) key[i] = static_cast<std::uint8_t>(s >> (8 * i));
      for (unsigned i = 0; i < 4; ++i) key[8 + i] = static_cast<std::uint8_t>(round >> (8 * i));
      key[12] = hidden_ ? 1 : 0;
      return key;
    }());
    nonce_rng.fill(p.nonce);
    // One graph and one exchange of sealed seeds for the whole run (docs/protocol.md § Chains of
    // sessions): the first round is the chain's base, the others reuse its seeds with their round
    // index. A base whose seed exchange did not complete starts a new chain at the next round.
    if (chain_ && !chain_->ready) chain_.reset();
    const std::uint32_t left = a_.rounds - round + 1;
    if (!chain_ && left >= 2) chain_ = Chain{round, left, {}, false};
    if (chain_) {
      p.chain_rounds = chain_->rounds;
      p.chain_index = round - chain_->first;
      if (p.chain_index > 0) p.chain_base = chain_->base;
    }
    // Certify these exact parameters; more pairwise noise never hurts (docs/privacy.md §1.4).
    gp::Certificate cert;
    for (int attempt = 0;; ++attempt) {
      cert = gp::certify_session(p, a_.honest_fraction, delta_round_);
      if (cert.certified && cert.worst_mu <= mu_round_) break;
      if (attempt == 8) {
        throw std::runtime_error("round " + std::to_string(round) + ": no certified parameters give mu <= " + g4(mu_round_) +
                                 (cert.certified ? " (mu = " + g4(cert.worst_mu) + ")" : ": " + cert.why));
      }
      p.sigma_delta *= 1.25;
    }
    gp::RunConfig cfg;
    cfg.params = p;
    // The simulated parties' randomness of a round; they keep the keys of their chain's first
    // round over the chain (its sessions share one roster).
    auto seed_of = [&](std::uint32_t r) { return secrets_ + 0x9e3779b97f4a7c15ULL * (2ULL * r + (hidden_ ? 1 : 0)); };
    cfg.seed = seed_of(round);
    if (chain_) cfg.key_seed = seed_of(chain_->first);
    cfg.coordinator_sign_seed = coordinator_seed_;
    for (std::size_t u = 0; u < vectors.size(); ++u) {
      const auto x = p.fixed_ball_input(vectors[u]);
      if (!x) throw std::runtime_error("party " + std::to_string(u) + ": clipped gradient outside the L2 ball");
      std::vector<std::uint64_t> fx;
      for (const std::int64_t v : *x) fx.push_back(static_cast<std::uint64_t>(v));  // two's complement
      cfg.inputs.push_back(std::move(fx));
    }
    auto report = gp::run_session(cfg, board_);
    if (!report) throw std::runtime_error("round " + std::to_string(round) + ": " + report.error().message);
    const gp::RunReport& r = report.value();
    sessions_.push_back(r.session_id);
    graphs_.push_back(p.linked() ? p.chain_base : r.session_id);  // the session that drew the round's graph
    if (chain_ && p.chain_index == 0) {
      chain_->base = r.session_id;
      chain_->ready = r.seeds_exchanged;
    }
    if (chain_ && p.chain_index + 1 == chain_->rounds) chain_.reset();
    certificates_.push_back(cert);
    proof_bytes_ = r.proof_bytes_per_party;
    board_bytes_ += r.board_bytes;
    counted_.push_back(r.counted.size());
    if (!r.withheld.empty()) {
      withheld_.push_back(round);
      return std::vector<double>(vectors.front().size(), 0.0);  // no result: the model stays
    }
    return r.estimate;
  }

  // Posts the run's manifest, signed by the sessions' coordinator: the rounds' sessions in order
  // and the digest of the final model (gopa/learn/manifest.hpp).
  [[nodiscard]] bb::Status post_manifest(const gl::TrainingManifest& base, const gl::Model& final_model) const {
    gl::TrainingManifest m = base;
    m.noise = planned_.params.noise;
    m.sessions = sessions_;
    m.model = gl::model_digest(final_model);
    return gl::post_manifest(board_, m, bb::SigningKey::from_seed(coordinator_seed_));
  }

  // A chain's rounds share its base's graph: one graph-failure event (docs/privacy.md §11).
  [[nodiscard]] gp::ComposedCertificate composed() const {
    return gp::compose_sessions(certificates_, a_.delta, sessions_, graphs_);
  }
  [[nodiscard]] const gp::SessionParams& params() const { return planned_.params; }
  [[nodiscard]] double mu_round() const { return mu_round_; }
  [[nodiscard]] const std::vector<Bytes32>& sessions() const { return sessions_; }
  [[nodiscard]] const std::vector<std::uint32_t>& withheld() const { return withheld_; }
  [[nodiscard]] const std::vector<std::size_t>& counted() const { return counted_; }
  [[nodiscard]] std::size_t proof_bytes() const { return proof_bytes_; }
  [[nodiscard]] std::size_t board_bytes() const { return board_bytes_; }

 private:
  const TrainArgs& a_;
  bool hidden_;
  bb::Board& board_;
  std::uint64_t secrets_;
  double delta_round_ = 0, mu_round_ = 0;
  PlannedSession planned_;
  std::vector<Bytes32> sessions_;
  std::vector<Bytes32> graphs_;
  // The chain the rounds run in: its first round, length, base session and whether the base's
  // seed exchange completed.
  struct Chain {
    std::uint32_t first = 1, rounds = 2;
    Bytes32 base{};
    bool ready = false;
  };
  std::optional<Chain> chain_;
  std::vector<gp::Certificate> certificates_;
  std::vector<std::uint32_t> withheld_;
  std::vector<std::size_t> counted_;
  std::size_t proof_bytes_ = 0, board_bytes_ = 0;
  gp::Key32 coordinator_seed_{};
};

struct MethodResult {
  std::string name;
  std::vector<gl::RoundStats> curve;
  std::string privacy;   // the claim, or "none"
  bool simulated = false;
  double seconds = 0;
  json extra = json::object();
};

std::string composed_claim(const gp::ComposedCertificate& c, const TrainArgs& a, std::uint32_t colluders) {
  if (!c.certified) return "no (ε, δ) certified: " + c.why;
  return "(ε=" + up4(c.epsilon) + ", δ=" + g4(c.delta) + ")-DP for each party's data over all " + std::to_string(c.rounds) +
         " rounds (replace-one: one party's clipped gradients, ‖g‖₂ ≤ C = " + g4(a.clip) + ", in every round), μ = " +
         g4(c.mu) + " composed exactly (μ-GDP), δ = " + g4(c.delta_accountant) + " accountant + " + g4(c.failure) +
         " graph/committee failure; assuming at most " + std::to_string(colluders) + " of the " +
         std::to_string(a.parties) + " parties collude (honest fraction " + g4(a.honest_fraction) + ")";
}

int run_train(const TrainArgs& args) {
  TrainArgs a = args;
  for (const std::string& m : a.methods) {
    if (std::find(std::begin(kMethodNames), std::end(kMethodNames), m) == std::end(kMethodNames)) {
      throw UsageError("--methods: '" + m + "' must be one of sgd, central, gopa, hidden, local");
    }
  }
  if (a.rounds == 0 || a.rounds > 10'000) throw UsageError("--rounds: must be in 1..10000");
  if (!(a.learning_rate > 0) || !std::isfinite(a.learning_rate)) throw UsageError("--learning-rate: must be finite and > 0");
  if (!(a.clip > 0) || a.clip >= input_max_limit(gp::InputDomain::l2_ball)) throw UsageError("--clip: must be in (0, 32768)");
  if (!(a.epsilon > 0) || !std::isfinite(a.epsilon)) throw UsageError("--epsilon: must be finite and > 0");
  if (!(a.delta > 0 && a.delta < 1)) throw UsageError("--delta: must be in (0, 1)");
  if (!(a.honest_fraction > 0 && a.honest_fraction <= 1)) throw UsageError("--honest-fraction: must be in (0, 1]");
  if (!(a.test_fraction > 0 && a.test_fraction < 1)) throw UsageError("--test-fraction: must be in (0, 1)");
  if (a.parties < 2) throw UsageError("--parties: at least 2");
  const bool wants_board = std::any_of(a.methods.begin(), a.methods.end(), [](const std::string& m) { return m == "gopa" || m == "hidden"; });
  for (const std::string* f : {&a.csv, &a.plot}) {
    if (!f->empty() && std::filesystem::is_directory(*f)) throw UsageError("'" + *f + "' is a directory");
  }

  // Data.
  std::string dir;
  gl::Dataset data;
  try {
    dir = gl::find_data_dir(a.data_dir);
    data = gl::load_dataset(a.data, dir);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--data: ") + e.what());
  }
  gl::Split split = gl::split(data, a.test_fraction, a.seed);
  gl::standardize(split);
  if (split.train.rows() < a.parties) {
    throw UsageError("--parties: " + std::to_string(a.parties) + " parties for " + std::to_string(split.train.rows()) +
                     " training rows of " + a.data + " (each party needs at least one)");
  }
  const auto parties = gl::deal(split.train.rows(), a.parties, a.seed);
  const gl::Model shape = gl::Model::zeros(data.classes, data.dim());
  const std::size_t dim = shape.dim();
  if (dim > 1024) throw UsageError("--data: " + std::to_string(dim) + " parameters; the L2-ball proof takes at most 1024");

  const bool reproducible = a.seed_set;
  const std::uint64_t secrets = reproducible ? a.seed : SystemRng().next_u64();
  const bool chatty = !a.json_out || a.progress;
  auto say = [&](const std::string& line) {
    if (chatty) std::fprintf(stderr, "gopa train: %s\n", line.c_str());
  };
  say(a.data + ": " + std::to_string(split.train.rows()) + " training and " + std::to_string(split.test.rows()) +
      " test rows, " + std::to_string(data.dim()) + " features, " + std::to_string(data.classes) + " classes (" +
      std::to_string(dim) + " parameters), dealt to " + std::to_string(a.parties) + " parties; from " + dir);

  // The baselines' noise at the same total (ε, δ): a Gaussian mechanism per round with
  // μ_round = mu_for(ε, δ)/√T, sensitivity 2C of one party's vector (replace-one).
  const double mu_round = gp::round_mu(a.epsilon, a.delta, a.rounds);
  const double sigma_central = 2.0 * a.clip / (a.parties * mu_round);  // on the average
  const double sigma_local = 2.0 * a.clip / mu_round;                  // on each party's vector

  std::unique_ptr<bb::LocalBoard> board;
  std::string board_path;
  if (wants_board) {
    board_path = a.board.empty() ? "gopa-train-" + a.data + ".db" : a.board;
    if (std::filesystem::exists(board_path)) {
      throw UsageError("--board: '" + board_path + "' already exists; gopa train starts a new board");
    }
    auto store = bb::open_store(board_path);
    if (!store) {
      std::fprintf(stderr, "gopa train: cannot create board '%s': %s\n", board_path.c_str(), store.error().message.c_str());
      return kExitIo;
    }
    bb::LocalBoardOptions opt;
    opt.origin = "gopa.train/" + a.data;
    opt.state_path = board_path + ".state";
    auto opened = bb::LocalBoard::open(std::move(store).value(), opt);
    if (!opened) {
      std::fprintf(stderr, "gopa train: cannot open board '%s': %s\n", board_path.c_str(), opened.error().message.c_str());
      return kExitIo;
    }
    board = std::move(opened).value();
  }

  gl::TrainOptions o;
  o.rounds = a.rounds;
  o.learning_rate = a.learning_rate;
  o.clip = a.clip;
  std::vector<MethodResult> results;
  const std::uint32_t colluders = gp::malicious_count(a.parties, a.honest_fraction);
  for (const std::string& m : a.methods) {
    MethodResult res;
    res.name = m;
    res.simulated = m == "central" || m == "local";
    std::unique_ptr<GopaRounds> rounds;
    gl::Averager avg;
    if (m == "sgd") {
      avg = gl::exact_average();
      res.privacy = "none";
    } else if (m == "central") {
      avg = gl::central_average(sigma_central, a.seed + 1);
      res.privacy = "(ε=" + g4(a.epsilon) + ", δ=" + g4(a.delta) + ")-DP by a trusted curator: N(0, " + g4(sigma_central) +
                    "²) on the average per round, μ = " + g4(mu_round * std::sqrt(a.rounds)) + " over " +
                    std::to_string(a.rounds) + " rounds (simulated)";
    } else if (m == "local") {
      avg = gl::local_average(sigma_local, a.seed + 2);
      res.privacy = "(ε=" + g4(a.epsilon) + ", δ=" + g4(a.delta) + ")-DP locally: every party adds N(0, " + g4(sigma_local) +
                    "²) per coordinate per round (simulated)";
    } else {
      say(m + ": planning the sessions (n = " + std::to_string(a.parties) + ", d = " + std::to_string(dim) + ", " +
          std::to_string(a.rounds) + " rounds)");
      try {
        rounds = std::make_unique<GopaRounds>(a, m == "hidden", dim, *board, secrets);
      } catch (const UsageError& e) {
        throw UsageError(m + ": " + e.what());
      }
      GopaRounds* r = rounds.get();
      avg = [r](std::uint32_t t, const std::vector<std::vector<double>>& v) { return (*r)(t, v); };
    }
    say(describe(m) + ": " + std::to_string(a.rounds) + " rounds");
    const auto start = std::chrono::steady_clock::now();
    gl::Model final_model;
    try {
      res.curve = gl::train(split, parties, o, avg, [&](const gl::RoundStats& s) {
        if (!chatty) return;
        std::string line = m + " round " + std::to_string(s.round) + "/" + std::to_string(a.rounds) + ": test accuracy " +
                           g4(s.test_accuracy) + ", test loss " + g4(s.test_loss);
        if (s.round > 0) line += ", clipped " + g4(100 * s.clipped_fraction) + "%";
        if (rounds && s.round > 0) {
          line += ", session " + to_hex(rounds->sessions().back()).substr(0, 8) + " (" + g4(s.seconds) + " s, " +
                  std::to_string(rounds->counted().back()) + " counted)";
        }
        say(line);
      }, &final_model);
    } catch (const std::runtime_error& e) {
      std::fprintf(stderr, "gopa train: %s: %s\n", m.c_str(), e.what());
      return kExitIo;
    }
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rounds) {
      gl::TrainingManifest manifest;
      manifest.data = a.data;
      manifest.test_fraction = a.test_fraction;
      manifest.split_seed = a.seed;
      manifest.parties = a.parties;
      manifest.classes = data.classes;
      manifest.features = static_cast<std::uint32_t>(data.dim());
      manifest.learning_rate = a.learning_rate;
      manifest.clip = a.clip;
      manifest.data_digest = gl::dataset_digest(data);
      if (auto st = rounds->post_manifest(manifest, final_model); !st) {
        std::fprintf(stderr, "gopa train: %s: cannot post the training manifest: %s\n", m.c_str(), st.error().message.c_str());
        return kExitIo;
      }
      const gp::ComposedCertificate c = rounds->composed();
      res.privacy = composed_claim(c, a, colluders);
      const gp::SessionParams& p = rounds->params();
      res.extra["k"] = p.neighbors;
      res.extra["sigma_eta"] = p.sigma_eta;
      res.extra["sigma_delta"] = p.sigma_delta;
      if (p.noise == gp::NoiseMode::hidden) res.extra["committee"] = p.committee;
      res.extra["mu_round"] = rounds->mu_round();
      res.extra["privacy_claim"] = {{"certified", c.certified}, {"epsilon", c.epsilon}, {"delta", c.delta},
                                    {"mu", c.mu}, {"rounds", c.rounds}, {"failure", c.failure},
                                    {"delta_accountant", c.delta_accountant}, {"neighbouring", gp::kNeighbouring},
                                    {"malicious", colluders}};
      json ids = json::array();
      for (const auto& sid : rounds->sessions()) ids.push_back(to_hex(sid));
      res.extra["sessions"] = ids;
      res.extra["withheld_rounds"] = rounds->withheld();
      res.extra["proof_bytes_per_party"] = rounds->proof_bytes();
      res.extra["board_bytes"] = rounds->board_bytes();
      if (!c.certified || c.epsilon > a.epsilon * (1 + 1e-9)) {
        std::fprintf(stderr, "gopa train: %s: the composed certificate does not meet ε = %s: %s\n", m.c_str(),
                     g4(a.epsilon).c_str(), res.privacy.c_str());
        return kExitMisbehaved;
      }
    }
    results.push_back(std::move(res));
  }

  // Audit every session on the board from scratch.
  int exit_code = kExitOk;
  json audit_j = json::array();
  std::size_t audited = 0, passed = 0;
  TrainingRunsReport training;
  if (board) {
    auto ids = gp::list_sessions(*board);
    if (!ids) {
      std::fprintf(stderr, "gopa train: cannot list the sessions on %s: %s\n", board_path.c_str(), ids.error().message.c_str());
      return kExitIo;
    }
    say("auditing " + std::to_string(ids.value().size()) + " sessions on " + board_path);
    std::vector<gl::SessionOutcome> outcomes;
    for (const Bytes32& sid : ids.value()) {
      const gp::AuditReport rep = gp::audit_session(*board, sid);
      ++audited;
      const bool ok = rep.all_passed();
      outcomes.push_back({sid, ok, rep.estimate, rep.params});
      if (ok) ++passed;
      else exit_code = kExitMisbehaved;
      json fails = json::array();
      for (const auto& c : rep.checks) {
        if (c.status == bb::CheckStatus::fail) fails.push_back(c.name + ": " + c.detail);
      }
      audit_j.push_back({{"session_id", to_hex(sid)}, {"passed", ok}, {"failed", fails}});
    }
    // The training runs: every round's session listed in order, and the model recomputed.
    training = audit_training_runs(*board, outcomes, dir);
    if (!training.error.empty()) {
      std::fprintf(stderr, "gopa train: cannot read the training runs on %s: %s\n", board_path.c_str(), training.error.c_str());
      return kExitIo;
    }
    if (!training.passed) exit_code = kExitMisbehaved;
    for (const std::string& line : training.lines) say("audit: " + line);
  }

  // CSV and plot.
  std::ostringstream csv;
  csv << "method,round,test_accuracy,test_loss,train_loss,clipped_fraction,seconds,simulated\n";
  csv.precision(8);
  for (const MethodResult& r : results) {
    for (const gl::RoundStats& s : r.curve) {
      csv << r.name << ',' << s.round << ',' << s.test_accuracy << ',' << s.test_loss << ',' << s.train_loss << ','
          << s.clipped_fraction << ',' << s.seconds << ',' << (r.simulated ? 1 : 0) << '\n';
    }
  }
  try {
    if (!a.csv.empty()) write_file(a.csv, csv.str());
    if (!a.plot.empty()) {
      const PlotFiles files = plot_files(a.plot);
      std::ostringstream d;
      d.precision(8);
      d << "# round";
      for (const MethodResult& r : results) d << ' ' << r.name;
      d << '\n';
      for (std::uint32_t t = 0; t <= a.rounds; ++t) {
        d << t;
        for (const MethodResult& r : results) d << ' ' << r.curve[t].test_accuracy;
        d << '\n';
      }
      write_file(files.data, d.str());
      std::ostringstream g;
      g << "set terminal pngcairo size 900,600 enhanced font 'Sans,11'\n"
        << "set output " << gnuplot_quote(files.tmp_png) << "\n"
        << "set grid\nset key bottom right noenhanced\nset yrange [0:1]\nset xrange [0:" << a.rounds << "]\n"
        << "set xlabel 'round'\nset ylabel 'test accuracy'\n"
        << (a.rounds <= 20 ? "set xtics 1\n" : "")
        << "set title " << gnuplot_quote(a.data + ": federated logistic regression, n = " + std::to_string(a.parties) +
                                         " parties, " + std::to_string(a.rounds) + " rounds, C = " + g4(a.clip))
        << " . \"\\n\" . "
        << gnuplot_quote("(eps, delta) = (" + g4(a.epsilon) + ", " + g4(a.delta) + ") over all rounds, honest fraction " +
                         g4(a.honest_fraction))
        << " noenhanced\nplot ";
      for (std::size_t i = 0; i < results.size(); ++i) {
        g << (i ? ", \\\n     " : "") << (i ? "''" : gnuplot_quote(files.data)) << " using 1:" << (i + 2)
          << " with linespoints lw 2 title " << gnuplot_quote(describe(results[i].name));
      }
      g << "\nset output\n";
      render_plot(files, a.plot, g.str());
    }
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "gopa train: %s\n", e.what());
    return kExitIo;
  }

  if (a.json_out) {
    json j = json_report("train");
    j["data"] = a.data;
    j["parties"] = a.parties;
    j["rounds"] = a.rounds;
    j["dim"] = dim;
    j["clip"] = a.clip;
    j["learning_rate"] = a.learning_rate;
    j["epsilon"] = a.epsilon;
    j["delta"] = a.delta;
    j["honest_fraction"] = a.honest_fraction;
    j["reproducible_seed"] = reproducible ? json(secrets) : json(nullptr);
    if (board) j["board"] = board_path;
    j["methods"] = json::array();
    for (const MethodResult& r : results) {
      json m = r.extra;
      m["name"] = r.name;
      m["simulated"] = r.simulated;
      m["privacy"] = r.privacy;
      m["seconds"] = r.seconds;
      json curve = json::array();
      for (const gl::RoundStats& s : r.curve) {
        curve.push_back({{"round", s.round}, {"test_accuracy", s.test_accuracy}, {"test_loss", s.test_loss},
                         {"train_loss", s.train_loss}, {"clipped_fraction", s.clipped_fraction}, {"seconds", s.seconds}});
      }
      m["curve"] = curve;
      j["methods"].push_back(m);
    }
    j["audit"] = audit_j;
    j["training_runs"] = training.runs;
    std::cout << j.dump(2) << "\n";
    return exit_code;
  }
  std::printf("%-44s %9s %9s %9s\n", "method", "accuracy", "loss", "seconds");
  for (const MethodResult& r : results) {
    std::printf("%-44s %9.4f %9.4f %9.1f\n", describe(r.name).c_str(), r.curve.back().test_accuracy,
                r.curve.back().test_loss, r.seconds);
  }
  for (const MethodResult& r : results) {
    if (r.name != "sgd") std::printf("%s: %s\n", r.name.c_str(), r.privacy.c_str());
  }
  if (board) {
    std::printf("audit: %zu/%zu sessions on %s PASS%s\n", passed, audited, board_path.c_str(),
                passed == audited ? "" : " (FAIL: see gopa audit --board ... --session ID)");
    std::size_t runs_ok = 0;
    for (const auto& r : training.runs) runs_ok += r["passed"].get<bool>() ? 1U : 0U;
    std::printf("audit: %zu/%zu training runs PASS (sessions in order, model trajectory recomputed; gopa audit --all --board %s)\n",
                runs_ok, training.runs.size(), board_path.c_str());
  }
  if (!a.csv.empty()) std::printf("wrote %s\n", a.csv.c_str());
  if (!a.plot.empty()) std::printf("wrote %s\n", a.plot.c_str());
  return exit_code;
}

}  // namespace

void add_train_command(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<TrainArgs>();
  CLI::App* t = app.add_subcommand(
      "train",
      "Federated SGD for logistic regression in which every round's average is a verifiable GOPA session.\n"
      "Each party holds a share of a public data set; every round it computes the mean gradient of its rows,\n"
      "clips it to ‖g‖₂ ≤ C, and the parties' average updates the shared model. The GOPA methods run one\n"
      "real session per round on one SQLite board (audited at the end) with privacy composed exactly over\n"
      "the rounds; the trusted curator and local DP are simulated at the same total (ε, δ).\n"
      "Exit codes: 0 trained and every session audited clean, 1 an audit failed or the privacy claim\n"
      "was not certified, 3 bad options or data, 4 I/O error.");
  t->add_option("--data", a->data, "data set: housing (UCI Housing, price above the median), breast-cancer, digits (10 classes)")
      ->capture_default_str();
  t->add_option("--data-dir", a->data_dir,
                "directory with sklearn's data files (default: $GOPA_DATA_DIR, python3-sklearn's, or ~/.cache/gopa/datasets from scripts/fetch-datasets)");
  t->add_option("--parties,-n", a->parties, "parties; the training rows are dealt out among them")->capture_default_str();
  t->add_option("--rounds,-T", a->rounds, "training rounds (one averaging session each)")->capture_default_str();
  t->add_option("--learning-rate", a->learning_rate, "step size of each round")->capture_default_str();
  t->add_option("--clip,-C", a->clip, "L2 clipping radius C of each party's gradient (the sessions' L2 ball)")->capture_default_str();
  t->add_option("--epsilon", a->epsilon, "total ε over all rounds")->capture_default_str();
  t->add_option("--delta", a->delta, "total δ over all rounds")->capture_default_str();
  t->add_option("--honest-fraction", a->honest_fraction, "fraction of parties assumed honest (the rest may collude)")
      ->capture_default_str();
  t->add_option("--test-fraction", a->test_fraction, "rows held out for testing, per class")->capture_default_str();
  t->add_option("--methods", a->methods, "comma-separated: sgd, central, gopa, hidden, local")->delimiter(',')->capture_default_str();
  t->add_option("--board", a->board, "SQLite board file to create for the GOPA sessions (default gopa-train-<data>.db)");
  t->add_option("--csv", a->csv, "write every method's per-round accuracy and loss here");
  t->add_option("--plot", a->plot, "write a PNG of test accuracy per round here (needs gnuplot)");
  t->add_option_function<std::uint64_t>(
      "--seed",
      [a](std::uint64_t s) {
        a->seed = s;
        a->seed_set = true;
      },
      "reproducible run: the data split, the baselines' noise and every party's secrets derive from it "
      "(not private for anyone who knows it; default: split and baselines from 1, secrets from the OS)");
  t->add_flag("--json", a->json_out, "machine-readable output (docs/cli-json.md); stderr stays quiet");
  t->add_flag("--progress", a->progress, "progress lines on stderr with --json too");
  t->callback([&ctx, a] { ctx.run = [a] { return guarded("train", [&] { return run_train(*a); }); }; });
}

}  // namespace gopa::cli
