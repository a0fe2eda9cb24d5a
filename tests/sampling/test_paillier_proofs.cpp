// Paillier–Pedersen plaintext equality with range: completeness, and one test per way of
// tampering (docs/sampling.md §2, Ciphertext proofs). 704-bit moduli: insecure, tests only.
#include <catch2/catch.hpp>

#include "gopa/pedersen.hpp"
#include "gopa/deviation.hpp"
#include "gopa/sampling/paillier_proofs.hpp"

using namespace gopa;
using namespace gopa::sampling;

namespace {

struct Fixture {
  DeterministicRng rng{21};
  PaillierKey key = PaillierKey::generate(704, rng);
  std::shared_ptr<const GeneratorSet> gens = GeneratorSet::get("gopa", 1);
  SecretScalar a = SecretScalar::random(rng), r = SecretScalar::random(rng);
  BigInt alpha = BigInt::random_bits(PaillierKey::kAlphaBits, rng);
  unsigned shift = 0;

  EncStatement statement(const BigInt& x) const {
    BigInt xs;
    mpz_mul_2exp(xs.get(), x.get(), shift);
    return EncStatement{&key.pub(), key.pub().encrypt(xs, alpha), commit(a, r, *gens), shift};
  }
  static Transcript transcript(const EncStatement& st, std::string_view context = "test") {
    Transcript t("gopa/test");
    t.append_message("context", context);
    append_enc_statement(t, st);
    return t;
  }
  EncCheck verify(const EncStatement& st, const EncProof& pr, std::string_view context = "test") {
    Transcript t = transcript(st, context);
    return verify_enc(t, st, pr, *gens, nullptr, rng);
  }
};

}  // namespace

TEST_CASE("paillier proof: honest proofs verify, alone and batched", "[sampling][paillier][proof]") {
  Fixture f;
  for (unsigned shift : {0U, 100U}) {
    f.shift = shift;
    const EncStatement st = f.statement(BigInt::from_secret(f.a));
    Transcript tp = Fixture::transcript(st);
    const EncProof pr = prove_enc(tp, st, BigInt::from_secret(f.a), f.alpha, f.r, *f.gens, f.rng);
    CHECK(f.verify(st, pr) == EncCheck::kOk);
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript(st);
    CHECK(verify_enc(tv, st, pr, *f.gens, &batch, f.rng) == EncCheck::kOk);
    CHECK(batch.holds(*f.gens));
  }
}

TEST_CASE("paillier proof: tampering is rejected with the failed check", "[sampling][paillier][proof]") {
  Fixture f;
  const BigInt x = BigInt::from_secret(f.a);
  const EncStatement st = f.statement(x);
  Transcript tp = Fixture::transcript(st);
  const EncProof pr = prove_enc(tp, st, x, f.alpha, f.r, *f.gens, f.rng);

  SECTION("another context label") { CHECK(f.verify(st, pr, "other") != EncCheck::kOk); }
  SECTION("another shift") {
    EncStatement s2 = st;
    s2.shift = 1;
    CHECK(f.verify(s2, pr) != EncCheck::kOk);
  }
  SECTION("another commitment") {
    EncStatement s2 = st;
    s2.a = s2.a + f.gens->G();
    CHECK(f.verify(s2, pr) != EncCheck::kOk);
  }
  SECTION("z + 1") {
    EncProof p2 = pr;
    mpz_add_ui(p2.z.get(), p2.z.get(), 1);
    CHECK(f.verify(st, p2) == EncCheck::kPaillier);
  }
  SECTION("nu + 1") {
    EncProof p2 = pr;
    mpz_add_ui(p2.nu.get(), p2.nu.get(), 1);
    CHECK(f.verify(st, p2) == EncCheck::kPaillier);
  }
  SECTION("z_r + 1") {
    EncProof p2 = pr;
    p2.zr += Scalar::one();
    CHECK(f.verify(st, p2) == EncCheck::kCommitment);
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript(st);
    CHECK(verify_enc(tv, st, p2, *f.gens, &batch, f.rng) == EncCheck::kOk);
    CHECK_FALSE(batch.holds(*f.gens));
  }
  SECTION("T_C out of domain") {
    EncProof p2 = pr;
    p2.tc = BigInt(0);
    CHECK(f.verify(st, p2) == EncCheck::kMalformed);
  }
  SECTION("nu too large") {
    EncProof p2 = pr;
    mpz_setbit(p2.nu.get(), PaillierPublic::kExpBits + 1);
    CHECK(f.verify(st, p2) == EncCheck::kMalformed);
  }
  SECTION("z above the bound") {
    EncProof p2 = pr;
    mpz_setbit(p2.z.get(), EncProofParams::kBoundBits);
    CHECK(f.verify(st, p2) == EncCheck::kRange);
  }
}

TEST_CASE("paillier proof: bad witnesses", "[sampling][paillier][proof]") {
  Fixture f;
  SECTION("plaintext differs from the committed value") {
    const BigInt x = BigInt::from_scalar(f.a.declassify() + Scalar::one());
    const EncStatement st = f.statement(x);
    Transcript tp = Fixture::transcript(st);
    const EncProof pr = prove_enc(tp, st, x, f.alpha, f.r, *f.gens, f.rng);
    CHECK(f.verify(st, pr) == EncCheck::kCommitment);
  }
  SECTION("plaintext equal mod ℓ but out of range") {
    BigInt x = BigInt::from_scalar(-Scalar::one());
    mpz_add_ui(x.get(), x.get(), 1);  // ℓ
    mpz_mul_2exp(x.get(), x.get(), 150);
    mpz_add(x.get(), x.get(), BigInt::from_secret(f.a).get());
    const EncStatement st = f.statement(x);
    Transcript tp = Fixture::transcript(st);
    const EncProof pr = detail::prove_enc_unchecked(tp, st, x, f.alpha, f.r, *f.gens, f.rng);
    CHECK(f.verify(st, pr) == EncCheck::kRange);
  }
}

TEST_CASE("paillier proof: a malicious prover of a false statement fails under every deviation",
          "[sampling][paillier][proof][malicious]") {
  // C encrypts x + 1 while A commits to x. The adversary shifts T_A along G or H before it is
  // absorbed, replaces the responses after e, or reuses its nonces: each is rejected alone and
  // in a batch of commitment equations.
  Fixture f;
  const BigInt x = BigInt::from_scalar(f.a.declassify() + Scalar::one());
  const EncStatement st = f.statement(x);
  auto run = [&](const gopa::testing::Deviation& dev) {
    EncProof pr;
    {
      gopa::testing::ScopedDeviation scope(dev);
      Transcript tp = Fixture::transcript(st);
      pr = detail::prove_enc_unchecked(tp, st, x, f.alpha, f.r, *f.gens, f.rng);
    }
    const EncCheck alone = f.verify(st, pr);
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript(st);
    const EncCheck batched = verify_enc(tv, st, pr, *f.gens, &batch, f.rng);
    return alone != EncCheck::kOk && (batched != EncCheck::kOk || !batch.holds(*f.gens));
  };
  CHECK(run(gopa::testing::Deviation{}));
  for (const Point* gen : {&f.gens->G(), &f.gens->H(), &f.gens->Q()}) {
    for (const Scalar& amount : {Scalar::one(), -Scalar::one(), Scalar::from_u64(977)}) {
      gopa::testing::Deviation dev;
      dev.on_enc_commitment = [gen, amount](Point& ta) { ta += *gen * amount; };
      CHECK(run(dev));
    }
  }
  for (int which = 0; which < 3; ++which) {
    gopa::testing::Deviation dev;
    dev.on_enc_responses = [which](EncProof& p) {
      if (which == 0) mpz_sub_ui(p.z.get(), p.z.get(), 1);
      if (which == 1) p.zr += Scalar::one();
      if (which == 2) mpz_add_ui(p.nu.get(), p.nu.get(), 1);
    };
    CHECK(run(dev));
  }
  gopa::testing::Deviation reuse;
  reuse.reuse_nonces = true;
  CHECK(run(reuse));
}
