// Strict byte writers and readers for the hidden-sample committee's public log
// (docs/sampling.md, "Public log"). Internal header of src/sampling.
// Readers never abort: every read checks the remaining length first and returns nullopt.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/group.hpp"
#include "gopa/sampling/paillier.hpp"
#include "../sigma/wire.hpp"

namespace gopa::sampling::wire {

// The little-endian integers, points and scalars of the proofs layer (src/sigma/wire.hpp).
using sigma::wire::put_point;
using sigma::wire::put_scalar;
using sigma::wire::put_u32;
using sigma::wire::put_u8;

// A non-negative integer as exactly `len` big-endian bytes (the value must fit).
inline void put_big(std::vector<std::uint8_t>& out, const BigInt& v, std::size_t len) {
  const auto b = v.to_bytes(len);
  out.insert(out.end(), b.begin(), b.end());
}

// sigma's strict reader, plus fixed-length big integers.
class Reader : public sigma::wire::Reader {
 public:
  using sigma::wire::Reader::Reader;
  // Exactly `len` big-endian bytes; every value in [0, 256^len) has one encoding.
  [[nodiscard]] std::optional<BigInt> big(std::size_t len) {
    if (remaining() < len) return std::nullopt;
    const auto b = bytes(len);
    BigInt v;
    if (len > 0) mpz_import(v.get(), len, 1, 1, 0, 0, b.data());
    return v;
  }
};

}  // namespace gopa::sampling::wire
