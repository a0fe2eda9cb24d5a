// The clear-text evaluator, the constraint recorder and the witness-only builder agree; the
// circuit encoding is canonical.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "gopa/circuits/gadgets.hpp"
#include "gopa/circuits/recorder.hpp"
#include "gopa/circuits/samplers.hpp"
#include "gopa/random.hpp"

using namespace gopa::circuits;
using gopa::Scalar;

namespace {

i128 draw(gopa::Rng& rng, i128 lo, i128 hi) {
  return lo + static_cast<i128>(rng.uniform(static_cast<std::uint64_t>(hi - lo) + 1U));
}

// Runs gadget g(builder, inputs...) on both builders; outputs, validity and gate counts agree.
template <class G>
void agree(const std::vector<i128>& inputs, G g) {
  ClearBuilder cb;
  std::vector<i128> cin(inputs.begin(), inputs.end());
  std::vector<i128> cout = g(cb, cin);
  Recorder rec("test");
  std::vector<Recorder::Wire> rin;
  for (i128 v : inputs) rin.push_back(rec.committed_input(v));
  std::vector<Recorder::Wire> rout = g(rec, rin);
  REQUIRE(cb.ok());
  REQUIRE(rec.shadow_exact());
  REQUIRE(check_witness(rec.circuit(), rec.values()).ok());
  REQUIRE(cout.size() == rout.size());
  for (std::size_t i = 0; i < cout.size(); ++i) {
    CHECK(rout[i].val == scalar_from_i128(cout[i]));
    CHECK(rout[i].lc.eval(rec.values()) == rout[i].val);
  }
  CHECK(cb.mul_gates() == rec.circuit().muls.size());
}

}  // namespace

TEST_CASE("scalar_from_i128 embeds negatives as ℓ − |v|", "[circuits][builder]") {
  CHECK(scalar_from_i128(-1) == -Scalar::one());
  CHECK(scalar_from_i128(5) == Scalar::from_u64(5));
  const i128 big = (static_cast<i128>(0x1234567) << 70) + 99;
  CHECK(scalar_from_i128(big) + scalar_from_i128(-big) == Scalar::zero());
  CHECK(scalar_from_i128(pow2(64)) == Scalar::from_u64(1ULL << 32) * Scalar::from_u64(1ULL << 32));
  // Both words, and the extremes of i128, against scalar arithmetic.
  const Scalar two64 = Scalar::from_u64(1ULL << 32) * Scalar::from_u64(1ULL << 32);
  CHECK(scalar_from_i128(big) ==
        Scalar::from_u64(0x1234567ULL << 6) * two64 + Scalar::from_u64(99));
  const i128 most = static_cast<i128>((static_cast<u128>(1) << 127) - 1);
  const Scalar two127 = Scalar::from_u64(1ULL << 63) * two64;
  CHECK(scalar_from_i128(most) == two127 - Scalar::one());
  CHECK(scalar_from_i128(-most - 1) == -two127);
}

TEST_CASE("gadgets: clear evaluator and recorder agree on random and edge inputs",
          "[circuits][builder]") {
  gopa::DeterministicRng rng(21);
  const unsigned F = 16;
  std::vector<std::vector<i128>> cases = {{0, 1}, {1, 0}, {-1, 1}, {pow2(F + 2) - 1, -pow2(F + 2)}};
  for (int i = 0; i < 40; ++i)
    cases.push_back({draw(rng, -pow2(F + 2), pow2(F + 2)), draw(rng, -pow2(F + 2), pow2(F + 2))});
  for (const auto& in : cases) {
    agree(in, [&](auto& b, auto& w) {
      using W = std::remove_cvref_t<decltype(w[0])>;
      std::vector<W> out;
      out.push_back(fx_mul(b, w[0], w[1], F, F + 8));
      out.push_back(less_than(b, w[0], w[1], F + 4));
      out.push_back(less_equal(b, w[0], w[1], F + 4));
      out.push_back(select(b, less_than(b, w[0], w[1], F + 4), w[0], w[1]));
      out.push_back(shift_floor(b, w[0], 5, F));
      return out;
    });
    const i128 x = in[0] < 0 ? -in[0] : in[0];
    const i128 d = (in[1] < 0 ? -in[1] : in[1]) + 1;
    const i128 u = x & (pow2(F) - 1);
    agree({x, d, u}, [&](auto& b, auto& w) {
      using W = std::remove_cvref_t<decltype(w[0])>;
      std::vector<W> out;
      out.push_back(fx_div(b, w[0], w[1], F, F + 4, F + 24));
      out.push_back(fx_sqrt(b, w[0], F, F + 4));
      out.push_back(fx_ln(b, b.add_const(w[1], 0), F + 4, ln_table(F)));
      out.push_back(fx_ln_wide(b, b.add_const(w[1], 0), F + 4, lnq_table(F)));
      out.push_back(fx_ln_rel(b, b.add_const(w[1], 0), F + 4, lnq_split_table(F)));
      auto [c, s] = fx_cos_sin_2pi(b, w[2], cos2pi_table(F));
      out.push_back(c);
      out.push_back(s);
      auto [cw, sw] = fx_cos_sin_2pi_wide(b, w[2], cos2pi_table(F));
      out.push_back(cw);
      out.push_back(sw);
      for (auto& bit : to_bits(b, w[0], F + 3)) out.push_back(bit);
      return out;
    });
  }
}

TEST_CASE("samplers: clear evaluator, recorder and witness-only builder agree (full circuit, d samples)",
          "[circuits][builder]") {
  gopa::DeterministicRng rng(22);
  for (auto kind : {SamplerKind::kBoxMuller, SamplerKind::kPolar, SamplerKind::kInverseCdf,
                    SamplerKind::kClt}) {
    for (unsigned f : {12U, 16U}) {
      const auto p = SamplerParams::make(kind, f, 2.5);
      const std::size_t d = 3;
      const std::size_t calls = (d + p.samples_per_call() - 1) / p.samples_per_call();
      const std::size_t need = calls * p.seeds_per_call();
      std::vector<i128> xs, ys;
      const std::uint64_t mask = (std::uint64_t{1} << p.m) - 1U;
      for (std::size_t i = 0; i < need; ++i) {
        xs.push_back(static_cast<i128>(rng.next_u64() & mask));
        ys.push_back(static_cast<i128>(i == 0 ? mask : rng.next_u64() & mask));
      }
      ClearBuilder cb;
      auto cz = gaussian_circuit(cb, p, xs, ys, d);
      Recorder rec(p.circuit_name(d));
      auto rz = gaussian_circuit(rec, p, xs, ys, d);
      REQUIRE(cb.ok());
      REQUIRE(check_witness(rec.circuit(), rec.values()).ok());
      REQUIRE(cz.size() == d);
      REQUIRE(rz.size() == d);
      const auto outs = rec.circuit().vars_of(VarKind::kOutput);
      REQUIRE(outs.size() == d);
      for (std::size_t i = 0; i < d; ++i) {
        CHECK(rz[i].val == scalar_from_i128(cz[i]));
        CHECK(rec.values()[outs[i]] == scalar_from_i128(cz[i]));
      }
      CHECK(cb.mul_gates() == rec.circuit().muls.size());
      // The witness-only builder: the same variables, kinds and values, no constraints.
      WitnessRecorder wit;
      (void)gaussian_circuit(wit, p, xs, ys, d);
      CHECK(wit.shadow_exact());
      CHECK(std::equal(wit.kinds().begin(), wit.kinds().end(), rec.circuit().vars.begin(), rec.circuit().vars.end()));
      CHECK(std::equal(wit.values().begin(), wit.values().end(), rec.values().begin(), rec.values().end()));
      CHECK(rec.circuit().count(VarKind::kCommitted) == need);
      CHECK(rec.circuit().count(VarKind::kPublic) == need);
      // The fast statistics path gives the same samples from the same seeds.
      std::vector<std::uint64_t> seeds;
      for (std::size_t i = 0; i < need; ++i)
        seeds.push_back(static_cast<std::uint64_t>((xs[i] + ys[i]) & static_cast<i128>(mask)));
      std::vector<std::int64_t> fast;
      REQUIRE(clear_samples(p, seeds, fast));
      for (std::size_t i = 0; i < d; ++i) CHECK(static_cast<i128>(fast[i]) == cz[i]);
    }
  }
}

TEST_CASE("circuit encoding is canonical and its id depends on every parameter",
          "[circuits][encoding]") {
  auto record = [](const SamplerParams& p, std::uint64_t seed) {
    gopa::DeterministicRng rng(seed);
    const std::size_t need = p.seeds_per_call();
    std::vector<i128> xs, ys;
    for (std::size_t i = 0; i < need; ++i) {
      xs.push_back(static_cast<i128>(rng.next_u64() & ((1ULL << p.m) - 1U)));
      ys.push_back(static_cast<i128>(rng.next_u64() & ((1ULL << p.m) - 1U)));
    }
    auto rec = std::make_unique<Recorder>(p.circuit_name(p.samples_per_call()));
    (void)gaussian_circuit(*rec, p, xs, ys, p.samples_per_call());
    return rec;
  };
  const auto p = SamplerParams::make(SamplerKind::kBoxMuller, 12);
  auto a = record(p, 1), b = record(p, 2);
  // The circuit does not depend on the witness.
  CHECK(a->circuit().encode() == b->circuit().encode());
  CHECK(a->circuit().id() == b->circuit().id());
  const auto enc = a->circuit().encode();
  const std::string magic = "gopa/circuit/v1";
  REQUIRE(enc.size() > magic.size() + 3);
  CHECK(std::equal(magic.begin(), magic.end(), enc.begin()));
  CHECK(enc[magic.size()] == 1);  // version
  // Different parameters → different ids.
  auto c = record(SamplerParams::make(SamplerKind::kBoxMuller, 16), 1);
  auto d = record(SamplerParams::make(SamplerKind::kBoxMuller, 12, 2.0), 1);
  CHECK(c->circuit().id() != a->circuit().id());
  CHECK(d->circuit().id() != a->circuit().id());
  // Terms are sorted and non-zero.
  for (const auto& g : a->circuit().muls)
    for (const LinComb* lc : {&g.a, &g.b, &g.c})
      for (std::size_t i = 0; i < lc->terms.size(); ++i) {
        CHECK_FALSE(lc->terms[i].coef.is_zero());
        if (i > 0) CHECK(lc->terms[i - 1].var < lc->terms[i].var);
      }
}
