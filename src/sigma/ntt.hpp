// Internal: Toeplitz matrix–vector products mod ℓ by number-theoretic transforms and Chinese
// remaindering (docs/proofs.md §5.1).
//
// ℓ − 1 has 2-adicity 2, so Z_ℓ has no large power-of-two roots of unity. The product is instead
// computed over the integers: the entries are < ℓ < 2^253, so each output of a size-n product is
// an integer below n·ℓ² < 2^526 (n ≤ 2^20), recovered exactly from its residues modulo a set of
// primes c·2^24 + 1 and then reduced mod ℓ. O(n log n) instead of Karatsuba's O(n^1.58).
// Two paths compute the same values; apply() takes the AVX-512 IFMA one when
// gopa::detail::ifma_enabled() (src/group/simd.hpp) says so at the call, the portable one
// otherwise:
//  - portable: nine primes p_k ∈ (2^60, 2^61) (product > 2^548), 64-bit Shoup and Montgomery
//    arithmetic, Garner's mixed radix per output;
//  - IFMA (ntt_ifma.cpp): eleven primes q_k ∈ (2^49, 2^50) (product > 2^549), eight transform
//    positions or eight outputs per instruction in the 52-bit lanes of VPMADD52LUQ/HUQ, and an
//    explicit CRT sum per output.
//
// Constant time in the vector x on both paths: the control flow and memory accesses depend on
// the sizes only, and every modular reduction is a masked subtraction (a minimum on the IFMA
// path).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
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
inline constexpr std::size_t kMaxSize = std::size_t{1} << 20;

// The IFMA path's primes (kMaxLog and kMaxSize as above) and an element of order 2^24 modulo
// each. Four times each is below 2^52, the width of an IFMA multiplication's inputs.
namespace ifma {
inline constexpr std::size_t kPrimes = 11;
inline constexpr std::array<std::uint64_t, kPrimes> kP = {
    0x3ffffe4000001ULL, 0x3ffffdc000001ULL, 0x3ffffdb000001ULL, 0x3ffffd5000001ULL,
    0x3ffffc1000001ULL, 0x3ffffa3000001ULL, 0x3ffff9a000001ULL, 0x3ffff81000001ULL,
    0x3ffff78000001ULL, 0x3ffff63000001ULL, 0x3ffff48000001ULL};
inline constexpr std::array<std::uint64_t, kPrimes> kRoot = {
    0x12ee7a8096cc1ULL, 0x213c60dbab186ULL, 0x234f63ec9d170ULL, 0x215ddb4c2e146ULL,
    0x455746c383fbULL,  0x374c698739213ULL, 0x2d150e879919aULL, 0x1fb7b825dd5eaULL,
    0x13a6dc6f3355eULL, 0x30d819d7b258aULL, 0x19a27feca4273ULL};
// The smallest transform of the IFMA path (its last three stages work on 16 values at once).
inline constexpr unsigned kMinLog = 4;

// How the IFMA path computes a product of size n: x in `parts` blocks of `width` columns (a
// multiple of 8; zeros past n), each block an n×width Toeplitz product by a cyclic convolution
// of size 2^log ≥ n + width − 1, the transformed products added before one inverse transform.
struct Shape {
  std::size_t n = 0, parts = 0, width = 0;
  unsigned log = 0;
};

struct Roots;  // its twiddle tables (ntt_ifma.cpp)
}  // namespace ifma

// std::allocator on 64-byte boundaries: the IFMA path reads and writes whole cache lines.
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <class U>
  explicit CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlign)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlign); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) { return true; }
};
using AlignedWords = std::vector<std::uint64_t, CacheLineAllocator<std::uint64_t>>;

struct Roots;  // the portable path's twiddle tables, shared by all plans (ntt.cpp)

// The twiddles of one prime q for transforms of up to 2^log values (root: a primitive
// 2^kMaxLog-th root of unity mod q): entry 2^s + b (stage s, block b) of z is ζ =
// ω_{2^(s+1)}^brev_s(b), the root splitting block b's modulus X^(2·len) − ζ² into X^len ∓ ζ, and
// the same entry of zi is ζ^−1; entry 0 is unused (0). Public constants, variable time. Both
// paths build their tables from it (ntt.cpp; defined there, outside the IFMA target).
void stage_roots(std::uint64_t q, std::uint64_t root, unsigned log, std::vector<std::uint64_t>& z,
                 std::vector<std::uint64_t>& zi);

// y[i] += Σ_{j<n} t[n−1+i−j]·x[j] mod ℓ for i < n: the product of the n×n Toeplitz matrix with
// diagonals t (2n − 1 public values, Montgomery form) by x. The plan keeps the transforms of t.
//
// Memory, per plan: the transforms of t for the paths used so far, 9·2^log words (portable) and
// 11·parts·2^log' words (IFMA, with ifma::Shape's parts and log'): 4.5 and 5.5 MiB for
// n = 21,569 (one transform of 2^16; two parts over 2^15). The twiddles are shared by all
// plans of a path, 36·2^log and 44·2^log' words for the largest transform in use (18 MiB at
// 2^16, 11 MiB at 2^15). apply() allocates scratch and wipes it: 2^log + 9·n words (portable),
// parts·2^log' + 11·n + 5·parts·width words (IFMA, n rounded up to a multiple of 8).
class ToeplitzPlan {
 public:
  explicit ToeplitzPlan(std::span<const field::Fe> t);
  [[nodiscard]] std::size_t size() const noexcept { return n_; }
  // x and y hold n values each (Montgomery form). Constant time in x and y; wipes its scratch.
  void apply(std::span<const field::Fe> x, std::span<field::Fe> y) const;

 private:
  // The diagonals as integers (< ℓ), back from the transforms of a path that has them.
  [[nodiscard]] std::vector<field::Fe> diagonals() const;
  void build_portable(std::span<const field::Fe> plain) const;
  void build_ifma(std::span<const field::Fe> plain) const;

  std::size_t n_ = 0;
  unsigned log_ = 0;  // transform size 2^log_ ≥ 2n − 1
  ifma::Shape ifma_shape_;
  // Each path's tables are made once: by the constructor for the path in use then (made_ifma_),
  // by the first apply() on the other path otherwise (from the diagonals the first one gives
  // back).
  bool made_ifma_ = false;
  mutable std::once_flag portable_once_, ifma_once_;
  mutable std::shared_ptr<const Roots> roots_;
  mutable std::vector<std::uint64_t> that_;  // per prime: transform of t, times 2^−log·2^64 mod p
  mutable std::shared_ptr<const ifma::Roots> ifma_roots_;
  mutable AlignedWords ifma_that_;  // per prime and part: transform of t, scaled (ntt_ifma.cpp)
};

// Residues of the integer with little-endian 64-bit limbs a (< 2^256) modulo each prime, and the
// inverse: Garner's mixed-radix reconstruction of an integer below Π p_k, reduced mod ℓ
// (Montgomery form in, Montgomery form out: the reconstruction is linear). Exposed for tests.
[[nodiscard]] std::array<std::uint64_t, kPrimes> residues(const field::Fe& a);
[[nodiscard]] field::Fe reconstruct(const std::array<std::uint64_t, kPrimes>& r);

// The same for the IFMA path's primes; they run only when gopa::detail::ifma_supported().
// ifma::reconstruct takes residues of an integer below Π q_k / 4 (the products stay below
// Π q_k / 2^25): its CRT sum finds the multiple of Π q_k to drop from a 20-bit fixed-point sum.
namespace ifma {
[[nodiscard]] std::array<std::uint64_t, kPrimes> residues(const field::Fe& a);
[[nodiscard]] field::Fe reconstruct(const std::array<std::uint64_t, kPrimes>& r);
}  // namespace ifma

}  // namespace gopa::sigma::ntt
