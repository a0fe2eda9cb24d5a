// gopa/random.hpp — sources of randomness.
//
// Every prover and every function that draws randomness takes a `Rng&`, so tests can pass a
// DeterministicRng and get reproducible proofs. Production code uses SystemRng (libsodium's
// randombytes, i.e. the operating system's CSPRNG).
//
//   gopa::SystemRng rng;                       // production
//   gopa::DeterministicRng test_rng(seed32);   // tests: ChaCha20 keystream of a 32-byte seed
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace gopa {

class Rng {
 public:
  virtual ~Rng() = default;
  virtual void fill(std::span<std::uint8_t> out) = 0;
  std::uint64_t next_u64();
  // Uniform in [0, bound) without modulo bias (bound > 0). Variable time in the public bound only.
  std::uint64_t uniform(std::uint64_t bound);
};

// The operating system's CSPRNG through libsodium.
class SystemRng final : public Rng {
 public:
  SystemRng();
  void fill(std::span<std::uint8_t> out) override;
};

// ChaCha20 keystream of a 32-byte seed. Not for secrets in production: for reproducible tests,
// benchmarks and simulations.
class DeterministicRng final : public Rng {
 public:
  explicit DeterministicRng(const std::array<std::uint8_t, 32>& seed);
  explicit DeterministicRng(std::uint64_t seed);
  ~DeterministicRng() override;
  DeterministicRng(const DeterministicRng&) = delete;
  DeterministicRng& operator=(const DeterministicRng&) = delete;
  void fill(std::span<std::uint8_t> out) override;

 private:
  std::array<std::uint8_t, 32> key_{};
  std::uint64_t counter_ = 0;
};

// Initialise libsodium once (thread-safe, idempotent). Aborts if libsodium cannot start.
void crypto_init();

}  // namespace gopa
