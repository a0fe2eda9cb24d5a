// `gopa bench proofs`: proof sizes, prove / verify medians, the straightforward-verifier
// baseline and batch verification, for range proofs and circuits (docs/proofs.md).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/ball.hpp"
#include "gopa/sigma/range.hpp"
#include "report.hpp"
#include "sigma_commands.hpp"

namespace gopa::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct BenchOptions {
  bool json = false;
  bool csv = false;
  unsigned reps = 5;
  unsigned batch = 64;
  unsigned max_gates_log = 14;
  unsigned max_d = 64;
  bool ranges = true;
  bool circuits = true;
  bool balls = true;  // input-domain proofs at b = 32: the L2 ball and the box, d = 16 and 256
  bool wall = false;
};

struct Row {
  std::string kind;
  unsigned bits = 0;
  std::size_t d = 0;
  std::size_t gates = 0;
  std::size_t bytes = 0;
  double prove_ms = 0, verify_ms = 0, naive_ms = 0, batch_ms = 0;
  double first_prove_ms = 0;  // circuits: the first proof over a fresh generator set
  double ratio = 0;           // naive / MSM verification: median over paired blocks
  std::size_t batch_n = 0, distinct = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Wall clock, or (default) the CPU time of the calling thread: on a shared machine the latter
// is the single-thread cost without the time spent waiting for a core.
bool g_wall_clock = false;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

template <class F>
double time_ms(F&& f) {
  if (g_wall_clock) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  }
  const double t0 = thread_cpu_ms();
  f();
  return thread_cpu_ms() - t0;
}

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("benchmark self-check failed: " + what);
}

constexpr const char* kLabel = "gopa/bench v1";

Row bench_range(unsigned bits, std::size_t d, const BenchOptions& o) {
  DeterministicRng rng(bits * 1000 + d);
  auto gens = GeneratorSet::get("gopa", sigma::range_generators(bits, d));
  struct Inst {
    sigma::RangeStatement st;
    sigma::RangeProof proof;
  };
  std::vector<Inst> insts;
  std::vector<double> prove_t;
  auto make = [&] {
    std::vector<SecretScalar> v, r;
    sigma::RangeStatement st{bits, {}};
    for (std::size_t j = 0; j < d; ++j) {
      std::uint64_t x = rng.next_u64();
      if (bits < 64) x &= (std::uint64_t{1} << bits) - 1;
      v.push_back(SecretScalar::from_u64(x));
      r.push_back(SecretScalar::random(rng));
      st.commitments.push_back(commit(v.back(), r.back(), *gens));
    }
    std::optional<sigma::RangeProof> p;
    prove_t.push_back(time_ms([&] {
      Transcript t(kLabel);
      p = sigma::prove_range(t, *gens, bits, st.commitments, v, r, rng);
    }));
    if (!p) fail("prove_range");
    insts.push_back({std::move(st), std::move(*p)});
  };
  // Distinct proofs: o.reps for the prove median, more (up to the batch) while cheap.
  for (unsigned i = 0; i < o.reps; ++i) make();
  while (insts.size() < o.batch && median(prove_t) * static_cast<double>(insts.size()) < 1500.0)
    make();
  Row row{"range", bits, d, bits * d, insts[0].proof.encode().size()};
  row.prove_ms = median(prove_t);
  // Each verifier in its steady state: blocks of back-to-back verifications (a verifier checks
  // proofs in a stream), the two kinds alternating, so that both see the same machine; the ratio
  // is the median over the pairs of blocks, robust to drift in the machine's speed.
  std::vector<double> vt, nt, ratios;
  const std::size_t block = std::clamp<std::size_t>(insts.size(), 1, 8);
  for (unsigned i = 0; i < o.reps; ++i) {
    const double fast = time_ms([&] {
      for (std::size_t k = 0; k < block; ++k) {
        const Inst& in = insts[(i + k) % insts.size()];
        Transcript t(kLabel);
        if (!sigma::verify_range(t, *gens, in.st, in.proof)) fail("verify_range");
      }
    }) / static_cast<double>(block);
    vt.push_back(fast);
    if (i < std::min(o.reps, 5U)) {
      const Inst& in = insts[i % insts.size()];
      nt.push_back(time_ms([&] {
        Transcript t(kLabel);
        if (!sigma::verify_range_naive(t, *gens, in.st, in.proof)) fail("verify_range_naive");
      }));
      ratios.push_back(nt.back() / fast);
    }
  }
  row.verify_ms = median(vt);
  row.naive_ms = median(nt);
  row.ratio = median(ratios);
  std::vector<sigma::RangeStatement> sts;
  std::vector<sigma::RangeProof> prs;
  for (std::size_t i = 0; i < o.batch; ++i) {
    sts.push_back(insts[i % insts.size()].st);
    prs.push_back(insts[i % insts.size()].proof);
  }
  std::vector<double> bt;
  for (unsigned i = 0; i < std::min(o.reps, 3U); ++i) {
    std::vector<Transcript> ts;
    for (std::size_t k = 0; k < prs.size(); ++k) ts.emplace_back(kLabel);
    bt.push_back(time_ms([&] {
      if (!sigma::batch_verify_range(ts, *gens, sts, prs, rng)) fail("batch_verify_range");
    }));
  }
  row.batch_n = prs.size();
  row.distinct = std::min<std::size_t>(insts.size(), o.batch);
  row.batch_ms = median(bt) / static_cast<double>(prs.size());
  return row;
}

// The L2-ball proof of a session's inputs (radius C = 2^16 at b = 32: ‖x‖₂ ≤ 1 at 16 fractional
// bits), random vectors in the ball: sizes, prove and verify medians, batch verification.
Row bench_ball(unsigned bits, std::size_t d, const BenchOptions& o) {
  DeterministicRng rng(bits * 7000 + d);
  const std::uint64_t radius = std::uint64_t{1} << 16;
  auto gens = GeneratorSet::get("gopa", sigma::ball_generators(bits, d));
  std::vector<sigma::BallStatement> sts;
  std::vector<sigma::BallProof> prs;
  std::vector<double> prove_t;
  auto make = [&] {
    // Coordinates of magnitude below C/√d: the vector is in the ball.
    const auto bound = static_cast<std::uint64_t>(static_cast<double>(radius) / std::sqrt(static_cast<double>(d)));
    std::vector<SecretScalar> v, r;
    sigma::BallStatement st{bits, radius, {}};
    for (std::size_t j = 0; j < d; ++j) {
      const auto x = static_cast<std::int64_t>(rng.uniform(2 * bound + 1)) - static_cast<std::int64_t>(bound);
      v.push_back(SecretScalar::from_i64(x));
      r.push_back(SecretScalar::random(rng));
      st.commitments.push_back(commit(v.back(), r.back(), *gens));
    }
    std::optional<sigma::BallProof> p;
    prove_t.push_back(time_ms([&] {
      Transcript t(kLabel);
      p = sigma::prove_ball(t, *gens, bits, radius, st.commitments, v, r, rng);
    }));
    if (!p) fail("prove_ball");
    sts.push_back(std::move(st));
    prs.push_back(std::move(*p));
  };
  for (unsigned i = 0; i < o.reps; ++i) make();
  while (prs.size() < o.batch && median(prove_t) * static_cast<double>(prs.size()) < 1500.0) make();
  Row row{"ball", bits, d, sigma::ball_circuit(bits, d)->gates.size(), prs[0].encode().size()};
  row.prove_ms = median(prove_t);
  std::vector<double> vt;
  for (unsigned i = 0; i < o.reps; ++i) {
    const std::size_t k = i % prs.size();
    vt.push_back(time_ms([&] {
      Transcript t(kLabel);
      if (!sigma::verify_ball(t, *gens, sts[k], prs[k])) fail("verify_ball");
    }));
  }
  row.verify_ms = median(vt);
  std::vector<double> bt;
  for (unsigned i = 0; i < std::min(o.reps, 3U); ++i) {
    std::vector<Transcript> ts;
    for (std::size_t k = 0; k < prs.size(); ++k) ts.emplace_back(kLabel);
    bt.push_back(time_ms([&] {
      if (!sigma::batch_verify_ball(ts, *gens, sts, prs, rng)) fail("batch_verify_ball");
    }));
  }
  row.batch_n = row.distinct = prs.size();
  row.batch_ms = median(bt) / static_cast<double>(prs.size());
  return row;
}

// The box proof of the same inputs for comparison: one range proof over the 2d values x_j and
// M − x_j (docs/protocol.md § Input-domain proof).
Row bench_box(unsigned bits, std::size_t d, const BenchOptions& o) {
  Row row = bench_range(bits, 2 * d, o);
  row.kind = "box";
  row.d = d;
  return row;
}

// The benchmark circuit: x committed, y secret, acc_{i+1} = (acc_i + i)·y, public output.
void build_chain(sigma::CircuitBuilder& b, std::size_t gates, const Scalar& out) {
  sigma::LinComb x = b.committed(SecretScalar::from_u64(3));
  sigma::LinComb y = b.secret(SecretScalar::from_u64(5));
  sigma::LinComb acc = x;
  for (std::size_t i = 0; i < gates; ++i) acc = b.mul(acc + Scalar::from_u64(i), y);
  b.assert_equal(acc, b.public_input(out));
}

Row bench_circuit(std::size_t gates, const BenchOptions& o) {
  DeterministicRng rng(gates);
  // Output value: run the chain in the clear.
  Scalar acc = Scalar::from_u64(3);
  for (std::size_t i = 0; i < gates; ++i) acc = (acc + Scalar::from_u64(i)) * Scalar::from_u64(5);
  sigma::CircuitBuilder pb(sigma::CircuitBuilder::kProver), vb(sigma::CircuitBuilder::kVerifier);
  build_chain(pb, gates, acc);
  build_chain(vb, gates, acc);
  const sigma::Circuit& c = vb.circuit();
  auto gens = GeneratorSet::get("gopa", c.generators_needed());
  const unsigned reps = gates >= 4096 ? std::min(o.reps, 3U) : o.reps;
  std::vector<sigma::CircuitProof> proofs;
  std::vector<Point> coms;
  std::vector<SecretScalar> bl;
  bl.push_back(SecretScalar::random(rng));
  coms.push_back(commit(SecretScalar::from_u64(3), bl[0], *gens));
  auto prove = [&] {
    Transcript t(kLabel);
    proofs.push_back(
        sigma::prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng));
  };
  // The first proof over a generator set builds its tables (the constant-time tables at once,
  // the window tables of large bases after a few MSMs): timed apart, followed by an untimed
  // proof, so that the medians below are the steady state of a prover or verifier that runs
  // more than once.
  const double first = time_ms(prove);
  prove();
  std::vector<double> pt;
  for (unsigned i = 0; i < reps; ++i) pt.push_back(time_ms(prove));
  Row row{"circuit", 0, 0, gates, proofs[0].encode().size()};
  row.prove_ms = median(pt);
  row.first_prove_ms = first;
  // Verification in its steady state, back to back (a verifier checks proofs in a stream), then
  // pairs for the ratio: a warm-up and a timed verification right before each naive one (the
  // naive verifier's run evicts the caches the fast one works from).
  auto verify = [&](const sigma::CircuitProof& p) {
    Transcript t(kLabel);
    if (!sigma::verify_circuit(t, *gens, c, vb.publics(), coms, p)) fail("verify_circuit");
  };
  std::vector<double> vt, nt, ratios;
  for (unsigned i = 0; i < reps; ++i) {
    const auto& p = proofs[i % proofs.size()];
    vt.push_back(time_ms([&] { verify(p); }));
  }
  for (unsigned i = 0; i < std::min(reps, 2U); ++i) {
    const auto& p = proofs[i % proofs.size()];
    verify(p);
    const double fast = time_ms([&] { verify(p); });
    nt.push_back(time_ms([&] {
      Transcript t(kLabel);
      if (!sigma::verify_circuit_naive(t, *gens, c, vb.publics(), coms, p))
        fail("verify_circuit_naive");
    }));
    ratios.push_back(nt.back() / fast);
  }
  row.verify_ms = median(vt);
  row.naive_ms = median(nt);
  row.ratio = median(ratios);
  std::vector<double> bt;
  for (unsigned i = 0; i < std::min(reps, 2U); ++i) {
    bt.push_back(time_ms([&] {
      sigma::MsmTerms eq;
      for (unsigned k = 0; k < o.batch; ++k) {
        eq.set_weight(Scalar::random_nonzero(rng));
        Transcript t(kLabel);
        if (!sigma::add_circuit_terms(t, *gens, c, vb.publics(), coms,
                                      proofs[k % proofs.size()], eq))
          fail("add_circuit_terms");
      }
      if (!eq.is_identity(*gens)) fail("batch circuit equation");
    }));
  }
  row.batch_n = o.batch;
  row.distinct = std::min<std::size_t>(proofs.size(), o.batch);
  row.batch_ms = median(bt) / o.batch;
  return row;
}

std::string fmt(double v, int decimals = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string params(const Row& r) {
  return r.kind == "circuit" ? "gates=" + std::to_string(r.gates)
                             : "b=" + std::to_string(r.bits) + " d=" + std::to_string(r.d);
}

struct Target {
  std::string what;
  double measured, limit;
  std::string unit;
};

std::vector<Target> targets(const std::vector<Row>& rows) {
  std::vector<Target> t;
  for (const Row& r : rows) {
    if (r.kind == "range" && r.bits == 64 && r.d == 1) {
      t.push_back({"range 64-bit proof size", static_cast<double>(r.bytes), 640, "bytes"});
      t.push_back({"range 64-bit prove", r.prove_ms, 8, "ms"});
      t.push_back({"range 64-bit verify", r.verify_ms, 1.5, "ms"});
      t.push_back({"range 64-bit batch of 64, per proof", r.batch_ms, 0.4, "ms"});
      t.push_back({"range 64-bit naive/MSM verify ratio (>= 10)", -r.ratio, -10, "x"});
    }
    if (r.kind == "circuit" && r.gates == 4096) {
      const double g = static_cast<double>(r.gates);
      t.push_back({"circuit 4096 prove per gate", 1000 * r.prove_ms / g, 50, "us"});
      t.push_back({"circuit 4096 verify per gate", 1000 * r.verify_ms / g, 8, "us"});
      t.push_back({"circuit 4096 proof size", static_cast<double>(r.bytes), 2048, "bytes"});
      t.push_back({"circuit 4096 naive/MSM verify ratio (>= 10)", -r.ratio, -10, "x"});
    }
  }
  return t;
}

int run_bench(const BenchOptions& o) {
  g_wall_clock = o.wall;
  std::vector<Row> rows;
  const bool progress = !o.json && !o.csv;
  auto note = [&](const Row& r) {
    if (progress) {
      std::fprintf(stderr, ".");
      std::fflush(stderr);
    }
    rows.push_back(r);
  };
  if (o.ranges)
    for (unsigned bits : {8U, 16U, 32U, 64U})
      for (std::size_t d : {1U, 4U, 16U, 64U})
        if (d <= o.max_d) note(bench_range(bits, d, o));
  if (o.circuits)
    for (unsigned lg = 8; lg <= o.max_gates_log; ++lg) note(bench_circuit(std::size_t{1} << lg, o));
  if (o.balls)
    for (std::size_t d : {16U, 256U}) {
      note(bench_ball(32, d, o));
      note(bench_box(32, d, o));
    }
  if (progress) std::fprintf(stderr, "\n");
  const auto tg = targets(rows);
  if (o.json) {
    nlohmann::json j = json_report("bench-proofs");
    j["reps"] = o.reps;
    j["clock"] = o.wall ? "wall" : "thread-cpu";
    for (const Row& r : rows)
      j["rows"].push_back({{"kind", r.kind}, {"bits", r.bits}, {"d", r.d}, {"gates", r.gates},
                           {"proof_bytes", r.bytes}, {"prove_ms", r.prove_ms},
                           {"verify_ms", r.verify_ms}, {"naive_verify_ms", r.naive_ms},
                           {"naive_over_msm", r.ratio},
                           {"batch_verify_ms_per_proof", r.batch_ms}, {"batch_size", r.batch_n},
                           {"first_prove_ms", r.first_prove_ms},
                           {"batch_distinct_proofs", r.distinct}});
    for (const Target& t : tg)
      j["targets"].push_back({{"target", t.what}, {"measured", std::abs(t.measured)},
                              {"limit", std::abs(t.limit)}, {"unit", t.unit},
                              {"met", t.measured <= t.limit}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  if (o.csv) {
    std::printf("kind,bits,d,gates,proof_bytes,prove_ms,verify_ms,naive_verify_ms,batch_ms_per_proof,batch_size,first_prove_ms,naive_over_msm\n");
    for (const Row& r : rows)
      std::printf("%s,%u,%zu,%zu,%zu,%.4f,%.4f,%.4f,%.4f,%zu,%.4f,%.3f\n", r.kind.c_str(), r.bits,
                  r.d, r.gates, r.bytes, r.prove_ms, r.verify_ms, r.naive_ms, r.batch_ms, r.batch_n,
                  r.first_prove_ms, r.ratio);
    return kExitOk;
  }
  std::printf("%-8s %-16s %8s %12s %12s %14s %8s %16s\n", "proof", "params", "bytes", "prove ms",
              "verify ms", "naive ver. ms", "naive/x", "batch ms/proof");
  for (const Row& r : rows)
    std::printf("%-8s %-16s %8zu %12s %12s %14s %8s %16s\n", r.kind.c_str(), params(r).c_str(),
                r.bytes, fmt(r.prove_ms).c_str(), fmt(r.verify_ms).c_str(),
                fmt(r.naive_ms).c_str(), fmt(r.ratio, 1).c_str(),
                fmt(r.batch_ms).c_str());
  std::printf("(medians of %u runs, single thread, %s time; batch = %u proofs in one MSM; naive = "
              "verifier folding generators with one scalar multiplication per step)\n",
              o.reps, o.wall ? "wall-clock" : "thread CPU", o.batch);
  bool any_circuit = false;
  for (const Row& r : rows) {
    if (r.kind != "circuit") continue;
    if (!any_circuit) std::printf("first proof over a fresh generator set (builds its tables):");
    std::printf("%s %zu gates %s ms", any_circuit ? "," : "", r.gates, fmt(r.first_prove_ms).c_str());
    any_circuit = true;
  }
  if (any_circuit) std::printf("\n");
  if (!tg.empty()) std::printf("\ntargets:\n");
  for (const Target& t : tg)
    std::printf("  %-46s %10s %-5s (target %s %s)  %s\n", t.what.c_str(),
                fmt(std::abs(t.measured)).c_str(), t.unit.c_str(), t.limit < 0 ? ">=" : "<=",
                fmt(std::abs(t.limit), 1).c_str(), t.measured <= t.limit ? "met" : "MISSED");
  return kExitOk;
}

}  // namespace

void add_bench_proofs_command(CLI::App& bench, Context& ctx) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = bench.add_subcommand(
      "proofs", "Range proofs (b = 8..64, d = 1..64), circuits (2^8..2^14 gates) and input-domain proofs "
                "(L2 ball and box at b = 32, d = 16 and 256): sizes, prove/verify medians, naive verifier, "
                "batch verification");
  auto* json = cmd->add_flag("--json", o->json, "JSON output");
  cmd->add_flag("--csv", o->csv, "CSV output (not with --json)")->excludes(json);
  cmd->add_flag("--wall", o->wall, "Wall-clock time instead of the thread's CPU time");
  cmd->add_option("--reps", o->reps, "Repetitions per measurement (median)")
      ->check(CLI::Range(1U, 1000U))
      ->capture_default_str();
  cmd->add_option("--batch", o->batch, "Proofs per batch verification")
      ->check(CLI::Range(1U, 4096U))
      ->capture_default_str();
  cmd->add_option("--max-gates-log", o->max_gates_log, "Largest circuit: 2^N gates")
      ->check(CLI::Range(8U, 16U))
      ->capture_default_str();
  cmd->add_option("--max-d", o->max_d, "Largest number of values per range proof")
      ->check(CLI::Range(1U, 64U))
      ->capture_default_str();
  auto only = std::make_shared<std::array<bool, 3>>();
  auto* ranges_only = cmd->add_flag("--ranges-only", (*only)[0], "Only range proofs");
  auto* circuits_only =
      cmd->add_flag("--circuits-only", (*only)[1], "Only circuits (not with --ranges-only)")->excludes(ranges_only);
  cmd->add_flag("--domains-only", (*only)[2], "Only the input-domain proofs (L2 ball and box)")
      ->excludes(ranges_only)
      ->excludes(circuits_only);
  cmd->callback([&ctx, o, only] {
    if ((*only)[0]) o->circuits = o->balls = false;
    if ((*only)[1]) o->ranges = o->balls = false;
    if ((*only)[2]) o->ranges = o->circuits = false;
    ctx.run = [o] { return run_bench(*o); };
  });
}

}  // namespace gopa::cli
