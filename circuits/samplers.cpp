#include "gopa/circuits/samplers.hpp"

#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>

#include "gopa/check.hpp"

namespace gopa::circuits {

const char* sampler_name(SamplerKind k) noexcept {
  switch (k) {
    case SamplerKind::kBoxMuller: return "box-muller";
    case SamplerKind::kPolar: return "polar";
    case SamplerKind::kInverseCdf: return "inverse-cdf";
    case SamplerKind::kClt: return "clt";
  }
  return "?";
}

SamplerParams SamplerParams::make(SamplerKind kind, unsigned f, double sigma) {
  GOPA_CHECK(f >= 8 && f <= 32, "output precision f must be in [8, 32]");
  GOPA_CHECK(sigma > 0 && sigma < 1e6, "sigma out of range");
  SamplerParams p;
  p.kind = kind;
  p.f = f;
  p.F = f + 4;
  p.m = p.F;
  switch (kind) {
    case SamplerKind::kBoxMuller: break;
    case SamplerKind::kPolar:
      // (1 − π/4)^k ≤ 2^-f: log2(1 − π/4) ≈ −2.22.
      p.extra = static_cast<unsigned>(std::ceil(f / 2.2197));
      break;
    case SamplerKind::kInverseCdf: p.extra = 12; break;
    case SamplerKind::kClt: {
      p.F = f;
      p.m = f;
      const unsigned j = f >= 20 ? 2U : (f >= 16 ? 1U : 0U);
      p.extra = 12U << (2 * j);
      break;
    }
  }
  if (sigma != 1.0) {
    p.sigma_bits = 16;
    p.sigma_fx = static_cast<i128>(std::llround(std::ldexp(sigma, 16)));
  }
  return p;
}

unsigned SamplerParams::seeds_per_call() const noexcept {
  switch (kind) {
    case SamplerKind::kBoxMuller: return 2;
    case SamplerKind::kPolar: return 2 * extra;
    case SamplerKind::kInverseCdf: return 1;
    case SamplerKind::kClt: return extra;
  }
  return 0;
}

unsigned SamplerParams::samples_per_call() const noexcept {
  return kind == SamplerKind::kBoxMuller || kind == SamplerKind::kPolar ? 2U : 1U;
}

std::string SamplerParams::circuit_name(std::size_t d) const {
  return std::string("gopa/circuits/") + sampler_name(kind) + "/v1 f=" + std::to_string(f) +
         " F=" + std::to_string(F) + " m=" + std::to_string(m) + " extra=" +
         std::to_string(extra) + " sigma=" + std::to_string(static_cast<long long>(sigma_fx)) +
         "/2^" + std::to_string(sigma_bits) + " d=" + std::to_string(d);
}

double SamplerParams::error_bound_ulps() const noexcept {
  // docs/circuits.md §5: working-precision error scaled to output ulps, plus the final floor.
  const double scale = std::ldexp(1.0, static_cast<int>(f) - static_cast<int>(F));
  const double sigma = std::ldexp(static_cast<double>(sigma_fx), -static_cast<int>(sigma_bits));
  switch (kind) {
    case SamplerKind::kBoxMuller: return 1.0 + sigma * scale * 48.0;
    case SamplerKind::kPolar: return 1.0 + sigma * scale * 64.0;
    case SamplerKind::kInverseCdf:
      // Acklam's relative error 1.15e-9 on |z| ≤ 6.4, plus fixed-point error at F + 12 bits.
      return 1.0 + sigma * (std::ldexp(7.4e-9, static_cast<int>(f)) + scale * 1.0);
    case SamplerKind::kClt: return 1.0;
  }
  return 0;
}

const AcklamTables& acklam_tables(unsigned F) {
  // P. J. Acklam's published coefficients for Φ^-1 (relative error 1.15e-9).
  static constexpr std::array<double, 6> a = {2.506628277459239e+00, -3.066479806614716e+01,
                                              1.383577518672690e+02, -2.759285104469687e+02,
                                              2.209460984245205e+02, -3.969683028665376e+01};
  static constexpr std::array<double, 6> bq = {1.0, -1.328068155288572e+01, 6.680131188771972e+01,
                                               -1.556989798598866e+02, 1.615858368580409e+02,
                                               -5.447609879822406e+01};
  static constexpr std::array<double, 6> c = {2.938163982698783e+00, 4.374664141464968e+00,
                                              -2.549732539343734e+00, -2.400758277161838e+00,
                                              -3.223964580411365e-01, -7.784894002430293e-03};
  static constexpr std::array<double, 5> d = {1.0, 3.754408661907416e+00, 2.445134137142996e+00,
                                              3.224671290700398e-01, 7.784695709041462e-03};
  static std::mutex mu;
  static std::map<unsigned, std::unique_ptr<AcklamTables>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[F];
  if (!slot) {
    slot = std::make_unique<AcklamTables>();
    slot->a = fixed_table(a, F, 0.25);
    slot->b = fixed_table(bq, F, 0.25);
    slot->c = fixed_table(c, F, 6.5);
    slot->d = fixed_table(d, F, 6.5);
    slot->p_low = static_cast<i128>(std::llround(std::ldexp(0.02425, static_cast<int>(F))));
  }
  return *slot;
}

bool clear_samples(const SamplerParams& p, std::span<const std::uint64_t> seeds,
                   std::vector<std::int64_t>& out) {
  const unsigned k = p.seeds_per_call();
  GOPA_CHECK(seeds.size() % k == 0, "seed count must be a multiple of seeds_per_call");
  ClearBuilder b;
  std::vector<i128> s(k);
  bool ok = true;
  for (std::size_t c = 0; c < seeds.size() / k; ++c) {
    for (unsigned i = 0; i < k; ++i) s[i] = static_cast<i128>(seeds[c * k + i]);
    b.reset();
    for (i128 z : sample_from_seeds(b, p, std::span<const i128>(s)))
      out.push_back(static_cast<std::int64_t>(z));
    ok = ok && b.ok();
  }
  return ok;
}

}  // namespace gopa::circuits
