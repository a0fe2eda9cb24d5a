// Framing of the hidden-sample committee's public messages (include/gopa/sampling/log.hpp,
// docs/sampling.md "Public log").
#include "gopa/sampling/log.hpp"

#include "wire.hpp"

namespace gopa::sampling {

const char* hidden_kind_name(HiddenKind k) noexcept {
  switch (k) {
    case HiddenKind::kPaillierKey: return "paillier-key";
    case HiddenKind::kTripleShares: return "triple-shares";
    case HiddenKind::kTripleReplies: return "triple-replies";
    case HiddenKind::kTripleProducts: return "triple-products";
    case HiddenKind::kSacrificeOpening: return "sacrifice-opening";
    case HiddenKind::kTripleReveal: return "triple-reveal";
    case HiddenKind::kMasks: return "masks";
    case HiddenKind::kBitShares: return "bit-shares";
    case HiddenKind::kMulOpening: return "mul-opening";
    case HiddenKind::kBitOpening: return "bit-opening";
    case HiddenKind::kTruncOpening: return "trunc-opening";
    case HiddenKind::kKeyFactors: return "key-factors";
  }
  return "unknown";
}

std::vector<std::uint8_t> HiddenMessage::encode() const {
  std::vector<std::uint8_t> out;
  out.reserve(encoded_size());
  wire::Writer(out).u8(kHiddenLogVersion).u32(member).u8(static_cast<std::uint8_t>(kind)).u32(seq)
      .u32(static_cast<std::uint32_t>(payload.size()));
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

namespace {

// One message at the front of `in`; `used` receives its encoded length.
std::optional<HiddenMessage> decode_one(std::span<const std::uint8_t> in, std::size_t& used) {
  wire::Reader r(in);
  const auto version = r.u8();
  const auto member = r.u32();
  const auto kind = r.u8();
  const auto seq = r.u32();
  const auto len = r.u32();
  if (!r.ok() || version != kHiddenLogVersion || kind == 0 || kind > kHiddenKindMax || len > kMaxHiddenPayload ||
      r.remaining() < len)
    return std::nullopt;
  HiddenMessage m;
  m.member = member;
  m.kind = static_cast<HiddenKind>(kind);
  m.seq = seq;
  const auto body = r.bytes(len);
  m.payload.assign(body.begin(), body.end());
  used = kHiddenHeaderBytes + len;
  return m;
}

}  // namespace

std::optional<HiddenMessage> HiddenMessage::decode(std::span<const std::uint8_t> in) {
  std::size_t used = 0;
  auto m = decode_one(in, used);
  if (!m || used != in.size()) return std::nullopt;
  return m;
}

std::vector<std::uint8_t> encode_hidden_log(std::span<const HiddenMessage> log) {
  std::vector<std::uint8_t> out;
  for (const HiddenMessage& m : log) {
    const auto e = m.encode();
    out.insert(out.end(), e.begin(), e.end());
  }
  return out;
}

std::optional<std::vector<HiddenMessage>> decode_hidden_log(std::span<const std::uint8_t> in) {
  std::vector<HiddenMessage> out;
  std::size_t pos = 0;
  while (pos < in.size()) {
    std::size_t used = 0;
    auto m = decode_one(in.subspan(pos), used);
    if (!m) return std::nullopt;
    out.push_back(std::move(*m));
    pos += used;
  }
  return out;
}

}  // namespace gopa::sampling
