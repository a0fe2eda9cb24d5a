// Fixed-base exponentiations for the ring-Pedersen commitments of Π_enc (rp_exp.hpp).
#include "rp_exp.hpp"

#include <sodium.h>

#include <algorithm>
#include <tuple>
#include <utility>

#include "gopa/check.hpp"
#include "modarith.hpp"

namespace gopa::sampling {
namespace {

static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");

using modarith::limbs_of;
using modarith::redc;

constexpr std::size_t kMaxAutoTableBytes = std::size_t{4} << 20;

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// The w-bit digit of x (little-endian limbs, at least one limb past bit + w) at bit `bit`:
// the limb indices and shifts depend on the public position only.
mp_limb_t digit_at(const mp_limb_t* x, std::size_t bit, unsigned w) {
  const std::size_t lo = bit / 64;
  const unsigned sh = static_cast<unsigned>(bit % 64);
  mp_limb_t d = x[lo] >> sh;
  if (sh + w > 64) d |= x[lo + 1] << (64 - sh);
  return d & ((mp_limb_t{1} << w) - 1);
}

BigInt import_limbs(const mp_limb_t* a, std::size_t n) {
  BigInt out;
  mpz_import(out.get(), n, -1, sizeof(mp_limb_t), 0, 0, a);
  return out;
}

}  // namespace

// ---------------------------------------------------------------- Montgomery context

namespace rp_detail {

Mont::Mont(const BigInt& modulus) : m(modulus) {
  GOPA_CHECK(mpz_odd_p(m.get()) != 0 && mpz_cmp_ui(m.get(), 1) > 0, "an odd modulus > 1");
  const auto n = static_cast<mp_size_t>(mpz_size(m.get()));
  limbs.resize(static_cast<std::size_t>(n));
  limbs_of(m, limbs.data(), n);
  mp_limb_t inv = limbs[0];  // m·inv ≡ 1 mod 8; each Newton step doubles the correct bits
  for (int i = 0; i < 5; ++i) inv *= 2 - limbs[0] * inv;
  minv = mp_limb_t{0} - inv;
  BigInt r;
  mpz_setbit(r.get(), static_cast<mp_bitcnt_t>(64 * n));
  mpz_mod(r.get(), r.get(), m.get());
  one.resize(limbs.size());
  limbs_of(r, one.data(), n);
  mpz_mul(r.get(), r.get(), r.get());
  mpz_mod(r.get(), r.get(), m.get());
  r2.resize(limbs.size());
  limbs_of(r, r2.data(), n);
}

void Mont::to_mont(const BigInt& v, mp_limb_t* out) const {
  BigInt r;
  mpz_mod(r.get(), v.get(), m.get());
  mpz_mul_2exp(r.get(), r.get(), static_cast<mp_bitcnt_t>(64 * limbs.size()));
  mpz_mod(r.get(), r.get(), m.get());
  limbs_of(r, out, n());
}

// acc·R^(−1) ≤ m after one reduction of a < R.
void Mont::from_mont(mp_limb_t* out, const mp_limb_t* a, mp_limb_t* t, mp_limb_t* tmp) const {
  const auto un = limbs.size();
  std::fill(t, t + 2 * un, mp_limb_t{0});
  std::copy(a, a + un, t);
  redc(out, t, limbs.data(), n(), minv);
  const mp_limb_t borrow = mpn_sub_n(tmp, out, limbs.data(), n());
  mpn_cnd_swap(borrow ^ 1, out, tmp, n());
}

void Mont::mul_reduced(mp_limb_t* out, const mp_limb_t* a, const mp_limb_t* b, mp_limb_t* t,
                       mp_limb_t* tmp, mp_limb_t* scratch) const {
  mpn_sec_mul(t, a, n(), b, n(), scratch);
  redc(out, t, limbs.data(), n(), minv);
  const mp_limb_t borrow = mpn_sub_n(tmp, out, limbs.data(), n());
  mpn_cnd_swap(borrow ^ 1, out, tmp, n());
}

void Mont::power_rows(const BigInt& g, unsigned w, std::size_t rows, mp_limb_t* tab,
                      std::size_t stride) const {
  const auto un = limbs.size();
  const std::size_t count = (std::size_t{1} << w) - 1;  // digits 1 .. 2^w − 1
  std::vector<mp_limb_t> b(un), t(2 * un);
  to_mont(g, b.data());
  for (std::size_t i = 0; i < rows; ++i) {
    mp_limb_t* row = tab + i * stride;
    std::copy(b.begin(), b.end(), row);
    for (std::size_t d = 1; d < count; ++d) {
      mpn_mul_n(t.data(), row + (d - 1) * un, b.data(), n());
      redc(row + d * un, t.data(), limbs.data(), n(), minv);
    }
    if (i + 1 < rows) {  // b ← b^(2^w) = g^(2^(w·(i+1)))
      mpn_mul_n(t.data(), row + (count - 1) * un, b.data(), n());
      redc(b.data(), t.data(), limbs.data(), n(), minv);
    }
  }
}

FixedBaseVar::FixedBaseVar(const BigInt& g, const Mont& mont, unsigned max_bits, unsigned window)
    : max_bits_(max_bits), w_(window), windows_(ceil_div(max_bits, window)) {
  GOPA_CHECK(window >= 1 && window <= 12 && max_bits > 0, "a window of 1 to 12 bits");
  const mp_size_t n = mont.n();
  const auto un = static_cast<std::size_t>(n);
  const std::size_t entries = (std::size_t{1} << w_) - 1;  // digits 1 .. 2^w − 1
  tab_.resize(windows_ * entries * un);
  mont.power_rows(g, w_, windows_, tab_.data(), entries * un);
}

void FixedBaseVar::walk(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont,
                        mp_limb_t* t, bool sec, mp_limb_t* scratch) const {
  GOPA_CHECK(mpz_sgn(e.get()) >= 0 && e.bits() <= max_bits_, "exponent within the table");
  const mp_size_t n = mont.n();
  const auto un = static_cast<std::size_t>(n);
  const std::size_t entries = (std::size_t{1} << w_) - 1;
  const std::size_t windows = ceil_div(e.bits(), w_);
  const mp_limb_t mask = (mp_limb_t{1} << w_) - 1;
  for (std::size_t i = 0; i < windows; ++i) {
    const std::size_t bit = i * w_;
    const auto lo = static_cast<mp_size_t>(bit / 64);
    const unsigned sh = static_cast<unsigned>(bit % 64);
    mp_limb_t d = mpz_getlimbn(e.get(), lo) >> sh;
    if (sh + w_ > 64) d |= mpz_getlimbn(e.get(), lo + 1) << (64 - sh);
    d &= mask;
    if (d == 0) continue;  // a public digit
    const mp_limb_t* entry = &tab_[(i * entries + (d - 1)) * un];
    if (!*started) {
      std::copy(entry, entry + un, acc);
      *started = true;
      continue;
    }
    if (sec)
      mpn_sec_mul(t, acc, n, entry, n, scratch);
    else
      mpn_mul_n(t, acc, entry, n);
    redc(acc, t, mont.limbs.data(), n, mont.minv);
  }
}

void FixedBaseVar::mul_pow(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont,
                           mp_limb_t* t) const {
  walk(acc, started, e, mont, t, false, nullptr);
}

void FixedBaseVar::mul_pow_ct(mp_limb_t* acc, bool* started, const BigInt& e, const Mont& mont,
                              mp_limb_t* t, mp_limb_t* scratch) const {
  walk(acc, started, e, mont, t, true, scratch);
}

}  // namespace rp_detail

// ---------------------------------------------------------------- FixedBaseSec

FixedBaseSec::FixedBaseSec(const BigInt& g, const BigInt& modulus, unsigned max_bits,
                           unsigned window)
    : mont_(modulus), max_bits_(max_bits) {
  GOPA_CHECK(max_bits > 0, "exponents of at least one bit");
  GOPA_CHECK(window <= 8, "a window of at most 8 bits");
  const mp_size_t n = mont_.n();
  const auto un = static_cast<std::size_t>(n);
  const auto bytes = [&](unsigned w) {
    return ceil_div(max_bits, w) * (std::size_t{1} << w) * un * sizeof(mp_limb_t);
  };
  w_ = window != 0 ? window : (bytes(5) <= kMaxAutoTableBytes ? 5U : 4U);
  windows_ = ceil_div(max_bits, w_);
  const std::size_t entries = std::size_t{1} << w_;
  tab_.resize(windows_ * entries * un);
  // Public data: GMP's variable-time multiplication. Each row is 1 (digit 0), then the powers.
  mont_.power_rows(g, w_, windows_, tab_.data() + un, entries * un);
  for (std::size_t i = 0; i < windows_; ++i)
    std::copy(mont_.one.begin(), mont_.one.end(), tab_.begin() + static_cast<std::ptrdiff_t>(i * entries * un));
}

BigInt FixedBaseSec::pow(const BigInt& x) const {
  const FixedBaseSec* self[1] = {this};
  return multi_pow_sec(self, std::span<const BigInt>(&x, 1));
}

// The core of multi_pow_sec and mul_pow_sec: Π g_i^(e_i)·R mod M into acc (n limbs, < R;
// Montgomery form), constant time (rp_exp.hpp).
struct FixedBaseAccess {
  static const rp_detail::Mont& check(std::span<const FixedBaseSec* const> bases,
                                      std::span<const BigInt> exps, std::span<const unsigned> bits) {
    GOPA_CHECK(!bases.empty() && bases.size() == exps.size() && bases.size() == bits.size(),
               "one exponent and one width per base");
    for (const FixedBaseSec* b : bases) GOPA_CHECK(b != nullptr, "a base");
    const rp_detail::Mont& mo = bases[0]->mont_;
    for (std::size_t i = 0; i < bases.size(); ++i) {
      GOPA_CHECK(bases[i]->mont_.limbs == mo.limbs, "bases with one modulus");
      GOPA_CHECK(bits[i] <= bases[i]->max_bits_, "exponent width within the table");
      // The sign and the limb count of an mpz are its metadata (as for mpz_powm_sec); the bits
      // of the top limbs are checked on the fixed-length limbs below.
      GOPA_CHECK(mpz_sgn(exps[i].get()) >= 0 && mpz_size(exps[i].get()) <= ceil_div(bits[i], 64),
                 "secret exponent within its width");
    }
    return mo;
  }

  // Returns the bases' Montgomery context.
  static const rp_detail::Mont& pow(std::span<const FixedBaseSec* const> bases,
                                    std::span<const BigInt> exps, std::span<const unsigned> bits,
                                    std::vector<mp_limb_t>& acc) {
    const rp_detail::Mont& mo = check(bases, exps, bits);
    std::size_t ex_limbs = 0;
    for (unsigned b : bits) ex_limbs = std::max(ex_limbs, ceil_div(b, 64) + 1);
    const mp_size_t n = mo.n();
    const auto un = static_cast<std::size_t>(n);
    acc.assign(un, 0);
    std::vector<mp_limb_t> sel(un), t(2 * un), ex(ex_limbs);
    std::vector<mp_limb_t> scratch(static_cast<std::size_t>(mpn_sec_mul_itch(n, n)));
    bool started = false;  // acc = 1 until the first entry (public: depends on the widths only)
    for (std::size_t i = 0; i < bases.size(); ++i) {
      const FixedBaseSec& b = *bases[i];
      // The exponent as fixed-length limbs (one zero limb past the width, for straddling digits).
      const std::size_t el = ceil_div(bits[i], 64) + 1;
      for (std::size_t j = 0; j < el; ++j)
        ex[j] = mpz_getlimbn(exps[i].get(), static_cast<mp_size_t>(j));
      // x < 2^bits: no bit set from `bits` on (only this verdict is made public).
      const std::size_t rem = bits[i] % 64;
      mp_limb_t excess = rem != 0 ? ex[bits[i] / 64] >> rem : 0;
      for (std::size_t j = ceil_div(bits[i], 64); j < el; ++j) excess |= ex[j];
      bool in_range = excess == 0;
      gopa_declassify(&in_range, sizeof in_range);
      GOPA_CHECK(in_range, "secret exponent within its width");
      const std::size_t entries = std::size_t{1} << b.w_;
      const std::size_t windows = ceil_div(bits[i], b.w_);
      for (std::size_t j = 0; j < windows; ++j) {
        const mp_limb_t digit = digit_at(ex.data(), j * b.w_, b.w_);
        const mp_limb_t* row = &b.tab_[j * entries * un];
        if (!started) {
          mpn_sec_tabselect(acc.data(), row, n, static_cast<mp_size_t>(entries),
                            static_cast<mp_size_t>(digit));
          started = true;
        } else {
          mpn_sec_tabselect(sel.data(), row, n, static_cast<mp_size_t>(entries),
                            static_cast<mp_size_t>(digit));
          mpn_sec_mul(t.data(), acc.data(), n, sel.data(), n, scratch.data());
          redc(acc.data(), t.data(), mo.limbs.data(), n, mo.minv);
        }
      }
    }
    if (!started) std::copy(mo.one.begin(), mo.one.end(), acc.begin());
    for (auto* v : {&ex, &sel, &t, &scratch})
      sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
    return mo;
  }
};

BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases, std::span<const BigInt> exps,
                     std::span<const unsigned> bits) {
  std::vector<mp_limb_t> acc;
  const rp_detail::Mont& mo = FixedBaseAccess::pow(bases, exps, bits, acc);
  const auto un = static_cast<std::size_t>(mo.n());
  std::vector<mp_limb_t> out(un), t(2 * un);
  mo.from_mont(out.data(), acc.data(), t.data(), acc.data());  // acc: scratch from here
  // The product is public (the commitments S, D of Π_enc); mpz normalizes it.
  gopa_declassify(out.data(), un * sizeof(mp_limb_t));
  BigInt r = import_limbs(out.data(), un);
  for (auto* v : {&acc, &out, &t}) sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  return r;
}

void mul_pow_sec_limbs(const FixedBaseSec& base, const BigInt& e, unsigned bits,
                       std::span<const mp_limb_t> x, mp_limb_t* out) {
  const FixedBaseSec* bases[1] = {&base};
  const unsigned widths[1] = {bits};
  std::vector<mp_limb_t> acc;
  const rp_detail::Mont& mo = FixedBaseAccess::pow(bases, std::span<const BigInt>(&e, 1), widths, acc);
  const mp_size_t n = mo.n();
  const auto un = static_cast<std::size_t>(n);
  GOPA_CHECK(!x.empty() && x.size() <= 2 * un, "x of at most 2n limbs");
  std::vector<mp_limb_t> t(2 * un, 0), xr(un), y(un), tmp(un);
  std::vector<mp_limb_t> scratch(static_cast<std::size_t>(mpn_sec_mul_itch(n, n)));
  // x·R^(−1) (x < R² ≤ R·M + R²), then x·g^e·R^(−1), then ·R²·R^(−1): x·g^e, below 2M; then
  // one conditional subtraction.
  std::copy(x.begin(), x.end(), t.begin());
  redc(xr.data(), t.data(), mo.limbs.data(), n, mo.minv);
  mpn_sec_mul(t.data(), xr.data(), n, acc.data(), n, scratch.data());
  redc(y.data(), t.data(), mo.limbs.data(), n, mo.minv);
  mo.mul_reduced(out, y.data(), mo.r2.data(), t.data(), tmp.data(), scratch.data());
  for (auto* v : {&acc, &t, &xr, &y, &tmp, &scratch})
    sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
}

BigInt mul_pow_sec(const FixedBaseSec& base, const BigInt& e, unsigned bits,
                   std::span<const mp_limb_t> x) {
  const std::size_t un = mpz_size(base.modulus().get());
  std::vector<mp_limb_t> out(un);
  mul_pow_sec_limbs(base, e, bits, x, out.data());
  // The product is public (a ciphertext); mpz normalizes it.
  gopa_declassify(out.data(), un * sizeof(mp_limb_t));
  BigInt r = import_limbs(out.data(), un);
  sodium_memzero(out.data(), out.size() * sizeof(mp_limb_t));
  return r;
}

// ---------------------------------------------------------------- PaillierOwnDec

namespace {
// v·R² mod m as limbs (construction only; variable time on the owner's values).
std::vector<mp_limb_t> times_r2(const BigInt& v, const rp_detail::Mont& mo) {
  BigInt x;
  mpz_mul_2exp(x.get(), v.get(), static_cast<mp_bitcnt_t>(128 * mo.limbs.size()));
  mpz_mod(x.get(), x.get(), mo.m.get());
  std::vector<mp_limb_t> out(mo.limbs.size());
  limbs_of(x, out.data(), mo.n());
  return out;
}

// Garner's recombination, constant time: out (2n limbs) = v_b + b·((v_a − v_b)·b^(−1) mod a)
// for residues v_a < a and v_b < b < R of one value below a·b, mod_a the Montgomery context of
// a (n limbs), binv_r2 = b^(−1)·R² mod a and b_limbs = b: v_a·R^(−1) and v_b·R^(−1) mod a, their
// difference mod a, a product with b^(−1)·R², then one product and one addition (no carry).
void garner(const rp_detail::Mont& mod_a, const mp_limb_t* v_a, const mp_limb_t* v_b,
            const mp_limb_t* binv_r2, const mp_limb_t* b_limbs, mp_limb_t* out) {
  const mp_size_t n = mod_a.n();
  const auto un = static_cast<std::size_t>(n);
  std::vector<mp_limb_t> a(un), b(un), h(un), t(2 * un), tmp(un), vb_wide(2 * un, 0);
  std::vector<mp_limb_t> scratch(static_cast<std::size_t>(mpn_sec_mul_itch(n, n)));
  mod_a.from_mont(a.data(), v_a, t.data(), tmp.data());
  mod_a.from_mont(b.data(), v_b, t.data(), tmp.data());
  const mp_limb_t borrow = mpn_sub_n(a.data(), a.data(), b.data(), n);
  mpn_cnd_add_n(borrow, a.data(), a.data(), mod_a.limbs.data(), n);
  mod_a.mul_reduced(h.data(), a.data(), binv_r2, t.data(), tmp.data(), scratch.data());
  mpn_sec_mul(out, b_limbs, n, h.data(), n, scratch.data());
  std::copy(v_b, v_b + un, vb_wide.begin());
  mpn_add_n(out, out, vb_wide.data(), 2 * n);
  for (auto* v : {&a, &b, &h, &t, &tmp, &vb_wide, &scratch})
    sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
}
}  // namespace

PaillierOwnDec::PaillierOwnDec(const BigInt& p, const BigInt& q, const BigInt& hp, const BigInt& hq) {
  GOPA_CHECK(mpz_size(p.get()) == mpz_size(q.get()) && !(p == q), "two primes of one limb count");
  for (auto [sd, pr, hv] : {std::tuple{&p_, &p, &hp}, std::tuple{&q_, &q, &hq}}) {
    sd->pr = *pr;
    mpz_mul(sd->pr2.get(), pr->get(), pr->get());
    BigInt pm1;
    mpz_sub_ui(pm1.get(), pr->get(), 1);
    sd->pm1_bits = static_cast<unsigned>(pm1.bits());
    // One zero limb past the top, for windows that straddle it.
    sd->pm1.assign(mpz_size(pm1.get()) + 1, 0);
    limbs_of(pm1, sd->pm1.data(), static_cast<mp_size_t>(mpz_size(pm1.get())));
    sd->m1 = rp_detail::Mont(*pr);
    sd->m2 = rp_detail::Mont(sd->pr2);
    BigInt inv, two_k;
    mpz_setbit(two_k.get(), static_cast<mp_bitcnt_t>(64 * sd->m2.limbs.size()));
    GOPA_CHECK(mpz_invert(inv.get(), pr->get(), two_k.get()) != 0, "an odd prime");
    sd->pinv.resize(sd->m2.limbs.size());
    limbs_of(inv, sd->pinv.data(), sd->m2.n());
    sd->h_r2 = times_r2(*hv, sd->m1);
  }
  BigInt qinv;
  GOPA_CHECK(mpz_invert(qinv.get(), q.get(), p.get()) != 0, "q invertible mod p");
  qinv_r2_ = times_r2(qinv, p_.m1);
  q_limbs_.resize(p_.m1.limbs.size());
  limbs_of(q, q_limbs_.data(), p_.m1.n());
}

PaillierOwnDec::~PaillierOwnDec() {
  for (Side* sd : {&p_, &q_})
    for (auto* v : {&sd->pinv, &sd->h_r2, &sd->pm1, &sd->m1.limbs, &sd->m2.limbs})
      sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  sodium_memzero(qinv_r2_.data(), qinv_r2_.size() * sizeof(mp_limb_t));
}

void PaillierOwnDec::for_each_secret(void (*mark)(const void*, std::size_t)) const {
  const auto limbs = [&](const std::vector<mp_limb_t>& v) { mark(v.data(), v.size() * sizeof(mp_limb_t)); };
  for (const Side* sd : {&p_, &q_}) {
    for (const rp_detail::Mont* mo : {&sd->m1, &sd->m2}) {
      limbs(mo->limbs);
      limbs(mo->one);
      limbs(mo->r2);
      mark(&mo->minv, sizeof mo->minv);
    }
    limbs(sd->pm1);
    limbs(sd->pinv);
    limbs(sd->h_r2);
  }
  limbs(qinv_r2_);
  limbs(q_limbs_);
}

void PaillierOwnDec::side(const Side& sd, const BigInt& c, mp_limb_t* out) const {
  const rp_detail::Mont& m2 = sd.m2;
  const mp_size_t n2 = m2.n();
  const auto u2 = static_cast<std::size_t>(n2);
  const mp_size_t n1 = sd.m1.n();
  const auto u1 = static_cast<std::size_t>(n1);
  GOPA_CHECK(mpz_sgn(c.get()) >= 0 && mpz_size(c.get()) <= 2 * u2, "a ciphertext below N²");
  const auto itch = static_cast<std::size_t>(
      std::max({mpn_sec_mul_itch(n2, n2), mpn_sec_sqr_itch(n2), mpn_sec_sub_1_itch(n2),
                mpn_sec_mul_itch(n1, n1)}));
  std::vector<mp_limb_t> t(2 * u2, 0), a(u2), b(u2), tmp(u2), scratch(itch);
  // c mod p²: c·R^(−1) (c < N² < R²), then ·R²·R^(−1), one conditional subtraction.
  for (std::size_t i = 0; i < mpz_size(c.get()); ++i)
    t[i] = mpz_getlimbn(c.get(), static_cast<mp_size_t>(i));
  redc(a.data(), t.data(), m2.limbs.data(), n2, m2.minv);
  m2.mul_reduced(b.data(), a.data(), m2.r2.data(), t.data(), tmp.data(), scratch.data());
  // c^(p−1) mod p²: a fixed-window exponentiation in Montgomery form (w = 4: squarings,
  // mpn_sec_tabselect, mpn_sec_mul, branch-free reductions). GMP's mpn_sec_powm would read
  // tables indexed by the modulus's low and top bits (binvert_limb, invert_limb).
  constexpr unsigned w = 4;
  constexpr std::size_t entries = std::size_t{1} << w;
  std::vector<mp_limb_t> tab(entries * u2), sel(u2), acc(u2);
  std::copy(m2.one.begin(), m2.one.end(), tab.begin());
  m2.mul_reduced(tab.data() + u2, b.data(), m2.r2.data(), t.data(), tmp.data(), scratch.data());
  for (std::size_t d = 2; d < entries; ++d) {
    mpn_sec_mul(t.data(), tab.data() + (d - 1) * u2, n2, tab.data() + u2, n2, scratch.data());
    redc(tab.data() + d * u2, t.data(), m2.limbs.data(), n2, m2.minv);
  }
  std::copy(m2.one.begin(), m2.one.end(), acc.begin());
  const std::size_t windows = ceil_div(sd.pm1_bits, w);
  for (std::size_t j = windows; j-- > 0;) {
    for (unsigned k = 0; k < w; ++k) {
      mpn_sec_sqr(t.data(), acc.data(), n2, scratch.data());
      redc(acc.data(), t.data(), m2.limbs.data(), n2, m2.minv);
    }
    mpn_sec_tabselect(sel.data(), tab.data(), n2, static_cast<mp_size_t>(entries),
                      static_cast<mp_size_t>(digit_at(sd.pm1.data(), j * w, w)));
    mpn_sec_mul(t.data(), acc.data(), n2, sel.data(), n2, scratch.data());
    redc(acc.data(), t.data(), m2.limbs.data(), n2, m2.minv);
  }
  m2.from_mont(a.data(), acc.data(), t.data(), tmp.data());
  for (auto* v : {&tab, &sel, &acc}) sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  // L = (x − 1)/p, exact when x ≡ 1 mod p: (x − 1)·p^(−1) mod 2^(64·n2), then its low n1 limbs.
  mpn_sec_sub_1(b.data(), a.data(), n2, 1, scratch.data());
  mpn_sec_mul(t.data(), b.data(), n2, sd.pinv.data(), n2, scratch.data());
  // L·h_p mod p: L < p, a product with h_p·R1² (below R1·p), reduced.
  std::vector<mp_limb_t> l(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(u1)), t1(2 * u1),
      tmp1(u1);
  sd.m1.mul_reduced(out, l.data(), sd.h_r2.data(), t1.data(), tmp1.data(), scratch.data());
  // out = L·h_p·R1 mod p: from Montgomery form.
  sd.m1.from_mont(tmp1.data(), out, t1.data(), l.data());
  std::copy(tmp1.begin(), tmp1.end(), out);
  for (auto* v : {&t, &a, &b, &tmp, &scratch, &l, &t1, &tmp1})
    sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
}

void PaillierOwnDec::decrypt_limbs(const BigInt& c, mp_limb_t* out) const {
  const auto un = p_.m1.limbs.size();
  std::vector<mp_limb_t> mp(un), mq(un);
  side(p_, c, mp.data());
  side(q_, c, mq.data());
  // m = m_q + q·((m_p − m_q)·q^(−1) mod p) (m_q < q < R): below N.
  garner(p_.m1, mp.data(), mq.data(), qinv_r2_.data(), q_limbs_.data(), out);
  for (auto* v : {&mp, &mq}) sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
}

BigInt PaillierOwnDec::decrypt(const BigInt& c) const {
  std::vector<mp_limb_t> m(plaintext_limbs());
  decrypt_limbs(c, m.data());
  BigInt out = import_limbs(m.data(), m.size());
  sodium_memzero(m.data(), m.size() * sizeof(mp_limb_t));
  return out;
}

// ---------------------------------------------------------------- PaillierOwnEnc

PaillierOwnEnc::PaillierOwnEnc(const BigInt& p, const BigInt& q, const BigInt& hn, unsigned exp_bits) {
  BigInt p2, q2, hp, hq, u;
  mpz_mul(p2.get(), p.get(), p.get());
  mpz_mul(q2.get(), q.get(), q.get());
  GOPA_CHECK(mpz_size(p2.get()) == mpz_size(q2.get()), "primes of one size");
  mpz_mod(hp.get(), hn.get(), p2.get());
  mpz_mod(hq.get(), hn.get(), q2.get());
  hn_p2_ = std::make_unique<FixedBaseSec>(hp, p2, exp_bits);
  hn_q2_ = std::make_unique<FixedBaseSec>(hq, q2, exp_bits);
  mod_p2_ = rp_detail::Mont(p2);
  const mp_size_t n = mod_p2_.n();
  // (q²)^(−1)·R² mod p²: a Montgomery product with it multiplies by (q²)^(−1)·R.
  GOPA_CHECK(mpz_invert(u.get(), q2.get(), p2.get()) != 0, "q² invertible mod p²");
  mpz_mul_2exp(u.get(), u.get(), static_cast<mp_bitcnt_t>(128 * n));
  mpz_mod(u.get(), u.get(), p2.get());
  u_r2_.resize(static_cast<std::size_t>(n));
  limbs_of(u, u_r2_.data(), n);
  q2_.resize(static_cast<std::size_t>(n));
  limbs_of(q2, q2_.data(), n);
}

PaillierOwnEnc::~PaillierOwnEnc() {
  sodium_memzero(u_r2_.data(), u_r2_.size() * sizeof(mp_limb_t));
  sodium_memzero(q2_.data(), q2_.size() * sizeof(mp_limb_t));
}

BigInt PaillierOwnEnc::encrypt(std::span<const mp_limb_t> x, const BigInt& alpha, unsigned bits) const {
  const auto un = mod_p2_.limbs.size();
  std::vector<mp_limb_t> cp(un), cq(un), c(2 * un);
  mul_pow_sec_limbs(*hn_p2_, alpha, bits, x, cp.data());
  mul_pow_sec_limbs(*hn_q2_, alpha, bits, x, cq.data());
  // c = c_q + q²·((c_p − c_q)·(q²)^(−1) mod p²): below N².
  garner(mod_p2_, cp.data(), cq.data(), u_r2_.data(), q2_.data(), c.data());
  // The ciphertext is public; mpz normalizes it.
  gopa_declassify(c.data(), c.size() * sizeof(mp_limb_t));
  BigInt out = import_limbs(c.data(), c.size());
  for (auto* v : {&cp, &cq, &c}) sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  return out;
}

BigInt multi_pow_sec(std::span<const FixedBaseSec* const> bases, std::span<const BigInt> exps) {
  std::vector<unsigned> bits(bases.size());
  for (std::size_t i = 0; i < bases.size(); ++i) {
    GOPA_CHECK(bases[i] != nullptr, "a base");
    bits[i] = bases[i]->max_bits();
  }
  return multi_pow_sec(bases, exps, bits);
}

// ---------------------------------------------------------------- RpOwnerCheck

RpOwnerCheck::RpOwnerCheck(const BigInt& p, const BigInt& q, const BigInt& s, const BigInt& t,
                           unsigned z_bits, unsigned w_bits, unsigned window) {
  GOPA_CHECK(!(p == q), "two distinct primes");
  GOPA_CHECK(z_bits > 0 && w_bits > 0, "exponent widths");
  mpz_mul(n_.get(), p.get(), q.get());
  // Values mod N̂ are reduced mod p and q by Montgomery reductions: N̂ < R_p², R_q².
  GOPA_CHECK(mpz_size(n_.get()) <= 2 * std::min(mpz_size(p.get()), mpz_size(q.get())),
             "primes of similar sizes");
  BigInt g;
  for (const BigInt* b : {&s, &t}) {
    mpz_gcd(g.get(), b->get(), n_.get());
    GOPA_CHECK(mpz_cmp_ui(g.get(), 1) == 0, "ring-Pedersen bases are units");
  }
  for (auto [pr, prime] : {std::pair{&p_, &p}, std::pair{&q_, &q}}) {
    GOPA_CHECK(mpz_probab_prime_p(prime->get(), 1) > 0, "prime factors");
    pr->mont = rp_detail::Mont(*prime);
    mpz_sub_ui(pr->pm1.get(), prime->get(), 1);
    // Wide enough for the encoding's exponents and for exponents reduced mod p − 1.
    const auto pbits = static_cast<unsigned>(pr->pm1.bits());
    pr->s = rp_detail::FixedBaseVar(s, pr->mont, std::max(z_bits, pbits), window);
    pr->t = rp_detail::FixedBaseVar(t, pr->mont, std::max(w_bits, pbits), window);
  }
}

std::size_t RpOwnerCheck::table_bytes() const noexcept {
  return p_.s.table_bytes() + p_.t.table_bytes() + q_.s.table_bytes() + q_.t.table_bytes();
}

void RpOwnerCheck::for_each_secret(void (*mark)(const void*, std::size_t)) const {
  for (const Prime* pr : {&p_, &q_}) {
    mark(pr->mont.limbs.data(), pr->mont.limbs.size() * sizeof(mp_limb_t));
    mark(pr->mont.one.data(), pr->mont.one.size() * sizeof(mp_limb_t));
    mark(&pr->mont.minv, sizeof pr->mont.minv);
    mark(pr->mont.r2.data(), pr->mont.r2.size() * sizeof(mp_limb_t));
    mark(pr->s.table().data(), pr->s.table_bytes());
    mark(pr->t.table().data(), pr->t.table_bytes());
  }
}

mp_limb_t RpOwnerCheck::diff_mod(const Prime& pr, const BigInt& z, const BigInt& w,
                                 const BigInt& rhs) {
  const rp_detail::Mont& mo = pr.mont;
  const mp_size_t n = mo.n();
  const auto un = static_cast<std::size_t>(n);
  // Exponents beyond the tables (never those of a decoded proof): s and t are units mod p, so
  // their exponents count mod p − 1 (Fermat). Variable time.
  const BigInt* zp = &z;
  const BigInt* wp = &w;
  BigInt zr, wr;
  if (z.bits() > pr.s.max_bits()) {
    mpz_mod(zr.get(), z.get(), pr.pm1.get());
    zp = &zr;
  }
  if (w.bits() > pr.t.max_bits()) {
    mpz_mod(wr.get(), w.get(), pr.pm1.get());
    wp = &wr;
  }
  std::vector<mp_limb_t> acc(un), t(2 * un), tmp(un), lhs(un);
  std::vector<mp_limb_t> scratch(static_cast<std::size_t>(mpn_sec_mul_itch(n, n)));
  // s^z·t^w: the public digits of z and w choose the entries.
  bool started = false;
  pr.s.mul_pow_ct(acc.data(), &started, *zp, mo, t.data(), scratch.data());
  pr.t.mul_pow_ct(acc.data(), &started, *wp, mo, t.data(), scratch.data());
  if (!started) std::copy(mo.one.begin(), mo.one.end(), acc.begin());
  mo.from_mont(lhs.data(), acc.data(), t.data(), tmp.data());
  // The public right side mod p (rhs < N̂ ≤ R², R = 2^(64n)) by two Montgomery reductions:
  // x = rhs·R^(−1), then x·R²·R^(−1) = rhs (< 2p), then one conditional subtraction. (GMP's
  // mpn_sec_div_r would index a table by the divisor's top bits, in mpn_invert_limb.)
  std::vector<mp_limb_t> wide(2 * un, 0), x(un), r(un);
  for (std::size_t i = 0; i < mpz_size(rhs.get()); ++i)
    wide[i] = mpz_getlimbn(rhs.get(), static_cast<mp_size_t>(i));
  redc(x.data(), wide.data(), mo.limbs.data(), n, mo.minv);
  mo.mul_reduced(r.data(), x.data(), mo.r2.data(), t.data(), tmp.data(), scratch.data());
  mp_limb_t diff = 0;
  for (std::size_t i = 0; i < un; ++i) diff |= lhs[i] ^ r[i];
  // Values mod p would reveal p (a gcd with N̂): wiped.
  for (auto* v : {&acc, &t, &tmp, &lhs, &scratch, &x, &r})
    sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  return diff;
}

namespace {
// D·S^e mod N̂ from public values and the public modulus (S ≡ 0 mod p gives 0 mod p for e > 0
// and 1 for e = 0, as it must).
BigInt right_side(const BigInt& n, const BigInt& z, const BigInt& w, const BigInt& D,
                  const BigInt& S, const BigInt& e) {
  GOPA_CHECK(mpz_sgn(e.get()) >= 0, "a challenge e ≥ 0");
  GOPA_CHECK(mpz_sgn(z.get()) >= 0 && mpz_sgn(w.get()) >= 0 && mpz_sgn(D.get()) >= 0 &&
                 mpz_sgn(S.get()) >= 0,
             "non-negative inputs");
  BigInt rhs;
  mpz_powm(rhs.get(), S.get(), e.get(), n.get());
  mpz_mul(rhs.get(), rhs.get(), D.get());
  mpz_mod(rhs.get(), rhs.get(), n.get());
  return rhs;
}

// Whether a difference is zero, made public (a complaint is posted or not).
bool public_zero(mp_limb_t diff) {
  mp_limb_t nonzero = (diff | (mp_limb_t{0} - diff)) >> 63;
  gopa_declassify(&nonzero, sizeof nonzero);
  return nonzero == 0;
}
}  // namespace

bool RpOwnerCheck::holds(const BigInt& z, const BigInt& w, const BigInt& D, const BigInt& S,
                         const BigInt& e) const {
  const BigInt rhs = right_side(n_, z, w, D, S, e);
  // The equation holds mod N̂ = p·q iff it holds mod p and mod q (CRT); both are always checked.
  return public_zero(diff_mod(p_, z, w, rhs) | diff_mod(q_, z, w, rhs));
}

bool RpOwnerCheck::holds_mod_p(const BigInt& z, const BigInt& w, const BigInt& D, const BigInt& S,
                               const BigInt& e) const {
  return public_zero(diff_mod(p_, z, w, right_side(n_, z, w, D, S, e)));
}

}  // namespace gopa::sampling
