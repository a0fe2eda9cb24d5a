// Small-sample statistical sanity (default suite): KS distance of each sampler within the
// Kolmogorov bound, mean and variance close to N(0, 1), circuit constraints all satisfied.
// GOPA_TEST_SAMPLES overrides the sample count (e.g. 10000 under sanitizers).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>

#include "gopa/circuits/stats.hpp"
#include "sanitize.hpp"

using namespace gopa::circuits;

namespace {

std::size_t samples(std::size_t dflt) {
  const char* s = std::getenv("GOPA_TEST_SAMPLES");
  return s != nullptr && std::atol(s) > 0 ? static_cast<std::size_t>(std::atol(s)) : dflt;
}

}  // namespace

TEST_CASE("every sampler passes a KS test on 10^5 samples", "[circuits][statistics]") {
  const std::size_t n = samples(test::kScale == 1 ? 100'000 : 10'000);  // 10^4 under sanitizers
  // P(D_n > 1.95/√n) ≈ 0.1% for the ideal distribution; the fixed-point and (CLT) model errors
  // are far below that at these sizes.
  const double bound = 1.95 / std::sqrt(static_cast<double>(n));
  for (auto kind : {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf,
                    SamplerKind::kClt}) {
    const auto p = SamplerParams::make(kind, 16);
    const Quality q = measure_quality(p, n, 42, 2, 2000);
    INFO(sampler_name(kind) << ": n=" << q.n << " KS=" << q.ks << " (bound " << bound << ") mean="
                            << q.mean << " var=" << q.variance << " max err " << q.max_err_ulps);
    CHECK(q.n == n);
    CHECK(q.failed_calls == 0);
    CHECK(q.ks < bound);
    CHECK(std::fabs(q.mean) < 5.0 / std::sqrt(static_cast<double>(n)));
    CHECK(std::fabs(q.variance - 1.0) < 10.0 / std::sqrt(static_cast<double>(n)));
    CHECK(q.max_err_ulps <= p.error_bound_ulps());
  }
}
