// A cheating prover is rejected by the witness checker: every hint tampered, a wrong output,
// seeds not matching their commitments, reused public randomness, a modular (out-of-range) cheat.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "gopa/circuits/gadgets.hpp"
#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/circuits/seeds.hpp"
#include "gopa/random.hpp"
#include "sanitize.hpp"

using namespace gopa::circuits;
using gopa::Scalar;

namespace {

struct Instance {
  SamplerParams p;
  std::size_t d;
  std::vector<i128> xs, ys;
};

Instance make_instance(SamplerKind kind, unsigned f, std::size_t d, std::uint64_t seed) {
  Instance in{SamplerParams::make(kind, f, 1.5), d, {}, {}};
  gopa::DeterministicRng rng(seed);
  const std::size_t calls = (d + in.p.samples_per_call() - 1) / in.p.samples_per_call();
  const std::uint64_t mask = (std::uint64_t{1} << in.p.m) - 1U;
  for (std::size_t i = 0; i < calls * in.p.seeds_per_call(); ++i) {
    in.xs.push_back(static_cast<i128>(rng.next_u64() & mask));
    in.ys.push_back(static_cast<i128>(rng.next_u64() & mask));
  }
  return in;
}

CheckResult run(const Instance& in, const Recorder::Tamper& t, std::size_t* hints = nullptr) {
  Recorder rec(in.p.circuit_name(in.d));
  if (t) rec.set_tamper(t);
  (void)gaussian_circuit(rec, in.p, in.xs, in.ys, in.d);
  if (hints != nullptr) *hints = rec.hints();
  return check_witness(rec.circuit(), rec.values());
}

// Under sanitizers (≈10× slower) GOPA_TEST_STRIDE > 1 thins the sweep further.
std::size_t stride() {
  const char* s = std::getenv("GOPA_TEST_STRIDE");
  return s != nullptr && std::atoi(s) > 0 ? static_cast<std::size_t>(std::atoi(s)) : 1U;
}

}  // namespace

TEST_CASE("tampering with any single hint is rejected", "[circuits][soundness]") {
  // ~80 hints per sampler, spread evenly over the circuit and offset per sampler (a full sweep of
  // every hint passed during development; it takes minutes: set GOPA_TEST_ALL_HINTS=1).
  for (auto kind : {SamplerKind::kBoxMuller, SamplerKind::kInverseCdf, SamplerKind::kPolar,
                    SamplerKind::kClt}) {
    const Instance in = make_instance(kind, 8, 2, 31);
    std::size_t hints = 0;
    REQUIRE(run(in, nullptr, &hints).ok());
    const std::size_t step = std::getenv("GOPA_TEST_ALL_HINTS") != nullptr ? 1U : std::max<std::size_t>(1, hints * test::kScale / 80);
    std::size_t rejected = 0, tried = 0;
    for (std::size_t h = 0; h < hints; h += step * stride()) {
      for (i128 delta : {i128{1}, i128{-1}}) {
        ++tried;
        const CheckResult r = run(in, [h, delta](std::size_t i, i128 v) { return i == h ? v + delta : v; });
        if (!r.ok()) ++rejected;
        else FAIL_CHECK(sampler_name(kind) << ": hint " << h << " + " << static_cast<long long>(delta) << " accepted");
      }
    }
    INFO(sampler_name(kind) << ": " << rejected << " of " << tried << " tampered witnesses rejected");
    CHECK(rejected == tried);
  }
}

TEST_CASE("a wrong sample is rejected (η ≠ Sampler(seeds))", "[circuits][soundness]") {
  const Instance in = make_instance(SamplerKind::kBoxMuller, 16, 2, 32);
  Recorder rec(in.p.circuit_name(in.d));
  (void)gaussian_circuit(rec, in.p, in.xs, in.ys, in.d);
  REQUIRE(check_witness(rec.circuit(), rec.values()).ok());
  const auto outs = rec.circuit().vars_of(VarKind::kOutput);
  REQUIRE(outs.size() == 2);
  rec.set_value(outs[1], rec.values()[outs[1]] + Scalar::one());
  const CheckResult r = check_witness(rec.circuit(), rec.values());
  CHECK(r.error == CheckError::kLinear);
}

TEST_CASE("seeds must open their commitments", "[circuits][soundness]") {
  gopa::DeterministicRng rng(33);
  const auto p = SamplerParams::make(SamplerKind::kInverseCdf, 16);
  std::vector<PrivateSeed> seeds;
  std::vector<gopa::Point> cs;
  std::vector<Scalar> rs;
  for (int i = 0; i < 2; ++i) {
    seeds.push_back(PrivateSeed::draw(p.m, rng));
    cs.push_back(seeds.back().commitment());
    rs.push_back(seeds.back().blinder().declassify());
  }
  // Public randomness from a joint commit–reveal among three parties.
  std::vector<gopa::Bytes32> rhos(3);
  for (auto& r : rhos) rng.fill(r);
  for (auto& r : rhos) CHECK(beacon_check(beacon_commit(r), r));
  gopa::Bytes32 other = rhos[0];
  other[0] ^= 1;
  CHECK_FALSE(beacon_check(beacon_commit(rhos[0]), other));
  const auto ys64 = public_randomness(rhos, /*party=*/7, 2, p.m);
  std::vector<i128> xs = {static_cast<i128>(seeds[0].value()), static_cast<i128>(seeds[1].value())};
  std::vector<i128> ys(ys64.begin(), ys64.end());
  std::vector<Scalar> expected_public = {Scalar::from_u64(ys64[0]), Scalar::from_u64(ys64[1])};
  {
    Recorder rec(p.circuit_name(2));
    (void)gaussian_circuit(rec, p, xs, ys, 2);
    CHECK(check_witness(rec.circuit(), rec.values(), expected_public).ok());
    CHECK(check_committed_seeds(rec.circuit(), rec.values(), cs, rs));
  }
  SECTION("a different private seed does not open the commitment") {
    std::vector<i128> xs2 = xs;
    xs2[1] ^= 1;
    Recorder rec(p.circuit_name(2));
    (void)gaussian_circuit(rec, p, xs2, ys, 2);
    CHECK(check_witness(rec.circuit(), rec.values(), expected_public).ok());  // a valid circuit…
    CHECK_FALSE(check_committed_seeds(rec.circuit(), rec.values(), cs, rs));  // …for other seeds
  }
  SECTION("reused public randomness is rejected") {
    // Sample 1 reuses y_0 (or another party's y): the verifier recomputes y_j for (party, j).
    std::vector<i128> ys2 = {ys[0], ys[0]};
    Recorder rec(p.circuit_name(2));
    (void)gaussian_circuit(rec, p, xs, ys2, 2);
    const CheckResult r = check_witness(rec.circuit(), rec.values(), expected_public);
    CHECK(r.error == CheckError::kPublicInput);
    CHECK(r.index == 1);
    const auto other_party = public_randomness(rhos, 8, 2, p.m);
    CHECK(other_party != ys64);
  }
}

TEST_CASE("modular cheat on a truncation is caught by the quotient's range check",
          "[circuits][soundness]") {
  // x = q·2^s + r over Z_ℓ holds for ANY r ∈ [0, 2^s) with q = (x − r)/2^s mod ℓ; only the
  // range check on q pins q = floor(x / 2^s).
  const unsigned s = 4, hb = 12;
  for (bool with_q_range : {true, false}) {
    Recorder rec("cheat");
    auto x = rec.committed_input(1000);
    auto q = rec.witness(floor_shift(1000, s));
    assert_range(rec, rec.sub(x, rec.mul_const(q, pow2(s))), s);
    if (with_q_range) assert_range(rec, rec.add_const(q, pow2(hb - 1)), hb);
    REQUIRE(check_witness(rec.circuit(), rec.values()).ok());
    // Cheat: r' = (r + 1) mod 2^s with q' = (x − r')·2^-s mod ℓ (a huge field element).
    const i128 r_cheat = (1000 % 16 + 1) % 16;
    const Scalar inv16 = *Scalar::from_u64(16).invert();
    const Scalar q_cheat = (Scalar::from_u64(1000) - scalar_from_i128(r_cheat)) * inv16;
    // Variables: 0 = x, 1 = q, 2..5 = bits of r, then (if present) the bits of q + 2^(hb−1).
    rec.set_value(1, q_cheat);
    for (std::uint32_t i = 0; i < s; ++i) rec.set_value(2 + i, Scalar::from_u64((r_cheat >> i) & 1));
    const CheckResult r = check_witness(rec.circuit(), rec.values());
    if (with_q_range) {
      CHECK_FALSE(r.ok());  // the bits of q + 2^(hb−1) no longer sum to it
    } else {
      CHECK(r.ok());  // without the bound the cheat goes through: why every hint is range-checked
    }
  }
}

TEST_CASE("a seed carry cannot be forged and x must be in range", "[circuits][soundness]") {
  const unsigned m = 8;
  for (auto [x, y, ok] : {std::tuple{i128{200}, i128{100}, true}, std::tuple{i128{256}, i128{0}, false},
                          std::tuple{i128{-1}, i128{5}, false}}) {
    ClearBuilder b;
    (void)seed_gadget(b, b.committed_input(x), b.public_input(y), m);
    CHECK(b.ok() == ok);
    Recorder rec("seed");
    (void)seed_gadget(rec, rec.committed_input(x), rec.public_input(y), m);
    CHECK(check_witness(rec.circuit(), rec.values()).ok() == ok);
  }
}
