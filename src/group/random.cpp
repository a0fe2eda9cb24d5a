#include "gopa/random.hpp"

#include <sodium.h>

#include <mutex>

#include "gopa/check.hpp"

namespace gopa {

void crypto_init() {
  static std::once_flag once;
  std::call_once(once, [] { GOPA_CHECK(sodium_init() >= 0, "libsodium failed to initialise"); });
}

std::uint64_t Rng::next_u64() {
  std::array<std::uint8_t, 8> b{};
  fill(b);
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  return v;
}

std::uint64_t Rng::uniform(std::uint64_t bound) {
  GOPA_CHECK(bound > 0, "uniform() needs a positive bound");
  // Rejection sampling: accept v < limit, where limit is the largest multiple of bound.
  const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % bound + 1) % bound;
  for (;;) {
    const std::uint64_t v = next_u64();
    if (v <= limit) return v % bound;
  }
}

SystemRng::SystemRng() { crypto_init(); }

void SystemRng::fill(std::span<std::uint8_t> out) { randombytes_buf(out.data(), out.size()); }

DeterministicRng::DeterministicRng(const std::array<std::uint8_t, 32>& seed) : key_(seed) {
  crypto_init();
}

DeterministicRng::DeterministicRng(std::uint64_t seed) {
  crypto_init();
  // Domain-separated expansion of the 64-bit seed into a ChaCha20 key.
  std::array<std::uint8_t, 8> s{};
  for (std::size_t i = 0; i < 8; ++i) s[i] = static_cast<std::uint8_t>(seed >> (8 * i));
  static constexpr char kLabel[] = "gopa/deterministic-rng/v1";
  crypto_generichash_state st;
  crypto_generichash_init(&st, nullptr, 0, key_.size());
  crypto_generichash_update(&st, reinterpret_cast<const unsigned char*>(kLabel), sizeof kLabel - 1);
  crypto_generichash_update(&st, s.data(), s.size());
  crypto_generichash_final(&st, key_.data(), key_.size());
}

DeterministicRng::~DeterministicRng() { sodium_memzero(key_.data(), key_.size()); }

void DeterministicRng::fill(std::span<std::uint8_t> out) {
  // One ChaCha20 stream per call, nonce = call counter: successive calls never share keystream.
  std::array<std::uint8_t, crypto_stream_chacha20_NONCEBYTES> nonce{};
  for (std::size_t i = 0; i < 8; ++i) nonce[i] = static_cast<std::uint8_t>(counter_ >> (8 * i));
  ++counter_;
  crypto_stream_chacha20(out.data(), out.size(), nonce.data(), key_.data());
}

}  // namespace gopa
