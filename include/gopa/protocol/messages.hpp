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
#include "gopa/sampling/log.hpp"

namespace gopa::protocol {

inline constexpr std::uint8_t kMessageVersion = 0x01;

// The rounds of a session: the `round` field of its board entries. docs/protocol.md § Rounds and
// messages numbers them the same way. The training manifest of gopa train sits in round 0.
// Complaints have rounds of their own (5, 7), so the coordinator closes them separately; randomness
// restart a ≥ 1 commits in round kRoundRestart1 + 2(a − 1) and reveals in the round after
// (at most SessionParams::kMaxRandomnessRestarts restarts).
enum Round : std::uint32_t {
  kRoundTraining = 0,
  kRoundSetup = 1,             // parameters and roster (coordinator)
  kRoundSeedCommit = 2,        // commitments to randomness shares and noise seeds
  kRoundSeedReveal = 3,        // randomness shares: the joint randomness y
  kRoundEdgeSeed = 4,          // sealed pairwise seeds, lo → hi
  kRoundBoxComplaint = 5,      // a sealed seed that does not open (from hi)
  kRoundCommit = 6,            // commitments with the input-domain and noise proofs
  kRoundCancelComplaint = 7,   // seed reveals of edges whose terms do not cancel
  kRoundMasked = 8,            // masked values X̂ with the output proofs
  kRoundRecovery = 9,          // seed reveals of edges to excluded parties; noise shares opened
  kRoundResult = 10,           // the result (coordinator)
  kRoundCommittee = 11,        // the hidden-noise committee's log (between rounds 3 and 4)
  kRoundRestart1 = 12,         // the first randomness restart's commitments (13: its reveals)
};
// "setup", "noise-seed commitments", …, "restart 2 reveals"; "round N" for a number no round has.
[[nodiscard]] std::string round_name(std::uint32_t round);
using Bytes = std::vector<std::uint8_t>;
using Key32 = std::array<std::uint8_t, 32>;

struct RosterEntry {
  Key32 sign_key{};  // Ed25519 public key: signs the party's board entries
  Key32 box_key{};   // X25519 public key: receives pairwise seeds
  bool operator==(const RosterEntry&) const = default;
};

// Round 1, by the coordinator: the parameters and the roster. A board entry holds at most
// 65,355 payload bytes, so the roster travels in chunks of at most kRosterChunk keys: the
// session_setup entry carries the parameters, the roster's digest and its first chunk; party_key
// entries carry the rest, in order. The setup is complete once the chunks hold params.parties
// keys that hash to the digest (docs/protocol.md §Messages).
inline constexpr std::uint32_t kRosterChunk = 1000;

// SHA-256("gopa/roster/v1" ‖ u32 n ‖ sign_key_0 ‖ box_key_0 ‖ …): binds the whole roster into
// the setup entry.
[[nodiscard]] Key32 roster_digest(std::span<const RosterEntry> roster);
// The first entry whose signing or box key an earlier entry already has; nullopt when every key
// is distinct (a reader refuses a setup otherwise, and the coordinator posts none).
[[nodiscard]] std::optional<std::size_t> roster_repeat(std::span<const RosterEntry> roster);

// ---- Chunked messages (docs/protocol.md § Chunked messages).
// A message longer than one board entry (kMaxInlinePayload bytes) travels as count ≥ 2 entries
// of the same type and round, each with the payload
//   kChunkVersion ‖ index (u32) ‖ count (u32) ‖ length (u32) ‖ digest (32) ‖ data,
// data = message[index·kChunkData, min((index + 1)·kChunkData, length)), count = ⌈length /
// kChunkData⌉, digest = SHA-256("gopa/chunked/v1" ‖ LE32(length) ‖ message). Readers put the
// chunks of one (sender, type, round) together by index, whatever their order on the board, and
// read the message once the last one arrives; two chunk sets, or two chunks of one index, that
// differ make the sender's message malformed.
inline constexpr std::uint8_t kChunkVersion = 0x02;
inline constexpr std::size_t kChunkData = 65'000;
inline constexpr std::size_t kChunkHeader = 1 + 4 + 4 + 4 + 32;
inline constexpr std::uint32_t kMaxChunks = 4096;  // messages up to 266 MB

struct ChunkHeader {
  std::uint32_t index = 0, count = 0, length = 0;
  Key32 digest{};
  bool operator==(const ChunkHeader&) const = default;
};
// The payloads that carry `message`: itself when it fits one entry, its chunks otherwise.
[[nodiscard]] std::vector<Bytes> chunk_payloads(Bytes message);
// Whether a payload is a chunk (its first byte), and its header and data when well formed
// (nullopt and *why otherwise: sizes inconsistent with the index, count and length).
[[nodiscard]] inline bool is_chunk(std::span<const std::uint8_t> payload) {
  return !payload.empty() && payload[0] == kChunkVersion;
}
[[nodiscard]] std::optional<ChunkHeader> decode_chunk(std::span<const std::uint8_t> payload, std::string* why = nullptr);

// Puts one sender's chunks of one (type, round) together.
class ChunkAssembler {
 public:
  enum class Status { pending, complete, bad, ignored };
  // Adds a chunk payload. complete: message() holds the message (once); bad: *why says what is
  // wrong (then every later chunk is ignored); ignored: after complete or bad, or a repeat.
  Status add(std::span<const std::uint8_t> payload, std::string* why);
  [[nodiscard]] Bytes take_message() { return std::move(message_); }

 private:
  std::optional<ChunkHeader> header_;
  std::vector<std::optional<Bytes>> parts_;
  std::size_t have_ = 0;
  bool done_ = false;
  Bytes message_;
};

// The session_setup entry.
struct SetupHead {
  SessionParams params;
  Key32 digest{};                    // roster_digest() of the whole roster
  std::vector<RosterEntry> first;    // roster[0, first.size()), 1..kRosterChunk keys
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SetupHead> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// A party_key entry: roster[first, first + keys.size()).
struct RosterChunk {
  std::uint32_t first = 0;
  std::vector<RosterEntry> keys;  // 1..kRosterChunk
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<RosterChunk> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// The whole setup: parameters and roster.
struct SetupMessage {
  SessionParams params;
  std::vector<RosterEntry> roster;  // exactly params.parties entries, distinct keys
  // The payloads to post, in order: one session_setup entry, then ⌈n / kRosterChunk⌉ − 1
  // party_key entries.
  [[nodiscard]] std::vector<Bytes> encode_entries() const;
  // Rebuilds the setup from its head and the chunks that follow it on the board (in board
  // order). nullopt while the roster is incomplete (and *why empty), or when the chunks do not
  // continue one another, repeat a key or do not hash to the head's digest (*why says which).
  [[nodiscard]] static std::optional<SetupMessage> assemble(const SetupHead& head, std::span<const RosterChunk> chunks,
                                                            std::string* why = nullptr);
};

// Round 2 (noise_seed_commit): commitment to the party's share of the joint public randomness,
// and Pedersen commitments to the private parts x_i of its noise seeds (noise_seed_count(params)
// of them: the sampler's seeds per call times its calls for d samples, protocol/noise.hpp).
struct SeedCommitMessage {
  // SHA-256("gopa/randomness/v2" ‖ session id ‖ LE32(attempt) ‖ LE32(index) ‖ share); attempts
  // after the first (restarts) carry no noise-seed commitments.
  Key32 randomness_commitment{};
  std::vector<Point> seed_commitments;  // noise_seed_count(params) points
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SeedCommitMessage> decode(std::span<const std::uint8_t> in,
                                                               std::size_t seeds, std::string* why = nullptr);
};
[[nodiscard]] Key32 randomness_commitment(const Bytes32& session_id, std::uint32_t attempt, std::uint32_t index,
                                          const Key32& share);

// Round 3 (noise_seed_reveal): the party's share of the joint randomness.
struct SeedRevealMessage {
  Key32 share{};
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<SeedRevealMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 4 (edge_seed): the sealed pairwise seed of edge {lo, hi}, sent by lo to hi, with lo's
// binding commitment to the seed (edge_seed_commitment), which settles disputes (round 7).
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
// - bad_box (round 5, by hi): the sealed seed does not open, or not to the committed seed; the
//   edge is then left out by both ends (no pairwise term), and nobody is blamed for it.
// - seed_reveal (round 7, by either end): the edge's terms do not cancel; the seed is revealed
//   so that anyone can tell which end's commitments do not follow from it.
// - key_reveal (a chain's session, rounds 7 and 9): as seed_reveal, with the edge's round key of
//   this session and its inclusion path under the root the base committed to (edges.hpp), in
//   place of the seed: the other rounds of the chain stay hidden.
enum class ComplaintKind : std::uint8_t { bad_box = 1, seed_reveal = 2, key_reveal = 3 };
struct ComplaintMessage {
  ComplaintKind kind = ComplaintKind::bad_box;
  std::uint32_t lo = 0, hi = 0;
  std::array<std::uint8_t, 32> seed{};  // the seed, or the round key; zero for bad_box
  std::vector<Key32> path;              // key_reveal: ‖path‖ ≤ 16 (u8 count, then the hashes)
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<ComplaintMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Round 6 (commitment): commitments to the input, one vector commitment per pairwise term
// (neighbours in increasing order, D_uv = Σ_j Δ_uv[j]·G_j + r_uv·H), to the own noise samples,
// the input-domain proof, and the proof that the noise samples are the sampler's output on the
// committed seeds.
struct CommitMessage {
  std::vector<Point> inputs;             // d
  std::vector<std::uint32_t> neighbours; // sorted, distinct
  std::vector<Point> edge_terms;         // neighbours.size(): D_uv of each neighbour
  std::vector<Point> noise;              // d: η_j·G + r_j·H at the sampler's precision
  // Input-domain proof: box, ⌈d/512⌉ sigma::RangeProof encodings one after the other; L2 ball, a
  // sigma::BallProof (d ≤ 1,024) or sigma::BlockedBallProof encoding.
  Bytes domain_proof;
  Bytes noise_proof;                     // circuits::GaussianBlocks encoding (circuits::prove_gaussian)
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<CommitMessage> decode(std::span<const std::uint8_t> in,
                                                           std::uint32_t dim, std::uint32_t parties,
                                                           std::string* why = nullptr);
};

// Round 8 (masked_value): X̂ and the output-correctness proof.
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

// Hidden noise, round 11 (entry type committee), posted between rounds 3 and 4 by a committee
// member: one message of the public log (sampling/log.hpp) of attempt `attempt` of Box–Muller
// call `call`. message.member is the sender's party index.
struct CommitteeMessage {
  std::uint32_t call = 0, attempt = 0;
  sampling::HiddenMessage message;
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<CommitteeMessage> decode(std::span<const std::uint8_t> in, std::string* why = nullptr);
};

// Hidden noise, round 9 (entry type noise_share): a committee member that is not counted opens its
// noise shares (at the sampler's precision) so that the sum still carries η exactly once; the
// other members' shares stay folded into their X̂, so η stays hidden.
struct NoiseShareMessage {
  std::vector<Scalar> shares, blinders;  // d each: share and blinder of coordinate j
  [[nodiscard]] Bytes encode() const;
  [[nodiscard]] static std::optional<NoiseShareMessage> decode(std::span<const std::uint8_t> in, std::uint32_t dim,
                                                               std::string* why = nullptr);
};

// Round 7 (result), by the coordinator: who counted and the released average. The counted set
// travels as a bitmap of ⌈n/8⌉ bytes (bit u of byte u/8, least significant first).
struct ResultMessage {
  std::vector<std::uint32_t> counted;   // parties whose contribution is in the sum, sorted
  std::vector<Scalar> sum;              // Σ X̂_u over counted parties, d scalars
  // parties: the session's n (sets the bitmap's length; every counted index must be below it).
  [[nodiscard]] Bytes encode(std::uint32_t parties) const;
  [[nodiscard]] static std::optional<ResultMessage> decode(std::span<const std::uint8_t> in,
                                                           std::uint32_t dim, std::uint32_t parties,
                                                           std::string* why = nullptr);
};

}  // namespace gopa::protocol
