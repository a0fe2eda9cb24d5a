// Internal: point arithmetic on the curve behind libdecaf's decaf_255, for the MSM and fixed-base
// hot paths.
//
// libdecaf stores a ristretto255 element as a representative (X:Y:Z:T) in extended twisted
// Edwards coordinates on −x² + y² = 1 + d·x²·y² with d = 121665 (checked in tests/group/test_msm:
// the base point satisfies it and decaf's doubling agrees with ours). a = −1 is a square and d is
// not, so the formulas below (Hisil–Wong–Carter–Dawson 2008, §3.1 and §3.3, a = −1) are complete:
// no exceptional inputs, the identity and P + P included. Results written back are
// representatives of the same group elements, so every decaf operation (encode, eq, add) works
// on them unchanged.
//
// Every function here is branch-free; the variable-time code lives in msm.cpp.
#pragma once

#include <cstdint>
#include <span>

#include <decaf/point_255.h>

#include "fe25519.hpp"

namespace gopa::detail {

inline constexpr std::uint32_t kCurveD = 121665;
inline constexpr std::uint32_t kCurveD2 = 2 * kCurveD;

// Extended coordinates: x = X/Z, y = Y/Z, T = X·Y/Z.
struct Ext {
  Fe X, Y, Z, T;
};

// Affine Niels form (y + x, y − x, 2d·x·y): the addend of a 7M mixed addition.
struct Niels {
  Fe ypx, ymx, t2d;
};

// Projective Niels form (Y + X, Y − X, 2Z, 2d·T): the addend of an 8M addition.
struct PNiels {
  Fe ypx, ymx, z2, t2d;
};

inline Ext ext_identity() noexcept { return Ext{fe_zero(), fe_one(), fe_one(), fe_zero()}; }
inline Niels niels_identity() noexcept { return Niels{fe_one(), fe_one(), fe_zero()}; }

inline Fe fe_from_decaf(const gf_25519_s& g) noexcept {
  Fe r;
  for (int i = 0; i < 5; ++i) r.v[i] = g.limb[i];
  return fe_carry(r);
}

inline void fe_to_decaf(gf_25519_s& g, const Fe& a) noexcept {
  const Fe c = fe_canonical(a);
  for (int i = 0; i < 5; ++i) g.limb[i] = c.v[i];
}

inline Ext ext_from_decaf(const decaf_255_point_s& p) noexcept {
  return Ext{fe_from_decaf(p.x[0]), fe_from_decaf(p.y[0]), fe_from_decaf(p.z[0]),
             fe_from_decaf(p.t[0])};
}

inline void ext_to_decaf(decaf_255_point_s& out, const Ext& p) noexcept {
  fe_to_decaf(out.x[0], p.X);
  fe_to_decaf(out.y[0], p.Y);
  fe_to_decaf(out.z[0], p.Z);
  fe_to_decaf(out.t[0], p.T);
}

inline PNiels ext_to_pniels(const Ext& p) noexcept {
  return PNiels{fe_carry(fe_add(p.Y, p.X)), fe_carry(fe_sub(p.Y, p.X)), fe_carry(fe_add(p.Z, p.Z)),
                fe_mul_small(p.T, kCurveD2)};
}

// Shared tail of every addition: (E, F, G, H) ↦ (E·F, G·H, F·G, E·H).
[[gnu::always_inline]] inline Ext ext_finish(const Fe& e, const Fe& f, const Fe& g, const Fe& h) noexcept {
  return Ext{fe_mul(e, f), fe_mul(g, h), fe_mul(f, g), fe_mul(e, h)};
}

// p + q, q affine Niels (7M).
inline Ext ext_add_niels(const Ext& p, const Niels& q) noexcept {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.ymx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.ypx);
  const Fe c = fe_mul(p.T, q.t2d);
  const Fe d = fe_add(p.Z, p.Z);
  return ext_finish(fe_sub(b, a), fe_sub(d, c), fe_add(d, c), fe_add(b, a));
}

// p − q, q affine Niels (7M).
inline Ext ext_sub_niels(const Ext& p, const Niels& q) noexcept {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.ypx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.ymx);
  const Fe c = fe_mul(p.T, q.t2d);
  const Fe d = fe_add(p.Z, p.Z);
  return ext_finish(fe_sub(b, a), fe_add(d, c), fe_sub(d, c), fe_add(b, a));
}

// p + q, q projective Niels (8M).
inline Ext ext_add_pniels(const Ext& p, const PNiels& q) noexcept {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.ymx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.ypx);
  const Fe c = fe_mul(p.T, q.t2d);
  const Fe d = fe_mul(p.Z, q.z2);
  return ext_finish(fe_sub(b, a), fe_sub(d, c), fe_add(d, c), fe_add(b, a));
}

// p − q, q projective Niels (8M).
inline Ext ext_sub_pniels(const Ext& p, const PNiels& q) noexcept {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), q.ypx);
  const Fe b = fe_mul(fe_add(p.Y, p.X), q.ymx);
  const Fe c = fe_mul(p.T, q.t2d);
  const Fe d = fe_mul(p.Z, q.z2);
  return ext_finish(fe_sub(b, a), fe_add(d, c), fe_sub(d, c), fe_add(b, a));
}

// p + q, both extended (8M + one small multiplication).
inline Ext ext_add(const Ext& p, const Ext& q) noexcept {
  const Fe a = fe_mul(fe_sub(p.Y, p.X), fe_sub(q.Y, q.X));
  const Fe b = fe_mul(fe_add(p.Y, p.X), fe_add(q.Y, q.X));
  const Fe c = fe_mul_small(fe_mul(p.T, q.T), kCurveD2);
  const Fe zz = fe_mul(p.Z, q.Z);
  const Fe d = fe_add(zz, zz);
  return ext_finish(fe_sub(b, a), fe_sub(d, c), fe_add(d, c), fe_add(b, a));
}

// 2p (4M + 4S).
inline Ext ext_dbl(const Ext& p) noexcept {
  const Fe a = fe_sq(p.X);
  const Fe b = fe_sq(p.Y);
  const Fe zz = fe_sq(p.Z);
  const Fe c = fe_add(zz, zz);
  const Fe e = fe_sub(fe_sub(fe_sq(fe_add(p.X, p.Y)), a), b);
  const Fe g = fe_sub(b, a);
  const Fe f = fe_sub(g, c);
  const Fe h = fe_sub(fe_neg(a), b);
  return ext_finish(e, f, g, h);
}

// Affine Niels forms of many points with one inversion (Montgomery's trick). Z is never zero on
// this curve. scratch must hold points.size() elements.
inline void ext_batch_to_niels(std::span<const Ext> points, std::span<Niels> out,
                               std::span<Fe> scratch) noexcept {
  const std::size_t n = points.size();
  if (n == 0) return;
  Fe acc = fe_one();
  for (std::size_t i = 0; i < n; ++i) {
    scratch[i] = acc;
    acc = fe_mul(acc, points[i].Z);
  }
  Fe inv = fe_invert(acc);
  for (std::size_t i = n; i-- > 0;) {
    const Fe zinv = fe_mul(inv, scratch[i]);
    inv = fe_mul(inv, points[i].Z);
    const Fe x = fe_mul(points[i].X, zinv);
    const Fe y = fe_mul(points[i].Y, zinv);
    out[i] = Niels{fe_carry(fe_add(y, x)), fe_carry(fe_sub(y, x)),
                   fe_mul_small(fe_mul(x, y), kCurveD2)};
  }
}

}  // namespace gopa::detail
