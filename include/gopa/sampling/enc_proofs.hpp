// gopa/sampling/enc_proofs.hpp — Paillier encryption in range with the verifier's ring-Pedersen
// parameters, after CGGMP21's Π_enc (Canetti, Gennaro, Goldfeder, Makriyannis, Peled: "UC
// Non-Interactive, Proactive, Threshold ECDSA with Identifiable Aborts", the proof of Paillier
// encryption in range), adapted to the committee's statement (docs/sampling.md, "Ciphertext
// proofs against the verifier's ring-Pedersen parameters").
//
//   Transcript t("app");                              // the caller's context first
//   RpEncStatement st{&pk_i, c, A, shift, &rp_j, i, j};   // C = Enc_i(x·2^shift; α), A = x·G + r·H
//   RpEncProof pr = prove_enc_rp(t, st, x, alpha, r, gens, rng);
//   auto bytes = pr.encode(pk_i.n_bits(), rp_j.n.bits());
//   auto d = RpEncProof::decode(bytes, n_bits, nhat_bits);      // d.value or d.error
//   RpEncCheck ok = verify_enc_rp(t2, st, *d.value, gens, nullptr, rng);
//
// One proof per (ciphertext, verifier j), against j's ring-Pedersen parameters (N̂, s, t), which
// j proved with Π_prm and whose factorisation the prover does not know. Relation: the prover knows
// x ∈ [0, 2^253), α ∈ [0, 2^256), r ∈ Z_ℓ with C = (1 + N)^(x·2^shift)·(h^N)^α mod N² and
// A = x·G + r·H. First message T_C = Enc(y·2^shift; μ), T_A = y·G + ρ·H, S = s^x·t^m,
// D = s^y·t^γ mod N̂; e ∈ [0, 2^80) from the transcript; responses over Z: z = y + e·x,
// ν = μ + e·α, w = γ + e·m, and z_r = ρ + e·r mod ℓ. The verifier checks z < 2^373,
// Enc(z·2^shift; ν) = T_C·C^e mod N², s^z·t^w = D·S^e mod N̂ and (z mod ℓ)·G + z_r·H = T_A + e·A.
//
// Soundness (docs/sampling.md): 2^-80 per proof attempt under the strong RSA assumption for N̂
// with s ∈ ⟨t⟩ (Π_prm): from two accepting transcripts the ring-Pedersen equation forces
// Δe | Δz over Z, so C encrypts the integer Δz/Δe·2^shift with |Δz/Δe| < 2^373, equal to the
// committed value mod ℓ. The prover's knowledge of its own N gives no advantage, so fractional
// plaintexts u/v mod N are excluded without a term that work can buy down.
// Zero knowledge: statistical, 2^-40 slack per response (as the reply masks).
// Side channels: exponentiations with secret exponents (S, D) use mpz_powm_sec; T_C uses the
// key's fixed-base table, indexed by μ (as encryption, paillier.hpp); the verifier works on
// public data only (variable time).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/random.hpp"
#include "gopa/sampling/key_proofs.hpp"
#include "gopa/sampling/paillier.hpp"
#include "gopa/sampling/paillier_proofs.hpp"
#include "gopa/transcript.hpp"

namespace gopa::sampling {

struct RpEncParams {
  static constexpr unsigned kPlainBits = EncProofParams::kPlainBits;          // x < 2^253
  static constexpr unsigned kChallengeBits = EncProofParams::kChallengeBits;  // e ∈ [0, 2^80)
  static constexpr unsigned kZkBits = EncProofParams::kZkBits;                // 40-bit slack
  static constexpr unsigned kBoundBits = EncProofParams::kBoundBits;          // z < 2^373
  static constexpr unsigned kNonceRandBits = EncProofParams::kNonceRandBits;  // μ < 2^376
  // m < 2^(|N̂| + 40): t^m is within 2^-40 of uniform in ⟨t⟩, so S hides x.
  static constexpr unsigned kRpMaskBits = kZkBits;
  // γ < 2^(|N̂| + 160) = 2^(|N̂| + 40 + 80 + 40): w = γ + e·m hides m with 40 bits of slack.
  static constexpr unsigned kRpNonceBits = kRpMaskBits + kChallengeBits + kZkBits;
  // Verifier's bound on w (the honest w < 2^(|N̂|+160) + 2^(|N̂|+120)).
  static constexpr unsigned kRpResponseBits = kRpNonceBits + 1;
  // Verifier moduli: the same range as the Paillier moduli of the committee.
  static constexpr unsigned kMinModulusBits = 674;
  static constexpr unsigned kMaxModulusBits = 4096;
};

// Public statement: the prover's key and ciphertext, the commitment, the shift, the verifier's
// ring-Pedersen parameters and both members' indices (all bound into the transcript).
struct RpEncStatement {
  const PaillierPublic* pk = nullptr;
  BigInt c;
  Point a;
  unsigned shift = 0;
  const RingPedersen* verifier = nullptr;
  std::uint32_t prover_id = 0;
  std::uint32_t verifier_id = 0;
};

enum class RpEncCheck : std::uint8_t {
  kOk = 0,
  kLength,         // the encoding does not have the exact length for these modulus sizes
  kMalformed,      // a field outside its domain (T_C ∉ (0, N²), S ∉ (0, N̂), a non-canonical point, …)
  kParameters,     // the statement's moduli or ring-Pedersen parameters are not of the required form
  kRange,          // z ≥ 2^373: the plaintext is not proven small
  kPaillier,       // Enc(z·2^shift; ν) ≠ T_C·C^e mod N²
  kRingPedersen,   // s^z·t^w ≠ D·S^e mod N̂: the plaintext is not proven to be an integer
  kCommitment,     // (z mod ℓ)·G + z_r·H ≠ T_A + e·A: the plaintext is not the committed value
};
[[nodiscard]] const char* rp_enc_check_name(RpEncCheck c) noexcept;

struct RpEncDecoded;

struct RpEncProof {
  BigInt tc;     // T_C ∈ (0, N²)
  Point ta;      // T_A
  BigInt s, d;   // S, D ∈ (0, N̂)
  BigInt z, nu;  // integer responses (as EncProof)
  Scalar zr;
  BigInt w;      // integer response of the ring-Pedersen equation

  // Byte sizes of the fields for a prover modulus of n_bits and a verifier modulus of nhat_bits.
  struct Sizes {
    std::size_t ct;  // T_C: ⌈2·n_bits/8⌉
    std::size_t nb;  // S, D: ⌈nhat_bits/8⌉
    std::size_t wb;  // w: ⌈(nhat_bits + 161)/8⌉
  };
  static constexpr std::size_t kZBytes = EncProof::kZBytes;    // 72: room above the bound
  static constexpr std::size_t kNuBytes = EncProof::kNuBytes;  // 48: ν < 2^384
  [[nodiscard]] static Sizes sizes(std::size_t n_bits, std::size_t nhat_bits) noexcept;
  // T_C int(ct) ‖ T_A point ‖ S int(nb) ‖ D int(nb) ‖ z int(72) ‖ ν int(48) ‖ z_r scalar ‖
  // w int(wb): 1,485 bytes for 2048-bit moduli (512 + 32 + 256 + 256 + 72 + 48 + 32 + 277).
  [[nodiscard]] static std::size_t encoded_bytes(std::size_t n_bits, std::size_t nhat_bits) noexcept;
  [[nodiscard]] std::vector<std::uint8_t> encode(std::size_t n_bits, std::size_t nhat_bits) const;
  // Exact length, canonical point and scalar; every integer has one encoding of its width (the
  // verifier checks the ranges that depend on the moduli).
  [[nodiscard]] static RpEncDecoded decode(std::span<const std::uint8_t> in, std::size_t n_bits,
                                           std::size_t nhat_bits);
};

// A decoded proof, or why the bytes are not one.
struct RpEncDecoded {
  std::optional<RpEncProof> value;
  RpEncCheck error = RpEncCheck::kOk;
};

// Appends the statement (domain separator, sizes, N, N̂, s, t, C, A, shift, prover and verifier
// indices) to t. The caller appends its own context (application, label, index) before.
void append_enc_rp_statement(Transcript& t, const RpEncStatement& st);

// Honest prover: x < 2^253, alpha < 2^256 (aborts otherwise). Appends the statement itself.
[[nodiscard]] RpEncProof prove_enc_rp(Transcript& t, const RpEncStatement& st, const BigInt& x,
                                      const BigInt& alpha, const SecretScalar& r,
                                      const GeneratorSet& gens, Rng& rng);

// Checks the parameters, the domains, the range and the three equations; with a batch, the
// commitment equation is deferred to batch->holds(). Appends the statement itself. The
// verifier's parameters must have passed verify_prm (the caller's duty).
[[nodiscard]] RpEncCheck verify_enc_rp(Transcript& t, const RpEncStatement& st,
                                       const RpEncProof& pr, const GeneratorSet& gens,
                                       CommitmentBatch* batch, Rng& rng);

// ---------------------------------------------------------------- one ciphertext, every verifier
// The committee's form (docs/sampling.md, "Ciphertext proofs in the committee"): one proof per
// ciphertext for all the other members at once. The Paillier and Pedersen parts (T_C, T_A, z, ν,
// z_r) are shared; each verifier j has its own ring-Pedersen part S_j = s_j^x·t_j^(m_j),
// D_j = s_j^y·t_j^(γ_j), w_j = γ_j + e·m_j; one challenge e is drawn after every part. Every
// reader checks the shared part (verify_enc_rp_shared); verifier j checks its own part
// (rp_part_holds, or RpOwnerCheck with its factors), which is what binds the plaintext to an
// integer for j: the argument of the single-verifier proof, with j's equation, holds unchanged
// because e is drawn after S_j and D_j.
struct RpMultiStatement {
  const PaillierPublic* pk = nullptr;
  BigInt c;
  Point a;
  unsigned shift = 0;
  std::uint32_t prover_id = 0;
  // The verifiers' ring-Pedersen parameters (each passed verify_prm: the caller's duty) and
  // their indices, in the order of the parts.
  std::vector<const RingPedersen*> verifiers;
  std::vector<std::uint32_t> verifier_ids;
};

struct RpPart {
  BigInt s, d;  // S_j, D_j ∈ (0, N̂_j)
  BigInt w;     // w_j < 2^(|N̂_j| + 161)
};

struct RpMultiProof {
  BigInt tc;     // T_C ∈ (0, N²)
  Point ta;      // T_A
  BigInt z, nu;  // z < 2^373, ν < 2^384
  Scalar zr;
  std::vector<RpPart> parts;  // one per verifier, in the statement's order
};

// Appends the statement: domain separator `gopa/paillier-enc-rp-multi v1`, the parameters, the
// prover, the number of verifiers and for each its index, N̂, s, t; then N, the shift, C and A.
void append_enc_rp_multi_statement(Transcript& t, const RpMultiStatement& st);

// Secret-exponent powers s^a·t^b mod N̂ for the statement's verifier number `verifier`, with
// a < 2^a_bits and b < 2^b_bits (public widths): by default mpz_powm_sec; the committee passes
// constant-time fixed-base tables (src/sampling/rp_exp.hpp).
using RpPow2Sec = std::function<BigInt(std::size_t verifier, const BigInt& a, unsigned a_bits,
                                       const BigInt& b, unsigned b_bits)>;

// Honest prover (x < 2^253, α < 2^256). Appends the statement itself. `own`: the prover's key
// (its public part must be st.pk), to encrypt the nonce T_C by CRT (the same proof, faster).
[[nodiscard]] RpMultiProof prove_enc_rp_multi(Transcript& t, const RpMultiStatement& st,
                                              const BigInt& x, const BigInt& alpha,
                                              const SecretScalar& r, const GeneratorSet& gens,
                                              Rng& rng, const RpPow2Sec& pow2 = {},
                                              const PaillierKey* own = nullptr);

// Every reader: the moduli's sizes, the domain of every field of every part, the transcript, the
// range of z, the Paillier equation and the commitment equation (deferred into batch if given).
// On kOk, *challenge (if given) holds e for the parts' checks. Appends the statement itself.
[[nodiscard]] RpEncCheck verify_enc_rp_shared(Transcript& t, const RpMultiStatement& st,
                                              const RpMultiProof& pr, const GeneratorSet& gens,
                                              CommitmentBatch* batch, Rng& rng,
                                              BigInt* challenge = nullptr);

// Verifier j's equation s^z·t^w = D·S^e mod N̂ (public data, variable time), for a proof whose
// shared part verified with challenge e.
[[nodiscard]] bool rp_part_holds(const RingPedersen& v, const RpPart& part, const BigInt& z,
                                 const BigInt& e);

namespace detail {
// Tests and deliberate deviations only: the prover's algorithm with any witness x ≥ 0, without
// the range check or restart; `after` sees the challenge e and may rewrite the responses (a
// prover that chooses its answers after the challenge).
using RpEncTamper = std::function<void(const BigInt& e, RpEncProof& pr)>;
[[nodiscard]] RpEncProof prove_enc_rp_unchecked(Transcript& t, const RpEncStatement& st,
                                                const BigInt& x, const BigInt& alpha,
                                                const SecretScalar& r, const GeneratorSet& gens,
                                                Rng& rng, const RpEncTamper& after = {});
// The multi-verifier prover with any witness x ≥ 0, without range check or restart (and with
// mpz_powm_sec, whatever the width of x); `after` sees
// the challenge and the nonces y, μ, ρ of T_C and T_A and may rewrite the proof (a prover that
// chooses its responses after the challenge, e.g. for a fractional plaintext).
using RpMultiTamper = std::function<void(const BigInt& e, RpMultiProof& pr, const BigInt& y,
                                         const BigInt& mu, const SecretScalar& rho)>;
[[nodiscard]] RpMultiProof prove_enc_rp_multi_unchecked(
    Transcript& t, const RpMultiStatement& st, const BigInt& x, const BigInt& alpha,
    const SecretScalar& r, const GeneratorSet& gens, Rng& rng, const RpMultiTamper& after = {});
}  // namespace detail

}  // namespace gopa::sampling
