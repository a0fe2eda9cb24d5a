// gopa/sigma/circuit.hpp — compressed Σ-protocol proofs for arithmetic circuits over Z_ℓ
// (AC20 §5: commit to the wires, prove the multiplication gates with the polynomial technique,
// open everything through linear forms, compress with compressed.hpp).
//
// A circuit is a rank-1 constraint list over witness variables w, public inputs p, constants:
//   multiplication gates  a_i(w,p) · b_i(w,p) = c_i(w,p)    (a, b, c affine: LinComb)
//   linear constraints    z_t(w,p) = 0
//   commitment bindings   k_j(w,p) = the value committed in V_j = v_j·G + r_j·H
// Addition and multiplication by a constant are free (they build LinCombs); only `mul` adds a
// gate and a variable. This is the target of the circuits/ compiler:
//
//   CircuitBuilder b(CircuitBuilder::kProver);          // or kVerifier: same calls, no values
//   LinComb x = b.committed(x_value);                   // bound to the caller's commitment V_0
//   LinComb y = b.secret(y_value);
//   LinComb xy = b.mul(x, y);                           // one multiplication gate
//   b.assert_equal(xy + x * Scalar::from_u64(3), b.public_input(out));
//   Circuit c = b.circuit();                            // identical for prover and verifier
//   CircuitProof pr = prove_circuit(t, gens, c, b.publics(), {V0}, b.witness(), {r0}, rng);
//   VerifyResult ok = verify_circuit(tv, gens, c, publics, {V0}, pr);
//
// gens must hold at least c.generators_needed() vector generators. The circuit is identified
// by BLAKE2b-256 of its canonical encoding (Circuit::hash), bound into the transcript with the
// public inputs and commitments before the first challenge.
//
// Security notes: witness values are SecretScalar and all prover arithmetic on them is constant
// time; LinComb coefficients, the circuit and the public inputs are public.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gopa/sigma/common.hpp"
#include "gopa/sigma/compressed.hpp"

namespace gopa::sigma {

// Size limits enforced on every circuit a verifier accepts (decode never allocates more).
inline constexpr std::uint32_t kMaxCircuitGates = 1U << 20;
inline constexpr std::uint32_t kMaxCircuitVariables = 1U << 22;

struct Term {
  std::uint32_t index = 0;
  Scalar coeff;
};

// Σ coeff·w[index] + Σ coeff·public[index] + constant.
struct LinComb {
  std::vector<Term> terms;
  std::vector<Term> public_terms;
  Scalar constant;

  static LinComb of_constant(const Scalar& c) { return {{}, {}, c}; }
  static LinComb variable(std::uint32_t i) { return {{{i, Scalar::one()}}, {}, Scalar::zero()}; }
  LinComb& operator+=(const LinComb& o);
  LinComb& operator-=(const LinComb& o);
  LinComb& operator*=(const Scalar& k);
  // Sorts terms by index, merges duplicates and drops zero coefficients (canonical form).
  void normalize();
};
LinComb operator+(LinComb a, const LinComb& b);
LinComb operator-(LinComb a, const LinComb& b);
LinComb operator*(LinComb a, const Scalar& k);
LinComb operator+(LinComb a, const Scalar& k);
LinComb operator-(LinComb a, const Scalar& k);

struct MulGate {
  LinComb a, b, c;  // a·b = c
};

struct Circuit {
  std::uint32_t num_witness = 0;
  std::uint32_t num_public = 0;
  std::vector<MulGate> gates;
  std::vector<LinComb> zero;      // each must evaluate to 0
  std::vector<LinComb> bindings;  // bindings[j] = value committed in the j-th commitment

  // Canonical byte encoding (docs/proofs.md §4.1) and its BLAKE2b-256 identifier.
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  [[nodiscard]] Bytes32 hash() const;
  // The identifier a proof binds: hash(), or the one seal() stored. Circuits proven and verified
  // block after block (range, ball and sampler circuits, shared as const) are sealed once built,
  // so that their encoding is not hashed again for every block; change nothing after seal().
  [[nodiscard]] Bytes32 id() const { return sealed_id_ ? *sealed_id_ : hash(); }
  void seal() { sealed_id_ = hash(); }
  // Indices in range, sizes within the limits.
  [[nodiscard]] bool well_formed() const;
  // Vector generators G_i a proof needs: witness + 3 + 2·0 + gates.
  [[nodiscard]] std::size_t generators_needed() const noexcept {
    return std::size_t{num_witness} + 3U + gates.size();
  }
  // Does the witness satisfy every constraint? (testing aid; not constant time)
  [[nodiscard]] bool is_satisfied(std::span<const Scalar> publics,
                                  std::span<const Scalar> witness_values) const;

 private:
  std::optional<Bytes32> sealed_id_;
};

// A shared, sealed copy of c (Circuit::seal).
[[nodiscard]] inline std::shared_ptr<const Circuit> sealed(Circuit c) {
  c.seal();
  return std::make_shared<const Circuit>(std::move(c));
}

// Builds a Circuit and, in prover mode, its witness at the same time, so that gadget code
// is written once.
class CircuitBuilder {
 public:
  enum Mode { kProver, kVerifier };
  explicit CircuitBuilder(Mode mode) : mode_(mode) {}

  [[nodiscard]] bool proving() const noexcept { return mode_ == kProver; }
  // A new secret variable (its value is ignored in verifier mode; pass SecretScalar()).
  LinComb secret(SecretScalar value = SecretScalar());
  // n new secret bits β_0..β_{n−1} (each constrained by β·(β − 1) = 0, in order), and their value
  // Σ_i 2^i·β_i: a verifier's bit decomposition (range and L2-ball circuits).
  LinComb bits(unsigned n);
  // A secret variable bound to the next commitment in order (V_0, V_1, …).
  LinComb committed(SecretScalar value = SecretScalar());
  // Binds an existing expression to the next commitment.
  void bind_commitment(const LinComb& e);
  // A public input (same value on both sides).
  LinComb public_input(const Scalar& value);
  // out = a·b: one gate and one new variable.
  LinComb mul(const LinComb& a, const LinComb& b);
  void assert_mul(const LinComb& a, const LinComb& b, const LinComb& c);
  void assert_zero(const LinComb& e);
  void assert_equal(const LinComb& a, const LinComb& b) { assert_zero(a - b); }
  // The value of an expression under the witness built so far (prover mode; constant time).
  [[nodiscard]] SecretScalar value(const LinComb& e) const;

  [[nodiscard]] const Circuit& circuit() const noexcept { return circuit_; }
  [[nodiscard]] std::span<const Scalar> publics() const noexcept { return publics_; }
  [[nodiscard]] std::span<const SecretScalar> witness() const noexcept { return witness_; }

 private:
  LinComb push_witness(SecretScalar v);
  Mode mode_;
  Circuit circuit_;
  std::vector<Scalar> publics_;
  std::vector<SecretScalar> witness_;
};

struct CircuitProof {
  Point p;             // commitment to (w, f(0), g(0), h(0), h(m+1..2m))
  Scalar fa, gb;       // f(c), g(c)
  CompressedProof inner;

  // version ‖ kind ‖ body (docs/proofs.md §4.3).
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  void encode_body(std::vector<std::uint8_t>& out) const;
  [[nodiscard]] static std::optional<CircuitProof> decode(std::span<const std::uint8_t> in,
                                                          const Circuit& c);
  [[nodiscard]] static std::optional<CircuitProof> decode_body(std::span<const std::uint8_t> in,
                                                               const Circuit& c);
  [[nodiscard]] static std::size_t body_size(const Circuit& c);
};

[[nodiscard]] CircuitProof prove_circuit(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                         std::span<const Scalar> publics,
                                         std::span<const Point> commitments,
                                         std::span<const SecretScalar> witness,
                                         std::span<const SecretScalar> blinders, Rng& rng);

[[nodiscard]] VerifyResult verify_circuit(Transcript& t, const GeneratorSet& gens,
                                          const Circuit& c, std::span<const Scalar> publics,
                                          std::span<const Point> commitments,
                                          const CircuitProof& proof);

// Adds the proof's verification equation to eq (batching); a failed VerifyResult for
// structural defects.
[[nodiscard]] VerifyResult add_circuit_terms(Transcript& t, const GeneratorSet& gens,
                                             const Circuit& c, std::span<const Scalar> publics,
                                             std::span<const Point> commitments,
                                             const CircuitProof& proof, MsmTerms& eq);

// The straightforward baseline verifier (benchmarks): explicit folding, no single MSM.
[[nodiscard]] bool verify_circuit_naive(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                        std::span<const Scalar> publics,
                                        std::span<const Point> commitments,
                                        const CircuitProof& proof);

}  // namespace gopa::sigma
