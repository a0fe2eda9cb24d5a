// gopa/sigma/range.hpp — range proofs: every value committed in V_j = v_j·G + r_j·H lies in
// [0, 2^bits), bits ∈ {8, 16, 32, 64}, d values in one proof (DESIGN.md §5).
//
//   Point V = gopa::commit(v, r, *gens);                       // the protocol's commitment
//   Transcript t("gopa/party v1");
//   auto proof = prove_range(t, *gens, 64, {&V, 1}, {&v, 1}, {&r, 1}, rng);   // nullopt: out of range
//   Transcript tv("gopa/party v1");
//   VerifyResult ok = verify_range(tv, *gens, {64, {V}}, *proof);
//
// Construction: the circuit with d·bits bit variables, one gate b·(b−1) = 0 per bit and the
// binding Σ_i 2^i·b_{j,i} = v_j per value (circuit.hpp), proven with the compressed circuit
// proof. Size for bits = 64, d = 1: 613 bytes. gens needs range_generators(bits, d) vector
// generators.
//
// Security notes: prove_range branches on whether the values are in range (it refuses out of
// range values, which is the only thing that branch reveals); everything else on the values is
// constant time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "gopa/sigma/circuit.hpp"

namespace gopa::sigma {

inline constexpr std::size_t kMaxRangeValues = 1024;

[[nodiscard]] bool range_bits_supported(unsigned bits) noexcept;

struct RangeStatement {
  unsigned bits = 64;
  std::vector<Point> commitments;  // V_j = v_j·G + r_j·H
};

struct RangeProof {
  unsigned bits = 64;
  std::size_t d = 1;
  CircuitProof body;

  // version ‖ kind ‖ bits (u8) ‖ d (u16 LE) ‖ circuit body (docs/proofs.md §5).
  [[nodiscard]] std::vector<std::uint8_t> encode() const;
  // Strict; nullopt for unsupported bits, d ∉ [1, kMaxRangeValues], wrong length, any
  // non-canonical element.
  [[nodiscard]] static std::optional<RangeProof> decode(std::span<const std::uint8_t> in);
  [[nodiscard]] static std::size_t encoded_size(unsigned bits, std::size_t d);
};

// The (cached) circuit of a range proof and the generators it needs.
[[nodiscard]] std::shared_ptr<const Circuit> range_circuit(unsigned bits, std::size_t d);
[[nodiscard]] std::size_t range_generators(unsigned bits, std::size_t d);

[[nodiscard]] std::optional<RangeProof> prove_range(Transcript& t, const GeneratorSet& gens,
                                                    unsigned bits,
                                                    std::span<const Point> commitments,
                                                    std::span<const SecretScalar> values,
                                                    std::span<const SecretScalar> blinders,
                                                    Rng& rng);

[[nodiscard]] VerifyResult verify_range(Transcript& t, const GeneratorSet& gens,
                                        const RangeStatement& st, const RangeProof& proof);

// Straightforward baseline verifier (benchmarks only).
[[nodiscard]] bool verify_range_naive(Transcript& t, const GeneratorSet& gens,
                                      const RangeStatement& st, const RangeProof& proof);

// Many proofs, one MSM: each proof's equation is weighted by a random scalar from rng (the
// verifier's own randomness). transcripts[i] is proof i's fresh transcript. On failure the
// result names the first structurally bad proof, or says that the batch equation failed
// (verify individually to find the culprit).
[[nodiscard]] VerifyResult batch_verify_range(std::span<Transcript> transcripts,
                                              const GeneratorSet& gens,
                                              std::span<const RangeStatement> statements,
                                              std::span<const RangeProof> proofs, Rng& rng);

}  // namespace gopa::sigma
