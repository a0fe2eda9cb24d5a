// Strict byte writers and readers for the hidden-sample committee's public log
// (docs/sampling.md, "Public log"). Internal header of src/sampling.
// Readers never abort: every read checks the remaining length first and returns nullopt.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/sampling/paillier.hpp"

namespace gopa::sampling::wire {

inline void put_u8(std::vector<std::uint8_t>& out, std::uint8_t v) { out.push_back(v); }
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
// A non-negative integer as exactly `len` big-endian bytes (the value must fit).
inline void put_big(std::vector<std::uint8_t>& out, const BigInt& v, std::size_t len) {
  const auto b = v.to_bytes(len);
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
    if (remaining() < Point::kBytes) return std::nullopt;
    auto p = Point::decode(in_.subspan(pos_, Point::kBytes));
    pos_ += Point::kBytes;
    return p;
  }
  [[nodiscard]] std::optional<Scalar> scalar() {
    if (remaining() < Scalar::kBytes) return std::nullopt;
    auto s = Scalar::decode(in_.subspan(pos_, Scalar::kBytes));
    pos_ += Scalar::kBytes;
    return s;
  }
  // Exactly `len` big-endian bytes; every value in [0, 256^len) has one encoding.
  [[nodiscard]] std::optional<BigInt> big(std::size_t len) {
    if (remaining() < len) return std::nullopt;
    BigInt v;
    if (len > 0) mpz_import(v.get(), len, 1, 1, 0, 0, in_.data() + pos_);
    pos_ += len;
    return v;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

}  // namespace gopa::sampling::wire
