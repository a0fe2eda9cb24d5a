// libFuzzer target: decoding of sigma-layer proofs (range, circuit, linear form, circuit batch)
// from untrusted bytes must never abort, and
// whatever decodes must re-encode to the same bytes (canonical encodings).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "gopa/sigma/circuit.hpp"
#include "gopa/sigma/linear.hpp"
#include "gopa/sigma/range.hpp"

namespace {

const gopa::sigma::Circuit& small_circuit() {
  static const gopa::sigma::Circuit c = [] {
    gopa::sigma::CircuitBuilder b(gopa::sigma::CircuitBuilder::kVerifier);
    auto x = b.committed();
    auto y = b.secret();
    b.assert_equal(b.mul(x, y), b.public_input(gopa::Scalar::from_u64(6)));
    return b.circuit();
  }();
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> in(data, size);
  if (auto p = gopa::sigma::RangeProof::decode(in)) {
    if (p->encode() != std::vector<std::uint8_t>(in.begin(), in.end())) std::abort();
  }
  if (auto p = gopa::sigma::CircuitProof::decode(in, small_circuit())) {
    if (p->encode() != std::vector<std::uint8_t>(in.begin(), in.end())) std::abort();
  }
  // The first byte picks the vector length of a linear-form proof (1..64) and the instance
  // count of a circuit batch (1..4).
  if (size > 0) {
    const std::size_t n = 1 + data[0] % 64;
    if (auto p = gopa::sigma::LinearProof::decode(in.subspan(1), n)) {
      if (p->encode() != std::vector<std::uint8_t>(in.begin() + 1, in.end())) std::abort();
    }
    const std::size_t s = 1 + data[0] % 4;
    if (auto p = gopa::sigma::CircuitBatchProof::decode_body(in.subspan(1), small_circuit(), s)) {
      std::vector<std::uint8_t> out;
      p->encode_body(out);
      if (out != std::vector<std::uint8_t>(in.begin() + 1, in.end())) std::abort();
    }
  }
  return 0;
}
