// Accuracy of the released average over repeated sessions with fixed inputs: its variance is
// σ_η²/n (the pairwise terms cancel exactly), while each published X̂_u alone carries the
// pairwise noise Σ_v Δ_uv, whose variance is deg(u)·σ_Δ².
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;

namespace {

// GOPA_ACCURACY_RUNS overrides the number of sessions (the long-labelled run uses more).
int sessions(int fallback) {
  if (const char* v = std::getenv("GOPA_ACCURACY_RUNS")) return std::max(8, std::atoi(v));
  return fallback;
}

void check_accuracy(int runs) {
  constexpr std::uint32_t n = 8;
  constexpr double sigma_eta = 1.0, sigma_delta = 40.0;
  std::vector<std::uint64_t> inputs;
  DeterministicRng in_rng(99);
  for (std::uint32_t u = 0; u < n; ++u) inputs.push_back(in_rng.uniform(std::uint64_t{100} << 16));
  double mean = 0;
  for (auto x : inputs) mean += static_cast<double>(x) / 65536.0 / n;

  double sq_err = 0, sq_mask = 0, sq_mask_expected = 0;
  std::size_t masks = 0;
  for (int r = 0; r < runs; ++r) {
    RunConfig cfg;
    cfg.params = SessionParams::defaults(n, 1);
    cfg.params.input_max = std::uint64_t{100} << 16;  // the domain [0, 100]
    cfg.params.neighbors = 2;
    cfg.params.sigma_eta = sigma_eta;
    cfg.params.sigma_delta = sigma_delta;
    cfg.params.sampler = SamplerKind::clt;  // sum of 12 uniforms: variance exactly σ² (f = 8)
    cfg.params.sampler_precision = 8;
    cfg.params.nonce[0] = static_cast<std::uint8_t>(r);
    cfg.params.nonce[1] = static_cast<std::uint8_t>(r >> 8);
    cfg.seed = 1000 + static_cast<std::uint64_t>(r);
    for (auto x : inputs) cfg.inputs.push_back({x});
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto report = run_session(cfg, *board);
    REQUIRE(report.ok());
    REQUIRE(report.value().counted.size() == n);
    const double e = report.value().estimate[0] - mean;
    sq_err += e * e;
    for (const auto& [u, xhat] : report.value().published) {
      const double m = xhat[0] - static_cast<double>(inputs[u]) / 65536.0;
      sq_mask += m * m;
      ++masks;
    }
    // Mean degree of a k-out graph: 2k less the pairs that picked each other, 2k·(1 − k/(n−1)).
    const double k = cfg.params.neighbors;
    sq_mask_expected += 2.0 * k * (1.0 - k / (n - 1.0)) * sigma_delta * sigma_delta * n;
  }
  // Sample variance of the estimate against σ_η²/n: runs·s²/σ² ~ χ²(runs). Bounds at about
  // 4.5 standard deviations of χ² (a failure is not chance: inputs and seeds are fixed).
  const double expected = sigma_eta * sigma_eta / n;
  const double ratio = sq_err / runs / expected;
  const double spread = 4.5 * std::sqrt(2.0 / runs);
  INFO("variance of the estimate / (σ_η²/n) = " << ratio << " over " << runs << " sessions");
  CHECK(ratio > 1.0 - spread);
  CHECK(ratio < 1.0 + spread + 4.5 * 4.5 / runs);
  // A published value alone: its pairwise noise dwarfs σ_η.
  const double mask_var = sq_mask / static_cast<double>(masks);
  INFO("mean square of X̂_u − X_u = " << mask_var << ", expected ≈ " << sq_mask_expected / static_cast<double>(masks));
  CHECK(mask_var > 100.0 * sigma_eta * sigma_eta);
  CHECK(mask_var > 0.5 * sq_mask_expected / static_cast<double>(masks));
  CHECK(mask_var < 2.0 * sq_mask_expected / static_cast<double>(masks));
}

}  // namespace

TEST_CASE("The estimate's variance over sessions is σ_η²/n; each X̂_u is masked by pairwise noise",
          "[protocol][accuracy]") {
  check_accuracy(sessions(48));
}
