#include "ntt.hpp"

#include <sodium.h>

#include <algorithm>
#include <mutex>

#include "../group/simd.hpp"
#include "gopa/check.hpp"
#include "ntt_ifma.hpp"

namespace gopa::sigma::ntt {

namespace {

using field::u128;
using u64 = std::uint64_t;

// ---------------------------------------------------------------- arithmetic mod p < 2^61

// x − m if x ≥ m, else x, for m ≤ 2^63 and x < m + 2^63 (so x − m wraps past 2^63 exactly when
// x < m): the top bit of x − m selects, no branch.
[[gnu::always_inline]] inline u64 csub(u64 x, u64 m) {
  const u64 d = x - m;
  return d + (m & (0 - (d >> 63)));
}

// Shoup's multiplication by a fixed w < p with ws = ⌊w·2^64/p⌋: a·w mod p, in [0, 2p), for
// any a < 2^64.
[[gnu::always_inline]] inline u64 shoup(u64 a, u64 w, u64 ws, u64 p) {
  const u64 q = static_cast<u64>((static_cast<u128>(a) * ws) >> 64);
  return a * w - q * p;
}

u64 shoup_pre(u64 w, u64 p) { return static_cast<u64>((static_cast<u128>(w) << 64) / p); }

// Montgomery product a·b·2^−64 mod p in [0, 2p), a, b < p; pinv = −p^−1 mod 2^64.
[[gnu::always_inline]] inline u64 mont(u64 a, u64 b, u64 p, u64 pinv) {
  const u128 t = static_cast<u128>(a) * b;
  const u64 m = static_cast<u64>(t) * pinv;
  return static_cast<u64>((t + static_cast<u128>(m) * p) >> 64);
}

// Variable time (public constants only).
u64 mulmod(u64 a, u64 b, u64 p) { return static_cast<u64>(static_cast<u128>(a) * b % p); }
u64 powmod(u64 a, u64 e, u64 p) {
  u64 r = 1;
  for (; e; e >>= 1, a = mulmod(a, a, p))
    if (e & 1) r = mulmod(r, a, p);
  return r;
}

struct Consts {
  std::array<u64, kPrimes> pinv{};
  std::array<u64, kPrimes> r64{};  // 2^64 mod p
  // 2^(64·l) mod p and its Shoup companion, l = 0..3 (reduction of a 256-bit integer).
  std::array<std::array<u64, 4>, kPrimes> limb{}, limb_s{};
  // Garner: p_j^−1 mod p_i for j < i, with Shoup companions.
  std::array<std::array<u64, kPrimes>, kPrimes> inv{}, inv_s{};
  // Π_{j<i} p_j mod ℓ, Montgomery form.
  std::array<field::Fe, kPrimes> radix{};
};

const Consts& consts() {
  static const Consts c = [] {
    Consts k;
    field::Fe m = field::one();
    for (std::size_t i = 0; i < kPrimes; ++i) {
      const u64 p = kP[i];
      u64 inv = 1;  // p^−1 mod 2^64 by Newton's iteration
      for (int it = 0; it < 6; ++it) inv *= 2 - p * inv;
      k.pinv[i] = 0 - inv;
      k.r64[i] = static_cast<u64>((static_cast<u128>(1) << 64) % p);
      u64 s = 1;
      for (std::size_t l = 0; l < 4; ++l) {
        k.limb[i][l] = s;
        k.limb_s[i][l] = shoup_pre(s, p);
        s = mulmod(s, k.r64[i], p);
      }
      for (std::size_t j = 0; j < i; ++j) {
        k.inv[j][i] = powmod(kP[j] % p, p - 2, p);
        k.inv_s[j][i] = shoup_pre(k.inv[j][i], p);
      }
      k.radix[i] = m;
      m = field::mul(m, field::from_u64(p));
    }
    return k;
  }();
  return c;
}

}  // namespace

void stage_roots(u64 q, u64 root, unsigned log, std::vector<u64>& z, std::vector<u64>& zi) {
  const std::size_t n = std::size_t{1} << log;
  z.assign(n, 0);
  zi.assign(n, 0);
  for (unsigned s = 0; s < log; ++s) {
    const u64 w = powmod(root, u64{1} << (kMaxLog - s - 1), q);  // order 2^(s+1)
    const u64 wi = powmod(w, q - 2, q);
    const std::size_t blocks = std::size_t{1} << s;
    u64 pw = 1, pwi = 1;
    for (std::size_t e = 0; e < blocks; ++e) {  // ζ for the block whose reversal is e
      std::size_t b = 0;
      for (unsigned bit = 0; bit < s; ++bit) b |= ((e >> bit) & 1U) << (s - 1 - bit);
      z[blocks + b] = pw;
      zi[blocks + b] = pwi;
      pw = mulmod(pw, w, q);
      pwi = mulmod(pwi, wi, q);
    }
  }
}

// Twiddles of the transforms of size 2^log for every log ≤ this table's (stage_roots). The
// entries do not depend on the transform size, so one table serves every smaller size. Per
// prime: ζ, its Shoup companion, ζ^−1, companion.
struct Roots {
  unsigned log = 0;
  std::array<std::vector<u64>, kPrimes> z, zs, zi, zis;
};

namespace {

std::shared_ptr<const Roots> roots(unsigned log) {
  static std::mutex mu;
  static std::shared_ptr<const Roots> cached;
  std::lock_guard lock(mu);
  if (cached && cached->log >= log) return cached;
  auto r = std::make_shared<Roots>();
  r->log = log;
  const std::size_t n = std::size_t{1} << log;
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const u64 p = kP[k];
    auto& z = r->z[k];
    auto& zi = r->zi[k];
    stage_roots(p, kRoot[k], log, z, zi);
    r->zs[k].resize(n);
    r->zis[k].resize(n);
    for (std::size_t i = 1; i < n; ++i) {
      r->zs[k][i] = shoup_pre(z[i], p);
      r->zis[k][i] = shoup_pre(zi[i], p);
    }
  }
  cached = r;
  return r;
}

// In place, natural order in, bit-reversed order out (Cooley–Tukey butterflies), values < p.
void forward(u64* a, unsigned log, const Roots& r, std::size_t k) {
  const u64 p = kP[k];
  const u64* z = r.z[k].data();
  const u64* zs = r.zs[k].data();
  const std::size_t n = std::size_t{1} << log;
  std::size_t idx = 1;
  for (std::size_t len = n / 2; len >= 1; len /= 2) {
    for (std::size_t start = 0; start < n; start += 2 * len, ++idx) {
      const u64 w = z[idx], ws = zs[idx];
      u64* lo = a + start;
      u64* hi = lo + len;
      for (std::size_t j = 0; j < len; ++j) {
        const u64 t = csub(shoup(hi[j], w, ws, p), p);
        const u64 u = lo[j];
        lo[j] = csub(u + t, p);
        hi[j] = csub(u + p - t, p);
      }
    }
  }
}

// The inverse without the factor 2^−log: bit-reversed in, natural out (Gentleman–Sande).
void inverse(u64* a, unsigned log, const Roots& r, std::size_t k) {
  const u64 p = kP[k];
  const u64* z = r.zi[k].data();
  const u64* zs = r.zis[k].data();
  const std::size_t n = std::size_t{1} << log;
  for (std::size_t len = 1, blocks = n / 2; len < n; len *= 2, blocks /= 2) {
    for (std::size_t b = 0; b < blocks; ++b) {
      const u64 w = z[blocks + b], ws = zs[blocks + b];
      u64* lo = a + 2 * len * b;
      u64* hi = lo + len;
      for (std::size_t j = 0; j < len; ++j) {
        const u64 u = lo[j], v = hi[j];
        lo[j] = csub(u + v, p);
        hi[j] = csub(shoup(u + p - v, w, ws, p), p);
      }
    }
  }
}

// The 256-bit integer a mod p_k.
[[gnu::always_inline]] inline u64 residue(const field::Fe& a, const Consts& c, std::size_t k) {
  const u64 p = kP[k];
  u64 s = 0;  // four terms < 2p each: < 8p < 2^64
  for (std::size_t l = 0; l < 4; ++l) s += shoup(a.v[l], c.limb[k][l], c.limb_s[k][l], p);
  s = csub(s, 4 * p);
  s = csub(s, 2 * p);
  return csub(s, p);
}

}  // namespace

std::array<u64, kPrimes> residues(const field::Fe& a) {
  const Consts& c = consts();
  std::array<u64, kPrimes> r{};
  for (std::size_t k = 0; k < kPrimes; ++k) r[k] = residue(a, c, k);
  return r;
}

field::Fe reconstruct(const std::array<u64, kPrimes>& r) {
  const Consts& c = consts();
  // Mixed radix: X = v_0 + v_1·p_0 + v_2·p_0·p_1 + …, v_i < p_i (Garner).
  std::array<u64, kPrimes> v{};
  v[0] = r[0];
  for (std::size_t i = 1; i < kPrimes; ++i) {
    const u64 p = kP[i];
    u64 x = r[i];
    for (std::size_t j = 0; j < i; ++j) {
      const u64 vj = csub(v[j], p);  // v_j < 2^61 < 2·p_i
      x = csub(shoup(x + p - vj, c.inv[j][i], c.inv_s[j][i], p), p);
    }
    v[i] = x;
  }
  field::WideAcc acc;
  for (std::size_t i = 0; i < kPrimes; ++i) acc.mac(field::Fe{{v[i], 0, 0, 0}}, c.radix[i]);
  const field::Fe out = acc.reduce();
  sodium_memzero(v.data(), sizeof v);
  sodium_memzero(&acc, sizeof acc);
  return out;
}

ToeplitzPlan::ToeplitzPlan(std::span<const field::Fe> t) {
  GOPA_CHECK(t.size() % 2 == 1, "ToeplitzPlan: 2n − 1 diagonals");
  n_ = (t.size() + 1) / 2;
  GOPA_CHECK(n_ >= 1 && n_ <= kMaxSize, "ToeplitzPlan: size out of range");
  log_ = 1;
  while ((std::size_t{1} << log_) < t.size()) ++log_;
  ifma_shape_ = ifma::shape(n_);
  // The diagonals as integers (out of Montgomery form): the product of x's Montgomery
  // representatives by them is then the Montgomery representative of the product.
  std::vector<field::Fe> plain(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) {
    const Scalar s = field::to_scalar(t[i]);
    for (int l = 0; l < 4; ++l) plain[i].v[l] = s.raw()->limb[l];
  }
  made_ifma_ = detail::ifma_enabled();
  if (made_ifma_) {
    std::call_once(ifma_once_, [&] { build_ifma(plain); });
  } else {
    std::call_once(portable_once_, [&] { build_portable(plain); });
  }
}

void ToeplitzPlan::build_portable(std::span<const field::Fe> plain) const {
  roots_ = roots(log_);
  const std::size_t big = std::size_t{1} << log_;
  const Consts& c = consts();
  that_.assign(kPrimes * big, 0);
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const u64 p = kP[k];
    u64* a = &that_[k * big];
    for (std::size_t i = 0; i < plain.size(); ++i) a[i] = residue(plain[i], c, k);
    forward(a, log_, *roots_, k);
    // Pointwise factor for mont(): t̂·2^−log·2^64.
    const u64 scale = mulmod(powmod(big % p, p - 2, p), c.r64[k], p);
    for (std::size_t i = 0; i < big; ++i) a[i] = mulmod(a[i], scale, p);
  }
}

void ToeplitzPlan::build_ifma(std::span<const field::Fe> plain) const {
  ifma_roots_ = ifma::roots(ifma_shape_.log);
  ifma_that_ = ifma::transform(plain, ifma_shape_, *ifma_roots_);
}

std::vector<field::Fe> ToeplitzPlan::diagonals() const {
  if (made_ifma_) return ifma::untransform(ifma_that_, ifma_shape_, *ifma_roots_);
  const std::size_t count = 2 * n_ - 1;
  // inverse() (without 2^−log) of the tables t̂·2^−log·2^64: the residues of t times 2^64.
  const std::size_t big = std::size_t{1} << log_;
  const Consts& c = consts();
  std::vector<u64> buf(big);
  std::vector<std::array<u64, kPrimes>> res(count);
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const u64 p = kP[k];
    std::copy(that_.begin() + static_cast<std::ptrdiff_t>(k * big),
              that_.begin() + static_cast<std::ptrdiff_t>((k + 1) * big), buf.begin());
    inverse(buf.data(), log_, *roots_, k);
    const u64 unscale = powmod(c.r64[k], p - 2, p);
    for (std::size_t i = 0; i < count; ++i) res[i][k] = mulmod(buf[i], unscale, p);
  }
  std::vector<field::Fe> plain(count);
  for (std::size_t i = 0; i < count; ++i) plain[i] = reconstruct(res[i]);
  return plain;
}

void ToeplitzPlan::apply(std::span<const field::Fe> x, std::span<field::Fe> y) const {
  GOPA_CHECK(x.size() == n_ && y.size() == n_, "ToeplitzPlan::apply: sizes");
  if (detail::ifma_enabled()) {
    std::call_once(ifma_once_, [this] { build_ifma(diagonals()); });
    ifma::apply(x, y, ifma_that_, ifma_shape_, *ifma_roots_);
    return;
  }
  std::call_once(portable_once_, [this] { build_portable(diagonals()); });
  const std::size_t big = std::size_t{1} << log_;
  const Consts& c = consts();
  std::vector<u64> buf(big);
  std::vector<std::array<u64, kPrimes>> res(n_);
  for (std::size_t k = 0; k < kPrimes; ++k) {
    const u64 p = kP[k], pinv = c.pinv[k];
    for (std::size_t j = 0; j < n_; ++j) buf[j] = residue(x[j], c, k);
    std::fill(buf.begin() + static_cast<std::ptrdiff_t>(n_), buf.end(), u64{0});
    forward(buf.data(), log_, *roots_, k);
    const u64* th = &that_[k * big];
    for (std::size_t i = 0; i < big; ++i) buf[i] = csub(mont(buf[i], th[i], p, pinv), p);
    inverse(buf.data(), log_, *roots_, k);
    // Entries n−1 .. 2n−2 of the cyclic convolution (no wrap-around: 2^log ≥ 2n − 1).
    for (std::size_t i = 0; i < n_; ++i) res[i][k] = buf[n_ - 1 + i];
  }
  for (std::size_t i = 0; i < n_; ++i) y[i] = field::add(y[i], reconstruct(res[i]));
  sodium_memzero(buf.data(), buf.size() * sizeof(u64));
  sodium_memzero(res.data(), res.size() * sizeof(res[0]));
}

}  // namespace gopa::sigma::ntt
