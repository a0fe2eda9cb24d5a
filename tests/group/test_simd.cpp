// The AVX-512 IFMA paths (src/group/fe25519_ifma.hpp) against the native field and formulas, and
// the eight-lane constant-time MSM against the portable one and the naive sum. On a CPU without
// AVX-512 IFMA the field checks are skipped with a warning (the MSM checks then compare the
// portable path with itself and the naive sum), unless GOPA_EXPECT_IFMA=1 says the CPU has it
// (scripts/test sets it from /proc/cpuinfo): then a path that is not detected fails the test.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "../../src/group/edwards.hpp"
#include "../../src/group/fe25519_ifma.hpp"
#include "../../src/group/simd.hpp"
#include "gopa/group.hpp"
#include "gopa/msm.hpp"
#include "gopa/msm_ct.hpp"

using gopa::Point;
using gopa::Scalar;
using gopa::SecretScalar;
namespace d = gopa::detail;

namespace {

// Equal encodings: stricter than Point::operator==, which (as decaf's equality, x1·y2 = y1·x2)
// would also accept a degenerate (0 : 0 : Z : 0) that a broken formula can produce.
bool same_point(const Point& a, const Point& b) { return a.encode() == b.encode(); }

[[maybe_unused]] bool same_fe(const d::Fe& a, const d::Fe& b) {
  gf_25519_s x, y;
  d::fe_to_decaf(x, a);
  d::fe_to_decaf(y, b);
  for (int i = 0; i < 5; ++i)
    if (x.limb[i] != y.limb[i]) return false;
  return true;
}

// Whether the eight-lane path runs here; warns (or, with GOPA_EXPECT_IFMA=1, fails) when not.
bool ifma_here(const char* what) {
  if (d::ifma_supported()) return true;
  const char* expect = std::getenv("GOPA_EXPECT_IFMA");
  if (expect != nullptr && std::string_view(expect) == "1") {
    FAIL("GOPA_EXPECT_IFMA=1 but the AVX-512 IFMA path is not detected (" << what << ")");
  }
  WARN("this CPU lacks AVX-512 IFMA: " << what);
  return false;
}

}  // namespace

#if defined(GOPA_HAVE_IFMA_CODE)
namespace {
namespace v8 = gopa::detail::ifma;

// Eight native elements to an Fe8 (lane k = xs[k]).
GOPA_IFMA_TARGET v8::Fe8 load8(const d::Fe* xs) {
  __m512i w[v8::kNativeWords];
  for (int i = 0; i < v8::kNativeWords; ++i) {
    alignas(64) std::uint64_t lane[8];
    for (int k = 0; k < 8; ++k) lane[k] = xs[k].v[i];
    w[i] = _mm512_load_si512(lane);
  }
  return v8::fe8_from_native(w);
}

// The bound every Fe8 result must keep (fe25519_ifma.hpp): limbs < 2^51 + 2^17.
GOPA_IFMA_TARGET bool carried(const v8::Fe8& a) {
  const __m512i bound = v8::bcast((std::uint64_t{1} << 51) + (std::uint64_t{1} << 17));
  for (const __m512i& l : a.l)
    if (_mm512_cmpge_epu64_mask(l, bound) != 0) return false;
  return true;
}

enum class Op { kMul, kSq, kAdd, kSub, kNeg, kMulSmall, kChain };

// out[k] = op(a[k], b[k]) through the eight-lane code; false if a result broke the bound.
GOPA_IFMA_TARGET bool run8(Op op, const d::Fe* a, const d::Fe* b, d::Fe* out) {
  const v8::Fe8 x = load8(a), y = load8(b);
  v8::Fe8 r;
  switch (op) {
    case Op::kMul: r = v8::fe8_mul(x, y); break;
    case Op::kSq: r = v8::fe8_sq(x); break;
    case Op::kAdd: r = v8::fe8_add(x, y); break;
    case Op::kSub: r = v8::fe8_sub(x, y); break;
    case Op::kNeg: r = v8::fe8_neg(x); break;
    case Op::kMulSmall: r = v8::fe8_mul_small(x, 2 * 121665); break;
    case Op::kChain: {
      // 2000 mixed steps, as the ADX test does: u = u·v + u, v = v² − u.
      v8::Fe8 u = x, v = y;
      bool ok = true;
      for (int i = 0; i < 2000; ++i) {
        u = v8::fe8_add(v8::fe8_mul(u, v), u);
        v = v8::fe8_sub(v8::fe8_sq(v), u);
        ok = ok && carried(u) && carried(v);
      }
      v8::fe8_to_native(u, out);
      return ok;
    }
  }
  v8::fe8_to_native(r, out);
  return carried(r);
}

d::Fe native(Op op, const d::Fe& a, const d::Fe& b) {
  switch (op) {
    case Op::kMul: return d::fe_mul(a, b);
    case Op::kSq: return d::fe_sq(a);
    case Op::kAdd: return d::fe_carry(d::fe_add(a, b));
    case Op::kSub: return d::fe_carry(d::fe_sub(a, b));
    case Op::kNeg: return d::fe_carry(d::fe_neg(a));
    case Op::kMulSmall: return d::fe_mul_small(a, 2 * 121665);
    case Op::kChain: {
      d::Fe u = a, v = b;
      for (int i = 0; i < 2000; ++i) {
        u = d::fe_carry(d::fe_add(d::fe_mul(u, v), u));
        v = d::fe_carry(d::fe_sub(d::fe_sq(v), u));
      }
      return u;
    }
  }
  return a;
}

// Field elements covering the edges: 0, 1, p − 1, p, p + 1, 2^255 − 1, and (in the native
// representation's own range) the largest values it allows; then random ones.
std::vector<d::Fe> edge_elements(gopa::DeterministicRng& rng) {
  auto make = [](std::initializer_list<std::uint64_t> words) {
    d::Fe x{};
    int i = 0;
    for (const std::uint64_t w : words) x.v[i++] = w;
    return x;
  };
  std::vector<d::Fe> xs;
  const std::uint64_t ones = ~std::uint64_t{0};
  if constexpr (v8::kNativeWords == 4) {
    const std::uint64_t top = ones >> 1;
    xs = {make({0, 0, 0, 0}),
          make({1, 0, 0, 0}),
          make({ones - 18, ones, ones, top}),  // p − 1
          make({ones - 17, ones, ones, top}),  // p
          make({ones - 16, ones, ones, top}),  // p + 1
          make({ones, ones, ones, top}),       // 2^255 − 1
          make({0, 0, 0, std::uint64_t{1} << 63}),
          make({ones - 37, ones, ones, ones}),  // 2p
          make({ones, ones, ones, ones})};      // 2^256 − 1
  } else {
    // Tight limbs (< 2^51 + 2^18), the largest the portable field hands out.
    const std::uint64_t m = v8::kMask51, tight = m + (std::uint64_t{1} << 18);
    xs = {make({0, 0, 0, 0, 0}),         make({1, 0, 0, 0, 0}),
          make({m - 19, m, m, m, m}),    make({m - 18, m, m, m, m}),
          make({m - 17, m, m, m, m}),    make({m, m, m, m, m}),
          make({tight, tight, tight, tight, tight}), make({tight, 0, tight, 0, tight}),
          make({0, tight, 0, tight, 0})};
  }
  while (xs.size() < 512) {
    d::Fe x{};
    for (int i = 0; i < v8::kNativeWords; ++i)
      x.v[i] = v8::kNativeWords == 4 ? rng.next_u64()
                                     : rng.next_u64() % (v8::kMask51 + (std::uint64_t{1} << 18) + 1);
    xs.push_back(x);
  }
  return xs;
}

// Points with their native and eight-lane sums and doublings.
GOPA_IFMA_TARGET void points8(const d::Ext* p, const d::Ext* q, const d::Niels* qn, d::Ext* add,
                              d::Ext* add_niels, d::Ext* dbl, d::Ext* sub_niels) {
  auto load = [](const d::Ext* e) {
    d::Fe x[8], y[8], z[8], t[8];
    for (int k = 0; k < 8; ++k) {
      x[k] = e[k].X;
      y[k] = e[k].Y;
      z[k] = e[k].Z;
      t[k] = e[k].T;
    }
    return v8::Ext8{load8(x), load8(y), load8(z), load8(t)};
  };
  const v8::Ext8 p8 = load(p), q8 = load(q);
  __m512i lo[8], hi[8];
  for (int k = 0; k < 8; ++k) v8::niels_row(qn[k], lo[k], hi[k]);
  const v8::Niels8 n8 = v8::niels8_from_rows(lo, hi);
  v8::ext8_to_native(v8::ext8_add(p8, q8), add);
  v8::ext8_to_native(v8::ext8_add_niels(p8, n8), add_niels);
  v8::ext8_to_native(v8::ext8_dbl(p8), dbl);
  // Lanes 1, 3, 4 negated.
  v8::ext8_to_native(v8::ext8_add_niels(p8, v8::niels8_cneg(0x1A, n8)), sub_niels);
}

Point to_point(const d::Ext& e) {
  Point r;
  d::ext_to_decaf(*r.raw(), e);
  return r;
}

}  // namespace

TEST_CASE("IFMA field arithmetic equals the native field (edge and random inputs)",
          "[msm][simd]") {
  if (!ifma_here("the eight-lane field is not exercised")) return;
  gopa::DeterministicRng rng(2024);
  const std::vector<d::Fe> xs = edge_elements(rng);
  REQUIRE(xs.size() % 8 == 0);
  for (const Op op : {Op::kMul, Op::kSq, Op::kAdd, Op::kSub, Op::kNeg, Op::kMulSmall, Op::kChain}) {
    CAPTURE(static_cast<int>(op));
    // Every element against a rotation of the list, in lanes of eight.
    for (std::size_t shift : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{8}}) {
      if (op == Op::kChain && shift > 1) continue;
      for (std::size_t lo = 0; lo < xs.size(); lo += 8) {
        d::Fe a[8], b[8], out[8];
        for (std::size_t k = 0; k < 8; ++k) {
          a[k] = xs[lo + k];
          b[k] = xs[(lo + k + shift) % xs.size()];
        }
        REQUIRE(run8(op, a, b, out));  // every result within the carried bound
        for (std::size_t k = 0; k < 8; ++k) {
          CAPTURE(lo + k, shift);
          REQUIRE(same_fe(out[k], native(op, a[k], b[k])));
        }
      }
    }
  }
}

TEST_CASE("IFMA Edwards formulas equal the native ones", "[msm][simd]") {
  if (!ifma_here("the eight-lane formulas are not exercised")) return;
  gopa::DeterministicRng rng(7);
  for (int round = 0; round < 8; ++round) {
    d::Ext p[8], q[8], add[8], addn[8], dbl[8], subn[8];
    d::Niels qn[8];
    d::Fe scratch[8];
    for (int k = 0; k < 8; ++k) {
      // The identity and equal points in some lanes (the formulas are complete).
      const Point a = (round == 0 && k == 0) ? Point::identity() : Point::base_mul(Scalar::random(rng));
      const Point b = (k == 2) ? a : (k == 5 ? Point::identity() : Point::base_mul(Scalar::random(rng)));
      p[k] = d::ext_from_decaf(*a.raw());
      q[k] = d::ext_from_decaf(*b.raw());
    }
    d::ext_batch_to_niels(q, qn, scratch);
    points8(p, q, qn, add, addn, dbl, subn);
    for (int k = 0; k < 8; ++k) {
      CAPTURE(round, k);
      const Point pp = to_point(p[k]), qq = to_point(q[k]);
      CHECK(same_point(to_point(add[k]), pp + qq));
      CHECK(same_point(to_point(addn[k]), pp + qq));
      CHECK(same_point(to_point(dbl[k]), pp + pp));
      const bool neg = ((0x1A >> k) & 1) != 0;
      CHECK(same_point(to_point(subn[k]), neg ? pp - qq : pp + qq));
    }
  }
}
#endif

TEST_CASE("constant-time MSM: the eight-lane path equals the portable one and the naive sum",
          "[msm][simd]") {
  ifma_here("only the portable path runs");
  gopa::DeterministicRng rng(11);
  constexpr std::size_t kPoints = 600;
  std::vector<Point> pts;
  for (std::size_t i = 0; i < kPoints; ++i)
    pts.push_back(i % 97 == 5 ? Point::identity() : Point::base_mul(Scalar::random(rng)));
  const gopa::MsmSecretBasis basis(pts);
  // Sizes around the eight lanes and the 128/256-term blocks; rows in any order, repeated.
  for (const std::size_t n : {1U, 2U, 7U, 8U, 9U, 15U, 17U, 127U, 128U, 129U, 255U, 256U, 257U,
                              513U, 600U}) {
    CAPTURE(n);
    std::vector<Scalar> s(n);
    std::vector<SecretScalar> ss;
    std::vector<std::size_t> rows(n);
    std::vector<Point> sel(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t kind = rng.uniform(8);
      s[i] = kind == 0 ? Scalar::zero() : kind == 1 ? -Scalar::one() : kind == 2 ? Scalar::one()
                                                                   : Scalar::random(rng);
      ss.emplace_back(s[i]);
      rows[i] = (i * 37 + n) % kPoints;
      if (i % 11 == 3 && i > 0) rows[i] = rows[i - 1];
      sel[i] = pts[rows[i]];
    }
    const Point expected = gopa::msm_naive(s, sel);
    Point portable, wide, direct;
    {
      const d::ScopedIfma off(false);
      portable = basis.msm(ss, rows);
    }
    {
      const d::ScopedIfma on(true);
      wide = basis.msm(ss, rows);
      direct = gopa::msm_secret(ss, sel);
    }
    CHECK(same_point(portable, expected));
    CHECK(same_point(wide, expected));
    CHECK(same_point(direct, expected));
  }
}
