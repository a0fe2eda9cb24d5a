// gopa/protocol/edges.hpp — the protocol's communication graph and its pairwise noise.
//
//   Graph g = derive_graph(n, k, public_randomness);           // nobody picks its neighbours
//   auto box = seal_edge_seed(seed, sid, u, v, my_x25519, their_x25519_pk, rng);
//   auto seed = open_edge_seed(box, sid, u, v, my_x25519, their_x25519_pk);  // nullopt if forged
//   EdgeNoise z = derive_edge_noise(seed, sid, u, v, params);   // Δ_uv, blinding r_uv
//
// Orientation: for an edge {u, v} with u < v, Δ_uv = +z.delta and r_uv = +z.blind, and
// Δ_vu = −Δ_uv, r_vu = −r_uv, so the two commitments C_uv + C_vu are the identity (DESIGN.md §1
// step 2, §5). docs/protocol.md gives the derivations byte by byte.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/protocol/graph.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::protocol {

using Seed32 = std::array<std::uint8_t, 32>;

// k-out graph on n parties from 32 bytes of public randomness (fixed after the roster): party u
// picks k distinct others with a ChaCha20 stream keyed by SHA-256("gopa/graph/v1" ‖ randomness ‖
// LE32(n) ‖ LE32(k)); pairs chosen twice become one edge.
[[nodiscard]] Graph derive_graph(std::uint32_t n, std::uint32_t k, std::span<const std::uint8_t, 32> randomness);

// An X25519 key pair for the pairwise seed transport. The secret key is wiped on destruction.
class BoxKey {
 public:
  static BoxKey generate();
  static BoxKey from_seed(std::span<const std::uint8_t, 32> seed);
  ~BoxKey();
  BoxKey(BoxKey&&) noexcept;
  BoxKey& operator=(BoxKey&&) noexcept;
  BoxKey(const BoxKey&) = delete;
  BoxKey& operator=(const BoxKey&) = delete;
  [[nodiscard]] const std::array<std::uint8_t, 32>& public_key() const noexcept { return pk_; }
  [[nodiscard]] const std::uint8_t* secret_key() const noexcept { return sk_.data(); }

 private:
  BoxKey() = default;
  std::array<std::uint8_t, 32> pk_{}, sk_{};
};

// crypto_box (X25519 + XSalsa20-Poly1305) of the seed, with the session id and the edge inside
// the authenticated plaintext so a box cannot be replayed on another edge or session.
// Output: nonce (24) ‖ box (16 + 32 + 8 + 32 = 88 bytes).
inline constexpr std::size_t kSealedSeedSize = 24 + 16 + 32 + 8 + 32;
[[nodiscard]] std::vector<std::uint8_t> seal_edge_seed(const Seed32& seed, const Bytes32& session_id,
                                                       std::uint32_t from, std::uint32_t to,
                                                       const BoxKey& sender,
                                                       const std::array<std::uint8_t, 32>& recipient_pk,
                                                       Rng& rng);
[[nodiscard]] std::optional<Seed32> open_edge_seed(std::span<const std::uint8_t> sealed,
                                                   const Bytes32& session_id, std::uint32_t from,
                                                   std::uint32_t to, const BoxKey& recipient,
                                                   const std::array<std::uint8_t, 32>& sender_pk);

// The pairwise noise of edge {lo, hi} (lo < hi), one value per coordinate, in the lo → hi
// orientation.
struct EdgeNoise {
  std::vector<std::int64_t> delta;   // fixed-point Δ_lo,hi ~ N(0, σ_Δ²), |Δ| < 2^noise_bits
  std::vector<SecretScalar> blind;   // r_lo,hi
  EdgeNoise() = default;
  EdgeNoise(EdgeNoise&&) noexcept = default;
  EdgeNoise& operator=(EdgeNoise&&) noexcept = default;
  EdgeNoise(const EdgeNoise&) = delete;
  EdgeNoise& operator=(const EdgeNoise&) = delete;
  ~EdgeNoise();
};
[[nodiscard]] EdgeNoise derive_edge_noise(const Seed32& seed, const Bytes32& session_id,
                                          std::uint32_t lo, std::uint32_t hi,
                                          const SessionParams& params);

}  // namespace gopa::protocol
