// libFuzzer target: the group's decoders of untrusted bytes (points, scalars, hex).
// Invariants: never crash; whatever decodes re-encodes to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gopa/group.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  if (auto p = gopa::Point::decode(in)) {
    const auto e = p->encode();
    if (!std::equal(e.begin(), e.end(), data)) std::abort();
  }
  if (auto s = gopa::Scalar::decode(in)) {
    const auto e = s->encode();
    if (!std::equal(e.begin(), e.end(), data)) std::abort();
  }
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto bytes = gopa::from_hex(text)) {
    if (gopa::to_hex(*bytes).size() != size) std::abort();
  }
  (void)gopa::Scalar::from_decimal(text);
  return 0;
}
