// Uses an installed gopa: commits to a value with Pedersen, checks the opening, decodes the
// commitment's encoding back, and asks the protocol layer how many parties may collude.
#include <cstdio>

#include "gopa/pedersen.hpp"
#include "gopa/protocol/planner.hpp"
#include "gopa/random.hpp"
#include "gopa/version.hpp"

int main() {
  gopa::crypto_init();
  auto gens = gopa::GeneratorSet::get("gopa", 4);
  const gopa::Scalar v = gopa::Scalar::from_u64(42);
  const gopa::Scalar r = gopa::Scalar::from_u64(7);
  const gopa::Point c = gopa::commit(gopa::SecretScalar::from_u64(42), gopa::SecretScalar::from_u64(7), *gens);
  if (!gopa::verify_opening(c, v, r, *gens)) {
    std::fprintf(stderr, "the opening does not verify\n");
    return 1;
  }
  const gopa::Bytes32 bytes = c.encode();
  const auto decoded = gopa::Point::decode(bytes);
  if (!decoded || !(*decoded == c)) {
    std::fprintf(stderr, "the commitment does not decode to itself\n");
    return 1;
  }
  if (gopa::protocol::malicious_count(10, 0.5) != 5) {
    std::fprintf(stderr, "unexpected colluder count\n");
    return 1;
  }
  std::printf("gopa %s: commitment %s verified\n", gopa::kVersion, gopa::to_hex(bytes).c_str());
  return 0;
}
