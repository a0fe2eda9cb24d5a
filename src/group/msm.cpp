// Multi-scalar multiplication.
//
// VARIABLE TIME: every branch, table index and memory access below depends on the scalars and
// points. Use only on PUBLIC data (verification, folding of public generators); secrets go
// through FixedBaseTable or Point::operator*.
//
// Two algorithms on our own field and Edwards arithmetic (fe25519.hpp, edwards.hpp):
// - Straus with width-5 wNAF and a per-point table of odd multiples P, 3P, …, 15P (small n);
// - Pippenger (bucket method): points normalised once to affine Niels form with one batch
//   inversion, so bucket additions are 7M mixed additions; signed c-bit digits halve the buckets;
//   c grows with n; with several threads the windows (and the normalisation and recoding) are
//   split between the threads.
#include "gopa/msm.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "edwards.hpp"
#include "fe25519_ifma.hpp"
#include "gopa/check.hpp"
#include "gopa/parallel.hpp"
#include "simd.hpp"

namespace gopa {

namespace {

using detail::Ext;
using detail::Fe;
using detail::Niels;
using detail::PNiels;

#if GOPA_FE_ADX
// Built for BMI2/ADX (GOPA_ADX): refuse to run, naming the option, on a CPU without them rather
// than fail with an illegal instruction in the middle of a proof.
const bool kCpuChecked = [] {
  __builtin_cpu_init();  // static initialisers may run before the runtime's own detection
  // GOPA_ASSUME_ADX=1 skips the check: valgrind runs these instructions but its CPU model does
  // not report them (tests/consttime sets it).
  if ((!__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("adx")) &&
      std::getenv("GOPA_ASSUME_ADX") == nullptr) {
    std::fputs("gopa: this build uses BMI2/ADX instructions (GOPA_ADX) and this CPU lacks them; "
               "reconfigure with -DGOPA_ADX=OFF\n",
               stderr);
    std::abort();
  }
  return true;
}();
#endif

constexpr int kScalarBits = 253;  // ℓ < 2^253
constexpr std::size_t kStrausMax = 128;  // Straus up to this many terms, Pippenger above
constexpr std::size_t kParallelMin = 256;  // below this, extra threads cost more than they save
constexpr std::size_t kChunk = 2048;  // points normalised per batch inversion

struct ScalarWords {
  std::uint64_t w[5];  // little-endian, w[4] = 0 (room for recoding carries)
};

static_assert(DECAF_WORD_BITS == 64 && DECAF_255_SCALAR_LIMBS == 4,
              "scalar_words reads decaf scalars as four 64-bit limbs");

// The scalar's limbs (libdecaf keeps scalars fully reduced, least significant limb first).
ScalarWords scalar_words(const Scalar& s) {
  ScalarWords r{};
  for (std::size_t i = 0; i < 4; ++i) r.w[i] = s.raw()->limb[i];
  return r;
}

// c bits of k starting at bit pos (pos + c ≤ 320).
std::uint32_t bits_at(const ScalarWords& k, int pos, int c) {
  const int limb = pos / 64, shift = pos % 64;
  std::uint64_t v = k.w[limb] >> shift;
  if (shift + c > 64 && limb + 1 < 5) v |= k.w[limb + 1] << (64 - shift);
  return static_cast<std::uint32_t>(v & ((std::uint64_t{1} << c) - 1));
}

// ---------------------------------------------------------------- Straus (wNAF, width 5)

constexpr int kWnafWidth = 5;
constexpr int kWnafTable = 1 << (kWnafWidth - 2);  // odd multiples 1, 3, …, 15
constexpr int kWnafLen = 256 + 8;  // room for the widest window (8)

// Width-w NAF digits (w = 5 unless given): every non-zero digit is odd, |d| < 2^(w−1), and is
// followed by ≥ w − 1 zeros. Returns one past the highest non-zero position (0 for k = 0).
int wnaf_words(ScalarWords k, std::int8_t* naf, int width = kWnafWidth) {
  std::memset(naf, 0, kWnafLen);
  int top = 0;
  int pos = 0;
  while (pos < 256) {
    if (((k.w[pos / 64] >> (pos % 64)) & 1) == 0) {
      ++pos;
      continue;
    }
    int d = static_cast<int>(bits_at(k, pos, width));
    if (d >= (1 << (width - 1))) {
      d -= 1 << width;
      // Add 2^(pos + w): carry into the bits not yet consumed.
      for (int b = pos + width; b < 320; b += 64 - (b % 64)) {
        const int limb = b / 64;
        const std::uint64_t before = k.w[limb];
        k.w[limb] += std::uint64_t{1} << (b % 64);
        if (k.w[limb] > before) break;  // no carry out of this limb
      }
    }
    naf[pos] = static_cast<std::int8_t>(d);
    top = pos + 1;
    pos += width;
  }
  return top;
}

int wnaf(const Scalar& s, std::int8_t* naf, int width = kWnafWidth) {
  return wnaf_words(scalar_words(s), naf, width);
}

Ext straus(std::span<const Scalar> scalars, std::span<const Point> points) {
  const std::size_t n = scalars.size();
  std::vector<std::int8_t> nafs(n * kWnafLen);
  std::vector<PNiels> tables(n * kWnafTable);
  int top = 0;
  for (std::size_t i = 0; i < n; ++i) {
    top = std::max(top, wnaf(scalars[i], &nafs[i * kWnafLen]));
    const Ext p = detail::ext_from_decaf(*points[i].raw());
    const PNiels p2 = detail::ext_to_pniels(detail::ext_dbl(p));
    Ext m = p;
    tables[i * kWnafTable] = detail::ext_to_pniels(m);
    for (int j = 1; j < kWnafTable; ++j) {
      m = detail::ext_add_pniels(m, p2);
      tables[i * kWnafTable + static_cast<std::size_t>(j)] = detail::ext_to_pniels(m);
    }
  }
  Ext acc = detail::ext_identity();
  for (int pos = top - 1; pos >= 0; --pos) {
    acc = detail::ext_dbl(acc);
    for (std::size_t i = 0; i < n; ++i) {
      const int d = nafs[i * kWnafLen + static_cast<std::size_t>(pos)];
      if (d > 0) {
        acc = detail::ext_add_pniels(acc, tables[i * kWnafTable + static_cast<std::size_t>(d / 2)]);
      } else if (d < 0) {
        acc = detail::ext_sub_pniels(acc, tables[i * kWnafTable + static_cast<std::size_t>(-d / 2)]);
      }
    }
  }
  return acc;
}

// Affine Niels odd multiples P, 3P, …, (2^(w−1) − 1)P of every point (2^(w−2) per point),
// kChunk table entries per batch inversion.
void odd_multiples_ext(std::span<const Ext> points, int width, std::span<Niels> out) {
  const std::size_t per = std::size_t{1} << (width - 2);
  std::vector<Ext> ext;
  std::vector<Fe> scratch;
  const std::size_t chunk = std::max<std::size_t>(1, kChunk / per);
  for (std::size_t lo = 0; lo < points.size(); lo += chunk) {
    const std::size_t m = std::min(chunk, points.size() - lo);
    ext.resize(m * per);
    scratch.resize(ext.size());
    for (std::size_t i = 0; i < m; ++i) {
      const Ext& p = points[lo + i];
      const PNiels p2 = detail::ext_to_pniels(detail::ext_dbl(p));
      ext[i * per] = p;
      for (std::size_t j = 1; j < per; ++j)
        ext[i * per + j] = detail::ext_add_pniels(ext[i * per + j - 1], p2);
    }
    detail::ext_batch_to_niels(ext, out.subspan(lo * per, ext.size()), scratch);
  }
}

// The same for decaf points.
void odd_multiples(std::span<const Point> points, int width, std::vector<Niels>& out) {
  std::vector<Ext> ext(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) ext[i] = detail::ext_from_decaf(*points[i].raw());
  out.resize(points.size() * (std::size_t{1} << (width - 2)));
  odd_multiples_ext(ext, width, out);
}

// Straus over two groups of terms in one pass (shared doublings): scalars[idx[t]] with the
// precomputed affine odd multiples `tables` (width `width`), and extra terms with projective
// tables built here (width 5).
Ext straus_mixed(std::span<const Scalar> scalars, std::span<const std::size_t> idx,
                 std::span<const Niels> tables, int width, std::span<const Scalar> extra_s,
                 std::span<const Point> extra_p) {
  const std::size_t n = idx.size(), ne = extra_s.size();
  const std::size_t per = std::size_t{1} << (width - 2);
  std::vector<std::int8_t> nafs((n + ne) * kWnafLen);
  int top = 0;
  for (std::size_t t = 0; t < n; ++t)
    top = std::max(top, wnaf(scalars[idx[t]], &nafs[t * kWnafLen], width));
  std::vector<PNiels> et(ne * kWnafTable);
  for (std::size_t e = 0; e < ne; ++e) {
    top = std::max(top, wnaf(extra_s[e], &nafs[(n + e) * kWnafLen]));
    const Ext p = detail::ext_from_decaf(*extra_p[e].raw());
    const PNiels p2 = detail::ext_to_pniels(detail::ext_dbl(p));
    Ext m = p;
    et[e * kWnafTable] = detail::ext_to_pniels(m);
    for (std::size_t j = 1; j < static_cast<std::size_t>(kWnafTable); ++j) {
      m = detail::ext_add_pniels(m, p2);
      et[e * kWnafTable + j] = detail::ext_to_pniels(m);
    }
  }
  Ext acc = detail::ext_identity();
  for (int pos = top - 1; pos >= 0; --pos) {
    acc = detail::ext_dbl(acc);
    for (std::size_t t = 0; t < n; ++t) {
      const int d = nafs[t * kWnafLen + static_cast<std::size_t>(pos)];
      if (d == 0) continue;
      const Niels& q = tables[idx[t] * per + static_cast<std::size_t>((d > 0 ? d : -d) / 2)];
      acc = d > 0 ? detail::ext_add_niels(acc, q) : detail::ext_sub_niels(acc, q);
    }
    for (std::size_t e = 0; e < ne; ++e) {
      const int d = nafs[(n + e) * kWnafLen + static_cast<std::size_t>(pos)];
      if (d == 0) continue;
      const PNiels& q = et[e * kWnafTable + static_cast<std::size_t>((d > 0 ? d : -d) / 2)];
      acc = d > 0 ? detail::ext_add_pniels(acc, q) : detail::ext_sub_pniels(acc, q);
    }
  }
  return acc;
}

// ---------------------------------------------------------------- Pippenger

// Window width for n terms: the minimum of a cost model in mixed additions per term,
// ⌈254/c⌉·(n + 2.6·buckets used) / n, checked against measurements on a 2-core EPYC.
int pippenger_window(std::size_t n) {
  if (n < 256) return 6;
  if (n < 640) return 7;
  if (n < 2048) return 8;
  if (n < 4096) return 9;
  if (n < 12288) return 10;
  if (n < 24576) return 11;
  if (n < 49152) return 12;
  if (n < 98304) return 13;
  if (n < 393216) return 14;
  return 15;  // the largest: digits must fit in int16, |d| ≤ 2^(c−1)
}

int window_count(int c) { return (kScalarBits + 1 + c - 1) / c; }

// Signed digits d_w ∈ [−2^(c−1) + 1, 2^(c−1)] with k = Σ d_w·2^(c·w), written to out[w·stride].
// W = ⌈254/c⌉ windows leave room for the last carry (k < 2^253).
void recode_signed(const Scalar& s, int c, int windows, std::int16_t* out, std::size_t stride) {
  const ScalarWords k = scalar_words(s);
  const int half = 1 << (c - 1);
  int carry = 0;
  for (int w = 0; w < windows; ++w) {
    int d = static_cast<int>(bits_at(k, w * c, c)) + carry;
    carry = 0;
    if (d > half) {
      d -= 1 << c;
      carry = 1;
    }
    out[static_cast<std::size_t>(w) * stride] = static_cast<std::int16_t>(d);
  }
}

// An affine Niels point (or its negative) as an extended point with Z = 4:
// X = 2(y+x − (y−x)) = 4x, Y = 2(y+x + y−x) = 4y, T = XY/Z = (y+x − (y−x))(y+x + y−x) = 4xy.
Ext niels_to_ext(const Niels& q, bool negate) {
  const Fe a = negate ? q.ymx : q.ypx;
  const Fe b = negate ? q.ypx : q.ymx;
  const Fe dx = detail::fe_carry(detail::fe_sub(a, b));
  const Fe sy = detail::fe_carry(detail::fe_add(a, b));
  return Ext{detail::fe_carry(detail::fe_add(dx, dx)), detail::fe_carry(detail::fe_add(sy, sy)),
             detail::fe_from_small(4), detail::fe_mul(dx, sy)};
}

class Buckets8;  // the IFMA accumulator, below
struct WideDeleter {
  void operator()(Buckets8* b) const noexcept;
};
using WideBuckets = std::unique_ptr<Buckets8, WideDeleter>;
// An IFMA bucket accumulator for digits of c bits, or null (no IFMA path on this CPU or build).
WideBuckets make_wide_buckets(int c);

struct Buckets {
  std::vector<Ext> sum;
  std::vector<std::uint8_t> used;
  std::size_t size;
  explicit Buckets(int c) : size(std::size_t{1} << (c - 1)) {}
  // Every bucket unused. The storage is allocated here, on first use: the eight-lane path
  // (Buckets8) needs it only for narrow digits.
  void clear() {
    sum.resize(size);
    used.assign(size, 0);
  }
};

// Σ_j (j+1)·B_j over the used buckets by running sums (2 additions per bucket). False when no
// bucket was used (the sum is the identity).
bool reduce_buckets(const Buckets& bk, Ext& out) {
  bool have_running = false, have_total = false;
  Ext running{}, total{};
  for (std::size_t j = bk.sum.size(); j-- > 0;) {
    if (bk.used[j]) {
      running = have_running ? detail::ext_add(running, bk.sum[j]) : bk.sum[j];
      have_running = true;
    }
    if (have_running) {
      total = have_total ? detail::ext_add(total, running) : running;
      have_total = true;
    }
  }
  out = total;
  return have_total;
}

#if defined(GOPA_HAVE_IFMA_CODE)
// Bucket accumulation eight additions at a time (AVX-512 IFMA), for the variable-time MSMs. The
// buckets live in the vector radix (X, Y, Z, T as five 51-bit limbs each, in a row of 24 words);
// eight of them are gathered into one Ext8 by transposition, each gets its own point added, and
// they are written back. Two additions to one bucket never share a batch. At the end the used
// buckets are converted to native Ext for the running-sum reduction. The sums are the same group
// elements as the one-at-a-time loop (tests compare both paths).
// VARIABLE TIME: public data only.
struct alignas(64) BucketRow {
  std::uint64_t w[24];
};

class Buckets8 {
 public:
  explicit Buckets8(int c)
      : n_(std::size_t{1} << (c - 1)), rows_(new BucketRow[n_]), used_(n_) {
    identity_ = BucketRow{};
    identity_.w[5] = 1;   // Y = 1
    identity_.w[10] = 1;  // Z = 1
  }
  void reset() {
    std::fill(used_.begin(), used_.end(), std::uint8_t{0});
    count_ = 0;
    neg_ = 0;
  }
  // Queues bucket[j] ± p (p must stay alive until the next flush).
  void add(std::size_t j, const Niels& p, bool negative) {
    for (unsigned k = 0; k < count_; ++k) {
      if (bucket_[k] == j) {
        flush();
        break;
      }
    }
    __builtin_prefetch(&rows_[j], 1);
    __builtin_prefetch(reinterpret_cast<const char*>(&rows_[j]) + 64, 1);
    __builtin_prefetch(reinterpret_cast<const char*>(&rows_[j]) + 128, 1);
    bucket_[count_] = j;
    point_[count_] = &p;
    if (negative) neg_ |= 1U << count_;
    if (++count_ == 8) flush();
  }
  void flush();
  // The used buckets as native points in bk (bk.used and bk.sum), after a final flush.
  void to_native(Buckets& bk);
  // Σ_j (j+1)·B_j after a final flush, as reduce_buckets computes it, with the running sums of
  // eight segments of the buckets in the eight lanes. False when no bucket was used.
  bool reduce(Buckets& bk, Ext& out);

 private:
  GOPA_IFMA_TARGET void reduce_lanes(Ext (&total)[8], Ext (&running)[8]) const;
  void convert(const std::size_t (&at)[8], unsigned m, Buckets& bk) const;
  std::size_t n_;
  std::unique_ptr<BucketRow[]> rows_;
  std::vector<std::uint8_t> used_;
  BucketRow identity_;
  std::size_t bucket_[8] = {};
  const Niels* point_[8] = {};
  unsigned count_ = 0, neg_ = 0;
};

namespace {

GOPA_IFMA_INLINE detail::ifma::Ext8 ext8_from_rows(const BucketRow* const (&src)[8]) {
  __m512i r0[8], r1[8], r2[8];
  for (int k = 0; k < 8; ++k) {
    r0[k] = _mm512_load_si512(src[k]->w);
    r1[k] = _mm512_load_si512(src[k]->w + 8);
    r2[k] = _mm512_load_si512(src[k]->w + 16);
  }
  detail::ifma::transpose8(r0);
  detail::ifma::transpose8(r1);
  detail::ifma::transpose8(r2);
  return detail::ifma::Ext8{{{r0[0], r0[1], r0[2], r0[3], r0[4]}},
                            {{r0[5], r0[6], r0[7], r1[0], r1[1]}},
                            {{r1[2], r1[3], r1[4], r1[5], r1[6]}},
                            {{r1[7], r2[0], r2[1], r2[2], r2[3]}}};
}

}  // namespace

GOPA_IFMA_TARGET void Buckets8::flush() {
  namespace v8 = detail::ifma;
  if (count_ == 0) return;
  const BucketRow* src[8];
  __m512i lo[8], hi[8];
  const __m512i identity_niels =
      _mm512_maskz_set1_epi64(static_cast<__mmask8>(1U | (1U << v8::kNativeWords)), 1);
  for (unsigned k = 0; k < 8; ++k) {
    if (k < count_) {
      src[k] = used_[bucket_[k]] ? &rows_[bucket_[k]] : &identity_;
      v8::niels_row(*point_[k], lo[k], hi[k]);
    } else {
      src[k] = &identity_;
      lo[k] = identity_niels;
      hi[k] = _mm512_setzero_si512();
    }
  }
  const v8::Ext8 p = ext8_from_rows(src);
  const v8::Niels8 q = v8::niels8_cneg(static_cast<__mmask8>(neg_), v8::niels8_from_rows(lo, hi));
  const v8::Ext8 s = v8::ext8_add_niels(p, q);
  __m512i r0[8] = {s.X.l[0], s.X.l[1], s.X.l[2], s.X.l[3], s.X.l[4], s.Y.l[0], s.Y.l[1], s.Y.l[2]};
  __m512i r1[8] = {s.Y.l[3], s.Y.l[4], s.Z.l[0], s.Z.l[1], s.Z.l[2], s.Z.l[3], s.Z.l[4], s.T.l[0]};
  __m512i r2[8] = {s.T.l[1], s.T.l[2], s.T.l[3], s.T.l[4],
                   _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  v8::transpose8(r0);
  v8::transpose8(r1);
  v8::transpose8(r2);
  for (unsigned k = 0; k < count_; ++k) {
    BucketRow& dst = rows_[bucket_[k]];
    _mm512_store_si512(dst.w, r0[k]);
    _mm512_store_si512(dst.w + 8, r1[k]);
    _mm512_store_si512(dst.w + 16, r2[k]);
    used_[bucket_[k]] = 1;
  }
  count_ = 0;
  neg_ = 0;
}

GOPA_IFMA_TARGET void Buckets8::convert(const std::size_t (&at)[8], unsigned m, Buckets& bk) const {
  const BucketRow* src[8];
  for (unsigned k = 0; k < 8; ++k) src[k] = k < m ? &rows_[at[k]] : &identity_;
  Ext lanes[8];
  detail::ifma::ext8_to_native(ext8_from_rows(src), lanes);
  for (unsigned k = 0; k < m; ++k) bk.sum[at[k]] = lanes[k];
}

// Lane s runs over the segment [s·L, (s+1)·L) from the top: running_s = Σ B_j and
// total_s = Σ (j − s·L + 1)·B_j. Unused buckets read as the identity.
GOPA_IFMA_TARGET void Buckets8::reduce_lanes(Ext (&total)[8], Ext (&running)[8]) const {
  namespace v8 = detail::ifma;
  const std::size_t seg = n_ / 8;
  v8::Ext8 run = v8::ext8_identity(), tot = v8::ext8_identity();
  for (std::size_t i = seg; i-- > 0;) {
    const BucketRow* src[8];
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t j = k * seg + i;
      src[k] = used_[j] ? &rows_[j] : &identity_;
    }
    run = v8::ext8_add(run, ext8_from_rows(src));
    tot = v8::ext8_add(tot, run);
  }
  v8::ext8_to_native(tot, total);
  v8::ext8_to_native(run, running);
}

bool Buckets8::reduce(Buckets& bk, Ext& out) {
  flush();
  if (n_ < 64) {  // narrow digits (small Pippenger windows): one lane is enough
    to_native(bk);
    return reduce_buckets(bk, out);
  }
  if (std::none_of(used_.begin(), used_.end(), [](std::uint8_t u) { return u != 0; })) return false;
  Ext total[8], running[8];
  reduce_lanes(total, running);
  // Σ_s total_s + (s·L)·running_s, with L = n/8 a power of two.
  const std::size_t seg = n_ / 8;
  Ext acc = total[0];
  for (std::size_t sidx = 1; sidx < 8; ++sidx) {
    Ext m = running[sidx];
    Ext times = running[sidx];
    for (std::size_t t = 1; t < sidx; ++t) times = detail::ext_add(times, m);
    for (std::size_t l = seg; l > 1; l >>= 1) times = detail::ext_dbl(times);
    acc = detail::ext_add(acc, detail::ext_add(total[sidx], times));
  }
  out = acc;
  return true;
}

void Buckets8::to_native(Buckets& bk) {
  flush();
  bk.clear();
  std::size_t at[8];
  unsigned m = 0;
  for (std::size_t j = 0; j < n_; ++j) {
    bk.used[j] = used_[j];
    if (!used_[j]) continue;
    at[m++] = j;
    if (m == 8) {
      convert(at, m, bk);
      m = 0;
    }
  }
  if (m > 0) convert(at, m, bk);
}

void WideDeleter::operator()(Buckets8* b) const noexcept { delete b; }
WideBuckets make_wide_buckets(int c) {
  if (!detail::ifma_enabled()) return nullptr;
  return WideBuckets(new Buckets8(c));
}
#else
void WideDeleter::operator()(Buckets8*) const noexcept {}
WideBuckets make_wide_buckets(int) { return nullptr; }
#endif

// S_w = Σ_i d_{w,i}·P_i for one window: bucket accumulation, then the running-sum reduction
// Σ_j (j+1)·B_j. Returns false when the window sum is the identity because nothing was added.
bool window_sum(std::span<const Niels> points, const std::int16_t* digits, Buckets& bk, Buckets8* wide, Ext& out) {
  const std::size_t n = points.size();
#if defined(GOPA_HAVE_IFMA_CODE)
  if (wide != nullptr) {
    wide->reset();
    for (std::size_t i = 0; i < n; ++i) {
      const int d = digits[i];
      if (d != 0) wide->add(static_cast<std::size_t>(std::abs(d) - 1), points[i], d < 0);
    }
    return wide->reduce(bk, out);
  }
#else
  (void)wide;
#endif
  bk.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + 4 < n) {
      const int dn = digits[i + 4];
      if (dn != 0) __builtin_prefetch(&bk.sum[static_cast<std::size_t>(std::abs(dn) - 1)], 1);
    }
    const int d = digits[i];
    if (d == 0) continue;
    const std::size_t j = static_cast<std::size_t>(std::abs(d) - 1);
    if (!bk.used[j]) {
      bk.sum[j] = niels_to_ext(points[i], d < 0);
      bk.used[j] = 1;
    } else if (d > 0) {
      bk.sum[j] = detail::ext_add_niels(bk.sum[j], points[i]);
    } else {
      bk.sum[j] = detail::ext_sub_niels(bk.sum[j], points[i]);
    }
  }
  return reduce_buckets(bk, out);
}

// Runs f(0), …, f(parts − 1), one part per thread.
template <class F>
void run_parts(unsigned parts, F&& f) {
  parallel_for(parts, parts, [&f](std::size_t p) { f(static_cast<unsigned>(p)); });
}

// The p-th of `parts` contiguous, near-equal ranges of [0, n).
std::size_t part_begin(std::size_t n, unsigned p, unsigned parts) { return n * p / parts; }

// Σ d·P over windows with Horner's rule; the per-window sums are computed by `threads`
// workers, each over a contiguous range of windows (every window costs about the same: one
// addition per term).
Ext pippenger_niels(std::span<const Niels> points, std::span<const Scalar> scalars, int c,
                    unsigned threads) {
  const std::size_t n = points.size();
  const int windows = window_count(c);
  std::vector<std::int16_t> digits(n * static_cast<std::size_t>(windows));
  run_parts(threads, [&](unsigned part) {
    const std::size_t hi = part_begin(n, part + 1, threads);
    for (std::size_t i = part_begin(n, part, threads); i < hi; ++i) {
      recode_signed(scalars[i], c, windows, &digits[i], n);
    }
  });
  std::vector<Ext> sums(static_cast<std::size_t>(windows));
  std::vector<std::uint8_t> nonzero(static_cast<std::size_t>(windows));
  const auto wn = static_cast<std::size_t>(windows);
  run_parts(threads, [&](unsigned part) {
    Buckets bk(c);
    const WideBuckets wide = make_wide_buckets(c);
    const std::size_t w1 = part_begin(wn, part + 1, threads);
    for (std::size_t w = part_begin(wn, part, threads); w < w1; ++w) {
      nonzero[w] = window_sum(points, &digits[w * n], bk, wide.get(), sums[w]) ? 1 : 0;
    }
  });
  Ext acc = detail::ext_identity();
  bool started = false;
  for (std::size_t w = wn; w-- > 0;) {
    if (started) {
      for (int k = 0; k < c; ++k) acc = detail::ext_dbl(acc);
    }
    if (nonzero[w]) {
      acc = started ? detail::ext_add(acc, sums[w]) : sums[w];
      started = true;
    }
  }
  return acc;
}

// Affine Niels forms of decaf points, kChunk points per batch inversion.
void normalise(std::span<const Point> points, std::span<Niels> out) {
  std::vector<Ext> ext(std::min(kChunk, points.size()));
  std::vector<Fe> scratch(ext.size());
  for (std::size_t lo = 0; lo < points.size(); lo += kChunk) {
    const std::size_t m = std::min(kChunk, points.size() - lo);
    for (std::size_t i = 0; i < m; ++i) ext[i] = detail::ext_from_decaf(*points[lo + i].raw());
    detail::ext_batch_to_niels(std::span<const Ext>(ext.data(), m), out.subspan(lo, m),
                               std::span<Fe>(scratch.data(), m));
  }
}

void normalise_parallel(std::span<const Point> points, std::span<Niels> out, unsigned threads) {
  const std::size_t n = points.size();
  run_parts(threads, [&](unsigned part) {
    const std::size_t lo = part_begin(n, part, threads), hi = part_begin(n, part + 1, threads);
    normalise(points.subspan(lo, hi - lo), out.subspan(lo, hi - lo));
  });
}

// ---------------------------------------------------------------- fixed-base windows

// For a basis used many times: every point's 2^(c·k) multiples, k < W = ⌈254/c⌉, in affine
// Niels form. Σ s_i·P_i is then Σ_{i,k} d_{i,k}·(2^(c·k)·P_i) with signed c-bit digits: one
// bucket pass over all (i, k) with a single set of 2^(c−1) buckets and no doublings, so the
// per-window bucket reductions and doublings of Pippenger disappear.
struct WindowTables {
  int c = 0;
  int windows = 0;
  std::vector<Niels> t;  // t[i·windows + k] = 2^(c·k)·P_i
};

// The digit width of a basis of n points: an MSM over the whole basis (about n/2 non-zero terms
// in a prover's folding round) costs ⌈254/c⌉ bucket additions per term and 2^c to reduce the
// buckets: 11 bits from 1,026 points, 12 from 2,050, 13 from 4,098, 14 from 16,386. Wider digits would
// save more additions on paper, but 2^15 buckets (2 MiB) leave the cache and measure no faster.
constexpr int kMaxFixedWindowBits = 14;
int fixed_window_bits(std::size_t n) {
  int best = 10;
  double best_cost = 0;
  for (int c = 10; c <= kMaxFixedWindowBits; ++c) {
    const double cost = static_cast<double>(n / 2) * window_count(c) + std::ldexp(1.0, c);
    if (c == 10 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

#if defined(GOPA_HAVE_IFMA_CODE)
static_assert(sizeof(Ext) == 4 * sizeof(Fe), "Ext is four field elements");

// Eight native points (lane k from src[k]) as an Ext8.
GOPA_IFMA_INLINE detail::ifma::Ext8 ext8_from_native(const Ext (&src)[8]) {
  namespace v8 = detail::ifma;
  constexpr int kWords = 4 * v8::kNativeWords;  // 16 or 20
  __m512i r0[8], r1[8], r2[8];
  for (int k = 0; k < 8; ++k) {
    const auto* w = reinterpret_cast<const std::uint64_t*>(&src[k]);
    r0[k] = _mm512_loadu_si512(w);
    r1[k] = _mm512_loadu_si512(w + 8);
    r2[k] = _mm512_maskz_loadu_epi64(static_cast<__mmask8>((1U << (kWords - 16)) - 1), w + 16);
  }
  v8::transpose8(r0);
  v8::transpose8(r1);
  v8::transpose8(r2);
  __m512i w[24];
  for (int i = 0; i < 8; ++i) {
    w[i] = r0[i];
    w[8 + i] = r1[i];
    w[16 + i] = r2[i];
  }
  return v8::Ext8{v8::fe8_from_native(&w[0]), v8::fe8_from_native(&w[v8::kNativeWords]),
                  v8::fe8_from_native(&w[2 * v8::kNativeWords]), v8::fe8_from_native(&w[3 * v8::kNativeWords])};
}


// Rows i0 … i0 + count − 1 of the window tables in extended form (ext[(i − i0)·w + k] =
// 2^(c·k)·P_i), eight points at a time.
GOPA_IFMA_TARGET void window_rows_ifma(std::span<const Point> points, std::size_t i0, std::size_t count, int c,
                                       std::size_t w, Ext* ext) {
  namespace v8 = detail::ifma;
  for (std::size_t g = 0; g < count; g += 8) {
    const std::size_t m = std::min<std::size_t>(8, count - g);
    Ext lanes[8];
    for (std::size_t k = 0; k < 8; ++k) {
      lanes[k] = k < m ? detail::ext_from_decaf(*points[i0 + g + k].raw()) : detail::ext_identity();
    }
    v8::Ext8 p = ext8_from_native(lanes);
    for (std::size_t k = 0; k < w; ++k) {
      if (k > 0) {
        for (int b = 0; b < c; ++b) p = v8::ext8_dbl(p);
        v8::ext8_to_native(p, lanes);
      }
      for (std::size_t l = 0; l < m; ++l) ext[(g + l) * w + k] = lanes[l];
    }
  }
}
#endif

void build_window_tables(std::span<const Point> points, int c, WindowTables& out) {
  out.c = c;
  out.windows = window_count(out.c);
  const auto w = static_cast<std::size_t>(out.windows);
  out.t.resize(points.size() * w);
  std::vector<Ext> ext;
  std::vector<Fe> scratch;
  const std::size_t chunk = std::max<std::size_t>(1, kChunk / w);
  for (std::size_t lo = 0; lo < points.size(); lo += chunk) {
    const std::size_t m = std::min(chunk, points.size() - lo);
    ext.resize(m * w);
    scratch.resize(ext.size());
#if defined(GOPA_HAVE_IFMA_CODE)
    if (detail::ifma_enabled()) {
      window_rows_ifma(points, lo, m, out.c, w, ext.data());
      detail::ext_batch_to_niels(ext, std::span<Niels>(out.t).subspan(lo * w, ext.size()), scratch);
      continue;
    }
#endif
    for (std::size_t i = 0; i < m; ++i) {
      Ext p = detail::ext_from_decaf(*points[lo + i].raw());
      for (std::size_t k = 0; k < w; ++k) {
        ext[i * w + k] = p;
        if (k + 1 < w)
          for (int b = 0; b < out.c; ++b) p = detail::ext_dbl(p);
      }
    }
    detail::ext_batch_to_niels(ext, std::span<Niels>(out.t).subspan(lo * w, ext.size()), scratch);
  }
}

// Σ_{i ∈ [lo, hi)} s_i·P_i over the window tables, reduced to one point. False if nothing
// was added (the sum is the identity).
bool windowed_part(const WindowTables& wt, std::span<const Scalar> scalars, std::size_t lo,
                   std::size_t hi, Ext& out) {
  const auto w = static_cast<std::size_t>(wt.windows);
  Buckets bk(wt.c);
  std::vector<std::int16_t> digits(w);
#if defined(GOPA_HAVE_IFMA_CODE)
  if (const WideBuckets wide = make_wide_buckets(wt.c)) {
    wide->reset();
    for (std::size_t i = lo; i < hi; ++i) {
      if (scalars[i].is_zero()) continue;
      recode_signed(scalars[i], wt.c, wt.windows, digits.data(), 1);
      const Niels* row = &wt.t[i * w];
      for (std::size_t k = 0; k < w; ++k) {
        const int d = digits[k];
        if (d != 0) wide->add(static_cast<std::size_t>(std::abs(d) - 1), row[k], d < 0);
      }
    }
    return wide->reduce(bk, out);
  }
#endif
  bk.clear();
  for (std::size_t i = lo; i < hi; ++i) {
    if (scalars[i].is_zero()) continue;
    recode_signed(scalars[i], wt.c, wt.windows, digits.data(), 1);
    const Niels* row = &wt.t[i * w];
    for (std::size_t k = 0; k < w; ++k) {
      if (k + 2 < w && digits[k + 2] != 0)
        __builtin_prefetch(&bk.sum[static_cast<std::size_t>(std::abs(digits[k + 2]) - 1)], 1);
      const int d = digits[k];
      if (d == 0) continue;
      const std::size_t j = static_cast<std::size_t>(std::abs(d) - 1);
      if (!bk.used[j]) {
        bk.sum[j] = niels_to_ext(row[k], d < 0);
        bk.used[j] = 1;
      } else if (d > 0) {
        bk.sum[j] = detail::ext_add_niels(bk.sum[j], row[k]);
      } else {
        bk.sum[j] = detail::ext_sub_niels(bk.sum[j], row[k]);
      }
    }
  }
  return reduce_buckets(bk, out);
}

// ---------------------------------------------------------------- two-tooth comb (strided)

// For strided MSMs over a basis with window tables: every point's odd multiples P, 3P, …, 15P
// and the same of 2^h·P, where 2^h·P = 2^(c·k)·P is a window-table entry with h near 127. A
// scalar s = lo + 2^h·hi then costs two width-5 wNAF chains of about 127 digits over shared
// doublings: half the doublings of one 253-digit chain, and no per-call tables.
constexpr int kCombWidth = 5;
constexpr std::size_t kCombPerPoint = std::size_t{1} << (kCombWidth - 2);  // 8 per tooth

struct CombTables {
  int shift = 0;         // h
  std::vector<Niels> t;  // t[(2i + tooth)·8 + j] = (2j + 1)·2^(tooth·h)·P_i
};

// The window index k whose shift c·k best balances the two halves of a 253-bit scalar.
int comb_window(int c, int windows) {
  int best = 1;
  for (int k = 1; k < windows; ++k) {
    const int h = c * k, hb = c * best;
    if (std::max(h + 1, 254 - h) < std::max(hb + 1, 254 - hb)) best = k;
  }
  return best;
}

void build_comb_tables(std::span<const Niels> niels, const WindowTables& wt, CombTables& out) {
  const int k = comb_window(wt.c, wt.windows);
  out.shift = wt.c * k;
  const std::size_t n = niels.size();
  std::vector<Ext> base(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    base[2 * i] = niels_to_ext(niels[i], false);
    base[2 * i + 1] =
        niels_to_ext(wt.t[i * static_cast<std::size_t>(wt.windows) + static_cast<std::size_t>(k)],
                     false);
  }
  out.t.resize(2 * n * kCombPerPoint);
  odd_multiples_ext(base, kCombWidth, out.t);
}

// One step of a strided comb evaluation, the same for every output: a doubling, or an addition
// of ±(2·entry + 1)·2^(tooth·h)·P for the point of block `block`.
struct CombOp {
  std::uint32_t block;
  std::uint8_t row;  // tooth·8 + entry
  bool add;
  bool negative;
};

Point to_point(const Ext& e) {
  Point r;
  detail::ext_to_decaf(*r.raw(), e);
  return r;
}

// Threads actually used: 1 for small inputs (a thread costs more than it saves there), and never
// more than there are windows.
unsigned thread_count(std::size_t n, MsmOptions options) {
  if (options.threads <= 1 || n < kParallelMin) return 1;
  return std::min(options.threads, static_cast<unsigned>(window_count(pippenger_window(n))));
}

Ext windowed_msm(const WindowTables& wt, std::span<const Scalar> scalars, unsigned threads) {
  const std::size_t n = scalars.size();
  std::vector<Ext> part(threads);
  std::vector<std::uint8_t> nonzero(threads);
  run_parts(threads, [&](unsigned p) {
    nonzero[p] = windowed_part(wt, scalars, part_begin(n, p, threads),
                               part_begin(n, p + 1, threads), part[p])
                     ? 1
                     : 0;
  });
  Ext acc = detail::ext_identity();
  for (unsigned p = 0; p < threads; ++p)
    if (nonzero[p]) acc = detail::ext_add(acc, part[p]);
  return acc;
}

}  // namespace

Point msm_naive(std::span<const Scalar> scalars, std::span<const Point> points) {
  GOPA_CHECK(scalars.size() == points.size(), "msm: as many scalars as points");
  Point acc;
  for (std::size_t i = 0; i < scalars.size(); ++i) acc += points[i] * scalars[i];
  return acc;
}

Point msm(std::span<const Scalar> scalars, std::span<const Point> points, MsmOptions options) {
  GOPA_CHECK(scalars.size() == points.size(), "msm: as many scalars as points");
  const std::size_t n = scalars.size();
  if (n == 0) return Point();
  if (n <= kStrausMax) return to_point(straus(scalars, points));
  const unsigned threads = thread_count(n, options);
  std::vector<Niels> niels(n);
  normalise_parallel(points, niels, threads);
  return to_point(pippenger_niels(niels, scalars, pippenger_window(n), threads));
}

// ---------------------------------------------------------------- gathered points

namespace {

// The Edwards point of an affine Niels form, in extended coordinates scaled by 4:
// (4x : 4y : 4 : 4xy), from 2x = ypx − ymx and 2y = ypx + ymx (no inversion).
Ext niels_to_ext(const Niels& n) {
  const Fe x2 = detail::fe_carry(detail::fe_sub(n.ypx, n.ymx));
  const Fe y2 = detail::fe_carry(detail::fe_add(n.ypx, n.ymx));
  return Ext{detail::fe_carry(detail::fe_add(x2, x2)), detail::fe_carry(detail::fe_add(y2, y2)),
             detail::fe_from_small(4), detail::fe_mul(x2, y2)};
}

}  // namespace

struct MsmPoints::Impl {
  std::vector<Niels> done;
  std::vector<Ext> pending;  // at most kChunk points not normalised yet
  // Normalises the pending points (one batch inversion). Called before every read.
  void flush() {
    if (pending.empty()) return;
    const std::size_t at = done.size();
    done.resize(at + pending.size());
    std::vector<Fe> scratch(pending.size());
    detail::ext_batch_to_niels(pending, std::span<Niels>(done).subspan(at), scratch);
    pending.clear();
  }
  // The first n points as gopa::Points (the Straus paths of small MSMs take those).
  [[nodiscard]] std::vector<Point> points() {
    flush();
    std::vector<Point> out(done.size());
    for (std::size_t i = 0; i < done.size(); ++i) out[i] = to_point(niels_to_ext(done[i]));
    return out;
  }
};

MsmPoints::MsmPoints() : impl_(std::make_unique<Impl>()) {}
MsmPoints::~MsmPoints() = default;
MsmPoints::MsmPoints(MsmPoints&&) noexcept = default;
MsmPoints& MsmPoints::operator=(MsmPoints&&) noexcept = default;

void MsmPoints::push_back(const Point& p) {
  impl_->pending.push_back(detail::ext_from_decaf(*p.raw()));
  if (impl_->pending.size() == kChunk) impl_->flush();
}

void MsmPoints::append(const MsmPoints& other) {
  other.impl_->flush();
  impl_->flush();
  impl_->done.insert(impl_->done.end(), other.impl_->done.begin(), other.impl_->done.end());
}

std::size_t MsmPoints::size() const noexcept { return impl_->done.size() + impl_->pending.size(); }

Point MsmPoints::at(std::size_t i) const {
  GOPA_CHECK(i < size(), "MsmPoints::at: index out of range");
  impl_->flush();
  return to_point(niels_to_ext(impl_->done[i]));
}

Point msm(std::span<const Scalar> scalars, const MsmPoints& points, MsmOptions options) {
  GOPA_CHECK(scalars.size() == points.size(), "msm: as many scalars as points");
  const std::size_t n = scalars.size();
  if (n == 0) return Point();
  if (n <= kStrausMax) return msm(scalars, points.impl_->points(), options);
  points.impl_->flush();
  return to_point(pippenger_niels(points.impl_->done, scalars, pippenger_window(n), thread_count(n, options)));
}

std::size_t msm_scratch_bytes(std::size_t n, MsmOptions options) {
  if (n == 0) return 0;
  if (n <= kStrausMax) {
    return n * (kWnafLen + kWnafTable * sizeof(PNiels));
  }
  const std::size_t threads = thread_count(n, options);
  const int c = pippenger_window(n);
  const auto windows = static_cast<std::size_t>(window_count(c));
  const std::size_t buckets = std::size_t{1} << (c - 1);
  return n * sizeof(Niels)                                                  // normalised points
         + threads * std::min(kChunk, n) * (sizeof(Ext) + sizeof(Fe))      // normalisation
         + n * windows * sizeof(std::int16_t)                              // signed digits
         + windows * (sizeof(Ext) + 1)                                     // window sums
         + threads * buckets * (sizeof(Ext) + 1);                          // buckets
}

// ---------------------------------------------------------------- MsmBasis

// Bases up to this size build Straus tables (2^(w−2) affine points per point) the first time
// few scalars are non-zero.
constexpr std::size_t kBasisStrausTables = 4096;
// With tables, Straus beats Pippenger up to about this many non-zero terms.
constexpr std::size_t kBasisStrausMax = 256;

// Window tables (WindowTables) are built for bases of at least this many points once they have
// served this many large MSMs: a one-off prover or verifier never pays for them (one proof
// makes 2·kFoldBlock = 6 over its first level), a process that proves or verifies again does.
constexpr std::size_t kWindowMinPoints = 1024;
constexpr unsigned kWindowAfterUses = 8;
constexpr std::size_t kWindowMaxBytes = std::size_t{128} << 20;

struct MsmBasis::Impl {
  std::vector<Point> points;
  std::vector<Niels> niels;
  int width = kWnafWidth;
  int window_bits = 0;  // of the window tables: fixed_window_bits(size) unless set
  std::once_flag odd_once;
  std::vector<Niels> odd;  // Straus tables, built on first use
  std::atomic<unsigned> large_uses{0};
  std::once_flag window_once;
  WindowTables windows;  // fixed-base window tables, built after kWindowAfterUses large MSMs
  std::atomic<bool> windows_ready{false};

  std::once_flag comb_once;
  CombTables comb;  // two-tooth comb tables for strided MSMs, derived from the window tables
  std::atomic<bool> comb_ready{false};

  // The comb tables, built on first use once the window tables exist (the upper tooth is a
  // window-table entry); null before that or when they would exceed kWindowMaxBytes.
  const CombTables* comb_tables() {
    if (comb_ready.load(std::memory_order_acquire)) return &comb;
    if (!windows_ready.load(std::memory_order_acquire)) return nullptr;
    if (points.size() * 2 * kCombPerPoint * sizeof(Niels) > kWindowMaxBytes) return nullptr;
    std::call_once(comb_once, [this] {
      build_comb_tables(niels, windows, comb);
      comb_ready.store(true, std::memory_order_release);
    });
    return &comb;
  }

  // The window tables if this basis has earned them (building them now if it just has).
  const WindowTables* window_tables() {
    if (windows_ready.load(std::memory_order_acquire)) return &windows;
    const std::size_t bytes =
        points.size() * static_cast<std::size_t>(window_count(window_bits)) * sizeof(Niels);
    if (points.size() < kWindowMinPoints || bytes > kWindowMaxBytes) return nullptr;
    if (large_uses.fetch_add(1, std::memory_order_relaxed) + 1 < kWindowAfterUses) return nullptr;
    std::call_once(window_once, [this] {
      build_window_tables(points, window_bits, windows);
      windows_ready.store(true, std::memory_order_release);
    });
    return &windows;
  }

  // Pippenger over the first scalars.size() basis points followed by normalised extra points.
  Point with_extra(std::span<const Scalar> scalars, std::span<const Scalar> extra_scalars,
                   std::span<const Niels> extra, MsmOptions options) const {
    const std::size_t n = scalars.size(), total = n + extra.size();
    std::vector<Niels> all(total);
    std::copy(niels.begin(), niels.begin() + static_cast<std::ptrdiff_t>(n), all.begin());
    std::copy(extra.begin(), extra.end(), all.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<Scalar> s(total);
    std::copy(scalars.begin(), scalars.end(), s.begin());
    std::copy(extra_scalars.begin(), extra_scalars.end(), s.begin() + static_cast<std::ptrdiff_t>(n));
    return to_point(pippenger_niels(all, s, pippenger_window(total), thread_count(total, options)));
  }
};

MsmBasis::MsmBasis(std::span<const Point> points) : MsmBasis(points, kWnafWidth) {}

MsmBasis::MsmBasis(std::span<const Point> points, int straus_width)
    : MsmBasis(points, straus_width, fixed_window_bits(points.size())) {}

MsmBasis::MsmBasis(std::span<const Point> points, int straus_width, int window_bits)
    : impl_(std::make_unique<Impl>()) {
  GOPA_CHECK(straus_width >= 4 && straus_width <= 8, "MsmBasis: Straus width must be 4..8");
  GOPA_CHECK(window_bits >= 10 && window_bits <= kMaxFixedWindowBits,
             "MsmBasis: window bits must be 10..14");
  impl_->points.assign(points.begin(), points.end());
  impl_->niels.resize(points.size());
  impl_->width = straus_width;
  impl_->window_bits = window_bits;
  normalise(points, impl_->niels);
}
MsmBasis::~MsmBasis() = default;
MsmBasis::MsmBasis(MsmBasis&&) noexcept = default;
MsmBasis& MsmBasis::operator=(MsmBasis&&) noexcept = default;

std::size_t MsmBasis::size() const noexcept { return impl_->points.size(); }

Point MsmBasis::msm(std::span<const Scalar> scalars, MsmOptions options) const {
  return msm(scalars, {}, std::span<const Point>{}, options);
}

Point MsmBasis::msm(std::span<const Scalar> scalars, std::span<const Scalar> extra_scalars,
                    std::span<const Point> extra_points, MsmOptions options) const {
  GOPA_CHECK(scalars.size() <= impl_->points.size(), "MsmBasis::msm: more scalars than points");
  GOPA_CHECK(extra_scalars.size() == extra_points.size(), "msm: as many scalars as points");
  const std::size_t n = scalars.size();
  if (n + extra_scalars.size() == 0) return Point();
  if (impl_->points.size() <= kBasisStrausTables) {
    // Zero scalars are skipped: callers may pass a sparse vector over the whole basis.
    std::vector<std::size_t> idx;
    for (std::size_t i = 0; i < n && idx.size() <= kBasisStrausMax; ++i)
      if (!scalars[i].is_zero()) idx.push_back(i);
    if (idx.size() + extra_scalars.size() <= kBasisStrausMax) {
      std::call_once(impl_->odd_once,
                     [this] { odd_multiples(impl_->points, impl_->width, impl_->odd); });
      return to_point(
          straus_mixed(scalars, idx, impl_->odd, impl_->width, extra_scalars, extra_points));
    }
  }
  if (n > kStrausMax) {
    if (const WindowTables* wt = impl_->window_tables()) {
      const Point basis_part = to_point(windowed_msm(*wt, scalars, thread_count(n, options)));
      if (extra_scalars.empty()) return basis_part;
      return basis_part + gopa::msm(extra_scalars, extra_points, options);
    }
  }
  if (extra_scalars.empty()) {
    if (n <= kStrausMax) {
      return to_point(straus(scalars, std::span<const Point>(impl_->points.data(), n)));
    }
    return to_point(pippenger_niels(std::span<const Niels>(impl_->niels.data(), n), scalars,
                                    pippenger_window(n), thread_count(n, options)));
  }
  std::vector<Niels> extra(extra_points.size());
  normalise(extra_points, extra);
  return impl_->with_extra(scalars, extra_scalars, extra, options);
}

Point MsmBasis::msm(std::span<const Scalar> scalars, std::span<const Scalar> extra_scalars,
                    const MsmPoints& extra_points, MsmOptions options) const {
  GOPA_CHECK(scalars.size() <= impl_->points.size(), "MsmBasis::msm: more scalars than points");
  GOPA_CHECK(extra_scalars.size() == extra_points.size(), "msm: as many scalars as points");
  const std::size_t n = scalars.size();
  // Few extra points: the Point paths (Straus) take them as they are.
  if (extra_scalars.size() <= kBasisStrausMax) return msm(scalars, extra_scalars, extra_points.impl_->points(), options);
  if (n > kStrausMax) {
    if (const WindowTables* wt = impl_->window_tables()) {
      return to_point(windowed_msm(*wt, scalars, thread_count(n, options))) + gopa::msm(extra_scalars, extra_points, options);
    }
  }
  extra_points.impl_->flush();
  return impl_->with_extra(scalars, extra_scalars, extra_points.impl_->done, options);
}

// ---------------------------------------------------------------- strided (shared scalars)

#if defined(GOPA_HAVE_IFMA_CODE)
namespace {

// Table storage for eight-lane points: alignas makes every allocation 64-byte aligned, which a
// bare Ext8 does not promise outside the AVX-512 functions.
struct alignas(64) Ext8Slot {
  detail::ifma::Ext8 p;
};

// Outputs p0 … p0 + count − 1 (count ≤ 8) of msm_strided, one per lane: every lane runs the
// same doublings and additions (the scalars are shared), each on its own points' tables.
// VARIABLE TIME: public data only.
GOPA_IFMA_TARGET void strided_outputs_ifma(std::span<const std::int8_t> nafs, int top, std::size_t blocks,
                                           std::span<const Point> points, std::size_t stride, std::size_t p0,
                                           std::size_t count, std::vector<Ext8Slot>& tables, Point* out) {
  namespace v8 = detail::ifma;
  tables.resize(blocks * kWnafTable);
  for (std::size_t b = 0; b < blocks; ++b) {
    Ext lanes[8];
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t i = p0 + k + b * stride;
      lanes[k] = k < count && i < points.size() ? detail::ext_from_decaf(*points[i].raw()) : detail::ext_identity();
    }
    const v8::Ext8 q = ext8_from_native(lanes);
    const v8::Ext8 q2 = v8::ext8_dbl(q);
    v8::Ext8 m = q;
    tables[b * kWnafTable].p = m;
    for (std::size_t j = 1; j < static_cast<std::size_t>(kWnafTable); ++j) {
      m = v8::ext8_add(m, q2);
      tables[b * kWnafTable + j].p = m;
    }
  }
  v8::Ext8 acc = v8::ext8_identity();
  for (int pos = top - 1; pos >= 0; --pos) {
    acc = v8::ext8_dbl(acc);
    for (std::size_t b = 0; b < blocks; ++b) {
      const int d = nafs[b * kWnafLen + static_cast<std::size_t>(pos)];
      if (d == 0) continue;
      const v8::Ext8& q = tables[b * kWnafTable + static_cast<std::size_t>((d > 0 ? d : -d) / 2)].p;
      acc = v8::ext8_add(acc, d > 0 ? q : v8::Ext8{v8::fe8_neg(q.X), q.Y, q.Z, v8::fe8_neg(q.T)});
    }
  }
  Ext lanes[8];
  v8::ext8_to_native(acc, lanes);
  for (std::size_t k = 0; k < count; ++k) out[k] = to_point(lanes[k]);
}

}  // namespace
#endif

std::vector<Point> msm_strided(std::span<const Scalar> scalars, std::span<const Point> points,
                               std::size_t stride) {
  GOPA_CHECK(stride > 0, "msm_strided: zero stride");
  GOPA_CHECK(points.size() <= scalars.size() * stride, "msm_strided: too few scalars");
  const std::size_t blocks = scalars.size();
  // One recoding of the shared scalars for every output.
  std::vector<std::int8_t> nafs(blocks * kWnafLen);
  int top = 0;
  for (std::size_t b = 0; b < blocks; ++b) top = std::max(top, wnaf(scalars[b], &nafs[b * kWnafLen]));
  std::vector<Point> out(std::min(stride, points.size()));
#if defined(GOPA_HAVE_IFMA_CODE)
  if (detail::ifma_enabled()) {
    std::vector<Ext8Slot> tables8;
    for (std::size_t p = 0; p < out.size(); p += 8) {
      strided_outputs_ifma(nafs, top, blocks, points, stride, p, std::min<std::size_t>(8, out.size() - p), tables8,
                           &out[p]);
    }
    return out;
  }
#endif
  std::vector<PNiels> tables(blocks * kWnafTable);
  for (std::size_t p = 0; p < out.size(); ++p) {
    std::size_t terms = 0;
    for (std::size_t b = 0; b < blocks && p + b * stride < points.size(); ++b, ++terms) {
      const Ext q = detail::ext_from_decaf(*points[p + b * stride].raw());
      const PNiels q2 = detail::ext_to_pniels(detail::ext_dbl(q));
      Ext m = q;
      tables[b * kWnafTable] = detail::ext_to_pniels(m);
      for (std::size_t j = 1; j < static_cast<std::size_t>(kWnafTable); ++j) {
        m = detail::ext_add_pniels(m, q2);
        tables[b * kWnafTable + j] = detail::ext_to_pniels(m);
      }
    }
    Ext acc = detail::ext_identity();
    for (int pos = top - 1; pos >= 0; --pos) {
      acc = detail::ext_dbl(acc);
      for (std::size_t b = 0; b < terms; ++b) {
        const int d = nafs[b * kWnafLen + static_cast<std::size_t>(pos)];
        if (d == 0) continue;
        const PNiels& q = tables[b * kWnafTable + static_cast<std::size_t>((d > 0 ? d : -d) / 2)];
        acc = d > 0 ? detail::ext_add_pniels(acc, q) : detail::ext_sub_pniels(acc, q);
      }
    }
    out[p] = to_point(acc);
  }
  return out;
}

#if defined(GOPA_HAVE_IFMA_CODE)
// Eight outputs p0 .. p0 + count − 1 of a strided comb evaluation at once (AVX-512 IFMA), one
// lane each: the same sequence of doublings and additions as the one-output loop, the addend of
// every lane loaded from its own point's comb table (a lane past the end adds the identity).
// VARIABLE TIME: public data only.
GOPA_IFMA_TARGET void comb_outputs_ifma(std::span<const CombOp> ops, const Niels* t,
                                        std::span<const std::size_t> index, std::size_t stride,
                                        std::size_t p0, std::size_t count, Point* out) {
  namespace v8 = detail::ifma;
  const __m512i identity_row =
      _mm512_maskz_set1_epi64(static_cast<__mmask8>(1U | (1U << v8::kNativeWords)), 1);
  v8::Ext8 acc = v8::ext8_identity();
  for (const CombOp& op : ops) {
    if (!op.add) {
      acc = v8::ext8_dbl(acc);
      continue;
    }
    __m512i lo[8], hi[8];
    for (std::size_t k = 0; k < 8; ++k) {
      const std::size_t j = p0 + k + op.block * stride;
      if (k < count && j < index.size()) {
        v8::niels_row(t[index[j] * 2 * kCombPerPoint + op.row], lo[k], hi[k]);
      } else {
        lo[k] = identity_row;
        hi[k] = _mm512_setzero_si512();
      }
    }
    const v8::Niels8 q = v8::niels8_from_rows(lo, hi);
    acc = v8::ext8_add_niels(acc, op.negative ? v8::niels8_cneg(0xFF, q) : q);
  }
  Ext lanes[8];
  v8::ext8_to_native(acc, lanes);
  for (std::size_t k = 0; k < count; ++k) out[k] = to_point(lanes[k]);
}
#endif

std::vector<Point> MsmBasis::msm_strided(std::span<const Scalar> scalars,
                                         std::span<const std::size_t> index,
                                         std::size_t stride) const {
  GOPA_CHECK(stride > 0, "MsmBasis::msm_strided: zero stride");
  GOPA_CHECK(index.size() <= scalars.size() * stride, "MsmBasis::msm_strided: too few scalars");
  for (const std::size_t i : index)
    GOPA_CHECK(i < impl_->points.size(), "MsmBasis::msm_strided: index");
  const CombTables* comb = impl_->comb_tables();
  if (comb == nullptr) {
    std::vector<Point> pts(index.size());
    for (std::size_t i = 0; i < index.size(); ++i) pts[i] = impl_->points[index[i]];
    return gopa::msm_strided(scalars, pts, stride);
  }
  // Split every shared scalar at bit h and recode both halves once; the resulting sequence of
  // doublings and additions is the same for every output.
  const std::size_t blocks = std::min(scalars.size(), (index.size() + stride - 1) / stride);
  const int h = comb->shift;
  std::vector<std::int8_t> nafs(2 * blocks * kWnafLen);
  int top = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const ScalarWords k = scalar_words(scalars[b]);
    ScalarWords lo{}, hi{};
    const int q = h / 64, r = h % 64;
    for (int i = 0; i < 5; ++i) {
      const int keep = std::clamp(h - 64 * i, 0, 64);
      lo.w[i] = keep == 64 ? k.w[i] : k.w[i] & ((std::uint64_t{1} << keep) - 1);
      const std::uint64_t a = i + q < 5 ? k.w[i + q] : 0;
      const std::uint64_t c = i + q + 1 < 5 ? k.w[i + q + 1] : 0;
      hi.w[i] = r == 0 ? a : (a >> r) | (c << (64 - r));
    }
    top = std::max(top, wnaf_words(lo, &nafs[(2 * b) * kWnafLen], kCombWidth));
    top = std::max(top, wnaf_words(hi, &nafs[(2 * b + 1) * kWnafLen], kCombWidth));
  }
  std::vector<CombOp> ops;
  for (int pos = top - 1; pos >= 0; --pos) {
    if (!ops.empty()) ops.push_back({0, 0, false, false});
    for (std::size_t b = 0; b < blocks; ++b) {
      for (std::size_t tooth = 0; tooth < 2; ++tooth) {
        const int d = nafs[(2 * b + tooth) * kWnafLen + static_cast<std::size_t>(pos)];
        if (d == 0) continue;
        const auto entry = static_cast<std::size_t>((d > 0 ? d : -d) / 2);
        ops.push_back({static_cast<std::uint32_t>(b),
                       static_cast<std::uint8_t>(tooth * kCombPerPoint + entry), true, d < 0});
      }
    }
  }
  const std::size_t outputs = std::min(stride, index.size());
  std::vector<Point> out(outputs);
  const Niels* t = comb->t.data();
#if defined(GOPA_HAVE_IFMA_CODE)
  if (detail::ifma_enabled()) {
    for (std::size_t p = 0; p < outputs; p += 8)
      comb_outputs_ifma(ops, t, index, stride, p, std::min<std::size_t>(8, outputs - p), &out[p]);
    return out;
  }
#endif
  for (std::size_t p = 0; p < outputs; ++p) {
    Ext acc = detail::ext_identity();
    for (const CombOp& op : ops) {
      if (!op.add) {
        acc = detail::ext_dbl(acc);
        continue;
      }
      const std::size_t j = p + op.block * stride;
      if (j >= index.size()) continue;
      const Niels& q = t[index[j] * 2 * kCombPerPoint + op.row];
      acc = op.negative ? detail::ext_sub_niels(acc, q) : detail::ext_add_niels(acc, q);
    }
    out[p] = to_point(acc);
  }
  return out;
}

}  // namespace gopa
