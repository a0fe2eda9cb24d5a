// Engines for box_muller_shares: ClearEngine (integers: reference and dry-run counts).
// Internal header of src/sampling.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "box_muller_shares.hpp"
#include "gopa/check.hpp"

namespace gopa::sampling::detail {

// Exact integer semantics of the shared computation. Truncations return floor(x/2^s) plus the
// given offset (the shared truncations add a small offset, docs/sampling.md §3).
class ClearEngine {
 public:
  using Val = i128;
  ClearEngine(std::uint64_t s1, std::uint64_t s2, std::vector<int> offsets)
      : seeds_{s1, s2}, offsets_(std::move(offsets)) {}

  Val constant(i128 v) const noexcept { return v; }
  Val add(Val a, Val b) const noexcept { return a + b; }
  Val sub(Val a, Val b) const noexcept { return a - b; }
  Val add_const(Val a, i128 c) const noexcept { return a + c; }
  Val mul_const(Val a, i128 c) const noexcept { return a * c; }
  Val lincomb(std::span<const Val> v, std::span<const i128> w, i128 c) const noexcept {
    for (std::size_t i = 0; i < v.size(); ++i) c += v[i] * w[i];
    return c;
  }
  Val mul(Val a, Val b) noexcept {
    ++muls;
    return a * b;
  }
  Val trunc(Val x, unsigned s, unsigned k) {
    GOPA_CHECK(x < p2(k) && x >= -p2(k), "truncated value within its stated bound");
    truncs.emplace_back(false, s);
    return (x >> s) + next_offset();
  }
  Val trunc_exact(Val x, unsigned s, unsigned k) {
    GOPA_CHECK(x < p2(k) && x >= -p2(k), "truncated value within its stated bound");
    truncs.emplace_back(true, s);
    return (x >> s) + next_offset();
  }
  std::vector<Val> seed_bits(unsigned m) {
    GOPA_CHECK(calls_ < 2, "two seeds per Box–Muller call");
    const std::uint64_t s = seeds_[calls_++];
    std::vector<Val> out(m);
    for (unsigned i = 0; i < m; ++i) out[i] = static_cast<i128>((s >> i) & 1U);
    return out;
  }

  std::uint64_t muls = 0;
  std::vector<std::pair<bool, unsigned>> truncs;  // (exact?, shift) of every truncation, in order

 private:
  int next_offset() {
    const std::size_t i = idx_++;
    return i < offsets_.size() ? offsets_[i] : 0;
  }
  std::uint64_t seeds_[2];
  unsigned calls_ = 0;
  std::vector<int> offsets_;
  std::size_t idx_ = 0;
};

}  // namespace gopa::sampling::detail
