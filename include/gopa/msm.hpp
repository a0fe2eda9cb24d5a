// gopa/msm.hpp — multi-scalar multiplication and fixed-base tables.
//
//   Point R = gopa::msm(scalars, points);          // Σ s_i·P_i, variable time: PUBLIC data only
//   Point R2 = gopa::msm(scalars, points, {.threads = 2});
//   gopa::MsmBasis basis(generators);                // normalise a generator set once
//   Point R3 = basis.msm(scalars);                   // Σ s_i·G_i over a prefix of the set
//   gopa::FixedBaseTable T(H);                       // constant-time k·H for a fixed generator
//   Point C = T.mul(secret);
//
// Security notes
// - msm() is variable time (Straus for small n, Pippenger with a size-dependent window for
//   large n). Use it only when every scalar and point is public: verification, folding of public
//   generators. Secrets go through FixedBaseTable or Point::operator*, which are constant time.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gopa/group.hpp"

namespace gopa {

struct MsmOptions {
  // Threads for large inputs (1 = the calling thread only; the calling thread is one of them).
  // Small inputs ignore it, and no more threads are used than there are Pippenger windows.
  unsigned threads = 1;
};

// Σ scalars[i]·points[i]; the spans must have equal length (aborts otherwise). Empty → identity.
// VARIABLE TIME: public data only.
[[nodiscard]] Point msm(std::span<const Scalar> scalars, std::span<const Point> points,
                        MsmOptions options = {});

// Public points gathered for one later MSM, kept normalised (affine Niels form: 96 bytes a point
// with the BMI2/ADX field, 120 portable, against 320 for a gopa::Point). Points are buffered and
// normalised 2048 at a time with one batch inversion, so gathering costs what msm() would spend
// on normalising them, and the MSM itself normalises nothing. Verifiers that gather many proofs'
// terms into one equation (sigma::MsmTerms) keep them this way. VARIABLE TIME: public data only.
class MsmPoints {
 public:
  MsmPoints();
  ~MsmPoints();
  MsmPoints(MsmPoints&&) noexcept;
  MsmPoints& operator=(MsmPoints&&) noexcept;
  MsmPoints(const MsmPoints&) = delete;
  MsmPoints& operator=(const MsmPoints&) = delete;

  void push_back(const Point& p);
  // Appends every point of other (in order).
  void append(const MsmPoints& other);
  [[nodiscard]] std::size_t size() const noexcept;
  // The i-th point (tests; a conversion back to a gopa::Point).
  [[nodiscard]] Point at(std::size_t i) const;

 private:
  friend Point msm(std::span<const Scalar> scalars, const MsmPoints& points, MsmOptions options);
  friend class MsmBasis;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Σ scalars[i]·points[i] over gathered points (equal sizes, aborts otherwise).
// VARIABLE TIME: public data only.
[[nodiscard]] Point msm(std::span<const Scalar> scalars, const MsmPoints& points, MsmOptions options = {});

// The reference: one scalar multiplication and one addition per term. For tests and baselines.
[[nodiscard]] Point msm_naive(std::span<const Scalar> scalars, std::span<const Point> points);

// Bytes of scratch memory msm() allocates for n terms (computed from the algorithm's buffers:
// normalised points, signed digits, buckets, per-thread chunks), for capacity planning.
[[nodiscard]] std::size_t msm_scratch_bytes(std::size_t n, MsmOptions options = {});

// A generator set normalised once (affine form, one batch inversion) for repeated MSMs over it,
// e.g. the vector-commitment generators G_1..G_n. Holds one affine point (96 bytes with the
// BMI2/ADX field, 120 portable) per point plus a copy of the points; for bases of up to 4096
// points Straus tables (2^(w−2) affine points per point, built the first time an MSM has at most
// 256 non-zero terms); and for bases of at least 1024 points, once they have served 8 MSMs of
// more than 128 terms, fixed-base window tables (the 2^(ck) multiples of every point, k < ⌈254/c⌉,
// c from 10 to 14 bits growing with the basis, at most 128 MiB), after which an MSM is one bucket
// pass without doublings.
// VARIABLE TIME in msm(): public data only.
class MsmBasis {
 public:
  explicit MsmBasis(std::span<const Point> points);
  // straus_width (4..8): wNAF width of the Straus tables (2^(w−2) affine points per point, built
  // on first use): wider saves additions when the basis is reused many times.
  MsmBasis(std::span<const Point> points, int straus_width);
  // window_bits (10..14): digit width of the window tables instead of the size-dependent choice
  // (tests: every width on a small basis).
  MsmBasis(std::span<const Point> points, int straus_width, int window_bits);
  ~MsmBasis();
  MsmBasis(MsmBasis&&) noexcept;
  MsmBasis& operator=(MsmBasis&&) noexcept;
  MsmBasis(const MsmBasis&) = delete;
  MsmBasis& operator=(const MsmBasis&) = delete;

  [[nodiscard]] std::size_t size() const noexcept;
  // Σ scalars[i]·points[i] over the first scalars.size() points (aborts if more scalars than
  // points). Zero scalars cost nothing when few are non-zero (bases of up to 4096 points keep
  // Straus tables for that case), so a sparse vector over the whole basis is fine.
  [[nodiscard]] Point msm(std::span<const Scalar> scalars, MsmOptions options = {}) const;
  // The same plus Σ extra_scalars[k]·extra_points[k], in one MSM (shared doublings / buckets).
  [[nodiscard]] Point msm(std::span<const Scalar> scalars, std::span<const Scalar> extra_scalars,
                          std::span<const Point> extra_points, MsmOptions options = {}) const;
  // The same with the extra points gathered in normalised form.
  [[nodiscard]] Point msm(std::span<const Scalar> scalars, std::span<const Scalar> extra_scalars,
                          const MsmPoints& extra_points, MsmOptions options = {}) const;
  // out[p] = Σ_b scalars[b]·points[index[p + b·stride]] for p < min(stride, index.size()), as
  // gopa::msm_strided over the points index selects (aborts on an index ≥ size() or too few
  // scalars). Once the basis has window tables it also keeps two-tooth comb tables (the odd
  // multiples 1..15 of every point and of its 2^(c·k) multiple with c·k near 127: 16 affine
  // points, 1.5 KiB, per point, built on the first such call; capped at 128 MiB like the window
  // tables, so a basis holds at most 256 MiB of both), and every
  // output costs about 128 doublings and 43 mixed additions per term instead of 253 doublings,
  // per-call tables and 42 projective additions.
  [[nodiscard]] std::vector<Point> msm_strided(std::span<const Scalar> scalars,
                                               std::span<const std::size_t> index,
                                               std::size_t stride) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// out[p] = Σ_b scalars[b]·points[p + b·stride] for p < min(stride, points.size()) (terms past the
// end of points are left out): many small MSMs sharing one scalar vector, e.g. folding a
// generator vector by the same challenges (docs/proofs.md §2.2). The scalars are recoded once.
// Aborts if points.size() > scalars.size()·stride. VARIABLE TIME: public data only.
[[nodiscard]] std::vector<Point> msm_strided(std::span<const Scalar> scalars,
                                             std::span<const Point> points, std::size_t stride);

// Constant-time fixed-base scalar multiplication for a generator used many times (H, G_i):
// 64 signed radix-16 digits, a table of d·16^i·base (d = 1..8) in affine form (60 KiB), one
// masked scan of 8 entries and one mixed addition per digit, no doublings.
class FixedBaseTable {
 public:
  explicit FixedBaseTable(const Point& base);
  ~FixedBaseTable();
  FixedBaseTable(FixedBaseTable&&) noexcept;
  FixedBaseTable& operator=(FixedBaseTable&&) noexcept;
  FixedBaseTable(const FixedBaseTable&) = delete;
  FixedBaseTable& operator=(const FixedBaseTable&) = delete;

  [[nodiscard]] Point mul(const SecretScalar& k) const noexcept;
  [[nodiscard]] Point mul(const Scalar& k) const noexcept;
  [[nodiscard]] const Point& base() const noexcept { return base_; }

 private:
  Point base_;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gopa
