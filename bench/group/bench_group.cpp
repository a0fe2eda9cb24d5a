// Google Benchmark sweeps of the group layer: MSM over n (1 and 2 threads, and over a reusable
// MsmBasis), fixed-base and variable-base scalar multiplication. `gopa bench group` prints the
// summary table; this binary is for detailed sweeps (e.g. --benchmark_filter=Msm).
#include <benchmark/benchmark.h>

#include <vector>

#include "gopa/group.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"

namespace {

struct Inputs {
  std::vector<gopa::Scalar> scalars;
  std::vector<gopa::Point> points;
};

// Consecutive points differ by a random point: one addition each, so large inputs are cheap.
const Inputs& inputs(std::size_t n) {
  static Inputs in;
  if (in.points.size() < n) {
    gopa::DeterministicRng rng(n);
    in = Inputs{};
    const gopa::Point step = gopa::Point::random(rng);
    gopa::Point p = gopa::Point::random(rng);
    for (std::size_t i = 0; i < n; ++i) {
      in.scalars.push_back(gopa::Scalar::random(rng));
      in.points.push_back(p);
      p += step;
    }
  }
  return in;
}

void BM_Msm(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  const Inputs& in = inputs(n);
  const auto s = std::span<const gopa::Scalar>(in.scalars).first(n);
  const auto p = std::span<const gopa::Point>(in.points).first(n);
  for (auto _ : state) benchmark::DoNotOptimize(gopa::msm(s, p, {.threads = threads}));
  // Wall-clock time per point (shown with an SI prefix, e.g. 3.2us).
  state.counters["per_point"] = benchmark::Counter(
      static_cast<double>(n),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Msm)
    ->ArgsProduct({{16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_MsmBasis(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Inputs& in = inputs(n);
  const gopa::MsmBasis basis(std::span<const gopa::Point>(in.points).first(n));
  const auto s = std::span<const gopa::Scalar>(in.scalars).first(n);
  for (auto _ : state) benchmark::DoNotOptimize(basis.msm(s));
}
BENCHMARK(BM_MsmBasis)->RangeMultiplier(4)->Range(64, 16384)->Unit(benchmark::kMicrosecond);

// The provers' constant-time MSM: secret scalars over a basis whose tables are built once
// (MsmSecretBasis), as the commitments to a circuit's wires and to the pivot's mask use it.
void BM_MsmSecretBasis(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Inputs& in = inputs(n);
  const gopa::MsmSecretBasis basis(std::span<const gopa::Point>(in.points).first(n));
  std::vector<gopa::SecretScalar> s;
  for (std::size_t i = 0; i < n; ++i) s.emplace_back(in.scalars[i]);
  std::vector<std::size_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = i;
  for (auto _ : state) benchmark::DoNotOptimize(basis.msm(s, rows));
  state.counters["per_point"] = benchmark::Counter(
      static_cast<double>(n),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MsmSecretBasis)->Arg(1024)->Arg(8192)->Arg(43136)->Unit(benchmark::kMillisecond);

void BM_MsmNaive(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const Inputs& in = inputs(n);
  const auto s = std::span<const gopa::Scalar>(in.scalars).first(n);
  const auto p = std::span<const gopa::Point>(in.points).first(n);
  for (auto _ : state) benchmark::DoNotOptimize(gopa::msm_naive(s, p));
}
BENCHMARK(BM_MsmNaive)->Arg(16)->Arg(256)->Unit(benchmark::kMicrosecond);

void BM_FixedBaseTable(benchmark::State& state) {
  gopa::DeterministicRng rng(1);
  const gopa::FixedBaseTable table(gopa::Point::random(rng));
  const gopa::SecretScalar k = gopa::SecretScalar::random(rng);
  for (auto _ : state) benchmark::DoNotOptimize(table.mul(k));
}
BENCHMARK(BM_FixedBaseTable)->Unit(benchmark::kMicrosecond);

void BM_BaseMul(benchmark::State& state) {
  gopa::DeterministicRng rng(2);
  const gopa::SecretScalar k = gopa::SecretScalar::random(rng);
  for (auto _ : state) benchmark::DoNotOptimize(gopa::Point::base_mul(k));
}
BENCHMARK(BM_BaseMul)->Unit(benchmark::kMicrosecond);

void BM_ScalarMul(benchmark::State& state) {
  gopa::DeterministicRng rng(3);
  const gopa::Point p = gopa::Point::random(rng);
  const gopa::SecretScalar k = gopa::SecretScalar::random(rng);
  for (auto _ : state) benchmark::DoNotOptimize(p * k);
}
BENCHMARK(BM_ScalarMul)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
