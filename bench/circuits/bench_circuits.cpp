// Clear-text evaluation and constraint recording of one sampler call, per sampler and precision.
#include <benchmark/benchmark.h>

#include <vector>

#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/random.hpp"

using namespace gopa::circuits;

namespace {

SamplerParams params(const benchmark::State& st) {
  return SamplerParams::make(static_cast<SamplerKind>(st.range(0)), static_cast<unsigned>(st.range(1)));
}

void BM_clear_call(benchmark::State& st) {
  const auto p = params(st);
  gopa::DeterministicRng rng(1);
  std::vector<std::uint64_t> seeds(p.seeds_per_call() * 256U);
  for (auto& s : seeds) s = rng.next_u64() & ((1ULL << p.m) - 1U);
  std::vector<std::int64_t> out;
  for (auto _ : st) {
    out.clear();
    benchmark::DoNotOptimize(clear_samples(p, seeds, out));
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * 256 * p.samples_per_call());
}

void BM_record_call(benchmark::State& st) {
  const auto p = params(st);
  std::vector<i128> xs(p.seeds_per_call(), 12345), ys(p.seeds_per_call(), 777);
  for (auto _ : st) {
    Recorder rec(p.circuit_name(p.samples_per_call()));
    benchmark::DoNotOptimize(gaussian_circuit(rec, p, xs, ys, p.samples_per_call()));
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations()) * p.samples_per_call());
}

void args(benchmark::internal::Benchmark* b) {
  for (int k = 1; k <= 4; ++k)
    for (int f : {12, 16, 20, 24}) b->Args({k, f});
}

}  // namespace

BENCHMARK(BM_clear_call)->Apply(args);
BENCHMARK(BM_record_call)->Apply(args)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
