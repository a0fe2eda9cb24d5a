// Runs the `gopa` binary as a user would and checks its output, exit codes and files.
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace {
// Shell lines that start `gopa board serve` on a fresh board.db on a free loopback port (killed
// when the script exits) and set URL and VKEY from what it prints.
std::string serve_board(const std::string& g) {
  return g + " board serve --db board.db --listen 127.0.0.1:0 > serve.out 2> serve.err &\n"
             "SERVER=$!\n"
             "trap 'kill $SERVER 2>/dev/null || true' EXIT\n"
             "for i in $(seq 1 100); do grep -q '^vkey ' serve.out 2>/dev/null && break; sleep 0.1; done\n"
             "URL=$(sed -n 's/^serving //p' serve.out)\n"
             "VKEY=$(sed -n 's/^vkey //p' serve.out)\n";
}
}  // namespace

namespace {

struct Outcome {
  int code = -1;
  std::string out;
};

// Runs `gopa <args>` in `dir`, capturing stdout (stderr goes to the test log).
Outcome gopa(const std::string& args, const std::string& dir) {
  const std::string cmd = "cd '" + dir + "' && '" + std::string(gopa_test_binary()) + "' " + args;
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  const int status = pclose(p);
  o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return o;
}

// Runs `gopa <args>` in `dir` with the environment variables `env` ("NAME=VALUE …") set.
Outcome gopa_env(const std::string& env, const std::string& args, const fs::path& dir) {
  return gopa(args, dir.string() + "' && export " + env + " && cd '" + dir.string());
}

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gopa-cli-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string slurp_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Checks a --json report against the conventions every report shares (defined below).
void check_report(const nlohmann::json& j, const std::string& schema);

}  // namespace

TEST_CASE("gopa --version and --help", "[cli]") {
  TempDir d;
  auto v = gopa("--version", d.path);
  CHECK(v.code == 0);
  CHECK(v.out.rfind("gopa ", 0) == 0);
  auto h = gopa("--help", d.path);
  CHECK(h.code == 0);
  for (const char* sub : {"run", "audit", "bench"}) CHECK(h.out.find(sub) != std::string::npos);
  CHECK(gopa("no-such-command 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa run: end to end on an SQLite board, then gopa audit", "[cli][run]") {
  TempDir d;
  auto r = gopa("run --parties 8 --dim 2 --board b.db --seed 3 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --json", d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("counted") == 8);
  CHECK(j.at("excluded").empty());
  REQUIRE(j.at("estimate").size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    const double est = j.at("estimate")[k], mean = j.at("true_mean")[k];
    CHECK(std::fabs(est - mean) < 0.05);
  }
  for (const auto& c : j.at("checks")) CHECK(c.at("status") != "FAIL");
  CHECK(fs::exists(d.path / "b.db"));

  auto a = gopa("audit --board b.db --json", d.path);
  CHECK(a.code == 0);
  const auto ja = nlohmann::json::parse(a.out);
  CHECK(ja.at("counted") == 8);
  CHECK(ja.at("estimate") == j.at("estimate"));
  // A second run refuses to reuse the board file.
  CHECK(gopa("run --parties 8 --board b.db 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa run: secrets from the operating system unless --seed asks for a reproducible simulation",
          "[cli][run][seed]") {
  TempDir d;
  const std::string opts = " --parties 6 --dim 2 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --json";
  auto run = [&](const std::string& extra) {
    auto r = gopa("run" + opts + extra, d.path);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out);
  };
  // Without --seed: a new session, new inputs, new secrets each time.
  const auto a = run(" --board a.db"), b = run(" --board b.db");
  CHECK(a.at("reproducible_seed").is_null());
  CHECK(b.at("reproducible_seed").is_null());
  CHECK(a.at("session_id") != b.at("session_id"));
  CHECK(a.at("true_mean") != b.at("true_mean"));
  CHECK(a.at("estimate") != b.at("estimate"));
  // With --seed: the same session, inputs and result, and the output says it is not private.
  const auto s = run(" --board s.db --seed 5"), t = run(" --board t.db --seed 5");
  CHECK(s.at("reproducible_seed") == 5);
  CHECK(s.at("session_id") == t.at("session_id"));
  CHECK(s.at("true_mean") == t.at("true_mean"));
  CHECK(s.at("estimate") == t.at("estimate"));
  const auto text = gopa("run --parties 6 --dim 1 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board u.db --seed 7", d.path);
  CHECK(text.code == 0);
  CHECK(text.out.find("reproducible simulation: every secret derives from --seed 7; not private") != std::string::npos);
  const auto plain = gopa("run --parties 6 --dim 1 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board v.db", d.path);
  CHECK(plain.code == 0);
  CHECK(plain.out.find("reproducible simulation") == std::string::npos);
}

TEST_CASE("gopa run --noise hidden: the committee's noise is new in every run unless --seed fixes it",
          "[cli][run][seed][hidden][release-only]") {
  TempDir d;
  {
    std::ofstream f(d.path / "in.csv");
    f << "0.1,0.5\n0.2,0.6\n0.3,0.7\n0.4,0.8\n";
  }
  // The same inputs each time: only the hidden η makes the estimates differ. Two coordinates, the
  // two samples of the committee's one Box–Muller call: η has σ_η·2^16 = 32768 steps of the
  // 16-bit grid, so two runs would draw the same single sample with probability about
  // 1/(2√π·32768) = 8.6e-6, and draw the same pair with probability about 1/(4π·32768²) = 7.4e-11.
  auto run = [&](const std::string& extra) {
    auto r = gopa("run --inputs in.csv --dim 2 --noise hidden --committee 2 --honest-fraction 1 --sigma-eta 0.5 "
                  "--sigma-delta 20 --neighbors 2 --json 2>/dev/null" + extra, d.path);
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    REQUIRE(j.at("estimate").size() == 2);
    return j;
  };
  const auto a = run(" --board a.db"), b = run(" --board b.db");
  CHECK(a.at("reproducible_seed").is_null());
  CHECK(a.at("estimate") != b.at("estimate"));
  const auto s = run(" --board s.db --seed 9"), t = run(" --board t.db --seed 9");
  CHECK(s.at("reproducible_seed") == 9);
  CHECK(s.at("estimate") == t.at("estimate"));
}

TEST_CASE("gopa run and audit: bad input is refused with exit code 3 and nothing written", "[cli][run]") {
  TempDir d;
  {
    std::ofstream f(d.path / "in.csv");
    f << "0.5\n0.25\nnot-a-number\n";
  }
  CHECK(gopa("run --parties 3 --inputs in.csv --board x.db 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "x.db"));
  {
    std::ofstream f(d.path / "in.csv");
    f << "0.5\n0.25\n";  // 2 rows for 3 parties
  }
  CHECK(gopa("run --parties 3 --inputs in.csv --board x.db 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run --parties 1 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run --parties 4 --dim 0 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "x.db"));
  CHECK(gopa("audit --board missing.db 2>/dev/null", d.path).code == 3);
  {
    std::ofstream f(d.path / "junk.db");
    f << "this is not a database";
  }
  CHECK(gopa("audit --board junk.db 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa run with CSV inputs reports the estimate of those inputs", "[cli][run]") {
  TempDir d;
  {
    std::ofstream f(d.path / "in.csv");
    f << "# one row per party\n0.1\n0.2\n0.3\n0.4\n";
  }
  auto r = gopa("run --parties 4 --inputs in.csv --board c.db --sigma-eta 0.001 --sigma-delta 5 --neighbors 2 --json", d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(std::fabs(j.at("estimate")[0].get<double>() - 0.25) < 0.01);
  REQUIRE(j.contains("true_mean"));  // the mean of the CSV's inputs
  CHECK(j.at("true_mean")[0].get<double>() == Approx(0.25));
}

namespace {
// `gopa run ARGS --board DB --json` with `deviating` deviating parties, then `gopa audit` of DB:
// both exit 1, every deviating party is excluded by the run and named by the audit, and the
// two agree on the estimate. Returns both reports.
std::pair<nlohmann::json, nlohmann::json> run_and_audit(const TempDir& d, const std::string& args, const std::string& db,
                                                        std::size_t deviating) {
  auto r = gopa("run " + args + " --board " + db + " --json", d.path);
  CHECK(r.code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("simulated").size() == deviating);
  for (const auto& [party, kind] : j.at("simulated").items()) CHECK(j.at("excluded").contains(party));
  // An honest party whose every edge leads to an excluded party keeps its masked value back (it
  // would give its input away) and is excluded as having published none; nobody honest otherwise.
  std::size_t kept_back = 0;
  for (const auto& [party, why] : j.at("excluded").items()) {
    if (j.at("simulated").contains(party)) continue;
    CHECK(why.get<std::string>().find("no masked value") != std::string::npos);
    CHECK(j.at("excluded_offences").at(party) == "no-masked-value");
    ++kept_back;
  }
  CHECK(j.at("excluded").size() == deviating + kept_back);
  auto a = gopa("audit --board " + db + " --json", d.path);
  CHECK(a.code == 1);
  auto ja = nlohmann::json::parse(a.out);
  CHECK(ja.at("excluded").size() == deviating + kept_back);
  for (const auto& [party, kind] : j.at("simulated").items()) CHECK(ja.at("excluded").contains(party));
  CHECK(ja.at("excluded_offences") == j.at("excluded_offences"));
  CHECK(ja.at("estimate") == j.at("estimate"));
  return {j, ja};
}
}  // namespace

TEST_CASE("gopa run --cheat/--dropouts: cheaters are named, exit code 1, audit agrees", "[cli][run]") {
  TempDir d;
  // A fixed --seed: with a random layout, a cancel cheater whose shifted term lies on its edge to
  // the drop-out is named and the session ends without a result instead (that layout is tested in
  // tests/protocol/test_run.cpp, "Mixtures of cheats and drop-outs").
  const auto [j, ja] = run_and_audit(
      d, "--parties 12 --sigma-eta 0.01 --sigma-delta 20 --neighbors 3 --cheat cancel:2 --cheat output:1 --dropouts 1 --seed 1",
      "m.db", 4);
  CHECK(j.at("counted").get<std::size_t>() + j.at("excluded").size() == 12);
  CHECK(gopa("run --parties 4 --cheat bogus:1 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run --parties 4 --cheat output:x 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run --parties 4 --cheat output:4 --sigma-eta 1 --sigma-delta 1 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa run: forged domain and noise proofs are excluded and named; the audit fails them", "[cli][run][malicious]") {
  // The demonstration of the binding forgery: a party that moved coordinate 0 of the average
  // (an input far below 0 behind a range proof forged along G) and a party that changed its noise
  // seed after the public randomness. Both are excluded by the run and by an unmodified audit.
  TempDir d;
  const auto [j, ja] = run_and_audit(
      d, "--parties 8 --dim 2 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --cheat forge:1 --cheat seed:1", "f.db", 2);
  for (const auto& [party, kind] : j.at("simulated").items()) {
    REQUIRE(j.at("excluded").contains(party));
    const std::string why = j.at("excluded").at(party).get<std::string>();
    const std::string offence = j.at("excluded_offences").at(party).get<std::string>();
    if (kind == "forge") {
      CHECK(offence == "range");
      CHECK(why.find("input outside the domain [0, M]") != std::string::npos);
    }
    if (kind == "seed") {
      CHECK(offence == "noise");
      CHECK(why.find("noise not sampled from its committed seeds") != std::string::npos);
    }
  }
  CHECK(j.at("input_max") == 1.0);
  for (double e : j.at("estimate").get<std::vector<double>>()) CHECK(std::fabs(e - 0.5) < 0.5);
  int failed = 0;
  for (const auto& c : ja.at("checks")) {
    const std::string name = c.at("name").get<std::string>();
    if (name == "input domain proofs" || name == "noise sampled from committed seeds") {
      CHECK(c.at("status") == "FAIL");
      ++failed;
    }
  }
  CHECK(failed == 2);
  // An input above --input-max in a CSV is refused before anything is written.
  {
    std::ofstream f(d.path / "big.csv");
    f << "0.5\n0.5\n60000\n";
  }
  CHECK(gopa("run --parties 3 --inputs big.csv --input-max 1 --board big.db 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "big.db"));
}

TEST_CASE("gopa prove range / gopa verify: valid, tampered and malformed files", "[cli][sigma]") {
  TempDir d;
  auto p = gopa("prove range --bits 16 --values 5,65535,0 --out r.json", d.path);
  REQUIRE(p.code == 0);
  REQUIRE(fs::exists(d.path / "r.json"));
  auto v = gopa("verify r.json", d.path);
  CHECK(v.code == 0);
  CHECK(v.out.find("valid") != std::string::npos);
  // Out-of-range value: refused, no file.
  CHECK(gopa("prove range --bits 16 --values 65536 --out bad.json 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "bad.json"));
  // Tamper with the proof hex: exit 1 naming the failed check.
  nlohmann::json j = nlohmann::json::parse(std::ifstream(d.path / "r.json"));
  std::string proof = j.at("proof").get<std::string>();
  proof[proof.size() - 3] = proof[proof.size() - 3] == '0' ? '1' : '0';
  j["proof"] = proof;
  std::ofstream(d.path / "t.json") << j.dump();
  auto t = gopa("verify t.json", d.path);
  CHECK(t.code == 1);
  CHECK_FALSE(t.out.empty());
  // Malformed files: exit 3.
  std::ofstream(d.path / "m.json") << "{not json";
  CHECK(gopa("verify m.json 2>/dev/null", d.path).code == 3);
  CHECK(gopa("verify missing.json 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa board serve + gopa coordinate + 8 gopa party processes on loopback, then gopa audit",
          "[cli][party]") {
  TempDir d;
  std::string g = "'";
  g += gopa_test_binary();
  g += "'";
  // Keys, one process per party; the roster is the .pub files in party order.
  for (const char* k : {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "coord"}) {
    std::string args = "keys --out ";
    args += k;
    args += ".json > /dev/null";
    REQUIRE(gopa(args, d.path).code == 0);
    CHECK(fs::status(d.path / (std::string(k) + ".json")).permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write));
  }
  CHECK(gopa("keys --out k0.json 2>/dev/null", d.path).code == 3);  // never overwrites a key
  {
    std::ofstream sh(d.path / "multi.sh");
    sh << "set -e\n"
       << "cat k0.json.pub k1.json.pub k2.json.pub k3.json.pub k4.json.pub k5.json.pub k6.json.pub k7.json.pub > roster.jsonl\n"
       << serve_board(g)
       << "PIDS=\"\"\n"
       << "for i in 0 1 2 3 4 5 6 7; do\n"
       // σ_η = 0.01 among 8 parties certifies ε ≈ 730 at δ = 1e-3 without colluders: the parties
       // state that they accept it.
       << "  " << g << " party --board \"$URL\" --board-key \"$VKEY\" --id $i --keys k$i.json --input 0.$((i + 1)) --json"
       << " --epsilon 1000 --delta 1e-3 --honest-fraction 1"
       << " > party$i.json 2> party$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       // The first session is the base of a chain of two (one coordinator key for both).
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties 8 --sigma-eta 0.01"
       << " --sigma-delta 20 --neighbors 2 --sampler clt --sampler-precision 12 --round-timeout-ms 60000 --json"
       << " --chain-rounds 2 --keys coord.json > coordinator.json 2> coordinator.err\n"
       << "for p in $PIDS; do wait $p; done\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --json > audit.json\n"
       // A second session on the same board, the chain's session 1 (no seed exchange): the
       // parties join the only open one; each session is then audited by its id, and an audit
       // without one refuses to guess.
       << "S1=$(sed -n 's/.*\"session_id\": \"\\([0-9a-f]*\\)\".*/\\1/p' coordinator.json | head -n 1)\n"
       << "PIDS=\"\"\n"
       << "for i in 0 1 2 3 4 5 6 7; do\n"
       << "  " << g << " party --board \"$URL\" --board-key \"$VKEY\" --id $i --keys k$i.json --input 0.$((8 - i)) --json"
       << " --epsilon 1000 --delta 1e-3 --honest-fraction 1 --wait-ms 60000"
       << " > second$i.json 2> second$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties 8 --sigma-eta 0.01"
       << " --sigma-delta 20 --neighbors 2 --sampler clt --sampler-precision 12 --round-timeout-ms 60000 --json"
       << " --chain-base \"${S1:0:12}\" --chain-index 1 --keys coord.json > coordinator2.json 2> coordinator2.err\n"
       << "for p in $PIDS; do wait $p; done\n"
       << "S2=$(sed -n 's/.*\"session_id\": \"\\([0-9a-f]*\\)\".*/\\1/p' coordinator2.json | head -n 1)\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --session \"$S1\" --json > audit1.json\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --session \"$S2\" --json > audit2.json\n"
       << "set +e\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" > audit_any.out 2> audit_any.err\n"
       << "echo $? > audit_any.code\n"
       << "set -e\n";
  }
  const std::string cmd = "cd '" + d.path.string() + "' && bash multi.sh";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const auto jc = nlohmann::json::parse(std::ifstream(d.path / "coordinator.json"));
  check_report(jc, "gopa-coordinate/v1");
  CHECK(jc.at("counted") == 8);
  CHECK(jc.at("k") == 2);
  CHECK(jc.at("excluded").empty());
  CHECK(jc.at("named").empty());
  // --json keeps stderr quiet: no round lines from the coordinator or the parties.
  CHECK(slurp_file(d.path / "coordinator.err").empty());
  const double estimate = jc.at("estimate")[0];
  CHECK(std::fabs(estimate - 0.45) < 0.05);  // mean of 0.1 … 0.8, σ_η/√8 ≈ 0.004
  for (int i = 0; i < 8; ++i) {
    const auto jp = nlohmann::json::parse(std::ifstream(d.path / ("party" + std::to_string(i) + ".json")));  // NOLINT
    check_report(jp, "gopa-party/v1");
    CHECK(jp.at("counted_me") == true);
    CHECK(jp.at("id") == i);
    CHECK(jp.at("excluded").empty());
    CHECK(jp.at("estimate")[0] == estimate);  // every party reads the same result
    CHECK(slurp_file(d.path / ("party" + std::to_string(i) + ".err")).empty());
  }
  const auto ja = nlohmann::json::parse(std::ifstream(d.path / "audit.json"));
  check_report(ja, "gopa-audit/v1");
  CHECK(ja.at("counted") == 8);
  for (const auto& c : ja.at("checks")) {
    INFO(c.dump());
    CHECK(c.at("status") == "PASS");
  }
  // The second session on the same board: its own id, its own result, both audits clean.
  const auto jc2 = nlohmann::json::parse(std::ifstream(d.path / "coordinator2.json"));
  CHECK(jc2.at("session_id") != jc.at("session_id"));
  CHECK(jc.at("chain").at("rounds") == 2);
  CHECK(jc.at("chain").at("index") == 0);
  CHECK(jc2.at("chain").at("index") == 1);
  CHECK(jc2.at("chain").at("base") == jc.at("session_id"));
  CHECK(jc2.at("counted") == 8);
  CHECK(std::fabs(jc2.at("estimate")[0].get<double>() - 0.45) < 0.05);
  for (const char* f : {"audit1.json", "audit2.json"}) {
    INFO(f);
    const auto j = nlohmann::json::parse(std::ifstream(d.path / f));
    CHECK(j.at("counted") == 8);
    for (const auto& c : j.at("checks")) CHECK(c.at("status") == "PASS");
  }
  CHECK(nlohmann::json::parse(std::ifstream(d.path / "audit1.json")).at("session_id") == jc.at("session_id"));
  CHECK(nlohmann::json::parse(std::ifstream(d.path / "audit2.json")).at("session_id") == jc2.at("session_id"));
  CHECK(slurp_file(d.path / "audit_any.code") == "3\n");
  CHECK(slurp_file(d.path / "audit_any.err").find("2 sessions on this board") != std::string::npos);
}

namespace {

// Key files k0.json … k<n−1>.json in d, and the shell line that writes their roster.
std::string make_roster(const TempDir& d, int n) {
  std::ostringstream sh;
  sh << "cat";
  for (int i = 0; i < n; ++i) {
    REQUIRE(gopa("keys --out k" + std::to_string(i) + ".json > /dev/null", d.path).code == 0);
    sh << " k" << i << ".json.pub";
  }
  sh << " > roster.jsonl\n";
  return sh.str();
}

// The party indices 0 … n−1 without `skip`, as a shell word list (each after a space).
std::string party_ids(int n, int skip = -1) {
  std::ostringstream out;
  for (int i = 0; i < n; ++i) {
    if (i != skip) out << ' ' << i;
  }
  return out.str();
}

// The session id's prefix that gopa coordinate --progress printed in coordinator.err.
std::string jc_prefix(const TempDir& d) {
  const std::string log = slurp_file(d.path / "coordinator.err");
  const std::string key = "setup posted: session ";
  const auto at = log.find(key);
  return at == std::string::npos ? std::string("(none)") : log.substr(at + key.size(), 16);
}

// gopa board serve, gopa coordinate (--parties n --input-max 10 and `session`) and n gopa party
// processes; party `victim` is killed (SIGKILL) once its stderr shows `pattern` and, with
// `restart`, started again with the same command. Then gopa audit. Files: party<i>.json/.err,
// killed.json/.err, and the exit codes in killed.rc, party<victim>.rc (restart), coordinator.rc
// and audit.rc.
void run_with_killed(const TempDir& d, int n, int victim, const std::string& pattern, const std::string& session,
                     bool restart) {
  std::string g = "'";
  g += gopa_test_binary();
  g += "'";
  const std::string roster = make_roster(d, n);
  const std::string party = g + " party --board \"$URL\" --board-key \"$VKEY\" --keys k$i.json --id $i --input $((i + 1))"
                                " --epsilon 1e5 --delta 1e-3 --honest-fraction 1 --json --progress";
  {
    std::ofstream sh(d.path / "killed.sh");
    sh << roster
       << serve_board(g)
       << "PIDS=\"\"\n"
       << "for i in" << party_ids(n, victim) << "; do\n"
       << "  " << party << " > party$i.json 2> party$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       << "i=" << victim << "; " << party << " > killed.json 2> killed.err &\n"
       << "KILLED=$!\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties " << n
       << " --input-max 10 " << session << " --json --progress > coordinator.json 2> coordinator.err &\n"
       << "COORD=$!\n"
       << "for t in $(seq 1 3000); do grep -q '" << pattern << "' killed.err && break; sleep 0.01; done\n"
       << "kill -KILL $KILLED\n"
       << "{ wait $KILLED; } 2> /dev/null; echo $? > killed.rc\n";
    if (restart) {
      // Started again with the session named by the 16 hex digits gopa coordinate printed.
      sh << "SID=$(sed -n 's/.*setup posted: session //p' coordinator.err | head -n 1)\n"
         << "i=" << victim << "; " << party << " --session \"$SID\" > party" << victim << ".json 2> party" << victim << ".err\n"
         << "echo $? > party" << victim << ".rc\n";
    }
    sh << "wait $COORD; echo $? > coordinator.rc\n"
       << "for p in $PIDS; do wait $p; done\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --json > audit.json; echo $? > audit.rc\n";
  }
  const std::string cmd = "cd '" + d.path.string() + "' && bash killed.sh";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
}

}  // namespace

TEST_CASE("A gopa party killed mid-session (SIGKILL) and started again resumes; everyone counted, the audit passes",
          "[cli][party][restart]") {
  // Four parties; party 1 is killed once it has finished round 4 (its sealed seeds) and started
  // again with the same command: it resumes from the board and its key file.
  TempDir d;
  run_with_killed(d, 4, 1, "round 4 done",
                  "--sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --sampler clt --sampler-precision 8",
                  true);
  INFO(slurp_file(d.path / "killed.err") << slurp_file(d.path / "party1.err"));
  CHECK(slurp_file(d.path / "killed.rc") == "137\n");  // killed, not finished
  CHECK(slurp_file(d.path / "killed.json").empty());
  CHECK(slurp_file(d.path / "party1.rc") == "0\n");
  CHECK(slurp_file(d.path / "party1.err").find("resuming: ") != std::string::npos);
  // It was started again with --session and the 16-digit prefix the coordinator printed.
  const auto restarted = nlohmann::json::parse(std::ifstream(d.path / "party1.json"));
  CHECK(restarted.at("session_id").get<std::string>().rfind(jc_prefix(d), 0) == 0);
  CHECK(slurp_file(d.path / "coordinator.rc") == "0\n");
  const auto jc = nlohmann::json::parse(std::ifstream(d.path / "coordinator.json"));
  CHECK(jc.at("counted") == 4);
  CHECK(jc.at("excluded").empty());
  CHECK(jc.at("named").empty());
  CHECK(std::fabs(jc.at("estimate")[0].get<double>() - 2.5) < 0.5);
  for (int i = 0; i < 4; ++i) {
    INFO("party " << i);
    const auto jp = nlohmann::json::parse(std::ifstream(d.path / ("party" + std::to_string(i) + ".json")));  // NOLINT
    CHECK(jp.at("counted_me") == true);
    CHECK(jp.at("estimate") == jc.at("estimate"));
  }
  CHECK(slurp_file(d.path / "audit.rc") == "0\n");
  const auto ja = nlohmann::json::parse(std::ifstream(d.path / "audit.json"));
  CHECK(ja.at("counted") == 4);
  for (const auto& c : ja.at("checks")) {
    INFO(c.dump());
    CHECK(c.at("status") == "PASS");
  }
}

namespace {

// One session over HTTP: gopa board serve, gopa coordinate and n gopa party processes, party `bad`
// run with the extra options `deviant` (a test-only deviation), gopa coordinate with
// `coordinate_extra`; then gopa audit. The coordinator's
// and the auditor's --json reports.
struct Served {
  nlohmann::json coordinator, audit;
};
constexpr const char* kServedSession =
    "--sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --sampler clt --sampler-precision 8 "
    "--round-timeout-ms 5000";
Served serve_with_deviant(const TempDir& d, int n, int bad, const std::string& deviant,
                          const std::string& coordinate_extra = "", const std::string& session = kServedSession) {
  std::string g = "'";
  g += gopa_test_binary();
  g += "'";
  const std::string roster = make_roster(d, n);
  {
    std::ofstream sh(d.path / "deviant.sh");
    sh << roster
       << serve_board(g)
       << "PIDS=\"\"\n"
       << "for i in" << party_ids(n) << "; do\n"
       << "  EXTRA=\"\"; [ $i = " << bad << " ] && EXTRA=\"" << deviant << "\"\n"
       << "  " << g << " party --board \"$URL\" --board-key \"$VKEY\" --id $i --keys k$i.json --input $((i + 1)) --json"
       << " --epsilon 1e5 --delta 1e-3 --honest-fraction 1 $EXTRA > party$i.json 2> party$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties " << n << " --input-max 10 "
       << session << " " << coordinate_extra << " --json > coordinator.json 2> coordinator.err || true\n"
       << "for p in $PIDS; do wait $p || true; done\n"
       << g << " audit --board \"$URL\" --board-key \"$VKEY\" --json > audit.json || true\n";
  }
  const std::string cmd = "cd '" + d.path.string() + "' && bash deviant.sh";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  return {nlohmann::json::parse(std::ifstream(d.path / "coordinator.json")),
          nlohmann::json::parse(std::ifstream(d.path / "audit.json"))};
}

// No honest party excluded or named by the coordinator or the auditor; every honest party counted
// with the released estimate, which the auditor recomputes.
void check_honest_served(const TempDir& d, const Served& s, int n, int bad) {
  const auto& jc = s.coordinator;
  const auto& ja = s.audit;
  for (int i = 0; i < n; ++i) {
    if (i == bad) continue;
    INFO("honest party " << i);
    const std::string key = std::to_string(i);
    CHECK_FALSE(jc.at("excluded").contains(key));
    CHECK_FALSE(jc.at("named").contains(key));
    CHECK_FALSE(ja.at("excluded").contains(key));
    CHECK_FALSE(ja.at("named").contains(key));
    const auto jp = nlohmann::json::parse(std::ifstream(d.path / ("party" + key + ".json")));  // NOLINT
    CHECK(jp.at("counted_me") == true);
    CHECK(jp.at("estimate") == jc.at("estimate"));
  }
  CHECK(ja.at("estimate") == jc.at("estimate"));
  for (const auto& c : ja.at("checks")) {
    const std::string name = c.at("name");
    if (name == "released result matches the recomputation" || name == "excluded parties' pairwise terms removed") {
      CHECK(c.at("status") == "PASS");
    }
  }
}

}  // namespace

TEST_CASE("Across processes over HTTP: a randomized malicious gopa party never gets an honest one excluded or named",
          "[cli][party][adversary]") {
  // gopa board serve, gopa coordinate, five honest gopa party processes and one run with the
  // test-only --adversary SEED (withholds, relabels, duplicates, keeps back, replays and retypes
  // its signed entries, and posts more after the result); two seeds.
  for (int seed : {3, 8}) {
    INFO("adversary seed " << seed);
    TempDir d;
    const int bad = seed % 6;
    const Served s = serve_with_deviant(d, 6, bad, "--adversary " + std::to_string(seed));
    check_honest_served(d, s, 6, bad);
  }
}

TEST_CASE("Across processes over HTTP: a gopa party --cheat KIND is excluded for its deviation, nobody honest is blamed",
          "[cli][party][cheat]") {
  // Four honest gopa party processes and one with the test-only --cheat KIND, which deviates as
  // `gopa run --cheat KIND` cheaters do: the whole cheat matrix (the committee's below, with
  // hidden noise).
  struct Case {
    const char* kind;
    const char* offence;  // the cheater's exclusion, as the coordinator and the auditor give it
    const char* reason;   // in its text
  };
  for (const Case& c : {Case{"range", "range", "input outside the domain [0, M]"},
                        Case{"forge", "range", "input outside the domain [0, M]"},
                        Case{"seed", "noise", "noise not sampled from its committed seeds"},
                        Case{"noise", "noise", "noise not sampled from its committed seeds"},
                        Case{"cancel", "cancel", "does not follow from the revealed edge seed"},
                        Case{"output", "output", "inconsistent with its commitments"},
                        Case{"replay", "output", "inconsistent with its commitments"},
                        Case{"signature", "no-masked-value", "no masked value"},  // the board refused it
                        Case{"missing", "no-masked-value", "no masked value"},
                        Case{"withhold", "withheld-reveal", "no randomness reveal"}}) {
    INFO("cheat " << c.kind);
    TempDir d;
    const int bad = 3;
    std::string deviant = "--cheat ";
    deviant += c.kind;
    const Served s = serve_with_deviant(d, 5, bad, deviant, "--min-round-ms 300");
    for (const auto* j : {&s.coordinator, &s.audit}) {
      REQUIRE(j->at("excluded").contains("3"));
      CHECK(j->at("excluded").at("3").get<std::string>().find(c.reason) != std::string::npos);
      CHECK(j->at("excluded_offences").at("3") == c.offence);
    }
    check_honest_served(d, s, 5, bad);
  }
  // An unknown kind is refused before anything is posted.
  TempDir d;
  REQUIRE(gopa("keys --out k.json > /dev/null", d.path).code == 0);
  const auto r = gopa("party --board http://127.0.0.1:9 --board-key 00 --id 0 --keys k.json --input 1 --cheat fraud"
                      " 2> err.txt", d.path);
  CHECK(r.code == 3);
  CHECK(slurp_file(d.path / "err.txt").find("--cheat") != std::string::npos);
  // --session: the whole id or a prefix of at least 8 hex digits; anything else before connecting.
  for (const char* bad : {"abc", "0123456789abcdefg", "not-hex-at-all"}) {
    INFO(bad);
    const auto s = gopa(std::string("party --board http://127.0.0.1:9 --board-key 00 --id 0 --keys k.json --input 1 --session ") +
                            bad + " 2> err.txt",
                        d.path);
    CHECK(s.code == 3);
    CHECK(slurp_file(d.path / "err.txt").find("a prefix of at least 8 of its 64 hex digits") != std::string::npos);
  }
}

TEST_CASE("Across processes over HTTP: hidden noise, every committee member in its own gopa party process; the audit passes",
          "[cli][party][hidden]") {
  // gopa coordinate --noise hidden and five gopa party processes: the committee drawn from the
  // joint randomness computes the hidden sample, each member with its own Paillier key (2048
  // bits) and shares; nobody is excluded and the audit verifies the committee's log.
  TempDir d;
  const Served s = serve_with_deviant(d, 5, -1, "", "",
                                      "--sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --noise hidden "
                                      "--sampler-precision 8 --round-timeout-ms 60000");
  INFO(slurp_file(d.path / "coordinator.err"));
  check_honest_served(d, s, 5, -1);
  CHECK(s.coordinator.at("excluded").empty());
  CHECK(s.coordinator.at("counted") == 5);
  bool committee_checked = false;
  for (const auto& c : s.audit.at("checks")) {
    const std::string name = c.at("name");
    INFO(name << ": " << c.at("status") << " " << c.value("detail", ""));
    CHECK(c.at("status") != "FAIL");
    if (name.find("hidden noise") != std::string::npos) committee_checked = c.at("status") == "PASS";
  }
  CHECK(committee_checked);
}

TEST_CASE("Across processes over HTTP: hidden noise with a cheating or a stalled committee member; the others restart "
          "without it, nobody honest is blamed",
          "[cli][party][hidden]") {
  // Three parties and a committee of three: every party is a member. 2048-bit keys. A member
  // waits --round-timeout-ms for each message: long for the cheater (it is named for what it
  // posts), and for the member that stalls long enough that a loaded machine does not make an
  // honest member look stalled.
  const std::string session =
      "--sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --noise hidden --committee 3 "
      "--sampler-precision 8 --min-round-ms 300 --round-timeout-ms ";
  SECTION("a member that opens a wrong share (gopa party --cheat committee)") {
    TempDir d;
    const Served s = serve_with_deviant(d, 3, 1, "--cheat committee", "", session + "30000");
    INFO(slurp_file(d.path / "coordinator.err"));
    INFO("excluded: " << s.coordinator.at("excluded").dump());
    for (const auto* j : {&s.coordinator, &s.audit}) {
      REQUIRE(j->at("excluded").contains("1"));
      CHECK(j->at("excluded").at("1").get<std::string>().find("mul-opening") != std::string::npos);
      CHECK(j->at("excluded_offences").at("1") == "committee");
    }
    CHECK(s.coordinator.at("counted") == 2);
    check_honest_served(d, s, 3, 1);
  }
  SECTION("a member killed when the committee's round begins") {
    TempDir d;
    run_with_killed(d, 3, 2, "round 3 done", session + "8000", false);
    INFO(slurp_file(d.path / "coordinator.err") << slurp_file(d.path / "party0.err"));
    const Served s{nlohmann::json::parse(std::ifstream(d.path / "coordinator.json")),
                   nlohmann::json::parse(std::ifstream(d.path / "audit.json"))};
    for (const auto* j : {&s.coordinator, &s.audit}) {
      REQUIRE(j->at("excluded").contains("2"));
      CHECK(j->at("excluded").at("2").get<std::string>().find("missing") != std::string::npos);
      CHECK(j->at("excluded_offences").at("2") == "committee-missing");
    }
    CHECK(s.coordinator.at("counted") == 2);
    check_honest_served(d, s, 2, -1);
    // The coordinator closes the committee's round once the log names the killed member, not at
    // its time limit (4 × 8 s here).
    const std::string log = slurp_file(d.path / "coordinator.err");
    CHECK(log.find("round 11 (committee) closed: 2/3 parties finished it (the committee's log names the others)") !=
          std::string::npos);
    CHECK(log.find("time limit reached") == std::string::npos);
  }
}

TEST_CASE("gopa run --neighbors: σ_Δ is planned for the k used, or the run is refused", "[cli][run][privacy]") {
  TempDir d;
  // k = 1: a disconnected honest subgraph is far too likely for δ; refused, nothing written.
  auto r1 = gopa("run --parties 20 --neighbors 1 --board n1.db 2>&1", d.path);
  CHECK(r1.code == 3);
  CHECK(r1.out.find("--neighbors 1: P(honest subgraph disconnected)") != std::string::npos);
  CHECK_FALSE(fs::exists(d.path / "n1.db"));
  // k = 3 without colluders: planned and certified at k = 3 (the planner alone would pick 2).
  auto r3 = gopa("run --parties 20 --honest-fraction 1 --neighbors 3 --board n3.db --json", d.path);
  REQUIRE(r3.code == 0);
  const auto j = nlohmann::json::parse(r3.out);
  CHECK(j.at("k") == 3);
  const auto& c = j.at("privacy_claim");
  CHECK(c.at("certified") == true);
  CHECK(c.at("k") == 3);
  CHECK(c.at("sigma_delta") == j.at("sigma_delta"));
  CHECK(c.at("sigma_eta") == j.at("sigma_eta"));
  CHECK(c.at("epsilon").get<double>() <= 1.0);
  CHECK(c.at("delta") == 1e-5);
  CHECK(c.at("sampled_graphs") == 32);
  CHECK(c.at("sampled_failure_upper_95").get<double>() == Approx(1.0 - std::pow(0.05, 1.0 / 32)));
  const std::string text = j.at("privacy");
  CHECK(text.find("k=3 graphs") != std::string::npos);
  CHECK(text.find("k=2") == std::string::npos);
  // Graph failure is part of δ.
  CHECK(c.at("graph_failure").get<double>() > 0.0);
  CHECK(c.at("delta_accountant").get<double>() + c.at("graph_failure").get<double>() == Approx(1e-5));
  CHECK(text.find("P(honest subgraph disconnected, union bound over 4 draws colluders could pick from)") != std::string::npos);
  CHECK(text.find("NO party colludes") != std::string::npos);
}

TEST_CASE("gopa run --dim: the claim covers the whole vector; the default assumes half the parties collude",
          "[cli][run][privacy]") {
  TempDir d;
  auto r1 = gopa("run --parties 12 --board d1.db --json", d.path);
  auto r4 = gopa("run --parties 12 --dim 4 --board d4.db --json", d.path);
  REQUIRE(r1.code == 0);
  REQUIRE(r4.code == 0);
  const auto j1 = nlohmann::json::parse(r1.out);
  const auto j4 = nlohmann::json::parse(r4.out);
  const auto& c1 = j1.at("privacy_claim");
  const auto& c4 = j4.at("privacy_claim");
  for (const auto* c : {&c1, &c4}) {
    CHECK(c->at("neighbouring_relation") == "replace-one");
    CHECK(c->at("honest_fraction") == 0.5);
    CHECK(c->at("colluders") == 6);
    CHECK(c->at("certified") == true);
    CHECK(c->at("epsilon").get<double>() <= 1.0);
  }
  // L2 sensitivity of a vector in [0, 1]^4 under replace-one: 2; σ planned for it.
  CHECK(c1.at("sensitivity") == 1.0);
  CHECK(c4.at("sensitivity") == 2.0);
  CHECK(c4.at("dim") == 4);
  CHECK(j4.at("sigma_eta").get<double>() == Approx(2.0 * j1.at("sigma_eta").get<double>()));
  CHECK(c4.at("epsilon_per_coordinate").get<double>() < c4.at("epsilon").get<double>());
  const std::string text = j4.at("privacy");
  CHECK(text.find("whole input") != std::string::npos);
  CHECK(text.find("L2 sensitivity M·√d = 2") != std::string::npos);
  CHECK(text.find("at most 6 of the 12 parties collude") != std::string::npos);
}

TEST_CASE("gopa run --noise hidden: a committee too small for δ is refused", "[cli][run][privacy]") {
  TempDir d;
  // n = 100, half colluding: all 5 members collude with probability 0.028 per draw, far above δ.
  auto r = gopa("run --parties 100 --noise hidden --committee 5 --board h.db 2>&1", d.path);
  CHECK(r.code == 3);
  // Over the 4 draws colluders can pick from (3 randomness restarts): 0.113.
  CHECK(r.out.find("--committee 5: P(all members collude) = 0.113 (over 4 possible draws)") != std::string::npos);
  CHECK(r.out.find("use --committee 18 or more") != std::string::npos);
  CHECK_FALSE(fs::exists(d.path / "h.db"));
}

TEST_CASE("gopa plan: the neighbouring relation, the default honest fraction and graph failure in δ", "[cli][plan]") {
  TempDir d;
  auto r = gopa("plan --parties 60 --trials 20 --json", d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("request").at("honest_fraction") == 0.5);
  CHECK(j.at("neighbouring_relation") == "replace-one");
  // --delta is the total: the accountant plans with 9/10 of it, the graph's failure fits the rest.
  CHECK(j.at("request").at("delta") == 1e-5);
  CHECK(j.at("delta_accountant").get<double>() == Approx(0.9e-5));
  CHECK(j.at("disconnect_probability_bound").get<double>() <= 1e-6);
  CHECK(j.at("delta_with_graph_failure").get<double>() ==
        Approx(0.9e-5 + j.at("disconnect_probability_bound").get<double>()));
  CHECK(j.at("delta_with_graph_failure").get<double>() <= 1e-5);
  CHECK(j.at("privacy_claim").at("delta").get<double>() <= 1e-5);
  auto t = gopa("plan --parties 60 --trials 20 --honest-fraction 1", d.path);
  REQUIRE(t.code == 0);
  CHECK(t.out.find("ASSUMES NO COLLUDING PARTIES") != std::string::npos);
  // Never "found" over the target: at n = 1,000 the plan used to pick a k whose graph failure
  // alone brought the total to 1.22e-5. Now k is at least what δ/10 allows, and a k fixed below
  // that is refused with the reason.
  auto big = gopa("plan --parties 1000 --trials 4 --pilot-trials 2 --json", d.path);
  REQUIRE(big.code == 0);
  const auto jb = nlohmann::json::parse(big.out);
  CHECK(jb.at("found") == true);
  CHECK(jb.at("delta_with_graph_failure").get<double>() <= 1e-5);
  const auto k = jb.at("k").get<int>();
  auto low = gopa("plan --parties 1000 --trials 4 --pilot-trials 2 --neighbors " + std::to_string(k - 1) + " --json",
                  d.path);
  CHECK(low.code == 1);
  const auto jl = nlohmann::json::parse(low.out);
  CHECK(jl.at("found") == false);
  CHECK(jl.at("privacy_claim").at("certified") == false);
  CHECK(jl.at("why").get<std::string>().find("exceeds delta/10") != std::string::npos);
}

TEST_CASE("gopa party refuses a session with tiny noise: exit code 3, says why", "[cli][party][privacy]") {
  TempDir d;
  std::string g = "'";
  g += gopa_test_binary();
  g += "'";
  for (const char* k : {"k0", "k1"}) REQUIRE(gopa(std::string("keys --out ") + k + ".json > /dev/null", d.path).code == 0);
  {
    std::ofstream sh(d.path / "weak.sh");
    sh << "cat k0.json.pub k1.json.pub > roster.jsonl\n"
       << g << " board serve --db board.db --listen 127.0.0.1:0 > serve.out 2> serve.err &\n"
       << "SERVER=$!\n"
       << "for i in $(seq 1 100); do grep -q '^vkey ' serve.out 2>/dev/null && break; sleep 0.1; done\n"
       << "URL=$(sed -n 's/^serving //p' serve.out)\n"
       << "VKEY=$(sed -n 's/^vkey //p' serve.out)\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties 2 --sigma-eta 0.0001"
       << " --sigma-delta 0.0001 --neighbors 1 --round-timeout-ms 60000 > coordinator.out 2> coordinator.err &\n"
       << "COORD=$!\n"
       << g << " party --board \"$URL\" --board-key \"$VKEY\" --id 0 --keys k0.json --input 0.36 > party0.out 2> party0.err\n"
       << "echo $? > party0.rc\n"
       << g << " party --board \"$URL\" --board-key \"$VKEY\" --id 1 --keys k1.json --input 0.36 --epsilon 1e5"
       << " --honest-fraction 1 > party1.out 2> party1.err\n"
       << "echo $? > party1.rc\n"
       << "kill $COORD $SERVER 2>/dev/null\n"
       << "wait\n";
  }
  const std::string cmd = "cd '" + d.path.string() + "' && bash weak.sh";
  REQUIRE(std::system(cmd.c_str()) != -1);
  auto slurp = [&](const char* name) {
    std::ifstream f(d.path / name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  CHECK(slurp("party0.rc") == "3\n");
  const std::string why0 = slurp("party0.err");
  INFO(why0);
  CHECK(why0.find("do not meet this party's requirement") != std::string::npos);
  CHECK(why0.find("required 1 ") != std::string::npos);
  CHECK(why0.find("sigma_eta = 0.0001") != std::string::npos);
  // Even a party that accepts ε up to 10^5 and assumes no colluders refuses: the inputs would be
  // all but in the clear.
  CHECK(slurp("party1.rc") == "3\n");
  const std::string why1 = slurp("party1.err");
  INFO(why1);
  CHECK(why1.find("certified epsilon = unbounded") != std::string::npos);
  CHECK(slurp("party0.out").empty());
}

TEST_CASE("gopa coordinate with planned parameters: parties with the default requirement take part", "[cli][party][privacy]") {
  // The coordinator's claim and the parties' check are the same certificate (same graphs, seeded
  // by the session id), so parameters planned for the defaults (ε = 1, δ = 1e-5, ρ = 0.5) pass
  // every default party's check.
  TempDir d;
  std::string g = "'";
  g += gopa_test_binary();
  g += "'";
  const int n = 6;
  for (int i = 0; i < n; ++i) {
    REQUIRE(gopa("keys --out k" + std::to_string(i) + ".json > /dev/null", d.path).code == 0);
  }
  {
    std::ofstream sh(d.path / "planned.sh");
    sh << "set -e\n"
       << "cat k0.json.pub k1.json.pub k2.json.pub k3.json.pub k4.json.pub k5.json.pub > roster.jsonl\n"
       << serve_board(g)
       << "PIDS=\"\"\n"
       << "for i in 0 1 2 3 4 5; do\n"
       << "  " << g << " party --board \"$URL\" --board-key \"$VKEY\" --id $i --keys k$i.json --input 0.5 --json"
       << " > party$i.json 2> party$i.err &\n"
       << "  PIDS=\"$PIDS $!\"\n"
       << "done\n"
       << g << " coordinate --board \"$URL\" --board-key \"$VKEY\" --roster roster.jsonl --parties 6 --sampler clt"
       << " --sampler-precision 12 --json > coordinator.json 2> coordinator.err\n"
       << "for p in $PIDS; do wait $p; done\n";
  }
  const std::string cmd = "cd '" + d.path.string() + "' && bash planned.sh";
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const auto jc = nlohmann::json::parse(std::ifstream(d.path / "coordinator.json"));
  CHECK(jc.at("counted") == n);
  const auto& c = jc.at("privacy_claim");
  CHECK(c.at("certified") == true);
  CHECK(c.at("epsilon").get<double>() <= 1.0);
  CHECK(c.at("honest_fraction") == 0.5);
  CHECK(c.at("neighbouring_relation") == "replace-one");
  for (int i = 0; i < n; ++i) {
    const auto jp = nlohmann::json::parse(std::ifstream(d.path / ("party" + std::to_string(i) + ".json")));  // NOLINT
    CHECK(jp.at("counted_me") == true);
    // Each party certified the posted parameters itself and found what the coordinator printed.
    CHECK(jp.at("privacy_claim").at("epsilon") == c.at("epsilon"));
    CHECK(jp.at("privacy_claim").at("seed") == c.at("seed"));
    CHECK(jp.at("privacy") == jc.at("privacy"));
  }
}

TEST_CASE("gopa help and gopa version", "[cli]") {
  TempDir d;
  auto h = gopa("help", d.path);
  CHECK(h.code == 0);
  CHECK(h.out == gopa("--help", d.path).out);
  for (const char* sub : {"run", "audit", "board", "help", "version"}) CHECK(h.out.find(sub) != std::string::npos);
  auto hr = gopa("help run", d.path);
  CHECK(hr.code == 0);
  CHECK(hr.out == gopa("run --help", d.path).out);
  CHECK(hr.out.find("--inputs") != std::string::npos);
  auto hc = gopa("help board check", d.path);
  CHECK(hc.code == 0);
  CHECK(hc.out == gopa("board check --help", d.path).out);
  CHECK(gopa("help no-such-command 2>/dev/null", d.path).code == 3);
  auto v = gopa("version", d.path);
  CHECK(v.code == 0);
  CHECK(v.out == gopa("--version", d.path).out);
  INFO(v.out);
  REQUIRE(v.out.rfind("gopa ", 0) == 0);
  // "gopa X.Y.Z (commit <40 hex digits or unknown>)"
  const auto at = v.out.find(" (commit ");
  REQUIRE(at != std::string::npos);
  const std::string commit = v.out.substr(at + 9, v.out.find(')', at) - at - 9);
  const bool hex40 = commit.size() == 40 && commit.find_first_not_of("0123456789abcdef") == std::string::npos;
  CHECK((hex40 || commit == "unknown"));
}

TEST_CASE("gopa run/coordinate: conflicting or partial options are refused with exit code 3", "[cli][run]") {
  TempDir d;
  auto refused = [&](const std::string& args, const std::string& says) {
    INFO(args);
    auto r = gopa(args + " 2>&1", d.path);
    CHECK(r.code == 3);
    INFO(r.out);
    CHECK(r.out.find(says) != std::string::npos);
  };
  refused("run --parties 4 --sigma-eta 0.1 --board x.db", "--sigma-eta: give --sigma-delta too");
  refused("run --parties 4 --sigma-delta 5 --board x.db", "--sigma-delta: give --sigma-eta too");
  refused("run --parties 4 --sigma-eta -1 --sigma-delta 5 --board x.db", "--sigma-eta: must be finite and > 0");
  refused("run --parties 4 --sigma-eta 0 --sigma-delta 5 --board x.db", "--sigma-eta: must be finite and > 0");
  refused("run --parties 4 --sigma-eta 0.1 --sigma-delta -5 --board x.db", "--sigma-delta: must be finite and > 0");
  refused("run --parties 4 --epsilon 2 --sigma-eta 0.1 --sigma-delta 5 --board x.db", "--epsilon: not with --sigma-eta");
  refused("run --parties 4 --committee 3 --board x.db", "--committee: only with --noise hidden");
  refused("coordinate --board http://127.0.0.1:1 --board-key x --roster r.jsonl --parties 2 --sigma-eta 1",
          "--sigma-eta: give --sigma-delta too");
  refused("coordinate --board http://127.0.0.1:1 --board-key x --roster r.jsonl --parties 2 --committee 2",
          "--committee: only with --noise hidden");
  CHECK_FALSE(fs::exists(d.path / "x.db"));
  // Both σ's by hand at a chosen δ still run.
  CHECK(gopa("run --parties 3 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --delta 1e-3 --board ok.db --json > /dev/null",
             d.path).code == 0);
  auto b = gopa("bench proofs --json --csv 2>&1", d.path);
  CHECK(b.code == 3);
  CHECK(b.out.find("excludes") != std::string::npos);
  CHECK(gopa("bench proofs --ranges-only --circuits-only 2>/dev/null", d.path).code == 3);
}

TEST_CASE("gopa prove range --out never overwrites; board_load --help prints help", "[cli][sigma]") {
  TempDir d;
  std::ofstream(d.path / "keep.json") << "precious\n";
  auto r = gopa("prove range --bits 8 --values 1 --out keep.json 2>&1", d.path);
  CHECK(r.code == 3);
  CHECK(r.out.find("already exists") != std::string::npos);
  CHECK(slurp_file(d.path / "keep.json") == "precious\n");
  REQUIRE(gopa("prove range --bits 8 --values 1 --out new.json > /dev/null", d.path).code == 0);
  const std::string first = slurp_file(d.path / "new.json");
  CHECK(gopa("prove range --bits 8 --values 2 --out new.json 2>/dev/null", d.path).code == 3);
  CHECK(slurp_file(d.path / "new.json") == first);
  for (const auto& e : fs::directory_iterator(d.path)) {
    CHECK(e.path().filename().string().find(".tmp") == std::string::npos);  // no temporary file left
  }
  if (*gopa_test_board_load_binary() != '\0') {  // "" in a build without benchmarks
    const std::string cmd = "cd '" + d.path.string() + "' && timeout 20 '" + gopa_test_board_load_binary() + "' --help";
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p != nullptr);
    std::string out;
    char buf[4096];
    std::size_t n = 0;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int status = pclose(p);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(out.rfind("usage: board_load", 0) == 0);
    CHECK(out.find("--check-entries E") != std::string::npos);
    CHECK(out.find("acknowledged appends") == std::string::npos);  // the help, not the load test's report
    CHECK(out.find("check: ") == std::string::npos);
  }
}

TEST_CASE("The board and its vkey from GOPA_BOARD, GOPA_BOARD_KEY or --board-key @FILE; the command line wins",
          "[cli][board]") {
  TempDir d;
  // Two boards and their vkeys, each in a file.
  auto k1 = gopa("board key --db one.db --origin one.example/gopa", d.path);
  auto k2 = gopa("board key --db two.db --origin two.example/gopa", d.path);
  REQUIRE(k1.code == 0);
  REQUIRE(k2.code == 0);
  std::ofstream(d.path / "one.vkey") << k1.out;  // with its newline
  std::ofstream(d.path / "two.vkey") << k2.out;
  std::ofstream(d.path / "bad.vkey") << "not a vkey\n";
  CHECK(gopa("board check --board one.db --key @one.vkey > /dev/null", d.path).code == 0);
  CHECK(gopa("board check --board one.db --board-key @one.vkey > /dev/null", d.path).code == 0);
  CHECK(gopa("board check --board one.db --key @two.vkey > /dev/null", d.path).code != 0);  // the file's key is pinned
  CHECK(gopa("board check --board one.db --key @bad.vkey 2>/dev/null >/dev/null", d.path).code == 3);
  CHECK(gopa("board check --board one.db --key @missing.vkey 2>/dev/null >/dev/null", d.path).code == 3);
  CHECK(gopa_env("GOPA_BOARD=one.db GOPA_BOARD_KEY=@one.vkey", "board check > /dev/null", d.path).code == 0);
  CHECK(gopa_env("GOPA_BOARD=one.db GOPA_BOARD_KEY=@two.vkey", "board check > /dev/null", d.path).code != 0);
  // The command line wins over the environment.
  CHECK(gopa_env("GOPA_BOARD=two.db GOPA_BOARD_KEY=@two.vkey", "board check --board one.db --key @one.vkey > /dev/null",
                 d.path).code == 0);
  // gopa audit: the board from GOPA_BOARD, a bad key from the environment refused.
  REQUIRE(gopa("run --parties 3 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board r.db > /dev/null", d.path).code == 0);
  CHECK(gopa_env("GOPA_BOARD=r.db", "audit > /dev/null", d.path).code == 0);
  CHECK(gopa_env("GOPA_BOARD=missing.db", "audit --board r.db > /dev/null", d.path).code == 0);
  CHECK(gopa_env("GOPA_BOARD_KEY=@bad.vkey", "audit --board r.db 2>/dev/null >/dev/null", d.path).code == 3);
  // gopa party and gopa coordinate take both from the environment (then fail to reach the board: 4),
  // and require them without it (3).
  REQUIRE(gopa("keys --out k0.json > /dev/null", d.path).code == 0);
  REQUIRE(gopa("keys --out k1.json > /dev/null", d.path).code == 0);
  {
    std::ofstream(d.path / "roster.jsonl") << slurp_file(d.path / "k0.json.pub") << slurp_file(d.path / "k1.json.pub");
  }
  const std::string env = "GOPA_BOARD=http://127.0.0.1:1 GOPA_BOARD_KEY=@one.vkey";
  CHECK(gopa_env(env, "party --id 0 --keys k0.json --input 0.5 2>/dev/null", d.path).code == 4);
  CHECK(gopa("party --id 0 --keys k0.json --input 0.5 2>/dev/null", d.path).code == 3);
  CHECK(gopa_env(env, "coordinate --roster roster.jsonl --sigma-eta 1 --sigma-delta 1 --neighbors 1 2>/dev/null", d.path).code == 4);
  CHECK(gopa("coordinate --roster roster.jsonl --sigma-eta 1 --sigma-delta 1 --neighbors 1 2>/dev/null", d.path).code == 3);
  CHECK(gopa("party --board http://127.0.0.1:1 --board-key @bad.vkey --id 0 --keys k0.json --input 0.5 2>/dev/null", d.path)
            .code == 3);
}

TEST_CASE("gopa run --inputs: a header row is read as such and the CSV fixes --parties; so does the roster",
          "[cli][run]") {
  TempDir d;
  std::ofstream(d.path / "h.csv") << "temperature,humidity\n0.1,0.5\n0.3,0.5\n0.5,0.5\n0.7,0.5\n";
  auto r = gopa("run --inputs h.csv --dim 2 --sigma-eta 0.001 --sigma-delta 5 --neighbors 2 --board h.db --json 2>h.err",
                d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("parties") == 4);
  CHECK(j.at("counted") == 4);
  CHECK(j.at("inputs_header") == nlohmann::json::array({"temperature", "humidity"}));
  CHECK(std::fabs(j.at("estimate")[0].get<double>() - 0.4) < 0.01);
  CHECK(slurp_file(d.path / "h.err").empty());  // --json: the header is in inputs_header, stderr stays quiet
  // --parties, if given, must match the CSV; without --json the header is reported on stderr.
  CHECK(gopa("run --inputs h.csv --dim 2 --parties 4 --sigma-eta 0.001 --sigma-delta 5 --neighbors 2 --board h4.db"
             " > /dev/null 2> h4.err",
             d.path).code == 0);
  CHECK(slurp_file(d.path / "h4.err").find("header row (temperature,humidity)") != std::string::npos);
  auto m = gopa("run --inputs h.csv --dim 2 --parties 5 --board h5.db 2>&1", d.path);
  CHECK(m.code == 3);
  CHECK(m.out.find("4 rows for 5 parties") != std::string::npos);
  CHECK_FALSE(fs::exists(d.path / "h5.db"));
  // A non-numeric cell after the first row is still an error; so is a header of the wrong width.
  std::ofstream(d.path / "late.csv") << "0.1\n0.2\nx\n";
  CHECK(gopa("run --inputs late.csv --board l.db 2>/dev/null", d.path).code == 3);
  std::ofstream(d.path / "wide.csv") << "a,b\n0.1\n0.2\n";
  CHECK(gopa("run --inputs wide.csv --board w.db 2>/dev/null", d.path).code == 3);
  // Without a CSV, --parties is required.
  auto np = gopa("run --board np.db 2>&1", d.path);
  CHECK(np.code == 3);
  CHECK(np.out.find("--parties: required without --inputs") != std::string::npos);
  // gopa coordinate: the roster fixes --parties; a different --parties is refused.
  REQUIRE(gopa("keys --out k0.json > /dev/null", d.path).code == 0);
  REQUIRE(gopa("keys --out k1.json > /dev/null", d.path).code == 0);
  std::ofstream(d.path / "roster.jsonl") << slurp_file(d.path / "k0.json.pub") << slurp_file(d.path / "k1.json.pub");
  auto board = gopa("board key --db c.db", d.path);
  REQUIRE(board.code == 0);
  std::ofstream(d.path / "c.vkey") << board.out;
  // Without --parties: planned for the roster's 2 parties, then the (absent) board is unreachable.
  CHECK(gopa("coordinate --board http://127.0.0.1:1 --board-key @c.vkey --roster roster.jsonl --sigma-eta 1"
             " --sigma-delta 1 --neighbors 1 2>/dev/null",
             d.path).code == 4);
  auto cm = gopa("coordinate --board http://127.0.0.1:1 --board-key @c.vkey --roster roster.jsonl --parties 3 2>&1", d.path);
  CHECK(cm.code == 3);
  CHECK(cm.out.find("2 parties listed but --parties is 3") != std::string::npos);
}

TEST_CASE("Exit codes: the same cause gives the same code in every subcommand", "[cli][board]") {
  TempDir d;
  REQUIRE(gopa("run --parties 3 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board r.db > /dev/null", d.path).code == 0);
  std::ofstream(d.path / "text.db") << "this is not a database\n";
  REQUIRE(gopa("keys --out k0.json > /dev/null", d.path).code == 0);
  std::ofstream(d.path / "roster.jsonl") << slurp_file(d.path / "k0.json.pub") << slurp_file(d.path / "k0.json.pub");
  auto code = [&](const std::string& args) {
    const int c = gopa(args + " > /dev/null 2>&1", d.path).code;
    INFO(args << " → " << c);
    return c;
  };
  // 0: verified, in both auditors.
  CHECK(code("audit --board r.db") == 0);
  CHECK(code("board check --board r.db") == 0);
  // 0: a party that dropped out before publishing anything did not misbehave (all checks pass).
  CHECK(code("run --parties 6 --dropouts 1 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board drop.db") == 0);
  CHECK(code("audit --board drop.db") == 0);
  auto dropped = nlohmann::json::parse(gopa("audit --board drop.db --json", d.path).out);
  CHECK(dropped.at("excluded").size() == 1);  // still named, with its reason
  for (const auto& [party, offence] : dropped.at("excluded_offences").items()) CHECK(offence == "dropout");
  // 1: a cheater, in run and audit.
  CHECK(code("run --parties 6 --cheat output:1 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board cheat.db") == 1);
  CHECK(code("audit --board cheat.db") == 1);
  // 3: a missing board file.
  CHECK(code("audit --board missing.db") == 3);
  CHECK(code("board check --board missing.db") == 3);
  CHECK_FALSE(fs::exists(d.path / "missing.db"));
  // 3: a text file given as a board.
  CHECK(code("audit --board text.db") == 3);
  CHECK(code("board check --board text.db") == 3);
  // 3: a malformed vkey, wherever one is taken.
  CHECK(code("audit --board http://127.0.0.1:1 --board-key not-a-vkey") == 3);
  CHECK(code("board check --board http://127.0.0.1:1 --key not-a-vkey") == 3);
  CHECK(code("board check --board r.db --key not-a-vkey") == 3);
  CHECK(code("party --board http://127.0.0.1:1 --board-key not-a-vkey --id 0 --keys k0.json --input 0.5") == 3);
  CHECK(code("coordinate --board http://127.0.0.1:1 --board-key not-a-vkey --roster roster.jsonl") == 3);
  // 4: a board that cannot be reached (with a well-formed vkey).
  const std::string vkey = gopa("board key --db v.db", d.path).out;
  REQUIRE_FALSE(vkey.empty());
  std::ofstream(d.path / "v.vkey") << vkey;
  CHECK(code("audit --board http://127.0.0.1:1 --board-key @v.vkey") == 4);
  CHECK(code("board check --board http://127.0.0.1:1 --key @v.vkey") == 4);
  CHECK(code("party --board http://127.0.0.1:1 --board-key @v.vkey --id 0 --keys k0.json --input 0.5") == 4);
  // 3: an unknown option or a missing required one, in every subcommand.
  for (const char* sub : {"run", "audit", "party", "coordinate", "keys", "board check", "plan", "prove range", "verify"}) {
    CHECK(code(std::string(sub) + " --no-such-option") == 3);
  }
}

TEST_CASE("gopa audit states the session, its parameters and what they certify, and says when it cuts a vector",
          "[cli][audit]") {
  TempDir d;
  auto r = gopa("run --parties 4 --dim 10 --sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 "
                "--board v.db --json",
                d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  auto a = gopa("audit --board v.db", d.path);
  CHECK(a.code == 0);
  CHECK(a.out.find("session " + j.at("session_id").get<std::string>()) != std::string::npos);
  CHECK(a.out.find("parties 4  dim 10  k 2") != std::string::npos);
  CHECK(a.out.find("privacy (from the posted parameters") != std::string::npos);
  CHECK(a.out.find("estimate[7]") != std::string::npos);
  CHECK(a.out.find("estimate[8]") == std::string::npos);
  CHECK(a.out.find("… (first 8 of 10 shown; --json for all)") != std::string::npos);
  auto aj = gopa("audit --board v.db --json", d.path);
  CHECK(aj.code == 0);
  const auto ja = nlohmann::json::parse(aj.out);
  CHECK(ja.at("schema") == "gopa-audit/v1");
  CHECK(ja.at("session_id") == j.at("session_id"));
  CHECK(ja.at("k") == 2);
  CHECK(ja.at("estimate").size() == 10);
  CHECK(ja.at("privacy_claim").at("k") == 2);
  CHECK(ja.at("privacy_claim").contains("epsilon"));
}

TEST_CASE("gopa run --input-domain l2-ball: signed CSV rows in the ball, the claim's sensitivity 2C, rows outside "
          "refused, a cheater named",
          "[cli][run][ball]") {
  TempDir d;
  {
    std::ofstream f(d.path / "ball.csv");
    f << "g0,g1,g2\n-0.6,0.8,0\n0.3,-0.4,0.5\n0,0,-1\n0.1,0.2,-0.2\n";
    std::ofstream g(d.path / "outside.csv");
    g << "-0.6,0.8,0\n0.3,-0.4,0.5\n0.6,0.81,0\n0.1,0.2,-0.2\n";
  }
  auto r = gopa("run --input-domain l2-ball --input-max 1 --dim 3 --inputs ball.csv --board b.db "
                "--sigma-eta 0.001 --sigma-delta 5 --neighbors 2 --json 2>/dev/null",
                d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("input_domain") == "l2-ball");
  const std::vector<double> mean = {(-0.6 + 0.3 + 0 + 0.1) / 4, (0.8 - 0.4 + 0 + 0.2) / 4, (0 + 0.5 - 1 - 0.2) / 4};
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(std::fabs(j.at("estimate")[k].get<double>() - mean[k]) < 0.01);
    CHECK(j.at("true_mean")[k].get<double>() == Approx(mean[k]));
  }
  const auto& claim = j.at("privacy_claim");
  CHECK(claim.at("input_domain") == "l2-ball");
  CHECK(claim.at("sensitivity") == 2.0);
  auto a = gopa("audit --board b.db --json", d.path);
  CHECK(a.code == 0);

  // A row outside the ball is refused before anything is written, naming the row and its norm.
  auto o = gopa("run --input-domain l2-ball --dim 3 --inputs outside.csv --board o.db 2>&1", d.path);
  CHECK(o.code == 3);
  CHECK(o.out.find("outside.csv:3 (party 2): ‖x‖₂ = 1.00802 exceeds the L2 ball's radius C = 1") != std::string::npos);
  CHECK_FALSE(fs::exists(d.path / "o.db"));
  // Unknown domains and radii too large for the ball's proof are refused.
  CHECK(gopa("run --parties 4 --input-domain sphere --board x.db 2>/dev/null", d.path).code == 3);
  CHECK(gopa("run --parties 4 --input-domain l2-ball --input-max 40000 --board x.db 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "x.db"));

  // Simulated inputs in the ball, planned parameters, a party outside the ball: excluded and
  // named, the audit agrees; the claim is for the ball (2C, whatever d).
  const auto [jc, ja] = run_and_audit(d, "--input-domain l2-ball --parties 12 --dim 4 --cheat range:1", "c.db", 1);
  for (const auto& [party, why] : jc.at("excluded").items()) {
    CHECK(why.get<std::string>().find("input outside the L2 ball of radius C = 1") != std::string::npos);
    CHECK(jc.at("excluded_offences").at(party) == "range");
  }
  CHECK(jc.at("privacy_claim").at("sensitivity") == 2.0);
  CHECK(jc.at("privacy_claim").at("certified") == true);
  const std::string text = jc.at("privacy");
  CHECK(text.find("L2 ball ‖x‖₂ ≤ C = 1 replaced by another, L2 sensitivity 2C = 2") != std::string::npos);
}

TEST_CASE("gopa run --cheat withhold: the randomness restarts without the withholders, or ends without a result",
          "[cli][run][randomness]") {
  TempDir d;
  auto r = gopa("run --parties 10 --sigma-eta 0.01 --sigma-delta 20 --neighbors 3 --cheat withhold:2 --board w.db --json", d.path);
  CHECK(r.code == 1);
  auto j = nlohmann::json::parse(r.out);
  CHECK(j.at("randomness_restarts") == 2);
  for (const auto& [party, kind] : j.at("simulated").items()) {
    REQUIRE(j.at("excluded").contains(party));
    CHECK(j.at("excluded").at(party).get<std::string>().find("no randomness reveal") != std::string::npos);
    CHECK(j.at("excluded_offences").at(party) == "withheld-reveal");
  }
  CHECK(j.at("estimate").size() == 1);
  // One withholder more than --randomness-restarts allows: no result, nobody honest named.
  auto w = gopa("run --parties 10 --sigma-eta 0.01 --sigma-delta 20 --neighbors 3 --randomness-restarts 1 --cheat withhold:2 "
                "--board x.db --json",
                d.path);
  CHECK(w.code == 1);
  auto jw = nlohmann::json::parse(w.out);
  CHECK(jw.at("withheld").get<std::string>().find("lost a reveal in each of its 2 allowed attempts") != std::string::npos);
  CHECK(jw.at("estimate").empty());
  CHECK(jw.at("named").empty());
  auto a = gopa("audit --board x.db --json", d.path);
  CHECK(a.code == 1);
  CHECK(gopa("run --parties 4 --randomness-restarts 9 2>/dev/null", d.path).code == 3);
}

namespace {
// The shared conventions of every --json report (docs/cli-json.md): a schema name, and the same
// names for the same things (`checks` entries with `name`, `excluded`/`named` parties, `k`,
// `committee`, numeric privacy fields) — the older names appear nowhere.
void check_report(const nlohmann::json& j, const std::string& schema) {
  INFO(schema);
  REQUIRE(j.is_object());
  REQUIRE(j.contains("schema"));
  CHECK(j.at("schema") == schema);
  // Walks every object in the report.
  std::vector<const nlohmann::json*> todo{&j};
  while (!todo.empty()) {
    const nlohmann::json* at = todo.back();
    todo.pop_back();
    if (at->is_object()) {
      for (const auto& [key, value] : at->items()) {
        INFO("key " << key);
        for (const char* old : {"neighbors", "deviating", "misbehaving", "members", "check"}) CHECK(key != old);
        todo.push_back(&value);
      }
    } else if (at->is_array()) {
      for (const auto& value : *at) todo.push_back(&value);
    }
  }
  if (j.contains("checks")) {
    REQUIRE(j.at("checks").is_array());
    for (const auto& c : j.at("checks")) {
      CHECK(c.at("name").is_string());
      CHECK(c.at("status").is_string());
      CHECK(c.at("detail").is_string());
    }
  }
  for (const char* parties : {"excluded", "named"}) {
    if (!j.contains(parties)) continue;
    REQUIRE(j.at(parties).is_object());
    for (const auto& [u, why] : j.at(parties).items()) {
      CHECK(u.find_first_not_of("0123456789") == std::string::npos);
      CHECK(why.is_string());
    }
    // Beside each, the same parties' offence tokens (docs/protocol.md § Blame).
    static const std::set<std::string> tokens = {
        "malformed", "misplaced", "no-randomness-commit", "withheld-reveal", "false-randomness-reveal",
        "no-sealed-seed", "false-seed-reveal", "neighbours", "range", "unsettled", "cancel", "noise", "noise-share",
        "committee", "committee-missing", "output", "dropout", "no-masked-value"};
    const std::string offences = std::string(parties) + "_offences";
    REQUIRE(j.contains(offences));
    REQUIRE(j.at(offences).is_object());
    CHECK(j.at(offences).size() == j.at(parties).size());
    for (const auto& [u, offence] : j.at(offences).items()) {
      CHECK(j.at(parties).contains(u));
      REQUIRE(offence.is_string());
      CHECK(tokens.count(offence.get<std::string>()) == 1);
    }
  }
  if (j.contains("privacy_claim")) {
    const auto& c = j.at("privacy_claim");
    CHECK(c.at("certified").is_boolean());
    CHECK((c.at("epsilon").is_number() || c.at("epsilon").is_null()));
    for (const char* number : {"delta_accountant", "sigma_eta", "sigma_delta", "honest_fraction", "sensitivity"}) {
      INFO(number);
      CHECK(c.at(number).is_number());
    }
    CHECK((c.at("delta").is_number() || c.at("delta").is_null()));
    CHECK(c.at("k").is_number_unsigned());
    CHECK(c.at("neighbouring_relation") == "replace-one");
  }
}
}  // namespace

TEST_CASE("Every --json report parses, names its schema and uses the shared names; stderr stays quiet", "[cli][json]") {
  TempDir d;
  // Runs `gopa ARGS --json` expecting exit code `code` and nothing on stderr; returns the report.
  auto report = [&](const std::string& args, int code, const std::string& schema) {
    INFO(args);
    auto r = gopa(args + " 2> json.err", d.path);
    CHECK(r.code == code);
    CHECK(slurp_file(d.path / "json.err").empty());
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    check_report(j, schema);
    return j;
  };
  const auto run = report("run --parties 6 --dim 2 --cheat output:1 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2"
                          " --board r.db --json",
                          1, "gopa-run/v1");
  CHECK(run.at("k") == 2);
  CHECK(run.at("excluded").size() == 1);
  CHECK(run.at("excluded_offences").begin().value() == "output");
  CHECK(run.at("simulated").size() == 1);
  CHECK(run.at("privacy_claim").at("k") == 2);
  CHECK_FALSE(run.at("checks").empty());
  const auto audit = report("audit --board r.db --json", 1, "gopa-audit/v1");
  CHECK(audit.at("k") == 2);
  CHECK(audit.at("excluded") == run.at("excluded"));
  CHECK(audit.at("excluded_offences") == run.at("excluded_offences"));
  CHECK(audit.at("named").empty());
  CHECK(audit.at("privacy_claim").at("sigma_eta") == run.at("sigma_eta"));
  const auto check = report("board check --board r.db --json", 0, "gopa-board-check/v1");
  CHECK_FALSE(check.at("checks").empty());
  const auto plan = report("plan --parties 30 --trials 10 --json", 0, "gopa-plan/v1");
  CHECK(plan.at("privacy_claim").at("k") == plan.at("k"));
  CHECK(plan.at("privacy_claim").at("epsilon") == 1.0);
  CHECK(plan.at("privacy_claim").at("honest_fraction") == 0.5);
  const auto sim = report("simulate --parties 30 --neighbors 3 --sigma-ratio 10 --epsilon-range 1 --repetitions 5 --json", 0,
                          "gopa-simulate/v1");
  CHECK(sim.at("k") == 3);
  report("bench proofs --reps 1 --batch 2 --max-d 1 --ranges-only --json", 0, "gopa-bench-proofs/v1");
  report("bench group --quick --json", 0, "gopa-bench-group/v1");
  report("bench gaussian --quick --samplers clt --precisions 8 --ref-samples 1000 --json", 0, "gopa-bench-gaussian/v1");
  const auto hidden = report("bench hidden --quick --paillier-bits 674 --json", 0, "gopa-bench-hidden/v1");
  CHECK(hidden.at("rows")[0].at("committee") == 3);
  // Progress is there when asked for (and without --json).
  CHECK(gopa("run --parties 4 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board p.db --json --progress 2> p.err > /dev/null",
             d.path).code == 0);
  CHECK(slurp_file(d.path / "p.err").find("gopa run: ") != std::string::npos);
  CHECK(gopa("run --parties 4 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board t.db 2> t.err > /dev/null", d.path).code == 0);
  CHECK(slurp_file(d.path / "t.err").find("gopa run: ") != std::string::npos);
  CHECK(gopa("plan --parties 30 --trials 10 --json --progress 2> plan.err > /dev/null", d.path).code == 0);
  CHECK_FALSE(slurp_file(d.path / "plan.err").empty());
}

TEST_CASE("The same option has the same name in every subcommand; older names still work and --help lists them",
          "[cli][options]") {
  TempDir d;
  auto json_of = [&](const std::string& args, int code = 0) {
    INFO(args);
    auto r = gopa(args + " 2>/dev/null", d.path);
    CHECK(r.code == code);
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    return j;
  };
  auto code = [&](const std::string& args) { return gopa(args + " > /dev/null 2>&1", d.path).code; };
  // -d is --dim wherever --dim exists (run and coordinate share the session options).
  CHECK(json_of("run --parties 4 -d 3 --sigma-eta 0.01 --sigma-delta 20 --neighbors 2 --board d.db --json").at("dim") == 3);
  CHECK(json_of("plan --parties 30 --trials 10 -d 4 --input-max 1 --json").at("request").at("dim") == 4);
  CHECK(code("plan --parties 30 --trials 10 -d 1e-5") == 3);  // not --delta
  // plan and simulate: --input-max M (L2 sensitivity M·√d, as gopa run plans); --sensitivity S,
  // the older option, gives S itself; not both.
  CHECK(json_of("plan --parties 30 --trials 10 -d 4 --input-max 1 --json").at("privacy_claim").at("sensitivity") == 2.0);
  CHECK(json_of("plan --parties 30 --trials 10 -d 4 --sensitivity 2 --json").at("privacy_claim").at("sensitivity") == 2.0);
  CHECK(json_of("plan --parties 30 --trials 10 --input-max 3 --json").at("request").at("sensitivity") == 3.0);
  CHECK(code("plan --parties 30 --trials 10 --input-max 1 --sensitivity 1") == 3);
  CHECK(code("plan --parties 30 --trials 10 --input-max 0") == 3);
  CHECK(json_of("simulate --parties 30 --neighbors 3 --sigma-ratio 10 --epsilon-range 1 --repetitions 5 --input-max 2 --json")
            .at("sensitivity") == 2.0);
  CHECK(code("simulate --parties 30 --epsilon-range 1 --input-max 1 --sensitivity 1") == 3);
  // --neighbors, and --k its older name, in plan and simulate.
  CHECK(json_of("plan --parties 30 --trials 10 --neighbors 12 --json").at("k") == 12);  // k >= 11 keeps the graph within δ/10
  CHECK(json_of("plan --parties 30 --trials 10 --k 12 --json").at("k") == 12);
  CHECK(json_of("simulate --parties 30 --k 3 --sigma-ratio 10 --epsilon-range 1 --repetitions 5 --json").at("k") == 3);
  // --board-key, and --key its older name, in board check.
  const std::string vkey = gopa("board key --db b.db", d.path).out;
  REQUIRE_FALSE(vkey.empty());
  std::ofstream(d.path / "b.vkey") << vkey;
  CHECK(code("board check --board b.db --board-key @b.vkey") == 0);
  CHECK(code("board check --board b.db --key @b.vkey") == 0);
  // --committee, and --members its older name, in bench hidden.
  CHECK(json_of("bench hidden --committee 2 --precisions 12 --paillier-bits 674 --json").at("rows")[0].at("committee") == 2);
  CHECK(json_of("bench hidden --members 2 --precisions 12 --paillier-bits 674 --json").at("rows")[0].at("committee") == 2);
  // --help lists every accepted name.
  auto help = [&](const std::string& cmd, std::initializer_list<const char*> names) {
    const std::string h = gopa(cmd + " --help", d.path).out;
    for (const char* n : names) {
      INFO(cmd << " --help: " << n);
      CHECK(h.find(n) != std::string::npos);
    }
  };
  help("run", {"-d,--dim", "--input-max", "--neighbors", "--progress"});
  help("coordinate", {"-d,--dim", "--input-max", "--neighbors", "--board-key", "--progress"});
  help("party", {"--board-key", "--progress"});
  help("audit", {"--board-key"});
  help("plan", {"-d,--dim", "--input-max", "--sensitivity", "--neighbors,--k", "--progress"});
  help("simulate", {"--input-max", "--sensitivity", "--neighbors,--k", "--progress"});
  help("board check", {"--board-key,--key"});
  help("bench hidden", {"--committee", "--members"});
}

TEST_CASE("gopa run says when it shows only the first 8 coordinates", "[cli][run]") {
  TempDir d;
  auto r = gopa("run --parties 4 --dim 10 --sigma-eta 0.05 --sigma-delta 20 --neighbors 2 --honest-fraction 1 --board v.db"
                " 2>/dev/null",
                d.path);
  CHECK(r.code == 0);
  CHECK(r.out.find("coordinate 7:") != std::string::npos);
  CHECK(r.out.find("coordinate 8:") == std::string::npos);
  CHECK(r.out.find("… (first 8 of 10 shown; --json for all)") != std::string::npos);
}

namespace {
// A small data set in sklearn's housing layout (count line, column names, MEDV last): label 1
// (MEDV > 21.2) when a + b/2 > 0.
void write_housing(const fs::path& dir) {
  std::ofstream f(dir / "boston_house_prices.csv");
  f << "40,3,,,\n\"A\",\"B\",\"C\",\"MEDV\"\n";
  std::uint64_t s = 12345;
  auto next = [&s] {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(s >> 11) * 0x1p-53 * 2.0 - 1.0;
  };
  for (int i = 0; i < 40; ++i) {
    const double a = next(), b = next(), c = next();
    f << a << ',' << b << ',' << c << ',' << (a + 0.5 * b > 0 ? 25 : 15) << '\n';
  }
}
}  // namespace

TEST_CASE("gopa train: every GOPA round is a session on one board, audited, with privacy composed", "[cli][train]") {
  TempDir d;
  write_housing(d.path);
  auto r = gopa("train --data-dir . --parties 8 --rounds 2 --honest-fraction 0.75 --board t.db --csv c.csv --seed 2 --json",
                d.path);
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  check_report(j, "gopa-train/v1");
  CHECK(j.at("dim") == 4);
  REQUIRE(j.at("methods").size() == 4);
  for (const auto& m : j.at("methods")) {
    INFO(m.at("name"));
    CHECK(m.at("curve").size() == 3);
    CHECK(m.at("simulated") == (m.at("name") == "central" || m.at("name") == "local"));
  }
  const auto& g = j.at("methods")[2];
  REQUIRE(g.at("name") == "gopa");
  REQUIRE(g.at("sessions").size() == 2);
  const auto& claim = g.at("privacy_claim");
  CHECK(claim.at("certified") == true);
  CHECK(claim.at("rounds") == 2);
  CHECK(claim.at("epsilon").get<double>() <= 1.0);
  CHECK(claim.at("neighbouring") == "replace-one");
  REQUIRE(j.at("audit").size() == 2);
  for (const auto& a : j.at("audit")) CHECK(a.at("passed") == true);
  // Non-private SGD learns the rule.
  CHECK(j.at("methods")[0].at("curve")[2].at("test_accuracy").get<double>() >= 0.75);
  // The CSV has a line per method and round; each session audits clean on its own.
  std::ifstream csv(d.path / "c.csv");
  std::string line;
  int lines = 0;
  while (std::getline(csv, line)) ++lines;
  CHECK(lines == 1 + 4 * 3);
  const std::string sid = g.at("sessions")[1];
  CHECK(gopa("audit --board t.db --session " + sid + " > /dev/null", d.path).code == 0);
  // An auditor re-derives the whole run's claim from the board alone.
  auto all = gopa("audit --board t.db --all --honest-fraction 0.75 --data-dir . --json", d.path);
  REQUIRE(all.code == 0);
  const auto ja = nlohmann::json::parse(all.out);
  check_report(ja, "gopa-audit/v1");
  REQUIRE(ja.at("sessions").size() == 2);
  for (const auto& s : ja.at("sessions")) CHECK(s.at("passed") == true);
  CHECK(ja.at("composed_claim").at("certified") == true);
  CHECK(ja.at("composed_claim").at("rounds") == 2);
  CHECK(ja.at("composed_claim").at("epsilon").get<double>() <= 1.0);
  CHECK(ja.at("composed_claim").at("epsilon").get<double>() == Approx(claim.at("epsilon").get<double>()).epsilon(1e-6));
  CHECK(gopa("audit --board t.db --all --session " + sid + " 2>/dev/null", d.path).code == 3);
  // The training run: its manifest lists both sessions in order, and the auditor recomputes the
  // model from their verified averages, and its test accuracy per round, as gopa train reported.
  REQUIRE(j.at("training_runs").size() == 1);
  CHECK(j.at("training_runs")[0].at("passed") == true);
  REQUIRE(ja.at("training_runs").size() == 1);
  const auto& run = ja.at("training_runs")[0];
  CHECK(run.at("passed") == true);
  CHECK(run.at("sessions") == g.at("sessions"));
  REQUIRE(run.at("checks").size() == 4);
  for (const auto& c : run.at("checks")) CHECK(c.at("status") == "PASS");
  REQUIRE(run.at("test_accuracy").size() == 3);
  for (std::size_t t = 0; t < 3; ++t) {
    CHECK(run.at("test_accuracy")[t] == g.at("curve")[t].at("test_accuracy"));
  }
  auto text = gopa("audit --board t.db --all --honest-fraction 0.75 --data-dir /nonexistent-gopa-data", d.path);
  CHECK(text.code == 0);
  CHECK(text.out.find("PASS training run") != std::string::npos);
  CHECK(text.out.find("PASS model trajectory recomputed") != std::string::npos);
  CHECK(text.out.find("SKIP test accuracy") != std::string::npos);
  // Another file under the data set's name (one label changed) is not the run's data.
  fs::create_directory(d.path / "other");
  {
    std::string content = slurp_file(d.path / "boston_house_prices.csv");
    const std::size_t last = content.rfind(',');
    REQUIRE(last != std::string::npos);
    content[last + 1] = content[last + 1] == '2' ? '1' : '2';
    std::ofstream(d.path / "other" / "boston_house_prices.csv") << content;
  }
  auto other = gopa("audit --board t.db --all --honest-fraction 0.75 --data-dir other", d.path);
  CHECK(other.code == 0);
  CHECK(other.out.find("PASS model trajectory recomputed") != std::string::npos);
  CHECK(other.out.find("data set here is not the run's") != std::string::npos);
  // The model only moves by released averages: the same seed gives the same curves.
  auto again = gopa("train --data-dir . --parties 8 --rounds 2 --honest-fraction 0.75 --methods sgd,central --seed 2 --json",
                    d.path);
  REQUIRE(again.code == 0);
  const auto j2 = nlohmann::json::parse(again.out);
  for (std::size_t t = 0; t < 3; ++t) {
    CHECK(j2.at("methods")[1].at("curve")[t].at("test_loss") == j.at("methods")[1].at("curve")[t].at("test_loss"));
  }
  CHECK_FALSE(fs::exists(d.path / "gopa-train-housing.db"));  // no GOPA method: no board
}

TEST_CASE("gopa train: bad options and data are refused with exit 3 and nothing written", "[cli][train]") {
  TempDir d;
  write_housing(d.path);
  for (const char* bad : {"--methods sgd,nope", "--parties 100", "--parties 1", "--rounds 0", "--clip 0",
                          "--learning-rate -1", "--epsilon 0", "--delta 1", "--honest-fraction 0", "--data nope",
                          "--test-fraction 1"}) {
    INFO(bad);
    CHECK(gopa("train --data-dir . --board b.db --csv c.csv " + std::string(bad) + " 2>/dev/null", d.path).code == 3);
  }
  CHECK(gopa("train --data-dir /nonexistent-gopa-data 2>/dev/null", d.path).code == 3);
  fs::create_directory(d.path / "bad");
  std::ofstream(d.path / "bad" / "boston_house_prices.csv") << "3,2,,\n\"A\",\"B\",\"MEDV\"\n1,2,30\n1,x,20\n";
  CHECK(gopa("train --data-dir bad --parties 2 --board b.db 2>/dev/null", d.path).code == 3);
  CHECK_FALSE(fs::exists(d.path / "b.db"));
  CHECK_FALSE(fs::exists(d.path / "c.csv"));
  // An existing board is never reused.
  std::ofstream(d.path / "old.db") << "x";
  CHECK(gopa("train --data-dir . --parties 8 --board old.db 2>/dev/null", d.path).code == 3);
  CHECK(slurp_file(d.path / "old.db") == "x");
}
