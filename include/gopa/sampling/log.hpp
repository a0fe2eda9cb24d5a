// gopa/sampling/log.hpp — the public log of one attempt of the hidden-sample committee: every
// message a member publishes, byte for byte, in the order the protocol produces them
// (docs/sampling.md, "Public log").
//
//   Attempt a = hidden_box_muller_attempt(p, members, {}, rng);
//   std::vector<std::uint8_t> bytes = encode_hidden_log(a.log);   // e.g. to store or send
//   auto log = decode_hidden_log(bytes);                           // nullopt if malformed
//   HiddenVerdict v = verify_hidden_log(p, members, *log);          // gopa/sampling.hpp
//
// A message is framed as version ‖ member ‖ kind ‖ seq ‖ length ‖ payload (little-endian
// integers). The frame is checked here; the payload layouts depend on the parameters and are
// checked by verify_hidden_log. Every payload is at most kMaxHiddenPayload bytes, so that each
// message fits in one bulletin-board entry with its headers.
// Decoding is strict (exact lengths, known version and kinds) and never aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gopa::sampling {

inline constexpr std::uint8_t kHiddenLogVersion = 2;
inline constexpr std::size_t kMaxHiddenPayload = 60'000;
inline constexpr std::size_t kHiddenHeaderBytes = 14;  // version, member, kind, seq, length

// What a message carries (docs/sampling.md, "Public log", has each layout).
enum class HiddenKind : std::uint8_t {
  kPaillierKey = 1,       // the member's Paillier key (N, h), ring-Pedersen s, t, Π_mod, Π_prm (list)
  kTripleShares = 2,      // one group of packed triples: commitments, Enc_i(a_i) and proofs
  kTripleReplies = 3,     // one group: the member's replies Enc_i(a_i·b_j + r_ij) to every i
  kTripleProducts = 4,    // commitments to the member's product shares c_i (list)
  kSacrificeOpening = 5,  // shares and blinders of sacrifice values (list)
  kTripleReveal = 6,      // one group's generation randomness, after a failed sacrifice
  kMasks = 7,             // truncation mask commitments and their range proof
  kBitShares = 8,         // commitments to the member's shares of the random-bit values u (list)
  kMulOpening = 9,        // shares and blinders of d = x − a, e = y − b (list)
  kBitOpening = 10,       // shares and blinders of u² (list)
  kTruncOpening = 11,     // share and blinder of a truncation's masked value (list)
  kKeyFactors = 12,       // the member's Π_fac to every other member (list)
};
inline constexpr std::uint8_t kHiddenKindMax = 12;
[[nodiscard]] const char* hidden_kind_name(HiddenKind k) noexcept;

struct HiddenMessage {
  std::uint32_t member = 0;  // the sender's original index
  HiddenKind kind = HiddenKind::kPaillierKey;
  std::uint32_t seq = 0;     // the sender's own message counter in this attempt, from 0
  std::vector<std::uint8_t> payload;

  // version (u8) ‖ member (u32) ‖ kind (u8) ‖ seq (u32) ‖ length (u32) ‖ payload.
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  [[nodiscard]] std::size_t encoded_size() const noexcept {
    return kHiddenHeaderBytes + payload.size();
  }
  // Strict: exactly one message, known version and kind, length ≤ kMaxHiddenPayload.
  [[nodiscard]] static std::optional<HiddenMessage> decode(std::span<const std::uint8_t> in);
  bool operator==(const HiddenMessage&) const = default;
};

// A whole log: the messages' encodings one after another.
[[nodiscard]] std::vector<std::uint8_t> encode_hidden_log(std::span<const HiddenMessage> log);
// Strict: nullopt unless the bytes are a sequence of valid messages with nothing left over.
[[nodiscard]] std::optional<std::vector<HiddenMessage>> decode_hidden_log(
    std::span<const std::uint8_t> in);

}  // namespace gopa::sampling
