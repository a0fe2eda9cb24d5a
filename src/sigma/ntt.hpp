// Internal: Toeplitz matrix–vector products mod ℓ by number-theoretic transforms over nine
// 61-bit primes and Chinese remaindering (docs/proofs.md §5.1).
//
// ℓ − 1 has 2-adicity 2, so Z_ℓ has no large power-of-two roots of unity. The product is instead
// computed over the integers: the entries are < ℓ < 2^253, so each output of a size-n product is
// an integer below n·ℓ² < 2^526 (n ≤ 2^20), recovered exactly from its residues modulo nine
// primes p_k = c_k·2^24 + 1 ∈ (2^60, 2^61) (product > 2^548) and then reduced mod ℓ.
// O(n log n) instead of Karatsuba's O(n^1.58).
//
// Constant time in the vector x: the control flow and memory accesses depend on the sizes only,
// and every modular reduction is a masked subtraction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gopa/sigma/field.hpp"

namespace gopa::sigma::ntt {

inline constexpr std::size_t kPrimes = 9;
inline constexpr unsigned kMaxLog = 24;  // every prime is 1 mod 2^24
// The primes and an element of order 2^24 modulo each (tests check both).
inline constexpr std::array<std::uint64_t, kPrimes> kP = {
    0x1fffffffff000001ULL, 0x1ffffffffc000001ULL, 0x1fffffffe6000001ULL,
    0x1fffffffde000001ULL, 0x1fffffffb1000001ULL, 0x1fffffff9f000001ULL,
    0x1fffffff92000001ULL, 0x1fffffff90000001ULL, 0x1fffffff89000001ULL};
inline constexpr std::array<std::uint64_t, kPrimes> kRoot = {
    0x0e6357ef95632bcfULL, 0x003d996c495a85c1ULL, 0x08b691ad39f06d09ULL,
    0x1992bf2bba401247ULL, 0x0183c628f84ec0c3ULL, 0x1c9fd10d4bef931bULL,
    0x1a0d9eafe19bd05aULL, 0x1bcd3f4fa8998869ULL, 0x0196d53cb68070cbULL};

// Largest supported product size n (the cyclic transforms have size ≥ 2n − 1, ≤ 2^kMaxLog).
// Memory: a plan keeps 9·2^log words (4.5 MiB for n = 21,568, log = 16); the shared twiddle
// tables 36·2^log words for the largest log in use (18 MiB at log 16, 576 MiB at n = 2^20).
inline constexpr std::size_t kMaxSize = std::size_t{1} << 20;

struct Roots;  // twiddle tables, shared by all plans (ntt.cpp)

// y[i] += Σ_{j<n} t[n−1+i−j]·x[j] mod ℓ for i < n: the product of the n×n Toeplitz matrix with
// diagonals t (2n − 1 public values, Montgomery form) by x. The plan keeps the transforms of t.
class ToeplitzPlan {
 public:
  explicit ToeplitzPlan(std::span<const field::Fe> t);
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  // x and y hold n values each (Montgomery form). Constant time in x and y; wipes its scratch.
  void apply(std::span<const field::Fe> x, std::span<field::Fe> y) const;

 private:
  std::size_t n_ = 0;
  unsigned log_ = 0;  // transform size 2^log_ ≥ 2n − 1
  std::shared_ptr<const Roots> roots_;
  std::vector<std::uint64_t> that_;  // per prime: transform of t, times 2^−log·2^64 mod p
};

// Residues of the integer with little-endian 64-bit limbs a (< 2^256) modulo each prime, and the
// inverse: Garner's mixed-radix reconstruction of an integer below Π p_k, reduced mod ℓ
// (Montgomery form in, Montgomery form out: the reconstruction is linear). Exposed for tests.
[[nodiscard]] std::array<std::uint64_t, kPrimes> residues(const field::Fe& a);
[[nodiscard]] field::Fe reconstruct(const std::array<std::uint64_t, kPrimes>& r);

}  // namespace gopa::sigma::ntt
