// Internal: strict byte readers and writers for the proofs of this layer (docs/proofs.md).
// Readers never abort: every read checks the remaining length first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/sigma/common.hpp"

namespace gopa::sigma::wire {

inline void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) { out.push_back(v); }
inline void put_u16(std::vector<std::uint8_t>& out, std::uint16_t v) {
  out.push_back(static_cast<std::uint8_t>(v & 0xFFU));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}
inline void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8U * i)));
}
inline void put_point(std::vector<std::uint8_t>& out, const Point& p) {
  const Bytes32 b = p.encode();
  out.insert(out.end(), b.begin(), b.end());
}
inline void put_scalar(std::vector<std::uint8_t>& out, const Scalar& s) {
  const Bytes32 b = s.encode();
  out.insert(out.end(), b.begin(), b.end());
}

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> in) : in_(in) {}
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }
  [[nodiscard]] bool done() const noexcept { return pos_ == in_.size(); }
  [[nodiscard]] std::optional<std::uint8_t> u8() {
    if (remaining() < 1) return std::nullopt;
    return in_[pos_++];
  }
  [[nodiscard]] std::optional<std::uint16_t> u16() {
    if (remaining() < 2) return std::nullopt;
    const auto v = static_cast<std::uint16_t>(in_[pos_] | (in_[pos_ + 1] << 8));
    pos_ += 2;
    return v;
  }
  [[nodiscard]] std::optional<std::uint32_t> u32() {
    if (remaining() < 4) return std::nullopt;
    std::uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(in_[pos_ + i]) << (8U * i);
    pos_ += 4;
    return v;
  }
  // The next n bytes (empty span if fewer remain; check remaining() first when n > 0).
  [[nodiscard]] std::span<const std::uint8_t> bytes(std::size_t n) {
    if (remaining() < n) return {};
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  [[nodiscard]] std::optional<Point> point() {
    if (remaining() < 32) return std::nullopt;
    auto p = Point::decode(in_.subspan(pos_, 32));
    pos_ += 32;
    return p;
  }
  [[nodiscard]] std::optional<Scalar> scalar() {
    if (remaining() < 32) return std::nullopt;
    auto s = Scalar::decode(in_.subspan(pos_, 32));
    pos_ += 32;
    return s;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

// The 5-byte header of a proof over b bits and d values (range, L2 ball): version, kind, b, d
// (u16 BE). read_sized_header checks the version and the kind; the caller checks b and d.
struct SizedHeader {
  std::uint8_t bits = 0;
  std::uint16_t d = 0;
};
inline void put_sized_header(std::vector<std::uint8_t>& out, ProofKind kind, unsigned bits, std::size_t d) {
  put_u8(out, kProofVersion);
  put_u8(out, static_cast<std::uint8_t>(kind));
  put_u8(out, static_cast<std::uint8_t>(bits));
  put_u16(out, static_cast<std::uint16_t>(d));
}
inline std::optional<SizedHeader> read_sized_header(std::span<const std::uint8_t> in, ProofKind want) {
  Reader r(in);
  const auto ver = r.u8();
  const auto kind = r.u8();
  const auto bits = r.u8();
  const auto d = r.u16();
  if (!ver || !kind || !bits || !d) return std::nullopt;
  if (*ver != kProofVersion || *kind != static_cast<std::uint8_t>(want)) return std::nullopt;
  return SizedHeader{*bits, *d};
}

}  // namespace gopa::sigma::wire
