// Canonical encoding and strict decoding of board entries (layout: include/gopa/bulletin/entry.hpp,
// docs/board.md §1).
#include "gopa/bulletin/entry.hpp"

#include <algorithm>
#include <cstring>

namespace gopa::bulletin {

namespace {

constexpr std::string_view kEntryDomain = "gopa/board/entry/v1\n";

void put_u16(Bytes& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}
void put_u32(Bytes& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
void put_u64(Bytes& out, std::uint64_t v) {
  for (int s = 56; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}
template <std::size_t N>
void put(Bytes& out, const std::array<std::uint8_t, N>& a) {
  out.insert(out.end(), a.begin(), a.end());
}

// Reader over untrusted bytes: every take checks the remaining length first.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> b) : b_(b) {}
  [[nodiscard]] std::size_t remaining() const noexcept { return b_.size() - pos_; }
  std::uint64_t be(std::size_t n) {
    GOPA_CHECK(remaining() >= n, "Reader::be past the end");
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v = (v << 8) | b_[pos_ + i];
    pos_ += n;
    return v;
  }
  template <std::size_t N>
  void take(std::array<std::uint8_t, N>& out) {
    GOPA_CHECK(remaining() >= N, "Reader::take past the end");
    std::copy_n(b_.begin() + static_cast<std::ptrdiff_t>(pos_), N, out.begin());
    pos_ += N;
  }
  std::span<const std::uint8_t> take(std::size_t n) {
    GOPA_CHECK(remaining() >= n, "Reader::take past the end");
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t pos_ = 0;
};

Bytes encode_unsigned(const Entry& e) {
  GOPA_CHECK(e.payload.size() <= kMaxInlinePayload, "entry payload over the 65,355-byte limit");
  Bytes out;
  out.reserve(kEntryHeaderSize + e.payload.size() + 64);
  out.push_back(kEntryVersion);
  put(out, e.session_id);
  put_u32(out, e.round);
  put_u16(out, static_cast<std::uint16_t>(e.type));
  put(out, e.sender);
  put(out, e.recipient);
  put_u64(out, e.sequence);
  out.push_back(static_cast<std::uint8_t>(e.payload_kind));
  put_u32(out, static_cast<std::uint32_t>(e.payload.size()));
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
  put(out, entry.signature);
  return out;
}

Bytes sign_entry(Entry& entry, const SigningKey& key) {
  entry.sender = key.public_key();
  entry.signature = key.sign(entry_signing_message(entry));
  return encode_entry(entry);
}

Bytes blob_reference(std::span<const std::uint8_t> blob) {
  Bytes out;
  put(out, sha256(blob));
  put_u64(out, blob.size());
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
  Reader r(bytes);
  Entry e;
  const auto version = r.be(1);
  if (version != kEntryVersion) {
    return make_error(Errc::unknown_type, "entry version " + std::to_string(version) + " is not 1");
  }
  r.take(e.session_id);
  e.round = static_cast<std::uint32_t>(r.be(4));
  const auto type = static_cast<std::uint16_t>(r.be(2));
  if (!is_known_message_type(type)) {
    return make_error(Errc::unknown_type, "unknown message type " + std::to_string(type));
  }
  e.type = static_cast<MessageType>(type);
  r.take(e.sender);
  r.take(e.recipient);
  e.sequence = r.be(8);
  const auto kind = r.be(1);
  if (kind > static_cast<std::uint64_t>(PayloadKind::blob_reference)) {
    return make_error(Errc::unknown_type, "unknown payload kind " + std::to_string(kind));
  }
  e.payload_kind = static_cast<PayloadKind>(kind);
  const std::uint64_t len = r.be(4);
  if (len != r.remaining() - 64) {
    return make_error(Errc::malformed, "payload length field " + std::to_string(len) +
                                           " does not match the entry size");
  }
  if (e.payload_kind == PayloadKind::blob_reference) {
    if (len != kBlobReferenceSize) {
      return make_error(Errc::malformed, "blob reference payload is not 40 bytes");
    }
  }
  auto payload = r.take(static_cast<std::size_t>(len));
  e.payload.assign(payload.begin(), payload.end());
  if (e.payload_kind == PayloadKind::blob_reference) {
    std::uint64_t blob_len = 0;
    for (std::size_t i = 32; i < 40; ++i) blob_len = (blob_len << 8) | e.payload[i];
    // A blob that fits inline must be inline: one message, one encoding.
    if (blob_len <= kMaxInlinePayload || blob_len > kMaxBlobSize) {
      return make_error(Errc::non_canonical,
                        "blob reference to a blob of " + std::to_string(blob_len) +
                            " bytes (must be over 65,355 and at most 64 MiB)");
    }
  }
  r.take(e.signature);
  GOPA_CHECK(r.remaining() == 0, "entry reader left bytes after the signature");
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
