// Shared helpers for the sigma tests.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

#include "gopa/deviation.hpp"
#include "gopa/pedersen.hpp"
#include "gopa/sigma/range.hpp"

namespace gopa::sigma::test {

struct RangeInstance {
  RangeStatement st;
  std::vector<SecretScalar> values, blinders;
};

inline RangeInstance make_range_instance(unsigned bits, std::size_t d, Rng& rng,
                                         const GeneratorSet& gens) {
  RangeInstance inst;
  inst.st.bits = bits;
  for (std::size_t j = 0; j < d; ++j) {
    std::uint64_t v = rng.next_u64();
    if (bits < 64) v &= (std::uint64_t{1} << bits) - 1;
    inst.values.push_back(SecretScalar::from_u64(v));
    inst.blinders.push_back(SecretScalar::random(rng));
    inst.st.commitments.push_back(commit(inst.values.back(), inst.blinders.back(), gens));
  }
  return inst;
}

// The generator a test deviation's offset goes along, for test messages.
inline const char* along_name(gopa::testing::Along a) {
  using gopa::testing::Along;
  switch (a) {
    case Along::kG: return "G";
    case Along::kH: return "H";
    case Along::kQ: return "Q";
    case Along::kGi: return "G_i";
  }
  return "?";
}

// Tamper matrix (STYLE.md practice 7) on a proof's bytes.
using Bytes = std::vector<std::uint8_t>;
// Decodes and verifies raw bytes against a fixed statement; true iff accepted.
using Accepts = std::function<bool(const Bytes&)>;

inline void truncations_rejected(const Bytes& good, const Accepts& accepts) {
  for (std::size_t len = 0; len < good.size(); ++len) {
    INFO("truncated to " << len);
    CHECK(!accepts(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len))));
  }
  Bytes longer = good;
  longer.push_back(0);
  CHECK(!accepts(longer));
}

inline void bit_flips_rejected(const Bytes& good, const Accepts& accepts, std::size_t stride_bytes) {
  for (std::size_t i = 0; i < good.size(); i += stride_bytes) {
    for (unsigned b = 0; b < 8; ++b) {
      Bytes bad = good;
      bad[i] = static_cast<std::uint8_t>(bad[i] ^ (1U << b));
      INFO("byte " << i << " bit " << b);
      CHECK(!accepts(bad));
    }
  }
}

// Replaces every 32-byte element (from `offset` on) with the one at the same place of
// another valid proof of the same statement.
inline void splices_rejected(const Bytes& good, const Bytes& other, std::size_t offset, const Accepts& accepts) {
  REQUIRE(good.size() == other.size());
  for (std::size_t i = offset; i + 32 <= good.size(); i += 32) {
    Bytes bad = good;
    std::copy(other.begin() + static_cast<std::ptrdiff_t>(i), other.begin() + static_cast<std::ptrdiff_t>(i + 32),
              bad.begin() + static_cast<std::ptrdiff_t>(i));
    if (bad == good) continue;
    INFO("element at " << i);
    CHECK(!accepts(bad));
  }
}

}  // namespace gopa::sigma::test
