// Real runs, hidden against private noise, planned for half the parties colluding: the average's
// noise with hidden samples is the trusted curator's (times 1 + slack), with private samples it is
// √(n/n_H) = √2 times that (docs/privacy.md §2, §8). Sessions of 8 parties, d = 2, fixed inputs;
// long-labelled (each hidden session runs the committee, with the insecure 704-bit test moduli).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "gopa/bulletin/board.hpp"
#include "gopa/protocol/run.hpp"

using namespace gopa;
using namespace gopa::protocol;

namespace {

int sessions(int fallback) {
  if (const char* v = std::getenv("GOPA_HIDDEN_ACCURACY_RUNS")) return std::max(8, std::atoi(v));
  return fallback;
}

struct Spread {
  double variance = 0;  // mean square error of the estimate, per coordinate
  int samples = 0;
};

Spread measure(NoiseMode mode, double sigma, int runs) {
  constexpr std::uint32_t n = 8, d = 2;
  std::vector<std::vector<std::uint64_t>> inputs;
  DeterministicRng in_rng(5);
  for (std::uint32_t u = 0; u < n; ++u) inputs.push_back({in_rng.uniform(std::uint64_t{50} << 16), in_rng.uniform(std::uint64_t{50} << 16)});
  double mean[d] = {0, 0};
  for (const auto& row : inputs) {
    for (std::uint32_t j = 0; j < d; ++j) mean[j] += static_cast<double>(row[j]) / 65536.0 / n;
  }
  Spread s;
  for (int r = 0; r < runs; ++r) {
    RunConfig cfg;
    cfg.params = SessionParams::defaults(n, d);
    cfg.params.input_max = std::uint64_t{50} << 16;  // the domain [0, 50]
    cfg.params.neighbors = 3;
    cfg.params.sigma_eta = sigma;
    cfg.params.sigma_delta = 40.0;
    cfg.params.nonce[0] = static_cast<std::uint8_t>(r);
    cfg.params.nonce[1] = static_cast<std::uint8_t>(mode);
    cfg.params.sampler = mode == NoiseMode::hidden ? SamplerKind::box_muller : SamplerKind::clt;
    cfg.params.sampler_precision = 8;
    if (mode == NoiseMode::hidden) {
      cfg.params.noise = NoiseMode::hidden;
      cfg.params.committee = 3;
      cfg.params.paillier_bits = 704;
    }
    cfg.seed = 7000 + static_cast<std::uint64_t>(r);
    cfg.inputs = inputs;
    auto board = bulletin::LocalBoard::open(bulletin::make_memory_store(), {}).value();
    auto report = run_session(cfg, *board);
    REQUIRE(report.ok());
    REQUIRE(report.value().counted.size() == n);
    REQUIRE(report.value().estimate.size() == d);
    for (std::uint32_t j = 0; j < d; ++j) {
      const double e = report.value().estimate[j] - mean[j];
      s.variance += e * e;
      ++s.samples;
    }
  }
  s.variance /= s.samples;
  return s;
}

}  // namespace

TEST_CASE("Half the parties colluding: hidden noise gives the curator's accuracy, private noise √2 worse",
          "[protocol][accuracy][hidden]") {
  const int runs = sessions(40);
  constexpr double n = 8, honest = 4;
  const double sigma_central = 4.0;  // the trusted curator's noise on the sum for the target (ε, δ)
  const double slack = 1.05;
  const double sigma_hidden = slack * sigma_central;                    // one sample on the sum
  const double sigma_private = slack * sigma_central / std::sqrt(honest);  // each party's own
  const Spread hidden = measure(NoiseMode::hidden, sigma_hidden, runs);
  const Spread priv = measure(NoiseMode::private_samples, sigma_private, runs);
  const double want_hidden = sigma_hidden * sigma_hidden / (n * n);
  const double want_private = sigma_private * sigma_private / n;
  const double curator = sigma_central * sigma_central / (n * n);
  INFO("std of the average: hidden " << std::sqrt(hidden.variance) << " (expected " << std::sqrt(want_hidden)
       << "), private " << std::sqrt(priv.variance) << " (expected " << std::sqrt(want_private) << "), curator "
       << std::sqrt(curator) << "; " << hidden.samples << " samples each");
  // χ² bounds at about 4.5 standard deviations.
  const double spread_h = 4.5 * std::sqrt(2.0 / hidden.samples), spread_p = 4.5 * std::sqrt(2.0 / priv.samples);
  CHECK(hidden.variance / want_hidden > 1.0 - spread_h);
  CHECK(hidden.variance / want_hidden < 1.0 + spread_h + 20.0 / hidden.samples);
  CHECK(priv.variance / want_private > 1.0 - spread_p);
  CHECK(priv.variance / want_private < 1.0 + spread_p + 20.0 / priv.samples);
  // Private noise is √(n/n_H) = √2 times worse in std (variance ratio 2).
  CHECK(priv.variance / hidden.variance > 1.2);
  WARN("std of the average: hidden " << std::sqrt(hidden.variance) << ", private " << std::sqrt(priv.variance)
       << ", curator " << std::sqrt(curator) << " (" << hidden.samples << " samples each)");
}
