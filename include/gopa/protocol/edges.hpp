// gopa/protocol/edges.hpp — the protocol's communication graph and its pairwise noise.
//
//   Graph g = derive_graph(n, k, public_randomness);           // nobody picks its neighbours
//   auto box = seal_edge_seed(seed, sid, u, v, my_x25519, their_x25519_pk, rng);
//   auto seed = open_edge_seed(box, sid, u, v, my_x25519, their_x25519_pk);  // nullopt if forged
//   EdgeNoise z = derive_edge_noise(seed, sid, u, v, params);   // Δ_uv, blinding r_uv
//
// Orientation: for an edge {u, v} with u < v, Δ_uv = +z.delta and r_uv = +z.blind, and
// Δ_vu = −Δ_uv, r_vu = −r_uv, so the two vector commitments D_uv = Σ_j Δ_uv[j]·G_j + r_uv·H and
// D_vu add to the identity (DESIGN.md §1 step 2, §5): one point per edge, whatever d.
// docs/protocol.md gives the derivations byte by byte.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
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

// Chains of sessions (docs/protocol.md § Chains of sessions). Round t of a chain derives the
// edge's pairwise terms from its round key
//   key_t = SHA-256("gopa/edge-round-key/v1" ‖ base id ‖ LE32(lo) ‖ LE32(hi) ‖ LE32(t) ‖ seed),
// and the base commits to all of them at once: the seed commitment of a chain's edge is the
// RFC 6962 Merkle root of the leaves key_0 … key_{T−1} (leaf = SHA-256(0x00 ‖ key_t)). A
// recovery reveals key_t with its inclusion path: round t's terms become public, every other
// round's stay hidden (round keys are independent hash outputs).
inline constexpr std::size_t kMaxKeyPath = 16;  // ⌈log₂ kMaxChainRounds⌉
[[nodiscard]] Bytes32 edge_round_key(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi,
                                   std::uint32_t round);
[[nodiscard]] Bytes32 edge_key_root(const Seed32& seed, const Bytes32& base, std::uint32_t lo, std::uint32_t hi,
                                  std::uint32_t rounds);
// The inclusion path of key_round among the `rounds` leaves.
[[nodiscard]] std::vector<Bytes32> edge_key_path(const Seed32& seed, const Bytes32& base, std::uint32_t lo,
                                               std::uint32_t hi, std::uint32_t rounds, std::uint32_t round);
// Whether `key` with `path` is leaf `round` of the `rounds`-leaf tree whose root is `root`. (An
// RFC 6962 path does not bind the tree size: `rounds` must come from the session, never the prover.)
[[nodiscard]] bool edge_key_opens(const Bytes32& root, std::uint32_t rounds, std::uint32_t round, const Bytes32& key,
                                  std::span<const Bytes32> path);

// The pairwise noise of edge {lo, hi} (lo < hi), one value per coordinate, and the blinder of
// its vector commitment, in the lo → hi orientation.
struct EdgeNoise {
  std::vector<std::int64_t> delta;   // fixed-point Δ_lo,hi ~ N(0, σ_Δ²), |Δ| < 2^noise_bits
  SecretScalar blind;                // r_lo,hi, the blinder of the edge's vector commitment
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

// D = Σ_j Δ[j]·G_j + r·H in u's orientation on edge {u, w} (constant time in Δ and r): what u
// commits to for the edge. gens needs params.dim vector generators.
[[nodiscard]] Point edge_commitment(const EdgeNoise& z, std::uint32_t u, std::uint32_t w, const GeneratorSet& gens);
// The same from public data (a revealed seed), variable time.
[[nodiscard]] Point edge_commitment_public(const EdgeNoise& z, std::uint32_t u, std::uint32_t w,
                                           const GeneratorSet& gens);

}  // namespace gopa::protocol
