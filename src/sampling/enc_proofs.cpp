// Paillier encryption in range against the verifier's ring-Pedersen parameters
// (include/gopa/sampling/enc_proofs.hpp, docs/sampling.md "Ciphertext proofs against the
// verifier's ring-Pedersen parameters").
#include "gopa/sampling/enc_proofs.hpp"

#include <array>

#include "gopa/check.hpp"
#include "gopa/msm.hpp"
#include "modarith.hpp"
#include "wire.hpp"

namespace gopa::sampling {
namespace {

using P = RpEncParams;
using modarith::bytes_of;
using modarith::in_open;
using modarith::pow2;
using modarith::pow2_sec;

// The challenge as an integer in [0, 2^80) and as a scalar.
struct Challenge {
  BigInt big;
  Scalar s;
};

// e from the transcript, after the whole first message.
Challenge draw_challenge(Transcript& t) {
  std::array<std::uint8_t, P::kChallengeBits / 8> e{};
  static_assert(P::kChallengeBits % 8 == 0, "whole challenge bytes");
  t.challenge_bytes("e", e);
  Challenge c;
  mpz_import(c.big.get(), e.size(), 1, 1, 0, 0, e.data());
  c.s = c.big.to_scalar();
  return c;
}

Challenge derive_challenge(Transcript& t, const RpEncStatement& st, const RpEncProof& pr) {
  const std::size_t nb = bytes_of(st.verifier->n);
  t.append_message("T_C", pr.tc.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("T_A", pr.ta);
  t.append_message("S", pr.s.to_bytes(nb));
  t.append_message("D", pr.d.to_bytes(nb));
  return draw_challenge(t);
}

// s^z·t^w = D·S^e mod N̂ (public data: variable time).
bool rp_equation_holds(const RingPedersen& v, const BigInt& S, const BigInt& D, const BigInt& w,
                       const BigInt& z, const BigInt& e) {
  const BigInt lhs = pow2(v.s, z, v.t, w, v.n);
  BigInt rhs;
  mpz_powm(rhs.get(), S.get(), e.get(), v.n.get());
  mpz_mul(rhs.get(), rhs.get(), D.get());
  mpz_mod(rhs.get(), rhs.get(), v.n.get());
  return lhs == rhs;
}

// The shared part's Paillier equation Enc(z·2^shift; ν) = T_C·C^e mod N² (public data).
bool paillier_equation_holds(const PaillierPublic& pk, const BigInt& c, unsigned shift,
                             const BigInt& tc, const BigInt& z, const BigInt& nu, const BigInt& e) {
  BigInt zs;
  mpz_mul_2exp(zs.get(), z.get(), shift);
  return pk.encrypt_public(zs, nu) == pk.add(tc, pk.mul_plain(c, e));
}

// The commitment equation (z mod ℓ)·G + z_r·H = T_A + e·A, deferred into `batch` if given.
RpEncCheck commitment_check(const BigInt& zi, const Scalar& zr, const Point& ta, const Point& a,
                            const Challenge& e, const GeneratorSet& gens, CommitmentBatch* batch,
                            Rng& rng) {
  const Scalar z = zi.to_scalar();
  if (batch != nullptr) {
    batch->add(z, zr, ta, e.s, a, rng);
    return RpEncCheck::kOk;
  }
  const Scalar w[4] = {z, zr, -Scalar::one(), -e.s};
  const Point p[4] = {gens.G(), gens.H(), ta, a};
  return msm(w, p).is_identity() ? RpEncCheck::kOk : RpEncCheck::kCommitment;
}

// The statement's moduli and parameters are of the required form (public data).
bool parameters_ok(const RpEncStatement& st) {
  if (st.pk == nullptr || st.verifier == nullptr) return false;
  const RingPedersen& v = *st.verifier;
  const std::size_t nh = v.n.bits();
  if (nh < P::kMinModulusBits || nh > P::kMaxModulusBits || mpz_even_p(v.n.get())) return false;
  if (st.pk->n_bits() < P::kMinModulusBits || st.pk->n_bits() > P::kMaxModulusBits) return false;
  BigInt nm1, g;
  mpz_sub_ui(nm1.get(), v.n.get(), 1);
  for (const BigInt* x : {&v.s, &v.t}) {
    if (mpz_cmp_ui(x->get(), 1) <= 0 || mpz_cmp(x->get(), nm1.get()) >= 0) return false;
    mpz_gcd(g.get(), x->get(), v.n.get());
    if (mpz_cmp_ui(g.get(), 1) != 0) return false;
  }
  return true;
}

RpEncProof prove_once(Transcript& t, const RpEncStatement& st, const BigInt& x, const BigInt& alpha,
                      const SecretScalar& r, const GeneratorSet& gens, Rng& rng,
                      const detail::RpEncTamper& after) {
  const PaillierPublic& pk = *st.pk;
  const RingPedersen& v = *st.verifier;
  const auto nh = static_cast<unsigned>(v.n.bits());
  const BigInt y = BigInt::random_bits(P::kBoundBits, rng);
  const BigInt mu = BigInt::random_bits(P::kNonceRandBits, rng);
  const SecretScalar rho = SecretScalar::random(rng);
  const BigInt m = BigInt::random_bits(nh + P::kRpMaskBits, rng);
  const BigInt gamma = BigInt::random_bits(nh + P::kRpNonceBits, rng);
  RpEncProof pr;
  BigInt ys;
  mpz_mul_2exp(ys.get(), y.get(), st.shift);
  pr.tc = pk.encrypt(ys, mu, P::kNonceRandBits);
  pr.ta = commit(y.to_secret(), rho, gens);
  pr.s = pow2_sec(v.s, x, v.t, m, v.n);
  pr.d = pow2_sec(v.s, y, v.t, gamma, v.n);
  const Challenge e = derive_challenge(t, st, pr);
  const auto resp = [&](BigInt& out, const BigInt& mask, const BigInt& wit) {
    mpz_mul(out.get(), e.big.get(), wit.get());
    mpz_add(out.get(), out.get(), mask.get());
  };
  resp(pr.z, y, x);
  resp(pr.nu, mu, alpha);
  resp(pr.w, gamma, m);
  pr.zr = (rho + r * e.s).declassify();
  if (after) after(e.big, pr);
  return pr;
}

// The multi-verifier statement's sizes are of the required form (the parameters' units are
// verify_prm's check, done once per key by the caller).
bool multi_parameters_ok(const RpMultiStatement& st) {
  if (st.pk == nullptr || st.verifiers.empty() || st.verifiers.size() != st.verifier_ids.size())
    return false;
  if (st.pk->n_bits() < P::kMinModulusBits || st.pk->n_bits() > P::kMaxModulusBits) return false;
  for (const RingPedersen* v : st.verifiers) {
    if (v == nullptr) return false;
    const std::size_t nh = v->n.bits();
    if (nh < P::kMinModulusBits || nh > P::kMaxModulusBits || mpz_even_p(v->n.get())) return false;
  }
  return true;
}

Challenge derive_multi_challenge(Transcript& t, const RpMultiStatement& st, const RpMultiProof& pr) {
  t.append_message("T_C", pr.tc.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("T_A", pr.ta);
  for (std::size_t j = 0; j < pr.parts.size(); ++j) {
    const std::size_t nb = bytes_of(st.verifiers[j]->n);
    t.append_message("S", pr.parts[j].s.to_bytes(nb));
    t.append_message("D", pr.parts[j].d.to_bytes(nb));
  }
  return draw_challenge(t);
}

RpMultiProof prove_multi_once(Transcript& t, const RpMultiStatement& st, const BigInt& x,
                              const BigInt& alpha, const SecretScalar& r, const GeneratorSet& gens,
                              Rng& rng, const detail::RpMultiTamper& after,
                              const RpPow2Sec& pow2s, const PaillierKey* own) {
  const PaillierPublic& pk = *st.pk;
  const BigInt y = BigInt::random_bits(P::kBoundBits, rng);
  const BigInt mu = BigInt::random_bits(P::kNonceRandBits, rng);
  const SecretScalar rho = SecretScalar::random(rng);
  RpMultiProof pr;
  BigInt ys;
  mpz_mul_2exp(ys.get(), y.get(), st.shift);
  pr.tc = own != nullptr ? own->encrypt_own(ys, mu, P::kNonceRandBits)
                         : pk.encrypt(ys, mu, P::kNonceRandBits);
  pr.ta = commit(y.to_secret(), rho, gens);
  const std::size_t nv = st.verifiers.size();
  std::vector<BigInt> m(nv), gamma(nv);
  pr.parts.resize(nv);
  for (std::size_t j = 0; j < nv; ++j) {
    const RingPedersen& v = *st.verifiers[j];
    const auto nh = static_cast<unsigned>(v.n.bits());
    m[j] = BigInt::random_bits(nh + P::kRpMaskBits, rng);
    gamma[j] = BigInt::random_bits(nh + P::kRpNonceBits, rng);
    // (pow2s only from the honest prover, whose x < 2^253 is checked; the deviating provers
    // of the tests, with any x, use mpz_powm_sec.)
    pr.parts[j].s = pow2s ? pow2s(j, x, P::kPlainBits, m[j], nh + P::kRpMaskBits)
                          : pow2_sec(v.s, x, v.t, m[j], v.n);
    pr.parts[j].d = pow2s ? pow2s(j, y, P::kBoundBits, gamma[j], nh + P::kRpNonceBits)
                          : pow2_sec(v.s, y, v.t, gamma[j], v.n);
  }
  const Challenge e = derive_multi_challenge(t, st, pr);
  const auto resp = [&](BigInt& out, const BigInt& mask, const BigInt& wit) {
    mpz_mul(out.get(), e.big.get(), wit.get());
    mpz_add(out.get(), out.get(), mask.get());
  };
  resp(pr.z, y, x);
  resp(pr.nu, mu, alpha);
  for (std::size_t j = 0; j < nv; ++j) resp(pr.parts[j].w, gamma[j], m[j]);
  pr.zr = (rho + r * e.s).declassify();
  if (after) after(e.big, pr, y, mu, rho);
  return pr;
}

}  // namespace

const char* rp_enc_check_name(RpEncCheck c) noexcept {
  switch (c) {
    case RpEncCheck::kOk: return "ok";
    case RpEncCheck::kLength: return "wrong encoded length";
    case RpEncCheck::kMalformed: return "malformed proof element";
    case RpEncCheck::kParameters: return "moduli or ring-Pedersen parameters not of the required form";
    case RpEncCheck::kRange: return "response z out of range (plaintext not proven small)";
    case RpEncCheck::kPaillier: return "Paillier equation Enc(z; nu) = T_C*C^e fails";
    case RpEncCheck::kRingPedersen: return "ring-Pedersen equation s^z*t^w = D*S^e fails";
    case RpEncCheck::kCommitment: return "commitment equation z*G + z_r*H = T_A + e*A fails";
  }
  return "unknown";
}

RpEncProof::Sizes RpEncProof::sizes(std::size_t n_bits, std::size_t nhat_bits) noexcept {
  Sizes s{};
  s.ct = (2 * n_bits + 7) / 8;
  s.nb = (nhat_bits + 7) / 8;
  s.wb = (nhat_bits + P::kRpResponseBits + 7) / 8;
  return s;
}

std::size_t RpEncProof::encoded_bytes(std::size_t n_bits, std::size_t nhat_bits) noexcept {
  const Sizes s = sizes(n_bits, nhat_bits);
  return s.ct + Point::kBytes + 2 * s.nb + kZBytes + kNuBytes + Scalar::kBytes + s.wb;
}

std::vector<std::uint8_t> RpEncProof::encode(std::size_t n_bits, std::size_t nhat_bits) const {
  const Sizes sz = sizes(n_bits, nhat_bits);
  std::vector<std::uint8_t> out;
  out.reserve(encoded_bytes(n_bits, nhat_bits));
  wire::put_big(out, tc, sz.ct);
  wire::Writer(out).point(ta);
  wire::put_big(out, s, sz.nb);
  wire::put_big(out, d, sz.nb);
  wire::put_big(out, z, kZBytes);
  wire::put_big(out, nu, kNuBytes);
  wire::Writer(out).scalar(zr);
  wire::put_big(out, w, sz.wb);
  return out;
}

RpEncDecoded RpEncProof::decode(std::span<const std::uint8_t> in, std::size_t n_bits,
                                std::size_t nhat_bits) {
  RpEncDecoded d;
  if (n_bits == 0 || nhat_bits == 0 || in.size() != encoded_bytes(n_bits, nhat_bits)) {
    d.error = RpEncCheck::kLength;
    return d;
  }
  const Sizes s = sizes(n_bits, nhat_bits);
  wire::Reader r(in);
  RpEncProof pr;
  pr.tc = wire::read_big(r, s.ct);
  pr.ta = r.point();
  pr.s = wire::read_big(r, s.nb);
  pr.d = wire::read_big(r, s.nb);
  pr.z = wire::read_big(r, kZBytes);
  pr.nu = wire::read_big(r, kNuBytes);
  pr.zr = r.scalar();
  pr.w = wire::read_big(r, s.wb);
  if (!r.finish()) {
    d.error = RpEncCheck::kMalformed;
    return d;
  }
  d.value = std::move(pr);
  return d;
}

void append_enc_rp_statement(Transcript& t, const RpEncStatement& st) {
  GOPA_CHECK(st.pk != nullptr && st.verifier != nullptr, "statement has both keys");
  const RingPedersen& v = *st.verifier;
  const std::size_t nb = bytes_of(v.n);
  t.domain_separator("gopa/paillier-enc-rp v1");
  t.append_u64("plain bits", P::kPlainBits);
  t.append_u64("challenge bits", P::kChallengeBits);
  t.append_u64("zk bits", P::kZkBits);
  t.append_u64("prover", st.prover_id);
  t.append_u64("verifier", st.verifier_id);
  t.append_message("N", st.pk->n().to_bytes((st.pk->n_bits() + 7) / 8));
  t.append_message("Nhat", v.n.to_bytes(nb));
  t.append_message("s", v.s.to_bytes(nb));
  t.append_message("t", v.t.to_bytes(nb));
  t.append_u64("shift", st.shift);
  t.append_message("C", st.c.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("A", st.a);
}

RpEncProof prove_enc_rp(Transcript& t, const RpEncStatement& st, const BigInt& x,
                        const BigInt& alpha, const SecretScalar& r, const GeneratorSet& gens,
                        Rng& rng) {
  GOPA_CHECK(parameters_ok(st), "well-formed moduli and ring-Pedersen parameters");
  GOPA_CHECK(mpz_sgn(x.get()) >= 0 && x.bits() <= P::kPlainBits, "plaintext in [0, 2^253)");
  GOPA_CHECK(mpz_sgn(alpha.get()) >= 0 && alpha.bits() <= PaillierKey::kAlphaBits,
             "encryption randomness in [0, 2^256)");
  append_enc_rp_statement(t, st);
  // Restart (on a fork of the transcript) while z ≥ 2^373: probability 2^-40 per attempt; the
  // accepted responses are then within 2^-40 of independent of (x, α).
  for (;;) {
    Transcript tt = t.clone();
    RpEncProof pr = prove_once(tt, st, x, alpha, r, gens, rng, {});
    if (pr.z.bits() <= P::kBoundBits) {
      t = std::move(tt);
      return pr;
    }
  }
}

RpEncCheck verify_enc_rp(Transcript& t, const RpEncStatement& st, const RpEncProof& pr,
                         const GeneratorSet& gens, CommitmentBatch* batch, Rng& rng) {
  if (!parameters_ok(st)) return RpEncCheck::kParameters;
  const PaillierPublic& pk = *st.pk;
  const RingPedersen& v = *st.verifier;
  const auto nh = static_cast<unsigned>(v.n.bits());
  if (!pk.valid(st.c) || !pk.valid(pr.tc) || !in_open(pr.s, v.n) || !in_open(pr.d, v.n) ||
      mpz_sgn(pr.z.get()) < 0 || mpz_sgn(pr.nu.get()) < 0 ||
      pr.nu.bits() > PaillierPublic::kExpBits || mpz_sgn(pr.w.get()) < 0 ||
      pr.w.bits() > nh + P::kRpResponseBits)
    return RpEncCheck::kMalformed;
  append_enc_rp_statement(t, st);
  const Challenge e = derive_challenge(t, st, pr);
  if (pr.z.bits() > P::kBoundBits) return RpEncCheck::kRange;
  // Public data from here: variable-time exponentiations.
  if (!paillier_equation_holds(pk, st.c, st.shift, pr.tc, pr.z, pr.nu, e.big))
    return RpEncCheck::kPaillier;
  if (!rp_equation_holds(v, pr.s, pr.d, pr.w, pr.z, e.big)) return RpEncCheck::kRingPedersen;
  return commitment_check(pr.z, pr.zr, pr.ta, st.a, e, gens, batch, rng);
}

void append_enc_rp_multi_statement(Transcript& t, const RpMultiStatement& st) {
  GOPA_CHECK(st.pk != nullptr && st.verifiers.size() == st.verifier_ids.size(),
             "statement has the prover's key and one index per verifier");
  t.domain_separator("gopa/paillier-enc-rp-multi v1");
  t.append_u64("plain bits", P::kPlainBits);
  t.append_u64("challenge bits", P::kChallengeBits);
  t.append_u64("zk bits", P::kZkBits);
  t.append_u64("prover", st.prover_id);
  t.append_u64("verifiers", st.verifiers.size());
  for (std::size_t j = 0; j < st.verifiers.size(); ++j) {
    const RingPedersen& v = *st.verifiers[j];
    const std::size_t nb = bytes_of(v.n);
    t.append_u64("verifier", st.verifier_ids[j]);
    t.append_message("Nhat", v.n.to_bytes(nb));
    t.append_message("s", v.s.to_bytes(nb));
    t.append_message("t", v.t.to_bytes(nb));
  }
  t.append_message("N", st.pk->n().to_bytes((st.pk->n_bits() + 7) / 8));
  t.append_u64("shift", st.shift);
  t.append_message("C", st.c.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("A", st.a);
}

RpMultiProof prove_enc_rp_multi(Transcript& t, const RpMultiStatement& st, const BigInt& x,
                                const BigInt& alpha, const SecretScalar& r,
                                const GeneratorSet& gens, Rng& rng, const RpPow2Sec& pow2s,
                                const PaillierKey* own) {
  GOPA_CHECK(multi_parameters_ok(st), "well-formed moduli and one ring-Pedersen set per verifier");
  GOPA_CHECK(own == nullptr || (own->pub().n() == st.pk->n() && own->pub().h() == st.pk->h()),
             "the prover's own key");
  GOPA_CHECK(mpz_sgn(x.get()) >= 0 && x.bits() <= P::kPlainBits, "plaintext in [0, 2^253)");
  GOPA_CHECK(mpz_sgn(alpha.get()) >= 0 && alpha.bits() <= PaillierKey::kAlphaBits,
             "encryption randomness in [0, 2^256)");
  append_enc_rp_multi_statement(t, st);
  for (;;) {  // restart while z ≥ 2^373, as prove_enc_rp
    Transcript tt = t.clone();
    RpMultiProof pr = prove_multi_once(tt, st, x, alpha, r, gens, rng, {}, pow2s, own);
    if (pr.z.bits() <= P::kBoundBits) {
      t = std::move(tt);
      return pr;
    }
  }
}

RpEncCheck verify_enc_rp_shared(Transcript& t, const RpMultiStatement& st, const RpMultiProof& pr,
                                const GeneratorSet& gens, CommitmentBatch* batch, Rng& rng,
                                BigInt* challenge) {
  if (!multi_parameters_ok(st)) return RpEncCheck::kParameters;
  if (pr.parts.size() != st.verifiers.size()) return RpEncCheck::kLength;
  const PaillierPublic& pk = *st.pk;
  if (!pk.valid(st.c) || !pk.valid(pr.tc) || mpz_sgn(pr.z.get()) < 0 || mpz_sgn(pr.nu.get()) < 0 ||
      pr.nu.bits() > PaillierPublic::kExpBits)
    return RpEncCheck::kMalformed;
  for (std::size_t j = 0; j < pr.parts.size(); ++j) {
    const RingPedersen& v = *st.verifiers[j];
    const RpPart& part = pr.parts[j];
    if (!in_open(part.s, v.n) || !in_open(part.d, v.n) || mpz_sgn(part.w.get()) < 0 ||
        part.w.bits() > v.n.bits() + P::kRpResponseBits)
      return RpEncCheck::kMalformed;
  }
  append_enc_rp_multi_statement(t, st);
  const Challenge e = derive_multi_challenge(t, st, pr);
  if (pr.z.bits() > P::kBoundBits) return RpEncCheck::kRange;
  if (!paillier_equation_holds(pk, st.c, st.shift, pr.tc, pr.z, pr.nu, e.big))
    return RpEncCheck::kPaillier;
  if (challenge != nullptr) *challenge = e.big;
  return commitment_check(pr.z, pr.zr, pr.ta, st.a, e, gens, batch, rng);
}

bool rp_part_holds(const RingPedersen& v, const RpPart& part, const BigInt& z, const BigInt& e) {
  if (!in_open(part.s, v.n) || !in_open(part.d, v.n) || mpz_sgn(part.w.get()) < 0 ||
      mpz_sgn(z.get()) < 0)
    return false;
  return rp_equation_holds(v, part.s, part.d, part.w, z, e);
}

namespace detail {
RpEncProof prove_enc_rp_unchecked(Transcript& t, const RpEncStatement& st, const BigInt& x,
                                  const BigInt& alpha, const SecretScalar& r,
                                  const GeneratorSet& gens, Rng& rng, const RpEncTamper& after) {
  append_enc_rp_statement(t, st);
  return prove_once(t, st, x, alpha, r, gens, rng, after);
}

RpMultiProof prove_enc_rp_multi_unchecked(Transcript& t, const RpMultiStatement& st,
                                          const BigInt& x, const BigInt& alpha,
                                          const SecretScalar& r, const GeneratorSet& gens,
                                          Rng& rng, const RpMultiTamper& after) {
  append_enc_rp_multi_statement(t, st);
  return prove_multi_once(t, st, x, alpha, r, gens, rng, after, {}, nullptr);
}
}  // namespace detail

}  // namespace gopa::sampling
