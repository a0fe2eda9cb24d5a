// gopa/bulletin/keys.hpp — Ed25519 keys for board entries, checkpoints and cosignatures.
//
//   auto key = gopa::bulletin::SigningKey::generate();
//   auto sig = key.sign(message);               // 64-byte Ed25519 signature (RFC 8032)
//   bool ok = gopa::bulletin::ed25519_verify(key.public_key(), message, sig);
//
// Security: the secret key is wiped (sodium_memzero) on destruction and on move; the type is
// move-only so a secret is never copied by accident.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "gopa/bulletin/result.hpp"

namespace gopa::bulletin {

using PublicKey = std::array<std::uint8_t, 32>;
using Signature = std::array<std::uint8_t, 64>;

class SigningKey {
 public:
  [[nodiscard]] static SigningKey generate();
  // Deterministic key from a 32-byte seed (libsodium crypto_sign_seed_keypair).
  [[nodiscard]] static SigningKey from_seed(std::span<const std::uint8_t, 32> seed);

  SigningKey(const SigningKey&) = delete;
  SigningKey& operator=(const SigningKey&) = delete;
  SigningKey(SigningKey&& other) noexcept;
  SigningKey& operator=(SigningKey&& other) noexcept;
  ~SigningKey();

  [[nodiscard]] const PublicKey& public_key() const noexcept { return public_; }
  [[nodiscard]] Signature sign(std::span<const std::uint8_t> message) const;
  // The 32-byte seed, for storing the key. The caller wipes the copy.
  [[nodiscard]] std::array<std::uint8_t, 32> seed() const;

 private:
  SigningKey() = default;
  std::array<std::uint8_t, 64> secret_{};
  PublicKey public_{};
};

// Strict Ed25519 verification (libsodium rejects non-canonical S and small-order keys).
[[nodiscard]] bool ed25519_verify(const PublicKey& key, std::span<const std::uint8_t> message,
                                  std::span<const std::uint8_t> signature);

}  // namespace gopa::bulletin
