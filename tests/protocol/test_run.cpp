#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;

namespace {
RunConfig config(std::uint32_t n, std::uint32_t d, std::uint64_t seed) {
  RunConfig cfg;
  cfg.params = SessionParams::defaults(n, d);
  cfg.params.neighbors = 3;
  cfg.params.sigma_eta = 0.01;
  cfg.params.sigma_delta = 50.0;
  cfg.params.input_bits = 32;
  cfg.params.frac_bits = 16;
  // The cheapest proven sampler keeps these tests fast (also under sanitizers); Box–Muller is
  // exercised by tests/circuits and by `gopa run`.
  cfg.params.sampler = SamplerKind::clt;
  cfg.params.sampler_precision = 8;
  cfg.params.nonce[0] = static_cast<std::uint8_t>(seed);
  cfg.seed = seed;
  DeterministicRng rng(seed);
  for (std::uint32_t u = 0; u < n; ++u) {
    std::vector<std::uint64_t> row;
    for (std::uint32_t j = 0; j < d; ++j) row.push_back(rng.uniform(std::uint64_t{100} << 16));  // [0, 100)
    cfg.inputs.push_back(row);
  }
  return cfg;
}

double true_mean(const RunConfig& cfg, std::uint32_t j) {
  double s = 0;
  for (const auto& row : cfg.inputs) s += cfg.params.from_fixed(static_cast<std::int64_t>(row[j]));
  return s / static_cast<double>(cfg.inputs.size());
}
}  // namespace

TEST_CASE("GOPA end to end in one process: the estimate is the mean plus small noise, the audit passes",
          "[protocol][run]") {
  const RunConfig cfg = config(12, 2, 5);
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  CHECK(r.counted.size() == 12);
  REQUIRE(r.estimate.size() == 2);
  for (std::uint32_t j = 0; j < 2; ++j) {
    // The pairwise terms (σ_Δ = 50) cancel exactly; only η remains: sd of the mean = σ_η/√n.
    CHECK(std::fabs(r.estimate[j] - true_mean(cfg, j)) < 6 * 0.01 / std::sqrt(12.0) + 1e-4);
  }
  CHECK(r.proof_bytes_per_party > 64);
  // setup + 12 seed commits + 12 reveals + edge seeds + 12 commitments + 12 masked + result
  CHECK(r.board_entries > 1 + 4 * 12 + 1);

  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.all_passed());
  CHECK(a.misbehaving.empty());
  CHECK(a.counted == r.counted);
  CHECK(a.estimate == r.estimate);
  // Every party's noise proof was checked.
  bool noise_checked = false;
  for (const auto& c : a.checks) {
    if (c.name.find("noise") != std::string::npos) {
      noise_checked = c.status == CheckStatus::pass && c.detail.find("12/12 valid") != std::string::npos;
    }
  }
  CHECK(noise_checked);
}

TEST_CASE("run_session refuses bad inputs with a message", "[protocol][run]") {
  RunConfig cfg = config(4, 1, 6);
  cfg.inputs[2][0] = std::uint64_t{1} << 40;  // beyond 32 input bits
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto r = run_session(cfg, *board);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("party 2") != std::string::npos);
  cfg = config(4, 1, 6);
  cfg.inputs.pop_back();
  CHECK_FALSE(run_session(cfg, *board).ok());
}

TEST_CASE("A board with no session fails the audit", "[protocol][run]") {
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  AuditReport a = audit_session(*board);
  CHECK_FALSE(a.all_passed());
  CHECK_FALSE(a.log_ok);
}

namespace {
// Runs with deviations and checks that exactly the deviating parties are excluded, each for the
// check its deviation breaks, that the audit agrees, and that the estimate is the mean of the
// counted parties' inputs plus small noise (the excluded parties' pairwise terms removed).
RunReport run_and_check(std::map<CheatKind, std::uint32_t> cheats, std::uint32_t dropouts, std::uint64_t seed) {
  RunConfig cfg = config(16, 2, seed);
  cfg.cheats = cheats;
  cfg.dropouts = dropouts;
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  auto report = run_session(cfg, *board);
  REQUIRE(report.ok());
  const RunReport& r = report.value();
  std::uint32_t expected = dropouts;
  for (const auto& [k, c] : cheats) expected += c;
  REQUIRE(r.deviating.size() == expected);
  // Nobody honest is blamed, every deviating party is.
  for (const auto& [u, why] : r.excluded) {
    INFO("party " << u << " excluded: " << why);
    CHECK(r.deviating.count(u) == 1);
  }
  for (const auto& [u, kind] : r.deviating) {
    INFO("party " << u << " deviated: " << kind);
    REQUIRE(r.excluded.count(u) == 1);
    const std::string& why = r.excluded.at(u);
    if (kind == "range") CHECK(why.find("range") != std::string::npos);
    if (kind == "noise") CHECK(why.find("noise not sampled from its committed seeds") != std::string::npos);
    if (kind == "cancel") CHECK(why.find("does not follow from the revealed edge seed") != std::string::npos);
    if (kind == "output" || kind == "replay") CHECK(why.find("output proof rejected") != std::string::npos);
    if (kind == "signature") CHECK(why.find("refused by the board") != std::string::npos);
    if (kind == "missing") CHECK(why.find("no masked value") != std::string::npos);
    if (kind == "dropout") CHECK(why.find("dropped out") != std::string::npos);
  }
  CHECK(r.counted.size() == 16 - expected);
  for (std::uint32_t j = 0; j < 2; ++j) {
    double mean = 0;
    for (auto u : r.counted) mean += cfg.params.from_fixed(static_cast<std::int64_t>(cfg.inputs[u][j]));
    mean /= static_cast<double>(r.counted.size());
    CHECK(std::fabs(r.estimate[j] - mean) < 6 * 0.01 / std::sqrt(static_cast<double>(r.counted.size())) + 1e-4);
  }
  AuditReport a = audit_session(*board);
  for (const auto& c : a.checks) INFO(c.name << ": " << check_status_name(c.status) << " " << c.detail);
  CHECK(a.counted == r.counted);
  CHECK(a.estimate == r.estimate);
  for (const auto& [u, why] : a.misbehaving) CHECK(r.deviating.count(u) == 1);
  bool result_pass = false, removal_pass = false;
  for (const auto& c : a.checks) {
    if (c.name.find("released result") != std::string::npos) result_pass = c.status == CheckStatus::pass;
    if (c.name.find("pairwise terms removed") != std::string::npos) removal_pass = c.status == CheckStatus::pass;
  }
  CHECK(result_pass);
  CHECK(removal_pass);
  return r;
}
}  // namespace

TEST_CASE("Every kind of cheating is caught and named, and nobody honest is blamed", "[protocol][run][cheat]") {
  for (auto kind : {CheatKind::range, CheatKind::cancel, CheatKind::noise, CheatKind::output, CheatKind::signature,
                    CheatKind::replay, CheatKind::missing}) {
    DYNAMIC_SECTION("cheat " << cheat_name(kind)) { run_and_check({{kind, 2}}, 0, 20 + static_cast<std::uint64_t>(kind)); }
  }
}

TEST_CASE("Drop-outs after the pairwise-seed round are removed exactly", "[protocol][run][cheat]") {
  run_and_check({}, 3, 31);
}

TEST_CASE("Mixtures of cheats and drop-outs", "[protocol][run][cheat]") {
  run_and_check({{CheatKind::range, 1}, {CheatKind::cancel, 1}, {CheatKind::output, 1}, {CheatKind::missing, 1}}, 1, 41);
  // Seed 42 gives a cancel cheater whose shifted term is on its edge to a drop-out: there is no
  // cancellation to check, only the revealed seed of that edge can name it.
  const RunReport r42 =
      run_and_check({{CheatKind::cancel, 3}, {CheatKind::replay, 1}, {CheatKind::signature, 1}}, 2, 42);
  CHECK(std::any_of(r42.excluded.begin(), r42.excluded.end(), [](const auto& e) {
    return e.second.find("with excluded party") != std::string::npos;
  }));
  run_and_check({{CheatKind::noise, 2}, {CheatKind::output, 1}, {CheatKind::range, 1}}, 1, 43);
}

TEST_CASE("Cheat names parse", "[protocol][run]") {
  CHECK(cheat_from_name("cancel") == CheatKind::cancel);
  CHECK_FALSE(cheat_from_name("bogus").has_value());
  RunConfig cfg = config(4, 1, 50);
  cfg.cheats[CheatKind::output] = 4;  // nobody honest would remain
  auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
  CHECK_FALSE(run_session(cfg, *board).ok());
}
