// Byte helpers and error names of the bulletin layer.
#include <sodium.h>

#include <limits>

#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

const char* errc_name(Errc code) noexcept {
  switch (code) {
    case Errc::malformed: return "malformed";
    case Errc::non_canonical: return "non_canonical";
    case Errc::bad_signature: return "bad_signature";
    case Errc::unknown_type: return "unknown_type";
    case Errc::too_large: return "too_large";
    case Errc::equivocation: return "equivocation";
    case Errc::not_found: return "not_found";
    case Errc::bad_proof: return "bad_proof";
    case Errc::fork: return "fork";
    case Errc::corrupted: return "corrupted";
    case Errc::stale_database: return "stale_database";
    case Errc::io: return "io";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::timeout: return "timeout";
  }
  return "unknown";
}

Hash sha256(std::span<const std::uint8_t> data) {
  Hash out{};
  crypto_hash_sha256(out.data(), data.data(), data.size());
  return out;
}

Hash sha256(std::string_view data) { return sha256(as_bytes(data)); }

std::string to_hex(std::span<const std::uint8_t> data) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(data.size() * 2);
  for (std::uint8_t b : data) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 0x0f]);
  }
  return out;
}

std::optional<Bytes> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  Bytes out(hex.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(hex[2 * i]);
    const int lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return out;
}

std::string to_base64(std::span<const std::uint8_t> data) {
  if (data.empty()) return {};
  const std::size_t len = sodium_base64_ENCODED_LEN(data.size(), sodium_base64_VARIANT_ORIGINAL);
  std::string out(len, '\0');
  sodium_bin2base64(out.data(), len, data.data(), data.size(), sodium_base64_VARIANT_ORIGINAL);
  out.resize(len - 1);  // drop the terminating NUL
  return out;
}

std::optional<Bytes> from_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  if (text.empty()) return Bytes{};  // libsodium's output pointer must not be null
  Bytes out(text.size() / 4 * 3);
  std::size_t written = 0;
  const char* end = nullptr;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &written, &end,
                        sodium_base64_VARIANT_ORIGINAL) != 0) {
    return std::nullopt;
  }
  if (end != text.data() + text.size()) return std::nullopt;
  out.resize(written);
  // Canonical form only: the unique encoding of the decoded bytes.
  if (to_base64(out) != text) return std::nullopt;
  return out;
}

std::optional<std::uint64_t> parse_decimal_u64(std::string_view text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto d = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

}  // namespace gopa::bulletin
