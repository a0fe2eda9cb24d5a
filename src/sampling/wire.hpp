// The byte order of the hidden-sample committee's public log (docs/sampling.md, "Public log"):
// the proofs layer's little-endian integers, points and scalars (gopa/bytes.hpp), plus
// fixed-length big-endian big integers. Internal header of src/sampling.
#pragma once

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gopa/bytes.hpp"
#include "gopa/sampling/paillier.hpp"
#include "../sigma/wire.hpp"

namespace gopa::sampling::wire {

using sigma::wire::Reader;
using sigma::wire::Writer;

// A non-negative integer as exactly `len` big-endian bytes (the value must fit).
inline void put_big(std::vector<std::uint8_t>& out, const BigInt& v, std::size_t len) {
  Writer(out).bytes(v.to_bytes(len));
}

// Exactly `len` big-endian bytes; every value in [0, 256^len) has one encoding. Zero after a
// failure (which r latches).
inline BigInt read_big(Reader& r, std::size_t len, const char* what = nullptr) {
  const auto b = r.bytes(len, what);
  BigInt v;
  if (len > 0 && b.size() == len) mpz_import(v.get(), len, 1, 1, 0, 0, b.data());
  return v;
}

}  // namespace gopa::sampling::wire
