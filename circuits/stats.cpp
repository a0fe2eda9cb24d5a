#include "gopa/circuits/stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "gopa/check.hpp"
#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/reference.hpp"
#include "gopa/random.hpp"

namespace gopa::circuits {

double normal_cdf(double x) noexcept { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

namespace {

std::vector<std::uint64_t> draw_seeds(Rng& rng, std::size_t count, unsigned m) {
  // One keystream call for the whole chunk (per-call generator overhead dominated otherwise).
  std::vector<std::uint8_t> bytes(count * 8U);
  rng.fill(bytes);
  std::vector<std::uint64_t> s(count);
  const std::uint64_t mask = (std::uint64_t{1} << m) - 1U;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t v = 0;
    for (std::size_t j = 0; j < 8; ++j) v |= static_cast<std::uint64_t>(bytes[8 * i + j]) << (8 * j);
    s[i] = v & mask;
  }
  return s;
}

}  // namespace

Quality measure_quality(const SamplerParams& p, std::size_t n, std::uint64_t rng_seed,
                        unsigned threads, std::size_t ref_n) {
  Quality q;
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t per_call = p.samples_per_call();
  const std::size_t calls = (n + per_call - 1) / per_call;
  threads = std::max(1U, threads);
  std::vector<std::vector<std::int64_t>> parts(threads);
  std::vector<std::size_t> fails(threads, 0);
  std::vector<std::thread> pool;
  const std::size_t chunk_calls = 4096;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      DeterministicRng rng(rng_seed * 1000003U + t);
      const std::size_t mine = calls / threads + (t < calls % threads ? 1U : 0U);
      parts[t].reserve(mine * per_call);
      for (std::size_t done = 0; done < mine; done += chunk_calls) {
        const std::size_t c = std::min(chunk_calls, mine - done);
        auto seeds = draw_seeds(rng, c * p.seeds_per_call(), p.m);
        // Per-call failure accounting: re-run calls one by one only if the chunk failed.
        if (!clear_samples(p, seeds, parts[t])) ++fails[t];
      }
    });
  }
  for (auto& th : pool) th.join();
  std::vector<double> xs;
  xs.reserve(calls * per_call);
  const double unit =
      std::ldexp(static_cast<double>(p.sigma_fx), static_cast<int>(p.f) - static_cast<int>(p.sigma_bits));
  for (auto& part : parts) {
    for (std::int64_t v : part) xs.push_back(static_cast<double>(v) / unit);
    std::vector<std::int64_t>().swap(part);
  }
  xs.resize(std::min(xs.size(), n));
  for (std::size_t f : fails) q.failed_calls += f;
  q.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  q.n = xs.size();
  double s1 = 0, s2 = 0;
  for (double x : xs) {
    s1 += x;
    s2 += x * x;
  }
  const auto nn = static_cast<double>(q.n);
  q.mean = s1 / nn;
  q.variance = s2 / nn - q.mean * q.mean;
  std::sort(xs.begin(), xs.end());
  // KS over distinct values (samples are discrete: ties share one jump).
  double ks = 0;
  for (std::size_t i = 0; i < xs.size();) {
    std::size_t j = i;
    while (j < xs.size() && xs[j] == xs[i]) ++j;
    const double cdf = normal_cdf(xs[i]);
    ks = std::max({ks, std::fabs(static_cast<double>(i) / nn - cdf),
                   std::fabs(static_cast<double>(j) / nn - cdf)});
    i = j;
  }
  q.ks = ks;
  double mse = 0;
  std::size_t idx = 0, points = 0;
  for (int g = -6000; g <= 6000; ++g, ++points) {
    const double x = g * 1e-3;
    while (idx < xs.size() && xs[idx] <= x) ++idx;
    const double d = static_cast<double>(idx) / nn - normal_cdf(x);
    mse += d * d;
  }
  q.mse_cdf = mse / static_cast<double>(points);
  std::vector<double>().swap(xs);
  // Reference comparison on a separate stream of the same generator family.
  DeterministicRng rng(rng_seed * 1000003U + 999U);
  const std::size_t rcalls = (std::min(ref_n, n) + per_call - 1) / per_call;
  auto seeds = draw_seeds(rng, rcalls * p.seeds_per_call(), p.m);
  std::vector<std::int64_t> got;
  if (!clear_samples(p, seeds, got)) ++q.failed_calls;
  const auto ref = reference_samples(p, seeds);
  GOPA_CHECK(ref.size() == got.size(), "reference size mismatch");
  q.ref_n = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    q.max_err_ulps = std::max(
        q.max_err_ulps, static_cast<double>(std::fabs(static_cast<long double>(got[i]) - ref[i])));
  return q;
}

Cost measure_cost(const SamplerParams& p, std::size_t d, std::uint64_t rng_seed) {
  const auto t0 = std::chrono::steady_clock::now();
  DeterministicRng rng(rng_seed);
  const std::size_t calls = (d + p.samples_per_call() - 1) / p.samples_per_call();
  const std::size_t need = calls * p.seeds_per_call();
  auto xs64 = draw_seeds(rng, need, p.m);
  auto ys64 = draw_seeds(rng, need, p.m);
  std::vector<i128> xs(xs64.begin(), xs64.end()), ys(ys64.begin(), ys64.end());
  Recorder rec(p.circuit_name(d));
  (void)gaussian_circuit(rec, p, xs, ys, d);
  GOPA_CHECK(check_witness(rec.circuit(), rec.values()).ok(), "honest witness rejected");
  Cost c;
  c.d = d;
  c.mul_gates = rec.circuit().muls.size();
  c.linear = rec.circuit().linear.size();
  c.vars = rec.circuit().vars.size();
  c.committed = rec.circuit().count(VarKind::kCommitted);
  c.publics = rec.circuit().count(VarKind::kPublic);
  const Bytes32 id = rec.circuit().id();
  c.circuit_id_hex = to_hex(id);
  c.record_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

}  // namespace gopa::circuits
