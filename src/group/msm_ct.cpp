// Constant-time multi-scalar multiplication for secret scalars.
//
// Straus with a fixed 5-bit signed window. Per point, a table of 1..16 multiples in affine Niels
// form (all tables normalised with one field inversion); all points share the 5·50 doublings.
// Per point and window: one lookup that reads all 16 entries and keeps one with masks, a masked
// negation for the digit's sign, and one complete mixed addition. Nothing branches on, or
// indexes memory by, a secret: the scalars' digits only ever meet masks.
#include "gopa/msm_ct.hpp"

#include <sodium.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "x86_intrinsics.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include "edwards.hpp"
#include "fe25519_ifma.hpp"
#include "gopa/check.hpp"
#include "simd.hpp"

namespace gopa {

namespace {

using detail::Ext;
using detail::Fe;
using detail::Niels;

constexpr int kWindowBits = 5;
constexpr std::size_t kWindows = 51;   // signed radix-32 digits of a scalar < 2^253 (top ≤ 8)
constexpr std::size_t kPerPoint = 16;  // |digit| = 1..16
constexpr std::size_t kBlockPoints = 128;  // terms per cache block of ct_straus
static_assert(kWindows * kWindowBits >= 253 + 2, "room for the top digit and its carry");

// Signed radix-32 recoding into digits in [−16, 16) (the top digit in [0, 8]); arithmetic only.
void recode(const SecretScalar& k, std::array<std::int8_t, kWindows>& d) noexcept {
  std::array<std::uint8_t, 33> bytes{};  // the scalar and a zero byte for the last window
  decaf_255_scalar_encode(bytes.data(), k.raw());
  for (std::size_t i = 0; i < kWindows; ++i) {
    const std::size_t bit = i * kWindowBits;
    const std::uint32_t w = static_cast<std::uint32_t>(bytes[bit / 8]) |
                            (static_cast<std::uint32_t>(bytes[bit / 8 + 1]) << 8);
    d[i] = static_cast<std::int8_t>((w >> (bit % 8)) & 31U);
  }
  for (std::size_t i = 0; i + 1 < kWindows; ++i) {
    const int carry = (d[i] + 16) >> 5;  // 1 iff d[i] ≥ 16
    d[i] = static_cast<std::int8_t>(d[i] - (carry << 5));
    d[i + 1] = static_cast<std::int8_t>(d[i + 1] + carry);
  }
  sodium_memzero(bytes.data(), bytes.size());
}

std::uint64_t ct_eq(std::uint64_t a, std::uint64_t b) noexcept { return ((a ^ b) - 1) >> 63; }

}  // namespace

namespace {

// Tables (public data: the points are public): multiples 1..16 of every point in affine Niels
// form, kChunk points per batch inversion.
constexpr std::size_t kChunk = 1024;

void build_tables(std::span<const Point> points, std::vector<Niels>& table) {
  table.resize(points.size() * kPerPoint);
  std::vector<Ext> multiples;
  std::vector<Fe> scratch;
  for (std::size_t lo = 0; lo < points.size(); lo += kChunk) {
    const std::size_t m = std::min(kChunk, points.size() - lo);
    multiples.resize(m * kPerPoint);
    scratch.resize(multiples.size());
    for (std::size_t i = 0; i < m; ++i) {
      const Ext p = detail::ext_from_decaf(*points[lo + i].raw());
      multiples[i * kPerPoint] = p;
      for (std::size_t j = 1; j < kPerPoint; ++j)
        multiples[i * kPerPoint + j] = detail::ext_add(multiples[i * kPerPoint + j - 1], p);
    }
    detail::ext_batch_to_niels(multiples,
                               std::span<Niels>(table).subspan(lo * kPerPoint, multiples.size()),
                               scratch);
  }
}

// t = row[mag − 1] for mag = 1..16, the identity (1, 1, 0) for mag = 0: a masked OR over all
// 16 entries, 16 bytes at a time (SSE2, part of x86-64), so every entry is read in full.
constexpr std::size_t kNielsWords = sizeof(Niels) / sizeof(std::uint64_t);
static_assert(sizeof(Niels) == kNielsWords * sizeof(std::uint64_t), "Niels is packed limbs");
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GOPA_CT_SELECT_AVX2 1
// The same scan 32 bytes at a time, for CPUs with AVX2 (chosen once at run time from the CPU,
// never from data); the masked OR reads every byte of every entry as the SSE2 scan does.
constexpr bool kAvx2Layout = sizeof(Niels) % 32 == 0;
const bool kHaveAvx2 = kAvx2Layout && [] {
  __builtin_cpu_init();  // static initialisers may run before the runtime's own detection
  return __builtin_cpu_supports("avx2") != 0;
}();

__attribute__((target("avx2"))) void ct_select_avx2(Niels& t, const Niels* row,
                                                    std::uint64_t mag) noexcept {
  constexpr std::size_t kVec = sizeof(Niels) / 32;
  __m256i acc[kVec];
  for (auto& a : acc) a = _mm256_setzero_si256();
  for (std::size_t j = 0; j < kPerPoint; ++j) {
    const std::uint64_t m = 0 - ct_eq(mag, j + 1);
    const __m256i mm = _mm256_set1_epi64x(static_cast<long long>(m));
    const auto* bytes = reinterpret_cast<const unsigned char*>(&row[j]);
    for (std::size_t k = 0; k < kVec; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bytes + 32 * k));
      acc[k] = _mm256_or_si256(acc[k], _mm256_and_si256(v, mm));
    }
  }
  auto* out = reinterpret_cast<unsigned char*>(&t);
  for (std::size_t k = 0; k < kVec; ++k)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * k), acc[k]);
  for (auto& a : acc) a = _mm256_setzero_si256();
}
#endif

void ct_select(Niels& t, const Niels* row, std::uint64_t mag) noexcept {
#if defined(GOPA_CT_SELECT_AVX2)
  if (kHaveAvx2) {
    ct_select_avx2(t, row, mag);
    const std::uint64_t zero = ct_eq(mag, 0);
    t.ypx.v[0] |= zero;
    t.ymx.v[0] |= zero;
    return;
  }
#endif
#if defined(__SSE2__)
  constexpr std::size_t kVec = kNielsWords / 2;  // 16-byte chunks; an odd last word by itself
  __m128i acc[kVec];
  for (auto& a : acc) a = _mm_setzero_si128();
  std::uint64_t last = 0;
  for (std::size_t j = 0; j < kPerPoint; ++j) {
    const std::uint64_t m = 0 - ct_eq(mag, j + 1);
    const __m128i mm = _mm_set1_epi64x(static_cast<long long>(m));
    const auto* bytes = reinterpret_cast<const unsigned char*>(&row[j]);
    for (std::size_t k = 0; k < kVec; ++k) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes + 16 * k));
      acc[k] = _mm_or_si128(acc[k], _mm_and_si128(v, mm));
    }
    if constexpr (kNielsWords % 2 == 1) {
      std::uint64_t w;
      std::memcpy(&w, bytes + 16 * kVec, sizeof w);
      last |= w & m;
    }
  }
  std::uint64_t words[kNielsWords];
  for (std::size_t k = 0; k < kVec; ++k)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&words[2 * k]), acc[k]);
  if constexpr (kNielsWords % 2 == 1) words[kNielsWords - 1] = last;
  std::memcpy(&t, words, sizeof t);
  sodium_memzero(words, sizeof words);
  for (auto& a : acc) a = _mm_setzero_si128();
#else
  constexpr std::size_t kLimbs = sizeof(Fe) / sizeof(std::uint64_t);
  t = Niels{detail::fe_zero(), detail::fe_zero(), detail::fe_zero()};
  for (std::size_t j = 0; j < kPerPoint; ++j) {
    const std::uint64_t m = 0 - ct_eq(mag, j + 1);
    for (std::size_t k = 0; k < kLimbs; ++k) {
      t.ypx.v[k] |= row[j].ypx.v[k] & m;
      t.ymx.v[k] |= row[j].ymx.v[k] & m;
      t.t2d.v[k] |= row[j].t2d.v[k] & m;
    }
  }
#endif
  const std::uint64_t zero = ct_eq(mag, 0);
  t.ypx.v[0] |= zero;
  t.ymx.v[0] |= zero;
}

// One block of the constant-time Straus loop: Σ over the block's terms, with its own doubling
// chain.
Ext ct_straus_block(std::span<const std::array<std::int8_t, kWindows>> digits,
                    std::span<const Niels> table, std::span<const std::size_t> rows) {
  Ext part = detail::ext_identity();
  Niels t = detail::niels_identity();
  for (std::size_t w = kWindows; w-- > 0;) {
    if (w + 1 != kWindows) {
      for (int b = 0; b < kWindowBits; ++b) part = detail::ext_dbl(part);
    }
    for (std::size_t i = 0; i < digits.size(); ++i) {
      const auto d = static_cast<std::uint64_t>(static_cast<std::int64_t>(digits[i][w]));
      const std::uint64_t neg = d >> 63;
      const std::uint64_t mag = (d ^ (0 - neg)) + neg;
      ct_select(t, &table[rows[i] * kPerPoint], mag);
      detail::fe_cswap(t.ypx, t.ymx, neg);
      detail::fe_cmov(t.t2d, detail::fe_carry(detail::fe_neg(t.t2d)), neg);
      part = detail::ext_add_niels(part, t);
    }
  }
  sodium_memzero(&t, sizeof t);
  return part;
}

#if defined(GOPA_HAVE_IFMA_CODE)
// The same block on eight lanes (AVX-512 IFMA): lane k adds the terms k, k + 8, k + 16, … of the
// block, every lane doubles, and the eight lane sums are added at the end. Per term and window:
// the masked scan of its 16 table entries into two registers (every byte of every entry read, as
// ct_select does), then one eight-way mixed addition per eight terms. The digits only meet
// masks: the scan's masks, and the lane mask of the conditional negation.
namespace v8 = detail::ifma;

GOPA_IFMA_TARGET void ct_select_row(__m512i& lo, __m512i& hi, const Niels* row,
                                    std::uint64_t mag) {
  __m512i alo = _mm512_setzero_si512(), ahi = _mm512_setzero_si512();
  for (std::size_t j = 0; j < kPerPoint; ++j) {
    const __m512i m = v8::bcast(0 - ct_eq(mag, j + 1));
    __m512i vlo, vhi;
    v8::niels_row(row[j], vlo, vhi);
    alo = _mm512_ternarylogic_epi64(alo, vlo, m, 0xF8);  // alo | (vlo & m)
    ahi = _mm512_ternarylogic_epi64(ahi, vhi, m, 0xF8);
  }
  // mag = 0: the identity (1, 1, 0): word 0 of y + x and of y − x.
  const __m512i one_words = _mm512_maskz_set1_epi64(
      static_cast<__mmask8>(1U | (1U << v8::kNativeWords)), static_cast<long long>(ct_eq(mag, 0)));
  lo = _mm512_or_si512(alo, one_words);
  hi = ahi;
}

constexpr std::size_t kBlockPointsIfma = 256;  // 32 terms per lane; 384–480 KiB of tables

GOPA_IFMA_TARGET Ext ct_straus_block_ifma(std::span<const std::array<std::int8_t, kWindows>> digits,
                                          std::span<const Niels> table,
                                          std::span<const std::size_t> rows) {
  const std::size_t count = digits.size();
  const std::size_t groups = (count + 7) / 8;
  v8::Ext8 part = v8::ext8_identity();
  const __m512i identity_row =
      _mm512_maskz_set1_epi64(static_cast<__mmask8>(1U | (1U << v8::kNativeWords)), 1);
  // The rows chosen by secret digits and their signs: wiped at the end.
  __m512i lo[8], hi[8];
  unsigned neg_lanes = 0;
  for (std::size_t w = kWindows; w-- > 0;) {
    if (w + 1 != kWindows) {
      for (int b = 0; b < kWindowBits; ++b) part = v8::ext8_dbl(part);
    }
    for (std::size_t g = 0; g < groups; ++g) {
      neg_lanes = 0;
      for (unsigned k = 0; k < 8; ++k) {
        const std::size_t i = g * 8 + k;
        if (i >= count) {  // public: past the block's last term, the identity
          lo[k] = identity_row;
          hi[k] = _mm512_setzero_si512();
          continue;
        }
        const auto d = static_cast<std::uint64_t>(static_cast<std::int64_t>(digits[i][w]));
        const std::uint64_t neg = d >> 63;
        const std::uint64_t mag = (d ^ (0 - neg)) + neg;
        ct_select_row(lo[k], hi[k], &table[rows[i] * kPerPoint], mag);
        neg_lanes |= static_cast<unsigned>(neg) << k;
      }
      const v8::Niels8 q =
          v8::niels8_cneg(static_cast<__mmask8>(neg_lanes), v8::niels8_from_rows(lo, hi));
      part = v8::ext8_add_niels(part, q);
    }
  }
  Ext lanes[8];
  v8::ext8_to_native(part, lanes);
  Ext sum = lanes[0];
  for (std::size_t k = 1; k < 8; ++k) sum = detail::ext_add(sum, lanes[k]);
  sodium_memzero(lanes, sizeof lanes);
  sodium_memzero(lo, sizeof lo);
  sodium_memzero(hi, sizeof hi);
  sodium_memzero(&part, sizeof part);
  sodium_memzero(&neg_lanes, sizeof neg_lanes);
  return sum;
}
#endif

// Σ scalars[i]·(point of table row rows[i]) — the constant-time Straus loop.
Point ct_straus(std::span<const SecretScalar> scalars, std::span<const Niels> table,
                std::span<const std::size_t> rows) {
  const std::size_t n = scalars.size();
  std::vector<std::array<std::int8_t, kWindows>> digits(n);
  for (std::size_t i = 0; i < n; ++i) recode(scalars[i], digits[i]);

  // Blocks of terms, each with its own doubling chain: the block's tables (16 affine points per
  // term) stay in the cache through its 51 windows, where one pass over all n terms per window
  // would stream every table from memory 51 times. Costs 250 doublings per block (≈ 2 per term
  // with 128-term blocks, against 51 additions; the eight-lane path doubles eight lanes at once,
  // over 256-term blocks).
  [[maybe_unused]] bool wide = false;
  std::size_t block = kBlockPoints;
#if defined(GOPA_HAVE_IFMA_CODE)
  wide = detail::ifma_enabled();
  if (wide) block = kBlockPointsIfma;
#endif
  Ext acc = detail::ext_identity();
  const std::span<const std::array<std::int8_t, kWindows>> all(digits);
  for (std::size_t lo = 0; lo < n; lo += block) {
    const std::size_t m = std::min(block, n - lo);
    Ext part;
#if defined(GOPA_HAVE_IFMA_CODE)
    if (wide) {
      part = ct_straus_block_ifma(all.subspan(lo, m), table, rows.subspan(lo, m));
    } else
#endif
    {
      part = ct_straus_block(all.subspan(lo, m), table, rows.subspan(lo, m));
    }
    acc = lo == 0 ? part : detail::ext_add(acc, part);
    sodium_memzero(&part, sizeof part);
  }

  Point r;
  detail::ext_to_decaf(*r.raw(), acc);
  for (auto& d : digits) sodium_memzero(d.data(), d.size());
  sodium_memzero(&acc, sizeof acc);
  // The sum is a commitment-like public value (see Point::operator*(SecretScalar)).
  gopa_declassify(r.raw(), sizeof(decaf_255_point_t));
  return r;
}

}  // namespace

Point msm_secret(std::span<const SecretScalar> scalars, std::span<const Point> points) {
  GOPA_CHECK(scalars.size() == points.size(), "msm_secret: as many scalars as points");
  const std::size_t n = points.size();
  if (n == 0) return Point::identity();
  std::vector<Niels> table;
  build_tables(points, table);
  std::vector<std::size_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = i;
  return ct_straus(scalars, table, rows);
}

struct MsmSecretBasis::Impl {
  std::vector<Niels> table;
  std::size_t size = 0;
};

MsmSecretBasis::MsmSecretBasis(std::span<const Point> points) : impl_(std::make_unique<Impl>()) {
  build_tables(points, impl_->table);
  impl_->size = points.size();
}
MsmSecretBasis::~MsmSecretBasis() = default;
MsmSecretBasis::MsmSecretBasis(MsmSecretBasis&&) noexcept = default;
MsmSecretBasis& MsmSecretBasis::operator=(MsmSecretBasis&&) noexcept = default;

std::size_t MsmSecretBasis::size() const noexcept { return impl_->size; }

Point MsmSecretBasis::msm(std::span<const SecretScalar> scalars,
                          std::span<const std::size_t> index) const {
  GOPA_CHECK(scalars.size() == index.size(), "MsmSecretBasis::msm: one index per scalar");
  for (const std::size_t i : index) GOPA_CHECK(i < impl_->size, "MsmSecretBasis::msm: index");
  if (scalars.empty()) return Point::identity();
  return ct_straus(scalars, impl_->table, index);
}

}  // namespace gopa
