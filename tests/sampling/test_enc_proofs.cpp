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
  // The documented sizes: 1,485 bytes at 2048 bits, 628 for the tests' 674 bits.
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

namespace {
// A version-1 proof (674-bit moduli, shift 100, prover 1, verifier 2, context "golden v1"),
// frozen: later versions of the verifier must keep accepting it.
constexpr std::string_view kN =
    "0372d3f95370426fe0296fa8155a7a6b8ca5390b4c6d598fd4a09070939e105252a88d66f1ef9cae4a91566f"
    "5adb52773a118f9c3ee8a23c908a0daa79daaa9264a008d9be92cded26509c0e51c89102b349d55e55";
constexpr std::string_view kH =
    "8cd0fc451fb2a9f621d55cb1ea0ed32be091ec2f83e5e2190a544d833f72f1b067e61a026dfb73375e60dfcc"
    "3ef2068b314afc7e212eff9ee7929a05755a2dabfb9e95bcfaef58af43104a050e090ae660dd0f1e";
constexpr std::string_view kNhat =
    "02dea3b70c438c4379d340649bc32384135b90d1b65d5e5a7afaa087af30f620fbb9a77c41b867264cc6d975"
    "ba6feeb414b43457a28cf707908c966babb3c5934166bde7a0ac8776d1b4c6756a0cf2ccbea3f5db65";
constexpr std::string_view kS =
    "0238aac7944f558ff4ffed407deef7dfd8e3b6b175fc5a1ed199fb01bf43028060425e53034118d4c7226326"
    "069888d551928cea727e3cb0ea906bca0b87955fd4fa9779803ac07804fe91c94705d8868f5c16fd83";
constexpr std::string_view kT =
    "8c32215559a5756a79c6d1a88fdcbc1a1abb86bb0d3e748a746574dadd8be7f95c8e80871fb7425b144f2bfe"
    "27b121b3c40f72e08a0b2b6a5a0b8c1e9976a695fc6b6d908bb4747a2ad3a2ab237c5acff76d9d66";
constexpr std::string_view kC =
    "08b06dc02419d2b91e4ff5da026ade287af5b5067fea64c2360f23610d70b658bf199baf874742f2470ce719"
    "8a2ac142a5d5ef8a59d91f625f30e38a59172c6ca92da88732af8b36a900b9696f2557f405fcae867fe3a72f"
    "4c038263adb9504379340184ccb472e8502ce176264bb4095104a724ab7448233ae9c8a5f0d28d79da63db41"
    "aee5517e078f858a76ea0db531951c0801c586669bbef72b568f48207551a767eff8b11f91";
constexpr std::string_view kA =
    "64978abf6ef20eec28e4aa570e105670f592ed042aa7f20895c3503945780a78";
constexpr std::string_view kProof =
    "0401e44c181b6235c2096187773ec748bbbdd89788dca43fcef15061faf13245482781f2256ad7c4337e8a85"
    "74fef046dea8c1c5bddc3bf818b7f33eec61ceb4096a35575e91899468c67690389cce3044e12024f55f71a6"
    "42d28bf1dab27e566d2619d6c42dbe3245482b169de766d1b99067e82c83adf26ce631b1615555e27be380a2"
    "4e61c05c9ccbc0f38ea48ff23aa07565f168afb6417a2a1ef0866f3e55ee2c1786727429408418e07e75ad1f"
    "0e3cca00bcc2baf2fe875c804161710ae84bf65295b509d20701987b7837b01152d576a58981542f23a2dfa5"
    "0fcafc5b30a278ba1035253c1d97e3084730b7c947b43db64e95460ff8ee4a6acc443fe19f9ed5943d6d46b8"
    "2d6ff5f024531b46e38541b39c1f41fd57571ab9344c01f488c9e7812147de8996121d40e487de7f82551e38"
    "b1d3278f0d8e66ab419db0855adec233e4960ff81ef336c8a9cf9c3d8424bf54ad73233023a4ef4c977cd08b"
    "73e0d00ed69cc8ca8f727c2a00a8e5a758f2bf00000000000000000000000000000000000000000000000000"
    "11b1fb98252c42e51450fdf56ea79f7ac43d548130c1f85fe88386f02ebd3dfde96dc8c9d61685c07439510a"
    "ca11c700925666177ca8ec305fc05b482201cb779a89a7b95a5b83ea322be3b58a12c2fb331d134c8df8b94c"
    "8f2a69d1ea9673d6db4001cdd6e452abf356ab68566b6fe3d0f2f3fbab9d757f77b55acde3070b03da6760e5"
    "2f80beac67154f9c71cd904e4a9ba60efd3f257b7b4899e6627de2666a07164552c0a7ef5c7f9062ce93bd2a"
    "a86ec674d75de9a0011bc22c7e21158eb4addf80f55b43c52fc835f56504e44f25dfc6d8f526d20608e59a27"
    "c87c05a924ae84c7813a67cf";

BigInt big_of_hex(std::string_view h) {
  const auto b = from_hex(h);
  REQUIRE(b.has_value());
  BigInt v;
  mpz_import(v.get(), b->size(), 1, 1, 0, 0, b->data());
  return v;
}
}  // namespace

TEST_CASE("enc-rp proof: a frozen version-1 proof keeps verifying", "[sampling][paillier][enc-rp]") {
  const PaillierPublic pk(big_of_hex(kN), big_of_hex(kH));
  const RingPedersen rp{big_of_hex(kNhat), big_of_hex(kS), big_of_hex(kT)};
  const auto a = from_hex(kA);
  REQUIRE(a.has_value());
  const auto point = Point::decode(*a);
  REQUIRE(point.has_value());
  const RpEncStatement st{&pk, big_of_hex(kC), *point, 100, &rp, 1, 2};
  const auto bytes = from_hex(kProof);
  REQUIRE(bytes.has_value());
  const auto d = RpEncProof::decode(*bytes, pk.n_bits(), rp.n.bits());
  REQUIRE(d.value.has_value());
  CHECK(d.value->encode(pk.n_bits(), rp.n.bits()) == *bytes);
  const auto gens = GeneratorSet::get("gopa", 1);
  DeterministicRng rng(1);
  Transcript t("gopa/test");
  t.append_message("context", "golden v1");
  CHECK(verify_enc_rp(t, st, *d.value, *gens, nullptr, rng) == RpEncCheck::kOk);
  Transcript t2("gopa/test");
  t2.append_message("context", "golden v2");
  CHECK(verify_enc_rp(t2, st, *d.value, *gens, nullptr, rng) != RpEncCheck::kOk);
}

// ---------------------------------------------------------------- one proof, every verifier
namespace {

struct MultiFixture : Fixture {
  RpMultiStatement statement_multi(const BigInt& x, unsigned shift = 0) const {
    const RpEncStatement one = statement(x, shift);
    RpMultiStatement st;
    st.pk = one.pk;
    st.c = one.c;
    st.a = one.a;
    st.shift = shift;
    st.prover_id = 1;
    st.verifiers = {&vrp.pub(), &krp.pub()};
    st.verifier_ids = {2, 3};
    return st;
  }
  RpMultiProof prove_multi(const RpMultiStatement& st, const BigInt& x) {
    Transcript t = transcript();
    return prove_enc_rp_multi(t, st, x, alpha, r, *gens, rng);
  }
  RpEncCheck shared(const RpMultiStatement& st, const RpMultiProof& pr, BigInt* e = nullptr,
                    std::string_view context = "triple 7") {
    Transcript t = transcript(context);
    return verify_enc_rp_shared(t, st, pr, *gens, nullptr, rng, e);
  }
  // Shared part and every verifier's part.
  bool accepts_multi(const RpMultiStatement& st, const RpMultiProof& pr) {
    BigInt e;
    if (shared(st, pr, &e) != RpEncCheck::kOk) return false;
    for (std::size_t j = 0; j < st.verifiers.size(); ++j)
      if (!rp_part_holds(*st.verifiers[j], pr.parts[j], pr.z, e)) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("enc-rp multi proof: honest proofs verify for every verifier, alone and batched",
          "[sampling][paillier][enc-rp]") {
  MultiFixture f;
  const BigInt x = BigInt::from_secret(f.a);
  for (unsigned shift : {0U, 100U}) {
    const RpMultiStatement st = f.statement_multi(x, shift);
    const RpMultiProof pr = f.prove_multi(st, x);
    REQUIRE(pr.parts.size() == 2);
    CHECK(f.accepts_multi(st, pr));
    CommitmentBatch batch;
    Transcript tv = Fixture::transcript();
    BigInt e;
    CHECK(verify_enc_rp_shared(tv, st, pr, *f.gens, &batch, f.rng, &e) == RpEncCheck::kOk);
    CHECK(batch.holds(*f.gens));
    CHECK(rp_part_holds(f.vrp.pub(), pr.parts[0], pr.z, e));
    CHECK(rp_part_holds(f.krp.pub(), pr.parts[1], pr.z, e));
    // Each part holds only for its own verifier's parameters.
    CHECK_FALSE(rp_part_holds(f.krp.pub(), pr.parts[0], pr.z, e));
    CHECK_FALSE(rp_part_holds(f.vrp.pub(), pr.parts[1], pr.z, e));
  }
}

TEST_CASE("enc-rp multi proof: a fractional plaintext passes the shared checks under grinding, "
          "never a verifier's part", "[sampling][paillier][enc-rp][soundness]") {
  // As the single-verifier case: m = u/v mod N committed as u/v mod ℓ; whenever v | e the
  // Paillier and commitment equations hold with z = y + (e/v)·u. S_j commits to the nearest
  // integer (the prover's best guess); every part is honest for that guess.
  MultiFixture f;
  constexpr unsigned long u = 2, v = 3;
  const BigInt& n = f.key.pub().n();
  BigInt m(v);
  REQUIRE(mpz_invert(m.get(), m.get(), n.get()) != 0);
  mpz_mul_ui(m.get(), m.get(), u);
  mpz_mod(m.get(), m.get(), n.get());
  RpMultiStatement st = f.statement_multi(BigInt(0));
  st.c = f.key.pub().encrypt(m, f.alpha);
  const Scalar xa = Scalar::from_u64(u) * *Scalar::from_u64(v).invert();
  st.a = xa * f.gens->G() + f.r.declassify() * f.gens->H();
  int candidates = 0, shared_passed = 0, part_passed = 0;
  for (int attempt = 0; attempt < 256; ++attempt) {
    bool divisible = false;
    Transcript tp = Fixture::transcript();
    const RpMultiProof pr = detail::prove_enc_rp_multi_unchecked(
        tp, st, BigInt(u / v + 1), f.alpha, f.r, *f.gens, f.rng,
        [&](const BigInt& e, RpMultiProof& q, const BigInt& y, const BigInt& mu,
            const SecretScalar&) {
          if (mpz_divisible_ui_p(e.get(), v) == 0) return;
          divisible = true;
          BigInt t;
          mpz_divexact_ui(t.get(), e.get(), v);
          mpz_mul_ui(t.get(), t.get(), u);
          mpz_add(q.z.get(), y.get(), t.get());
          mpz_mul(q.nu.get(), e.get(), f.alpha.get());
          mpz_add(q.nu.get(), q.nu.get(), mu.get());
        });
    if (!divisible) continue;
    ++candidates;
    BigInt e;
    if (f.shared(st, pr, &e) != RpEncCheck::kOk) continue;
    ++shared_passed;
    for (std::size_t j = 0; j < 2; ++j)
      if (rp_part_holds(*st.verifiers[j], pr.parts[j], pr.z, e)) ++part_passed;
  }
  CHECK(candidates > 256 / 5);
  CHECK(shared_passed == candidates);  // what every reader checks gives way …
  CHECK(part_passed == 0);             // … each verifier's own part never does
}

TEST_CASE("enc-rp multi proof: bad witnesses, parts chosen after the challenge, splices and "
          "changed statements", "[sampling][paillier][enc-rp][tamper]") {
  MultiFixture f;
  const BigInt x = BigInt::from_secret(f.a);
  const RpMultiStatement st = f.statement_multi(x);
  const RpMultiProof pr = f.prove_multi(st, x);
  REQUIRE(f.accepts_multi(st, pr));

  SECTION("plaintext differs from the committed value") {
    const BigInt x1 = BigInt::from_scalar(f.a.declassify() + Scalar::one());
    RpMultiStatement s1 = f.statement_multi(x1);
    s1.a = st.a;
    CHECK(f.shared(s1, f.prove_multi(s1, x1)) == RpEncCheck::kCommitment);
  }
  SECTION("a verifier's response rewritten after the challenge fails that verifier's part only") {
    Transcript tp = Fixture::transcript();
    const RpMultiProof bad = detail::prove_enc_rp_multi_unchecked(
        tp, st, x, f.alpha, f.r, *f.gens, f.rng,
        [](const BigInt&, RpMultiProof& q, const BigInt&, const BigInt&, const SecretScalar&) {
          mpz_add_ui(q.parts[1].w.get(), q.parts[1].w.get(), 1);
        });
    BigInt e;
    REQUIRE(f.shared(st, bad, &e) == RpEncCheck::kOk);
    CHECK(rp_part_holds(f.vrp.pub(), bad.parts[0], bad.z, e));
    CHECK_FALSE(rp_part_holds(f.krp.pub(), bad.parts[1], bad.z, e));
  }
  SECTION("a part out of its domain is refused by every reader") {
    RpMultiProof bad = pr;
    bad.parts[1].s = f.krp.pub().n;
    CHECK(f.shared(st, bad) == RpEncCheck::kMalformed);
    bad = pr;
    bad.parts[0].d = BigInt(0);
    CHECK(f.shared(st, bad) == RpEncCheck::kMalformed);
    bad = pr;
    mpz_setbit(bad.parts[0].w.get(), f.vrp.pub().n.bits() + RpEncParams::kRpResponseBits);
    CHECK(f.shared(st, bad) == RpEncCheck::kMalformed);
    bad = pr;
    bad.parts.pop_back();
    CHECK(f.shared(st, bad) == RpEncCheck::kLength);
  }
  SECTION("parts swapped, or spliced from another valid proof: the challenge changes") {
    RpMultiProof bad = pr;
    std::swap(bad.parts[0], bad.parts[1]);
    CHECK_FALSE(f.accepts_multi(st, bad));
    const RpMultiProof pr2 = f.prove_multi(st, x);
    REQUIRE(f.accepts_multi(st, pr2));
    for (std::size_t j = 0; j < 2; ++j) {
      bad = pr;
      bad.parts[j] = pr2.parts[j];
      CHECK(f.shared(st, bad) != RpEncCheck::kOk);
    }
    bad = pr;
    bad.tc = pr2.tc;
    CHECK(f.shared(st, bad) != RpEncCheck::kOk);
  }
  SECTION("changed statement or context") {
    CHECK(f.shared(st, pr, nullptr, "triple 8") != RpEncCheck::kOk);
    RpMultiStatement s2 = st;
    s2.verifier_ids = {3, 2};
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
    s2 = st;
    s2.verifiers = {&f.krp.pub(), &f.vrp.pub()};
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
    s2 = st;
    s2.prover_id = 4;
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
    s2 = st;
    s2.shift = 1;
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
    s2 = st;
    s2.a = s2.a + f.gens->G();
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
    s2 = st;
    s2.verifiers.pop_back();
    s2.verifier_ids.pop_back();
    CHECK(f.shared(s2, pr) != RpEncCheck::kOk);
  }
}
