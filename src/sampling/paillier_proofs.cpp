// Paillier–Pedersen plaintext equality with range (include/gopa/sampling/paillier_proofs.hpp,
// docs/sampling.md §2 and § Security).
#include "gopa/sampling/paillier_proofs.hpp"

#include <array>

#include "gopa/check.hpp"
#include "gopa/deviation.hpp"
#include "gopa/msm.hpp"

namespace gopa::sampling {
namespace {

using P = EncProofParams;

// (z mod ℓ) for z ≥ 0, and the challenge e as both an integer and a scalar.
struct Challenge {
  BigInt big;
  Scalar s;
};

Challenge derive_challenge(Transcript& t, const EncStatement& st, const BigInt& tc, const Point& ta) {
  t.append_message("T_C", tc.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("T_A", ta);
  std::array<std::uint8_t, P::kChallengeBits / 8> e{};
  static_assert(P::kChallengeBits % 8 == 0, "whole challenge bytes");
  t.challenge_bytes("e", e);
  Challenge c;
  mpz_import(c.big.get(), e.size(), 1, 1, 0, 0, e.data());
  c.s = c.big.to_scalar();
  return c;
}

EncProof prove_once(Transcript& t, const EncStatement& st, const BigInt& x, const BigInt& alpha,
                    const SecretScalar& r, const GeneratorSet& gens, Rng& rng) {
  const PaillierPublic& pk = *st.pk;
  EncProof pr;
  const testing::Deviation* dev = testing::deviation();
  testing::NonceSource source(rng);
  Rng& nonces = source.get();
  BigInt y = BigInt::random_bits(P::kBoundBits, nonces);
  BigInt mu = BigInt::random_bits(P::kNonceRandBits, nonces);
  SecretScalar s = SecretScalar::random(nonces);
  BigInt ys;
  mpz_mul_2exp(ys.get(), y.get(), st.shift);
  pr.tc = pk.encrypt(ys, mu, P::kNonceRandBits);
  pr.ta = commit(y.to_secret(), s, gens);
  if (dev != nullptr && dev->on_enc_commitment) dev->on_enc_commitment(pr.ta);
  const Challenge e = derive_challenge(t, st, pr.tc, pr.ta);
  mpz_mul(pr.z.get(), e.big.get(), x.get());
  mpz_add(pr.z.get(), pr.z.get(), y.get());
  mpz_mul(pr.nu.get(), e.big.get(), alpha.get());
  mpz_add(pr.nu.get(), pr.nu.get(), mu.get());
  pr.zr = (s + r * e.s).declassify();
  if (dev != nullptr && dev->on_enc_responses) dev->on_enc_responses(pr);
  return pr;
}

}  // namespace

const char* enc_check_name(EncCheck c) noexcept {
  switch (c) {
    case EncCheck::kOk: return "ok";
    case EncCheck::kMalformed: return "malformed proof element";
    case EncCheck::kRange: return "response z out of range (plaintext not proven small)";
    case EncCheck::kPaillier: return "Paillier equation Enc(z; nu) = T_C·C^e fails";
    case EncCheck::kCommitment: return "commitment equation z·G + z_r·H = T_A + e·A fails";
  }
  return "unknown";
}

void CommitmentBatch::add(const Scalar& z, const Scalar& zr, const Point& ta, const Scalar& e,
                          const Point& a, Rng& rng) {
  // w·(z·G + z_r·H − T_A − e·A) summed over the proofs must be the identity.
  const Scalar w = Scalar::random(rng);
  g_ += w * z;
  h_ += w * zr;
  w_.push_back(-w);
  p_.push_back(ta);
  w_.push_back(-(w * e));
  p_.push_back(a);
}

bool CommitmentBatch::holds(const GeneratorSet& gens) const {
  std::vector<Scalar> w = w_;
  std::vector<Point> p = p_;
  w.push_back(g_);
  p.push_back(gens.G());
  w.push_back(h_);
  p.push_back(gens.H());
  return msm(w, p).is_identity();
}

void append_enc_statement(Transcript& t, const EncStatement& st) {
  GOPA_CHECK(st.pk != nullptr, "statement has a Paillier key");
  t.domain_separator("gopa/paillier-enc v1");
  t.append_u64("plain bits", P::kPlainBits);
  t.append_u64("challenge bits", P::kChallengeBits);
  t.append_u64("zk bits", P::kZkBits);
  t.append_message("N", st.pk->n().to_bytes((st.pk->n_bits() + 7) / 8));
  t.append_u64("shift", st.shift);
  t.append_message("C", st.c.to_bytes(st.pk->ciphertext_bytes()));
  t.append_point("A", st.a);
}

EncProof prove_enc(Transcript& t, const EncStatement& st, const BigInt& x, const BigInt& alpha,
                   const SecretScalar& r, const GeneratorSet& gens, Rng& rng) {
  GOPA_CHECK(mpz_sgn(x.get()) >= 0 && x.bits() <= P::kPlainBits, "plaintext in [0, 2^253)");
  GOPA_CHECK(mpz_sgn(alpha.get()) >= 0 && alpha.bits() <= PaillierKey::kAlphaBits,
             "encryption randomness in [0, 2^256)");
  // Restart (on a fork of the transcript) while z ≥ 2^373: probability 2^-40 per attempt; the
  // accepted responses are then within 2^-40 of independent of (x, α).
  for (;;) {
    Transcript tt = t.clone();
    EncProof pr = prove_once(tt, st, x, alpha, r, gens, rng);
    if (pr.z.bits() <= P::kBoundBits) {
      t = std::move(tt);
      return pr;
    }
  }
}

EncCheck verify_enc(Transcript& t, const EncStatement& st, const EncProof& pr,
                    const GeneratorSet& gens, CommitmentBatch* batch, Rng& rng) {
  const PaillierPublic& pk = *st.pk;
  if (!pk.valid(st.c) || !pk.valid(pr.tc) || mpz_sgn(pr.nu.get()) < 0 ||
      pr.nu.bits() > PaillierPublic::kExpBits)
    return EncCheck::kMalformed;
  const Challenge e = derive_challenge(t, st, pr.tc, pr.ta);
  if (mpz_sgn(pr.z.get()) < 0 || pr.z.bits() > P::kBoundBits) return EncCheck::kRange;
  // Enc(z·2^shift; ν) = T_C·C^e mod N² (public data: variable time is fine).
  BigInt zs;
  mpz_mul_2exp(zs.get(), pr.z.get(), st.shift);
  const BigInt lhs = pk.encrypt_public(zs, pr.nu);
  const BigInt rhs = pk.add(pr.tc, pk.mul_plain(st.c, e.big));
  if (!(lhs == rhs)) return EncCheck::kPaillier;
  const Scalar z = pr.z.to_scalar();
  if (batch != nullptr) {
    batch->add(z, pr.zr, pr.ta, e.s, st.a, rng);
    return EncCheck::kOk;
  }
  const Scalar w[4] = {z, pr.zr, -Scalar::one(), -e.s};
  const Point p[4] = {gens.G(), gens.H(), pr.ta, st.a};
  return msm(w, p).is_identity() ? EncCheck::kOk : EncCheck::kCommitment;
}

namespace detail {
EncProof prove_enc_unchecked(Transcript& t, const EncStatement& st, const BigInt& x,
                             const BigInt& alpha, const SecretScalar& r, const GeneratorSet& gens,
                             Rng& rng) {
  return prove_once(t, st, x, alpha, r, gens, rng);
}
}  // namespace detail

}  // namespace gopa::sampling
