// gopa/circuits/seeds.hpp — verifiable uniform seeds: commit–reveal helper types.
//
//   PrivateSeed x = PrivateSeed::draw(m, rng);          // x ∈ [0, 2^m), blinder r
//   Point C = x.commitment();                           // x·G + r·H, gens "gopa"; publish first
//   Bytes32 h = beacon_commit(rho);                     // every party: commit to a contribution
//   ... all C and h published, then every rho revealed and checked with beacon_check ...
//   auto ys = public_randomness(rhos, party, count, m); // y_j bound to (all rho, party, j)
//   s_j = (x_j + y_j) mod 2^m                           // inside the circuit (seed_gadget)
//
// Nobody chooses s alone: x is fixed (committed) before any y is known, and y depends on every
// party's contribution. Binding y to (party, j) makes reuse of public randomness across
// parties or samples detectable: the verifier recomputes y and compares the public inputs.
//
// Security notes: PrivateSeed wipes itself; x is a secret (constant-time commitment, marked
// undefined on creation in constant-time validation builds, gopa/check.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "gopa/circuits/recorder.hpp"
#include "gopa/group.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/random.hpp"

namespace gopa::circuits {

class PrivateSeed {
 public:
  static PrivateSeed draw(unsigned m, Rng& rng);
  PrivateSeed(std::uint64_t x, SecretScalar r, unsigned m);
  ~PrivateSeed();
  PrivateSeed(PrivateSeed&&) noexcept = default;
  PrivateSeed& operator=(PrivateSeed&&) noexcept = default;
  PrivateSeed(const PrivateSeed&) = delete;
  PrivateSeed& operator=(const PrivateSeed&) = delete;

  [[nodiscard]] Point commitment() const;
  [[nodiscard]] std::uint64_t value() const noexcept { return x_; }
  [[nodiscard]] const SecretScalar& blinder() const noexcept { return r_; }
  [[nodiscard]] unsigned bits() const noexcept { return m_; }

 private:
  std::uint64_t x_ = 0;
  SecretScalar r_;
  unsigned m_ = 0;
};

// SHA-256("gopa/seed-beacon/v1/commit" ‖ rho).
[[nodiscard]] Bytes32 beacon_commit(const Bytes32& rho);
[[nodiscard]] bool beacon_check(const Bytes32& commitment, const Bytes32& rho);

// y_j = low m bits of SHA-256("gopa/seed-beacon/v1/expand" ‖ LE64(n) ‖ rho_1 ‖ … ‖ rho_n ‖
// LE64(party) ‖ LE64(j)), j = 0..count−1 (m ≤ 64).
[[nodiscard]] std::vector<std::uint64_t> public_randomness(std::span<const Bytes32> rhos,
                                                           std::uint64_t party, std::size_t count,
                                                           unsigned m);

// The committed inputs of a recorded circuit (in order) open the seed commitments?
[[nodiscard]] bool check_committed_seeds(const Circuit& c, std::span<const Scalar> z,
                                         std::span<const Point> commitments,
                                         std::span<const Scalar> blinders);

}  // namespace gopa::circuits
