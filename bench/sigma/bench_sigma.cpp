// Google Benchmark for the sigma layer: fresh transcripts per iteration, sizes swept.
// The human/JSON/CSV table with targets is `gopa bench proofs`.
#include <benchmark/benchmark.h>

#include "gopa/pedersen.hpp"
#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/range.hpp"

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

}  // namespace

BENCHMARK(BM_RangeProve)->ArgsProduct({{8, 16, 32, 64}, {1, 4, 16}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeVerify)->ArgsProduct({{8, 16, 32, 64}, {1, 4, 16}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeVerifyNaive)->Args({64, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RangeBatch64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CircuitProveVerify)
    ->ArgsProduct({{256, 1024, 4096}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(2);

BENCHMARK_MAIN();
