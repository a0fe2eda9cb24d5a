// gopa/protocol/messages.hpp — payloads of GOPA's board entries, with strict canonical decoding.
//
// Every payload starts with a version byte (kMessageVersion) and has a fixed layout given the
// session parameters (docs/protocol.md §Messages). decode_*() never abort: they return nullopt
// and, when asked, say which check failed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/protocol/output.hpp"
#include "gopa/protocol/session.hpp"

namespace gopa::protocol {

inline constexpr std::uint8_t kMessageVersion = 0x01;
using Bytes = std::vector<std::uint8_t>;
using Key32 = std::array<std::uint8_t, 32>;

struct RosterEntry {
  Key32 sign_key{};  // Ed25519 public key: signs the party's board entries
  Key32 box_key{};   // X25519 public key: receives pairwise seeds
  bool operator==(const RosterEntry&) const = default;
};

// Round 1 (session_setup), by the coordinator.
struct SetupMessage {
  SessionParams params;
  std::vector<RosterEntry> roster;  // exactly params.parties entries, distinct keys
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SetupMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 2 (noise_seed_commit): commitment to the party's share of the joint public randomness,
// and Pedersen commitments to the private parts x_i of its noise seeds (noise_seed_count(params)
// of them: the sampler's seeds per call times its calls for d samples, protocol/noise.hpp).
struct SeedCommitMessage {
  Key32 randomness_commitment{};  // SHA-256("gopa/randomness/v1" ‖ session id ‖ LE32(index) ‖ share)
  std::vector<Point> seed_commitments;  // noise_seed_count(params) points
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SeedCommitMessage> decode(std::span<const std::uint8_t> in,
                                                               std::size_t seeds, std::string* why = nullptr);
};
[[nodiscard]] Key32 randomness_commitment(const Bytes32& session_id, std::uint32_t index, const Key32& share);

// Round 3 (noise_seed_reveal): the party's share of the joint randomness.
struct SeedRevealMessage {
  Key32 share{};
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SeedRevealMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 4 (edge_seed): the sealed pairwise seed of edge {lo, hi}, sent by lo to hi, with lo's
// binding commitment to the seed (edge_seed_commitment), which settles disputes (round 5b).
struct EdgeSeedMessage {
  std::uint32_t lo = 0, hi = 0;
  Key32 seed_commitment{};
  Bytes sealed;  // kSealedSeedSize bytes (edges.hpp)
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<EdgeSeedMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

[[nodiscard]] Key32 edge_seed_commitment(const Bytes32& session_id, std::uint32_t lo, std::uint32_t hi,
                                         const std::array<std::uint8_t, 32>& seed);

// Complaints about an edge {lo, hi} (entry type complaint):
// - bad_box (round 4b, by hi): the sealed seed does not open, or not to the committed seed; the
//   edge is then left out by both ends (no pairwise term), and nobody is blamed for it.
// - seed_reveal (round 5b, by either end): the edge's terms do not cancel; the seed is revealed
//   so that anyone can tell which end's commitments do not follow from it.
enum class ComplaintKind : std::uint8_t { bad_box = 1, seed_reveal = 2 };
struct ComplaintMessage {
  ComplaintKind kind = ComplaintKind::bad_box;
  std::uint32_t lo = 0, hi = 0;
  std::array<std::uint8_t, 32> seed{};  // seed_reveal only; zero for bad_box
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<ComplaintMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 5 (commitment): commitments to the input, to every pairwise term (neighbours in
// increasing order, d points each), to the own noise samples, the input range proof, and the
// proof that the noise samples are the sampler's output on the committed seeds.
struct CommitMessage {
  std::vector<Point> inputs;             // d
  std::vector<std::uint32_t> neighbours; // sorted, distinct
  std::vector<Point> edge_terms;         // neighbours.size() · d, neighbour-major
  std::vector<Point> noise;              // d: η_j·G + r_j·H at the sampler's precision
  Bytes range_proof;                     // gopa::sigma::RangeProof encoding
  Bytes noise_proof;                     // gopa::sigma::CircuitProof encoding (circuits::prove_gaussian)
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<CommitMessage> decode(std::span<const std::uint8_t> in,
                                                           std::uint32_t dim, std::uint32_t parties,
                                                           std::string* why = nullptr);
};

// Round 6 (masked_value): X̂ and the output-correctness proof.
struct MaskedMessage {
  std::vector<Scalar> xhat;  // d
  OutputProof proof;
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<MaskedMessage> decode(std::span<const std::uint8_t> in,
                                                           std::uint32_t dim, std::string* why = nullptr);
};

// Round marker (entry type round_cosignature): a party has finished `round`; from the
// coordinator, the round is closed (later entries of that round are ignored).
struct RoundMarker {
  std::uint32_t round = 0;
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<RoundMarker> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 7 (result), by the coordinator: who counted and the released average.
struct ResultMessage {
  std::vector<std::uint32_t> counted;   // parties whose contribution is in the sum, sorted
  std::vector<Scalar> sum;              // Σ X̂_u over counted parties, d scalars
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<ResultMessage> decode(std::span<const std::uint8_t> in,
                                                           std::uint32_t dim, std::uint32_t parties,
                                                           std::string* why = nullptr);
};

}  // namespace gopa::protocol
