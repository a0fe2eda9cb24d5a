#include "poly.hpp"

#include <sodium.h>

#include <algorithm>
#include <cstdint>

#include <map>
#include <memory>
#include <mutex>

#include "gopa/sigma/field.hpp"
#include "gopa/check.hpp"
#include "ntt.hpp"

namespace gopa::sigma::poly {


namespace {
// 1/D_j for the points 0..deg, D_j = j!·(deg−j)!·(−1)^{deg−j}: cached per degree.
std::shared_ptr<const std::vector<field::Fe>> inverse_denominators(std::size_t deg) {
  static std::mutex mu;
  static std::map<std::size_t, std::shared_ptr<const std::vector<field::Fe>>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[deg];
  if (!slot) {
    std::vector<field::Fe> fact{field::one()};
    fact.reserve(deg + 1);
    for (std::size_t i = 1; i <= deg; ++i) fact.push_back(field::mul(fact.back(), field::from_u64(i)));
    std::vector<field::Fe> d(deg + 1);
    for (std::size_t j = 0; j <= deg; ++j) {
      d[j] = field::mul(fact[j], fact[deg - j]);
      if ((deg - j) % 2 == 1) d[j] = field::neg(d[j]);
    }
    field::batch_invert(d);
    slot = std::make_shared<const std::vector<field::Fe>>(std::move(d));
  }
  return slot;
}
}  // namespace

std::vector<field::Fe> lagrange_at(const Scalar& c, std::size_t deg) {
  std::vector<field::Fe> lo, hi;
  lagrange_pair(c, 0, deg, lo, hi);
  return hi;
}

void lagrange_pair(const Scalar& c, std::size_t lo_deg, std::size_t hi_deg,
                   std::vector<field::Fe>& lo, std::vector<field::Fe>& hi) {
  // λ_j = Π_{i≠j} (c−i) / D_j = prefix_j·suffix_j / D_j, prefix_j = Π_{i<j} (c−i) (shared by both
  // degrees), suffix_j = Π_{j<i≤deg} (c−i): no inversion at all (the 1/D_j are cached per degree),
  // about 11 multiplications per point of the lower degree plus 4 per point above it.
  // VARIABLE TIME: public data.
  GOPA_CHECK(lo_deg <= hi_deg, "lagrange_pair: degrees out of order");
  const auto inv_lo = inverse_denominators(lo_deg);
  const auto inv_hi = inverse_denominators(hi_deg);
  const field::Fe fc = field::of(c);
  const field::Fe one = field::one();
  hi.resize(hi_deg + 1);
  lo.resize(lo_deg + 1);
  field::Fe acc = one, cj = fc;
  for (std::size_t j = 0; j <= hi_deg; ++j) {
    hi[j] = acc;  // prefix_j
    if (j <= lo_deg) lo[j] = acc;
    acc = field::mul(acc, cj);
    cj = field::sub(cj, one);
  }
  // Times the suffix over 0..deg and 1/D_j, from the top (c − j recomputed downwards).
  auto finish = [&](std::vector<field::Fe>& w, std::size_t deg, const std::vector<field::Fe>& inv) {
    field::Fe suffix = one, ck = field::sub(fc, field::from_u64(deg));
    for (std::size_t j = deg + 1; j-- > 0;) {
      w[j] = field::mul(field::mul(w[j], suffix), inv[j]);
      suffix = field::mul(suffix, ck);
      ck = field::add(ck, one);
    }
  };
  finish(hi, hi_deg, *inv_hi);
  finish(lo, lo_deg, *inv_lo);
}

namespace {

using field::Fe;

constexpr std::size_t kLeaf = 16;  // schoolbook below this size
// From this many extrapolated values on, the Toeplitz product goes through number-theoretic
// transforms (ntt.hpp, O(m log m)) instead of Karatsuba (O(m^1.58)).
constexpr std::size_t kNttMin = 128;

// y[i] += Σ_j t[n−1+i−j]·x[j] for i, j < n (t: 2n−1 diagonals, public; x secret).
// Karatsuba-style Toeplitz splitting [[A, B], [C, A]]: three half-size products,
// T(n) = 3·T(n/2) + O(n). Temporaries come from `scratch` (4n elements suffice: 4·(n/2) per
// level), which the caller wipes. Constant time: the control flow depends on n only.
void tmvp(const Fe* t, const Fe* x, Fe* y, std::size_t n, Fe* scratch) {
  if (n <= kLeaf || n % 2 == 1) {
    for (std::size_t i = 0; i < n; ++i) {
      Fe acc = y[i];
      for (std::size_t j0 = 0; j0 < n; j0 += field::WideAcc::kMaxTerms) {
        field::WideAcc wide;  // lazy reduction: one per kMaxTerms products
        const std::size_t j1 = std::min(n, j0 + field::WideAcc::kMaxTerms);
        for (std::size_t j = j0; j < j1; ++j) wide.mac(t[n - 1 + i - j], x[j]);
        acc = field::add(acc, wide.reduce());
      }
      y[i] = acc;
    }
    return;
  }
  const std::size_t h = n / 2;
  const Fe* ta = t + h;       // A: diagonals t(d), |d| < h
  const Fe* tb = t;           // B: t(d − h)
  const Fe* tc = t + 2 * h;   // C: t(d + h)
  Fe* xs = scratch;
  Fe* p0 = scratch + h;
  Fe* tdiff = scratch + 2 * h;  // 2h − 1 elements
  Fe* deeper = scratch + 4 * h;
  // [[A, B], [C, A]]·(x0, x1) = (A(x0 + x1) + (B − A)x1, A(x0 + x1) + (C − A)x0).
  for (std::size_t j = 0; j < h; ++j) {
    xs[j] = field::add(x[j], x[h + j]);
    p0[j] = Fe{};
  }
  tmvp(ta, xs, p0, h, deeper);
  for (std::size_t k = 0; k < 2 * h - 1; ++k) tdiff[k] = field::sub(tb[k], ta[k]);
  tmvp(tdiff, x + h, y, h, deeper);
  for (std::size_t k = 0; k < 2 * h - 1; ++k) tdiff[k] = field::sub(tc[k], ta[k]);
  tmvp(tdiff, x, y + h, h, deeper);
  for (std::size_t i = 0; i < h; ++i) {
    y[i] = field::add(y[i], p0[i]);
    y[h + i] = field::add(y[h + i], p0[i]);
  }
}

// The smallest size ≥ m of the form k·2^j with k ≤ kLeaf: the product splits in halves j
// times and ends in k×k schoolbook blocks, with at most 1/kLeaf of padding (a power of two
// could nearly double the size, and the work by 3^(log2 2) = 3).
std::size_t toeplitz_size(std::size_t m) {
  std::size_t j = 0;
  while ((m + (std::size_t{1} << j) - 1) >> j > kLeaf) ++j;
  return ((m + (std::size_t{1} << j) - 1) >> j) << j;
}

}  // namespace

namespace {

// The public constants of an extrapolation from m + 1 values (docs/proofs.md §4):
// p(k) = N_k·Σ_j u_j/(k−j), u_j = p(j)/D_j, N_k = Π_{i=0..m}(k−i) = k!/(k−m−1)!,
// D_j = j!·(m−j)!·(−1)^{m−j}; for k = m+1+i and j = 1+j' the sum over j ≥ 1 is a Toeplitz
// product with diagonals t(i − j') = 1/(i − j' + m). Cached per m: a prover extrapolates f
// and g of the same size, and proves the same circuits again.
struct Extrapolation {
  std::size_t n = 0;             // Toeplitz size: m with transforms, toeplitz_size(m) without
  std::shared_ptr<const std::vector<Fe>> dinv;  // 1/D_j, j = 0..m (inverse_denominators)
  std::vector<Fe> t;             // diagonals t(d), d ∈ [−(n−1), n−1] (zero where only padding meets)
  std::unique_ptr<const ntt::ToeplitzPlan> plan;  // m ≥ kNttMin: the transforms of t instead
  std::vector<Fe> first;         // 1/(k − 0) for k = m+1..2m: the j = 0 term
  std::vector<Fe> scale;         // N_k for k = m+1..2m
};

std::shared_ptr<const Extrapolation> extrapolation(std::size_t m) {
  static std::mutex mu;
  static std::map<std::size_t, std::shared_ptr<const Extrapolation>> cache;
  std::lock_guard lock(mu);
  auto& slot = cache[m];
  if (slot) return slot;
  auto e = std::make_shared<Extrapolation>();
  const bool transform = m >= kNttMin && m <= ntt::kMaxSize;
  e->n = transform ? m : toeplitz_size(m);
  e->dinv = inverse_denominators(m);
  std::vector<Fe> fact(2 * m + 1);
  fact[0] = field::one();
  Fe k = field::one();
  const Fe one = field::one();
  for (std::size_t i = 1; i <= 2 * m; ++i) {
    fact[i] = field::mul(fact[i - 1], k);
    k = field::add(k, one);
  }
  std::vector<Fe> inv_fact(fact);
  field::batch_invert(inv_fact);
  std::vector<Fe> inv(2 * m + 1);  // 1/d for d = 1..2m
  for (std::size_t d = 1; d <= 2 * m; ++d) inv[d] = field::mul(fact[d - 1], inv_fact[d]);
  const std::size_t n = e->n;
  e->t.assign(2 * n - 1, Fe{});
  for (std::size_t i = 0; i < 2 * n - 1; ++i) {
    const auto dm = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(n - 1) +
                    static_cast<std::int64_t>(m);
    if (dm >= 1 && dm <= static_cast<std::int64_t>(2 * m)) e->t[i] = inv[static_cast<std::size_t>(dm)];
  }
  if (transform) {
    e->plan = std::make_unique<const ntt::ToeplitzPlan>(e->t);
    e->t = {};
  }
  e->first.resize(m);
  e->scale.resize(m);
  for (std::size_t i = 0; i < m; ++i) {
    const std::size_t kk = m + 1 + i;
    e->first[i] = inv[kk];
    e->scale[i] = field::mul(fact[kk], inv_fact[kk - m - 1]);
  }
  if (cache.size() > 16) {  // keep the cache small: drop everything else
    auto keep = e;
    cache.clear();
    cache[m] = keep;
    return keep;
  }
  slot = e;
  return e;
}

}  // namespace

std::vector<SecretScalar> extrapolate(std::span<const SecretScalar> values) {
  GOPA_CHECK(!values.empty(), "extrapolate: no values");
  const std::size_t m = values.size() - 1;
  if (m == 0) return {};
  const auto e = extrapolation(m);
  const std::size_t n = e->n;
  std::vector<Fe> u(m + 1);
  for (std::size_t j = 0; j <= m; ++j) u[j] = field::mul(field::of(values[j]), (*e->dinv)[j]);
  std::vector<Fe> x(n), y(n);
  for (std::size_t j = 1; j <= m; ++j) x[j - 1] = u[j];
  for (std::size_t i = 0; i < m; ++i) y[i] = field::mul(u[0], e->first[i]);  // j = 0 term
  if (e->plan) {
    e->plan->apply(x, y);
  } else {
    std::vector<Fe> scratch(4 * n);
    tmvp(e->t.data(), x.data(), y.data(), n, scratch.data());
    sodium_memzero(scratch.data(), scratch.size() * sizeof(Fe));
  }
  std::vector<SecretScalar> out;
  out.reserve(m);
  for (std::size_t i = 0; i < m; ++i) out.push_back(field::to_secret(field::mul(y[i], e->scale[i])));
  sodium_memzero(u.data(), u.size() * sizeof(Fe));
  sodium_memzero(x.data(), x.size() * sizeof(Fe));
  sodium_memzero(y.data(), y.size() * sizeof(Fe));
  return out;
}

}  // namespace gopa::sigma::poly
