// Multi-scalar multiplication and fixed-base tables against the naive sum of scalar
// multiplications. Sizes stay small enough that the suite also runs under ASAN+UBSAN.
#include <sodium.h>

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <vector>

#include "../../src/group/edwards.hpp"  // internal: the curve model behind libdecaf
#include "../../src/group/simd.hpp"     // internal: the AVX-512 IFMA switch
#include "gopa/group.hpp"
#include "gopa/msm.hpp"

using gopa::MsmBasis;
using gopa::MsmOptions;
using gopa::Point;
using gopa::Scalar;
using gopa::SecretScalar;

namespace {

Scalar minus_one() { return -Scalar::one(); }

// A point set with its discrete logs: points[i] = logs[i]·B, so Σ s_i·points[i] can be checked
// against (Σ s_i·logs[i])·B for any size at the cost of one scalar multiplication. Includes the
// identity and repeated points.
struct Instance {
  std::vector<Scalar> logs;
  std::vector<Point> points;
  std::vector<Scalar> scalars;

  Scalar expected_log(std::size_t n) const {
    Scalar acc;
    for (std::size_t i = 0; i < n; ++i) acc += scalars[i] * logs[i];
    return acc;
  }
};

Instance make_instance(std::size_t n, std::uint64_t seed) {
  gopa::DeterministicRng rng(seed);
  Instance in;
  in.logs.reserve(n);
  in.points.reserve(n);
  in.scalars.reserve(n);
  // Consecutive points differ by a random step, so building them costs one addition each.
  const Scalar step = Scalar::random(rng);
  const Point step_point = Point::base_mul(step);
  Scalar log = Scalar::random(rng);
  Point p = Point::base_mul(log);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t kind = rng.uniform(16);
    if (kind == 0) {
      in.logs.push_back(Scalar::zero());  // the identity
      in.points.push_back(Point::identity());
    } else if (kind == 1 && i > 0) {
      const std::size_t j = rng.uniform(i);  // a repeated point
      in.logs.push_back(in.logs[j]);
      in.points.push_back(in.points[j]);
    } else {
      in.logs.push_back(log);
      in.points.push_back(p);
    }
    log += step;
    p += step_point;
    const std::uint64_t skind = rng.uniform(16);
    if (skind == 0) {
      in.scalars.push_back(Scalar::zero());
    } else if (skind == 1) {
      in.scalars.push_back(minus_one());
    } else if (skind == 2) {
      in.scalars.push_back(Scalar::from_u64(rng.uniform(40)));  // small
    } else {
      in.scalars.push_back(Scalar::random(rng));
    }
  }
  return in;
}

bool fe_eq(const gopa::detail::Fe& a, const gopa::detail::Fe& b) {
  return gopa::detail::fe_is_zero_vartime(gopa::detail::fe_sub(a, b));
}

}  // namespace

TEST_CASE("libdecaf's points lie on -x^2 + y^2 = 1 + 121665 x^2 y^2", "[msm][curve]") {
  using namespace gopa::detail;
  gopa::DeterministicRng rng(7);
  for (int i = 0; i < 20; ++i) {
    const Point p = i == 0 ? Point::base() : Point::random(rng);
    const Ext e = ext_from_decaf(*p.raw());
    // Projectively: (−X² + Y²)·Z² = Z⁴ + d·X²·Y², and T·Z = X·Y.
    const Fe x2 = fe_sq(e.X), y2 = fe_sq(e.Y), z2 = fe_sq(e.Z);
    const Fe lhs = fe_mul(fe_sub(y2, x2), z2);
    const Fe rhs = fe_add(fe_sq(z2), fe_mul_small(fe_mul(x2, y2), kCurveD));
    REQUIRE(fe_eq(lhs, rhs));
    REQUIRE(fe_eq(fe_mul(e.T, e.Z), fe_mul(e.X, e.Y)));
  }
}

TEST_CASE("our Edwards formulas agree with libdecaf", "[msm][curve]") {
  using namespace gopa::detail;
  gopa::DeterministicRng rng(8);
  std::vector<Point> pts{Point::identity(), Point::base()};
  for (int i = 0; i < 30; ++i) pts.push_back(Point::random(rng));
  pts.push_back(pts[2]);
  std::vector<Ext> ext;
  for (const Point& p : pts) ext.push_back(ext_from_decaf(*p.raw()));
  std::vector<Niels> niels(ext.size());
  std::vector<Fe> scratch(ext.size());
  ext_batch_to_niels(ext, niels, scratch);
  auto to_point = [](const Ext& e) {
    Point r;
    ext_to_decaf(*r.raw(), e);
    return r;
  };
  for (std::size_t i = 0; i < pts.size(); ++i) {
    REQUIRE(to_point(ext[i]) == pts[i]);
    REQUIRE(to_point(ext_dbl(ext[i])).encode() == pts[i].dbl().encode());
    for (std::size_t j = 0; j < pts.size(); j += 3) {
      const gopa::Bytes32 sum = (pts[i] + pts[j]).encode();
      const gopa::Bytes32 diff = (pts[i] - pts[j]).encode();
      REQUIRE(to_point(ext_add(ext[i], ext[j])).encode() == sum);
      REQUIRE(to_point(ext_add_niels(ext[i], niels[j])).encode() == sum);
      REQUIRE(to_point(ext_sub_niels(ext[i], niels[j])).encode() == diff);
      REQUIRE(to_point(ext_add_pniels(ext[i], ext_to_pniels(ext[j]))).encode() == sum);
      REQUIRE(to_point(ext_sub_pniels(ext[i], ext_to_pniels(ext[j]))).encode() == diff);
    }
  }
  // Field inversion and canonical reduction.
  for (int i = 0; i < 20; ++i) {
    const Fe a = ext[static_cast<std::size_t>(i) + 1].X;
    REQUIRE(fe_eq(fe_mul(a, fe_invert(a)), fe_one()));
  }
}

#if defined(GOPA_FE_ADX) && GOPA_FE_ADX
namespace {
// The radix-2^64 value of a radix-2^51 element, fully reduced (for comparing the two fields).
gopa::detail::r64::Fe to_r64(const gopa::detail::r51::Fe& a) {
  gf_25519_s g;
  gopa::detail::r51::fe_to_decaf(g, a);
  return gopa::detail::r64::fe_from_decaf(g);
}
bool same(const gopa::detail::r64::Fe& x, const gopa::detail::r51::Fe& y) {
  const auto a = gopa::detail::r64::fe_canonical(x), b = to_r64(y);
  for (int i = 0; i < 4; ++i)
    if (a.v[i] != b.v[i]) return false;
  return true;
}
}  // namespace

TEST_CASE("BMI2/ADX field arithmetic equals the portable field (loose and edge inputs)",
          "[msm][curve][adx]") {
  if (!__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("adx")) {
    WARN("this CPU lacks BMI2/ADX: the assembly field is not exercised");
    return;
  }
  namespace r51 = gopa::detail::r51;
  namespace r64 = gopa::detail::r64;
  gopa::DeterministicRng rng(99);
  // Any 256-bit pattern is a valid r64 input; edge patterns around p, 2^255 and 2^256.
  const std::uint64_t ones = ~std::uint64_t{0}, top = ones >> 1;
  std::vector<r64::Fe> xs{{{0, 0, 0, 0}},
                          {{1, 0, 0, 0}},
                          {{ones - 18, ones, ones, top}},  // p − 1
                          {{ones - 17, ones, ones, top}},  // p
                          {{ones - 16, ones, ones, top}},  // p + 1
                          {{ones, ones, ones, top}},       // 2^255 − 1
                          {{0, 0, 0, std::uint64_t{1} << 63}},  // 2^255
                          {{ones - 37, ones, ones, ones}},      // 2p
                          {{ones, ones, ones, ones}}};          // 2^256 − 1
  for (int i = 0; i < 400; ++i) {
    r64::Fe x;
    for (auto& v : x.v) v = rng.next_u64();
    xs.push_back(x);
  }
  // The same values as r51 elements (through the reduced decaf limbs).
  auto to_r51 = [](const r64::Fe& a) {
    gf_25519_s g;
    r64::fe_to_decaf(g, a);
    return r51::fe_from_decaf(g);
  };
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const r64::Fe& a = xs[i];
    const r51::Fe a51 = to_r51(a);
    REQUIRE(same(a, a51));
    REQUIRE(same(r64::fe_sq(a), r51::fe_sq(a51)));
    REQUIRE(same(r64::fe_neg(a), r51::fe_neg(a51)));
    REQUIRE(same(r64::fe_mul_small(a, 2 * 121665), r51::fe_mul_small(a51, 2 * 121665)));
    if (i % 8 == 0) REQUIRE(same(r64::fe_invert(a), r51::fe_invert(a51)));
    for (std::size_t j = 0; j < xs.size(); j += 7) {
      const r64::Fe& b = xs[j];
      const r51::Fe b51 = to_r51(b);
      REQUIRE(same(r64::fe_mul(a, b), r51::fe_mul(a51, b51)));
      REQUIRE(same(r64::fe_add(a, b), r51::fe_carry(r51::fe_add(a51, b51))));
      REQUIRE(same(r64::fe_sub(a, b), r51::fe_carry(r51::fe_sub(a51, b51))));
    }
  }
  // Chains keep loose values loose-but-correct: 2000 mixed steps in both fields.
  r64::Fe u = xs[8], v = xs[5];
  r51::Fe u51 = to_r51(u), v51 = to_r51(v);
  for (int i = 0; i < 2000; ++i) {
    u = r64::fe_add(r64::fe_mul(u, v), u);
    u51 = r51::fe_carry(r51::fe_add(r51::fe_mul(u51, v51), u51));
    v = r64::fe_sub(r64::fe_sq(v), u);
    v51 = r51::fe_carry(r51::fe_sub(r51::fe_sq(v51), u51));
  }
  REQUIRE(same(u, u51));
  REQUIRE(same(v, v51));
}
#endif

TEST_CASE("msm matches the naive sum for every size 0..64 and a spread up to 2000", "[msm]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  constexpr std::size_t kMax = 2000;
  const Instance in = make_instance(kMax, 42);
  // prefix[n] = Σ_{i<n} s_i·P_i by scalar multiplications (what msm_naive computes).
  std::vector<Point> prefix(kMax + 1);
  for (std::size_t i = 0; i < kMax; ++i) prefix[i + 1] = prefix[i] + in.points[i] * in.scalars[i];

  std::vector<std::size_t> sizes;
  for (std::size_t n = 0; n <= 64; ++n) sizes.push_back(n);
  // Around the Straus/Pippenger switch and the window thresholds, and a spread above.
  for (std::size_t t : std::vector<std::size_t>{129, 256, 640}) {
    sizes.push_back(t - 1);
    sizes.push_back(t);
  }
  for (std::size_t n : std::vector<std::size_t>{65, 100, 127, 128, 255, 256, 257, 333, 511, 512, 777, 1000, 1023, 1024,
                        1025, 1337, 1999, 2000}) {
    sizes.push_back(n);
  }
  const auto s = std::span<const Scalar>(in.scalars);
  const auto p = std::span<const Point>(in.points);
  const MsmBasis basis(p);
  for (std::size_t n : sizes) {
    CAPTURE(n);
    const Point r1 = gopa::msm(s.first(n), p.first(n));
    REQUIRE(r1 == prefix[n]);
    REQUIRE(r1.encode() == prefix[n].encode());
    REQUIRE(gopa::msm(s.first(n), p.first(n), MsmOptions{.threads = 2}) == prefix[n]);
    REQUIRE(basis.msm(s.first(n)) == prefix[n]);
  }
  // msm_naive itself, on a few sizes.
  for (std::size_t n : std::vector<std::size_t>{0, 1, 5, 70}) REQUIRE(gopa::msm_naive(s.first(n), p.first(n)) == prefix[n]);
  // And the known-discrete-log check agrees with the prefix sums.
  REQUIRE(Point::base_mul(in.expected_log(kMax)) == prefix[kMax]);
}

TEST_CASE("msm on degenerate inputs", "[msm]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  gopa::DeterministicRng rng(3);
  for (std::size_t n : std::vector<std::size_t>{1, 2, 17, 128, 129, 300, 1500}) {
    CAPTURE(n);
    std::vector<Point> pts(n);
    std::vector<Scalar> sc(n);
    for (std::size_t i = 0; i < n; ++i) sc[i] = Scalar::random(rng);
    // All identity points.
    REQUIRE(gopa::msm(sc, pts).is_identity());
    // All zero scalars.
    const Point q = Point::random(rng);
    std::vector<Point> same(n, q);
    std::vector<Scalar> zeros(n);
    REQUIRE(gopa::msm(zeros, same).is_identity());
    REQUIRE(gopa::msm(zeros, same, {.threads = 2}).is_identity());
    // ℓ − 1 times one repeated point: −n·Q.
    std::vector<Scalar> m1(n, minus_one());
    const Point expect = q * Scalar::from_u64(n);
    REQUIRE(gopa::msm(m1, same) == -expect);
    REQUIRE(gopa::msm(m1, same, {.threads = 2}) == -expect);
    // s and −s on the same point cancel.
    std::vector<Scalar> pm(n);
    std::vector<Point> qq(n);
    for (std::size_t i = 0; i < n; ++i) {
      pm[i] = (i % 2 == 0) ? sc[i / 2 * 2] : -sc[i / 2 * 2];
      qq[i] = same[i];
    }
    const Point rem = (n % 2 == 1) ? q * sc[n - 1] : Point::identity();
    REQUIRE(gopa::msm(pm, qq) == rem);
  }
}

TEST_CASE("msm when every batch of bucket additions collides: equal scalars, small scalars, one point",
          "[msm][buckets]") {
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  gopa::DeterministicRng rng(5);
  for (std::size_t n : std::vector<std::size_t>{300, 1100, 5000}) {
    CAPTURE(n);
    const Instance in = make_instance(n, 600 + n);
    // One scalar for every point: every term lands in the same buckets.
    const Scalar s = Scalar::random(rng);
    std::vector<Scalar> same(n, s);
    Scalar log;
    for (std::size_t i = 0; i < n; ++i) log += s * in.logs[i];
    REQUIRE(gopa::msm(same, in.points) == Point::base_mul(log));
    REQUIRE(gopa::msm(same, in.points, {.threads = 2}) == Point::base_mul(log));
    // Scalars 1, 2, 3, ±1: a few buckets of the lowest window take every term.
    std::vector<Scalar> small(n);
    Scalar log2;
    for (std::size_t i = 0; i < n; ++i) {
      small[i] = i % 4 == 3 ? -Scalar::one() : Scalar::from_u64(i % 4 + 1);
      log2 += small[i] * in.logs[i];
    }
    REQUIRE(gopa::msm(small, in.points) == Point::base_mul(log2));
    // A basis that has earned its window tables, on the same colliding scalars.
    const MsmBasis basis(in.points);
    for (int use = 0; use < 9; ++use) REQUIRE(basis.msm(same) == Point::base_mul(log));
    REQUIRE(basis.msm(small) == Point::base_mul(log2));
  }
}

TEST_CASE("msm with two threads on larger inputs", "[msm][threads][tsan]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  for (std::size_t n : std::vector<std::size_t>{4097, 12289}) {
    CAPTURE(n);
    const Instance in = make_instance(n, 100 + n);
    const Point expect = Point::base_mul(in.expected_log(n));
    REQUIRE(gopa::msm(in.scalars, in.points) == expect);
    REQUIRE(gopa::msm(in.scalars, in.points, {.threads = 2}) == expect);
    REQUIRE(gopa::msm(in.scalars, in.points, {.threads = 3}) == expect);
    const MsmBasis basis(in.points);
    REQUIRE(basis.msm(in.scalars, {.threads = 2}) == expect);
  }
}

TEST_CASE("msm_scratch_bytes stays within budget at n = 2^20", "[msm]") {
  REQUIRE(gopa::msm_scratch_bytes(0) == 0);
  REQUIRE(gopa::msm_scratch_bytes(1u << 20) <= (std::size_t{512} << 20));
  REQUIRE(gopa::msm_scratch_bytes(1u << 20, {.threads = 2}) <= (std::size_t{512} << 20));
}

TEST_CASE("FixedBaseTable matches the constant-time scalar multiplication", "[msm][fixed]") {
  gopa::DeterministicRng rng(11);
  std::vector<Point> bases{Point::base(), Point::identity()};
  for (int i = 0; i < 4; ++i) bases.push_back(Point::random(rng));
  std::vector<Scalar> ks{Scalar::zero(), Scalar::one(), minus_one(), Scalar::from_u64(8),
                         Scalar::from_u64(15), Scalar::from_u64(16), -Scalar::from_u64(8)};
  // 2^252 and 2^253 − 1 mod ℓ; all-8 nibbles (maximal carries).
  Scalar two252 = Scalar::one();
  for (int i = 0; i < 252; ++i) two252 += two252;
  ks.push_back(two252);
  gopa::Bytes32 eights{};
  eights.fill(0x88);
  eights[31] = 0x08;
  ks.push_back(*Scalar::decode(eights));
  for (int i = 0; i < 20; ++i) ks.push_back(Scalar::random(rng));
  for (const Point& b : bases) {
    const gopa::FixedBaseTable table(b);
    REQUIRE(table.base() == b);
    for (const Scalar& k : ks) {
      const Point expect = b * k;
      REQUIRE(table.mul(k).encode() == expect.encode());
      const SecretScalar sk(k);
      REQUIRE(table.mul(sk) == expect);
    }
  }
  const gopa::FixedBaseTable g(Point::base());
  for (int i = 0; i < 20; ++i) {
    const SecretScalar k = SecretScalar::random(rng);
    REQUIRE(g.mul(k) == Point::base_mul(k));
  }
  // Moved-to tables keep working.
  gopa::FixedBaseTable moved = gopa::FixedBaseTable(bases[2]);
  REQUIRE(moved.mul(Scalar::from_u64(3)) == bases[2] + bases[2] + bases[2]);
}

TEST_CASE("MsmBasis window tables (after repeated use) match the expected sums", "[msm][windows]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  // 1100 points: above the size where a reused basis switches to fixed-base window tables
  // (after 8 large MSMs). Every call is checked, before and after the switch, dense, sparse,
  // with extra terms and with two threads.
  constexpr std::size_t kN = 1100;
  const Instance in = make_instance(kN, 77);
  // The automatic digit width (11 bits for 1100 points) and every width.
  const int bits = GENERATE(0, 10, 11, 12, 13, 14);
  CAPTURE(bits);
  const MsmBasis basis = bits == 0 ? MsmBasis(in.points) : MsmBasis(in.points, 5, bits);
  gopa::DeterministicRng rng(78);
  for (int call = 0; call < 14; ++call) {
    std::vector<Scalar> s(kN);
    Scalar expected;
    const bool sparse = call % 3 == 1;
    for (std::size_t i = 0; i < kN; ++i) {
      if (sparse && i % 4 != 0) continue;
      s[i] = call % 5 == 4 ? minus_one() : Scalar::random(rng);
      expected += s[i] * in.logs[i];
    }
    std::vector<Scalar> es;
    std::vector<Point> ep;
    if (call % 2 == 1) {
      for (int e = 0; e < 5; ++e) {
        const Scalar log = Scalar::random(rng), k = Scalar::random(rng);
        es.push_back(k);
        ep.push_back(Point::base_mul(log));
        expected += k * log;
      }
    }
    const MsmOptions opt{call % 4 == 3 ? 2U : 1U};
    REQUIRE(basis.msm(s, es, ep, opt) == Point::base_mul(expected));
  }
  // A prefix of the basis and an all-zero vector.
  std::vector<Scalar> prefix(600);
  Scalar expected;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    prefix[i] = Scalar::random(rng);
    expected += prefix[i] * in.logs[i];
  }
  REQUIRE(basis.msm(prefix) == Point::base_mul(expected));
  REQUIRE(basis.msm(std::vector<Scalar>(kN)).is_identity());
}

TEST_CASE("MsmBasis strided MSMs match the sums, before and after the comb tables",
          "[msm][windows][strided]") {
  // 1100 points; the comb tables need the window tables (after 8 large MSMs), and their split
  // point h = c·k depends on the digit width, so every width is run.
  constexpr std::size_t kN = 1100;
  const Instance in = make_instance(kN, 91);
  const int bits = GENERATE(0, 10, 11, 12, 13, 14);
  // With and without the eight-lane (AVX-512 IFMA) comb evaluation, where the CPU has it.
  const bool wide = GENERATE(false, true);
  CAPTURE(bits, wide);
  const gopa::detail::ScopedIfma ifma(wide);
  const MsmBasis basis = bits == 0 ? MsmBasis(in.points) : MsmBasis(in.points, 5, bits);
  gopa::DeterministicRng rng(92);
  // Scalars around every possible split point (2^h − 1, 2^h, 2^h + 1 for h = 110..140), the
  // largest (ℓ − 1) and zero, and random ones.
  std::vector<Scalar> specials{Scalar::zero(), Scalar::one(), minus_one()};
  Scalar pow = Scalar::one();
  for (int b = 0; b < 141; ++b) {
    if (b >= 110) {
      specials.push_back(pow - Scalar::one());
      specials.push_back(pow);
      specials.push_back(pow + Scalar::one());
    }
    pow += pow;
  }
  std::size_t next_special = 0;
  auto check = [&](std::size_t stride, std::size_t terms) {
    CAPTURE(stride, terms);
    // A shuffled selection of the basis, so index[] is not the identity.
    std::vector<std::size_t> index(terms);
    for (std::size_t i = 0; i < terms; ++i) index[i] = (i * 7 + 3) % kN;
    const std::size_t blocks = (terms + stride - 1) / stride;
    std::vector<Scalar> s(blocks);
    for (Scalar& x : s) {
      x = next_special < specials.size() ? specials[next_special++] : Scalar::random(rng);
    }
    const std::vector<Point> out = basis.msm_strided(s, index, stride);
    REQUIRE(out.size() == std::min(stride, terms));
    for (std::size_t p = 0; p < out.size(); ++p) {
      Scalar log;
      for (std::size_t b = 0; p + b * stride < terms; ++b) log += s[b] * in.logs[index[p + b * stride]];
      // By encoding: operator== (x1·y2 = y1·x2) would accept a degenerate (0 : 0 : Z : 0).
      REQUIRE(out[p].encode() == Point::base_mul(log).encode());
    }
  };
  check(137, kN);  // before any window tables: the generic strided MSM
  for (int call = 0; call < 9; ++call) {
    std::vector<Scalar> dense(kN);
    for (Scalar& x : dense) x = Scalar::random(rng);
    (void)basis.msm(dense);
  }
  // With window (and now comb) tables: 8 full blocks, a short last block, one block, and enough
  // calls to run every special scalar through the split.
  check(137, kN);
  check(140, 1000);
  check(kN, kN);
  while (next_special < specials.size()) check(16, 130);
}

TEST_CASE("MsmPoints: gathered points, normalised in chunks, give the same MSM", "[msm][gathered]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  // Sizes around the Straus/Pippenger switch and the 2048-point normalisation chunk; the
  // instance holds identities and repeated points.
  for (std::size_t n : {0UL, 1UL, 2UL, 128UL, 129UL, 300UL, 2047UL, 2048UL, 2049UL, 4500UL}) {
    CAPTURE(n);
    const Instance in = make_instance(n, 900 + n);
    gopa::MsmPoints gathered;
    for (const Point& p : in.points) gathered.push_back(p);
    REQUIRE(gathered.size() == n);
    const Point expected = Point::base_mul(in.expected_log(n));
    CHECK(gopa::msm(in.scalars, gathered) == expected);
    CHECK(gopa::msm(in.scalars, gathered, MsmOptions{2}) == expected);
    // Every point comes back as the group element it was (chunk borders included).
    for (std::size_t i : {0UL, n / 2, n - 1, 2047UL, 2048UL}) {
      if (i < n) CHECK(gathered.at(i) == in.points[i]);
    }
    if (n > 0) {
      // One scalar changed (of a point that is not the identity) changes the sum.
      std::size_t k = n / 2;
      while (k > 0 && in.logs[k].is_zero()) --k;
      if (in.logs[k].is_zero()) continue;
      std::vector<Scalar> other = in.scalars;
      other[k] += Scalar::one();
      CHECK_FALSE(gopa::msm(other, gathered) == expected);
    }
  }
}

TEST_CASE("MsmPoints: appended parts and a basis with gathered extra terms", "[msm][gathered]") {
  // Both bucket paths: eight additions at a time (AVX-512 IFMA, where the CPU has it) and one at a time.
  const bool wide = GENERATE(false, true);
  CAPTURE(wide);
  const gopa::detail::ScopedIfma ifma(wide);
  const Instance in = make_instance(5000, 31);
  // Gathered in three parts (one with a pending, unnormalised tail), then appended in order.
  gopa::MsmPoints a, b, c, all;
  for (std::size_t i = 0; i < 5000; ++i) (i < 1000 ? a : i < 3100 ? b : c).push_back(in.points[i]);
  all.append(a);
  all.append(b);
  all.append(c);
  REQUIRE(all.size() == 5000);
  CHECK(gopa::msm(in.scalars, all) == Point::base_mul(in.expected_log(5000)));
  CHECK(all.at(999) == in.points[999]);
  CHECK(all.at(1000) == in.points[1000]);
  CHECK(all.at(3100) == in.points[3100]);

  // A basis of 1100 (window tables after repeated use) and one of 300 (Straus tables), with
  // 0, 5 (the Point path), 257 and 3000 gathered extra terms, against the expected sum and the
  // same MSM with the extra terms as Points.
  for (std::size_t basis_n : {300UL, 1100UL}) {
    const Instance bi = make_instance(basis_n, 40 + basis_n);
    const MsmBasis basis(bi.points);
    gopa::DeterministicRng rng(41);
    for (int call = 0; call < 12; ++call) {
      const std::size_t extras = std::array<std::size_t, 4>{0, 5, 257, 3000}[static_cast<std::size_t>(call % 4)];
      CAPTURE(basis_n, call, extras);
      std::vector<Scalar> s(basis_n);
      Scalar expected;
      for (std::size_t i = 0; i < basis_n; ++i) {
        if (call % 3 == 1 && i % 8 != 0) continue;  // sparse
        s[i] = Scalar::random(rng);
        expected += s[i] * bi.logs[i];
      }
      std::vector<Scalar> es(in.scalars.begin(), in.scalars.begin() + static_cast<std::ptrdiff_t>(extras));
      std::vector<Point> ep(in.points.begin(), in.points.begin() + static_cast<std::ptrdiff_t>(extras));
      gopa::MsmPoints gp;
      for (const Point& p : ep) gp.push_back(p);
      for (std::size_t k = 0; k < extras; ++k) expected += es[k] * in.logs[k];
      const MsmOptions opt{call % 2 == 1 ? 2U : 1U};
      const Point got = basis.msm(s, es, gp, opt);
      CHECK(got == Point::base_mul(expected));
      CHECK(got == basis.msm(s, es, ep, opt));
    }
  }
}
