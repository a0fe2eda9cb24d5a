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

struct Buckets {
  std::vector<Ext> sum;
  std::vector<std::uint8_t> used;
  explicit Buckets(int c)
      : sum(std::size_t{1} << (c - 1)), used(std::size_t{1} << (c - 1)) {}
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

// S_w = Σ_i d_{w,i}·P_i for one window: bucket accumulation, then the running-sum reduction
// Σ_j (j+1)·B_j. Returns false when the window sum is the identity because nothing was added.
bool window_sum(std::span<const Niels> points, const std::int16_t* digits, Buckets& bk, Ext& out) {
  const std::size_t n = points.size();
  std::fill(bk.used.begin(), bk.used.end(), std::uint8_t{0});
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
    const std::size_t w1 = part_begin(wn, part + 1, threads);
    for (std::size_t w = part_begin(wn, part, threads); w < w1; ++w) {
      nonzero[w] = window_sum(points, &digits[w * n], bk, sums[w]) ? 1 : 0;
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
  std::fill(bk.used.begin(), bk.used.end(), std::uint8_t{0});
  std::vector<std::int16_t> digits(w);
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
