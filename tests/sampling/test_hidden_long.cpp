// Long statistical runs of hidden samples (ctest -L long).
#include <algorithm>
#include <cmath>
#include <vector>

#include <catch2/catch.hpp>

#include "gopa/sampling.hpp"
#include "hidden_tamper.hpp"

using namespace gopa;
using namespace gopa::sampling;

namespace {
double ks_normal(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  double d = 0;
  const double n = static_cast<double>(xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double cdf = 0.5 * std::erfc(-xs[i] / std::sqrt(2.0));
    d = std::max({d, std::fabs(cdf - static_cast<double>(i) / n),
                  std::fabs(cdf - static_cast<double>(i + 1) / n)});
  }
  return d;
}
}  // namespace

TEST_CASE("hidden long: 10^5 samples of the shared semantics are standard normal", "[long]") {
  const HiddenParams p = HiddenParams::make(16, 5);
  DeterministicRng rng(2024);
  const auto [lo, hi] = truncation_offset_range(p.members);
  const std::size_t nt = hidden_box_muller_counts(p).truncations;
  std::vector<double> xs;
  for (int i = 0; i < 50'000; ++i) {
    std::vector<int> off(nt);
    for (std::size_t t = 0; t < nt; ++t)
      off[t] = t + 2 < nt ? lo + static_cast<int>(rng.uniform(static_cast<std::uint64_t>(hi - lo + 1)))
                          : static_cast<int>(rng.uniform(2));
    const auto [a, b] = hidden_box_muller_reference(p, rng.next_u64() >> (64 - p.m),
                                                    rng.next_u64() >> (64 - p.m), off);
    xs.push_back(std::ldexp(static_cast<double>(a), -16));
    xs.push_back(std::ldexp(static_cast<double>(b), -16));
  }
  const double n = static_cast<double>(xs.size());
  CHECK(ks_normal(xs) < 1.63 / std::sqrt(n));
}

TEST_CASE("hidden long: samples computed on shares by the committee pass KS", "[long]") {
  HiddenParams p = HiddenParams::make(12, 3);
  p.paillier_bits = 704;  // insecure, tests only (one 668-bit reply slot)
  DeterministicRng rng(77);
  std::vector<double> xs;
  for (int i = 0; i < 100; ++i) {
    HiddenRun run = run_hidden_box_muller(p, {}, rng);
    REQUIRE(run.ok());
    for (const auto& s : run.output->samples)
      xs.push_back(std::ldexp(static_cast<double>(s.reveal()), -static_cast<int>(p.f)));
  }
  CHECK(ks_normal(xs) < 1.63 / std::sqrt(static_cast<double>(xs.size())));
}

TEST_CASE("hidden long: tampering anywhere in a log is rejected with a blame", "[long]") {
  HiddenParams p = HiddenParams::make(8, 3, 1.0, 4);
  p.paillier_bits = 704;  // insecure, tests only
  DeterministicRng rng(31);
  const std::vector<std::size_t> members{0, 1, 2};
  const Attempt a = hidden_box_muller_attempt(p, members, {}, rng);
  REQUIRE(a.output.has_value());
  const auto& log = a.log;
  REQUIRE(verify_hidden_log(p, members, log).ok);
  std::vector<std::size_t> sample = test::first_of_each_kind(log);
  for (std::size_t i = 1; i < log.size(); i += log.size() / 40) sample.push_back(i);
  sample.push_back(log.size() - 1);
  std::sort(sample.begin(), sample.end());
  sample.erase(std::unique(sample.begin(), sample.end()), sample.end());
  for (std::size_t i : sample) {
    test::tamper_payload(p, members, log, i, rng);
    test::tamper_message(p, members, log, i);
  }
  test::tamper_log(p, members, log);
}
