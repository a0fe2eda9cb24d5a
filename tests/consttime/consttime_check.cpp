// Runs every secret-handling operation on secrets marked undefined (see gopa/check.hpp).
// Under valgrind memcheck, a branch or table index on a secret is reported; the test fails.
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "gopa/check.hpp"
#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/circuits/sigma_adapter.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/pedersen.hpp"
#include "poly.hpp"    // internal (src/sigma): the prover's extrapolation
#include "rp_exp.hpp"  // internal (src/sampling): ring-Pedersen commitments

namespace {

using gopa::circuits::i128;

// The prover's witness generation for one sampler call (seed gadgets, every hint, the committed
// outputs, the witness check, the hand-over to the Σ prover, and the witness-only builder that
// gives the witness again to the batch prover) with the private seeds x marked
// secret; y is public. Returns the number of variables (public: the circuit's shape). With
// `leak`, branches on a sample afterwards: valgrind must report it, which shows the secrets
// reach the outputs through the hints (so the check above is not vacuous).
std::size_t sampler_witness(gopa::circuits::SamplerKind kind, unsigned f, bool leak) {
  namespace gc = gopa::circuits;
  const gc::SamplerParams p = gc::SamplerParams::make(kind, f);
  const std::size_t d = p.samples_per_call(), n = p.seeds_per_call();
  gopa::DeterministicRng rng(static_cast<std::uint64_t>(kind) * 100U + f);
  const std::uint64_t mask = (std::uint64_t{1} << p.m) - 1U;
  std::vector<gc::PrivateSeed> seeds;
  std::vector<i128> xs(n), ys(n);
  for (std::size_t i = 0; i < n; ++i) {
    seeds.push_back(gc::PrivateSeed::draw(p.m, rng));  // x marked secret on creation
    ys[i] = static_cast<i128>(rng.next_u64() & mask);
  }
  {  // Public circuit constants (polynomial tables) are computed once, outside the secret run.
    gc::Recorder warm(p.circuit_name(d));
    (void)gc::gaussian_circuit(warm, p, ys, ys, d);
  }
  for (std::size_t i = 0; i < n; ++i) xs[i] = static_cast<i128>(seeds[i].value());
  gopa::gopa_secret(xs.data(), xs.size() * sizeof(i128));  // (already secret through value())
  gc::Recorder rec(p.circuit_name(d));
  const auto out = gc::gaussian_circuit(rec, p, xs, ys, d);
  // The verdict is declassified inside check_witness (public by design: always true).
  GOPA_CHECK(gc::check_witness(rec.circuit(), rec.values()).ok(), "sampler witness");
  const gc::SigmaCircuit sc = gc::to_sigma(rec.circuit(), rec.values());
  // The same witness again from the witness-only builder (what the batch prover asks for).
  gc::WitnessRecorder wit;
  (void)gc::gaussian_circuit(wit, p, xs, ys, d);
  std::uint8_t exact = wit.shadow_exact() ? 1 : 0;
  gopa::gopa_declassify(&exact, sizeof exact);
  GOPA_CHECK(exact == 1 && wit.values().size() == rec.values().size(), "witness-only builder");
  if (leak) {
    volatile int sink = 0;
    if (rec.value(out[0]) > 0) sink = sink + 1;
  }
  return rec.circuit().vars.size() + sc.witness.size();
}

}  // namespace

int main(int argc, char** argv) {
  gopa::crypto_init();
  using gopa::circuits::SamplerKind;
  if (argc > 1 && std::string_view(argv[1]) == "--negative-control-sampler") {
    (void)sampler_witness(SamplerKind::kBoxMuller, 12, true);
    return 0;  // only valgrind's report can fail this run
  }
  if (argc > 1 && std::string_view(argv[1]) == "--negative-control") {
    // A deliberate branch on a secret: valgrind must report it (the CTest expects failure),
    // which shows the harness can fail.
    gopa::SecretScalar s = gopa::SecretScalar::random(*std::make_unique<gopa::DeterministicRng>(2));
    std::uint8_t b[32];
    decaf_255_scalar_encode(b, s.raw());
    volatile int sink = 0;
    if (b[0] & 1) sink = sink + 1;
    return 0;  // only valgrind's report can fail this run
  }
  // Sampler witnesses: Box–Muller (ln, sqrt, cos/sin), polar (oblivious candidate selection,
  // division), inverse CDF (ln, sqrt, divisions, selections) and CLT.
  std::size_t vars = 0;
  vars += sampler_witness(SamplerKind::kBoxMuller, 12, false);
  vars += sampler_witness(SamplerKind::kPolar, 12, false);
  vars += sampler_witness(SamplerKind::kInverseCdf, 12, false);
  vars += sampler_witness(SamplerKind::kClt, 12, false);
  if (argc > 1 && std::string_view(argv[1]) == "--sampler-only") {
    std::printf("consttime_check: sampler witnesses, %zu variables\n", vars);
    return 0;
  }

  gopa::DeterministicRng rng(1);
  auto gens = gopa::GeneratorSet::get("gopa", 8);

  gopa::SecretScalar x = gopa::SecretScalar::random(rng);  // marked secret on creation
  gopa::SecretScalar r = gopa::SecretScalar::random(rng);
  gopa::SecretScalar y = x * r + x - r;
  gopa::SecretScalar z = y.invert();
  gopa::Point p1 = gopa::Point::base_mul(z);
  gopa::Point p2 = gens->H() * x;
  gopa::Point p3 = gens->H_table().mul(y);
  gopa::Point c = gopa::commit(x, r, *gens);
  std::vector<gopa::SecretScalar> xs;
  for (int i = 0; i < 8; ++i) xs.push_back(gopa::SecretScalar::random(rng));
  gopa::Point v = gopa::commit_vector(xs, r, *gens);
  gopa::Point m = gopa::msm_secret(xs, gens->Gi(8));
  {  // More terms than one cache block of the constant-time Straus loop (128).
    auto big = gopa::GeneratorSet::get("gopa", 200);
    std::vector<gopa::SecretScalar> ys;
    for (int i = 0; i < 200; ++i) ys.push_back(gopa::SecretScalar::random(rng));
    m += gopa::msm_secret(ys, big->Gi(200));
  }
  const bool eq = x.ct_equal(r);
  // The prover's polynomial extrapolation, through both Toeplitz products: Karatsuba (m < 128)
  // and the multi-modular transforms (m ≥ 128).
  for (std::size_t deg : {40U, 300U}) {
    std::vector<gopa::SecretScalar> vals;
    for (std::size_t i = 0; i <= deg; ++i) vals.push_back(gopa::SecretScalar::random(rng));
    const auto ext = gopa::sigma::poly::extrapolate(vals);
    GOPA_CHECK(ext.size() == deg, "extrapolation size");
  }

  // The ciphertext proofs' ring-Pedersen commitments s^x·t^m with secret x, m (fixed-base
  // tables, constant time); the result is published and declassified inside.
  std::string rp;
  {
    namespace gs = gopa::sampling;
    gs::BigInt n = gs::BigInt::random_bits(704, rng);
    mpz_setbit(n.get(), 703);
    mpz_setbit(n.get(), 0);
    const gs::FixedBaseSec s_tab(gs::BigInt(3), n, 373), t_tab(gs::BigInt(5), n, 704 + 160);
    gs::BigInt a = gs::BigInt::random_bits(253, rng), b = gs::BigInt::random_bits(704 + 40, rng);
    for (gs::BigInt* e : {&a, &b})
      gopa::gopa_secret(mpz_limbs_read(e->get()), mpz_size(e->get()) * sizeof(mp_limb_t));
    const gs::FixedBaseSec* bases[2] = {&s_tab, &t_tab};
    const gs::BigInt exps[2] = {a, b};
    const unsigned bits[2] = {253, 704 + 40};
    rp = gopa::to_hex(gs::multi_pow_sec(bases, exps, bits).to_bytes(88)).substr(0, 8);
  }
  // A replier's own check of a ring-Pedersen part with its factors p, q: every value derived
  // from them (moduli, R², the tables mod p and q) is marked secret after construction; the
  // inputs are public. Only the verdict is declassified inside.
  bool own_ok = false;
  {
    namespace gs = gopa::sampling;
    const auto prime = [&](unsigned b) {
      gs::BigInt pr = gs::BigInt::random_bits(b, rng);
      mpz_setbit(pr.get(), b - 1);
      mpz_nextprime(pr.get(), pr.get());
      return pr;
    };
    const gs::BigInt p = prime(352), q = prime(352);
    gs::BigInt n;
    mpz_mul(n.get(), p.get(), q.get());
    const gs::BigInt s(3), t(5);
    const unsigned nh = static_cast<unsigned>(n.bits());
    const gs::RpOwnerCheck own(p, q, s, t, 8 * 72, 8 * ((nh + 161 + 7) / 8));
    own.for_each_secret([](const void* a, std::size_t len) { gopa::gopa_secret(a, len); });
    // An honest part: D = s^z·t^w·S^(−e) for public z, w, S, e.
    const gs::BigInt zz = gs::BigInt::random_bits(373, rng), w = gs::BigInt::random_bits(nh + 161, rng);
    const gs::BigInt e = gs::BigInt::random_bits(80, rng), S(7);
    gs::BigInt lhs, sz, se, D;
    mpz_powm(lhs.get(), s.get(), zz.get(), n.get());
    mpz_powm(sz.get(), t.get(), w.get(), n.get());
    mpz_mul(lhs.get(), lhs.get(), sz.get());
    mpz_powm(se.get(), S.get(), e.get(), n.get());
    mpz_invert(se.get(), se.get(), n.get());
    mpz_mul(D.get(), lhs.get(), se.get());
    mpz_mod(D.get(), D.get(), n.get());
    own_ok = own.holds(zz, w, D, S, e);
    gs::BigInt d1 = D;
    mpz_add_ui(d1.get(), d1.get(), 1);
    own_ok = own_ok && !own.holds(zz, w, d1, S, e);
    own_ok = own_ok && own.holds_mod_p(zz, w, D, S, e) && !own.holds_mod_p(zz, w, d1, S, e);
  }

  // Published values are declassified before they are branched on.
  gopa::Point all = p1 + p2 + p3 + c + v + m;
  auto enc = all.encode();
  gopa::gopa_declassify(enc.data(), enc.size());
  GOPA_CHECK(own_ok, "the owner's check accepts an honest part and rejects a wrong one");
  // Paillier encryption of a secret plaintext with secret randomness (a committee member's
  // ciphertext of its share, and a proof's nonce encryption); the ciphertext is published.
  std::string ct;
  {
    namespace gs = gopa::sampling;
    const gs::PaillierKey key = gs::PaillierKey::generate(704, rng);
    gs::BigInt msg = gs::BigInt::random_bits(600, rng), alpha = gs::BigInt::random_bits(256, rng);
    for (gs::BigInt* e : {&msg, &alpha})
      gopa::gopa_secret(mpz_limbs_read(e->get()), mpz_size(e->get()) * sizeof(mp_limb_t));
    const gs::BigInt cipher = key.pub().encrypt(msg, alpha, gs::PaillierKey::kAlphaBits);
    const gs::BigInt c_own = key.encrypt_own(msg, alpha, gs::PaillierKey::kAlphaBits);
    ct = gopa::to_hex(cipher.to_bytes(176)).substr(0, 8);
    // Decryption by the owner, every value derived from p and q marked secret after the
    // decryptor is built; the ciphertext is public, the plaintext (as limbs) stays secret.
    // h_p = L_p((N + 1)^(p−1) mod p²)^(−1) = ((p − 1)·q)^(−1) mod p, and h_q alike.
    const auto crt_h = [](const gs::BigInt& a, const gs::BigInt& b) {
      gs::BigInt h;
      mpz_sub_ui(h.get(), a.get(), 1);
      mpz_mul(h.get(), h.get(), b.get());
      GOPA_CHECK(mpz_invert(h.get(), h.get(), a.get()) != 0, "invertible");
      return h;
    };
    const gs::PaillierOwnDec dec(key.p(), key.q(), crt_h(key.p(), key.q()), crt_h(key.q(), key.p()));
    dec.for_each_secret([](const void* a, std::size_t len) { gopa::gopa_secret(a, len); });
    std::vector<mp_limb_t> plain(dec.plaintext_limbs());
    dec.decrypt_limbs(cipher, plain.data());
    // Compared with the plaintext after the fact: the comparison's verdict is made public.
    mp_limb_t diff = 0;
    for (std::size_t i = 0; i < plain.size(); ++i) diff |= plain[i] ^ mpz_getlimbn(msg.get(), static_cast<mp_size_t>(i));
    bool same = diff == 0;
    gopa::gopa_declassify(&same, sizeof same);
    GOPA_CHECK(same && cipher == c_own, "the owner's encryption and decryption");
  }
  std::printf("consttime_check: %s %d %s %s\n", gopa::to_hex(enc).substr(0, 16).c_str(), eq ? 1 : 0,
              rp.c_str(), ct.c_str());
  return 0;
}
