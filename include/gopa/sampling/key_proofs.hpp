// gopa/sampling/key_proofs.hpp — proofs that a committee member's Paillier key is well formed
// (docs/sampling.md, "Key proofs"): Π_mod (N is a Paillier–Blum modulus), ring-Pedersen
// parameters with Π_prm (s ∈ ⟨t⟩ mod N), and Π_fac (both prime factors of N are close to √N),
// after CGGMP21 (Canetti, Gennaro, Goldfeder, Makriyannis, Peled: "UC Non-Interactive, Proactive,
// Threshold ECDSA with Identifiable Aborts", the proofs of Paillier–Blum modulus, ring-Pedersen
// parameters and no small factors).
//
//   PaillierKey key = PaillierKey::generate(2048, rng);
//   Transcript t("app"); t.append_u64("member", i);          // the caller's context first
//   ModProof pm = prove_mod(t, key, rng);                      // N = pq, p ≡ q ≡ 3 mod 4, …
//   KeyCheck ok = verify_mod(t2, key.pub().n(), key.pub().h(), pm);
//   RingPedersenSecret rs = RingPedersenSecret::generate(key, rng);   // (N, s, t), λ
//   PrmProof pp = prove_prm(t, rs, rng);                       // verify_prm(t2, rs.pub(), pp)
//   FacProof pf = prove_fac(t, key, verifier_rp, rng);         // against the verifier's (N̂, s, t)
//   KeyCheck ok2 = verify_fac(t2, key.pub().n(), verifier_rp, pf);
//
// Every proof is non-interactive (Fiat–Shamir on the caller's Transcript, versioned domain
// separator and sizes first), has a canonical encoding of fixed length for a given modulus size
// (big-endian integers, every field range-checked on decode) and a verifier that returns a
// typed KeyCheck; nothing aborts on untrusted input.
//
// Soundness: Π_mod 2^-80 (80 rounds, each passed by a modulus that is not Paillier–Blum with
// probability ≤ 1/2); Π_prm 2^-80 (80 binary challenges); Π_fac 2^-80 (e < 2^80) under the strong
// RSA assumption for the verifier's modulus, i.e. for a verifier that generated its own
// ring-Pedersen parameters. With Π_mod (N = pq, two distinct primes) a passing Π_fac gives
// p, q > 2^(|N|/2 − 162). Zero knowledge: Π_mod and Π_prm are perfect (honest verifier);
// Π_fac is statistical with 2^-80 slack.
// Side channels: every exponent derived from p, q, φ(N) or λ goes through mpz_powm_sec; the CRT
// recombination, reductions by p, q and Π_mod's Legendre symbols mod p, q use GMP's
// variable-time mpz functions (as decryption does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/random.hpp"
#include "gopa/sampling/paillier.hpp"
#include "gopa/transcript.hpp"

namespace gopa::sampling {

struct KeyProofParams {
  static constexpr unsigned kModRounds = 80;      // Π_mod: soundness 2^-80
  static constexpr unsigned kPrmRounds = 80;      // Π_prm: soundness 2^-80
  static constexpr unsigned kFacChallengeBits = 80;  // Π_fac: e ∈ [0, 2^80)
  static constexpr unsigned kFacSlackBits = 80;      // Π_fac: statistical hiding of p, q
};

enum class KeyCheck : std::uint8_t {
  kOk = 0,
  kLength,        // the encoding does not have the exact length for this modulus size
  kMalformed,     // a field outside its domain (an element not in (0, N), a flag byte > 3, …)
  kModulus,       // N even, prime, or below 16 bits (Π_mod) / parameters s, t not units (Π_prm)
  kJacobi,        // Π_mod: w does not have Jacobi symbol −1
  kFourthRoot,    // Π_mod: x_i^4 ≠ (−1)^a·w^b·y_i mod N
  kNthRoot,       // Π_mod: z_i^N ≠ y_i mod N
  kPrmEquation,   // Π_prm: t^(z_i) ≠ A_i·s^(e_i) mod N
  kFacRange,      // Π_fac: z1 or z2 ≥ 2^(|N|/2 + 161): a factor is not proven close to √N
  kFacEquation,   // Π_fac: one of the three ring-Pedersen equations fails
};
[[nodiscard]] const char* key_check_name(KeyCheck c) noexcept;

// A decoded proof, or why the bytes are not one.
template <class T>
struct Decoded {
  std::optional<T> value;
  KeyCheck error = KeyCheck::kOk;
};

// ---------------------------------------------------------------- Π_mod
// Statement: N (with h bound into the transcript). Prover: w with (w|N) = −1; per round i,
// y_i ∈ Z*_N from the transcript, a_i, b_i ∈ {0, 1} and x_i with x_i^4 = (−1)^a_i·w^b_i·y_i,
// z_i = y_i^(N^(−1) mod φ(N)). Verifier: N odd composite, the two equations per round.
struct ModProof {
  BigInt w;
  std::vector<BigInt> x, z;        // kModRounds each, in (0, N)
  std::vector<std::uint8_t> ab;    // a_i + 2·b_i ∈ {0, …, 3}
  // w ‖ per round: x_i int(nb) ‖ z_i int(nb) ‖ (a_i + 2b_i) u8, with nb = ⌈|N|/8⌉.
  [[nodiscard]] static std::size_t encoded_bytes(std::size_t nb) noexcept {
    return nb + KeyProofParams::kModRounds * (2 * nb + 1);
  }
  [[nodiscard]] std::vector<std::uint8_t> encode(std::size_t nb) const;
  // Exact length; x_i, z_i, w < 256^nb (the verifier checks them against N); flags ≤ 3.
  [[nodiscard]] static Decoded<ModProof> decode(std::span<const std::uint8_t> in, std::size_t nb);
};

[[nodiscard]] ModProof prove_mod(Transcript& t, const PaillierKey& key, Rng& rng);
[[nodiscard]] KeyCheck verify_mod(Transcript& t, const BigInt& n, const BigInt& h,
                                  const ModProof& pr);

// ---------------------------------------------------------------- ring-Pedersen, Π_prm
// Public parameters over the member's own Paillier modulus: t = τ² mod N, s = t^λ.
struct RingPedersen {
  BigInt n, s, t;
  // N ‖ s ‖ t, each int(nb) — only s ‖ t are published with a key (N is the key's).
};

class RingPedersenSecret {
 public:
  // τ uniform in Z*_N, λ uniform in [0, φ(N)).
  static RingPedersenSecret generate(const PaillierKey& key, Rng& rng);
  [[nodiscard]] const RingPedersen& pub() const noexcept { return pub_; }

 private:
  friend struct RingPedersenAccess;
  RingPedersen pub_;
  BigInt lambda_, p_, q_;
};

// Π_prm: per round A_i = t^(a_i), e_i ∈ {0, 1} from the transcript, z_i = a_i + e_i·λ mod φ(N);
// the verifier checks t^(z_i) = A_i·s^(e_i) mod N.
struct PrmProof {
  std::vector<BigInt> a, z;  // kPrmRounds each; A_i ∈ (0, N), z_i < 256^nb
  // per round: A_i int(nb) ‖ z_i int(nb).
  [[nodiscard]] static std::size_t encoded_bytes(std::size_t nb) noexcept {
    return KeyProofParams::kPrmRounds * 2 * nb;
  }
  [[nodiscard]] std::vector<std::uint8_t> encode(std::size_t nb) const;
  [[nodiscard]] static Decoded<PrmProof> decode(std::span<const std::uint8_t> in, std::size_t nb);
};

[[nodiscard]] PrmProof prove_prm(Transcript& t, const RingPedersenSecret& rp, Rng& rng);
// Also checks the parameters: s, t units in (1, N − 1).
[[nodiscard]] KeyCheck verify_prm(Transcript& t, const RingPedersen& rp, const PrmProof& pr);

// ---------------------------------------------------------------- Π_fac
// Statement: the prover's N0 (|N0| = 2·half bits) and the verifier's ring-Pedersen (N̂, s, t).
// Prover: P = s^p·t^μ, Q = s^q·t^ν, A = s^α·t^x, B = s^β·t^y, T = Q^α·t^(−r) mod N̂;
// e ∈ [0, 2^80); z1 = α + e·p, z2 = β + e·q, w1 = x + e·μ, w2 = y + e·ν, v = r + e·ν·p (over Z).
// Verifier: z1, z2 < 2^(half + 161), s^z1·t^w1 = A·P^e, s^z2·t^w2 = B·Q^e,
// Q^z1 = T·s^(e·N0)·t^v mod N̂. Sizes (bits): α, β < 2^(half+160), μ, ν < 2^(|N̂|+80),
// x, y < 2^(|N̂|+240), r < 2^(|N̂|+half+240).
struct FacProof {
  BigInt P, Q, A, B, T;  // in (0, N̂)
  BigInt z1, z2, w1, w2, v;
  struct Sizes {
    std::size_t nb;  // ⌈|N̂|/8⌉ (ring-Pedersen elements)
    std::size_t zb;  // z1, z2: room for any response of the prover's algorithm with a factor < N0
    std::size_t wb;  // w1, w2
    std::size_t vb;  // v
  };
  // n0_bits = |N0| (even), nhat_bits = |N̂|.
  [[nodiscard]] static Sizes sizes(std::size_t n0_bits, std::size_t nhat_bits) noexcept;
  [[nodiscard]] static std::size_t encoded_bytes(std::size_t n0_bits, std::size_t nhat_bits) noexcept {
    const Sizes s = sizes(n0_bits, nhat_bits);
    return 5 * s.nb + 2 * s.zb + 2 * s.wb + s.vb;
  }
  // P ‖ Q ‖ A ‖ B ‖ T int(nb) ‖ z1 ‖ z2 int(zb) ‖ w1 ‖ w2 int(wb) ‖ v int(vb).
  [[nodiscard]] std::vector<std::uint8_t> encode(std::size_t n0_bits, std::size_t nhat_bits) const;
  [[nodiscard]] static Decoded<FacProof> decode(std::span<const std::uint8_t> in,
                                                std::size_t n0_bits, std::size_t nhat_bits);
};

[[nodiscard]] FacProof prove_fac(Transcript& t, const PaillierKey& key, const RingPedersen& verifier,
                                 Rng& rng);
// The verifier's parameters must have passed verify_prm (the caller's duty).
[[nodiscard]] KeyCheck verify_fac(Transcript& t, const BigInt& n0, const RingPedersen& verifier,
                                  const FacProof& pr);

namespace detail {
// Tests and deliberate deviations only: the provers' algorithms run with any factorisation.
// Π_mod with the distinct primes of a square-free N (a round without a fourth root or N-th root
// gets arbitrary values, so a bad modulus fails the verifier); Tonelli–Shanks (variable time)
// for primes ≡ 1 mod 4.
[[nodiscard]] ModProof prove_mod_factors(Transcript& t, const BigInt& n, const BigInt& h,
                                         std::span<const BigInt> primes, Rng& rng);
// Π_fac with N0 = p·q for any p, q ≥ 1 (a small p makes z2 too large).
[[nodiscard]] FacProof prove_fac_factors(Transcript& t, const BigInt& n0, const BigInt& p,
                                         const BigInt& q, const RingPedersen& verifier, Rng& rng);
}  // namespace detail

}  // namespace gopa::sampling
