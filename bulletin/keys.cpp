// Ed25519 keys (libsodium).
#include "gopa/bulletin/keys.hpp"

#include <sodium.h>

#include <stdexcept>

namespace gopa::bulletin {

namespace {
void ensure_sodium() {
  // sodium_init is idempotent and thread-safe; gopa::crypto_init() calls it too.
  GOPA_CHECK(sodium_init() >= 0, "libsodium failed to initialise");
}
}  // namespace

SigningKey SigningKey::generate() {
  ensure_sodium();
  SigningKey k;
  crypto_sign_keypair(k.public_.data(), k.secret_.data());
  return k;
}

SigningKey SigningKey::from_seed(std::span<const std::uint8_t, 32> seed) {
  ensure_sodium();
  SigningKey k;
  crypto_sign_seed_keypair(k.public_.data(), k.secret_.data(), seed.data());
  return k;
}

SigningKey::SigningKey(SigningKey&& other) noexcept : secret_(other.secret_), public_(other.public_) {
  sodium_memzero(other.secret_.data(), other.secret_.size());
}

SigningKey& SigningKey::operator=(SigningKey&& other) noexcept {
  if (this != &other) {
    secret_ = other.secret_;
    public_ = other.public_;
    sodium_memzero(other.secret_.data(), other.secret_.size());
  }
  return *this;
}

SigningKey::~SigningKey() { sodium_memzero(secret_.data(), secret_.size()); }

Signature SigningKey::sign(std::span<const std::uint8_t> message) const {
  Signature sig{};
  crypto_sign_detached(sig.data(), nullptr, message.data(), message.size(), secret_.data());
  return sig;
}

std::array<std::uint8_t, 32> SigningKey::seed() const {
  std::array<std::uint8_t, 32> out{};
  crypto_sign_ed25519_sk_to_seed(out.data(), secret_.data());
  return out;
}

bool ed25519_verify(const PublicKey& key, std::span<const std::uint8_t> message,
                    std::span<const std::uint8_t> signature) {
  if (signature.size() != crypto_sign_BYTES) return false;
  ensure_sodium();
  return crypto_sign_verify_detached(signature.data(), message.data(), message.size(), key.data()) == 0;
}

}  // namespace gopa::bulletin
