// Google Benchmark for the sigma layer: fresh transcripts per iteration, sizes swept.
// The human/JSON/CSV table with targets is `gopa bench proofs`.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/field.hpp"
#include "gopa/sigma/range.hpp"
#include "group/simd.hpp"  // internal: the AVX-512 IFMA switch
#include "sigma/ntt.hpp"   // internal: the prover's Toeplitz products

using namespace gopa;
using namespace gopa::sigma;

namespace {

struct RangeFixture {
  std::shared_ptr<const GeneratorSet> gens;
  RangeStatement st;
  std::vector<SecretScalar> v, r;
  RangeProof proof;
};

RangeFixture make_range(unsigned bits, std::size_t d) {
  DeterministicRng rng(7);
  RangeFixture f;
  f.gens = GeneratorSet::get("gopa", range_generators(bits, d));
  f.st.bits = bits;
  for (std::size_t j = 0; j < d; ++j) {
    f.v.push_back(SecretScalar::from_u64(rng.next_u64() >> (64 - bits)));
    f.r.push_back(SecretScalar::random(rng));
    f.st.commitments.push_back(commit(f.v.back(), f.r.back(), *f.gens));
  }
  Transcript t("bench");
  f.proof = *prove_range(t, *f.gens, bits, f.st.commitments, f.v, f.r, rng);
  return f;
}

void BM_RangeProve(benchmark::State& state) {
  const auto bits = static_cast<unsigned>(state.range(0));
  const auto d = static_cast<std::size_t>(state.range(1));
  RangeFixture f = make_range(bits, d);
  DeterministicRng rng(8);
  for (auto _ : state) {
    Transcript t("bench");
    benchmark::DoNotOptimize(prove_range(t, *f.gens, bits, f.st.commitments, f.v, f.r, rng));
  }
  state.counters["bytes"] = static_cast<double>(f.proof.encode().size());
}

void BM_RangeVerify(benchmark::State& state) {
  const auto bits = static_cast<unsigned>(state.range(0));
  const auto d = static_cast<std::size_t>(state.range(1));
  RangeFixture f = make_range(bits, d);
  for (auto _ : state) {
    Transcript t("bench");
    if (!verify_range(t, *f.gens, f.st, f.proof)) state.SkipWithError("invalid");
  }
}

void BM_RangeVerifyNaive(benchmark::State& state) {
  RangeFixture f = make_range(static_cast<unsigned>(state.range(0)),
                              static_cast<std::size_t>(state.range(1)));
  for (auto _ : state) {
    Transcript t("bench");
    if (!verify_range_naive(t, *f.gens, f.st, f.proof)) state.SkipWithError("invalid");
  }
}

void BM_RangeBatch64(benchmark::State& state) {
  RangeFixture f = make_range(64, 1);
  DeterministicRng rng(9);
  std::vector<RangeStatement> sts(64, f.st);
  std::vector<RangeProof> prs(64, f.proof);
  for (auto _ : state) {
    std::vector<Transcript> ts;
    for (int i = 0; i < 64; ++i) ts.emplace_back("bench");
    if (!batch_verify_range(ts, *f.gens, sts, prs, rng)) state.SkipWithError("invalid");
  }
  state.counters["per_proof"] =
      benchmark::Counter(64, benchmark::Counter::kIsIterationInvariantRate |
                                 benchmark::Counter::kInvert);
}

void BM_CircuitProveVerify(benchmark::State& state) {
  const auto gates = static_cast<std::size_t>(state.range(0));
  const bool verify = state.range(1) != 0;
  auto build = [&](CircuitBuilder& b) {
    LinComb x = b.committed(SecretScalar::from_u64(3));
    LinComb y = b.secret(SecretScalar::from_u64(5));
    for (std::size_t i = 0; i < gates; ++i) x = b.mul(x + Scalar::from_u64(i), y);
    b.assert_zero(x - LinComb::of_constant(Scalar::zero()) - x);
  };
  CircuitBuilder pb(CircuitBuilder::kProver), vb(CircuitBuilder::kVerifier);
  build(pb);
  build(vb);
  auto gens = GeneratorSet::get("gopa", vb.circuit().generators_needed());
  DeterministicRng rng(10);
  std::vector<SecretScalar> bl;
  bl.push_back(SecretScalar::random(rng));
  const std::vector<Point> coms{commit(SecretScalar::from_u64(3), bl[0], *gens)};
  Transcript t0("bench");
  const CircuitProof proof =
      prove_circuit(t0, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng);
  for (auto _ : state) {
    Transcript t("bench");
    if (verify) {
      if (!verify_circuit(t, *gens, vb.circuit(), vb.publics(), coms, proof))
        state.SkipWithError("invalid");
    } else {
      benchmark::DoNotOptimize(
          prove_circuit(t, *gens, pb.circuit(), pb.publics(), coms, pb.witness(), bl, rng));
    }
  }
  state.counters["bytes"] = static_cast<double>(proof.encode().size());
}

struct ToeplitzFixture {
  std::vector<field::Fe> x, y;
  std::unique_ptr<const ntt::ToeplitzPlan> plan;
};

ToeplitzFixture make_toeplitz(std::size_t n) {
  DeterministicRng rng(11);
  ToeplitzFixture f;
  std::vector<field::Fe> t(2 * n - 1);
  for (auto& v : t) v = field::of(Scalar::random(rng));
  f.x.resize(n);
  for (auto& v : f.x) v = field::of(SecretScalar::random(rng));
  f.y.resize(n);
  f.plan = std::make_unique<const ntt::ToeplitzPlan>(t);
  return f;
}

// The prover's extrapolation product (poly.cpp) at the sizes of the largest proofs, on one path:
// range(1) = 0 portable, 1 AVX-512 IFMA (skipped on CPUs without it).
void BM_ToeplitzApply(benchmark::State& state) {
  const bool wide = state.range(1) != 0;
  if (wide && !detail::ifma_supported()) {
    state.SkipWithError("no AVX-512 IFMA");
    return;
  }
  const detail::ScopedIfma path(wide);
  ToeplitzFixture f = make_toeplitz(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    f.plan->apply(f.x, f.y);
    benchmark::DoNotOptimize(f.y.data());
  }
}

// Both paths interleaved in one run (the machine's speed drifts between runs): medians over
// range(1) pairs of calls, and the median of the per-pair ratios portable / IFMA.
void BM_ToeplitzApplySideBySide(benchmark::State& state) {
  if (!detail::ifma_supported()) {
    state.SkipWithError("no AVX-512 IFMA");
    return;
  }
  ToeplitzFixture f = make_toeplitz(static_cast<std::size_t>(state.range(0)));
  const auto pairs = static_cast<std::size_t>(state.range(1));
  const auto time_one = [&f](bool wide) {
    const detail::ScopedIfma path(wide);
    const auto start = std::chrono::steady_clock::now();
    f.plan->apply(f.x, f.y);
    benchmark::DoNotOptimize(f.y.data());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  time_one(false);  // each path's tables are made on its first call
  time_one(true);
  std::vector<double> portable, wide, ratio;
  for (auto _ : state) {
    for (std::size_t i = 0; i < pairs; ++i) {
      // Alternate which path goes first.
      const bool first = i % 2 == 0;
      const double a = time_one(first), b = time_one(!first);
      portable.push_back(first ? b : a);
      wide.push_back(first ? a : b);
      ratio.push_back(portable.back() / wide.back());
    }
  }
  state.counters["portable_ms"] = median(portable);
  state.counters["ifma_ms"] = median(wide);
  state.counters["ratio"] = median(ratio);
}

}  // namespace

BENCHMARK(BM_ToeplitzApply)
    ->ArgsProduct({{8089, 16177, 21569}, {0, 1}})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ToeplitzApplySideBySide)
    ->ArgsProduct({{8089, 16177, 21569}, {41}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_RangeProve)->ArgsProduct({{8, 16, 32, 64}, {1, 4, 16}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeVerify)->ArgsProduct({{8, 16, 32, 64}, {1, 4, 16}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeVerifyNaive)->Args({64, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeBatch64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CircuitProveVerify)
    ->ArgsProduct({{256, 1024, 4096}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

BENCHMARK_MAIN();
