// Π_enc against the verifier's ring-Pedersen parameters (sampling/enc_proofs.hpp): completeness,
// soundness against fractional plaintexts (with a grinding prover, where the older proof of
// sampling/paillier_proofs.hpp gives way), range, binding to the verifier, a tamper matrix and
// provers that choose their responses after the challenge (docs/sampling.md, "Ciphertext proofs
// against the verifier's ring-Pedersen parameters"). 674-bit moduli: insecure, tests only.
#include <catch2/catch.hpp>

#include <array>
#include <string_view>
#include <vector>

#include "gopa/pedersen.hpp"
#include "gopa/sampling/enc_proofs.hpp"
#include "gopa/sampling/paillier_proofs.hpp"

using namespace gopa;
using namespace gopa::sampling;

namespace {

constexpr unsigned kBits = 674;

struct Fixture {
  DeterministicRng rng{4242};
  PaillierKey key = PaillierKey::generate(kBits, rng);
  PaillierKey vkey = PaillierKey::generate(kBits, rng);
  PaillierKey kkey = PaillierKey::generate(kBits, rng);
  RingPedersenSecret vrp = RingPedersenSecret::generate(vkey, rng);  // verifier j
  RingPedersenSecret krp = RingPedersenSecret::generate(kkey, rng);  // verifier k
  std::shared_ptr<const GeneratorSet> gens = GeneratorSet::get("gopa", 1);
  SecretScalar a = SecretScalar::random(rng), r = SecretScalar::random(rng);
  BigInt alpha = BigInt::random_bits(PaillierKey::kAlphaBits, rng);

  // C = Enc(x·2^shift; α) for the given x, A = a·G + r·H, from prover 1 to verifier 2.
  RpEncStatement statement(const BigInt& x, unsigned shift = 0) const {
    BigInt xs;
    mpz_mul_2exp(xs.get(), x.get(), shift);
    return RpEncStatement{&key.pub(), key.pub().encrypt(xs, alpha), commit(a, r, *gens), shift,
                          &vrp.pub(), 1, 2};
  }
  static Transcript transcript(std::string_view context = "triple 7") {
    Transcript t("gopa/test");
    t.append_message("context", context);
    return t;
  }
  RpEncProof prove(const RpEncStatement& st, const BigInt& x) {
    Transcript t = transcript();
    return prove_enc_rp(t, st, x, alpha, r, *gens, rng);
  }
  RpEncCheck verify(const RpEncStatement& st, const RpEncProof& pr,
                    std::string_view context = "triple 7") {
    Transcript t = transcript(context);
    return verify_enc_rp(t, st, pr, *gens, nullptr, rng);
  }
  // Decodes and verifies; false for anything that does not decode.
  bool accepts(const RpEncStatement& st, std::span<const std::uint8_t> bytes,
               std::string_view context = "triple 7") {
    const auto d = RpEncProof::decode(bytes, st.pk->n_bits(), st.verifier->n.bits());
    return d.value && verify(st, *d.value, context) == RpEncCheck::kOk;
  }
};

BigInt challenge_of(std::span<const std::uint8_t> bytes) {
  BigInt e;
  mpz_import(e.get(), bytes.size(), 1, 1, 0, 0, bytes.data());
  return e;
}

}  // namespace

TEST_CASE("enc-rp proof: honest proofs verify, alone and batched, and round-trip",
          "[sampling][paillier][enc-rp]") {
  Fixture f;
  const BigInt x = BigInt::from_secret(f.a);
  for (unsigned shift : {0U, 100U}) {
    const RpEncStatement st = f.statement(x, shift);
    const RpEncProof pr = f.prove(st, x);
    CHECK(f.verify(st, pr) == RpEncCheck::kOk);
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript();
    CHECK(verify_enc_rp(tv, st, pr, *f.gens, &batch, f.rng) == RpEncCheck::kOk);
    CHECK(batch.holds(*f.gens));
    const auto bytes = pr.encode(kBits, kBits);
    CHECK(bytes.size() == RpEncProof::encoded_bytes(kBits, kBits));
    CHECK(f.accepts(st, bytes));
  }
  // The documented sizes: 1,485 bytes at 2048 bits, 1,061 for the tests' 674 bits.
  CHECK(RpEncProof::encoded_bytes(2048, 2048) == 512 + 32 + 256 + 256 + 72 + 48 + 32 + 277);
  CHECK(RpEncProof::encoded_bytes(kBits, kBits) == 169 + 32 + 85 + 85 + 72 + 48 + 32 + 105);
  // The largest honest plaintext and zero.
  BigInt top;
  mpz_setbit(top.get(), RpEncParams::kPlainBits);
  mpz_sub_ui(top.get(), top.get(), 1);
  for (const BigInt& xv : std::array<BigInt, 2>{top, BigInt(0)}) {
    RpEncStatement st = f.statement(xv);
    st.a = commit(xv.to_secret(), f.r, *f.gens);
    CHECK(f.verify(st, f.prove(st, xv)) == RpEncCheck::kOk);
  }
}

TEST_CASE("enc-rp proof: a fractional plaintext is rejected under grinding, where the older proof "
          "gives way", "[sampling][paillier][enc-rp][soundness]") {
  // The prover encrypts m = u·v^(-1) mod N (a fraction: not an integer below 2^373) and commits to
  // u·v^(-1) mod ℓ. Whenever v divides the challenge e, z = y + (e/v)·u satisfies the Paillier and
  // Pedersen equations, so the older proof accepts after about v attempts. The grinding prover
  // fixes T_C (and S, D) and varies T_A, one cheap commitment per fresh challenge.
  Fixture f;
  constexpr unsigned long u = 2, v = 3;
  const BigInt& n = f.key.pub().n();
  BigInt m(v);
  REQUIRE(mpz_invert(m.get(), m.get(), n.get()) != 0);
  mpz_mul_ui(m.get(), m.get(), u);
  mpz_mod(m.get(), m.get(), n.get());
  const BigInt c = f.key.pub().encrypt(m, f.alpha);
  const Scalar xa = Scalar::from_u64(u) * *Scalar::from_u64(v).invert();
  const Point a = xa * f.gens->G() + f.r.declassify() * f.gens->H();
  // The prover's nonces: y < 2^372 so that z = y + (e/v)·u stays below 2^373.
  const BigInt y = BigInt::random_bits(RpEncParams::kBoundBits - 1, f.rng);
  const BigInt mu = BigInt::random_bits(RpEncParams::kNonceRandBits, f.rng);
  const BigInt tc = f.key.pub().encrypt(y, mu);
  // Responses for a challenge e with v | e; z_r from the nonce ρ of T_A.
  const auto respond = [&](const BigInt& e, const SecretScalar& rho, BigInt& z, BigInt& nu,
                           Scalar& zr) {
    BigInt q;
    mpz_divexact_ui(q.get(), e.get(), v);
    mpz_mul_ui(z.get(), q.get(), u);
    mpz_add(z.get(), z.get(), y.get());
    mpz_mul(nu.get(), e.get(), f.alpha.get());
    mpz_add(nu.get(), nu.get(), mu.get());
    zr = (rho + f.r * e.to_scalar()).declassify();
  };

  SECTION("the older proof accepts it within the expected number of attempts") {
    const EncStatement st{&f.key.pub(), c, a, 0};
    Transcript base = Fixture::transcript();
    append_enc_statement(base, st);
    int accepted_at = -1;
    for (int attempt = 0; attempt < 64 && accepted_at < 0; ++attempt) {
      EncProof pr;
      pr.tc = tc;
      const SecretScalar rho = SecretScalar::random(f.rng);
      pr.ta = commit(y.to_secret(), rho, *f.gens);
      Transcript t = base.clone();
      t.append_message("T_C", pr.tc.to_bytes(f.key.pub().ciphertext_bytes()));
      t.append_point("T_A", pr.ta);
      std::array<std::uint8_t, EncProofParams::kChallengeBits / 8> eb{};
      t.challenge_bytes("e", eb);
      const BigInt e = challenge_of(eb);
      if (mpz_divisible_ui_p(e.get(), v) == 0) continue;
      respond(e, rho, pr.z, pr.nu, pr.zr);
      Transcript tv = Fixture::transcript();
      append_enc_statement(tv, st);
      if (verify_enc(tv, st, pr, *f.gens, nullptr, f.rng) == EncCheck::kOk) accepted_at = attempt;
    }
    CHECK(accepted_at >= 0);
    CHECK(accepted_at < 64);
  }

  SECTION("Π_enc against the verifier's ring-Pedersen parameters rejects 2^12 attempts") {
    const RpEncStatement st{&f.key.pub(), c, a, 0, &f.vrp.pub(), 1, 2};
    const RingPedersen& rp = f.vrp.pub();
    const auto nh = static_cast<unsigned>(rp.n.bits());
    // S commits to the integer nearest u/v (the prover's best guess), D to y.
    const BigInt x0(u / v + 1);
    const BigInt mm = BigInt::random_bits(nh + RpEncParams::kRpMaskBits, f.rng);
    const BigInt gamma = BigInt::random_bits(nh + RpEncParams::kRpNonceBits, f.rng);
    const auto pow2 = [&](const BigInt& e1, const BigInt& e2) {
      BigInt x1, x2;
      mpz_powm(x1.get(), rp.s.get(), e1.get(), rp.n.get());
      mpz_powm(x2.get(), rp.t.get(), e2.get(), rp.n.get());
      mpz_mul(x1.get(), x1.get(), x2.get());
      mpz_mod(x1.get(), x1.get(), rp.n.get());
      return x1;
    };
    const BigInt s_commit = pow2(x0, mm), d_commit = pow2(y, gamma);
    Transcript base = Fixture::transcript();
    append_enc_rp_statement(base, st);
    const std::size_t nb = (rp.n.bits() + 7) / 8;
    int candidates = 0, paillier_passed = 0, accepted = 0;
    for (int attempt = 0; attempt < (1 << 12); ++attempt) {
      RpEncProof pr;
      pr.tc = tc;
      pr.s = s_commit;
      pr.d = d_commit;
      const SecretScalar rho = SecretScalar::random(f.rng);
      pr.ta = commit(y.to_secret(), rho, *f.gens);
      Transcript t = base.clone();
      t.append_message("T_C", pr.tc.to_bytes(f.key.pub().ciphertext_bytes()));
      t.append_point("T_A", pr.ta);
      t.append_message("S", pr.s.to_bytes(nb));
      t.append_message("D", pr.d.to_bytes(nb));
      std::array<std::uint8_t, RpEncParams::kChallengeBits / 8> eb{};
      t.challenge_bytes("e", eb);
      const BigInt e = challenge_of(eb);
      // Only the attempts where v | e satisfy the Paillier equation; every 64th other one is
      // checked as well, with z = y + e·x0.
      const bool divisible = mpz_divisible_ui_p(e.get(), v) != 0;
      if (!divisible && attempt % 64 != 0) continue;
      if (divisible) {
        respond(e, rho, pr.z, pr.nu, pr.zr);
        ++candidates;
      } else {
        mpz_mul(pr.z.get(), e.get(), x0.get());
        mpz_add(pr.z.get(), pr.z.get(), y.get());
        mpz_mul(pr.nu.get(), e.get(), f.alpha.get());
        mpz_add(pr.nu.get(), pr.nu.get(), mu.get());
        pr.zr = (rho + f.r * e.to_scalar()).declassify();
      }
      mpz_mul(pr.w.get(), e.get(), mm.get());
      mpz_add(pr.w.get(), pr.w.get(), gamma.get());
      Transcript tv = Fixture::transcript();
      const RpEncCheck res = verify_enc_rp(tv, st, pr, *f.gens, nullptr, f.rng);
      if (res == RpEncCheck::kOk) ++accepted;
      // The Paillier equation holds for every candidate: only the ring-Pedersen one stops it.
      if (divisible && res == RpEncCheck::kRingPedersen) ++paillier_passed;
    }
    CHECK(accepted == 0);
    CHECK(candidates > (1 << 12) / 4);
    CHECK(paillier_passed == candidates);
  }
}

TEST_CASE("enc-rp proof: bad witnesses and out-of-range plaintexts", "[sampling][paillier][enc-rp]") {
  Fixture f;
  SECTION("plaintext differs from the committed value") {
    const BigInt x = BigInt::from_scalar(f.a.declassify() + Scalar::one());
    const RpEncStatement st = f.statement(x);
    CHECK(f.verify(st, f.prove(st, x)) == RpEncCheck::kCommitment);
  }
  SECTION("plaintext equal mod ℓ but out of range") {
    BigInt x = BigInt::from_scalar(-Scalar::one());
    mpz_add_ui(x.get(), x.get(), 1);  // ℓ
    mpz_mul_2exp(x.get(), x.get(), 150);
    mpz_add(x.get(), x.get(), BigInt::from_secret(f.a).get());
    const RpEncStatement st = f.statement(x);
    Transcript tp = Fixture::transcript();
    const RpEncProof pr = detail::prove_enc_rp_unchecked(tp, st, x, f.alpha, f.r, *f.gens, f.rng);
    CHECK(f.verify(st, pr) == RpEncCheck::kRange);
    // Even with z forced below the bound after the challenge, the equations fail.
    Transcript tp2 = Fixture::transcript();
    const RpEncProof pr2 = detail::prove_enc_rp_unchecked(
        tp2, st, x, f.alpha, f.r, *f.gens, f.rng,
        [](const BigInt&, RpEncProof& p) { mpz_fdiv_r_2exp(p.z.get(), p.z.get(), RpEncParams::kBoundBits); });
    CHECK(f.verify(st, pr2) != RpEncCheck::kOk);
  }
}

TEST_CASE("enc-rp proof: a proof made for verifier j does not verify for verifier k",
          "[sampling][paillier][enc-rp]") {
  Fixture f;
  const BigInt x = BigInt::from_secret(f.a);
  const RpEncStatement st = f.statement(x);
  const RpEncProof pr = f.prove(st, x);
  REQUIRE(f.verify(st, pr) == RpEncCheck::kOk);
  RpEncStatement other = st;
  other.verifier = &f.krp.pub();
  other.verifier_id = 3;
  CHECK(f.verify(other, pr) != RpEncCheck::kOk);
  other.verifier_id = st.verifier_id;  // k's parameters under j's index
  CHECK(f.verify(other, pr) != RpEncCheck::kOk);
  other = st;
  other.verifier_id = 3;  // j's parameters under k's index
  CHECK(f.verify(other, pr) != RpEncCheck::kOk);
}

TEST_CASE("enc-rp proof: tamper matrix", "[sampling][paillier][enc-rp][tamper]") {
  Fixture f;
  const BigInt x = BigInt::from_secret(f.a);
  const RpEncStatement st = f.statement(x);
  const RpEncProof pr = f.prove(st, x);
  const auto enc = pr.encode(kBits, kBits);
  REQUIRE(f.accepts(st, enc));

  SECTION("every truncation and an extra byte: a length error") {
    for (std::size_t len = 0; len < enc.size(); ++len)
      CHECK(RpEncProof::decode(std::span(enc.data(), len), kBits, kBits).error == RpEncCheck::kLength);
    auto longer = enc;
    longer.push_back(0);
    CHECK(RpEncProof::decode(longer, kBits, kBits).error == RpEncCheck::kLength);
    CHECK(RpEncProof::decode(enc, kBits + 8, kBits).error == RpEncCheck::kLength);
    CHECK(RpEncProof::decode(enc, kBits, kBits + 16).error == RpEncCheck::kLength);
  }
  SECTION("bit flips in every field") {
    const RpEncProof::Sizes s = RpEncProof::sizes(kBits, kBits);
    const std::size_t lens[] = {s.ct, Point::kBytes, s.nb, s.nb, RpEncProof::kZBytes,
                                RpEncProof::kNuBytes, Scalar::kBytes, s.wb};
    std::size_t off = 0;
    for (std::size_t len : lens) {
      for (std::size_t i : {off, off + len / 2, off + len - 1})
        for (unsigned bit : {0U, 7U}) {
          auto t = enc;
          t[i] ^= static_cast<std::uint8_t>(1U << bit);
          CHECK_FALSE(f.accepts(st, t));
        }
      off += len;
    }
    REQUIRE(off == enc.size());
  }
  SECTION("a part spliced from another valid proof") {
    const auto enc2 = f.prove(st, x).encode(kBits, kBits);
    REQUIRE(f.accepts(st, enc2));
    const RpEncProof::Sizes s = RpEncProof::sizes(kBits, kBits);
    const std::size_t lens[] = {s.ct, Point::kBytes, s.nb, s.nb, RpEncProof::kZBytes,
                                RpEncProof::kNuBytes, Scalar::kBytes, s.wb};
    std::size_t off = 0;
    for (std::size_t len : lens) {
      auto t = enc;
      std::copy(enc2.begin() + static_cast<std::ptrdiff_t>(off),
                enc2.begin() + static_cast<std::ptrdiff_t>(off + len),
                t.begin() + static_cast<std::ptrdiff_t>(off));
      CHECK_FALSE(f.accepts(st, t));
      off += len;
    }
  }
  SECTION("changed statement or context") {
    CHECK_FALSE(f.accepts(st, enc, "triple 8"));
    RpEncStatement s2 = st;
    s2.shift = 1;
    CHECK_FALSE(f.accepts(s2, enc));
    s2 = st;
    s2.a = s2.a + f.gens->G();
    CHECK_FALSE(f.accepts(s2, enc));
    s2 = st;
    s2.c = f.key.pub().encrypt(x, BigInt(5));  // same plaintext, other randomness
    CHECK_FALSE(f.accepts(s2, enc));
    s2 = st;
    s2.prover_id = 4;
    CHECK_FALSE(f.accepts(s2, enc));
    s2 = st;
    s2.pk = &f.kkey.pub();  // another prover modulus of the same size
    CHECK_FALSE(f.accepts(s2, enc));
    RingPedersen rp = f.vrp.pub();
    mpz_powm_ui(rp.t.get(), rp.t.get(), 2, rp.n.get());
    s2 = st;
    s2.verifier = &rp;
    CHECK_FALSE(f.accepts(s2, enc));
    RingPedersen rp2 = f.vrp.pub();
    mpz_powm_ui(rp2.s.get(), rp2.s.get(), 2, rp2.n.get());
    s2.verifier = &rp2;
    CHECK_FALSE(f.accepts(s2, enc));
  }
  SECTION("out-of-domain values are malformed, never an abort") {
    RpEncProof p2 = pr;
    p2.s = f.vrp.pub().n;
    CHECK(f.verify(st, p2) == RpEncCheck::kMalformed);
    p2 = pr;
    p2.d = BigInt(0);
    CHECK(f.verify(st, p2) == RpEncCheck::kMalformed);
    p2 = pr;
    p2.tc = BigInt(0);
    CHECK(f.verify(st, p2) == RpEncCheck::kMalformed);
    p2 = pr;
    mpz_setbit(p2.nu.get(), PaillierPublic::kExpBits + 1);
    CHECK(f.verify(st, p2) == RpEncCheck::kMalformed);
    p2 = pr;
    mpz_setbit(p2.w.get(), kBits + RpEncParams::kRpResponseBits + 1);
    CHECK(f.verify(st, p2) == RpEncCheck::kMalformed);
    p2 = pr;
    mpz_setbit(p2.z.get(), RpEncParams::kBoundBits);
    CHECK(f.verify(st, p2) == RpEncCheck::kRange);
    // A non-canonical scalar z_r (ℓ itself) and a non-canonical point do not decode.
    auto t = enc;
    const RpEncProof::Sizes s = RpEncProof::sizes(kBits, kBits);
    const std::size_t zr_at = s.ct + Point::kBytes + 2 * s.nb + RpEncProof::kZBytes + RpEncProof::kNuBytes;
    std::fill(t.begin() + static_cast<std::ptrdiff_t>(zr_at),
              t.begin() + static_cast<std::ptrdiff_t>(zr_at + 32), std::uint8_t{0xFF});
    CHECK(RpEncProof::decode(t, kBits, kBits).error == RpEncCheck::kMalformed);
    t = enc;
    std::fill(t.begin() + static_cast<std::ptrdiff_t>(s.ct),
              t.begin() + static_cast<std::ptrdiff_t>(s.ct + 32), std::uint8_t{0xFF});
    CHECK(RpEncProof::decode(t, kBits, kBits).error == RpEncCheck::kMalformed);
    // Bad parameters: a verifier modulus that is even or too small.
    RingPedersen rp = f.vrp.pub();
    mpz_add_ui(rp.n.get(), rp.n.get(), 1);
    RpEncStatement s2 = st;
    s2.verifier = &rp;
    CHECK(f.verify(s2, pr) == RpEncCheck::kParameters);
    RingPedersen small = f.vrp.pub();
    mpz_fdiv_q_2exp(small.n.get(), small.n.get(), 100);
    mpz_setbit(small.n.get(), 0);
    s2.verifier = &small;
    CHECK(f.verify(s2, pr) == RpEncCheck::kParameters);
  }
}

TEST_CASE("enc-rp proof: a prover that picks its responses after the challenge fails",
          "[sampling][paillier][enc-rp][malicious]") {
  // False statement: C encrypts x + 1 while A commits to x. The prover runs the algorithm with
  // either witness and then rewrites its responses knowing e; every variant is rejected alone
  // and in a batch.
  Fixture f;
  const BigInt xa = BigInt::from_secret(f.a);
  BigInt xc = xa;
  mpz_add_ui(xc.get(), xc.get(), 1);
  RpEncStatement st = f.statement(xc);
  const auto run = [&](const BigInt& witness, const detail::RpEncTamper& after) {
    Transcript tp = Fixture::transcript();
    const RpEncProof pr = detail::prove_enc_rp_unchecked(tp, st, witness, f.alpha, f.r, *f.gens,
                                                         f.rng, after);
    const RpEncCheck alone = f.verify(st, pr);
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript();
    const RpEncCheck batched = verify_enc_rp(tv, st, pr, *f.gens, &batch, f.rng);
    return alone != RpEncCheck::kOk && (batched != RpEncCheck::kOk || !batch.holds(*f.gens));
  };
  for (const BigInt* w : std::array<const BigInt*, 2>{&xa, &xc}) {
    CHECK(run(*w, {}));
    // z moved by ±e (to the other witness), by ±1, by ℓ; w and ν moved to match.
    CHECK(run(*w, [](const BigInt& e, RpEncProof& p) { mpz_sub(p.z.get(), p.z.get(), e.get()); }));
    CHECK(run(*w, [](const BigInt& e, RpEncProof& p) { mpz_add(p.z.get(), p.z.get(), e.get()); }));
    CHECK(run(*w, [](const BigInt&, RpEncProof& p) { mpz_add_ui(p.z.get(), p.z.get(), 1); }));
    CHECK(run(*w, [](const BigInt&, RpEncProof& p) {
      BigInt l = BigInt::from_scalar(-Scalar::one());
      mpz_add_ui(l.get(), l.get(), 1);
      mpz_add(p.z.get(), p.z.get(), l.get());
    }));
    CHECK(run(*w, [](const BigInt& e, RpEncProof& p) { mpz_add(p.w.get(), p.w.get(), e.get()); }));
    CHECK(run(*w, [](const BigInt&, RpEncProof& p) { mpz_add_ui(p.nu.get(), p.nu.get(), 1); }));
    CHECK(run(*w, [](const BigInt&, RpEncProof& p) { p.zr += Scalar::one(); }));
  }
  // With the commitment's witness and z_r, only the Paillier equation can fail; with the
  // ciphertext's, the Pedersen one: the responses cannot satisfy both.
  Transcript tp = Fixture::transcript();
  const RpEncProof pa = detail::prove_enc_rp_unchecked(tp, st, xa, f.alpha, f.r, *f.gens, f.rng);
  CHECK(f.verify(st, pa) == RpEncCheck::kPaillier);
  Transcript tq = Fixture::transcript();
  const RpEncProof pc = detail::prove_enc_rp_unchecked(tq, st, xc, f.alpha, f.r, *f.gens, f.rng);
  CHECK(f.verify(st, pc) == RpEncCheck::kCommitment);
}
