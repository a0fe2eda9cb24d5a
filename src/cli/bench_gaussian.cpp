// `gopa bench gaussian`: statistical quality and circuit cost of the Gaussian samplers, per
// sampler and output precision (circuits/, docs/circuits.md §6).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "report.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/circuits/stats.hpp"

namespace gopa::cli {
namespace {

using namespace gopa::circuits;

struct GaussianOptions {
  std::size_t samples = 10'000'000;
  bool quick = false;
  bool json = false;
  bool csv = false;
  std::vector<unsigned> precisions = {12, 16, 20, 24};
  std::vector<std::string> samplers = {"box-muller", "polar", "inverse-cdf", "clt"};
  std::size_t ref_samples = 20'000;
  std::size_t amortize = 64;
  unsigned threads = 0;
  std::uint64_t seed = 1;
  bool prove = false;           // measure proofs of one sampler call
  bool prove_amortized = false; // and of the d-sample circuit
  int reps = 3;
};

struct Row {
  SamplerParams p;
  Quality q;
  std::size_t gates_one = 0;      // multiplication gates of the samples_per_call circuit
  double gates_per_sample = 0;    // … per sample
  double gates_per_sample_d = 0;  // per sample in the d-sample circuit
  std::size_t vars_one = 0;
  std::string circuit_id;
  std::optional<ProofCost> one, many;  // proofs of one call / of d samples
};

// Multiplication gates of the d-sample circuit, counted by the clear evaluator.
std::size_t count_gates(const SamplerParams& p, std::size_t d) {
  const std::size_t calls = (d + p.samples_per_call() - 1) / p.samples_per_call();
  std::vector<i128> xs(calls * p.seeds_per_call(), 1), ys(xs.size(), 2);
  ClearBuilder b;
  (void)gaussian_circuit(b, p, xs, ys, d);
  return b.mul_gates();
}

std::optional<SamplerKind> parse_kind(const std::string& s) {
  for (auto k : {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf,
                 SamplerKind::kClt})
    if (s == sampler_name(k)) return k;
  return std::nullopt;
}

std::string fmt(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

int run_gaussian(const GaussianOptions& o) {
  const std::size_t n = o.quick ? 100'000 : o.samples;
  const unsigned threads =
      o.threads != 0 ? o.threads : std::max(1U, std::min(2U, std::thread::hardware_concurrency()));
  std::vector<Row> rows;
  for (const std::string& name : o.samplers) {
    const auto kind = parse_kind(name);
    if (!kind) {
      std::fprintf(stderr, "gopa bench gaussian: unknown sampler '%s'\n", name.c_str());
      return kExitUsage;
    }
    for (unsigned f : o.precisions) {
      if (f < 8 || f > 32) {
        std::fprintf(stderr, "gopa bench gaussian: precision %u outside [8, 32]\n", f);
        return kExitUsage;
      }
      Row r;
      r.p = SamplerParams::make(*kind, f);
      r.q = measure_quality(r.p, n, o.seed, threads, std::min(o.ref_samples, n));
      const Cost c = measure_cost(r.p, r.p.samples_per_call(), o.seed);
      r.gates_one = c.mul_gates;
      r.vars_one = c.vars;
      r.circuit_id = c.circuit_id_hex;
      r.gates_per_sample = static_cast<double>(c.mul_gates) / r.p.samples_per_call();
      r.gates_per_sample_d =
          static_cast<double>(count_gates(r.p, o.amortize)) / static_cast<double>(o.amortize);
      if (o.prove) r.one = measure_proof(r.p, r.p.samples_per_call(), o.reps, o.seed);
      if (o.prove_amortized) r.many = measure_proof(r.p, o.amortize, o.reps, o.seed);
      if (!o.json && !o.csv)
        std::fprintf(stderr, "  %s f=%u: %.1f s\n", name.c_str(), f, r.q.seconds);
      rows.push_back(std::move(r));
    }
  }
  bool all_ok = true;
  for (const Row& r : rows)
    all_ok = all_ok && r.q.failed_calls == 0 && (!r.one || r.one->verified) && (!r.many || r.many->verified);
  // Per-sample proof figures, or nullopt.
  auto per = [](const std::optional<ProofCost>& c, double ProofCost::*field) -> std::optional<double> {
    if (!c) return std::nullopt;
    return (*c).*field / static_cast<double>(c->d);
  };
  auto bytes = [](const std::optional<ProofCost>& c) -> std::optional<double> {
    if (!c) return std::nullopt;
    return static_cast<double>(c->bytes) / static_cast<double>(c->d);
  };
  auto cell = [](std::optional<double> v, int digits) { return v ? fmt(*v, digits) : std::string("n/a"); };
  if (o.json) {
    nlohmann::json j = json_report("bench-gaussian");
    j["samples"] = n;
    j["threads"] = threads;
    j["amortize_d"] = o.amortize;
    j["prover"] = "gopa/sigma compressed circuit proof (AC20), single thread";
    for (const Row& r : rows) {
      nlohmann::json e;
      e["sampler"] = sampler_name(r.p.kind);
      e["f"] = r.p.f;
      e["F"] = r.p.F;
      e["m"] = r.p.m;
      e["extra"] = r.p.extra;
      e["samples"] = r.q.n;
      e["constraint_failures"] = r.q.failed_calls;
      e["ks"] = r.q.ks;
      e["mse_cdf"] = r.q.mse_cdf;
      e["mean"] = r.q.mean;
      e["variance"] = r.q.variance;
      e["max_err_ulps"] = r.q.max_err_ulps;
      e["error_bound_ulps"] = r.p.error_bound_ulps();
      e["ref_samples"] = r.q.ref_n;
      e["eval_ns_per_sample"] = r.q.seconds * 1e9 / static_cast<double>(r.q.n) * threads;
      e["mul_gates_per_sample"] = r.gates_per_sample;
      e["mul_gates_per_sample_amortized"] = r.gates_per_sample_d;
      e["circuit_vars"] = r.vars_one;
      e["circuit_id"] = r.circuit_id;
      auto put = [&](const char* k, std::optional<double> v) {
        if (v) e[k] = *v;
        else e[k] = nullptr;
      };
      put("proof_bytes_per_sample", bytes(r.one));
      put("prove_ms_per_sample", per(r.one, &ProofCost::prove_ms));
      put("verify_ms_per_sample", per(r.one, &ProofCost::verify_ms));
      put("proof_bytes_per_sample_amortized", bytes(r.many));
      put("prove_ms_per_sample_amortized", per(r.many, &ProofCost::prove_ms));
      put("verify_ms_per_sample_amortized", per(r.many, &ProofCost::verify_ms));
      put("first_prove_ms_per_sample", per(r.one, &ProofCost::first_prove_ms));
      put("first_prove_ms_per_sample_amortized", per(r.many, &ProofCost::first_prove_ms));
      j["rows"].push_back(e);
    }
    std::cout << j.dump(2) << "\n";
  } else if (o.csv) {
    std::cout << "sampler,f,F,m,extra,samples,ks,mse_cdf,max_err_ulps,error_bound_ulps,"
                 "mul_gates_per_sample,mul_gates_per_sample_amortized,proof_bytes_per_sample,"
                 "prove_ms_per_sample,verify_ms_per_sample,proof_bytes_per_sample_amortized,"
                 "prove_ms_per_sample_amortized,verify_ms_per_sample_amortized,first_prove_ms_per_sample,"
                 "first_prove_ms_per_sample_amortized\n";
    for (const Row& r : rows)
      std::cout << sampler_name(r.p.kind) << ',' << r.p.f << ',' << r.p.F << ',' << r.p.m << ','
                << r.p.extra << ',' << r.q.n << ',' << fmt(r.q.ks, 6) << ','
                << fmt(r.q.mse_cdf, 6) << ',' << fmt(r.q.max_err_ulps, 4) << ','
                << fmt(r.p.error_bound_ulps(), 4) << ',' << fmt(r.gates_per_sample, 8)
                << ',' << fmt(r.gates_per_sample_d, 8) << ',' << cell(bytes(r.one), 6) << ','
                << cell(per(r.one, &ProofCost::prove_ms), 6) << ','
                << cell(per(r.one, &ProofCost::verify_ms), 6) << ',' << cell(bytes(r.many), 6)
                << ',' << cell(per(r.many, &ProofCost::prove_ms), 6) << ','
                << cell(per(r.many, &ProofCost::verify_ms), 6) << ','
                << cell(per(r.one, &ProofCost::first_prove_ms), 6) << ','
                << cell(per(r.many, &ProofCost::first_prove_ms), 6) << "\n";
  } else {
    std::printf("gopa bench gaussian: %zu clear-text samples per row (circuit evaluator, %u "
                "threads); max error vs MPFR on %zu samples; σ = 1\n",
                n, threads, std::min(o.ref_samples, n));
    std::printf("%-11s %3s %3s %5s %9s %9s %6s %5s %7s %7s | %6s %8s %7s | %6s %8s %7s\n",
                "sampler", "f", "F", "extra", "KS", "MSE(CDF)", "maxerr", "bound", "gates",
                "gates", "proof", "prove", "verify", "proof", "prove", "verify");
    std::printf("%-11s %3s %3s %5s %9s %9s %6s %5s %7s %7s | %6s %8s %7s | %6s %8s %7s\n", "", "",
                "", "", "", "", "(ulps)", "", "/smp", "/smp@d", "B/smp", "ms/smp", "ms/smp",
                "B/smp@d", "ms/smp@d", "ms/smp@d");
    for (const Row& r : rows)
      std::printf("%-11s %3u %3u %5u %9.3g %9.3g %6.3g %5.3g %7.0f %7.0f | %6s %8s %7s | %6s %8s %7s\n",
                  sampler_name(r.p.kind), r.p.f, r.p.F, r.p.extra, r.q.ks, r.q.mse_cdf,
                  r.q.max_err_ulps, r.p.error_bound_ulps(), r.gates_per_sample,
                  r.gates_per_sample_d, cell(bytes(r.one), 4).c_str(),
                  cell(per(r.one, &ProofCost::prove_ms), 4).c_str(),
                  cell(per(r.one, &ProofCost::verify_ms), 3).c_str(), cell(bytes(r.many), 4).c_str(),
                  cell(per(r.many, &ProofCost::prove_ms), 4).c_str(),
                  cell(per(r.many, &ProofCost::verify_ms), 3).c_str());
    std::printf("extra: polar = candidates k, inverse-cdf = guard bits, clt = uniforms n. gates: "
                "multiplication gates per sample (one call / amortized over d = %zu). Proof "
                "columns (compressed Σ circuit proof incl. the sample commitments; one call and "
                "d = %zu, medians of %d after one untimed proof): n/a unless --prove / "
                "--prove-amortized.\n",
                o.amortize, o.amortize, o.reps);
    bool any_first = false;
    for (const Row& r : rows) {
      if (!r.one && !r.many) continue;
      if (!any_first)
        std::printf("first proof of each row (derives generators and builds tables, unless an earlier "
                    "row did), ms/sample:");
      std::printf("%s %s f=%u", any_first ? ";" : "", sampler_name(r.p.kind), r.p.f);
      if (r.one) std::printf(" one call %s", fmt(per(r.one, &ProofCost::first_prove_ms).value(), 4).c_str());
      if (r.many) std::printf(" d=%zu %s", o.amortize, fmt(per(r.many, &ProofCost::first_prove_ms).value(), 4).c_str());
      any_first = true;
    }
    if (any_first) std::printf("\n");
    if (!all_ok) std::printf("ERROR: some sampler calls failed their constraints\n");
  }
  return all_ok ? kExitOk : kExitMisbehaved;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

void add_bench_gaussian_command(CLI::App& bench, Context& ctx) {
  auto o = std::make_shared<GaussianOptions>();
  auto prec = std::make_shared<std::string>("12,16,20,24");
  auto samp = std::make_shared<std::string>("box-muller,polar,inverse-cdf,clt");
  CLI::App* g = bench.add_subcommand(
      "gaussian", "Quality (KS, CDF MSE, max error vs MPFR) and circuit cost of the Gaussian samplers");
  g->add_option("--samples,-n", o->samples, "Clear-text samples per sampler and precision")
      ->capture_default_str();
  g->add_flag("--quick", o->quick, "10^5 samples per row");
  g->add_option("--precisions", *prec, "Output fractional bits, comma-separated")
      ->capture_default_str();
  g->add_option("--samplers", *samp, "box-muller, polar, inverse-cdf, clt (comma-separated)")
      ->capture_default_str();
  g->add_option("--ref-samples", o->ref_samples, "Samples compared with the MPFR reference")
      ->capture_default_str();
  g->add_option("--amortize,-d", o->amortize, "Samples per amortized circuit")->capture_default_str();
  g->add_option("--threads", o->threads, "Worker threads (0: up to 2)")->capture_default_str();
  g->add_option("--seed", o->seed, "Seed of the uniform seeds (ChaCha20)")->capture_default_str();
  g->add_flag("--prove", o->prove, "Also prove and verify one sampler call (median of --reps)");
  g->add_flag("--prove-amortized", o->prove_amortized, "Also prove and verify d = --amortize samples");
  g->add_option("--reps", o->reps, "Proof repetitions (median)")->capture_default_str();
  auto* json = g->add_flag("--json", o->json, "JSON output");
  g->add_flag("--csv", o->csv, "CSV output")->excludes(json);
  g->callback([o, prec, samp, &ctx] {
    o->precisions.clear();
    for (const auto& s : split_list(*prec)) o->precisions.push_back(static_cast<unsigned>(std::stoul(s)));
    o->samplers = split_list(*samp);
    ctx.run = [o] { return run_gaussian(*o); };
  });
}

}  // namespace gopa::cli
