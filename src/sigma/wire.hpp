// Internal: the byte order and the shared header of this layer's proofs (docs/proofs.md: every
// integer little-endian). Reading and writing go through gopa/bytes.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "gopa/bytes.hpp"
#include "gopa/sigma/common.hpp"

namespace gopa::sigma::wire {

using Writer = ByteWriter<ByteOrder::little>;
using Reader = ByteReader<ByteOrder::little>;

// The 5-byte header of a proof over b bits and d values (range, L2 ball): version, kind, b, d
// (u16). read_sized_header checks the version and the kind; the caller checks b and d.
struct SizedHeader {
  std::uint8_t bits = 0;
  std::uint16_t d = 0;
};
inline void put_sized_header(std::vector<std::uint8_t>& out, ProofKind kind, unsigned bits, std::size_t d) {
  Writer(out).u8(kProofVersion).u8(static_cast<std::uint8_t>(kind)).u8(static_cast<std::uint8_t>(bits))
      .u16(static_cast<std::uint16_t>(d));
}
inline std::optional<SizedHeader> read_sized_header(std::span<const std::uint8_t> in, ProofKind want) {
  Reader r(in);
  const auto ver = r.u8();
  const auto kind = r.u8();
  const auto bits = r.u8();
  const auto d = r.u16();
  if (!r.ok() || ver != kProofVersion || kind != static_cast<std::uint8_t>(want)) return std::nullopt;
  return SizedHeader{bits, d};
}

}  // namespace gopa::sigma::wire
