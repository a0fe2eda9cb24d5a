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
#include <functional>
#include <map>
#include <mutex>
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

// Circuits by parameters, built on first use; at most `capacity` kept (the least recently used
// is dropped). Callers hold the shared_ptr they get for as long as they use the circuit, so an
// entry dropped or replaced meanwhile is freed only when its last reader is done: memory stays
// bounded whatever parameters a peer's proofs name, and no reader ever sees a freed circuit.
inline constexpr std::size_t kCircuitCacheCapacity = 16;  // per circuit family

template <class Key>
class CircuitCache {
 public:
  explicit CircuitCache(std::size_t capacity) : capacity_(capacity) {}
  template <class Build>
  std::shared_ptr<const Circuit> get(const Key& key, Build&& build) {
    std::lock_guard<std::mutex> lock(mu_);
    ++tick_;
    if (auto it = entries_.find(key); it != entries_.end()) {
      it->second.used = tick_;
      return it->second.circuit;
    }
    if (entries_.size() >= capacity_) {
      auto oldest = entries_.begin();
      for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->second.used < oldest->second.used) oldest = it;
      }
      entries_.erase(oldest);
    }
    auto circuit = build();
    entries_.emplace(key, Entry{circuit, tick_});
    return circuit;
  }
 private:
  struct Entry {
    std::shared_ptr<const Circuit> circuit;
    std::uint64_t used = 0;
  };
  std::mutex mu_;
  std::size_t capacity_;
  std::uint64_t tick_ = 0;
  std::map<Key, Entry> entries_;
};

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
  // The body's bytes by shape alone (the basis the circuit's proof folds over: Basis{
  // c.generators_needed(), !c.bindings.empty()}), so that a decoder builds no circuit from a
  // header it has not yet compared with its statement.
  [[nodiscard]] static std::optional<CircuitProof> decode_body(std::span<const std::uint8_t> in, Basis basis);
  [[nodiscard]] static std::size_t body_size(const Circuit& c);
  [[nodiscard]] static std::size_t body_size(Basis basis);
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

// Batches (docs/proofs.md §4.5): one circuit, s ≥ 1 instances, each with its own public inputs,
// commitments and witness, proven together. The prover commits to every instance's wires
// (P_k) before the first challenge; the instances then share the challenges c, ρ, ω, hence the
// linear form, and one amortized pivot (AC20 §3.3) opens all s combined commitments with one
// mask and one compressed response. Per instance the proof holds P_k, f_k(c), g_k(c) (96
// bytes); the mask commitment and the compression are paid once per batch:
//
//   auto pr = prove_circuit_batch(t, gens, c, publics, commitments,
//                                 [&](std::size_t k, auto& w, auto& blinders) { … }, rng, threads);
//   VerifyResult ok = verify_circuit_batch(tv, gens, c, publics, commitments, pr);
//
// The prover asks the source for instance k's witness (c.num_witness values) and blinders (one
// per commitment of the instance) three times, possibly from `threads` threads at once, and
// keeps one instance's witness per thread: memory does not grow with s beyond the statement and
// the proof. Each instance's f(0), g(0) and γ come from a stream derived from the bound
// transcript, its witness and 32 bytes of rng drawn in instance order; the mask's from the
// transcript, a digest of every witness and rng. The proof does not depend on the thread count.
// Test deviations (gopa/deviation.hpp) apply to instance 0 (statement, wire offsets,
// evaluations) and to the batch's pivot.
struct CircuitBatchProof {
  std::vector<Point> p;        // P_k
  std::vector<Scalar> fa, gb;  // f_k(c), g_k(c)
  CompressedProof inner;

  // (P_k ‖ f_k(c) ‖ g_k(c)) for k = 0..s−1 ‖ CompressedProof (docs/proofs.md §4.5).
  void encode_body(std::vector<std::uint8_t>& out) const;
  [[nodiscard]] static std::optional<CircuitBatchProof> decode_body(std::span<const std::uint8_t> in,
                                                                    const Circuit& c, std::size_t instances);
  // By shape alone, as CircuitProof::decode_body(in, basis).
  [[nodiscard]] static std::optional<CircuitBatchProof> decode_body(std::span<const std::uint8_t> in, Basis basis,
                                                                    std::size_t instances);
  [[nodiscard]] static std::size_t body_size(const Circuit& c, std::size_t instances);
  [[nodiscard]] static std::size_t body_size(Basis basis, std::size_t instances);
};

// d items in blocks of `block` (the last may be shorter) as batches prove them: the full blocks
// one batch, a shorter last block (when block ∤ d) a batch of its own. Blocks [first, first +
// count), each of len items.
struct BlockBatch {
  std::size_t first = 0, count = 0, len = 0;
};
[[nodiscard]] std::vector<BlockBatch> block_batches(std::size_t d, std::size_t block);

using WitnessSource =
    std::function<void(std::size_t k, std::vector<SecretScalar>& witness, std::vector<SecretScalar>& blinders)>;

[[nodiscard]] CircuitBatchProof prove_circuit_batch(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                                    std::span<const std::vector<Scalar>> publics,
                                                    std::span<const std::vector<Point>> commitments,
                                                    const WitnessSource& source, Rng& rng, unsigned threads = 1);

[[nodiscard]] VerifyResult verify_circuit_batch(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                                std::span<const std::vector<Scalar>> publics,
                                                std::span<const std::vector<Point>> commitments,
                                                const CircuitBatchProof& proof);

// Adds the batch's verification equation to eq (batching across proofs).
[[nodiscard]] VerifyResult add_circuit_batch_terms(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                                   std::span<const std::vector<Scalar>> publics,
                                                   std::span<const std::vector<Point>> commitments,
                                                   const CircuitBatchProof& proof, MsmTerms& eq);

// The straightforward baseline verifier (benchmarks): explicit folding, no single MSM.
[[nodiscard]] bool verify_circuit_naive(Transcript& t, const GeneratorSet& gens, const Circuit& c,
                                        std::span<const Scalar> publics,
                                        std::span<const Point> commitments,
                                        const CircuitProof& proof);

}  // namespace gopa::sigma
