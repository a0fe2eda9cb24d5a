// gopa/bulletin/result.hpp — typed errors and byte helpers shared by the bulletin-board layer.
//
//   gopa::bulletin::Result<Entry> r = decode_entry(bytes);
//   if (!r) std::cerr << errc_name(r.error().code) << ": " << r.error().message;
//
// Untrusted input (entries, notes, proofs, HTTP bodies, database rows) never aborts: every failure
// is an Error with a closed code and a message naming the check that failed. Broken internal
// invariants abort through GOPA_CHECK.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gopa/check.hpp"

namespace gopa::bulletin {

using Bytes = std::vector<std::uint8_t>;
using Hash = std::array<std::uint8_t, 32>;

enum class Errc {
  malformed,       // bytes or text that do not parse
  non_canonical,   // parses, but is not the unique encoding
  bad_signature,   // an Ed25519 signature does not verify
  unknown_type,    // a closed enumeration value this version does not know
  too_large,       // a length limit is exceeded
  equivocation,    // the same (session, sender, sequence) with different bytes
  not_found,       // index, tile or key absent
  bad_proof,       // an inclusion or consistency proof does not verify
  fork,            // two signed views of the log that cannot both be true
  corrupted,       // stored data does not match its own hashes or signatures
  stale_database,  // a database older than a checkpoint this server already published
  io,              // storage or network failure (transient)
  invalid_argument,  // a caller passed arguments outside the API's domain
  timeout,         // a protocol step waited longer than its deadline
};

[[nodiscard]] const char* errc_name(Errc code) noexcept;

struct Error {
  Errc code;
  std::string message;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}              // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}          // NOLINT: implicit by design
  [[nodiscard]] bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  T& value() & {
    GOPA_CHECK(ok(), "Result::value() on an error");
    return std::get<0>(v_);
  }
  const T& value() const& {
    GOPA_CHECK(ok(), "Result::value() on an error");
    return std::get<0>(v_);
  }
  T&& value() && {
    GOPA_CHECK(ok(), "Result::value() on an error");
    return std::move(std::get<0>(v_));
  }
  const Error& error() const {
    GOPA_CHECK(!ok(), "Result::error() on a value");
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  [[nodiscard]] bool ok() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return ok(); }
  const Error& error() const {
    GOPA_CHECK(!ok(), "Status::error() on success");
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

[[nodiscard]] inline Error make_error(Errc code, std::string message) {
  return Error{code, std::move(message)};
}

// SHA-256 (libsodium).
[[nodiscard]] Hash sha256(std::span<const std::uint8_t> data);
[[nodiscard]] Hash sha256(std::string_view data);

// Lowercase hex; strict decoding (even length, [0-9a-f] only).
[[nodiscard]] std::string to_hex(std::span<const std::uint8_t> data);
[[nodiscard]] std::optional<Bytes> from_hex(std::string_view hex);

// Standard base64 with padding (RFC 4648 §4); decoding rejects anything that does not re-encode
// to the same text (non-zero padding bits, missing padding, whitespace).
[[nodiscard]] std::string to_base64(std::span<const std::uint8_t> data);
[[nodiscard]] std::optional<Bytes> from_base64(std::string_view text);

// Strict unsigned decimal: no sign, no leading zero (except "0"), no overflow.
[[nodiscard]] std::optional<std::uint64_t> parse_decimal_u64(std::string_view text);

inline std::span<const std::uint8_t> as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

}  // namespace gopa::bulletin
