// Internal: the AVX-512 IFMA path of ntt.hpp's Toeplitz product (ntt_ifma.cpp), as ntt.cpp's
// ToeplitzPlan uses it. Every function here runs only when gopa::detail::ifma_supported(), and
// aborts in a build without the IFMA code (ifma_target.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ntt.hpp"

namespace gopa::sigma::ntt::ifma {

// The twiddles of the transforms of size 2^log for every log ≤ this table's (shared, cached).
[[nodiscard]] std::shared_ptr<const Roots> roots(unsigned log);

// The split of a product of size n (1 ≤ n ≤ kMaxSize) that needs the fewest operations.
[[nodiscard]] Shape shape(std::size_t n);

// The transforms of the diagonals t (2n − 1 integers < 2^256, n = s.n): kPrimes·s.parts·2^s.log
// words in the layout and scale apply() expects.
[[nodiscard]] AlignedWords transform(std::span<const field::Fe> t, const Shape& s, const Roots& r);

// The inverse of transform(): the diagonals back, given that they are below ℓ.
[[nodiscard]] std::vector<field::Fe> untransform(std::span<const std::uint64_t> that,
                                                 const Shape& s, const Roots& r);

// y[i] += Σ_{j<n} t[n−1+i−j]·x[j] mod ℓ for i < n = s.n, where that = transform(t). Constant
// time in x and y; wipes its scratch.
void apply(std::span<const field::Fe> x, std::span<field::Fe> y,
           std::span<const std::uint64_t> that, const Shape& s, const Roots& r);

}  // namespace gopa::sigma::ntt::ifma
