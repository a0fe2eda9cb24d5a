// Paillier key proofs: Π_mod, ring-Pedersen parameters with Π_prm, Π_fac
// (include/gopa/sampling/key_proofs.hpp, docs/sampling.md "Key proofs").
#include "gopa/sampling/key_proofs.hpp"

#include <algorithm>
#include <array>

#include "gopa/check.hpp"
#include "modarith.hpp"
#include "rp_exp.hpp"
#include "wire.hpp"

namespace gopa::sampling {

// Gives the proofs the secret parts of RingPedersenSecret.
struct RingPedersenAccess {
  static const BigInt& lambda(const RingPedersenSecret& r) { return r.lambda_; }
  static const BigInt& p(const RingPedersenSecret& r) { return r.p_; }
  static const BigInt& q(const RingPedersenSecret& r) { return r.q_; }
  static void set(RingPedersenSecret& r, RingPedersen pub, BigInt lambda, BigInt p, BigInt q) {
    r.pub_ = std::move(pub);
    r.lambda_ = std::move(lambda);
    r.p_ = std::move(p);
    r.q_ = std::move(q);
  }
};

namespace {

using KP = KeyProofParams;
using modarith::bytes_of;
using modarith::in_open;
using modarith::pow2;
using modarith::pow2_sec;
using modarith::pow_sec;

// x with x ≡ r_i mod m_i for pairwise coprime m_i (variable time).
BigInt crt(std::span<const BigInt> r, std::span<const BigInt> m) {
  BigInt x = r[0], mod = m[0], t, inv;
  for (std::size_t i = 1; i < r.size(); ++i) {
    // x + mod·((r_i − x)·mod^(−1) mod m_i)
    GOPA_CHECK(mpz_invert(inv.get(), mod.get(), m[i].get()) != 0, "coprime CRT moduli");
    mpz_sub(t.get(), r[i].get(), x.get());
    mpz_mul(t.get(), t.get(), inv.get());
    mpz_mod(t.get(), t.get(), m[i].get());
    mpz_addmul(x.get(), mod.get(), t.get());
    mpz_mul(mod.get(), mod.get(), m[i].get());
  }
  return x;
}

// base^e mod p·q for a unit base and secret e, by CRT with the exponent reduced mod p − 1 and
// q − 1 (plus p − 1, q − 1: never a zero exponent).
BigInt pow_crt(const BigInt& base, const BigInt& e, const BigInt& p, const BigInt& q) {
  std::array<BigInt, 2> r, m{p, q};
  for (std::size_t i = 0; i < 2; ++i) {
    BigInt pm1, ei, b;
    mpz_sub_ui(pm1.get(), m[i].get(), 1);
    mpz_mod(ei.get(), e.get(), pm1.get());
    mpz_add(ei.get(), ei.get(), pm1.get());
    mpz_mod(b.get(), base.get(), m[i].get());
    r[i] = pow_sec(b, ei, m[i]);
  }
  return crt(r, m);
}

// Π_prm's left-hand sides t^(z_i) mod N for public t, N (N odd > 1) and public exponents z ≥ 0
// (variable time): the powers t^(d·2^(w·j)) (Montgomery form) are tabulated once, for the width
// of the widest exponent given at construction (whatever the decoder and the range checks
// admit; no exponent is reduced: the order of t is unknown), and t^z is the product of one entry
// per nonzero w-bit digit of z, at most ⌈|z|/w⌉ − 1 multiplications and no squaring
// (rp_detail::FixedBaseVar). Window w = 5: the fastest of w = 3 to 8 measured for the 80
// exponents of Π_prm at 674 and 2048 bits (2048 bits: 410 rows of 31 entries, 3.1 MiB, built
// with ~12.7k multiplications; w = 4 is within 3 %, w = 6 ~8 % slower, w = 7 ~35 % slower).
class PrmTable {
 public:
  static constexpr unsigned kWindow = 5;
  PrmTable(const BigInt& t, const BigInt& n, std::span<const BigInt> exps) : mont_(n) {
    unsigned bits = 1;
    for (const BigInt& z : exps) bits = std::max(bits, static_cast<unsigned>(z.bits()));
    tab_ = rp_detail::FixedBaseVar(t, mont_, bits, kWindow);
    const auto un = static_cast<std::size_t>(mont_.n());
    acc_.resize(un);
    out_.resize(un);
    scratch_.resize(2 * un);
  }
  // Exactly whether (t^z mod N) = v, for any v and 0 ≤ z < 2^(width of the widest exponent).
  [[nodiscard]] bool pow_equals(const BigInt& z, const BigInt& v) {
    const mp_size_t n = mont_.n();
    const auto un = static_cast<std::size_t>(n);
    if (mpz_sgn(v.get()) < 0 || mpz_size(v.get()) > un) return false;  // v ∉ [0, R) ⊃ [0, N)
    bool started = false;
    tab_.mul_pow(acc_.data(), &started, z, mont_, scratch_.data());
    if (!started) std::copy(mont_.one.begin(), mont_.one.end(), acc_.begin());  // t^0 = 1
    mont_.from_mont(out_.data(), acc_.data(), scratch_.data(), acc_.data());
    for (std::size_t i = 0; i < un; ++i)
      if (out_[i] != mpz_getlimbn(v.get(), static_cast<mp_size_t>(i))) return false;
    return true;
  }

 private:
  rp_detail::Mont mont_;
  rp_detail::FixedBaseVar tab_;
  std::vector<mp_limb_t> acc_, out_, scratch_;
};

// Uniform in [0, m) up to 2^-64 (a reduction of 64 more bits).
BigInt random_below(const BigInt& m, Rng& rng) {
  BigInt v = BigInt::random_bits(static_cast<unsigned>(m.bits()) + 64, rng);
  mpz_mod(v.get(), v.get(), m.get());
  return v;
}

// A unit of Z_N drawn from the transcript: ⌈|N|/8⌉ + 16 challenge bytes reduced mod N
// (statistical distance 2^-128 from uniform), re-drawn in the (negligible) case of a non-unit.
BigInt challenge_unit(Transcript& t, const BigInt& n) {
  std::vector<std::uint8_t> buf(bytes_of(n) + 16);
  BigInt y, g;
  for (;;) {
    t.challenge_bytes("y", buf);
    mpz_import(y.get(), buf.size(), 1, 1, 0, 0, buf.data());
    mpz_mod(y.get(), y.get(), n.get());
    mpz_gcd(g.get(), y.get(), n.get());
    if (mpz_sgn(y.get()) != 0 && mpz_cmp_ui(g.get(), 1) == 0) return y;
  }
}

BigInt challenge_int(Transcript& t, std::string_view label, unsigned bits) {
  std::vector<std::uint8_t> buf((bits + 7) / 8);
  t.challenge_bytes(label, buf);
  BigInt e;
  mpz_import(e.get(), buf.size(), 1, 1, 0, 0, buf.data());
  mpz_fdiv_r_2exp(e.get(), e.get(), bits);
  return e;
}

void append_big(Transcript& t, std::string_view label, const BigInt& v, std::size_t len) {
  t.append_message(label, v.to_bytes(len));
}

// ---------------------------------------------------------------- Π_mod
void append_mod_statement(Transcript& t, const BigInt& n, const BigInt& h) {
  const std::size_t nb = bytes_of(n);
  t.domain_separator("gopa/paillier-mod v1");
  t.append_u64("rounds", KP::kModRounds);
  append_big(t, "N", n, nb);
  append_big(t, "h", h, nb);
}

// y is a non-zero square mod the odd prime p. GMP's Legendre symbol: variable time in p (a
// binary-GCD-like loop), about 200 times cheaper than Euler's criterion with mpz_powm_sec; the
// outcome for the chosen (a, b) is published anyway.
bool is_qr(const BigInt& y, const BigInt& p) { return mpz_legendre(y.get(), p.get()) == 1; }

// A square root of the square y mod the odd prime p: y^((p+1)/4) for p ≡ 3 mod 4, otherwise
// Tonelli–Shanks (variable time; only a prover with a prime ≡ 1 mod 4 gets there).
BigInt sqrt_mod(const BigInt& y, const BigInt& p) {
  BigInt r;
  if (mpz_fdiv_ui(p.get(), 4) == 3) {
    BigInt e;
    mpz_add_ui(e.get(), p.get(), 1);
    mpz_fdiv_q_2exp(e.get(), e.get(), 2);
    return pow_sec(y, e, p);
  }
  // p − 1 = q·2^s with q odd; z a non-residue.
  BigInt q, z(2), c, t, b, tmp;
  mpz_sub_ui(q.get(), p.get(), 1);
  unsigned long s = mpz_scan1(q.get(), 0);
  mpz_fdiv_q_2exp(q.get(), q.get(), s);
  while (mpz_legendre(z.get(), p.get()) != -1) mpz_add_ui(z.get(), z.get(), 1);
  mpz_powm(c.get(), z.get(), q.get(), p.get());
  mpz_powm(t.get(), y.get(), q.get(), p.get());
  mpz_add_ui(tmp.get(), q.get(), 1);
  mpz_fdiv_q_2exp(tmp.get(), tmp.get(), 1);
  mpz_powm(r.get(), y.get(), tmp.get(), p.get());
  while (mpz_cmp_ui(t.get(), 1) != 0) {
    unsigned long i = 0;
    tmp = t;
    while (mpz_cmp_ui(tmp.get(), 1) != 0) {
      mpz_mul(tmp.get(), tmp.get(), tmp.get());
      mpz_mod(tmp.get(), tmp.get(), p.get());
      ++i;
    }
    b = c;
    for (unsigned long j = 0; j + i + 1 < s; ++j) {
      mpz_mul(b.get(), b.get(), b.get());
      mpz_mod(b.get(), b.get(), p.get());
    }
    s = i;
    mpz_mul(c.get(), b.get(), b.get());
    mpz_mod(c.get(), c.get(), p.get());
    mpz_mul(t.get(), t.get(), c.get());
    mpz_mod(t.get(), t.get(), p.get());
    mpz_mul(r.get(), r.get(), b.get());
    mpz_mod(r.get(), r.get(), p.get());
  }
  return r;
}

// A fourth root of y mod the odd prime p, if y is a fourth power.
std::optional<BigInt> fourth_root(const BigInt& y, const BigInt& p) {
  if (!is_qr(y, p)) return std::nullopt;
  if (mpz_fdiv_ui(p.get(), 4) == 3) {
    // The square root y^((p+1)/4) of a square is a square: x = y^(((p+1)/4)² mod (p − 1)).
    BigInt e, pm1;
    mpz_add_ui(e.get(), p.get(), 1);
    mpz_fdiv_q_2exp(e.get(), e.get(), 2);
    mpz_mul(e.get(), e.get(), e.get());
    mpz_sub_ui(pm1.get(), p.get(), 1);
    mpz_mod(e.get(), e.get(), pm1.get());
    mpz_add(e.get(), e.get(), pm1.get());
    return pow_sec(y, e, p);
  }
  BigInt r = sqrt_mod(y, p);
  if (!is_qr(r, p)) mpz_sub(r.get(), p.get(), r.get());
  if (!is_qr(r, p)) return std::nullopt;
  return sqrt_mod(r, p);
}

ModProof prove_mod_impl(Transcript& t, const BigInt& n, const BigInt& h,
                        std::span<const BigInt> primes, Rng& rng) {
  GOPA_CHECK(!primes.empty(), "a factorisation");
  ModProof pr;
  // w: a random element with Jacobi symbol −1 (public: N only).
  do {
    pr.w = random_below(n, rng);
  } while (mpz_jacobi(pr.w.get(), n.get()) != -1);
  append_mod_statement(t, n, h);
  append_big(t, "w", pr.w, bytes_of(n));
  // N^(−1) mod p − 1 for each prime (none when p − 1 and N share a factor).
  std::vector<std::optional<BigInt>> dn(primes.size());
  for (std::size_t j = 0; j < primes.size(); ++j) {
    BigInt pm1, d;
    mpz_sub_ui(pm1.get(), primes[j].get(), 1);
    if (mpz_invert(d.get(), n.get(), pm1.get()) != 0) {
      mpz_add(d.get(), d.get(), pm1.get());  // a positive exponent
      dn[j] = std::move(d);
    }
  }
  std::vector<BigInt> rx(primes.size()), rz(primes.size());
  for (unsigned i = 0; i < KP::kModRounds; ++i) {
    const BigInt y = challenge_unit(t, n);
    // z = y^(1/N): for each prime.
    for (std::size_t j = 0; j < primes.size(); ++j) {
      BigInt yj;
      mpz_mod(yj.get(), y.get(), primes[j].get());
      rz[j] = dn[j] ? pow_sec(yj, *dn[j], primes[j]) : yj;
    }
    // The first (a, b) for which (−1)^a·w^b·y is a fourth power mod every prime.
    std::uint8_t flag = 0;
    bool found = false;
    for (std::uint8_t ab = 0; ab < 4 && !found; ++ab) {
      BigInt yp = y;
      if ((ab & 2) != 0) {
        mpz_mul(yp.get(), yp.get(), pr.w.get());
        mpz_mod(yp.get(), yp.get(), n.get());
      }
      if ((ab & 1) != 0) mpz_sub(yp.get(), n.get(), yp.get());
      // Residuosity first (cheap), roots only for the chosen candidate.
      found = true;
      for (std::size_t j = 0; j < primes.size() && found; ++j) found = is_qr(yp, primes[j]);
      for (std::size_t j = 0; j < primes.size() && found; ++j) {
        BigInt yj;
        mpz_mod(yj.get(), yp.get(), primes[j].get());
        auto r = fourth_root(yj, primes[j]);
        if (r) rx[j] = std::move(*r);
        found = r.has_value();
      }
      flag = ab;
    }
    if (!found) {  // no fourth root exists: the round cannot pass
      flag = 0;
      for (auto& r : rx) r = BigInt(1);
    }
    pr.x.push_back(crt(rx, primes));
    pr.z.push_back(crt(rz, primes));
    pr.ab.push_back(flag);
  }
  return pr;
}

// ---------------------------------------------------------------- Π_prm
void append_prm_statement(Transcript& t, const RingPedersen& rp) {
  const std::size_t nb = bytes_of(rp.n);
  t.domain_separator("gopa/ring-pedersen v1");
  t.append_u64("rounds", KP::kPrmRounds);
  append_big(t, "N", rp.n, nb);
  append_big(t, "s", rp.s, nb);
  append_big(t, "t", rp.t, nb);
}

std::array<std::uint8_t, KP::kPrmRounds / 8> prm_challenge(Transcript& t, const PrmProof& pr,
                                                           std::size_t nb) {
  std::vector<std::uint8_t> as;
  as.reserve(pr.a.size() * nb);
  for (const BigInt& a : pr.a) wire::put_big(as, a, nb);
  t.append_message("A", as);
  std::array<std::uint8_t, KP::kPrmRounds / 8> e{};
  static_assert(KP::kPrmRounds % 8 == 0, "whole challenge bytes");
  t.challenge_bytes("e", e);
  return e;
}

bool bit_of(std::span<const std::uint8_t> e, unsigned i) { return ((e[i / 8] >> (i % 8)) & 1) != 0; }

// ---------------------------------------------------------------- Π_fac
constexpr unsigned kE = KP::kFacChallengeBits;
constexpr unsigned kS = KP::kFacSlackBits;

unsigned half_bits(const BigInt& n0) { return static_cast<unsigned>((n0.bits() + 1) / 2); }

void append_fac_statement(Transcript& t, const BigInt& n0, const RingPedersen& v) {
  t.domain_separator("gopa/paillier-fac v1");
  t.append_u64("challenge bits", kE);
  t.append_u64("slack bits", kS);
  append_big(t, "N0", n0, bytes_of(n0));
  const std::size_t nb = bytes_of(v.n);
  append_big(t, "Nhat", v.n, nb);
  append_big(t, "s", v.s, nb);
  append_big(t, "t", v.t, nb);
}

BigInt fac_challenge(Transcript& t, const FacProof& pr, std::size_t nb) {
  std::vector<std::uint8_t> first;
  for (const BigInt* v : {&pr.P, &pr.Q, &pr.A, &pr.B, &pr.T}) wire::put_big(first, *v, nb);
  t.append_message("P Q A B T", first);
  return challenge_int(t, "e", kE);
}

FacProof prove_fac_impl(Transcript& t, const BigInt& n0, const BigInt& p, const BigInt& q,
                        const RingPedersen& v, Rng& rng) {
  const unsigned half = half_bits(n0);
  const auto nh = static_cast<unsigned>(v.n.bits());
  const std::size_t nb = bytes_of(v.n);
  const BigInt& m = v.n;
  const BigInt alpha = BigInt::random_bits(half + kE + kS, rng);
  const BigInt beta = BigInt::random_bits(half + kE + kS, rng);
  const BigInt mu = BigInt::random_bits(nh + kS, rng);
  const BigInt nu = BigInt::random_bits(nh + kS, rng);
  const BigInt x = BigInt::random_bits(nh + kE + 2 * kS, rng);
  const BigInt y = BigInt::random_bits(nh + kE + 2 * kS, rng);
  const BigInt r = BigInt::random_bits(nh + half + kE + 2 * kS, rng);
  FacProof pr;
  pr.P = pow2_sec(v.s, p, v.t, mu, m);
  pr.Q = pow2_sec(v.s, q, v.t, nu, m);
  pr.A = pow2_sec(v.s, alpha, v.t, x, m);
  pr.B = pow2_sec(v.s, beta, v.t, y, m);
  BigInt tr = pow_sec(v.t, r, m);
  GOPA_CHECK(mpz_invert(tr.get(), tr.get(), m.get()) != 0, "t^r is a unit");
  pr.T = pow_sec(pr.Q, alpha, m);
  mpz_mul(pr.T.get(), pr.T.get(), tr.get());
  mpz_mod(pr.T.get(), pr.T.get(), m.get());
  append_fac_statement(t, n0, v);
  const BigInt e = fac_challenge(t, pr, nb);
  const auto resp = [&](BigInt& out, const BigInt& mask, const BigInt& w) {
    mpz_mul(out.get(), e.get(), w.get());
    mpz_add(out.get(), out.get(), mask.get());
  };
  resp(pr.z1, alpha, p);
  resp(pr.z2, beta, q);
  resp(pr.w1, x, mu);
  resp(pr.w2, y, nu);
  BigInt nup;
  mpz_mul(nup.get(), nu.get(), p.get());
  resp(pr.v, r, nup);
  return pr;
}

}  // namespace

const char* key_check_name(KeyCheck c) noexcept {
  switch (c) {
    case KeyCheck::kOk: return "ok";
    case KeyCheck::kLength: return "wrong encoded length";
    case KeyCheck::kMalformed: return "proof element outside its domain";
    case KeyCheck::kModulus: return "modulus or parameters not of the required form";
    case KeyCheck::kJacobi: return "Jacobi symbol of w is not -1";
    case KeyCheck::kFourthRoot: return "fourth-root equation fails (not a Paillier-Blum modulus)";
    case KeyCheck::kNthRoot: return "N-th root equation fails (gcd(N, phi(N)) != 1)";
    case KeyCheck::kPrmEquation: return "ring-Pedersen equation t^z = A*s^e fails";
    case KeyCheck::kFacRange: return "factor response out of range (a factor is not close to sqrt(N))";
    case KeyCheck::kFacEquation: return "no-small-factor equation fails";
  }
  return "unknown";
}

// ---------------------------------------------------------------- Π_mod
std::vector<std::uint8_t> ModProof::encode(std::size_t nb) const {
  GOPA_CHECK(x.size() == KP::kModRounds && z.size() == KP::kModRounds && ab.size() == KP::kModRounds,
             "a complete proof");
  std::vector<std::uint8_t> out;
  out.reserve(encoded_bytes(nb));
  wire::put_big(out, w, nb);
  for (unsigned i = 0; i < KP::kModRounds; ++i) {
    wire::put_big(out, x[i], nb);
    wire::put_big(out, z[i], nb);
    out.push_back(ab[i]);
  }
  return out;
}

Decoded<ModProof> ModProof::decode(std::span<const std::uint8_t> in, std::size_t nb) {
  Decoded<ModProof> d;
  if (nb == 0 || in.size() != encoded_bytes(nb)) {
    d.error = KeyCheck::kLength;
    return d;
  }
  wire::Reader r(in);
  ModProof pr;
  pr.w = wire::read_big(r, nb);
  for (unsigned i = 0; i < KP::kModRounds; ++i) {
    pr.x.push_back(wire::read_big(r, nb));
    pr.z.push_back(wire::read_big(r, nb));
    const std::uint8_t f = r.u8();
    if (f > 3) {
      d.error = KeyCheck::kMalformed;
      return d;
    }
    pr.ab.push_back(f);
  }
  d.value = std::move(pr);
  return d;
}

ModProof prove_mod(Transcript& t, const PaillierKey& key, Rng& rng) {
  const std::array<BigInt, 2> primes{key.p(), key.q()};
  return prove_mod_impl(t, key.pub().n(), key.pub().h(), primes, rng);
}

KeyCheck verify_mod(Transcript& t, const BigInt& n, const BigInt& h, const ModProof& pr) {
  if (mpz_sgn(n.get()) <= 0 || mpz_even_p(n.get()) || n.bits() < 16) return KeyCheck::kModulus;
  const std::size_t nb = bytes_of(n);
  if (mpz_sgn(h.get()) < 0 || bytes_of(h) > nb) return KeyCheck::kMalformed;
  if (pr.x.size() != KP::kModRounds || pr.z.size() != KP::kModRounds ||
      pr.ab.size() != KP::kModRounds || !in_open(pr.w, n))
    return KeyCheck::kMalformed;
  for (unsigned i = 0; i < KP::kModRounds; ++i)
    if (!in_open(pr.x[i], n) || !in_open(pr.z[i], n) || pr.ab[i] > 3) return KeyCheck::kMalformed;
  // N composite (a prime N ≡ 3 mod 4 passes both equations): 40 Miller–Rabin rounds on top of
  // GMP's trial divisions and Baillie–PSW (public data).
  if (mpz_probab_prime_p(n.get(), 40) != 0) return KeyCheck::kModulus;
  if (mpz_jacobi(pr.w.get(), n.get()) != -1) return KeyCheck::kJacobi;
  append_mod_statement(t, n, h);
  append_big(t, "w", pr.w, nb);
  std::vector<BigInt> ys;
  ys.reserve(KP::kModRounds);
  for (unsigned i = 0; i < KP::kModRounds; ++i) ys.push_back(challenge_unit(t, n));
  BigInt v;
  for (unsigned i = 0; i < KP::kModRounds; ++i) {
    mpz_powm(v.get(), pr.z[i].get(), n.get(), n.get());
    if (!(v == ys[i])) return KeyCheck::kNthRoot;
  }
  for (unsigned i = 0; i < KP::kModRounds; ++i) {
    BigInt yp = ys[i];
    if ((pr.ab[i] & 2) != 0) {
      mpz_mul(yp.get(), yp.get(), pr.w.get());
      mpz_mod(yp.get(), yp.get(), n.get());
    }
    if ((pr.ab[i] & 1) != 0) mpz_sub(yp.get(), n.get(), yp.get());
    mpz_powm_ui(v.get(), pr.x[i].get(), 4, n.get());
    if (!(v == yp)) return KeyCheck::kFourthRoot;
  }
  return KeyCheck::kOk;
}

// ---------------------------------------------------------------- ring-Pedersen, Π_prm
RingPedersenSecret RingPedersenSecret::generate(const PaillierKey& key, Rng& rng) {
  const BigInt& n = key.pub().n();
  BigInt phi, pm1, qm1, tau, g;
  mpz_sub_ui(pm1.get(), key.p().get(), 1);
  mpz_sub_ui(qm1.get(), key.q().get(), 1);
  mpz_mul(phi.get(), pm1.get(), qm1.get());
  do {
    tau = random_below(n, rng);
    mpz_gcd(g.get(), tau.get(), n.get());
  } while (mpz_cmp_ui(g.get(), 1) != 0 || mpz_cmp_ui(tau.get(), 1) <= 0);
  RingPedersen pub;
  pub.n = n;
  mpz_powm_ui(pub.t.get(), tau.get(), 2, n.get());
  BigInt lambda;
  do {
    lambda = random_below(phi, rng);
    pub.s = pow_crt(pub.t, lambda, key.p(), key.q());
  } while (mpz_cmp_ui(pub.s.get(), 1) == 0);
  RingPedersenSecret r;
  RingPedersenAccess::set(r, std::move(pub), std::move(lambda), key.p(), key.q());
  return r;
}

std::vector<std::uint8_t> PrmProof::encode(std::size_t nb) const {
  GOPA_CHECK(a.size() == KP::kPrmRounds && z.size() == KP::kPrmRounds, "a complete proof");
  std::vector<std::uint8_t> out;
  out.reserve(encoded_bytes(nb));
  for (unsigned i = 0; i < KP::kPrmRounds; ++i) {
    wire::put_big(out, a[i], nb);
    wire::put_big(out, z[i], nb);
  }
  return out;
}

Decoded<PrmProof> PrmProof::decode(std::span<const std::uint8_t> in, std::size_t nb) {
  Decoded<PrmProof> d;
  if (nb == 0 || in.size() != encoded_bytes(nb)) {
    d.error = KeyCheck::kLength;
    return d;
  }
  wire::Reader r(in);
  PrmProof pr;
  for (unsigned i = 0; i < KP::kPrmRounds; ++i) {
    pr.a.push_back(wire::read_big(r, nb));
    pr.z.push_back(wire::read_big(r, nb));
  }
  d.value = std::move(pr);
  return d;
}

PrmProof prove_prm(Transcript& t, const RingPedersenSecret& rs, Rng& rng) {
  const RingPedersen& rp = rs.pub();
  const BigInt& p = RingPedersenAccess::p(rs);
  const BigInt& q = RingPedersenAccess::q(rs);
  BigInt phi, pm1, qm1;
  mpz_sub_ui(pm1.get(), p.get(), 1);
  mpz_sub_ui(qm1.get(), q.get(), 1);
  mpz_mul(phi.get(), pm1.get(), qm1.get());
  PrmProof pr;
  std::vector<BigInt> as;
  for (unsigned i = 0; i < KP::kPrmRounds; ++i) {
    as.push_back(random_below(phi, rng));
    pr.a.push_back(pow_crt(rp.t, as.back(), p, q));
  }
  append_prm_statement(t, rp);
  const auto e = prm_challenge(t, pr, bytes_of(rp.n));
  for (unsigned i = 0; i < KP::kPrmRounds; ++i) {
    BigInt z = as[i];
    if (bit_of(e, i)) mpz_add(z.get(), z.get(), RingPedersenAccess::lambda(rs).get());
    mpz_mod(z.get(), z.get(), phi.get());
    pr.z.push_back(std::move(z));
  }
  return pr;
}

KeyCheck verify_prm(Transcript& t, const RingPedersen& rp, const PrmProof& pr) {
  const BigInt& n = rp.n;
  if (mpz_sgn(n.get()) <= 0 || mpz_even_p(n.get()) || n.bits() < 16) return KeyCheck::kModulus;
  BigInt nm1, g;
  mpz_sub_ui(nm1.get(), n.get(), 1);
  for (const BigInt* v : {&rp.s, &rp.t}) {
    if (mpz_cmp_ui(v->get(), 1) <= 0 || mpz_cmp(v->get(), nm1.get()) >= 0) return KeyCheck::kModulus;
    mpz_gcd(g.get(), v->get(), n.get());
    if (mpz_cmp_ui(g.get(), 1) != 0) return KeyCheck::kModulus;
  }
  if (pr.a.size() != KP::kPrmRounds || pr.z.size() != KP::kPrmRounds) return KeyCheck::kMalformed;
  for (unsigned i = 0; i < KP::kPrmRounds; ++i)
    if (!in_open(pr.a[i], n) || mpz_sgn(pr.z[i].get()) < 0 || mpz_cmp(pr.z[i].get(), n.get()) >= 0)
      return KeyCheck::kMalformed;
  append_prm_statement(t, rp);
  const auto e = prm_challenge(t, pr, bytes_of(n));
  // Public data: the powers t^(z_i) come from one variable-time fixed-base table of t covering
  // the widest z_i (its cost is shared by the rounds; PrmTable in the anonymous namespace).
  PrmTable tab(rp.t, n, pr.z);
  BigInt rhs;
  for (unsigned i = 0; i < KP::kPrmRounds; ++i) {
    rhs = pr.a[i];
    if (bit_of(e, i)) {
      mpz_mul(rhs.get(), rhs.get(), rp.s.get());
      mpz_mod(rhs.get(), rhs.get(), n.get());
    }
    if (!tab.pow_equals(pr.z[i], rhs)) return KeyCheck::kPrmEquation;
  }
  return KeyCheck::kOk;
}

// ---------------------------------------------------------------- Π_fac
FacProof::Sizes FacProof::sizes(std::size_t n0_bits, std::size_t nhat_bits) noexcept {
  const std::size_t half = (n0_bits + 1) / 2;
  Sizes s{};
  s.nb = (nhat_bits + 7) / 8;
  // z = α + e·f for a factor f < N0 of the prover's choice: < 2^(half+160) + 2^(|N0|+80).
  s.zb = (n0_bits + kE + 1 + 7) / 8;
  // w = x + e·μ < 2^(|N̂|+240) + 2^(|N̂|+160).
  s.wb = (nhat_bits + kE + 2 * kS + 1 + 7) / 8;
  // v = r + e·ν·p < 2^(|N̂|+half+240) + 2^(|N̂|+|N0|+160) for any factor p < N0.
  s.vb = (nhat_bits + std::max(half + kE + 2 * kS, n0_bits + kE + kS) + 1 + 7) / 8;
  return s;
}

std::vector<std::uint8_t> FacProof::encode(std::size_t n0_bits, std::size_t nhat_bits) const {
  const Sizes s = sizes(n0_bits, nhat_bits);
  std::vector<std::uint8_t> out;
  out.reserve(encoded_bytes(n0_bits, nhat_bits));
  for (const BigInt* e : {&P, &Q, &A, &B, &T}) wire::put_big(out, *e, s.nb);
  wire::put_big(out, z1, s.zb);
  wire::put_big(out, z2, s.zb);
  wire::put_big(out, w1, s.wb);
  wire::put_big(out, w2, s.wb);
  wire::put_big(out, v, s.vb);
  return out;
}

Decoded<FacProof> FacProof::decode(std::span<const std::uint8_t> in, std::size_t n0_bits,
                                   std::size_t nhat_bits) {
  Decoded<FacProof> d;
  if (nhat_bits == 0 || in.size() != encoded_bytes(n0_bits, nhat_bits)) {
    d.error = KeyCheck::kLength;
    return d;
  }
  const Sizes s = sizes(n0_bits, nhat_bits);
  wire::Reader r(in);
  FacProof pr;
  for (BigInt* v : {&pr.P, &pr.Q, &pr.A, &pr.B, &pr.T}) *v = wire::read_big(r, s.nb);
  pr.z1 = wire::read_big(r, s.zb);
  pr.z2 = wire::read_big(r, s.zb);
  pr.w1 = wire::read_big(r, s.wb);
  pr.w2 = wire::read_big(r, s.wb);
  pr.v = wire::read_big(r, s.vb);
  d.value = std::move(pr);
  return d;
}

FacProof prove_fac(Transcript& t, const PaillierKey& key, const RingPedersen& verifier, Rng& rng) {
  return prove_fac_impl(t, key.pub().n(), key.p(), key.q(), verifier, rng);
}

KeyCheck verify_fac(Transcript& t, const BigInt& n0, const RingPedersen& v, const FacProof& pr) {
  const BigInt& m = v.n;
  if (mpz_sgn(n0.get()) <= 0 || mpz_sgn(m.get()) <= 0 || mpz_even_p(m.get()))
    return KeyCheck::kModulus;
  for (const BigInt* x : {&pr.P, &pr.Q, &pr.A, &pr.B, &pr.T})
    if (!in_open(*x, m)) return KeyCheck::kMalformed;
  for (const BigInt* x : {&pr.z1, &pr.z2, &pr.w1, &pr.w2, &pr.v})
    if (mpz_sgn(x->get()) < 0) return KeyCheck::kMalformed;
  append_fac_statement(t, n0, v);
  const BigInt e = fac_challenge(t, pr, bytes_of(m));
  const unsigned bound = half_bits(n0) + kE + kS + 1;
  if (pr.z1.bits() > bound || pr.z2.bits() > bound) return KeyCheck::kFacRange;
  // Public data from here: variable-time exponentiations.
  const auto times_pow = [&](const BigInt& a, const BigInt& b, const BigInt& ex) {
    BigInt r;
    mpz_powm(r.get(), b.get(), ex.get(), m.get());
    mpz_mul(r.get(), r.get(), a.get());
    mpz_mod(r.get(), r.get(), m.get());
    return r;
  };
  if (!(pow2(v.s, pr.z1, v.t, pr.w1, m) == times_pow(pr.A, pr.P, e))) return KeyCheck::kFacEquation;
  if (!(pow2(v.s, pr.z2, v.t, pr.w2, m) == times_pow(pr.B, pr.Q, e))) return KeyCheck::kFacEquation;
  BigInt en0, lhs;
  mpz_mul(en0.get(), e.get(), n0.get());
  mpz_powm(lhs.get(), pr.Q.get(), pr.z1.get(), m.get());
  BigInt rhs = pow2(v.s, en0, v.t, pr.v, m);
  mpz_mul(rhs.get(), rhs.get(), pr.T.get());
  mpz_mod(rhs.get(), rhs.get(), m.get());
  if (!(lhs == rhs)) return KeyCheck::kFacEquation;
  return KeyCheck::kOk;
}

namespace detail {
ModProof prove_mod_factors(Transcript& t, const BigInt& n, const BigInt& h,
                           std::span<const BigInt> primes, Rng& rng) {
  return prove_mod_impl(t, n, h, primes, rng);
}
FacProof prove_fac_factors(Transcript& t, const BigInt& n0, const BigInt& p, const BigInt& q,
                           const RingPedersen& verifier, Rng& rng) {
  return prove_fac_impl(t, n0, p, q, verifier, rng);
}
}  // namespace detail

}  // namespace gopa::sampling
