// Paillier over GMP (include/gopa/sampling/paillier.hpp).
#include "gopa/sampling/paillier.hpp"

#include <sodium.h>

#include <algorithm>
#include <array>

#include "gopa/check.hpp"
#include "modarith.hpp"
#include "rp_exp.hpp"

namespace gopa::sampling {
namespace {

using modarith::limbs_of;
using modarith::redc;

const BigInt& ell() {
  static const BigInt l = [] {
    BigInt v;
    mpz_set_str(v.get(), "7237005577332262213973186563042994240857116359379907606001950938285454250989", 10);
    return v;
  }();
  return l;
}

}  // namespace

BigInt::BigInt() { mpz_init(v_); }
BigInt::BigInt(unsigned long v) { mpz_init_set_ui(v_, v); }
BigInt::~BigInt() {
  // Zero the limbs before freeing: shares and keys pass through here.
  if (v_->_mp_d != nullptr && v_->_mp_alloc > 0)
    sodium_memzero(v_->_mp_d, static_cast<std::size_t>(v_->_mp_alloc) * sizeof(mp_limb_t));
  mpz_clear(v_);
}
BigInt::BigInt(const BigInt& o) { mpz_init_set(v_, o.v_); }
BigInt& BigInt::operator=(const BigInt& o) {
  if (this != &o) mpz_set(v_, o.v_);
  return *this;
}
BigInt::BigInt(BigInt&& o) noexcept {
  mpz_init(v_);
  mpz_swap(v_, o.v_);
}
BigInt& BigInt::operator=(BigInt&& o) noexcept {
  mpz_swap(v_, o.v_);
  return *this;
}

BigInt BigInt::from_scalar(const Scalar& s) {
  BigInt r;
  Bytes32 b = s.encode();
  mpz_import(r.v_, b.size(), -1, 1, 0, 0, b.data());
  return r;
}

BigInt BigInt::from_secret(const SecretScalar& s) {
  BigInt r;
  Bytes32 b = s.declassify().encode();
  mpz_import(r.v_, b.size(), -1, 1, 0, 0, b.data());
  sodium_memzero(b.data(), b.size());
  return r;
}

BigInt BigInt::random_bits(unsigned bits, Rng& rng) {
  std::vector<std::uint8_t> buf((bits + 7) / 8);
  rng.fill(buf);
  BigInt r;
  mpz_import(r.v_, buf.size(), 1, 1, 0, 0, buf.data());
  sodium_memzero(buf.data(), buf.size());
  mpz_fdiv_r_2exp(r.v_, r.v_, bits);
  return r;
}

Scalar BigInt::to_scalar() const {
  BigInt t;
  mpz_mod(t.v_, v_, ell().get());
  Bytes32 b{};
  std::size_t count = 0;
  mpz_export(b.data(), &count, -1, 1, 0, 0, t.v_);
  auto s = Scalar::decode(b);
  GOPA_CHECK(s.has_value(), "reduced value is canonical");
  return *s;
}

SecretScalar BigInt::to_secret() const {
  SecretScalar s(to_scalar());
  return s;
}

std::vector<std::uint8_t> BigInt::to_bytes(std::size_t len) const {
  std::vector<std::uint8_t> out(len, 0);
  const std::size_t need = (mpz_sizeinbase(v_, 2) + 7) / 8;
  GOPA_CHECK(need <= len, "value fits the fixed length");
  std::size_t count = 0;
  if (mpz_sgn(v_) != 0) mpz_export(out.data() + (len - need), &count, 1, 1, 0, 0, v_);
  return out;
}

std::size_t BigInt::bits() const { return mpz_sgn(v_) == 0 ? 0 : mpz_sizeinbase(v_, 2); }
bool BigInt::operator==(const BigInt& o) const { return mpz_cmp(v_, o.v_) == 0; }

PaillierPublic::PaillierPublic(BigInt n, BigInt h) : n_(std::move(n)), h_(std::move(h)) {
  mpz_mul(n2_.get(), n_.get(), n_.get());
  GOPA_CHECK(mpz_odd_p(n2_.get()) != 0, "odd Paillier modulus");
  const auto limbs = static_cast<mp_size_t>(mpz_size(n2_.get()));
  m_.resize(static_cast<std::size_t>(limbs));
  limbs_of(n2_, m_.data(), limbs);
  mp_limb_t inv = m_[0];  // m·inv ≡ 1 mod 8; each Newton step doubles the correct bits
  for (int i = 0; i < 5; ++i) inv *= 2 - m_[0] * inv;
  minv_ = static_cast<mp_limb_t>(0) - inv;
  mpz_setbit(r_mod_.get(), static_cast<mp_bitcnt_t>(64 * limbs));
  mpz_mod(r_mod_.get(), r_mod_.get(), n2_.get());
  mpz_powm(hn_.get(), h_.get(), n_.get(), n2_.get());
  hn_sec_ = std::make_shared<const FixedBaseSec>(hn_, n2_, kExpBits);
  // For public exponents: kExpBits/8 windows of 8 bits, 255 entries each (public data; 6 MB for
  // a 2048-bit N): hN^alpha costs kExpBits/8 multiplications mod N².
  BigInt base = hn_;
  table_.resize(kExpBits / kWindow);
  for (auto& row : table_) {
    row.resize(std::size_t{1} << kWindow);
    row[0] = BigInt(1);
    row[1] = base;
    for (std::size_t d = 2; d < row.size(); ++d) {
      mpz_mul(row[d].get(), row[d - 1].get(), base.get());
      mpz_mod(row[d].get(), row[d].get(), n2_.get());
    }
    mpz_mul(base.get(), row.back().get(), base.get());
    mpz_mod(base.get(), base.get(), n2_.get());
  }
}

BigInt PaillierPublic::hn_pow(const BigInt& alpha) const {
  GOPA_CHECK(mpz_sgn(alpha.get()) >= 0 && alpha.bits() <= kExpBits, "exponent of h^N within the table");
  BigInt acc(1);
  for (std::size_t i = 0; i < table_.size(); ++i) {
    std::size_t d = 0;
    for (unsigned b = 0; b < kWindow; ++b)
      d |= static_cast<std::size_t>(mpz_tstbit(alpha.get(), kWindow * i + b)) << b;
    if (d == 0) continue;
    mpz_mul(acc.get(), acc.get(), table_[i][d].get());
    mpz_mod(acc.get(), acc.get(), n2_.get());
  }
  return acc;
}

namespace {
// 1 + m·N on fixed-length limbs: m and N as k limbs each (k: the limbs of N), 2k limbs. Only
// m mod N matters ((m + jN)·N ≡ m·N mod N²), so an m of at most k limbs is used as it is; a
// longer or negative one (public metadata) is reduced first. m·N + 1 < 2^(128k): no carry out.
std::vector<mp_limb_t> one_plus_mn(const BigInt& m, const BigInt& n) {
  const auto k = static_cast<mp_size_t>(mpz_size(n.get()));
  const auto uk = static_cast<std::size_t>(k);
  BigInt reduced;
  const BigInt* mp = &m;
  if (mpz_sgn(m.get()) < 0 || mpz_size(m.get()) > uk) {
    mpz_mod(reduced.get(), m.get(), n.get());
    mp = &reduced;
  }
  std::vector<mp_limb_t> ml(uk), nl(uk), prod(2 * uk), out(2 * uk);
  limbs_of(*mp, ml.data(), k);
  limbs_of(n, nl.data(), k);
  std::vector<mp_limb_t> scratch(static_cast<std::size_t>(
      std::max(mpn_sec_mul_itch(k, k), mpn_sec_add_1_itch(2 * k))));
  mpn_sec_mul(prod.data(), ml.data(), k, nl.data(), k, scratch.data());
  mpn_sec_add_1(out.data(), prod.data(), 2 * k, 1, scratch.data());
  for (auto* v : {&ml, &prod, &scratch}) sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  return out;
}
}  // namespace

BigInt PaillierPublic::encrypt(const BigInt& m, const BigInt& alpha, unsigned alpha_bits) const {
  GOPA_CHECK(alpha_bits > 0 && alpha_bits <= kExpBits, "randomness width within the table");
  // 1 + m·N < 2^(128k) ≤ R² (N² has 2k or 2k − 1 limbs): reduced inside, constant time.
  std::vector<mp_limb_t> x = one_plus_mn(m, n_);
  const BigInt c = mul_pow_sec(*hn_sec_, alpha, alpha_bits, x);
  sodium_memzero(x.data(), x.size() * sizeof(mp_limb_t));
  return c;
}

BigInt PaillierPublic::encrypt_public(const BigInt& m, const BigInt& alpha) const {
  BigInt c, t;
  mpz_mul(c.get(), m.get(), n_.get());
  mpz_add_ui(c.get(), c.get(), 1);
  mpz_mod(c.get(), c.get(), n2_.get());
  t = hn_pow(alpha);
  mpz_mul(c.get(), c.get(), t.get());
  mpz_mod(c.get(), c.get(), n2_.get());
  return c;
}

BigInt PaillierPublic::add(const BigInt& c1, const BigInt& c2) const {
  BigInt c;
  mpz_mul(c.get(), c1.get(), c2.get());
  mpz_mod(c.get(), c.get(), n2_.get());
  return c;
}

BigInt PaillierPublic::mul_plain(const BigInt& c, const BigInt& k) const {
  BigInt r;
  mpz_powm(r.get(), c.get(), k.get(), n2_.get());
  return r;
}

BigInt PaillierPublic::mul_plain_secret(const BigInt& c, const BigInt& k, unsigned k_bits) const {
  GOPA_CHECK(mpz_sgn(k.get()) >= 0 && k.bits() <= k_bits, "secret exponent within its size");
  // mpz_powm_sec needs an exponent > 0; k = 0 has probability 2^-252 for a random share.
  BigInt r(1);
  if (mpz_sgn(k.get()) > 0) mpz_powm_sec(r.get(), c.get(), k.get(), n2_.get());
  return r;
}

BigInt PaillierPublic::mul_plain_secret_multi(std::span<const BigInt> c, std::span<const BigInt> k,
                                              unsigned k_bits) const {
  static_assert(GMP_NUMB_BITS == 64, "64-bit limbs");
  GOPA_CHECK(c.size() == k.size() && !c.empty() && k_bits > 0, "one exponent per ciphertext");
  for (const BigInt& e : k)
    GOPA_CHECK(mpz_sgn(e.get()) >= 0 && e.bits() <= k_bits, "secret exponent within its size");
  constexpr unsigned kW = 4;                    // window bits (64 is a multiple: no straddling)
  constexpr std::size_t kEntries = 1U << kW;
  const auto n = static_cast<mp_size_t>(m_.size());
  const auto un = static_cast<std::size_t>(n);
  const std::size_t terms = c.size();
  const std::size_t el = (k_bits + 63) / 64;
  std::vector<mp_limb_t> acc(un), sel(un), t(2 * un);
  std::vector<mp_limb_t> scratch(static_cast<std::size_t>(
      std::max(mpn_sec_mul_itch(n, n), mpn_sec_sqr_itch(n))));
  // Tables of the public bases in Montgomery form: tab[i][d] = c_i^d·R mod N² (public data).
  std::vector<mp_limb_t> tab(terms * kEntries * un);
  for (std::size_t i = 0; i < terms; ++i) {
    GOPA_CHECK(valid(c[i]), "a ciphertext in (0, N²)");
    mp_limb_t* row = &tab[i * kEntries * un];
    BigInt v;
    mpz_mul_2exp(v.get(), c[i].get(), static_cast<mp_bitcnt_t>(64 * un));
    mpz_mod(v.get(), v.get(), n2_.get());
    limbs_of(r_mod_, row, n);
    limbs_of(v, row + un, n);
    for (std::size_t d = 2; d < kEntries; ++d) {
      mpn_sec_mul(t.data(), row + (d - 1) * un, n, row + un, n, scratch.data());
      redc(row + d * un, t.data(), m_.data(), n, minv_);
    }
  }
  // Secret exponents as fixed-length limbs.
  std::vector<mp_limb_t> ex(terms * el);
  for (std::size_t i = 0; i < terms; ++i)
    for (std::size_t j = 0; j < el; ++j)
      ex[i * el + j] = mpz_getlimbn(k[i].get(), static_cast<mp_size_t>(j));
  limbs_of(r_mod_, acc.data(), n);  // 1 in Montgomery form
  const std::size_t windows = (k_bits + kW - 1) / kW;
  for (std::size_t w = windows; w-- > 0;) {
    for (unsigned s = 0; s < kW; ++s) {
      mpn_sec_sqr(t.data(), acc.data(), n, scratch.data());
      redc(acc.data(), t.data(), m_.data(), n, minv_);
    }
    const std::size_t bit = w * kW;
    for (std::size_t i = 0; i < terms; ++i) {
      const mp_limb_t digit = (ex[i * el + bit / 64] >> (bit % 64)) & (kEntries - 1);
      mpn_sec_tabselect(sel.data(), &tab[i * kEntries * un], n, static_cast<mp_size_t>(kEntries),
                        static_cast<mp_size_t>(digit));
      mpn_sec_mul(t.data(), acc.data(), n, sel.data(), n, scratch.data());
      redc(acc.data(), t.data(), m_.data(), n, minv_);
    }
  }
  // Out of Montgomery form (acc·R^(−1) ≤ N²: one more conditional subtraction reduces it).
  std::fill(t.begin(), t.end(), 0);
  std::copy(acc.begin(), acc.end(), t.begin());
  redc(acc.data(), t.data(), m_.data(), n, minv_);
  const mp_limb_t borrow = mpn_sub_n(sel.data(), acc.data(), m_.data(), n);
  mpn_cnd_swap(borrow ^ 1, acc.data(), sel.data(), n);
  BigInt out;
  mpz_import(out.get(), un, -1, sizeof(mp_limb_t), 0, 0, acc.data());
  for (auto* v : {&ex, &acc, &sel, &t, &scratch})
    sodium_memzero(v->data(), v->size() * sizeof(mp_limb_t));
  return out;
}

bool PaillierPublic::valid(const BigInt& c) const {
  return mpz_sgn(c.get()) > 0 && mpz_cmp(c.get(), n2_.get()) < 0;
}

PaillierKey PaillierKey::generate(unsigned bits, Rng& rng) {
  GOPA_CHECK(bits >= 512 && bits % 2 == 0, "Paillier modulus of at least 512 bits");
  const unsigned half = bits / 2;
  BigInt p, q, n;
  for (;;) {
    for (BigInt* pr : {&p, &q}) {
      BigInt r = BigInt::random_bits(half, rng);
      mpz_setbit(r.get(), half - 1);
      mpz_setbit(r.get(), half - 2);  // N has exactly `bits` bits
      // The next prime ≡ 3 mod 4 (a Blum prime).
      do {
        mpz_nextprime(pr->get(), r.get());
        r = *pr;
      } while (mpz_fdiv_ui(pr->get(), 4) != 3);
    }
    if (mpz_cmp(p.get(), q.get()) == 0 || p.bits() != half || q.bits() != half) continue;
    mpz_mul(n.get(), p.get(), q.get());
    if (n.bits() == bits) break;
  }
  return from_primes(p, q, rng);
}

PaillierKey PaillierKey::from_primes(const BigInt& p, const BigInt& q, Rng& rng) {
  PaillierKey k;
  k.p_ = p;
  k.q_ = q;
  BigInt n;
  mpz_mul(n.get(), p.get(), q.get());
  GOPA_CHECK(mpz_odd_p(n.get()) != 0 && n.bits() >= 16, "odd Paillier modulus");
  const auto bits = static_cast<unsigned>(n.bits());
  BigInt h;
  do {
    h = BigInt::random_bits(bits - 1, rng);
    mpz_add_ui(h.get(), h.get(), 2);
    BigInt g;
    mpz_gcd(g.get(), h.get(), n.get());
    if (mpz_cmp_ui(g.get(), 1) == 0) break;
  } while (true);
  k.pub_ = PaillierPublic(n, h);
  // CRT decryption data: hp = L_p(g^(p−1) mod p²)^(−1) mod p with g = N + 1.
  mpz_mul(k.p2_.get(), k.p_.get(), k.p_.get());
  mpz_mul(k.q2_.get(), k.q_.get(), k.q_.get());
  BigInt g(0);
  mpz_add_ui(g.get(), n.get(), 1);
  for (int side = 0; side < 2; ++side) {
    const BigInt& pr = side == 0 ? k.p_ : k.q_;
    const BigInt& pr2 = side == 0 ? k.p2_ : k.q2_;
    BigInt& hv = side == 0 ? k.hp_ : k.hq_;
    BigInt e, t;
    mpz_sub_ui(e.get(), pr.get(), 1);
    mpz_powm_sec(t.get(), g.get(), e.get(), pr2.get());  // a secret exponent
    mpz_sub_ui(t.get(), t.get(), 1);
    mpz_divexact(t.get(), t.get(), pr.get());
    GOPA_CHECK(mpz_invert(hv.get(), t.get(), pr.get()) != 0, "Paillier CRT constant invertible");
  }
  GOPA_CHECK(mpz_invert(k.qinv_p_.get(), k.q_.get(), k.p_.get()) != 0, "q invertible mod p");
  // CRT encryption needs p² and q² of one limb count (keys from generate() always have it).
  if (mpz_size(k.p2_.get()) == mpz_size(k.q2_.get()) && !(k.p_ == k.q_)) {
    k.own_enc_ =
        std::make_shared<const PaillierOwnEnc>(k.p_, k.q_, k.pub_.hn(), PaillierPublic::kExpBits);
    k.own_dec_ = std::make_shared<const PaillierOwnDec>(k.p_, k.q_, k.hp_, k.hq_);
  }
  return k;
}

BigInt PaillierKey::encrypt_own(const BigInt& m, const BigInt& alpha, unsigned alpha_bits) const {
  if (!own_enc_) return pub_.encrypt(m, alpha, alpha_bits);
  GOPA_CHECK(alpha_bits > 0 && alpha_bits <= PaillierPublic::kExpBits,
             "randomness width within the table");
  std::vector<mp_limb_t> x = one_plus_mn(m, pub_.n());
  const BigInt c = own_enc_->encrypt(x, alpha, alpha_bits);
  sodium_memzero(x.data(), x.size() * sizeof(mp_limb_t));
  return c;
}

BigInt PaillierKey::decrypt(const BigInt& c) const {
  if (own_dec_ && mpz_sgn(c.get()) >= 0 && mpz_cmp(c.get(), pub_.n2().get()) < 0)
    return own_dec_->decrypt(c);
  return decrypt_variable_time(c);
}

BigInt PaillierKey::decrypt_variable_time(const BigInt& c) const {
  BigInt mp, mq, e, t;
  for (int side = 0; side < 2; ++side) {
    const BigInt& pr = side == 0 ? p_ : q_;
    const BigInt& pr2 = side == 0 ? p2_ : q2_;
    const BigInt& hv = side == 0 ? hp_ : hq_;
    BigInt& out = side == 0 ? mp : mq;
    mpz_sub_ui(e.get(), pr.get(), 1);
    mpz_mod(t.get(), c.get(), pr2.get());
    // The exponent p − 1 is secret: mpz_powm_sec (its time and memory accesses depend on the
    // sizes only; mpz_powm's sliding windows would show the exponent's bits).
    mpz_powm_sec(t.get(), t.get(), e.get(), pr2.get());
    mpz_sub_ui(t.get(), t.get(), 1);
    mpz_divexact(t.get(), t.get(), pr.get());
    mpz_mul(t.get(), t.get(), hv.get());
    mpz_mod(out.get(), t.get(), pr.get());
  }
  // m = mq + q·((mp − mq)·q^(−1) mod p)
  BigInt m;
  mpz_sub(t.get(), mp.get(), mq.get());
  mpz_mul(t.get(), t.get(), qinv_p_.get());
  mpz_mod(t.get(), t.get(), p_.get());
  mpz_mul(m.get(), t.get(), q_.get());
  mpz_add(m.get(), m.get(), mq.get());
  return m;
}

}  // namespace gopa::sampling
