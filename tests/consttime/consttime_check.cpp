// Runs every secret-handling operation on secrets marked undefined (see gopa/check.hpp).
// Under valgrind memcheck, a branch or table index on a secret is reported; the test fails.
#include <cstdio>
#include <memory>
#include <string_view>
#include <vector>

#include "gopa/check.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"
#include "gopa/pedersen.hpp"

int main(int argc, char** argv) {
  gopa::crypto_init();
  if (argc > 1 && std::string_view(argv[1]) == "--negative-control") {
    // A deliberate branch on a secret: valgrind must report it (the CTest expects failure),
    // which shows the harness can fail.
    gopa::SecretScalar s = gopa::SecretScalar::random(*std::make_unique<gopa::DeterministicRng>(2));
    std::uint8_t b[32];
    decaf_255_scalar_encode(b, s.raw());
    volatile int sink = 0;
    if (b[0] & 1) sink = sink + 1;
    return 0;  // only valgrind's report can fail this run
  }
  gopa::DeterministicRng rng(1);
  auto gens = gopa::GeneratorSet::get("gopa", 8);

  gopa::SecretScalar x = gopa::SecretScalar::random(rng);  // marked secret on creation
  gopa::SecretScalar r = gopa::SecretScalar::random(rng);
  gopa::SecretScalar y = x * r + x - r;
  gopa::SecretScalar z = y.invert();
  gopa::Point p1 = gopa::Point::base_mul(z);
  gopa::Point p2 = gens->H() * x;
  gopa::Point p3 = gens->H_table().mul(y);
  gopa::Point c = gopa::commit(x, r, *gens);
  std::vector<gopa::SecretScalar> xs;
  for (int i = 0; i < 8; ++i) xs.push_back(gopa::SecretScalar::random(rng));
  gopa::Point v = gopa::commit_vector(xs, r, *gens);
  gopa::Point m = gopa::msm_secret(xs, gens->Gi(8));
  const bool eq = x.ct_equal(r);

  // Published values are declassified before they are branched on.
  gopa::Point all = p1 + p2 + p3 + c + v + m;
  auto enc = all.encode();
  gopa::gopa_declassify(enc.data(), enc.size());
  std::printf("consttime_check: %s %d\n", gopa::to_hex(enc).substr(0, 16).c_str(), eq ? 1 : 0);
  return 0;
}
