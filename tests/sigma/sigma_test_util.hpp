// Shared helpers for the sigma tests.
#pragma once

#include <vector>

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

}  // namespace gopa::sigma::test
