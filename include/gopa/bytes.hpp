// gopa/bytes.hpp — the one strict byte reader and writer behind every wire format.
//
//   std::vector<std::uint8_t> out;
//   ByteWriter<ByteOrder::big> w(out);
//   w.u8(1).u32(n).point(P);
//
//   ByteReader<ByteOrder::big> r(untrusted);
//   const auto version = r.u8("version");
//   const std::uint32_t n = r.u32("count");
//   const Point P = r.point("commitment");
//   if (!r.finish()) return fail(r.error());   // "truncated: count", "trailing bytes", ...
//
// Each format states its byte order (docs/): board entries, session parameters, protocol
// messages and training manifests are big-endian; proofs and the committee's log are
// little-endian. The reader never aborts and never reads past its input: every read checks the
// remaining length first. The first failure (a short input, a point or scalar that is not
// canonical, or a check the caller adds with fail()) latches: later reads return zero, empty or
// the identity without advancing, and error() names the field that failed. A decoder reads
// every field, then asks ok() or finish() once, before it uses any value.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gopa/group.hpp"

namespace gopa {

enum class ByteOrder { big, little };

// v as exactly sizeof(T) bytes in order O: a fixed-width field of a hash input.
template <ByteOrder O, std::unsigned_integral T>
constexpr std::array<std::uint8_t, sizeof(T)> bytes_of(T v) noexcept {
  std::array<std::uint8_t, sizeof(T)> out{};
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    const std::size_t shift = O == ByteOrder::big ? 8 * (sizeof(T) - 1 - i) : 8 * i;
    out[i] = static_cast<std::uint8_t>(v >> shift);
  }
  return out;
}
template <std::unsigned_integral T>
constexpr std::array<std::uint8_t, sizeof(T)> le_bytes(T v) noexcept { return bytes_of<ByteOrder::little>(v); }
template <std::unsigned_integral T>
constexpr std::array<std::uint8_t, sizeof(T)> be_bytes(T v) noexcept { return bytes_of<ByteOrder::big>(v); }

template <ByteOrder O>
class ByteWriter {
 public:
  // Appends to `out`, which must outlive the writer.
  explicit ByteWriter(std::vector<std::uint8_t>& out) noexcept : out_(out) {}

  ByteWriter& u8(std::uint8_t v) {
    out_.push_back(v);
    return *this;
  }
  ByteWriter& u16(std::uint16_t v) { return put(v, 2); }
  ByteWriter& u32(std::uint32_t v) { return put(v, 4); }
  ByteWriter& u64(std::uint64_t v) { return put(v, 8); }
  ByteWriter& f64(double v) { return put(std::bit_cast<std::uint64_t>(v), 8); }
  ByteWriter& bytes(std::span<const std::uint8_t> b) {
    // resize + memcpy rather than insert: GCC 12 misreads insert after push_back (-Warray-bounds).
    const std::size_t at = out_.size();
    out_.resize(at + b.size());
    if (!b.empty()) std::memcpy(out_.data() + at, b.data(), b.size());
    return *this;
  }
  ByteWriter& point(const Point& p) { return bytes(p.encode()); }
  ByteWriter& scalar(const Scalar& s) { return bytes(s.encode()); }
  [[nodiscard]] std::size_t size() const noexcept { return out_.size(); }

 private:
  ByteWriter& put(std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      const unsigned shift = O == ByteOrder::big ? 8U * (n - 1 - i) : 8U * i;
      out_.push_back(static_cast<std::uint8_t>(v >> shift));
    }
    return *this;
  }
  std::vector<std::uint8_t>& out_;
};

template <ByteOrder O>
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> in) noexcept : in_(in) {}

  // `what` names the field in error(); it must outlive the reader (a string literal).
  std::uint8_t u8(const char* what = nullptr) { return static_cast<std::uint8_t>(get(1, what)); }
  std::uint16_t u16(const char* what = nullptr) { return static_cast<std::uint16_t>(get(2, what)); }
  std::uint32_t u32(const char* what = nullptr) { return static_cast<std::uint32_t>(get(4, what)); }
  std::uint64_t u64(const char* what = nullptr) { return get(8, what); }
  double f64(const char* what = nullptr) { return std::bit_cast<double>(get(8, what)); }

  // The next n bytes, or an empty span after a failure.
  std::span<const std::uint8_t> bytes(std::size_t n, const char* what = nullptr) {
    if (!need(n, what)) return {};
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  template <std::size_t N>
  std::array<std::uint8_t, N> array(const char* what = nullptr) {
    std::array<std::uint8_t, N> a{};
    const auto b = bytes(N, what);
    if (b.size() == N) std::memcpy(a.data(), b.data(), N);
    return a;
  }
  // A canonical ristretto255 encoding (RFC 9496); the identity after a failure.
  Point point(const char* what = nullptr) { return canonical<Point>("invalid point encoding", what, Point::identity()); }
  // A canonical scalar (below ℓ); zero after a failure.
  Scalar scalar(const char* what = nullptr) { return canonical<Scalar>("non-canonical scalar", what, Scalar::zero()); }

  // Latches a failure found by the caller (a value out of range, a wrong version); returns false.
  bool fail(std::string_view why, const char* what = nullptr) {
    if (ok_) {
      ok_ = false;
      error_.assign(why);
      if (what != nullptr) error_.append(": ").append(what);
    }
    return false;
  }
  // True when nothing failed and every byte was read; otherwise latches "trailing bytes".
  bool finish() {
    if (ok_ && pos_ != in_.size()) fail("trailing bytes");
    return ok_;
  }
  // True when n more bytes remain (before a loop sizes a vector from a count); else latches
  // "truncated".
  bool need(std::size_t n, const char* what = nullptr) {
    if (!ok_) return false;
    if (remaining() < n) return fail("truncated", what);
    return true;
  }
  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] const std::string& error() const noexcept { return error_; }
  [[nodiscard]] std::size_t remaining() const noexcept { return in_.size() - pos_; }
  [[nodiscard]] bool done() const noexcept { return pos_ == in_.size(); }

 private:
  // 32 bytes that T::decode (strict, never aborting) accepts; `fallback` after a failure.
  template <class T>
  T canonical(const char* why, const char* what, const T& fallback) {
    const auto b = bytes(32, what);
    if (!ok_) return fallback;
    auto v = T::decode(b);
    if (!v) {
      fail(why, what);
      return fallback;
    }
    return *v;
  }
  std::uint64_t get(unsigned n, const char* what) {
    if (!need(n, what)) return 0;
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) {
      const unsigned shift = O == ByteOrder::big ? 8U * (n - 1 - i) : 8U * i;
      v |= static_cast<std::uint64_t>(in_[pos_ + i]) << shift;
    }
    pos_ += n;
    return v;
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
  std::string error_;
};

}  // namespace gopa
