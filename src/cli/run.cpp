// `gopa run` (GOPA end to end in one process, on an embedded SQLite board) and `gopa audit`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "report.hpp"
#include "training_audit.hpp"
#include "session_args.hpp"
#include "gopa/bulletin/board.hpp"
#include "gopa/bulletin/http.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/protocol/run.hpp"

namespace gopa::cli {

namespace {

namespace bb = gopa::bulletin;
namespace gp = gopa::protocol;
using json = nlohmann::json;

struct RunArgs : SessionArgs {
  std::string inputs;
  std::string board;
  unsigned threads = 0;
  bool json_out = false;
  bool progress = false;  // progress lines on stderr even with --json
  std::vector<std::string> cheats;
  std::uint32_t dropouts = 0;
  bool seed_set = false;  // --seed given: a reproducible simulation
};


bool parse_number(const std::string& cell, double& v) {
  std::size_t used = 0;
  try {
    v = std::stod(cell, &used);
  } catch (const std::exception&) {
    return false;
  }
  while (used < cell.size() && std::isspace(static_cast<unsigned char>(cell[used]))) ++used;
  return used != 0 && used == cell.size() && std::isfinite(v);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) cells.push_back(cell);
  return cells;
}

struct CsvInputs {
  std::vector<std::vector<double>> rows;
  std::vector<std::string> header;  // the column names, if the first row has no number in it
};

// Parses FILE.csv: one row per party, d comma-separated real numbers, each in [0, max] (box) or
// signed with the row's L2 norm at most max (ball); '#' comments and blank lines skipped; a first
// row in which no cell is a number is a header.
CsvInputs read_inputs(const std::string& path, std::uint32_t dim, double max, bool ball) {
  std::ifstream in(path);
  if (!in) throw UsageError("--inputs: cannot open '" + path + "'");
  CsvInputs out;
  std::string line;
  std::size_t lineno = 0;
  bool first = true;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split_csv(line);
    if (first) {
      first = false;
      double v = 0;
      if (std::none_of(cells.begin(), cells.end(), [&v](const std::string& c) { return parse_number(c, v); })) {
        if (cells.size() != dim) {
          throw UsageError(path + ":" + std::to_string(lineno) + ": header row with " + std::to_string(cells.size()) +
                           " columns, expected " + std::to_string(dim) + " (--dim)");
        }
        out.header = cells;
        continue;
      }
    }
    std::vector<double> row;
    for (const std::string& cell : cells) {
      double v = 0;
      if (!parse_number(cell, v)) {
        throw UsageError(path + ":" + std::to_string(lineno) + ": '" + cell + "' is not a number");
      }
      if (!ball && (v < 0 || v > max)) {
        char m[64];
        std::snprintf(m, sizeof m, "%g", max);
        throw UsageError(path + ":" + std::to_string(lineno) + ": " + cell + " is outside the input domain [0, " + m +
                         "] (see --input-max)");
      }
      row.push_back(v);
    }
    if (row.size() != dim) {
      throw UsageError(path + ":" + std::to_string(lineno) + ": expected " + std::to_string(dim) +
                       " values (--dim), found " + std::to_string(row.size()));
    }
    if (ball) {
      double n2 = 0;
      for (const double v : row) n2 += v * v;
      if (std::sqrt(n2) > max) {
        char m[96];
        std::snprintf(m, sizeof m, "‖x‖₂ = %.6g exceeds the L2 ball's radius C = %g", std::sqrt(n2), max);
        throw UsageError(path + ":" + std::to_string(lineno) + " (party " + std::to_string(out.rows.size()) + "): " + m +
                         " (see --input-max; clip the row first)");
      }
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::string hex8(const Bytes32& b) { return to_hex(std::span(b).first(4)); }

int run_run(const RunArgs& args) {
  gp::set_verify_threads(args.threads);
  RunArgs a = args;
  check_session_options(a);
  // Every secret of the simulated parties (keys, shares, seeds, the committee's randomness) and
  // the simulated inputs derive from one seed: from the operating system unless --seed fixes it,
  // which makes the run reproducible and, for anyone who knows the seed, not private. The
  // planner's sampled graphs keep their public seed (a.seed, default 1).
  const bool reproducible = a.seed_set;
  const std::uint64_t secrets = reproducible ? a.seed : SystemRng().next_u64();
  a.nonce_from_seed = reproducible;
  // Inputs (read and checked before anything is planned or written); a CSV fixes --parties.
  CsvInputs csv;
  const gp::InputDomain domain = parse_input_domain(a.input_domain);
  const bool ball = domain == gp::InputDomain::l2_ball;
  const double max_limit = input_max_limit(domain);
  if (a.input_max <= 0 || a.input_max >= max_limit) {
    throw UsageError("--input-max: must be in (0, " + std::to_string(static_cast<int>(max_limit)) + ")");
  }
  if (!a.inputs.empty()) {
    csv = read_inputs(a.inputs, a.dim, a.input_max, ball);
    const auto rows = static_cast<std::uint32_t>(std::min<std::size_t>(csv.rows.size(), 1u << 30));
    if (a.parties_set && rows != a.parties) {
      throw UsageError(a.inputs + ": " + std::to_string(csv.rows.size()) + " rows for " + std::to_string(a.parties) +
                       " parties (--parties)");
    }
    if (rows < 2 || rows > gp::SessionParams::kMaxParties) {
      throw UsageError(a.inputs + ": " + std::to_string(csv.rows.size()) + " rows: one per party, 2.." +
                       std::to_string(gp::SessionParams::kMaxParties));
    }
    a.parties = rows;
    if (!csv.header.empty() && !a.json_out) {  // --json: in inputs_header
      std::string names;
      for (const auto& h : csv.header) names += (names.empty() ? "" : ",") + h;
      std::fprintf(stderr, "gopa run: %s: header row (%s) read as column names\n", a.inputs.c_str(), names.c_str());
    }
  } else if (!a.parties_set) {
    throw UsageError("--parties: required without --inputs (a CSV file fixes it: one row per party)");
  }
  if (!a.board.empty() && std::filesystem::exists(a.board)) {
    throw UsageError("--board: '" + a.board + "' already exists; gopa run starts a new board");
  }
  {
    std::uint64_t total = a.dropouts;
    for (const auto& c : a.cheats) {
      const auto colon = c.find(':');
      if (!gp::cheat_from_name(c.substr(0, colon))) {
        throw UsageError("--cheat '" + c + "': KIND must be one of range, forge, seed, cancel, noise, output, signature, replay, missing, committee, withhold");
      }
      total += 1;
    }
    if (total >= a.parties) throw UsageError("--cheat/--dropouts: at least one party must stay honest");
  }
  std::vector<std::vector<double>> real;
  const bool simulated = a.inputs.empty();
  if (simulated) {
    DeterministicRng rng(secrets);
    auto unit = [&rng] { return static_cast<double>(rng.next_u64() >> 11) * 0x1p-53; };  // [0, 1)
    for (std::uint32_t u = 0; u < a.parties; ++u) {
      std::vector<double> row;
      if (ball) {
        // A direction in the cube [−1, 1]^d scaled to a norm uniform in [0, C).
        double n2 = 0;
        for (std::uint32_t j = 0; j < a.dim; ++j) {
          row.push_back(2.0 * unit() - 1.0);
          n2 += row.back() * row.back();
        }
        const double scale = n2 > 0 ? a.input_max * unit() / std::sqrt(n2) : 0.0;
        for (double& x : row) x *= scale;
      } else {
        for (std::uint32_t j = 0; j < a.dim; ++j) row.push_back(a.input_max * unit());
      }
      real.push_back(row);
    }
  } else {
    real = std::move(csv.rows);
  }
  const PlannedSession planned = plan_session(a);
  const gp::SessionParams& p = planned.params;
  const std::string& privacy = planned.privacy;

  gp::RunConfig cfg;
  cfg.params = p;
  cfg.seed = secrets;
  cfg.dropouts = a.dropouts;
  std::uint64_t deviating = a.dropouts;
  for (const auto& c : a.cheats) {
    const auto colon = c.find(':');
    const auto kind = gp::cheat_from_name(c.substr(0, colon));
    std::uint32_t count = 1;
    if (colon != std::string::npos) {
      const std::string n = c.substr(colon + 1);
      if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) {
        throw UsageError("--cheat '" + c + "': COUNT must be a positive integer");
      }
      count = static_cast<std::uint32_t>(std::stoul(n));
    }
    if (!kind || count == 0) {
      throw UsageError("--cheat '" + c + "': expected KIND[:COUNT] with KIND one of range, forge, seed, cancel, noise, output, signature, replay, missing, committee, withhold");
    }
    if (*kind == gp::CheatKind::committee && p.noise != gp::NoiseMode::hidden) {
      throw UsageError("--cheat '" + c + "': committee cheats need --noise hidden");
    }
    cfg.cheats[*kind] += count;
    deviating += count;
  }
  if (deviating >= a.parties) throw UsageError("--cheat/--dropouts: at least one party must stay honest");
  std::vector<double> mean(a.dim, 0.0);
  for (const auto& row : real) {
    std::vector<std::uint64_t> fx;
    if (ball) {
      const auto x = p.fixed_ball_input(row);
      if (!x) throw UsageError("input of party " + std::to_string(cfg.inputs.size()) + " is outside the L2 ball of radius --input-max");
      for (std::uint32_t j = 0; j < a.dim; ++j) {
        fx.push_back(static_cast<std::uint64_t>((*x)[j]));  // two's complement (RunConfig::inputs)
        mean[j] += row[j] / a.parties;
      }
      cfg.inputs.push_back(std::move(fx));
      continue;
    }
    for (std::uint32_t j = 0; j < a.dim; ++j) {
      const auto x = p.fixed_input(row[j]);
      if (!x) throw UsageError("input of party " + std::to_string(cfg.inputs.size()) + ", coordinate " + std::to_string(j) +
                               ": " + std::to_string(row[j]) + " is outside the domain [0, --input-max]");
      fx.push_back(*x);
      mean[j] += row[j] / a.parties;
    }
    cfg.inputs.push_back(std::move(fx));
  }

  // Board: a fresh SQLite file.
  const std::string path = a.board.empty() ? "gopa-run-" + hex8(p.session_id()) + ".db" : a.board;
  if (std::filesystem::exists(path)) throw UsageError("--board: '" + path + "' already exists; gopa run starts a new board");
  auto store = bb::open_store(path);
  if (!store) {
    std::fprintf(stderr, "gopa run: cannot create board '%s': %s\n", path.c_str(), store.error().message.c_str());
    return kExitIo;
  }
  bb::LocalBoardOptions opt;
  opt.origin = "gopa.run/" + hex8(p.session_id());
  opt.state_path = path + ".state";
  auto board = bb::LocalBoard::open(std::move(store).value(), opt);
  if (!board) {
    std::fprintf(stderr, "gopa run: cannot open board '%s': %s\n", path.c_str(), board.error().message.c_str());
    return kExitIo;
  }
  const bool tty = isatty(2) != 0;
  // On a terminal one line per phase, rewritten in place; otherwise (a log file) a line at every
  // tenth of a phase with at least 100 steps, and at its end. None with --json unless --progress.
  if (!a.json_out || a.progress) cfg.progress = [tty](const std::string& phase, std::size_t done, std::size_t total) {
    if (tty) {
      if (done == total || done % 16 == 0) std::fprintf(stderr, "\r%-32s %zu/%zu", phase.c_str(), done, total);
      if (done == total) std::fprintf(stderr, "\n");
      return;
    }
    const bool tenth = done % std::max<std::size_t>(1, total / 10) == 0;  // every tenth, or each of fewer than 10
    if (done == total || tenth) std::fprintf(stderr, "gopa run: %s %zu/%zu\n", phase.c_str(), done, total);
  };
  auto report = gp::run_session(cfg, *board.value());
  if (!report) {
    std::fprintf(stderr, "gopa run: %s\n", report.error().message.c_str());
    return kExitIo;
  }
  const auto t_audit = std::chrono::steady_clock::now();
  const gp::AuditReport audit = gp::audit_session(*board.value(), report.value().session_id);
  const double audit_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_audit).count();
  const gp::RunReport& r = report.value();

  if (a.json_out) {
    json j = json_report("run");
    j["session_id"] = to_hex(r.session_id);
    j["board"] = path;
    put_params(j, p);
    j["privacy"] = privacy;
    j["privacy_claim"] = certificate_json(planned.certificate);
    j["reproducible_seed"] = reproducible ? json(secrets) : json(nullptr);
    if (p.noise == gp::NoiseMode::hidden) {
      j["committee"] = r.committee;
      j["committee_attempts"] = r.committee_attempts;
      j["committee_bytes"] = r.committee_bytes;
    }
    if (!r.withheld.empty()) j["withheld"] = r.withheld;
    j["randomness_restarts"] = r.randomness_restarts;
    j["estimate"] = r.estimate;
    j["true_mean"] = mean;  // the mean of the inputs the run was given (simulated or from the CSV)
    if (!csv.header.empty()) j["inputs_header"] = csv.header;
    j["counted"] = r.counted.size();
    put_blamed(j, "excluded", r.excluded);
    put_blamed(j, "named", r.named);  // misbehaved without being excluded for it
    // What --cheat and --dropouts made parties do (the simulation's ground truth, to compare with
    // `excluded`): party → KIND or "dropout".
    j["simulated"] = parties_json(r.deviating);
    j["proof_bytes_per_party"] = r.proof_bytes_per_party;
    j["board_entries"] = r.board_entries;
    j["board_bytes"] = r.board_bytes;
    for (const auto& ph : r.phases) j["seconds"][ph.name] = ph.seconds;
    j["seconds"]["audit"] = audit_s;
    j["checks"] = checks_json(audit.checks);  // the audit of the board after the run
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("session %s  board %s (%zu entries, %.1f KiB)\n", to_hex(r.session_id).substr(0, 16).c_str(),
                path.c_str(), r.board_entries, static_cast<double>(r.board_bytes) / 1024.0);
    if (p.noise == gp::NoiseMode::hidden) {
      std::string members;
      for (auto u : r.committee) members += (members.empty() ? "" : ",") + std::to_string(u);
      std::printf("parties %u  dim %u  k %u  σ_Δ %.4g  noise: hidden, one Box–Muller sample σ %.4g per coordinate, %u "
                  "fractional bits, committee {%s}, %zu attempt(s), %.1f KiB on the board\n",
                  a.parties, a.dim, p.neighbors, p.sigma_delta, p.sigma_eta, p.sampler_precision, members.c_str(),
                  r.committee_attempts, static_cast<double>(r.committee_bytes) / 1024.0);
    } else {
      std::printf("parties %u  dim %u  k %u  σ_η %.4g  σ_Δ %.4g  noise: %s, %u fractional bits, proven\n", a.parties, a.dim,
                  p.neighbors, p.sigma_eta, p.sigma_delta, gp::sampler_name(p.sampler), p.sampler_precision);
    }
    if (p.input_domain == gp::InputDomain::l2_ball) {
      std::printf("input domain: the L2 ball ‖x‖₂ <= %.10g (C = %llu / 2^%u, proven for every party)\n", p.input_max_real(),
                  static_cast<unsigned long long>(p.input_max), p.frac_bits);
    } else {
      std::printf("input domain: [0, %.10g] per coordinate (M = %llu / 2^%u, proven for every party)\n", p.input_max_real(),
                  static_cast<unsigned long long>(p.input_max), p.frac_bits);
    }
    std::printf("privacy: %s\n", privacy.c_str());
    if (reproducible) {
      std::printf("reproducible simulation: every secret derives from --seed %llu; not private\n",
                  static_cast<unsigned long long>(secrets));
    }
    if (!r.withheld.empty()) std::printf("result withheld: %s\n", r.withheld.c_str());
    for (std::uint32_t j = 0; j < a.dim && j < 8 && j < r.estimate.size(); ++j) {
      std::printf("coordinate %u: estimate %.6f  true mean %.6f  error %+.2e\n", j, r.estimate[j], mean[j],
                  r.estimate[j] - mean[j]);
    }
    if (a.dim > 8) std::printf("… (first 8 of %u shown; --json for all)\n", a.dim);
    std::printf("counted %zu/%u parties", r.counted.size(), a.parties);
    if (r.excluded.empty()) std::printf(", nobody excluded\n");
    else std::printf(", excluded:\n");
    for (const auto& [u, why] : r.excluded) {
      auto d = r.deviating.find(u);
      std::printf("  party %u: %s%s%s\n", u, why.text().c_str(), d == r.deviating.end() ? "" : "   [simulated: ",
                  d == r.deviating.end() ? "" : (d->second + "]").c_str());
    }
    std::printf("proof bytes per party: %zu (%s)\n", r.proof_bytes_per_party,
                p.noise == gp::NoiseMode::hidden ? "input domain + noise commitment + output; the committee's log is above"
                                                 : "input domain + noise + output");
    std::printf("time:");
    for (const auto& ph : r.phases) std::printf(" %s %.2fs;", ph.name.c_str(), ph.seconds);
    std::printf(" audit %.2fs\n", audit_s);
    std::printf("audit:\n");
    for (const auto& c : audit.checks) {
      std::printf("  %-4s %s%s%s\n", gp::check_status_name(c.status), c.name.c_str(), c.detail.empty() ? "" : " — ",
                  c.detail.c_str());
    }
  }
  if (!audit.log_ok) return kExitLogMisbehaved;
  return audit.all_passed() && !anyone_misbehaved(audit.misbehaving) && !anyone_misbehaved(r.excluded) ? kExitOk
                                                                                                     : kExitMisbehaved;
}

struct AuditArgs {
  std::string board, board_key, session;
  std::string data_dir;           // where a training run's data set is (its test accuracy)
  unsigned threads = 0;
  bool json_out = false;
  bool all = false;               // every session, with the privacy of all of them composed
  double honest_fraction = 0.5;   // for the claims the audit re-derives
  double delta = 1e-5;
};

// gopa audit --all: every session on the board, and what their posted parameters certify together
// (the rounds of a training run: docs/privacy.md §11), each at δ/S of the total δ.
int audit_all(bb::Board& board, const AuditArgs& a) {
  auto listing = gp::list_sessions(board);
  if (!listing) {
    std::fprintf(stderr, "gopa audit: cannot read '%s': %s\n", a.board.c_str(), listing.error().message.c_str());
    return kExitIo;
  }
  const std::vector<Bytes32>& ids = listing.value();
  if (ids.empty()) throw UsageError("--all: no session on the board");
  int code = kExitOk;
  bool log_ok = true;
  std::vector<gp::Certificate> certs;
  std::vector<Bytes32> cert_sessions, cert_graphs;  // each certificate's session, and the session that drew its graph
  json sessions = json::array();
  const double delta_each = a.delta / static_cast<double>(ids.size());
  std::vector<learn::SessionOutcome> outcomes;
  for (const Bytes32& id : ids) {
    const gp::AuditReport audit = gp::audit_session(board, id);
    log_ok = log_ok && audit.log_ok;
    const bool ok = audit.all_passed() && !anyone_misbehaved(audit.misbehaving);
    if (!ok) code = kExitMisbehaved;
    outcomes.push_back({id, ok, audit.estimate, audit.params});
    std::optional<gp::Certificate> cert;
    if (audit.params) {
      try {
        cert = gp::certify_session(*audit.params, a.honest_fraction, delta_each);
      } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
      }
      certs.push_back(*cert);
      cert_sessions.push_back(id);
      cert_graphs.push_back(audit.params->linked() ? audit.params->chain_base : id);
    }
    json failed = json::array();
    std::string first_fail;
    for (const auto& c : audit.checks) {
      if (c.status != bb::CheckStatus::fail) continue;
      failed.push_back(c.name + ": " + c.detail);
      if (first_fail.empty()) first_fail = c.name + (c.detail.empty() ? "" : " — " + c.detail);
    }
    if (a.json_out) {
      json s = {{"session_id", to_hex(id)}, {"passed", ok}, {"failed", failed}, {"counted", audit.counted.size()},
                {"excluded", parties_json(audit.excluded)}, {"named", parties_json(audit.named)},
                {"excluded_offences", offences_json(audit.excluded)}, {"named_offences", offences_json(audit.named)},
                {"estimate", audit.estimate}};
      if (cert) s["privacy_claim"] = certificate_json(*cert);
      sessions.push_back(s);
    } else {
      std::printf("%-4s session %s  counted %zu%s%s\n", ok ? "PASS" : "FAIL", to_hex(id).c_str(), audit.counted.size(),
                  first_fail.empty() ? "" : "  ", first_fail.c_str());
    }
  }
  gp::ComposedCertificate composed;
  try {
    composed = gp::compose_sessions(certs, a.delta, cert_sessions, cert_graphs);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const std::uint32_t colluders = certs.empty() ? 0 : certs.front().malicious;
  const std::string claim =
      composed.certified
          ? "(ε=" + up4(composed.epsilon) + ", δ=" + g3(a.delta) + ")-DP for each party's data over all " +
                std::to_string(ids.size()) + " sessions (" + gp::kNeighbouring +
                ", the same roster position in every session), μ = " + up4(composed.mu) +
                " composed exactly (μ-GDP), each session certified at δ/" + std::to_string(ids.size()) +
                "; assuming at most " + std::to_string(colluders) + " colluders (honest fraction " + g3(a.honest_fraction) +
                ") fixed before the first session"
          : "no (ε, δ) certified over the sessions: " + composed.why;
  // The training runs (gopa train's manifests): their sessions in order, the model recomputed.
  const TrainingRunsReport training = audit_training_runs(board, outcomes, a.data_dir);
  if (!training.error.empty()) {
    std::fprintf(stderr, "gopa audit: cannot read the training runs of '%s': %s\n", a.board.c_str(), training.error.c_str());
    return kExitIo;
  }
  if (!training.passed) code = kExitMisbehaved;
  if (a.json_out) {
    json j = json_report("audit");
    j["board"] = a.board;
    j["all"] = true;
    j["sessions"] = sessions;
    j["privacy"] = claim;
    j["composed_claim"] = {{"certified", composed.certified}, {"epsilon", composed.epsilon}, {"delta", composed.delta},
                           {"mu", composed.mu}, {"rounds", composed.rounds}, {"failure", composed.failure},
                           {"delta_accountant", composed.delta_accountant}, {"neighbouring", gp::kNeighbouring},
                           {"malicious", colluders}};
    j["training_runs"] = training.runs;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("privacy of all %zu sessions together (from the posted parameters): %s\n", ids.size(), claim.c_str());
    for (const std::string& line : training.lines) std::printf("%s\n", line.c_str());
  }
  if (!log_ok) return kExitLogMisbehaved;
  return code;
}

int run_audit(const AuditArgs& a) {
  gp::set_verify_threads(a.threads);
  const std::string& path = a.board;
  const std::string& board_key = a.board_key;
  const std::string& session = a.session;
  const bool json_out = a.json_out;
  if (a.all && !session.empty()) throw UsageError("--all and --session: choose one");
  if (!(a.honest_fraction > 0.0 && a.honest_fraction <= 1.0)) throw UsageError("--honest-fraction: must be in (0, 1]");
  if (!(a.delta > 0.0 && a.delta < 1.0)) throw UsageError("--delta: must be in (0, 1)");
  check_board_path(path);
  const std::string vkey = resolve_vkey(board_key, "--board-key");
  std::unique_ptr<bb::Board> board;
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) {
    if (vkey.empty()) throw UsageError("--board-key: required with a board URL (the vkey printed by `gopa board serve`)");
    bb::HttpBoardOptions opt;
    opt.url = path;
    opt.vkey = vkey;
    auto remote = bb::HttpBoard::connect(opt);
    if (!remote) {
      std::fprintf(stderr, "gopa audit: cannot reach '%s': %s\n", path.c_str(), remote.error().message.c_str());
      return kExitIo;
    }
    // A board that cannot be reached is an I/O error (4), not the log's misbehaviour (2).
    if (auto ck = remote.value()->checkpoint(); !ck && ck.error().code == bb::Errc::io) {
      std::fprintf(stderr, "gopa audit: cannot reach '%s': %s\n", path.c_str(), ck.error().message.c_str());
      return kExitIo;
    }
    board = std::move(remote).value();
  } else {
    bb::StoreOptions so;
    so.create = false;
    so.read_only = true;
    auto store = bb::open_store(path, so);
    if (!store) {
      std::fprintf(stderr, "gopa audit: cannot open '%s': %s\n", path.c_str(), store.error().message.c_str());
      return store.error().code == bb::Errc::io ? kExitIo : kExitUsage;
    }
    bb::LocalBoardOptions opt;
    opt.read_only = true;
    auto local = bb::LocalBoard::open(std::move(store).value(), opt);
    if (!local) {
      std::fprintf(stderr, "gopa audit: the log of '%s' is inconsistent: %s\n", path.c_str(), local.error().message.c_str());
      return kExitLogMisbehaved;
    }
    board = std::move(local).value();
  }
  if (a.all) return audit_all(*board, a);
  // The session: by its id (or a unique prefix of its hex), or the only one on the board.
  std::optional<Bytes32> chosen;
  if (!session.empty()) {
    auto id = session_by_prefix(*board, session, "--session");
    if (!id) {
      std::fprintf(stderr, "gopa audit: cannot read '%s': %s\n", path.c_str(), id.error().message.c_str());
      return kExitIo;
    }
    chosen = id.value();
  }
  const gp::AuditReport audit = gp::audit_session(*board, chosen);
  if (!chosen && audit.sessions.size() > 1) {
    std::fprintf(stderr, "gopa audit: %zu sessions on this board; choose one with --session ID:\n", audit.sessions.size());
    for (const auto& id : audit.sessions) std::fprintf(stderr, "  %s\n", to_hex(id).c_str());
    return kExitUsage;
  }
  // What the posted parameters certify, at the default requirement a party states (honest
  // fraction 0.5, δ = 1e-5): the audit re-derives the privacy claim from the board alone.
  std::optional<gp::Certificate> cert;
  if (audit.params) cert = gp::certify_session(*audit.params, a.honest_fraction, a.delta);
  if (json_out) {
    json j = json_report("audit");
    j["board"] = path;
    if (audit.params) {
      const gp::SessionParams& p = *audit.params;
      j["session_id"] = to_hex(p.session_id());
      put_params(j, p);
      j["privacy"] = privacy_sentence(*cert);
      j["privacy_claim"] = certificate_json(*cert);
    }
    j["checks"] = checks_json(audit.checks);
    put_blamed(j, "excluded", audit.excluded);
    put_blamed(j, "named", audit.named);  // misbehaved without being excluded for it
    j["estimate"] = audit.estimate;
    j["counted"] = audit.counted.size();
    std::cout << j.dump(2) << "\n";
  } else {
    if (audit.params) {
      const gp::SessionParams& p = *audit.params;
      char domain[64];
      std::snprintf(domain, sizeof domain, p.input_domain == gp::InputDomain::l2_ball ? "inputs ‖x‖₂ <= %.6g" : "inputs in [0, %.6g]",
                    p.input_max_real());
      std::string chain;
      if (p.chained()) {
        chain = "  chain session " + std::to_string(p.chain_index) + " of 0.." + std::to_string(p.chain_rounds - 1) +
                (p.linked() ? " (base " + to_hex(p.chain_base).substr(0, 16) + ": its graph and sealed seeds)" : " (its base)");
      }
      std::printf("session %s  parties %u  dim %u  k %u  σ_η %.4g  σ_Δ %.4g  %s  noise %s%s\n", to_hex(p.session_id()).c_str(),
                  p.parties, p.dim, p.neighbors, p.sigma_eta, p.sigma_delta, domain, gp::noise_mode_name(p.noise), chain.c_str());
      std::printf("privacy (from the posted parameters, at honest fraction %s and δ = %s): %s\n",
                  g3(a.honest_fraction).c_str(), g3(a.delta).c_str(), privacy_sentence(*cert).c_str());
    }
    for (const auto& c : audit.checks) {
      std::printf("%-4s %s%s%s\n", gp::check_status_name(c.status), c.name.c_str(), c.detail.empty() ? "" : " — ",
                  c.detail.c_str());
    }
    for (const auto& [u, why] : audit.misbehaving) std::printf("party %u: %s\n", u, why.text().c_str());
    for (std::size_t j = 0; j < audit.estimate.size() && j < 8; ++j) std::printf("estimate[%zu] = %.6f\n", j, audit.estimate[j]);
    if (audit.estimate.size() > 8) {
      std::printf("… (first 8 of %zu shown; --json for all)\n", audit.estimate.size());
    }
  }
  if (!audit.log_ok) return kExitLogMisbehaved;
  return audit.all_passed() && !anyone_misbehaved(audit.misbehaving) ? kExitOk : kExitMisbehaved;
}


}  // namespace

void add_run_commands(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand(
      "run",
      "Verifiable private averaging end to end in one process: n parties, a coordinator and an auditor\n"
      "on an embedded SQLite board (a new file). Prints the estimate, the error against the true mean\n"
      "of the inputs (simulated or from --inputs), the privacy guarantee, excluded parties, proof sizes, time per phase and\n"
      "the audit. Exit: 0 all verified, 1 a party misbehaved, 2 the log is inconsistent, 3 bad input,\n"
      "4 I/O error.");
  add_session_options(run, *a);
  run->add_option("--inputs", a->inputs,
                  "CSV file: one row per party (it fixes --parties), --dim numbers in [0, --input-max] (with --input-domain "
                  "l2-ball: signed, each row's L2 norm at most --input-max); a first row with no number in it is a "
                  "header; default: simulated uniform inputs (then --parties is required)");
  run->add_option("--cheat", a->cheats,
                  "KIND:COUNT (repeatable): COUNT parties deviate; KIND is range (an input outside the domain), forge (an input below 0 behind a domain "
                  "proof forged along G), seed (a noise seed changed after the public randomness, proof forged along G), "
                  "cancel, noise, output, signature, replay, missing, committee (with --noise hidden: a committee member deviates inside the hidden-sample protocol), "
                  "or withhold (keeps its randomness reveal back once it has read the others': the i-th such party in attempt i, forcing a restart)")
      ->expected(1)
      ->take_all();
  run->add_option("--dropouts", a->dropouts, "parties that vanish after the pairwise-seed round");
  run->add_option("--board", a->board, "SQLite board file to create (default gopa-run-<session>.db)");
  run->add_option("--threads", a->threads, "threads for the parties' proofs and their verification (default 0: every core; results do not depend on it)");
  run->add_option_function<std::uint64_t>(
      "--seed", [a](const std::uint64_t& s) { a->seed = s; a->seed_set = true; },
      "reproducible simulation: every secret of the simulated parties (keys, shares, noise seeds, the committee's "
      "randomness), the simulated inputs and the session nonce derive from this seed (not private: anyone who knows "
      "it recomputes the noise); default: drawn from the operating system");
  run->add_flag("--json", a->json_out, "machine-readable output (docs/cli-json.md); stderr stays quiet");
  run->add_flag("--progress", a->progress, "progress lines on stderr with --json too (without --json they are on by default)");
  run->callback([&ctx, a] { ctx.run = [a] { return guarded("run", [&] { return run_run(*a); }); }; });

  auto aa = std::make_shared<AuditArgs>();
  CLI::App* audit = app.add_subcommand(
      "audit",
      "Re-verify a GOPA board end to end: entry signatures, the session setup, every range proof,\n"
      "pairwise cancellation, every output proof, and the released result (PASS/FAIL/SKIP per check).\n"
      "With --all, every session on the board (the rounds of `gopa train`), and the privacy of all of\n"
      "them composed exactly; for each training run on the board, its sessions in order and the model\n"
      "recomputed from their verified averages (and its test accuracy when the data set is here).\n"
      "Exit: 0 verified, 1 a party misbehaved (named), 2 the log is inconsistent, 3 usage, 4 I/O.");
  audit->add_option("--threads", aa->threads, "threads for verifying the proofs (default 0: every core)");
  audit->add_option("--board", aa->board, "SQLite board file, or the URL of a served board (http[s]://…); default $GOPA_BOARD")
      ->envname("GOPA_BOARD")
      ->required();
  audit->add_option("--board-key", aa->board_key,
                    "the served board's verifier key (vkey), or @FILE to read it from FILE; required with a URL; "
                    "default $GOPA_BOARD_KEY")
      ->envname("GOPA_BOARD_KEY");
  audit->add_option("--session", aa->session,
                    "the session to audit, by its id (hex; a unique prefix will do); needed when the board holds several");
  audit->add_flag("--all", aa->all, "audit every session on the board and compose their privacy (each at δ divided by the number of sessions)");
  audit->add_option("--data-dir", aa->data_dir,
                    "with --all: where a training run's data set is, to recompute the test accuracy of its models "
                    "(default: as gopa train finds it)");
  audit->add_option("--honest-fraction", aa->honest_fraction, "the honest fraction the re-derived privacy claim assumes")
      ->capture_default_str();
  audit->add_option("--delta", aa->delta, "the total δ of the re-derived privacy claim")->capture_default_str();
  audit->add_flag("--json", aa->json_out, "machine-readable output (docs/cli-json.md)");
  audit->callback([&ctx, aa] {
    ctx.run = [aa] { return guarded("audit", [&] { return run_audit(*aa); }); };
  });
}

}  // namespace gopa::cli
