// gopa/transcript.hpp — Fiat–Shamir transcripts.
//
//   gopa::Transcript t("gopa/example v1");        // the caller names the application
//   t.domain_separator("rangeproof v1");           // each sub-protocol: versioned separator …
//   t.append_u64("bits", 64);                      // … followed by its size parameters
//   t.append_point("C", commitment);
//   gopa::Scalar c = t.challenge_scalar("c");
//
// Construction (docs/transcript.md has the byte layout): a running BLAKE2b-512 state over
// framed operations. Every append is framed as op ‖ len(label) ‖ label ‖ len(data) ‖ data, so no
// two different sequences of appends hash the same; a challenge hashes a clone of the state
// with its own op code and then ratchets the output back into the state, so every later
// challenge depends on every earlier one. Challenge scalars are 64 bytes reduced mod ℓ; a zero
// challenge is rejected and re-derived (probability 2^-252, but proofs must never use c = 0).
//
// Security notes
// - Non-copyable: an accidental copy would let two proofs share a transcript state. Use clone()
//   where a fork is intended (e.g. a verifier trying alternatives), so it is visible in review.
// - Bind the whole statement (parameters, generator-set id, circuit hash, public inputs, all
//   commitments) before the first challenge.
#pragma once

#include <sodium.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "gopa/group.hpp"
#include "gopa/random.hpp"

namespace gopa {

class Transcript {
 public:
  explicit Transcript(std::string_view application_label);
  ~Transcript();
  Transcript(Transcript&&) noexcept;
  Transcript& operator=(Transcript&&) noexcept;
  Transcript(const Transcript&) = delete;
  Transcript& operator=(const Transcript&) = delete;
  [[nodiscard]] Transcript clone() const;

  // Starts a sub-protocol: a versioned name such as "gopa/range v1".
  void domain_separator(std::string_view protocol);
  void append_message(std::string_view label, std::span<const std::uint8_t> data);
  void append_message(std::string_view label, std::string_view data);
  void append_u64(std::string_view label, std::uint64_t v);
  void append_scalar(std::string_view label, const Scalar& s);
  void append_point(std::string_view label, const Point& p);
  // Appends the count, then each element (one frame for the whole list).
  void append_scalars(std::string_view label, std::span<const Scalar> s);
  void append_points(std::string_view label, std::span<const Point> ps);

  // Challenge bytes of any length (≤ 2^16), bound to everything appended so far.
  void challenge_bytes(std::string_view label, std::span<std::uint8_t> out);
  // A uniformly random non-zero scalar: 64 challenge bytes reduced mod ℓ.
  [[nodiscard]] Scalar challenge_scalar(std::string_view label);
  // The reduction used by challenge_scalar: nullopt when 64 bytes reduce to zero.
  [[nodiscard]] static std::optional<Scalar> challenge_from_wide(std::span<const std::uint8_t, 64> wide);

  // Prover randomness bound to the transcript, the witness, and fresh external randomness
  // (Merlin's transcript RNG idea): a weak external RNG alone cannot leak the witness through
  // repeated nonces, and a deterministic test RNG still gives reproducible proofs.
  class ProverRng;
  [[nodiscard]] ProverRng prover_rng(std::span<const SecretScalar* const> witness, Rng& external) const;

 private:
  void frame(std::uint8_t op, std::string_view label, std::span<const std::uint8_t> data);
  void frame_header(std::uint8_t op, std::string_view label, std::uint64_t data_len);
  crypto_generichash_blake2b_state state_;
};

class Transcript::ProverRng final : public Rng {
 public:
  ~ProverRng() override;
  ProverRng(ProverRng&&) noexcept;
  ProverRng& operator=(ProverRng&&) = delete;
  ProverRng(const ProverRng&) = delete;
  ProverRng& operator=(const ProverRng&) = delete;
  void fill(std::span<std::uint8_t> out) override;

 private:
  friend class Transcript;
  ProverRng() = default;
  std::array<std::uint8_t, 32> key_{};
  std::uint64_t counter_ = 0;
};

}  // namespace gopa
