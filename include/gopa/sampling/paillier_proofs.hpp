// gopa/sampling/paillier_proofs.hpp — zero-knowledge proof that a Paillier ciphertext encrypts
// the value of a Pedersen commitment, with a range (docs/sampling.md §2, "Ciphertext proofs").
//
//   Transcript t = ...;                       // caller's transcript, statement context appended
//   EncStatement st{&pk, c, A, shift};        // C = Enc(x·2^shift; α), A = x·G + r·H
//   EncProof pr = prove_enc(t, st, x, alpha, r, gens, rng);
//   EncCheck ok = verify_enc(t2, st, pr, gens);            // or with a CommitmentBatch
//
// Relation (Σ-protocol with integer responses, Fiat–Shamir, no auxiliary RSA modulus):
//   prover knows x ∈ [0, 2^253), α ∈ [0, 2^256), r ∈ Z_ℓ with
//   C = (1 + N)^(x·2^shift)·(h^N)^α mod N²  and  A = x·G + r·H.
//   T_C = Enc(y·2^shift; μ), T_A = y·G + s·H, e ∈ [0, 2^80) from the transcript,
//   z = y + e·x, ν = μ + e·α over Z, z_r = s + e·r mod ℓ; the verifier checks z < 2^373 and
//   Enc(z·2^shift; ν) = T_C·C^e mod N², (z mod ℓ)·G + z_r·H = T_A + e·A.
// Parameters: y < 2^(253+80+40), μ < 2^(256+80+40): statistical zero knowledge with distance
// ≤ 2^-40 per proof (the prover restarts when z would exceed the bound, probability 2^-40).
// Soundness: docs/sampling.md §Security — integer plaintexts are bound to |x| < 2^373 and to
// x ≡ committed value mod ℓ; fractional plaintexts u/v mod N pass with probability 1/v per
// attempt (the prover knows the factorisation of its own N). sampling/enc_proofs.hpp proves the
// same statement against the verifier's ring-Pedersen parameters and excludes them (not yet
// used by the committee).
// Variable time (GMP); the prover's table lookups depend on μ (as for encryption, paillier.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/random.hpp"
#include "gopa/sampling/paillier.hpp"
#include "gopa/transcript.hpp"

namespace gopa::sampling {

struct EncProofParams {
  static constexpr unsigned kPlainBits = 253;      // honest plaintexts x < 2^253 (ℓ < 2^253)
  static constexpr unsigned kChallengeBits = 80;   // e ∈ [0, 2^80)
  static constexpr unsigned kZkBits = 40;          // statistical hiding of the responses
  // Proven bound: 0 ≤ z < 2^373 gives |x| < 2^373 for an extracted integer plaintext.
  static constexpr unsigned kBoundBits = kPlainBits + kChallengeBits + kZkBits;
  static constexpr unsigned kNonceRandBits = PaillierKey::kAlphaBits + kChallengeBits + kZkBits;
};
static_assert(EncProofParams::kNonceRandBits + 1 <= PaillierPublic::kExpBits,
              "the fixed-base table covers the proof's randomness");

// Public statement: C = Enc_pk(x·2^shift), A = x·G + r·H.
struct EncStatement {
  const PaillierPublic* pk = nullptr;
  BigInt c;
  Point a;
  unsigned shift = 0;
};

struct EncProof {
  BigInt tc;     // T_C ∈ Z*_{N²}
  Point ta;      // T_A
  BigInt z, nu;  // integer responses
  Scalar zr;
  // Field sizes on the board (docs/sampling.md, "Public log"): z gets 72 bytes so that a
  // response above the bound (a plaintext ≥ 2^373) can still be published and named by the
  // range check; ν ≤ 2^384 (PaillierPublic::kExpBits) fits 48 bytes.
  static constexpr std::size_t kZBytes = 72;
  static constexpr std::size_t kNuBytes = 48;
  // Size on the board: T_C (2·|N| bits), T_A, z, ν, z_r.
  [[nodiscard]] static std::size_t encoded_bytes(const PaillierPublic& pk) noexcept {
    return pk.ciphertext_bytes() + Point::kBytes + kZBytes + kNuBytes + Scalar::kBytes;
  }
};

enum class EncCheck : std::uint8_t {
  kOk = 0,
  kMalformed,   // an element outside its domain (T_C ∉ (0, N²), ν too large, …)
  kRange,       // z ≥ 2^373: the plaintext is not proven small
  kPaillier,    // Enc(z·2^shift; ν) ≠ T_C·C^e
  kCommitment,  // (z mod ℓ)·G + z_r·H ≠ T_A + e·A: the plaintext is not the committed value
};
[[nodiscard]] const char* enc_check_name(EncCheck c) noexcept;

// Random-weighted batch of the commitment equations of several proofs (one MSM).
class CommitmentBatch {
 public:
  void add(const Scalar& z, const Scalar& zr, const Point& ta, const Scalar& e, const Point& a,
           Rng& rng);
  [[nodiscard]] bool holds(const GeneratorSet& gens) const;

 private:
  Scalar g_, h_;
  std::vector<Scalar> w_;
  std::vector<Point> p_;
};

// Appends the statement (domain separator, sizes, N, C, A, shift) to t. The caller appends its
// context (application, member, label) before.
void append_enc_statement(Transcript& t, const EncStatement& st);

// Honest prover: x < 2^253, alpha < 2^256 (aborts otherwise).
[[nodiscard]] EncProof prove_enc(Transcript& t, const EncStatement& st, const BigInt& x,
                                 const BigInt& alpha, const SecretScalar& r, const GeneratorSet& gens,
                                 Rng& rng);

// Checks everything; with a batch, the commitment equation is deferred to batch->holds().
[[nodiscard]] EncCheck verify_enc(Transcript& t, const EncStatement& st, const EncProof& pr,
                                  const GeneratorSet& gens, CommitmentBatch* batch, Rng& rng);

namespace detail {
// Tests and deliberate deviations only: runs the prover's algorithm with any witness x ≥ 0 and
// without the range check or restart (a cheater's best effort).
[[nodiscard]] EncProof prove_enc_unchecked(Transcript& t, const EncStatement& st, const BigInt& x,
                                           const BigInt& alpha, const SecretScalar& r,
                                           const GeneratorSet& gens, Rng& rng);
}  // namespace detail

}  // namespace gopa::sampling
