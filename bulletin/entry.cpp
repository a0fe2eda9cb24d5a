// Canonical encoding and strict decoding of board entries (layout: include/gopa/bulletin/entry.hpp,
// docs/board.md §1).
#include "gopa/bulletin/entry.hpp"

#include <algorithm>
#include <cstring>

#include "gopa/bytes.hpp"

namespace gopa::bulletin {

namespace {

constexpr std::string_view kEntryDomain = "gopa/board/entry/v1\n";

using Writer = ByteWriter<ByteOrder::big>;

Bytes encode_unsigned(const Entry& e) {
  GOPA_CHECK(e.payload.size() <= kMaxInlinePayload, "entry payload over the 65,355-byte limit");
  Bytes out;
  out.reserve(kEntryHeaderSize + e.payload.size() + 64);
  Writer(out)
      .u8(kEntryVersion)
      .bytes(e.session_id)
      .u32(e.round)
      .u16(static_cast<std::uint16_t>(e.type))
      .bytes(e.sender)
      .bytes(e.recipient)
      .u64(e.sequence)
      .u8(static_cast<std::uint8_t>(e.payload_kind))
      .u32(static_cast<std::uint32_t>(e.payload.size()));
  out.insert(out.end(), e.payload.begin(), e.payload.end());
  return out;
}

}  // namespace

bool is_known_message_type(std::uint16_t value) noexcept {
  return value >= static_cast<std::uint16_t>(MessageType::session_setup) &&
         value <= static_cast<std::uint16_t>(MessageType::training);
}

const char* message_type_name(MessageType type) noexcept {
  switch (type) {
    case MessageType::session_setup: return "session_setup";
    case MessageType::party_key: return "party_key";
    case MessageType::edge_seed: return "edge_seed";
    case MessageType::commitment: return "commitment";
    case MessageType::noise_seed_commit: return "noise_seed_commit";
    case MessageType::noise_seed_reveal: return "noise_seed_reveal";
    case MessageType::masked_value: return "masked_value";
    case MessageType::proof: return "proof";
    case MessageType::complaint: return "complaint";
    case MessageType::dropout: return "dropout";
    case MessageType::result: return "result";
    case MessageType::round_cosignature: return "round_cosignature";
    case MessageType::committee: return "committee";
    case MessageType::noise_share: return "noise_share";
    case MessageType::training: return "training";
  }
  return "unknown";
}

Bytes entry_signing_message(const Entry& entry) {
  Bytes body = encode_unsigned(entry);
  Bytes msg(kEntryDomain.size() + body.size());
  std::memcpy(msg.data(), kEntryDomain.data(), kEntryDomain.size());
  std::memcpy(msg.data() + kEntryDomain.size(), body.data(), body.size());
  return msg;
}

Bytes encode_entry(const Entry& entry) {
  Bytes out = encode_unsigned(entry);
  Writer(out).bytes(entry.signature);
  return out;
}

Bytes sign_entry(Entry& entry, const SigningKey& key) {
  entry.sender = key.public_key();
  entry.signature = key.sign(entry_signing_message(entry));
  return encode_entry(entry);
}

Bytes blob_reference(std::span<const std::uint8_t> blob) {
  Bytes out;
  Writer(out).bytes(sha256(blob)).u64(blob.size());
  return out;
}

Result<Entry> decode_entry_unverified(std::span<const std::uint8_t> bytes) {
  if (bytes.size() > kMaxEntrySize) {
    return make_error(Errc::too_large, "entry is " + std::to_string(bytes.size()) +
                                           " bytes, over the 65,535-byte limit");
  }
  if (bytes.size() < kEntryHeaderSize + 64) {
    return make_error(Errc::malformed, "entry shorter than its fixed header and signature");
  }
  ByteReader<ByteOrder::big> r(bytes);  // the fixed fields are there: no read below fails
  Entry e;
  const auto version = r.u8("version");
  if (version != kEntryVersion) {
    return make_error(Errc::unknown_type, "entry version " + std::to_string(version) + " is not 1");
  }
  e.session_id = r.array<32>("session id");
  e.round = r.u32("round");
  const auto type = r.u16("type");
  if (!is_known_message_type(type)) {
    return make_error(Errc::unknown_type, "unknown message type " + std::to_string(type));
  }
  e.type = static_cast<MessageType>(type);
  e.sender = r.array<32>("sender");
  e.recipient = r.array<32>("recipient");
  e.sequence = r.u64("sequence");
  const auto kind = r.u8("payload kind");
  if (kind > static_cast<std::uint8_t>(PayloadKind::blob_reference)) {
    return make_error(Errc::unknown_type, "unknown payload kind " + std::to_string(kind));
  }
  e.payload_kind = static_cast<PayloadKind>(kind);
  const std::uint64_t len = r.u32("payload length");
  if (len != r.remaining() - 64) {
    return make_error(Errc::malformed, "payload length field " + std::to_string(len) +
                                           " does not match the entry size");
  }
  if (e.payload_kind == PayloadKind::blob_reference) {
    if (len != kBlobReferenceSize) {
      return make_error(Errc::malformed, "blob reference payload is not 40 bytes");
    }
  }
  auto payload = r.bytes(static_cast<std::size_t>(len), "payload");
  e.payload.assign(payload.begin(), payload.end());
  if (e.payload_kind == PayloadKind::blob_reference) {
    const std::uint64_t blob_len = ByteReader<ByteOrder::big>(std::span(e.payload).subspan(32)).u64();
    // A blob that fits inline must be inline: one message, one encoding.
    if (blob_len <= kMaxInlinePayload || blob_len > kMaxBlobSize) {
      return make_error(Errc::non_canonical,
                        "blob reference to a blob of " + std::to_string(blob_len) +
                            " bytes (must be over 65,355 and at most 64 MiB)");
    }
  }
  e.signature = r.array<64>("signature");
  GOPA_CHECK(r.finish(), "entry reader left bytes after the signature");
  return e;
}

Result<Entry> decode_entry(std::span<const std::uint8_t> bytes) {
  auto decoded = decode_entry_unverified(bytes);
  if (!decoded) return decoded;
  const Entry& e = decoded.value();
  if (!ed25519_verify(e.sender, entry_signing_message(e), e.signature)) {
    return make_error(Errc::bad_signature, "entry signature does not verify under the sender key");
  }
  return decoded;
}

}  // namespace gopa::bulletin
