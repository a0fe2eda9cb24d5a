// gopa/bulletin/entry.hpp — the board's entry: a canonical, Ed25519-signed binary record.
//
//   Entry e;  e.session_id = ...; e.round = 1; e.type = MessageType::commitment; ...
//   Bytes wire = sign_entry(e, sender_key);     // sets e.sender, returns the signed encoding
//   Result<Entry> back = decode_entry(wire);    // strict: canonical + signature verified
//
// Layout (docs/board.md §1), all integers big-endian:
//   version(1)=0x01 | session_id(32) | round(4) | type(2) | sender(32) | recipient(32)
//   | sequence(8) | payload_kind(1) | payload_len(4) | payload(payload_len) | signature(64)
// The signature is Ed25519 by `sender` over "gopa/board/entry/v1\n" || every byte before it.
// An entry is at most 65,535 bytes, since C2SP tlog-tiles entry bundles frame entries with a
// uint16 length; larger payloads are stored as blobs and referenced by hash (payload_kind 1).
// decode(encode(e)) == e and encode(decode(b)) == b; any other byte string is rejected.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "gopa/bulletin/keys.hpp"
#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

inline constexpr std::uint8_t kEntryVersion = 0x01;
inline constexpr std::size_t kEntryHeaderSize = 1 + 32 + 4 + 2 + 32 + 32 + 8 + 1 + 4;  // 116
inline constexpr std::size_t kMaxEntrySize = 65535;
inline constexpr std::size_t kMaxInlinePayload = kMaxEntrySize - kEntryHeaderSize - 64;  // 65,355
inline constexpr std::size_t kBlobReferenceSize = 32 + 8;
// Blobs larger than this are refused by the storage layer.
inline constexpr std::uint64_t kMaxBlobSize = 64ull << 20;

// Closed set of message types. A new protocol message needs a new value here (and a new entry
// version if its meaning changes); unknown values are rejected at decoding.
enum class MessageType : std::uint16_t {
  session_setup = 1,       // session parameters, graph seed, party list
  party_key = 2,           // a party's announced public keys
  edge_seed = 3,           // encrypted pairwise seed for an edge {u, v}
  commitment = 4,          // Pedersen commitments to inputs and noise terms
  noise_seed_commit = 5,   // commitment to the private part of a noise seed
  noise_seed_reveal = 6,   // public part of a noise seed
  masked_value = 7,        // the published X̂_u
  proof = 8,               // zero-knowledge proof (usually a blob reference)
  complaint = 9,           // accusation against a party, with evidence
  dropout = 10,            // report of a party that dropped out
  result = 11,             // the final estimate
  round_cosignature = 12,  // a party's cosignature of the round's checkpoint
  committee = 13,          // a hidden-sample committee member's message (docs/sampling.md)
  noise_share = 14,        // an excluded committee member's opened noise shares
  training = 15,           // a training run's manifest: its sessions in order (docs/training.md)
};
[[nodiscard]] bool is_known_message_type(std::uint16_t value) noexcept;
[[nodiscard]] const char* message_type_name(MessageType type) noexcept;

enum class PayloadKind : std::uint8_t {
  inline_bytes = 0,    // payload holds the message itself
  blob_reference = 1,  // payload = SHA-256(blob) || blob length (u64), blob length > kMaxInlinePayload
};

struct Entry {
  Hash session_id{};
  std::uint32_t round = 0;
  MessageType type = MessageType::session_setup;
  PublicKey sender{};
  PublicKey recipient{};  // all zero: addressed to everyone
  std::uint64_t sequence = 0;
  PayloadKind payload_kind = PayloadKind::inline_bytes;
  Bytes payload;
  Signature signature{};

  bool operator==(const Entry&) const = default;
};

// Bytes the sender signs: the domain separator then the encoding without the signature.
[[nodiscard]] Bytes entry_signing_message(const Entry& entry);
// Canonical encoding (with the signature as stored in `entry`). Aborts on an entry that cannot be
// encoded (payload over the limit): callers build entries, they never come from the wire.
[[nodiscard]] Bytes encode_entry(const Entry& entry);
// Sets entry.sender to key's public key, signs, and returns the encoding.
[[nodiscard]] Bytes sign_entry(Entry& entry, const SigningKey& key);
// A blob reference payload for `blob` (caller sets payload_kind = blob_reference).
[[nodiscard]] Bytes blob_reference(std::span<const std::uint8_t> blob);

// Strict decoding of untrusted bytes: lengths, version, known type and payload kind, exact size,
// then the signature. Nothing is allocated before its length is checked.
[[nodiscard]] Result<Entry> decode_entry(std::span<const std::uint8_t> bytes);
// The same checks without the signature (used where the signature was just checked).
[[nodiscard]] Result<Entry> decode_entry_unverified(std::span<const std::uint8_t> bytes);

}  // namespace gopa::bulletin
