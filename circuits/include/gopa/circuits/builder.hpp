// gopa/circuits/builder.hpp — the builder interface every gadget is written against, and the
// clear-text evaluator.
//
//   gopa::circuits::ClearBuilder b;                  // exact integer semantics, fast
//   auto x = b.committed_input(5 << 16);
//   auto y = fx_mul(b, x, x, 16, 24);                // gadgets.hpp
//   bool ok = b.ok();                                // every assertion held
//
// A gadget is a function template over a builder B (concept `Builder`). B::Wire is an affine
// combination of circuit variables; add/sub/mul_const are free, `mul` is one multiplication
// gate, `witness(v)` introduces a prover-supplied hint (v is the prover's clear value, computed
// from `value(w)` of earlier wires) which the gadget must then constrain.
//
// Values are integers embedded in Z_ℓ (negatives as ℓ − |v|). Every gadget states a bound on
// the wires it creates so that the integer computation never wraps modulo ℓ (docs/circuits.md);
// the evaluators carry those integers in __int128 and fail loudly past ±2^124.
//
// ClearBuilder evaluates exactly the circuit's semantics on integers: it is the statistics and
// benchmark tool, and is NOT constant time (its own bookkeeping branches on wire values; the
// hints it evaluates are the gadgets' constant-time ones). Never run it on a party's secrets. The constraint recorder
// (recorder.hpp) produces the circuit and the witness over Z_ℓ; tests check both agree.
#pragma once

#include <bit>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>

namespace gopa::circuits {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

// Largest magnitude an evaluator accepts on any wire (far below ℓ/2 ≈ 2^251, so an honest
// evaluation in __int128 is the field computation).
inline constexpr i128 kWireLimit = static_cast<i128>(1) << 124;

constexpr i128 pow2(unsigned k) noexcept { return static_cast<i128>(1) << k; }

// floor(a / 2^s) for any sign of a (arithmetic shift: C++20 defines >> on negatives).
constexpr i128 floor_shift(i128 a, unsigned s) noexcept { return a >> s; }

template <class B>
concept Builder = requires(B& b, const typename B::Wire& w, i128 c, unsigned n) {
  { b.constant(c) } -> std::same_as<typename B::Wire>;
  { b.add(w, w) } -> std::same_as<typename B::Wire>;
  { b.sub(w, w) } -> std::same_as<typename B::Wire>;
  { b.add_const(w, c) } -> std::same_as<typename B::Wire>;
  { b.mul_const(w, c) } -> std::same_as<typename B::Wire>;
  { b.mul(w, w) } -> std::same_as<typename B::Wire>;
  { b.witness(c) } -> std::same_as<typename B::Wire>;
  { b.public_input(c) } -> std::same_as<typename B::Wire>;
  { b.committed_input(c) } -> std::same_as<typename B::Wire>;
  { b.value(w) } -> std::same_as<i128>;
  b.assert_zero(w);
  b.assert_mul(w, w, w);
  b.output(w);
};

// Exact clear-text evaluation. A wire is its integer value. Failures (an assertion that does
// not hold, a wire past ±2^124) are recorded, never thrown, so a whole sample always completes.
class ClearBuilder {
 public:
  using Wire = i128;

  Wire constant(i128 c) const noexcept { return c; }
  Wire add(Wire a, Wire b) noexcept { return bound(a + b); }
  Wire sub(Wire a, Wire b) noexcept { return bound(a - b); }
  Wire add_const(Wire a, i128 c) noexcept { return bound(a + c); }
  Wire mul_const(Wire a, i128 c) noexcept { return bound(checked_mul(a, c)); }
  Wire mul(Wire a, Wire b) noexcept {
    ++muls_;
    return bound(checked_mul(a, b));
  }
  Wire witness(i128 v) noexcept { return bound(v); }
  Wire public_input(i128 v) noexcept { return bound(v); }
  Wire committed_input(i128 v) noexcept { return bound(v); }
  i128 value(Wire w) const noexcept { return w; }
  void assert_zero(Wire a) noexcept { ok_ = ok_ && a == 0; }
  void assert_mul(Wire a, Wire b, Wire c) noexcept {
    ++muls_;
    ok_ = ok_ && checked_mul(a, b) == c;
  }
  void output(Wire w) noexcept { last_output_ = w; }

  // Shortcut used by assert_range (gadgets.hpp): the bit decomposition of x into n bits exists
  // iff 0 ≤ x < 2^n, so the clear evaluator checks that directly. Counts the n bit gates.
  void fast_range(Wire x, unsigned n) noexcept {
    muls_ += n;
    ok_ = ok_ && n < 125 && x >= 0 && x < pow2(n);
  }

  [[nodiscard]] bool ok() const noexcept { return ok_; }
  [[nodiscard]] std::uint64_t mul_gates() const noexcept { return muls_; }
  [[nodiscard]] i128 last_output() const noexcept { return last_output_; }
  void reset() noexcept {
    ok_ = true;
    muls_ = 0;
  }

 private:
  i128 bound(i128 v) noexcept {
    ok_ = ok_ && v < kWireLimit && v > -kWireLimit;
    return v;
  }
  i128 checked_mul(i128 a, i128 b) noexcept {
    i128 r = 0;
    if (__builtin_mul_overflow(a, b, &r)) {
      ok_ = false;
      return 0;
    }
    return r;
  }
  bool ok_ = true;
  std::uint64_t muls_ = 0;
  i128 last_output_ = 0;
};

}  // namespace gopa::circuits
