// gopa/circuits/recorder.hpp — the constraint recorder: a builder (builder.hpp) that records the
// circuit and the witness over Z_ℓ, the canonical circuit description, and the witness checker.
//
//   gopa::circuits::Recorder rec("gopa/box-muller/v1 f=16");
//   auto s = rec.committed_input(seed);  ...  rec.output(eta);   // run any gadget on it
//   const Circuit& c = rec.circuit();       // gates + variable kinds
//   Bytes32 id = c.id();                    // SHA-256 of c.encode()
//   CheckResult r = check_witness(c, rec.values());   // every gate holds?
//
// Circuit form (docs/circuits.md §2): variables z_0..z_{n-1}, each public input, committed
// input, witness (prover hint), product (output of a multiplication gate) or committed output.
// A wire is an affine form  c_0 + Σ c_i·z_i  (additions and constant factors are free).
// Constraints: multiplication gates  A(z)·B(z) = C(z)  and linear constraints  L(z) = 0.
// The number of multiplication gates drives the proof cost.
//
// Security notes: the witness holds secrets (seeds, samples) as Scalar values; the recorder wipes
// them on destruction. Recording runs in time independent of the witness: hints are computed
// from __int128 shadow values with the constant-time helpers of ct.hpp (masks, fixed-iteration
// division and square root, no branch or table index on a value), the field arithmetic is
// libdecaf's (constant time), and the circuit's shape depends only on the parameters. Checked
// under valgrind with the seeds marked undefined (tests/consttime). check_witness declassifies
// only its verdict. The proof layer must copy the witness into SecretScalar.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gopa/circuits/builder.hpp"
#include "gopa/group.hpp"

namespace gopa::circuits {

Scalar scalar_from_i128(i128 v) noexcept;

enum class VarKind : std::uint8_t {
  kPublic = 1,     // public input (e.g. public randomness y)
  kCommitted = 2,  // private input, committed outside the circuit (e.g. private seed x)
  kWitness = 3,    // prover hint, constrained by the gadgets
  kProduct = 4,    // output of a multiplication gate
  kOutput = 5,     // committed output (the sample η)
};

struct Term {
  std::uint32_t var = 0;
  Scalar coef;
};

// c_0 + Σ coef·z_var, terms sorted by var, no zero coefficient, no repeated var.
struct LinComb {
  Scalar constant;
  std::vector<Term> terms;
  [[nodiscard]] Scalar eval(std::span<const Scalar> z) const noexcept;
};

struct MulGate {
  LinComb a, b, c;  // a·b = c
};

struct Circuit {
  std::string name;  // domain label, e.g. "gopa/circuits/box-muller/v1 f=16 F=20 m=20 d=2"
  std::vector<VarKind> vars;
  std::vector<MulGate> muls;
  std::vector<LinComb> linear;  // each = 0

  // Canonical byte encoding (docs/circuits.md §2.3), and its SHA-256: the circuit id.
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  [[nodiscard]] Bytes32 id() const;
  [[nodiscard]] std::size_t count(VarKind k) const noexcept;
  // Variables of a kind, in creation order (e.g. the public inputs, the outputs).
  [[nodiscard]] std::vector<std::uint32_t> vars_of(VarKind k) const;
};

enum class CheckError : std::uint8_t {
  kOk = 0,
  kWrongSize,       // witness length ≠ number of variables
  kMulGate,         // a multiplication gate does not hold
  kLinear,          // a linear constraint does not hold
  kPublicInput,     // a public input differs from the expected value
};

struct CheckResult {
  CheckError error = CheckError::kOk;
  std::size_t index = 0;  // the failing gate / constraint / public input
  [[nodiscard]] bool ok() const noexcept { return error == CheckError::kOk; }
};

// Checks every gate and linear constraint on the assignment z, and (if given) that the public
// inputs equal `expected_public` in order.
[[nodiscard]] CheckResult check_witness(const Circuit& c, std::span<const Scalar> z,
                                        std::span<const Scalar> expected_public = {});

// The recording builder.
class Recorder {
 public:
  struct Wire {
    LinComb lc;
    Scalar val;      // value over Z_ℓ
    i128 shadow = 0;  // the same value as an integer (for hints); exact while |v| < 2^124
  };
  // Cheating-prover hook for soundness tests: called on every witness(v) with its index; the
  // returned value is used instead.
  using Tamper = std::function<i128(std::size_t hint_index, i128 honest)>;

  explicit Recorder(std::string name);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  Wire constant(i128 c) const;
  Wire add(const Wire& a, const Wire& b) const;
  Wire sub(const Wire& a, const Wire& b) const;
  Wire add_const(const Wire& a, i128 c) const;
  Wire mul_const(const Wire& a, i128 c) const;
  Wire mul(const Wire& a, const Wire& b);
  Wire witness(i128 v);
  Wire public_input(i128 v);
  Wire committed_input(i128 v);
  i128 value(const Wire& w) const noexcept { return w.shadow; }
  void assert_zero(const Wire& a);
  void assert_mul(const Wire& a, const Wire& b, const Wire& c);
  void output(const Wire& w);

  void set_tamper(Tamper t) { tamper_ = std::move(t); }
  [[nodiscard]] std::size_t hints() const noexcept { return hints_; }
  [[nodiscard]] const Circuit& circuit() const noexcept { return c_; }
  [[nodiscard]] std::span<const Scalar> values() const noexcept { return z_; }
  // For tests: overwrite one variable's value after recording.
  void set_value(std::uint32_t var, const Scalar& v) { z_.at(var) = v; }
  // True while every shadow stayed within ±2^124 (always, for an honest prover).
  [[nodiscard]] bool shadow_exact() const noexcept { return shadow_exact_ != 0; }

 private:
  Wire new_var(VarKind k, i128 v, const Scalar& val);
  Circuit c_;
  std::vector<Scalar> z_;
  Tamper tamper_;
  std::size_t hints_ = 0;
  std::uint8_t shadow_exact_ = 1;  // 0 or 1, updated without branching (it depends on secrets)
};

// The witness alone: the same variables in the same order with the same values as Recorder
// (the gadgets allocate variables only through witness, public_input, committed_input, mul and
// output, which both implement alike), without recording a single constraint. A wire is its
// integer shadow; each variable's value is the shadow mapped into Z_ℓ, which is the Recorder's
// field value whenever every shadow stayed within ±2^124 (shadow_exact(): always, for an honest
// prover). For provers that need a circuit's witness again after recording it once: several
// times cheaper than recording. Constant time in the values, as Recorder.
class WitnessRecorder {
 public:
  using Wire = i128;

  WitnessRecorder() = default;
  ~WitnessRecorder();
  WitnessRecorder(const WitnessRecorder&) = delete;
  WitnessRecorder& operator=(const WitnessRecorder&) = delete;

  Wire constant(i128 c) const noexcept { return c; }
  Wire add(Wire a, Wire b) const noexcept;
  Wire sub(Wire a, Wire b) const noexcept;
  Wire add_const(Wire a, i128 c) const noexcept { return add(a, c); }
  Wire mul_const(Wire a, i128 c) const noexcept;
  Wire mul(Wire a, Wire b);
  Wire witness(i128 v) { return new_var(VarKind::kWitness, v); }
  Wire public_input(i128 v) { return new_var(VarKind::kPublic, v); }
  Wire committed_input(i128 v) { return new_var(VarKind::kCommitted, v); }
  i128 value(Wire w) const noexcept { return w; }
  void assert_zero(Wire) const noexcept {}
  void assert_mul(Wire, Wire, Wire) const noexcept {}
  void output(Wire w) { new_var(VarKind::kOutput, w); }

  [[nodiscard]] std::span<const VarKind> kinds() const noexcept { return kinds_; }
  [[nodiscard]] std::span<const Scalar> values() const noexcept { return z_; }
  [[nodiscard]] bool shadow_exact() const noexcept { return shadow_exact_ != 0; }

 private:
  Wire new_var(VarKind k, i128 v);
  std::vector<VarKind> kinds_;
  std::vector<Scalar> z_;
  std::uint8_t shadow_exact_ = 1;  // 0 or 1, updated without branching (it depends on secrets)
};

}  // namespace gopa::circuits
