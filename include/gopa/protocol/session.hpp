// gopa/protocol/session.hpp — a GOPA session's public parameters, their canonical encoding, the
// session id, and the bounds that keep every sum inside Z_ℓ.
//
//   SessionParams p = SessionParams::defaults(/*parties=*/100, /*dim=*/1);
//   p.sigma_eta = 0.05; p.sigma_delta = 30.0;
//   if (auto why = p.validate()) { /* *why names the bad parameter */ }
//   Bytes32 sid = p.session_id();            // SHA-256("gopa/session/v1" ‖ encode())
//
// Fixed point (DESIGN.md §6): a real v is the integer round(v · 2^f); inputs are integers in
// [0, M] (input_max; the caller maps its domain onto that range) for the box, signed integers
// with Σ x_j² ≤ C² (C = input_max) for the L2 ball; noise terms are signed
// integers with |term| < 2^noise_bits. validate() checks that the sum over all parties of
// input + every pairwise term + own noise stays below ℓ/2 in absolute value, so the average
// decoded from Z_ℓ is exact.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gopa/group.hpp"

namespace gopa::protocol {

enum class SamplerKind : std::uint8_t {
  box_muller = 1,
  polar = 2,
  inverse_cdf = 3,
  clt = 4,
};
[[nodiscard]] const char* sampler_name(SamplerKind s) noexcept;
[[nodiscard]] std::optional<SamplerKind> sampler_from_name(std::string_view name) noexcept;

// Where the Gaussian noise of the average comes from (DESIGN.md §1).
enum class NoiseMode : std::uint8_t {
  private_samples = 1,  // every party samples its own η_u ~ N(0, σ_η²) and proves it
  hidden = 2,           // a committee computes one hidden η ~ N(0, σ_η²) per coordinate as shares
};
[[nodiscard]] const char* noise_mode_name(NoiseMode m) noexcept;

// The set every input vector is proven to lie in (docs/protocol.md § Input-domain proof).
enum class InputDomain : std::uint8_t {
  box = 1,      // every coordinate in [0, M]
  l2_ball = 2,  // ‖x‖₂ ≤ M (fixed point; coordinates signed)
};
[[nodiscard]] const char* input_domain_name(InputDomain d) noexcept;

struct SessionParams {
  // 3: the input domain's upper end M; 4: the domain's kind, the minimum round time and the
  // randomness restarts.
  static constexpr std::uint8_t kVersion = 5;
  static constexpr std::size_t kEncodedBytes = 72;
  // A session of a chain (chain_rounds ≥ 2) is encoded as version 6: the 72 bytes of version 5
  // (with the version byte 6), then chain_rounds, chain_index (u32 BE each) and chain_base.
  static constexpr std::uint8_t kChainVersion = 6;
  static constexpr std::size_t kChainEncodedBytes = kEncodedBytes + 4 + 4 + 32;
  static constexpr std::uint32_t kMaxChainRounds = 65'536;
  // At most this many restarts of the joint randomness (docs/protocol.md § Joint randomness).
  static constexpr std::uint8_t kMaxRandomnessRestarts = 8;
  // The roster travels in chunks of 1,000 keys (messages.hpp), so n is bounded by the cost of a
  // session rather than by the size of a board entry; the result's bitmap takes ⌈n/8⌉ bytes.
  static constexpr std::uint32_t kMaxParties = 100'000;
  static constexpr std::uint32_t kMaxDim = 131'072;

  std::uint32_t parties = 0;          // n ≥ 2
  std::uint32_t dim = 1;              // d ≥ 1 coordinates per input
  std::uint8_t frac_bits = 16;        // f: fixed-point fractional bits
  std::uint8_t input_bits = 32;       // bits of the range proofs of the input domain: 8/16/32/64
  // M, the input domain's size in fixed point. Box: every coordinate of every input lies in
  // [0, M] (proven: x_j and M − x_j in [0, 2^input_bits)); 1 ≤ M < 2^input_bits; the L2
  // sensitivity is M·√d. L2 ball: M is the radius C, every input is a signed vector with
  // ‖x‖₂ ≤ C (proven: x_j + C ∈ [0, 2^input_bits), C² − Σ x_j² ∈ [0, 2^(2·input_bits)));
  // 1 ≤ C < 2^(input_bits − 1), d ≤ 1024; the L2 sensitivity is 2C.
  std::uint64_t input_max = std::uint64_t{1} << 16;
  std::uint8_t noise_bits = 48;       // |Δ|, |η| < 2^noise_bits (fixed-point integers)
  std::uint32_t neighbors = 0;        // k of the k-out graph, 1 ≤ k < n
  double sigma_eta = 0.0;             // σ_η (real units, > 0)
  double sigma_delta = 0.0;           // σ_Δ (real units, > 0)
  SamplerKind sampler = SamplerKind::box_muller;
  std::uint8_t sampler_precision = 16;  // fractional bits of the sampler's output
  // Hidden noise: σ_η is then the σ of the one hidden sample per coordinate, the sampler is
  // Box–Muller at sampler_precision ∈ [8, 24] bits, `committee` parties (2..32, at most n)
  // compute it with Paillier moduli of paillier_bits (even, 674..4096; 2048 or more for security).
  // Private noise: committee = 0 and paillier_bits = 0.
  NoiseMode noise = NoiseMode::private_samples;
  std::uint8_t committee = 0;
  std::uint16_t paillier_bits = 0;
  std::uint32_t round_timeout_ms = 60'000;
  InputDomain input_domain = InputDomain::box;
  // Parties refuse a round closed sooner than this after the previous close while some party
  // that finished the previous round is missing from it (1 ≤ min_round_ms ≤ round_timeout_ms).
  std::uint32_t min_round_ms = 5'000;
  // The joint randomness restarts when a party withholds its reveal, at most this many times
  // (then the session ends without a result); every restart multiplies the probability of a bad
  // graph or committee the adversary can pick by at most one more candidate (docs/privacy.md).
  std::uint8_t randomness_restarts = 3;
  std::array<std::uint8_t, 16> nonce{};  // makes two sessions with equal parameters distinct
  // A chain of sessions over one graph and one exchange of sealed pairwise seeds (docs/protocol.md
  // § Chains of sessions): the base (chain_index 0, chain_base zero) draws the graph and exchanges
  // the seeds for chain_rounds rounds; session t ≥ 1 names the base's id and skips rounds 4–5.
  // Round t's pairwise terms come from the edge's round key t, committed with all others in the
  // base, so revealing one round's key exposes no other round. chain_rounds = 1: no chain.
  std::uint32_t chain_rounds = 1;
  std::uint32_t chain_index = 0;
  Bytes32 chain_base{};

  [[nodiscard]] bool chained() const { return chain_rounds > 1; }
  [[nodiscard]] bool linked() const { return chain_index > 0; }  // a chain session after its base
  [[nodiscard]] std::size_t encoded_size() const { return chained() ? kChainEncodedBytes : kEncodedBytes; }

  [[nodiscard]] static SessionParams defaults(std::uint32_t parties, std::uint32_t dim);

  // nullopt when valid, otherwise a message naming the parameter and what is wrong with it.
  [[nodiscard]] std::optional<std::string> validate() const;

  // Canonical encoding (docs/protocol.md): version, then every field big-endian; σ's as IEEE-754
  // binary64 bit patterns, which must be finite and positive.
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  // Strict decoding: exact length, known version and sampler, and validate() must pass.
  [[nodiscard]] static std::optional<SessionParams> decode(std::span<const std::uint8_t> bytes,
                                                           std::string* why = nullptr);
  [[nodiscard]] Bytes32 session_id() const;

  // Fixed-point helpers.
  [[nodiscard]] std::int64_t to_fixed(double v) const;   // round(v · 2^f); aborts if |v·2^f| ≥ 2^62
  [[nodiscard]] double from_fixed(std::int64_t v) const;  // v / 2^f
  // M in real units (M / 2^f), and M for a real upper end or radius (⌊m · 2^f⌋: the proven domain
  // is never larger than the one asked for); nullopt if m · 2^f is not in [1, 2^input_bits)
  // (box) or [1, 2^(input_bits − 1)) (ball).
  [[nodiscard]] double input_max_real() const { return from_fixed(static_cast<std::int64_t>(input_max)); }
  [[nodiscard]] std::optional<std::uint64_t> fixed_input_max(double m) const;
  // Box: a real input coordinate as a fixed-point integer in [0, M]: x·2^f rounded, for
  // 0 ≤ x·2^f < M + 1 (values above M by less than one grid unit, as when the upper end asked
  // for was not on the grid, are clamped to M); nullopt otherwise.
  [[nodiscard]] std::optional<std::uint64_t> fixed_input(double x) const;
  // L2 ball: a real input vector as signed fixed-point integers v with Σ v_j² ≤ C²: every x_j·2^f
  // rounded, for ‖x‖₂·2^f < C + 1 (a vector on a radius that was not on the grid is scaled
  // onto the ball C and rounded towards zero); nullopt otherwise (wrong length, not finite,
  // outside).
  [[nodiscard]] std::optional<std::vector<std::int64_t>> fixed_ball_input(std::span<const double> x) const;
  // Whether fixed-point integers lie in the ball: Σ v_j² ≤ C², exactly (no overflow).
  [[nodiscard]] bool in_ball(std::span<const std::int64_t> v) const;
  // The L2 sensitivity of one party's whole input under replace-one (docs/privacy.md §1.1), in
  // real units: M·√d for the box, 2C for the ball; and of one coordinate alone (M, or 2C).
  [[nodiscard]] double input_sensitivity() const;
  [[nodiscard]] double coordinate_sensitivity() const;
  // The bound validate() enforces: n · (2^input_bits + (2k+1) · 2^noise_bits) < ℓ/2, where 2k
  // bounds a party's degree in expectation; the exact per-party degree is checked at run time.
  [[nodiscard]] bool sums_fit(std::uint32_t max_degree) const;

  bool operator==(const SessionParams&) const = default;
};

// Z_ℓ embedding of signed 64-bit fixed-point integers (negatives as ℓ − |v|) and back.
[[nodiscard]] Scalar scalar_from_signed(std::int64_t v) noexcept;
// Decodes a scalar known to lie in (−ℓ/2, ℓ/2) back to a signed integer; nullopt if it does
// not fit in 127 bits (which the session bounds rule out for honest data).
__extension__ typedef __int128 int128_t;
[[nodiscard]] std::optional<int128_t> signed_from_scalar(const Scalar& s) noexcept;

}  // namespace gopa::protocol
